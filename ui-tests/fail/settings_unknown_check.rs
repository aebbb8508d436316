fn main() {
    let _ = onnx_text::onnx_graph! {
        #![allow(undefined_values)]
        g (x) => (y) { y = Add (x, q) }
    };
}
