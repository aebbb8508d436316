//! The subcommands of `onnx-text`, one module each (as cargo's and ruff's `commands/`), and
//! what they share: reading and writing models, their external data, and reporting errors.

pub mod check;
pub mod convert;
pub mod fmt;
pub mod infer;
pub mod inline;
pub mod lsp;
pub mod opset;
pub mod print;
pub mod run;

use std::path::{Path, PathBuf};

use onnx_syntax::{Entry, Proto};
use onnx_text::{CheckOptions, Style};

use crate::Outcome;
use crate::external;
use crate::io::{self, IoError, Place};
use crate::limit;
use crate::lossy;
use crate::message::{self, Format};
use crate::paths::{Access, Paths};
use crate::progress::Progress;
use crate::write;

/// Reports an input or output error; the outcome is a failed input for an empty one.
pub fn report_io(err: &IoError) -> Outcome {
    if err.closed {
        // `onnx-text print big.onnx | head -1`: the reader has all it wanted.
        return Outcome::Ok;
    }
    reportln!("error: {err}");
    if err.empty {
        Outcome::Failed
    } else {
        Outcome::Fatal
    }
}

/// Reads `place` as UTF-8 text.
pub fn read_text(place: &Place, progress: &Progress) -> Result<String, Outcome> {
    let bytes = io::read(place, progress).map_err(|e| report_io(&e))?;
    let name = place.display("<stdin>");
    into_text(bytes, &name, "is it a binary model? Try `onnx-text print`")
}

/// `data` as a `String`, without copying it, or the report of [`utf8_text`].
pub fn into_text(data: Vec<u8>, name: &str, hint: &str) -> Result<String, Outcome> {
    utf8_text(&data, name, hint)?;
    // Valid, as just checked; `from_utf8` takes the bytes without copying them.
    String::from_utf8(data).map_err(|_| Outcome::Failed)
}

/// `data` as text, or a report naming the line and column of the first byte that is not UTF-8,
/// followed by `hint` if the bytes look binary (a text with one Latin-1 byte gets no such hint).
pub fn utf8_text<'a>(data: &'a [u8], name: &str, hint: &str) -> Result<&'a str, Outcome> {
    onnx_text::text_from_bytes(data).map_err(|e| {
        report!("{}", e.with_origin(name));
        if message::looks_binary(data) {
            reportln!("  = note: {hint}");
        }
        Outcome::Failed
    })
}

/// Writes `message` to `output` as text in `style` or as protobuf bytes, together with the
/// external data file of `--external-data` if there is one (both or neither); `name` is the
/// input's.
#[allow(clippy::too_many_arguments)]
pub fn write_message(
    message: Proto,
    entry: Entry,
    to: Format,
    style: Style,
    output: &Place,
    data: Option<&DataOutput>,
    name: &str,
    progress: &Progress,
) -> Outcome {
    let action = match to {
        Format::Text => "printing",
        Format::Binary => "encoding",
    };
    if to == Format::Text
        && let Err(outcome) = say_losses(&message, name)
    {
        return outcome;
    }
    progress.stage(&format!("{action} {name}"), None);
    let bytes = match to {
        Format::Text => message::text(&message, style).into_bytes(),
        Format::Binary => match message::encode(message, entry) {
            Ok(bytes) => bytes,
            Err(e) => {
                reportln!("error: cannot write `{name}` as binary: {e}");
                return Outcome::Failed;
            }
        },
    };
    if to == Format::Binary
        && *output == Place::Std
        && std::io::IsTerminal::is_terminal(&std::io::stdout())
    {
        reportln!("error: refusing to write binary protobuf to a terminal; name a file with -o");
        return Outcome::Fatal;
    }
    write_outputs(output, &bytes, data, progress)
}

/// Says what the text of `message` (read from `name`) leaves out; an error if it would lose
/// weights without `--lossy`.
pub fn say_losses(message: &Proto, name: &str) -> Result<(), Outcome> {
    match lossy::check(message, name) {
        Ok(warnings) => {
            for warning in warnings {
                reportln!("warning: {warning}");
            }
            Ok(())
        }
        Err(why) => {
            reportln!("error: {why}");
            Err(Outcome::Failed)
        }
    }
}

