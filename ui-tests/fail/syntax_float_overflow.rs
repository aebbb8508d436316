fn main() {
    let _ = onnx_text::onnx_node!(y = Foo <alpha = 1e39> (x));
}
