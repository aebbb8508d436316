fn main() {
    let node: onnx_text::NodeProto = onnx_text::onnx_node!(
        [conv1] y = Conv <kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [1, 1]> (x, w, "")
    );
    assert_eq!(node.name.as_deref(), Some("conv1"));
    assert_eq!(node.input, ["x", "w", ""]);
}
