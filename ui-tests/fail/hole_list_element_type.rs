fn main() {
    let rest = vec![0.5_f32];
    let _ = onnx_text::onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[2, 3] x) => (float[3, 2] y) { y = Transpose <perm = [1, ..#rest]> (x) }
    };
}
