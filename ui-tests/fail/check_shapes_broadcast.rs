fn main() {
    // [N, 3] and [N, 4] cannot broadcast.
    let _ = onnx_text::onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[N, 3] a, float[N, 4] b) => (c) { c = Add (a, b) }
    };
}
