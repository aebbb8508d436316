fn main() {
    // Split sizes that do not add up to the split axis.
    let _ = onnx_text::onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[10] x) => (a, b) <int64[2] s = {3, 4}> { a, b = Split (x, s) }
    };
}
