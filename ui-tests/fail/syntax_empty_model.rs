fn main() {
    let _ = onnx_text::onnx!();
}
