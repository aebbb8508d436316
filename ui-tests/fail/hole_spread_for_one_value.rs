fn main() {
    let alphas = [0.1_f32];
    let _ = onnx_text::onnx_node!(y = LeakyRelu <alpha = ..#alphas> (x));
}