/// Writes `bytes` to `output` and the external data file, if any, through the one write path:
/// both or neither.
pub fn write_outputs(
    output: &Place,
    bytes: &[u8],
    data: Option<&DataOutput>,
    progress: &Progress,
) -> Outcome {
    let mut outputs = vec![(output, bytes)];
    if let Some(data) = data {
        outputs.push((&data.file, &data.bytes[..]));
    }
    match write::write_all(&outputs, progress) {
        Ok(()) => Outcome::Ok,
        Err(e) => report_io(&e),
    }
}

/// Reads a message from `data` in the given format.
pub fn load(
    data: &[u8],
    from: Format,
    kind: Entry,
    checks: Option<&CheckOptions>,
    name: &str,
    progress: &Progress,
) -> Result<Proto, Outcome> {
    match from {
        Format::Binary => {
            progress.stage(&format!("decoding {name}"), None);
            message::decode(kind, data).map_err(|e| {
                reportln!("error: `{name}` is {e}");
                Outcome::Failed
            })
        }
        Format::Text => {
            let text = utf8_text(data, name, "is it a binary model? Use --from binary")?;
            progress.stage(&format!("parsing {name}"), None);
            if let Some(options) = checks {
                message::check(kind, text, options).map_err(|d| {
                    report!("{}", limit::render(&d.with_origin(name)));
                    Outcome::Failed
                })
            } else {
                message::parse(kind, text).map_err(|e| {
                    report!("{}", e.with_origin(name));
                    Outcome::Failed
                })
            }
        }
    }
}

/// The folder a model read from or written to `place` keeps its external data in.
pub fn model_folder(place: &Place) -> &Path {
    match place {
        Place::File(path) => path.parent().filter(|p| !p.as_os_str().is_empty()),
        Place::Std => None,
    }
    .unwrap_or(Path::new("."))
}

/// The external data file of `--external-data`, to be written with the model's text.
pub struct DataOutput {
    pub file: Place,
    pub bytes: Vec<u8>,
}

/// `--external-data FILE`: moves the large tensors of the model in `message` to FILE, named
/// from the folder of `output`, and returns FILE's bytes for the caller to write with the text
/// (`None` if no tensor moved). The paths of the run were checked before.
pub fn externalize_data(
    message: &mut Proto,
    file: &Path,
    threshold: u64,
    output: &Place,
) -> Result<Option<DataOutput>, Outcome> {
    let Proto::Model(model) = message else {
        reportln!("error: --external-data applies to models (--kind model)");
        return Err(Outcome::Fatal);
    };
    let shown = file.display();
    let moved = external::location(file, model_folder(output))
        .and_then(|location| external::externalize(model, &location, threshold));
    let data = moved.map_err(|why| {
        reportln!("error: --external-data: {why}");
        Outcome::Fatal
    })?;
    if data.tensors == 0 {
        reportln!(
            "note: `{shown}` is not written: {}",
            external::nothing_moved(model, threshold)
        );
        return Ok(None);
    }
    Ok(Some(DataOutput {
        file: Place::File(file.to_owned()),
        bytes: data.bytes,
    }))
}

/// `--inline-data`: reads the external data of the model in `message` from the folder of
/// `input` (named `name`) into the model.
pub fn read_external_data(message: &mut Proto, input: &Place, name: &str) -> Result<(), Outcome> {
    let Proto::Model(model) = message else {
        reportln!("error: --inline-data applies to models (--kind model)");
        return Err(Outcome::Fatal);
    };
    external::inline_data(model, model_folder(input))
        .map(drop)
        .map_err(|why| {
            reportln!("error: `{name}`: {why}");
            Outcome::Failed
        })
}

/// Reads the model at `path` (`place`), text or binary by its extension or else its content;
/// with `checks`, a text model is checked first, so that its problems are positioned.
pub fn read_model(
    path: &Path,
    place: &Place,
    checks: Option<&CheckOptions>,
    name: &str,
    progress: &Progress,
) -> Result<onnx_text::ModelProto, Outcome> {
    let data = io::read(place, progress).map_err(|e| report_io(&e))?;
    let from = Format::from_extension(path).unwrap_or_else(|| Format::sniff(&data));
    match load(
        &data,
        from,
        Entry::Model,
        checks.filter(|_| from == Format::Text),
        name,
        progress,
    )? {
        Proto::Model(model) => Ok(model),
        _ => unreachable!("a model was asked for"),
    }
}

