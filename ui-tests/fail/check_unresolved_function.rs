fn main() {
    let _ = onnx_text::onnx! {
        <ir_version: 10, opset_import: ["" : 21, "local" : 1]>
        g (float[N] x) => (float[N] y) {
            y = local.Sqaure (x)
        }
        <domain: "local", opset_import: ["" : 21]>
        Square (x) => (y) { y = Mul (x, x) }
    };
}
