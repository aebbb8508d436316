//! `onnx-text inline`: calls of functions replaced by their bodies.

use super::{add_output, check_same_files, read_libraries, read_model, write_model};
use crate::io::Place;
use crate::paths::{Access, Paths};
use crate::progress::Progress;
use crate::{InlineArgs, Outcome};

/// Inlines the function calls of one model and writes it.
pub fn inline(args: &InlineArgs, show_progress: bool) -> Outcome {
    let mut paths = Paths::default();
    paths.add(&args.input, "the input", Access::Read);
    for library in &args.library {
        paths.add(library, "--library", Access::Read);
    }
    add_output(&mut paths, args.output.as_deref());
    if let Err(outcome) = check_same_files(&paths) {
        return outcome;
    }
    let libraries = match read_libraries(&args.library, None, show_progress) {
        Ok(libraries) => libraries,
        Err(outcome) => return outcome,
    };

    let input = Place::new(&args.input);
    let name = input.display("<stdin>");
    let progress = Progress::new(show_progress, input.size());
    let mut model = match read_model(&args.input, &input, None, &name, &progress) {
        Ok(model) => model,
        Err(outcome) => return outcome,
    };

    let mut inliner = onnx_text::Inliner::new();
    for (_, library) in &libraries {
        inliner = inliner.library(library);
    }
    for operator in &args.expand {
        inliner = inliner.expand(operator);
    }
    progress.stage(&format!("inlining {name}"), None);
    let report = match inliner.model(&mut model) {
        Ok(report) => report,
        Err(e) => {
            reportln!("error: `{name}`: {e}");
            return Outcome::Failed;
        }
    };
    report!("{report}");

    write_model(
        model,
        &input,
        args.output.as_deref(),
        paths,
        &name,
        &progress,
    )
}
