fn main() {
    // The weight takes 4 input channels; the image has 3.
    let _ = onnx_text::onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[1, 3, 8, 8] x, float[16, 4, 3, 3] w) => (y) { y = Conv (x, w) }
    };
}
