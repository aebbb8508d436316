fn main() {
    let _ = onnx_text::onnx_node!(y = Foo <alpha = - 5> (x));
}
