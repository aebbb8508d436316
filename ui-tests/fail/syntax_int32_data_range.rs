fn main() {
    let _ = onnx_text::onnx_graph!(g (int32[1] w = {2147483648}) => (y) { y = Relu(w) });
}
