// A dim is a size, 0 or more; an unknown one is a name or `?`. The same rule holds for binary
// models and for text at runtime.
fn main() {
    let _ = onnx_text::onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[2, -1] x) => (float[2, N] y) { y = Relu (x) }
    };
}
