fn main() {
    let _ = onnx_text::onnx_graph!(g (map(int64[2], float) m) => (y) { y = Relu(m) });
}
