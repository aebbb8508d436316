// Swish2's body multiplies its input by a float constant: an int64 input breaks `Mul`'s `T`,
// which only the call's operand types reveal.
fn main() {
    let _ = onnx_text::onnx! {
        #![library(acme::ACME)]
        <ir_version: 10, opset_import: ["" : 21, "com.acme" : 1]>
        g (int64[N, 8] x) => (int64[N, 8] y) { y = com.acme.Swish2 (x) }
    };
}
