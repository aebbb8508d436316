fn main() {
    // A subgraph sees the values of the enclosing graph; `""` is a missing optional input.
    let graph: onnx_text::GraphProto = onnx_text::onnx_graph! {
        g (bool c, float[N] x) => (float[N] y) {
            t = Abs (x)
            y = If (c) <
                then_branch = then_g () => (float[N] r) { r = Neg (t) },
                else_branch = else_g () => (float[N] r) { r = Identity (t) }
            >
            z = Clip (x, "", t)
        }
    };
    assert_eq!(graph.node.len(), 3);
}
