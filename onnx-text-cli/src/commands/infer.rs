//! `onnx-text infer`: shape inference, written as value_info.

use onnx_text::{Check, CheckOptions};

use super::{add_output, check_same_files, read_model, write_model};
use crate::io::Place;
use crate::paths::{Access, Paths};
use crate::progress::Progress;
use crate::{InferArgs, Outcome};

/// Infers the shapes of one model and writes it with them.
pub fn infer(args: &InferArgs, show_progress: bool) -> Outcome {
    let input = Place::new(&args.input);
    let name = input.display("<stdin>");
    let mut paths = Paths::default();
    paths.add(&args.input, "the input", Access::Read);
    add_output(&mut paths, args.output.as_deref());
    if let Err(outcome) = check_same_files(&paths) {
        return outcome;
    }
    let progress = Progress::new(show_progress, input.size());
    // A main-graph output without a type is no problem here: inference writes the type.
    let checks = CheckOptions::default().allow(Check::MissingType);
    let model = match read_model(&args.input, &input, Some(&checks), &name, &progress) {
        Ok(model) => model,
        Err(outcome) => return outcome,
    };
    progress.stage(&format!("inferring shapes of {name}"), None);
    let model = match onnx_text::infer_shapes(model) {
        Ok(model) => model,
        Err(errors) => {
            for error in errors {
                match error.node {
                    Some(node) => reportln!("error: {name}: node {node}: {}", error.message),
                    None => reportln!("error: {name}: {}", error.message),
                }
            }
            return Outcome::Failed;
        }
    };
    write_model(
        model,
        &input,
        args.output.as_deref(),
        paths,
        &name,
        &progress,
    )
}
