// An undefined value next to a defined one of a close name: the message suggests it.
fn main() {
    let _ = onnx_text::onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[N, 64] conv1_bn) => (float[N, 64] y) { y = Relu (conv1_bx) }
    };
}
