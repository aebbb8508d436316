fn main() {
    let half = 1.0_f32;
    let _ = onnx_text::onnx_graph!(g () => (w) <float16[1] w = {#half}> {});
}
