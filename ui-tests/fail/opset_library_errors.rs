onnx_text::onnx_library! {
    pub static BROKEN;
    <domain: "my.ops", opset_import: ["" : 21, "my.ops" : 1]>
    Twice (x) => (y) { t = my.ops.Onse (x)  y = my.ops.Once (t) }
    <domain: "my.ops", opset_import: ["" : 21]>
    Once (x) => (y) { y = Idnetity (x) }
}

onnx_text::onnx_library! {
    #![library(acme::ACME)]
    pub static AGAIN;
    <domain: "com.acme", opset_import: ["" : 21]>
    Swish2 (x) => (y) { y = Relu (x) }
}

onnx_text::onnx_library! {
    pub static MISSING_SEMICOLON
    <domain: "my.ops"> F (x) => (y) { y = Relu (x) }
}

fn main() {}
