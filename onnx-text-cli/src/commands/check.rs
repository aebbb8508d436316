//! `onnx-text check`: parse or decode files and run every check.

use std::path::Path;

use onnx_check::{CheckEntry, Libraries};
use onnx_syntax::{Entry, Proto};
use onnx_text::{Check, CheckOptions, DiagnosticKind, Style};
use onnx_text_cli::data_check::external_data_problems;
use onnx_validate::ModelCheck;

use super::{into_text, load, model_folder, read_libraries, report_io};
use crate::io::{self, Place};
use crate::limit;
use crate::message::{self, Format};
use crate::progress::Progress;
use crate::{CheckArgs, Outcome};

/// Checks every file and says how many problems it found.
pub fn check(args: &CheckArgs, show_progress: bool) -> Outcome {
    let options = args
        .allow
        .iter()
        .fold(CheckOptions::default(), |options, &check| {
            options.allow(check)
        });
    let libraries = match read_libraries(&args.library, Some(&options), show_progress) {
        Ok(libraries) => libraries,
        Err(outcome) => return outcome,
    };
    let in_view: Vec<(&str, &onnx_text::FunctionLibrary)> = libraries
        .iter()
        .map(|(name, l)| (name.as_str(), l))
        .collect();
    let mut outcome = Outcome::Ok;
    let mut problems = 0;
    let mut failed_files = 0;
    for file in &args.files {
        let place = Place::new(file);
        let name = place.display("<stdin>");
        let progress = Progress::new(show_progress, place.size());
        let found = match check_file(
            file, &place, args.kind, &options, &in_view, &name, &progress,
        ) {
            Ok(found) => found,
            Err(o) => {
                outcome = outcome.max(o);
                continue;
            }
        };
        drop(progress);
        if let Some((count, report)) = found {
            if problems > 0 {
                reportln!();
            }
            problems += count;
            failed_files += 1;
            report!("{report}");
            outcome = outcome.max(Outcome::Failed);
        }
    }
    if problems > 0 {
        reportln!(
            "\nerror: {problems} problem{} in {failed_files} file{}",
            if problems == 1 { "" } else { "s" },
            if failed_files == 1 { "" } else { "s" }
        );
    } else if outcome == Outcome::Ok && !args.quiet {
        let files = args.files.len();
        reportln!(
            "{files} file{} checked, no problems",
            if files == 1 { "" } else { "s" }
        );
    }
    outcome
}

/// Reads and checks one file: `None` if it is clean, else how many problems it has and their
/// report. Its format is the file name's, as `print` decides it, or else its content's. A
/// binary model is checked by [`ModelCheck`], with the file's folder as the model's folder; a
/// binary message of another kind is decoded and printed, and its text checked.
fn check_file(
    file: &Path,
    place: &Place,
    kind: Entry,
    options: &CheckOptions,
    libraries: &Libraries<'_>,
    name: &str,
    progress: &Progress,
) -> Result<Option<(usize, String)>, Outcome> {
    let data = io::read(place, progress).map_err(|e| report_io(&e))?;
    let format = Format::from_extension(file).unwrap_or_else(|| Format::sniff(&data));
    progress.stage(&format!("checking {name}"), None);
    let text = match format {
        Format::Binary if kind == Entry::Model => {
            return Ok(check_binary_model(&data, place, options, name));
        }
        Format::Binary => {
            let message = load(&data, Format::Binary, kind, None, name, progress)?;
            message::text(&message, Style::Lossless)
        }
        Format::Text => into_text(data, name, "is it a binary model? Name it `.onnx`")?,
    };
    let checked = kind.check_with(&text, options, libraries);
    let external = match (&checked, kind) {
        (Ok(Proto::Model(model)), _) => {
            external_data_problems(model, Some(model_folder(place)), options, Some(&text))
        }
        (Err(_), Entry::Model) => match message::parse(kind, &text) {
            Ok(Proto::Model(model)) => {
                external_data_problems(&model, Some(model_folder(place)), options, Some(&text))
            }
            _ => None,
        },
        _ => None,
    };
    let found = checked.err().map(|diagnostics| {
        let mut report = limit::render(&diagnostics.clone().with_origin(name));
        if format == Format::Binary {
            report.push_str(&printed_note(name));
        }
        (diagnostics.len(), report)
    });
    Ok(match (found, external) {
        (found, None) => found,
        (None, Some(problems)) => {
            Some((problems.len(), limit::render(&problems.with_origin(name))))
        }
        (Some((count, mut report)), Some(problems)) => {
            report.push_str(&limit::render(&problems.clone().with_origin(name)));
            Some((count + problems.len(), report))
        }
    })
}

/// Checks a binary model as [`ModelCheck`] does, with the file's folder as the model's folder:
/// `None` if it is clean, else how many problems it has and their report. The external data
/// rule runs apart, so that a missing or short data file is one problem, as for a text.
fn check_binary_model(
    data: &[u8],
    place: &Place,
    options: &CheckOptions,
    name: &str,
) -> Option<(usize, String)> {
    let external = options.is_enabled(Check::ExternalData);
    let rest = if external {
        options.allow(Check::ExternalData)
    } else {
        *options
    };
    // On standard input there is no folder to find external data in.
    let dir = match place {
        Place::File(_) => Some(model_folder(place)),
        Place::Std => None,
    };
    let mut check = ModelCheck::new(rest);
    if let Some(dir) = dir {
        check = check.model_dir(dir);
    }
    let checked = check.check_bytes(data);
    let (model, mut found) = match checked {
        Ok(model) => (Some(model), None),
        Err(found) => {
            // Not a model at all (or past the decoding limits).
            if let [problem] = &found[..]
                && problem.kind() == DiagnosticKind::Decode
            {
                // The message every command gives, with the path and the offset; the
                // validator's own for what prost would decode (its limits).
                let why = message::decode(Entry::Model, data)
                    .err()
                    .unwrap_or_else(|| {
                        let message = problem.message();
                        format!("not a valid ONNX model (ModelProto): {message}")
                    });
                return Some((1, format!("error: `{name}` is {why}\n")));
            }
            (None, Some(found))
        }
    };
    if external {
        // The model again, only when other problems kept the check from returning it.
        let model = model.or_else(|| match message::decode(Entry::Model, data) {
            Ok(Proto::Model(model)) => Some(model),
            _ => None,
        });
        let problems = model.and_then(|m| external_data_problems(&m, dir, options, None));
        match (&mut found, problems) {
            (Some(found), Some(problems)) => found.combine(problems),
            (None, Some(problems)) => found = Some(problems),
            (_, None) => {}
        }
    }
    found.map(|found| {
        let mut report = limit::render(&found.clone().with_origin(name));
        if found.iter().any(|d| d.place().is_none()) {
            report.push_str(&printed_note(name));
        }
        (found.len(), report)
    })
}

/// The note after problems positioned in the printed text of a binary file.
fn printed_note(name: &str) -> String {
    format!(
        "note: `{name}` is binary: the positions are in its text, as \
         `onnx-text print {name}` shows it\n"
    )
}
