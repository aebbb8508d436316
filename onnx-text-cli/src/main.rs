//! `onnx-text`: format, check, convert and print ONNX models in the ONNX textual syntax.
//!
//! Exit codes: 0 when all is well, 1 when an input is invalid (a syntax error, a failed check,
//! an unformatted file under `fmt --check`, bytes that are not a model), 2 for usage errors and
//! files that cannot be read or written.

mod external;
mod io;
mod message;
mod progress;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use onnx_check::{CheckEntry, Libraries};
use onnx_print::format_message;
use onnx_syntax::{Entry, Proto};
use onnx_text::{Check, CheckOptions, DiagnosticKind, Style};
use onnx_validate::ModelCheck;

use crate::io::{IoError, Place};
use crate::message::Format;
use crate::progress::Progress;
use onnx_text_cli::lsp;

/// The binary sets its allocator, as ruff and uv do; the libraries leave the choice to their
/// users. A parse is mostly small allocations (every name and list of the model).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Format, check, convert and print ONNX models in the ONNX textual syntax (onnx 1.23.2).
#[derive(Parser, Debug)]
#[command(name = "onnx-text", version, about, max_term_width = 100)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Never draw a progress bar (one is drawn on a terminal for inputs of 8 MB or more).
    #[arg(long, global = true)]
    no_progress: bool,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Format text files canonically, in place (or to standard output).
    ///
    /// The layout is the reference printer's (onnx.printer.to_text); the model is unchanged.
    /// Comments (`#` and `//`) are kept in their places: at the end of their line of code, or on
    /// lines of their own before what they precede.
    Fmt(FmtArgs),
    /// Parse text files, or decode binary ones, and run every check, reporting each problem
    /// with file:line:column.
    Check(CheckArgs),
    /// Convert between text (.onnxtxt) and binary (.onnx), in either direction.
    Convert(ConvertArgs),
    /// Print any model, binary or text, as text on standard output.
    Print(PrintArgs),
    /// Infer the type and shape of every value a model computes, as onnx's shape inference
    /// does (with data propagation), and write the model with them as value_info.
    ///
    /// Text input is checked first, so shape errors come with their line and column.
    Infer(InferArgs),
    /// Serve the Language Server Protocol over standard input and output, for editors: the
    /// checks as diagnostics, hover, definition, references, rename, completion and more.
    Lsp,
    /// Replace calls of functions by their bodies, for runtimes without model-local functions.
    ///
    /// Inlines every model-local function, and every function of the --library files; removes
    /// the local functions no longer called; merges the functions' opset imports into the
    /// model's. --expand also expands standard operators through their function bodies. What was
    /// inlined is reported on standard error.
    Inline(InlineArgs),
}

