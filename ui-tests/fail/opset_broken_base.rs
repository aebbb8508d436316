// A library with an error is still declared: the libraries and literals built on it report
// nothing more, so the one mistake gives one error.
onnx_text::onnx_library! {
    pub static BASE;
    <domain: "my.base", opset_import: ["" : 21]>
    Act (x) => (y) { y = Rleu (x) }
}

onnx_text::onnx_library! {
    #![library(crate::BASE)]
    pub static LAYERS;
    <domain: "my.layers", opset_import: ["" : 21, "my.base" : 1]>
    Layer (x) => (y) { y = my.base.Act (x) }
}

fn main() {
    let _ = onnx_text::onnx! {
        #![library(crate::LAYERS)]
        <ir_version: 10, opset_import: ["" : 21, "my.layers" : 1]>
        g (float[2] x) => (float[2] y) { y = my.layers.Layer (x) }
    };
}
