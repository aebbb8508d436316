fn main() {
    let _ = onnx_text::onnx_graph!(g (float[1] w = {inf1}) => (y) { y = Relu(w) });
}