#[derive(Args, Debug)]
struct InferArgs {
    /// The model, binary or text; `-` reads standard input.
    #[arg(value_name = "INPUT")]
    input: PathBuf,
    /// Where to write the model, as text or binary by its extension; by default, text on
    /// standard output.
    #[arg(short, long, value_name = "OUTPUT")]
    output: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct FmtArgs {
    /// The files to format; `-` reads standard input and writes standard output.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Change nothing: list the files that are not formatted, and fail if there are any.
    #[arg(long)]
    check: bool,
    /// Write the formatted text to standard output instead of changing the files.
    #[arg(long, conflicts_with = "check")]
    stdout: bool,
    /// What the files hold.
    #[arg(long, value_parser = message::entry_parser(), default_value = "model")]
    kind: Entry,
}

#[derive(Args, Debug)]
struct CheckArgs {
    /// The files to check, text or binary; `-` reads standard input. A binary model is checked
    /// as onnx.checker.check_model(full_check=True) checks it: the rules of its messages name
    /// the place in the model, the checks of the syntax are positioned in the text
    /// `onnx-text print` shows. Its external data must be in the model file's folder.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// What the files hold.
    #[arg(long, value_parser = message::entry_parser(), default_value = "model")]
    kind: Entry,
    /// Turn off these checks (by name, as `#![allow(...)]` takes them).
    #[arg(long, value_name = "CHECK,...", value_delimiter = ',')]
    allow: Vec<Check>,
    /// Say nothing when every file is clean (by default one line says how many were checked).
    #[arg(short, long)]
    quiet: bool,
    /// A function library in ONNX text (functions one after the other) whose functions calls
    /// are checked against, as against model-local ones; may be given more than once. Applies
    /// to text inputs (binary models are checked on their messages, without libraries).
    #[arg(long, value_name = "FILE")]
    library: Vec<PathBuf>,
}

#[derive(Args, Debug)]
struct ConvertArgs {
    /// The input file; `-` reads standard input.
    #[arg(value_name = "INPUT")]
    input: PathBuf,
    /// The output file; `-` writes standard output. By default, the input with the other
    /// extension (model.onnxtxt → model.onnx, model.onnx → model.onnxtxt), which must not
    /// exist yet unless --force is given.
    #[arg(short, long, value_name = "OUTPUT")]
    output: Option<PathBuf>,
    /// Replace the default output (the input with the other extension) if it exists. A file
    /// named with -o is always replaced: naming it is the permission.
    #[arg(long)]
    force: bool,
    /// The input's format; by default from its extension, or else from its content.
    #[arg(long, value_enum)]
    from: Option<Format>,
    /// The output's format; by default from its extension, or else the other format.
    #[arg(long, value_enum)]
    to: Option<Format>,
    /// Run every check on a text input before converting it.
    #[arg(long)]
    check: bool,
    /// Print text exactly as onnx.printer.to_text does, including what it loses.
    #[arg(long)]
    reference: bool,
    #[command(flatten)]
    data: DataArgs,
    /// Read the model's external data (from the input's folder, under the rules of `check`)
    /// into the output, which then stands alone.
    #[arg(long, conflicts_with = "external_data")]
    inline_data: bool,
    /// What the input holds.
    #[arg(long, value_parser = message::entry_parser(), default_value = "model")]
    kind: Entry,
}

/// Weights beside the text: `--external-data FILE` and its threshold.
#[derive(Args, Debug)]
struct DataArgs {
    /// Write the model's large tensors to this file, in onnx's external data layout, and name
    /// them in the text as `["location": …, "offset": …, "length": …]`. The file must be in the
    /// output's folder or below it (for standard output, the current folder). Tensors stored
    /// outside already keep their place.
    #[arg(long, value_name = "FILE")]
    external_data: Option<PathBuf>,
    /// With --external-data: the initializers whose raw data takes at least this many bytes move
    /// to the file, counted as onnx's `save_model(..., size_threshold=…)` counts them (Python's
    /// size of the bytes: 33 more than their length). 0 moves every tensor with raw data.
    #[arg(
        long,
        value_name = "BYTES",
        default_value_t = 1024,
        requires = "external_data"
    )]
    size_threshold: u64,
}

#[derive(Args, Debug)]
struct PrintArgs {
    /// The files to print (binary or text); `-` reads standard input.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Print exactly as onnx.printer.to_text does, including what it loses.
    #[arg(long)]
    reference: bool,
    #[command(flatten)]
    data: DataArgs,
    /// What the files hold.
    #[arg(long, value_parser = message::entry_parser(), default_value = "model")]
    kind: Entry,
}

#[derive(Args, Debug)]
struct InlineArgs {
    /// The model (binary or text); `-` reads standard input.
    #[arg(value_name = "INPUT")]
    input: PathBuf,
    /// The output file, written as text or binary by its extension; by default the text goes
    /// to standard output. `-` writes standard output.
    #[arg(short, long, value_name = "OUTPUT")]
    output: Option<PathBuf>,
    /// Standard operators to expand through their function bodies (the body for the model's
    /// opset), such as `--expand Celu,HardSwish`.
    #[arg(long, value_name = "OP,...", value_delimiter = ',')]
    expand: Vec<String>,
    /// A function library in ONNX text (functions one after the other) whose functions are
    /// inlined too; may be given more than once.
    #[arg(long, value_name = "FILE")]
    library: Vec<PathBuf>,
}

