fn main() {
    let _ = onnx_text::onnx_node!(y = Foo <n: int = 2.5> (x));
}
