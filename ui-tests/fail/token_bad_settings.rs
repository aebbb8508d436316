fn main() {
    let _ = onnx_text::onnx_node!(#![deny(ssa)] y = Relu(x));
}
