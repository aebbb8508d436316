fn main() {
    let alpha = "0.1";
    let _ = onnx_text::onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[N] x) => (float[N] y) { y = LeakyRelu <alpha = #alpha> (x) }
    };
}
