// Shapes through a library that builds on another: Mlp2 calls Dense twice, which calls Swish2.
fn main() {
    let _ = onnx_text::onnx! {
        #![library(acme::layers::LAYERS)]
        <ir_version: 10, opset_import: ["" : 21, "com.acme.layers" : 1]>
        g (float[N, 8] x, float[8, 16] w1, float[8, 8] w2) => (float[N, 8] y) {
            y = com.acme.layers.Mlp2 (x, w1, w2)
        }
    };
}
