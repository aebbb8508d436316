fn main() {
    let _ = onnx_text::onnx_node!(y = Foo <pads = [1, 2.5]> (x));
}
