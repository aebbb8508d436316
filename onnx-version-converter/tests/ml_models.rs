//! ai.onnx.ml conversions, proven on the evaluator's converter models (onnx-eval/tests/data/ml:
//! skl2onnx, onnxmltools and hand-made models, with onnxruntime's outputs). Each model is
//! converted to every other ai.onnx.ml opset, and what reached opset 5 on to every opset below
//! it (the way back from TreeEnsemble); each converted model must pass the project's checker
//! and give onnxruntime's outputs in onnx-eval. A refusal must be listed in `ml_models.expected`;
//! a listed one that now converts fails too. `VC_WRITE=1` rewrites the file; `VC_DUMP=DIR`
//! writes every converted model there (for onnx's full checker: `scripts/check_converted_models.py`).

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use onnx_conformance::{Tolerance, compare_named};
use onnx_eval::Value;
use onnx_runtime_types::prost::Message;
use onnx_runtime_types::{ModelProto, TypeProto};
use onnx_version_converter::{Error, convert_opsets};

const EXPECTED: &str = "tests/ml_models.expected";
const NEWEST_ML: i64 = 5;

fn read(path: &Path, ty: Option<&TypeProto>) -> Value {
    let bytes = std::fs::read(path).unwrap();
    Value::decode(ty, &bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn ml_opset(model: &ModelProto) -> i64 {
    model
        .opset_import
        .iter()
        .find(|i| i.domain.as_deref() == Some("ai.onnx.ml"))
        .and_then(|i| i.version)
        .unwrap()
}

struct Case {
    name: String,
    inputs: Vec<Value>,
    expected: Vec<Value>,
    outputs: Vec<String>,
    /// Whether the model given passes the checker (some import a domain twice, or leave an
    /// output's shape out): only then must its conversions.
    valid: bool,
}

impl Case {
    /// `None` where the converted model gives onnxruntime's outputs; else why not.
    fn check(&self, converted: &ModelProto, label: &str) -> Option<String> {
        if let Some(dir) = std::env::var_os("VC_DUMP") {
            let path = Path::new(&dir).join(format!("{}.onnx", label.replace(' ', "_")));
            std::fs::write(path, converted.encode_to_vec()).unwrap();
        }
        if let Err(problems) = onnx_validate::ModelCheck::default().check(converted)
            && self.valid
        {
            let first = problems.iter().next().map(|d| d.message());
            return Some(format!("fails the checker: {}", first.unwrap_or_default()));
        }
        let names: Vec<&str> = self.outputs.iter().map(String::as_str).collect();
        match onnx_eval::run(converted, &self.inputs) {
            Ok(actual) => compare_named(&self.expected, &actual, &names, Tolerance::default())
                .err()
                .map(|m| format!("wrong outputs: {m}")),
            Err(e) => Some(format!("does not run: {e}")),
        }
    }
}

#[test]
fn every_ml_model_converts_to_every_ml_opset_or_is_listed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../onnx-eval/tests/data/ml");
    let mut names: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert!(names.len() >= 80, "only {} models", names.len());
    let mut refusals = BTreeSet::new();
    let mut failures = Vec::new();
    let (mut converted_count, mut pairs, mut valid) = (0, 0, 0);
    for name in &names {
        let dir = root.join(name);
        let bytes = std::fs::read(dir.join("model.onnx")).unwrap();
        let model = ModelProto::decode(bytes.as_slice()).unwrap();
        let graph = model.graph.as_ref().unwrap();
        let case = Case {
            name: name.clone(),
            inputs: (graph.input.iter().enumerate())
                .map(|(i, v)| read(&dir.join(format!("input_{i}.pb")), v.r#type.as_ref()))
                .collect(),
            expected: (graph.output.iter().enumerate())
                .map(|(i, v)| read(&dir.join(format!("output_{i}.pb")), v.r#type.as_ref()))
                .collect(),
            outputs: graph.output.iter().map(|o| o.name().to_owned()).collect(),
            valid: onnx_validate::ModelCheck::default().check(&model).is_ok(),
        };
        valid += usize::from(case.valid);
        let source = ml_opset(&model);
        let mut reached_newest = None;
        for target in (1..=NEWEST_ML).filter(|&t| t != source) {
            pairs += 1;
            match convert_opsets(&model, &[("ai.onnx.ml", target)]) {
                Ok(converted) => {
                    converted_count += 1;
                    let label = format!("{} to {target}", case.name);
                    if let Some(why) = case.check(&converted, &label) {
                        failures.push(format!("{} → {target}: {why}", case.name));
                    }
                    if target == NEWEST_ML {
                        // The legacy ensembles are removed at 5: rewritten, not kept.
                        let ops = operators(&converted);
                        for removed in ["TreeEnsembleClassifier", "TreeEnsembleRegressor"] {
                            if ops.contains(removed) {
                                failures.push(format!("{} → 5 keeps {removed}", case.name));
                            }
                        }
                        reached_newest = Some(converted);
                    }
                }
                Err(error) => listed(&mut refusals, &mut failures, &case.name, target, error),
            }
        }
        // The way back: from TreeEnsemble (and the other ml-5 forms) to each older opset.
        if let Some(newest) = reached_newest {
            for target in 1..NEWEST_ML {
                pairs += 1;
                let via = format!("{} via {NEWEST_ML}", case.name);
                match convert_opsets(&newest, &[("ai.onnx.ml", target)]) {
                    Ok(converted) => {
                        converted_count += 1;
                        let label = format!("{via} to {target}");
                        if let Some(why) = case.check(&converted, &label) {
                            failures.push(format!("{via} → {target}: {why}"));
                        }
                    }
                    Err(error) => listed(&mut refusals, &mut failures, &via, target, error),
                }
            }
        }
    }
    println!(
        "{converted_count} of {pairs} conversions of {} models made ({valid} models pass the checker); {} refused",
        names.len(),
        pairs - converted_count
    );
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(EXPECTED);
    failures.extend(common::expectation(
        &path,
        "The refusals of tests/ml_models.rs: model, target, reason kind, operator. Regenerate with VC_WRITE=1.",
        &refusals,
    ));
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn operators(model: &ModelProto) -> BTreeSet<String> {
    let graph = model.graph.as_ref().unwrap();
    graph.node.iter().map(|n| n.op_type().to_owned()).collect()
}

/// Records a refusal as its expectation line; any other error is a failure.
fn listed(
    refusals: &mut BTreeSet<String>,
    failures: &mut Vec<String>,
    case: &str,
    target: i64,
    error: Error,
) {
    match error {
        Error::Nodes(list) => {
            let reasons: BTreeSet<String> = list
                .iter()
                .map(|r| format!("{} {}: {}", r.reason.kind(), r.operator, r.reason))
                .collect();
            let reasons: Vec<String> = reasons.into_iter().collect();
            refusals.insert(format!("{case} {target}: {}", reasons.join("; ")));
        }
        other => failures.push(format!("{case} → {target}: {other}")),
    }
}
