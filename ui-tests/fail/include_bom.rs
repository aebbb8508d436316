fn main() {
    let _ = onnx_text::include_onnx!("ui-tests/data/bom.onnxtxt");
}
