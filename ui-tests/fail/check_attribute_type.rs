fn main() {
    let _ = onnx_text::onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[N] x) => (float[N] y, int64[N] z) {
            y = Elu <alpha = 1> (x)
            z = Cast <to = int64> (x)
        }
    };
}
