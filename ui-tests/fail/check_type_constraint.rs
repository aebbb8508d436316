fn main() {
    let _ = onnx_text::onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[N] x) => (float[N] y) {
            s = Shape (x)
            y = Add (x, s)
        }
    };
}
