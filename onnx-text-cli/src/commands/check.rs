//! `onnx-text check`: parse or decode files and run every check.

use std::path::Path;

use onnx_check::{CheckEntry, Libraries};
use onnx_syntax::{Entry, Proto};
use onnx_text::{Check, CheckOptions, DiagnosticKind, Style};
use onnx_validate::ModelCheck;

use super::{into_text, load, model_folder, read_libraries, report_io};
use crate::io::{self, Place};
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
                eprintln!();
            }
            problems += count;
            failed_files += 1;
            eprint!("{report}");
            outcome = outcome.max(Outcome::Failed);
        }
    }
    if problems > 0 {
        eprintln!(
            "\nerror: {problems} problem{} in {failed_files} file{}",
            if problems == 1 { "" } else { "s" },
            if failed_files == 1 { "" } else { "s" }
        );
    } else if outcome == Outcome::Ok && !args.quiet {
        let files = args.files.len();
        eprintln!(
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
            let mut check = ModelCheck::new(*options);
            if let Place::File(path) = place {
                let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
                check = check.model_dir(dir.unwrap_or(Path::new(".")));
            }
            return Ok(check.check_bytes(&data).err().map(|found| {
                // Not a model at all (or past the decoding limits).
                if let [problem] = &found[..]
                    && problem.kind() == DiagnosticKind::Decode
                {
                    let message = problem.message();
                    let report = format!(
                        "error: `{name}` is not a valid ONNX model (ModelProto): {message}\n"
                    );
                    return (1, report);
                }
                let mut report = found.clone().with_origin(name).to_string();
                if found.iter().any(|d| d.place().is_none()) {
                    report.push_str(&printed_note(name));
                }
                (found.len(), report)
            }));
        }
        Format::Binary => {
            let message = load(&data, Format::Binary, kind, None, name, progress)?;
            message::text(&message, Style::Lossless)
        }
        Format::Text => into_text(data, name, "is it a binary model? Name it `.onnx`")?,
    };
    let checked = kind.check_with(&text, options, libraries);
    let external = match (&checked, kind) {
        (Ok(Proto::Model(model)), _) => external_data_problems(model, place, options),
        (Err(_), Entry::Model) => match message::parse(kind, &text) {
            Ok(Proto::Model(model)) => external_data_problems(&model, place, options),
            _ => None,
        },
        _ => None,
    };
    let found = checked.err().map(|diagnostics| {
        let mut report = diagnostics.clone().with_origin(name).to_string();
        if format == Format::Binary {
            report.push_str(&printed_note(name));
        }
        (diagnostics.len(), report)
    });
    Ok(match (found, external) {
        (found, None) => found,
        (None, Some(problems)) => Some((problems.len(), problems.with_origin(name).to_string())),
        (Some((count, mut report)), Some(problems)) => {
            report.push_str(&problems.clone().with_origin(name).to_string());
            Some((count + problems.len(), report))
        }
    })
}

/// The `external_data` rule of binary models, run on a model given as text: its external data
/// is looked for in the text file's folder, under the same rules and with the same messages.
fn external_data_problems(
    model: &onnx_text::ModelProto,
    place: &Place,
    options: &CheckOptions,
) -> Option<onnx_text::Diagnostics> {
    if !options.is_enabled(Check::ExternalData) {
        return None;
    }
    let only_external = CheckOptions::none().deny(Check::ExternalData);
    let check = ModelCheck::new(only_external).model_dir(model_folder(place));
    check.check(model).err()
}

/// The note after problems positioned in the printed text of a binary file.
fn printed_note(name: &str) -> String {
    format!(
        "note: `{name}` is binary: the positions are in its text, as \
         `onnx-text print {name}` shows it\n"
    )
}
