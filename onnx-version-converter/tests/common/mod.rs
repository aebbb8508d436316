//! What the converter's tests share: parsing a model literal, the project's checker on a
//! converted model, and the expectation files of refusals.
// Each test binary uses a part of this module.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::Path;

use onnx_runtime_types::ModelProto;

/// The model of `text`, which the test wrote well-formed.
pub fn parse(text: &str) -> ModelProto {
    onnx_syntax::parse_model(text).unwrap()
}

/// Fails the test, with the model's text and the problems, if the project's checker rejects
/// `model`.
pub fn check(model: &ModelProto) {
    if let Err(problems) = onnx_validate::ModelCheck::default().check(model) {
        panic!(
            "the checker rejects {}: {:?}",
            onnx_print::to_text(model),
            problems.iter().map(|d| d.message()).collect::<Vec<_>>()
        );
    }
}

/// The expectation file at `path` against `refusals`, one line each: with `VC_WRITE` set, the
/// file is written (under the comment line `header`) and nothing fails; otherwise each refusal
/// the file does not list, and each listed line no longer refused, is a failure.
pub fn expectation(path: &Path, header: &str, refusals: &BTreeSet<String>) -> Vec<String> {
    if std::env::var_os("VC_WRITE").is_some() {
        let mut text = format!("# {header}\n");
        for line in refusals {
            text.push_str(line);
            text.push('\n');
        }
        std::fs::write(path, text).unwrap();
        println!("wrote {} ({} lines)", path.display(), refusals.len());
        return Vec::new();
    }
    let listed: BTreeSet<String> = std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(str::to_owned)
        .collect();
    let unlisted = refusals
        .difference(&listed)
        .map(|l| format!("refused, not listed: {l}"));
    let gone = listed
        .difference(refusals)
        .map(|l| format!("listed, but no longer refused so: {l}"));
    unlisted.chain(gone).collect()
}
