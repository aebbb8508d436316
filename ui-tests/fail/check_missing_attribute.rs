fn main() {
    let _ = onnx_text::onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[N] x) => (int64[N] y) {
            y = Cast (x)
        }
    };
}
