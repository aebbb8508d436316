fn main() {
    let body = onnx_text::onnx_graph!(b () => () {});
    let _ = onnx_text::onnx_graph!(g (x) => (y) { #body y = Relu (x) });
}
