fn main() {
    let _ = onnx_text::onnx! {
        #![library(acme::)]
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[N] x) => (float[N] y) { y = Relu (x) }
    };
    let _ = onnx_text::onnx! {
        #![library("acme")]
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[N] x) => (float[N] y) { y = Relu (x) }
    };
}
