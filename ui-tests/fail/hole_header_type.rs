fn main() {
    let version = "10";
    let _ = onnx_text::onnx! {
        <ir_version: #version, opset_import: ["" : 21]>
        g (float x) => (float y) { y = Relu (x) }
    };
}
