// A call that leaves out an input its function's body needs would inline to an invalid node
// (`Add (t, "")`): the call is the error, naming the input.
fn main() {
    let _ = onnx_text::onnx! {
        #![inline(acme::ACME)]
        <ir_version: 10, opset_import: ["" : 21, "com.acme" : 1]>
        g (float[N, 8] x) => (float[N, 8] y) { y = com.acme.Dense (x) }
    };
}
