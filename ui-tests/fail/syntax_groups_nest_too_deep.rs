// Groups nested deeper than the token adapter follows: an error at the first group too deep.
fn main() {
    let _ = onnx_text::onnx_node!(y = Foo (((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((x))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))));
}
