fn main() {
    let _ = onnx_text::onnx_graph! {
        g (bool c, float[N] x) => (float[N] y) {
            y = If (c) <
                then_branch = t () => (float[N] r) { r = Neg (x) },
                else_branch = e () => (float[N] r) { r = Neg (z) }
            >
        }
    };
}
