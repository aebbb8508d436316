//! `onnx-text print`: any model as text, on standard output or in a file (`-o`).

use onnx_text::Style;

use super::opset::convert_opsets;
use super::{
    add_model_reads, add_output, check_paths, check_same_files, externalize_data, load,
    relocate_data, report_io, say_losses, write_outputs,
};
use crate::io::{self, Place};
use crate::message::{self, Format};
use crate::paths::{Access, Paths};
use crate::progress::Progress;
use crate::write;
use crate::{Outcome, PrintArgs};

/// Prints every file, in order; with `-o`, all of them go to one file, written once at the end.
pub fn print(args: &PrintArgs, show_progress: bool) -> Outcome {
    let style = if args.reference {
        Style::Reference
    } else {
        Style::Lossless
    };
    let many = args.files.len() > 1;
    let mut paths = Paths::default();
    for file in &args.files {
        let role = if many { "an input" } else { "the input" };
        paths.add(file, role, Access::Read);
    }
    add_output(&mut paths, args.output.as_deref());
    if let Some(file) = &args.data.external_data {
        paths.add(file, "--external-data", Access::Write { named: false });
    }
    if let Err(outcome) = check_same_files(&paths) {
        return outcome;
    }
    // print writes text: text in a `.onnx` file would pass for a binary model nowhere.
    if let Some(path) = &args.output
        && Format::from_extension(path) == Some(Format::Binary)
    {
        let shown = path.display();
        reportln!(
            "error: print writes text, and `{shown}` is named as a binary model; use \
             `onnx-text convert` to write binary"
        );
        return Outcome::Fatal;
    }
    let output = args.output.as_deref().map_or(Place::Std, Place::new);
    if many && args.data.external_data.is_some() {
        reportln!(
            "error: --external-data takes one model: the data of several cannot share a file"
        );
        return Outcome::Fatal;
    }
    let mut outcome = Outcome::Ok;
    let mut texts = String::new();
    let mut data_file = None;
    for file in &args.files {
        let place = Place::new(file);
        let name = place.display("<stdin>");
        let progress = Progress::new(show_progress, place.size());
        let data = match io::read(&place, &progress) {
            Ok(data) => data,
            Err(e) => {
                outcome = outcome.max(report_io(&e));
                continue;
            }
        };
        let from = Format::from_extension(file).unwrap_or_else(|| Format::sniff(&data));
        let mut message = match load(&data, from, args.kind, None, &name, &progress) {
            Ok(message) => message,
            Err(o) => {
                outcome = outcome.max(o);
                continue;
            }
        };
        if let Err(o) = convert_opsets(&mut message, args.opset, args.ml_opset, &name) {
            outcome = outcome.max(o);
            continue;
        }
        add_model_reads(&mut paths, &mut message, &place);
        let prepared = check_paths(&paths, args.force)
            .and_then(|()| needs_output(args, &output))
            .and_then(|()| relocate_data(&mut message, &place, &output, &name))
            .and_then(|()| match &args.data.external_data {
                Some(file) => {
                    let threshold = args.data.size_threshold;
                    externalize_data(&mut message, file, threshold, &output)
                }
                None => Ok(None),
            });
        match prepared {
            Ok(data) => data_file = data_file.or(data),
            Err(o) => {
                outcome = outcome.max(o);
                continue;
            }
        }
        if let Err(o) = say_losses(&message, &name) {
            outcome = outcome.max(o);
            continue;
        }
        progress.stage(&format!("printing {name}"), None);
        let mut text = message::text(&message, style);
        if many {
            text.insert_str(0, &format!("# {name}\n"));
        }
        if output != Place::Std {
            texts.push_str(&text);
            continue;
        }
        if let Err(e) = write::write(&Place::Std, text.as_bytes(), &progress) {
            return outcome.max(report_io(&e));
        }
    }
    if output != Place::Std && outcome == Outcome::Ok {
        let progress = Progress::new(show_progress, 0);
        return write_outputs(&output, texts.as_bytes(), data_file.as_ref(), &progress);
    }
    outcome
}

/// `--external-data` on standard output: refused (after the check of the paths, which names a
/// clash first). A text names its data file from the folder it is saved in, which standard
/// output does not know: a text redirected to another folder would lose its weights.
fn needs_output(args: &PrintArgs, output: &Place) -> Result<(), Outcome> {
    if args.data.external_data.is_some() && *output == Place::Std {
        reportln!(
            "error: --external-data needs -o: the text names its data file from the folder the \
             text is saved in, which standard output does not know; print -o FILE"
        );
        return Err(Outcome::Fatal);
    }
    Ok(())
}
