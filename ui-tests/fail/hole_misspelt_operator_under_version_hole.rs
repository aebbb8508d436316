fn main() {
    let version = 21_i64;
    let _ = onnx_text::onnx! {
        <ir_version: 10, opset_import: ["" : #version]>
        g (float[N] x) => (float[N] y) { y = Reluu (x) }
    };
}
