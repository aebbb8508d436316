fn takes_graph(_: onnx_text::GraphProto) {}

fn main() {
    // The expansion is still a GraphProto, so only the ONNX error is reported.
    takes_graph(onnx_text::onnx_graph!(g (x) => (y) { y = Add (x, q) }));
}
