fn main() {
    // Malformed on purpose: `q` is never defined. `#![unchecked]` keeps only the syntax checks.
    let graph = onnx_text::onnx_graph! {
        #![unchecked]
        g (x) => (y) { y = Add (x, q) }
    };
    assert_eq!(graph.node[0].input, ["x", "q"]);
}
