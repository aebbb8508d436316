fn main() {
    let _ = onnx_text::onnx_graph!(g (float[N] w = {1, 2}) => (y) { y = Relu(w) });
}
