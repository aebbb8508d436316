// What a literal read by another onnx-text version (library format 2) gets from a library made
// by this one: the request is written out here as that version's macro would expand to it.
fn main() {
    let _: onnx_text::ModelProto = acme::ACME! {
        @onnx_text_library 2 "0.2.0" [::onnx_text::onnx] {
            <ir_version: 10, opset_import: ["" : 21]>
            g (float[N] x) => (float[N] y) { y = Relu (x) }
        }
    };
    let _ = acme::ACME!(x);
}
