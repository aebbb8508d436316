fn main() {
    let _ = onnx_text::onnx_node!(y = Relu (#[x]));
}
