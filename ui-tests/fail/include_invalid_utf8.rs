fn main() {
    let _ = onnx_text::include_onnx!("ui-tests/data/invalid-utf8.onnxtxt");
}
