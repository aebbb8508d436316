fn main() {
    let _ = onnx_text::onnx_node!(y = Foo <n = 2u8> (x));
}
