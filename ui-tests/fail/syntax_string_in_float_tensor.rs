fn main() {
    let _ = onnx_text::onnx_graph!(g (float[1] w = {"one"}) => (y) { y = Relu(w) });
}
