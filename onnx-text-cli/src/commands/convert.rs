//! `onnx-text convert`: text to binary and back.

use std::fs;
use std::path::{Path, PathBuf};

use onnx_text::{CheckOptions, Style};

use super::{load, read_external_data, report_io, write_external_data, write_message};
use crate::io::{self, Place};
use crate::message::Format;
use crate::progress::Progress;
use crate::{ConvertArgs, Outcome};

/// The default output of `convert`: the input with the other format's extension.
fn default_output(input: &Path, to: Format) -> PathBuf {
    input.with_extension(to.extension())
}

/// Converts one input to the other format.
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
    if output == input && input != Place::Std {
        eprintln!("error: `{name}` would be both the input and the output; name another with -o");
        return Outcome::Fatal;
    }
    // The default output is a file the user did not name: it may be a hand-written text with
    // comments that the converted model would silently replace.
    if let (None, Place::File(path)) = (&args.output, &output)
        && !args.force
        && fs::symlink_metadata(path).is_ok()
    {
        let target = path.display();
        eprintln!(
            "error: `{target}` exists; convert will not replace a file it was not told to \
             write: name the output with -o, or pass --force"
        );
        return Outcome::Fatal;
    }
    let every_check = CheckOptions::default();
    let checks = args.check.then_some(&every_check);
    let mut message = match load(&data, from, args.kind, checks, &name, &progress) {
        Ok(message) => message,
        Err(outcome) => return outcome,
    };
    let placed = match (&args.data.external_data, args.inline_data) {
        (Some(file), _) => {
            write_external_data(&mut message, file, args.data.size_threshold, &output)
        }
        (None, true) => read_external_data(&mut message, &input, &name),
        (None, false) => Ok(()),
    };
    if let Err(outcome) = placed {
        return outcome;
    }
    let style = if args.reference {
        Style::Reference
    } else {
        Style::Lossless
    };
    write_message(message, args.kind, to, style, &output, &name, &progress)
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
