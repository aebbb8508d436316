fn main() {
    // Index 5 is past the end of an axis of 3.
    let _ = onnx_text::onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[3, 2] x) => (y) <int64[1] i = {5}> { y = Gather <axis = 0> (x, i) }
    };
}
