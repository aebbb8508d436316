fn main() {
    let nested = vec![vec![1_i64]];
    let _ = onnx_text::onnx_node!(y = com.example.Foo <sizes = #nested> (x));
}
