//! `--opset N` and `--ml-opset N` of `convert` and `print`: the model moved to those opsets by
//! the version converter before it is written.

use onnx_syntax::Proto;

use crate::Outcome;

/// Converts `message` (a model) to `opset` of the default domain and `ml_opset` of ai.onnx.ml,
/// where given. Anything but a model, or a model that cannot be converted, is an error that
/// lists every node refused and why.
pub fn convert_opsets(
    message: &mut Proto,
    opset: Option<i64>,
    ml_opset: Option<i64>,
    name: &str,
) -> Result<(), Outcome> {
    let targets: Vec<(&str, i64)> = [("", opset), ("ai.onnx.ml", ml_opset)]
        .into_iter()
        .filter_map(|(domain, target)| Some((domain, target?)))
        .collect();
    if targets.is_empty() {
        return Ok(());
    }
    let Proto::Model(model) = message else {
        reportln!(
            "error: `{name}`: --opset and --ml-opset convert models, not graphs or functions"
        );
        return Err(Outcome::Failed);
    };
    // The model is given to the converter, which moves its tensors rather than copying them;
    // on an error the command stops, and the model is not needed again.
    match onnx_version_converter::convert_opsets_owned(std::mem::take(model), &targets) {
        Ok(converted) => {
            *model = converted;
            Ok(())
        }
        Err(error) => {
            reportln!("error: `{name}`: {error}");
            Err(Outcome::Failed)
        }
    }
}