/// Writes `model`, read from `input`, to `output` as its extension says, or as text on standard
/// output. The files of its external data join the `paths` of the run, which are checked
/// before anything is written, and their locations are rewritten to resolve from the output's
/// folder.
pub fn write_model(
    model: onnx_text::ModelProto,
    input: &Place,
    output: Option<&Path>,
    mut paths: Paths,
    name: &str,
    progress: &Progress,
) -> Outcome {
    let place = output.map_or(Place::Std, Place::new);
    let to = output
        .and_then(Format::from_extension)
        .unwrap_or(Format::Text);
    let mut model = Proto::Model(model);
    add_model_reads(&mut paths, &mut model, input);
    if let Err(outcome) =
        check_paths(&paths, false).and_then(|()| relocate_data(&mut model, input, &place, name))
    {
        return outcome;
    }
    write_message(
        model,
        Entry::Model,
        to,
        Style::Lossless,
        &place,
        None,
        name,
        progress,
    )
}

/// Names `-o` (if given) as the output of the run.
pub fn add_output(paths: &mut Paths, output: Option<&Path>) {
    if let Some(output) = output {
        paths.add(output, "-o", Access::Write { named: true });
    }
}

/// Checks the paths of a run before anything is written: an error is reported here.
pub fn check_paths(paths: &Paths, force: bool) -> Result<(), Outcome> {
    paths.check(force).map_err(|why| {
        reportln!("error: {why}");
        Outcome::Fatal
    })
}

/// The first check of a run's paths, before its input is read: no written file is another file
/// of the run. The full [`check_paths`] follows when the files the model references are known.
pub fn check_same_files(paths: &Paths) -> Result<(), Outcome> {
    paths.check_same_files().map_err(|why| {
        reportln!("error: {why}");
        Outcome::Fatal
    })
}

/// Names the files that hold the external data of the model in `message`, read from `input`,
/// as files the run reads: no output may replace them.
pub fn add_model_reads(paths: &mut Paths, message: &mut Proto, input: &Place) {
    if let Proto::Model(model) = message {
        for file in external::referenced_files(model, model_folder(input)) {
            paths.add(file, "external data of the input", Access::Read);
        }
    }
}

/// Rewrites the external data locations of the model in `message`, read from `input`, to
/// resolve from the folder of `output`. Text on standard output keeps them as they are,
/// relative to the input's folder.
pub fn relocate_data(
    message: &mut Proto,
    input: &Place,
    output: &Place,
    name: &str,
) -> Result<(), Outcome> {
    let (Proto::Model(model), Place::File(_)) = (message, output) else {
        return Ok(());
    };
    external::relocate(model, model_folder(input), model_folder(output))
        .map(drop)
        .map_err(|why| {
            reportln!("error: `{name}`: {why}; nothing was written");
            Outcome::Fatal
        })
}

/// Reads the `--library` files, each a function library in text, named by its file; with
/// `checks`, each is checked as `check --kind functions` checks it.
pub fn read_libraries(
    files: &[PathBuf],
    checks: Option<&CheckOptions>,
    show_progress: bool,
) -> Result<Vec<(String, onnx_text::FunctionLibrary)>, Outcome> {
    let mut libraries = Vec::new();
    for file in files {
        let place = Place::new(file);
        let name = place.display("<stdin>");
        let progress = Progress::new(show_progress, place.size());
        let text = read_text(&place, &progress)?;
        let read = match checks {
            Some(options) => message::check(Entry::Functions, &text, options)
                .map_err(|d| limit::render(&d.with_origin(name.as_str()))),
            None => message::parse(Entry::Functions, &text)
                .map_err(|e| e.with_origin(name.as_str()).to_string()),
        };
        let functions = match read {
            Ok(Proto::Functions(functions)) => functions,
            Ok(_) => unreachable!("a function library was asked for"),
            Err(report) => {
                report!("{report}");
                reportln!("error: the library `{name}` has problems; nothing else is checked");
                return Err(Outcome::Failed);
            }
        };
        match onnx_text::FunctionLibrary::from_functions(functions) {
            Ok(library) => libraries.push((name, library)),
            Err(e) => {
                reportln!("error: `{name}`: {e}");
                return Err(Outcome::Failed);
            }
        }
    }
    Ok(libraries)
}
