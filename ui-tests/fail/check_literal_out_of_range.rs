fn main() {
    let _ = onnx_text::onnx_graph! {
        g (uint8[3] w = {0, 255, 256}) => (uint8[3] y) {
            y = Abs (w)
        }
    };
}
