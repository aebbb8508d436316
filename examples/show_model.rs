//! The main job, at runtime: parse ONNX text, show the model, and write its protobuf bytes.
//!
//! Run with `cargo run --example show_model`. It writes `model.onnx` to the current directory.

use onnx_text::prost::Message;

const TEXT: &str = r#"
<ir_version: 10, opset_import: ["" : 21]>
agraph (float[N, 128] X, float[128, 10] W, float[10] B) => (float[N, 10] C) {
    T = MatMul (X, W)
    S = Add (T, B)
    C = Softmax (S)
}
"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = onnx_text::parse_model(TEXT)?;
    let graph = model.graph.as_ref().expect("a model has a graph");
    println!(
        "ir_version {}, opsets {:?}",
        model.ir_version(),
        model.opset_import
    );
    println!(
        "graph `{}`: {} inputs, {} outputs",
        graph.name(),
        graph.input.len(),
        graph.output.len()
    );
    for node in &graph.node {
        println!("  {:?} = {}({:?})", node.output, node.op_type(), node.input);
    }
    let bytes = model.encode_to_vec();
    std::fs::write("model.onnx", &bytes)?;
    println!("wrote model.onnx ({} bytes)", bytes.len());

    // Errors are positioned, with a snippet:
    let err =
        onnx_text::parse_model("g (float[N] x) => (float[N] y) {\n  y = Relu(x);\n}").unwrap_err();
    println!("\nA malformed text gives:\n{err}");
    Ok(())
}
