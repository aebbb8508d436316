fn main() {
    let _ = onnx_text::onnx_graph!(g (w = {1, 2}) => (y) { y = Relu(w) });
}
