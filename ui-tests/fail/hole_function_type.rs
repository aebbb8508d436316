fn main() {
    let nodes = onnx_text::onnx_nodes!(y = Relu (x));
    let _ = onnx_text::onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        g (float x) => (float y) { y = Relu (x) }
        ..#nodes
    };
}
