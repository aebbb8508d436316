fn main() {
    let _ = onnx_text::onnx_graph!(g (x) = > (y) { y = Relu(x) });
}
