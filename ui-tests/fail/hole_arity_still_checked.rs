fn main() {
    let x = "x";
    let _ = onnx_text::onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[N] x) => (float[N] y) { y = Relu (#x, #x) }
    };
}
