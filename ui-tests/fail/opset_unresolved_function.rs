fn main() {
    let _ = onnx_text::onnx! {
        #![library(acme::ACME)]
        <ir_version: 10, opset_import: ["" : 21, "com.acme" : 1]>
        g (float[N, 8] x) => (float[N, 8] y) { y = com.acme.Swish3 (x) }
    };
}
