fn main() {
    let _ = onnx_text::onnx_function!(F <a> (x) => (y) { y = Foo <l = [@a]> (x) });
}
