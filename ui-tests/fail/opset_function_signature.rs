fn main() {
    let _ = onnx_text::onnx! {
        #![library(acme::ACME)]
        <ir_version: 10, opset_import: ["" : 21, "com.acme" : 1]>
        g (float[N, 8] x) => (float[N, 8] y, float[N, 8] z, float[N, 8] w) {
            y = com.acme.Swish2 <bta = 2.0> (x, x, x)
            z = com.acme.Swish2 <beta = 2> (x)
            w = com.acme.Scale (x)
        }
    };
}