/// How a run went: the exit code is the worst outcome of any input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    Ok = 0,
    /// An input is invalid or unformatted.
    Failed = 1,
    /// A file cannot be read or written.
    Fatal = 2,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let progress = !cli.no_progress;
    let outcome = match &cli.command {
        Command::Fmt(args) => fmt(args, progress),
        Command::Check(args) => check(args, progress),
        Command::Convert(args) => convert(args, progress),
        Command::Print(args) => print(args, progress),
        Command::Infer(args) => infer(args, progress),
        Command::Inline(args) => inline(args, progress),
        Command::Lsp => match lsp::run() {
            Ok(()) => Outcome::Ok,
            Err(e) => {
                eprintln!("error: onnx-text lsp: {e}");
                Outcome::Fatal
            }
        },
    };
    ExitCode::from(outcome as u8)
}

fn report_io(err: &IoError) -> Outcome {
    eprintln!("error: {err}");
    if err.empty {
        Outcome::Failed
    } else {
        Outcome::Fatal
    }
}

/// Reads `place` as UTF-8 text.
fn read_text(place: &Place, progress: &Progress) -> Result<String, Outcome> {
    let bytes = io::read(place, progress).map_err(|e| report_io(&e))?;
    let name = place.display("<stdin>");
    into_text(bytes, &name, "is it a binary model? Try `onnx-text print`")
}

/// `data` as a `String`, without copying it, or the report of [`utf8_text`].
fn into_text(data: Vec<u8>, name: &str, hint: &str) -> Result<String, Outcome> {
    utf8_text(&data, name, hint)?;
    // Valid, as just checked; `from_utf8` takes the bytes without copying them.
    String::from_utf8(data).map_err(|_| Outcome::Failed)
}

/// `data` as text, or a report naming the line and column of the first byte that is not UTF-8,
/// followed by `hint`.
fn utf8_text<'a>(data: &'a [u8], name: &str, hint: &str) -> Result<&'a str, Outcome> {
    onnx_text::text_from_bytes(data).map_err(|e| {
        eprint!("{}", e.with_origin(name));
        eprintln!("  = note: {hint}");
        Outcome::Failed
    })
}

// ---------------------------------------------------------------------------------------------
// fmt

fn fmt(args: &FmtArgs, show_progress: bool) -> Outcome {
    let mut outcome = Outcome::Ok;
    let mut unformatted = 0;
    for file in &args.files {
        let place = Place::new(file);
        let name = place.display("<stdin>");
        let progress = Progress::new(show_progress, place.size());
        let result = fmt_one(args, &place, &name, &progress);
        drop(progress);
        match result {
            Ok(true) => {}
            Ok(false) => unformatted += 1,
            Err(o) => outcome = outcome.max(o),
        }
    }
    if unformatted > 0 {
        eprintln!(
            "{unformatted} file{} not formatted",
            if unformatted == 1 { " is" } else { "s are" }
        );
        outcome = outcome.max(Outcome::Failed);
    }
    outcome
}

/// Formats one input; `Ok(false)` if `--check` finds it unformatted.
fn fmt_one(
    args: &FmtArgs,
    place: &Place,
    name: &str,
    progress: &Progress,
) -> Result<bool, Outcome> {
    let text = read_text(place, progress)?;
    progress.stage(&format!("formatting {name}"), None);
    let (message, formatted) = format_message(&text, args.kind).map_err(|e| {
        eprint!("{}", e.with_origin(name));
        Outcome::Failed
    })?;
    // The printer is lossless for everything the syntax expresses, and comments are white
    // space to the parser; make sure before writing.
    if message::parse(args.kind, &formatted).as_ref() != Ok(&message) {
        eprintln!("error: formatting `{name}` would change its model; it is left unchanged");
        return Err(Outcome::Failed);
    }
    if args.check {
        if formatted != text {
            eprintln!("would reformat {name}");
            return Ok(false);
        }
        return Ok(true);
    }
    let output = if args.stdout {
        Place::Std
    } else {
        place.clone()
    };
    if output != Place::Std && formatted == text {
        return Ok(true); // already formatted: leave the file alone
    }
    io::write(&output, formatted.as_bytes(), progress).map_err(|e| report_io(&e))?;
    Ok(true)
}

