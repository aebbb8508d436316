fn main() {
    let input = 7_i64;
    let _ = onnx_text::onnx_node!(y = Relu (#input));
}
