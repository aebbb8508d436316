fn main() {
    let _ = onnx_text::onnx_function! {
        <opset_import: ["" : 21]>
        F (x, y) => (a, b, c) {
            a = Add (x)
            b = Relu (x, y)
            c = Sub (x, "")
        }
    };
}
