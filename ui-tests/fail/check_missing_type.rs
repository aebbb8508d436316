// The main graph's inputs and outputs need a type with a shape (the IR's rule); the message
// gives the inferred type to write.
fn main() {
    let _ = onnx_text::onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[N, 128] x, float[128, 10] w) => (y) { y = MatMul (x, w) }
    };
}
