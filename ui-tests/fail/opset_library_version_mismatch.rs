// `acme::ACME` provides `com.acme` at version 1: importing another version is an error on the
// import, not a silent mismatch.
fn main() {
    let _ = onnx_text::onnx! {
        #![library(acme::ACME)]
        <ir_version: 10, opset_import: ["" : 21, "com.acme" : 2]>
        g (float[N, 8] x) => (float[N, 8] y) { y = com.acme.Swish2 (x) }
    };
}
