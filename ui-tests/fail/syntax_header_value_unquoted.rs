fn main() {
    let _ = onnx_text::onnx! {
        <ir_version: 10, producer_name: onnx_text>
        g (x) => (y) { y = Relu(x) }
    };
}
