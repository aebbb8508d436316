// A hole in an initializer's dims, and a spread in its data, leave its other dims known: 3
// against 4 is certain whatever `h` is.
fn main() {
    let (h, data) = (1_i64, vec![0.5_f32; 4]);
    let _ = onnx_text::onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[N, 3] x) => (float[N, 1] y) <float[4, #h] w1 = {..#data}> {
            y = MatMul (x, w1)
        }
    };
}
