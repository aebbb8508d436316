fn main() {
    let x = "x";
    let _ = onnx_text::onnx_node!(y = Foo <s = "a"> (#x));
}
