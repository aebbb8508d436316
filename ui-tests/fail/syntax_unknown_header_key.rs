fn main() {
    let _ = onnx_text::onnx! {
        <ir_version: 10, opset: ["" : 21]>
        g (x) => (y) { y = Relu(x) }
    };
}
