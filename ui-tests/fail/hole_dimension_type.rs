fn main() {
    let width = 2.5_f32;
    let _ = onnx_text::onnx_graph!(g (float[#width] x) => (y) { y = Relu (x) });
}
