fn main() {
    let _ = onnx_text::include_onnx!(model);
}
