fn main() {
    let names = ["a", "b"];
    let _ = onnx_text::onnx_graph!(g (float[N] ..#names) => (y) { y = Relu (a) });
}
