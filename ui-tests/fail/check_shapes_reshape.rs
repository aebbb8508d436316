fn main() {
    // Six elements cannot take the shape [4, 2].
    let _ = onnx_text::onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[2, 3] x) => (y) <int64[2] shape = {4, 2}> { y = Reshape (x, shape) }
    };
}
