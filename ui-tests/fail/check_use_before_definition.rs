fn main() {
    let _ = onnx_text::onnx_graph! {
        g (float[N] x) => (float[N] y) {
            y = Add (t, x)
            t = Abs (x)
        }
    };
}
