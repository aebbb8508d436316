fn main() {
    // The weight has one spatial axis; the image has two.
    let _ = onnx_text::onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[1, 3, 8, 8] x, float[16, 3, 3] w) => (y) { y = Conv (x, w) }
    };
}
