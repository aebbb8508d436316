fn main() {
    let _ = onnx_text::onnx_node!(y = Foo <pads = []> (x));
}
