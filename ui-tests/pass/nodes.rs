fn main() {
    let nodes: Vec<onnx_text::NodeProto> = onnx_text::onnx_nodes! {
        zero = Constant <value = int64[1] {0}> ()
        shape = Shape (x)
        first = Gather <axis = 0> (shape, zero)
    };
    assert_eq!(nodes.len(), 3);
    assert_eq!(nodes[0].attribute[0].t.as_ref().unwrap().int64_data, [0]);
}
