fn main() {
    let _ = onnx_text::onnx_function! {
        <domain: "local", opset_import: ["" : 21]>
        Scale <alpha> (x) => (y) {
            a = Constant <value_float: float = @beta> ()
            y = Mul (x, a)
        }
    };
}
