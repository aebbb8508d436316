fn main() {
    let _ = onnx_text::onnx_graph! {
        g (float[N] x) => (float[N] y) {
            t = Abs (q)
            t = Neg (x)
            y = Add (t, r)
        }
    };
}
