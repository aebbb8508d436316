fn main() {
    let f: onnx_text::FunctionProto = onnx_text::onnx_function! {
        <domain: "local", opset_import: ["" : 21], overload: "v2">
        Scale <alpha: float = 2.0> (float[N] x) => (float[N] y) <float a> {
            a = Constant <value_float: float = @alpha> ()
            y = Mul (x, a)
        }
    };
    assert_eq!(f.overload.as_deref(), Some("v2"));
    assert_eq!(f.attribute_proto.len(), 1);
}
