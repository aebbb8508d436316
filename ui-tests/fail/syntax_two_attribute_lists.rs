fn main() {
    let _ = onnx_text::onnx_node!(y = Foo <a = 1> (x) <b = 2>);
}
