fn main() {
    let _ = onnx_text::onnx_node!(y = Foo <t = seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(seq(float))))))))))))))))))))))))))))))))) > ());
}
