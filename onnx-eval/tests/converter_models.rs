//! The converter models of tests/data/ml (made by scripts/gen_ml_models.py with skl2onnx and
//! onnxmltools), each run through the evaluator and compared with onnxruntime's outputs, with
//! onnx's runner's tolerance; ZipMap outputs are compared as sequences of maps.

use onnx_eval::Value;
use onnx_runtime_types::prost::Message;
use onnx_runtime_types::{ModelProto, TypeProto};
use onnx_value::{Tolerance, compare_named};
use std::path::Path;

fn read(path: &Path, ty: Option<&TypeProto>) -> Value {
    let bytes = std::fs::read(path).unwrap();
    Value::decode(ty, &bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_converter_model_agrees_with_onnxruntime() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ml");
    let mut names: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert!(names.len() >= 50, "only {} models", names.len());
    let mut failures = Vec::new();
    for name in &names {
        let dir = root.join(name);
        let model =
            ModelProto::decode(std::fs::read(dir.join("model.onnx")).unwrap().as_slice()).unwrap();
        let graph = model.graph.as_ref().unwrap();
        let inputs: Vec<Value> = graph
            .input
            .iter()
            .enumerate()
            .map(|(i, v)| read(&dir.join(format!("input_{i}.pb")), v.r#type.as_ref()))
            .collect();
        let expected: Vec<Value> = graph
            .output
            .iter()
            .enumerate()
            .map(|(i, v)| read(&dir.join(format!("output_{i}.pb")), v.r#type.as_ref()))
            .collect();
        let names: Vec<&str> = graph.output.iter().map(|o| o.name()).collect();
        match onnx_eval::run(&model, &inputs) {
            Ok(actual) => {
                if let Err(m) = compare_named(&expected, &actual, &names, Tolerance::default()) {
                    failures.push(format!("{name}: {m}"));
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} models disagree with onnxruntime:\n{}",
        failures.len(),
        names.len(),
        failures.join("\n")
    );
}
