fn main() {
    // Checks switched off by name keep the others.
    let graph = onnx_text::onnx_graph! {
        #![allow(undefined_value, unproduced_output)]
        g (x) => (y, z) { y = Add (x, q) }
    };
    assert_eq!(graph.output.len(), 2);
}
