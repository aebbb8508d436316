fn main() {
    let _ = onnx_text::onnx_graph!(g (FLOAT[2] x) => (y) { y = Relu(x) });
}
