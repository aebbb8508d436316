fn main() {
    let size = 1.5_f32;
    let _ = onnx_text::onnx_node!(y = com.example.Foo <size: int = #size> (x));
}
