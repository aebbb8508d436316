fn main() {
    let _ = onnx_text::onnx_node!(y = Foo <n = 9223372036854775808> (x));
}
