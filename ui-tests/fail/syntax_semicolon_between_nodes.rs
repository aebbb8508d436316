fn main() {
    let _ = onnx_text::onnx_graph!(g (x) => (y) {
        t = Abs(x);
        y = Neg(t)
    });
}
