fn main() {
    let _ = onnx_text::onnx! {
        <ir_version: 10, opset_import: ["" : 21, "local" : 1]>
        g (float[N] x) => (float[N] y) {
            y = local.Scale <factr = 2.0> (x, x)
        }
        <domain: "local", opset_import: ["" : 21]>
        Scale <factor: float = 1.0> (x) => (y) {
            f = Constant <value_float: float = @factor> ()
            y = Mul (x, f)
        }
    };
}
