fn main() {
    // Checks switched off by name keep the others.
    let graph = onnx_text::onnx_graph! {
        #![allow(undefined_value, unproduced_output)]
        g (x) => (y, z) { y = Add (x, q) }
    };
    assert_eq!(graph.output.len(), 2);

    // A model malformed on purpose, for testing a tool: Relu with two inputs, a custom
    // attribute, and an int for a float attribute.
    let model = onnx_text::onnx! {
        #![allow(operator_arity, unknown_attribute, attribute_type)]
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[N] x) => (float[N] y) {
            t = Relu <trace = 1> (x, x)
            y = Elu <alpha = 1> (t)
        }
    };
    assert_eq!(model.graph.unwrap().node[0].input, ["x", "x"]);
}
