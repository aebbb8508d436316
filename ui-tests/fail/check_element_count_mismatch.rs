fn main() {
    let _ = onnx_text::onnx_graph! {
        g (float[2, 3] w = {1, 2, 3, 4, 5}) => (float[2, 3] y) {
            y = Abs (w)
        }
    };
}
