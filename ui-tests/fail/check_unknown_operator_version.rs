fn main() {
    // Gelu was added in opset 20; Upsample was removed (deprecated) in opset 10.
    let _ = onnx_text::onnx! {
        <ir_version: 8, opset_import: ["" : 13]>
        g (float[N] x, float[4] scales) => (float[N] y, float[N] z) {
            y = Gelu (x)
            z = Upsample (x, scales)
        }
    };
}
