use std::sync::LazyLock;

use onnx_text::FunctionProto;

static LIBRARY: LazyLock<Vec<FunctionProto>> = LazyLock::new(|| {
    onnx_text::onnx_functions! {
        <domain: "lib", opset_import: ["" : 21]>
        Square (x) => (y) { y = Mul (x, x) }
        <domain: "lib", opset_import: ["" : 21, "lib" : 1]>
        Quartic (x) => (y) { s = lib.Square (x)  y = lib.Square (s) }
    }
});

fn main() {
    assert_eq!(LIBRARY.len(), 2);
    assert_eq!(LIBRARY[1].node[0].domain.as_deref(), Some("lib"));
}