// ---------------------------------------------------------------------------------------------
// check

fn check(args: &CheckArgs, show_progress: bool) -> Outcome {
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

// ---------------------------------------------------------------------------------------------
// convert

/// The default output of `convert`: the input with the other format's extension.
fn default_output(input: &Path, to: Format) -> PathBuf {
    input.with_extension(to.extension())
}

fn convert(args: &ConvertArgs, show_progress: bool) -> Outcome {
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

/// Writes `message` to `output` as text in `style` or as protobuf bytes; `name` is the input's.
fn write_message(
    message: Proto,
    entry: Entry,
    to: Format,
    style: Style,
    output: &Place,
    name: &str,
    progress: &Progress,
) -> Outcome {
    let action = match to {
        Format::Text => "printing",
        Format::Binary => "encoding",
    };
    progress.stage(&format!("{action} {name}"), None);
    let bytes = match to {
        Format::Text => message::text(&message, style).into_bytes(),
        Format::Binary => match message::encode(message, entry) {
            Ok(bytes) => bytes,
            Err(e) => {
                eprintln!("error: cannot write `{name}` as binary: {e}");
                return Outcome::Failed;
            }
        },
    };
    if to == Format::Binary
        && *output == Place::Std
        && std::io::IsTerminal::is_terminal(&std::io::stdout())
    {
        eprintln!("error: refusing to write binary protobuf to a terminal; name a file with -o");
        return Outcome::Fatal;
    }
    match io::write(output, &bytes, progress) {
        Ok(()) => Outcome::Ok,
        Err(e) => report_io(&e),
    }
}

/// Reads a message from `data` in the given format.
fn load(
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
                eprintln!("error: `{name}` is {e}");
                Outcome::Failed
            })
        }
        Format::Text => {
            let text = utf8_text(data, name, "is it a binary model? Use --from binary")?;
            progress.stage(&format!("parsing {name}"), None);
            if let Some(options) = checks {
                message::check(kind, text, options).map_err(|d| {
                    eprint!("{}", d.with_origin(name));
                    Outcome::Failed
                })
            } else {
                message::parse(kind, text).map_err(|e| {
                    eprint!("{}", e.with_origin(name));
                    Outcome::Failed
                })
            }
        }
    }
}

/// The folder a model read from or written to `place` keeps its external data in.
fn model_folder(place: &Place) -> &Path {
    match place {
        Place::File(path) => path.parent().filter(|p| !p.as_os_str().is_empty()),
        Place::Std => None,
    }
    .unwrap_or(Path::new("."))
}

/// `--external-data FILE`: moves the large tensors of the model in `message` to FILE, named
/// from the folder of `output`, and writes FILE.
fn write_external_data(
    message: &mut Proto,
    file: &Path,
    threshold: u64,
    output: &Place,
) -> Result<(), Outcome> {
    let Proto::Model(model) = message else {
        eprintln!("error: --external-data applies to models (--kind model)");
        return Err(Outcome::Fatal);
    };
    let shown = file.display();
    if *output == Place::File(file.to_owned()) {
        eprintln!("error: `{shown}` cannot be both the model and its external data");
        return Err(Outcome::Fatal);
    }
    let moved = external::location(file, model_folder(output))
        .and_then(|location| external::externalize(model, &location, threshold));
    let data = moved.map_err(|why| {
        eprintln!("error: --external-data: {why}");
        Outcome::Fatal
    })?;
    if data.tensors == 0 {
        eprintln!(
            "note: no initializer has {threshold} bytes of raw data or more; `{shown}` is not written"
        );
        return Ok(());
    }
    let progress = Progress::new(false, 0);
    io::write(&Place::File(file.to_owned()), &data.bytes, &progress).map_err(|e| report_io(&e))
}

