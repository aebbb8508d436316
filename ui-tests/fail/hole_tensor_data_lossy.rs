fn main() {
    let first = 0.1_f64;
    let _ = onnx_text::onnx_graph!(g () => (w) <float[2] w = {#first, 1.0}> {});
}
