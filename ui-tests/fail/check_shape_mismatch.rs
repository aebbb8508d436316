fn main() {
    // The graph computes [N, 3]; the output declares [N, 4].
    let _ = onnx_text::onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[N, 3] x) => (float[N, 4] y) { y = Relu (x) }
    };
}
