fn main() {
    let n = 8;
    let _ = onnx_text::onnx! {
        #![inline(acme::ACME)]
        <ir_version: 10, opset_import: ["" : 21, "com.acme" : 1]>
        g (float[N, #n] x) => (float[N, 8] y) { y = com.acme.Swish2 (x) }
    };
    let _ = onnx_text::onnx_graph! {
        #![attach(acme::ACME)]
        g (float[N, 8] x) => (float[N, 8] y) { y = com.acme.Swish2 (x) }
    };
}
