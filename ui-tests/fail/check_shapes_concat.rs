fn main() {
    // Off the axis, the operands of a Concat must agree.
    let _ = onnx_text::onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[2, 3] a, float[2, 5] b) => (c) { c = Concat <axis = 0> (a, b) }
    };
}
