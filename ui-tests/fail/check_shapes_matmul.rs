fn main() {
    // The inner dims of a matrix product differ: 128 against 64.
    let _ = onnx_text::onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        agraph (float[N, 128] X, float[64, 10] W) => (C) { C = MatMul (X, W) }
    };
}
