//! What the converter's tests share: parsing a model literal, and the project's checker on a
//! converted model.

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
