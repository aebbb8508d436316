//! The main job: build a model with `onnx!`, print it as text, and write `model.onnx`.
//!
//! Run with `cargo run -p show-model`: a package of its own, so that it builds `onnx-text` and
//! none of the facade's dev-dependencies. The literal is parsed and checked at compile time;
//! at runtime the value is one protobuf decode away.

use onnx_text::prost::Message;
use onnx_text::{ModelProto, onnx};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model: ModelProto = onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        agraph (float[N, 128] X, float[128, 10] W, float[10] B) => (float[N, 10] C) {
            T = MatMul (X, W)
            S = Add (T, B)
            C = Softmax (S)
        }
    };
    print!("{}", onnx_text::to_text(&model));

    let bytes = model.encode_to_vec();
    std::fs::write("model.onnx", &bytes)?;
    println!("\nwrote model.onnx ({} bytes)", bytes.len());

    // The same text at runtime gives the same bytes; mistakes come back positioned.
    let text = "g (float[N] x) => (float[N] y) {\n  y = Relu(q)\n}";
    let err = onnx_text::check_graph(text).unwrap_err();
    println!("\nchecking a malformed graph at runtime gives:\n{err}");
    Ok(())
}
