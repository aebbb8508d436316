//! `onnx-text convert`: text to binary and back.

use std::path::{Path, PathBuf};

use onnx_text::{CheckOptions, Style};

use super::opset::convert_opsets;
use super::{
    add_model_reads, check_paths, check_same_files, externalize_data, load, read_external_data,
    relocate_data, report_io, write_message,
};
use crate::io::{self, Place};
use crate::message::Format;
use crate::paths::{Access, Paths};
use crate::progress::Progress;
use crate::{ConvertArgs, Outcome};

/// The default output of `convert`: the input with the other format's extension.
fn default_output(input: &Path, to: Format) -> PathBuf {
    input.with_extension(to.extension())
}

/// Converts one input; the checks run on a text input unless `--unchecked`.
pub fn convert(args: &ConvertArgs, show_progress: bool) -> Outcome {
    let input = Place::new(&args.input);
    let name = input.display("<stdin>");
    let progress = Progress::new(show_progress, input.size());
    let data = match io::read(&input, &progress) {
        Ok(data) => data,
        Err(e) => return report_io(&e),
    };
    let from = args
        .from
        .or_else(|| Format::from_extension(&args.input))
        .unwrap_or_else(|| Format::sniff(&data));
    let to = args
        .to
        .or_else(|| args.output.as_deref().and_then(Format::from_extension))
        .unwrap_or(match from {
            Format::Text => Format::Binary,
            Format::Binary => Format::Text,
        });
    let output = match (&args.output, &input) {
        (Some(path), _) => Place::new(path),
        (None, Place::Std) => Place::Std,
        (None, Place::File(path)) => Place::File(default_output(path, to)),
    };
    // One rule for every path: nothing is written over the input, the data it references, or
    // a file the user did not name (the default output, an existing data file) without --force.
    let mut paths = Paths::default();
    paths.add(&args.input, "the input", Access::Read);
    if let Place::File(path) = &output {
        let named = args.output.is_some();
        let role = if named { "-o" } else { "the default output" };
        paths.add(path, role, Access::Write { named });
    }
    if let Some(file) = &args.data.external_data {
        paths.add(file, "--external-data", Access::Write { named: false });
    }
    if let Err(outcome) = check_same_files(&paths) {
        return outcome;
    }
    let options = (args.allow.iter()).fold(CheckOptions::default(), |options, &check| {
        options.allow(check)
    });
    let checks = (args.check || !args.unchecked).then_some(&options);
    let mut message = match load(&data, from, args.kind, checks, &name, &progress) {
        Ok(message) => message,
        Err(outcome) => return outcome,
    };
    // The bytes read are freed before the model is converted and encoded, which can then reuse
    // their memory.
    drop(data);
    if let Err(outcome) = convert_opsets(&mut message, args.opset, args.ml_opset, &name) {
        return outcome;
    }
    add_model_reads(&mut paths, &mut message, &input);
    if let Err(outcome) = check_paths(&paths, args.force) {
        return outcome;
    }
    let placed = if args.inline_data {
        read_external_data(&mut message, &input, &name).map(|()| None)
    } else {
        relocate_data(&mut message, &input, &output, &name).and_then(|()| {
            match &args.data.external_data {
                Some(file) => {
                    externalize_data(&mut message, file, args.data.size_threshold, &output)
                }
                None => Ok(None),
            }
        })
    };
    let data = match placed {
        Ok(data) => data,
        Err(outcome) => return outcome,
    };
    let style = if args.reference {
        Style::Reference
    } else {
        Style::Lossless
    };
    let data = data.as_ref();
    write_message(
        message, args.kind, to, style, &output, data, &name, &progress,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_outputs_swap_the_extension() {
        assert_eq!(
            default_output(Path::new("dir/m.onnxtxt"), Format::Binary),
            PathBuf::from("dir/m.onnx")
        );
        assert_eq!(
            default_output(Path::new("m.onnx"), Format::Text),
            PathBuf::from("m.onnxtxt")
        );
    }
}
