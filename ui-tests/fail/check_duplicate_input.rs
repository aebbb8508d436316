fn main() {
    let _ = onnx_text::onnx_graph! {
        g (float[N] x, float[N] x) => (float[N] y) {
            y = Abs (x)
        }
    };
}
