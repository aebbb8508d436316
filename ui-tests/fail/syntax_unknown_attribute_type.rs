fn main() {
    let _ = onnx_text::onnx_node!(y = Foo <n: int64 = 2> (x));
}