/// `--inline-data`: reads the external data of the model in `message` from the folder of
/// `input` (named `name`) into the model.
fn read_external_data(message: &mut Proto, input: &Place, name: &str) -> Result<(), Outcome> {
    let Proto::Model(model) = message else {
        eprintln!("error: --inline-data applies to models (--kind model)");
        return Err(Outcome::Fatal);
    };
    external::inline_data(model, model_folder(input))
        .map(drop)
        .map_err(|why| {
            eprintln!("error: `{name}`: {why}");
            Outcome::Failed
        })
}

// ---------------------------------------------------------------------------------------------
// infer

fn infer(args: &InferArgs, show_progress: bool) -> Outcome {
    let input = Place::new(&args.input);
    let name = input.display("<stdin>");
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
                    Some(node) => eprintln!("error: {name}: node {node}: {}", error.message),
                    None => eprintln!("error: {name}: {}", error.message),
                }
            }
            return Outcome::Failed;
        }
    };
    write_model(model, args.output.as_deref(), &name, &progress)
}

/// Reads the model at `path` (`place`), text or binary by its extension or else its content;
/// with `checks`, a text model is checked first, so that its problems are positioned.
fn read_model(
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

/// Writes `model` to `output` as its extension says, or as text on standard output.
fn write_model(
    model: onnx_text::ModelProto,
    output: Option<&Path>,
    name: &str,
    progress: &Progress,
) -> Outcome {
    let place = output.map_or(Place::Std, Place::new);
    let to = output
        .and_then(Format::from_extension)
        .unwrap_or(Format::Text);
    let model = Proto::Model(model);
    write_message(
        model,
        Entry::Model,
        to,
        Style::Lossless,
        &place,
        name,
        progress,
    )
}

// ---------------------------------------------------------------------------------------------
// print

fn print(args: &PrintArgs, show_progress: bool) -> Outcome {
    let style = if args.reference {
        Style::Reference
    } else {
        Style::Lossless
    };
    let mut outcome = Outcome::Ok;
    let many = args.files.len() > 1;
    if many && args.data.external_data.is_some() {
        eprintln!(
            "error: --external-data takes one model: the data of several cannot share a file"
        );
        return Outcome::Fatal;
    }
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
        if let Some(file) = &args.data.external_data {
            let threshold = args.data.size_threshold;
            let moved = write_external_data(&mut message, file, threshold, &Place::Std);
            if let Err(o) = moved {
                outcome = outcome.max(o);
                continue;
            }
        }
        progress.stage(&format!("printing {name}"), None);
        let mut text = message::text(&message, style);
        if many {
            text.insert_str(0, &format!("# {name}\n"));
        }
        if let Err(e) = io::write(&Place::Std, text.as_bytes(), &progress) {
            return outcome.max(report_io(&e));
        }
    }
    outcome
}

// ---------------------------------------------------------------------------------------------
// inline

/// Reads the `--library` files, each a function library in text, named by its file; with
/// `checks`, each is checked as `check --kind functions` checks it.
fn read_libraries(
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
                .map_err(|d| d.with_origin(name.as_str()).to_string()),
            None => message::parse(Entry::Functions, &text)
                .map_err(|e| e.with_origin(name.as_str()).to_string()),
        };
        let functions = match read {
            Ok(Proto::Functions(functions)) => functions,
            Ok(_) => unreachable!("a function library was asked for"),
            Err(report) => {
                eprint!("{report}");
                eprintln!("error: the library `{name}` has problems; nothing else is checked");
                return Err(Outcome::Failed);
            }
        };
        match onnx_text::FunctionLibrary::from_functions(functions) {
            Ok(library) => libraries.push((name, library)),
            Err(e) => {
                eprintln!("error: `{name}`: {e}");
                return Err(Outcome::Failed);
            }
        }
    }
    Ok(libraries)
}

fn inline(args: &InlineArgs, show_progress: bool) -> Outcome {
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
            eprintln!("error: `{name}`: {e}");
            return Outcome::Failed;
        }
    };
    eprint!("{report}");

    write_model(model, args.output.as_deref(), &name, &progress)
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

    #[test]
    fn the_command_line_is_well_formed() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
