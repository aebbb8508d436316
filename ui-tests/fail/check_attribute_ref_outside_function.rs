fn main() {
    // A graph is not a function body, so it has no attributes to refer to.
    let _ = onnx_text::onnx_graph!(g (x) => (y) { y = LeakyRelu <alpha: float = @alpha> (x) });
}
