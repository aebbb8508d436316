fn main() {
    let _ = onnx_text::onnx! {
        #![library(acme::ACME)]
        <ir_version: 10, opset_import: ["" : 21, "com.acme" : 1]>
        g (float[N, 8] x, float[4, 8] w) => (float[N, 8] y) { y = com.acme.Dense (x, w) }
    };
    let _ = onnx_text::onnx! {
        #![library(acme::ACME)]
        <ir_version: 10, opset_import: ["" : 21, "com.acme" : 1]>
        g (float[N, 8] x) => (float[N, 3] y) { y = com.acme.Swish2 (x) }
    };
}
