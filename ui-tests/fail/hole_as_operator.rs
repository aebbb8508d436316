fn main() {
    let op = "Relu";
    let _ = onnx_text::onnx_node!(y = #op (x));
}
