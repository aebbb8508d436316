// A hole in a declared shape is written in messages as the user wrote it, never as the marker
// that stands for it inside the macro.
fn main() {
    let b = 4_i64;
    let _ = onnx_text::onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[#b, 3] x, float[4, 2] w) => (float[#b, 2] y) { y = MatMul (x, w) }
    };
}
