//! `onnx-text`: format, check, convert, print, infer, inline and run ONNX models in the ONNX
//! textual syntax.
//!
//! Exit codes: 0 when all is well, 1 when an input is invalid (a syntax error, a failed check,
//! an unformatted file under `fmt --check`, bytes that are not a model), 2 for usage errors and
//! files that cannot be read or written (or that a command must not write: see `paths`). A
//! standard output closed by its reader ends the command quietly, with 0.

/// `eprint!` through [`report::eprint`]: escaped, and coloured on a terminal.
macro_rules! report {
    ($($arg:tt)*) => {
        $crate::report::eprint(&format!($($arg)*))
    };
}

/// `eprintln!` through [`report::eprint`]: escaped, and coloured on a terminal.
macro_rules! reportln {
    () => {
        $crate::report::eprint("\n")
    };
    ($($arg:tt)*) => {
        $crate::report::eprint(&format!("{}\n", format_args!($($arg)*)))
    };
}

mod commands;
mod external;
mod io;
mod limit;
mod lossy;
mod message;
mod npy;
mod paths;
mod progress;
mod report;
mod write;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use onnx_syntax::Entry;
use onnx_text::Check;

use crate::message::Format;

/// The binary sets its allocator, as ruff and uv do; the libraries leave the choice to their
/// users. A parse is mostly small allocations (every name and list of the model).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Turns transparent huge pages off for the process, as `MIMALLOC_ALLOW_THP=0` does (mimalloc
/// reads its options before `main`, so the binary cannot set that one). mimalloc asks for huge
/// pages on its arena, and on a machine shared with other jobs a fresh 2 MiB page costs far more
/// to clear than 512 small ones: `convert --opset 21` of ResNet-50, which touches about 240 MB
/// of fresh memory, took 0.6 to 2.0 s with them and 0.34 to 0.64 s without (alternating runs,
/// load 4 to 8; docs/performance.md).
#[cfg(target_os = "linux")]
fn no_huge_pages() {
    // SAFETY: PR_SET_THP_DISABLE takes integers only and changes no memory of the process, only
    // the size of the pages its later page faults get.
    unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
}

#[cfg(not(target_os = "linux"))]
fn no_huge_pages() {}

/// Format, check, convert, print, infer, inline and run ONNX models in the ONNX textual syntax
/// (onnx 1.23.2).
#[derive(Parser, Debug)]
#[command(name = "onnx-text", version, about, max_term_width = 100)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Show at most N problems, then say how many more there are; 0 shows them all.
    #[arg(long, global = true, value_name = "N", default_value_t = limit::DEFAULT)]
    max_errors: usize,
    /// Write a binary model as text even when the text loses weights no text can express
    /// (sparse initializers, training_info); without it, such a model is refused.
    #[arg(long, global = true)]
    lossy: bool,
}

/// The progress bar of the commands that read models (not `lsp`, which draws none).
#[derive(Args, Debug)]
struct ProgressArgs {
    /// Never draw a progress bar (one is drawn on a terminal for inputs of 8 MB or more).
    #[arg(long)]
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
    /// Print any model, binary or text, as text on standard output (or in a file, with -o).
    ///
    /// On standard output, the external data locations stay as the model has them, relative to
    /// the input's folder; with -o they are rewritten to resolve from the output's folder.
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
    /// Run a model through the reference evaluator (onnx-eval), with each operator's semantics
    /// at the version the model imports, and print or write its outputs.
    ///
    /// Inputs are onnx's TensorProto .pb files (or SequenceProto, OptionalProto, MapProto when
    /// the graph's input has that type) or NumPy .npy files, in the graph's order or as
    /// NAME=FILE. A text model is checked first; external data is read under the same rules as
    /// `check`. Without -o, each output is printed (small ones whole).
    Run(RunArgs),
}

#[derive(Args, Debug)]
struct RunArgs {
    /// The model, binary or text.
    #[arg(value_name = "MODEL")]
    model: PathBuf,
    /// The inputs: FILE for the next graph input in order, or NAME=FILE.
    #[arg(value_name = "INPUT")]
    inputs: Vec<String>,
    /// Write the outputs to this folder as output_0.pb, output_1.pb, ... (created if need be).
    #[arg(short, long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// Write the outputs as .npy files instead of .pb.
    #[arg(long, requires = "output")]
    npy: bool,
    /// Replace existing output files in DIR. No file the command reads is ever replaced.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    progress: ProgressArgs,
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
    #[command(flatten)]
    progress: ProgressArgs,
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
    /// Convert the model to this opset of the default domain (ai.onnx), up or down, with the
    /// version converter; a model it cannot convert exactly is an error naming every node.
    #[arg(long, value_name = "N")]
    opset: Option<i64>,
    /// Convert the model to this opset of ai.onnx.ml.
    #[arg(long, value_name = "N")]
    ml_opset: Option<i64>,
    /// What the files hold.
    #[arg(long, value_parser = message::entry_parser(), default_value = "model")]
    kind: Entry,
    #[command(flatten)]
    progress: ProgressArgs,
}

#[derive(Args, Debug)]
struct CheckArgs {
    /// The files to check, text or binary; `-` reads standard input. A binary model is checked
    /// as onnx.checker.check_model(full_check=True) checks it: the rules of its messages name
    /// the place in the model, the checks of the syntax are positioned in the text
    /// `onnx-text print` shows. Its external data must be in the model file's folder.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Convert the model to this opset of the default domain (ai.onnx), up or down, with the
    /// version converter; a model it cannot convert exactly is an error naming every node.
    #[arg(long, value_name = "N")]
    opset: Option<i64>,
    /// Convert the model to this opset of ai.onnx.ml.
    #[arg(long, value_name = "N")]
    ml_opset: Option<i64>,
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
    #[command(flatten)]
    progress: ProgressArgs,
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
    /// Replace the default output (the input with the other extension), or an existing
    /// --external-data file, if it exists. A file named with -o is replaced: naming it is the
    /// permission. No file the command reads is ever replaced, --force or not.
    #[arg(long)]
    force: bool,
    /// The input's format; by default from its extension, or else from its content.
    #[arg(long, value_enum)]
    from: Option<Format>,
    /// The output's format; by default from its extension, or else the other format.
    #[arg(long, value_enum)]
    to: Option<Format>,
    /// Convert a text input without running the checks (the macros' and `check`'s), for
    /// models malformed on purpose. By default a text that fails a check is not converted.
    #[arg(long)]
    unchecked: bool,
    /// Turn off these checks of a text input (by name, as `#![allow(...)]` takes them).
    #[arg(
        long,
        value_name = "CHECK,...",
        value_delimiter = ',',
        conflicts_with = "unchecked"
    )]
    allow: Vec<Check>,
    /// The checks run by default; kept so that scripts written for earlier versions still run.
    #[arg(long, hide = true, conflicts_with = "unchecked")]
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
    /// Convert the model to this opset of the default domain (ai.onnx), up or down, with the
    /// version converter; a model it cannot convert exactly is an error naming every node.
    #[arg(long, value_name = "N")]
    opset: Option<i64>,
    /// Convert the model to this opset of ai.onnx.ml.
    #[arg(long, value_name = "N")]
    ml_opset: Option<i64>,
    /// What the input holds.
    #[arg(long, value_parser = message::entry_parser(), default_value = "model")]
    kind: Entry,
    #[command(flatten)]
    progress: ProgressArgs,
}

/// Weights beside the text: `--external-data FILE` and its threshold.
#[derive(Args, Debug)]
struct DataArgs {
    /// Write the model's large tensors to this file, in onnx's external data layout, and name
    /// them in the text as `["location": …, "offset": …, "length": …]`, relative to the output's
    /// folder. The file must be in that folder or below it; it needs an output file (-o), and
    /// --force if it exists. Tensors stored outside already keep their place.
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
    /// Write the text to this file instead of standard output (several inputs go to it one
    /// after the other). The external data locations in it are written from its folder.
    #[arg(short, long, value_name = "OUTPUT")]
    output: Option<PathBuf>,
    /// Replace an existing --external-data file. No file the command reads is ever replaced.
    #[arg(long)]
    force: bool,
    /// Print exactly as onnx.printer.to_text does, including what it loses.
    #[arg(long)]
    reference: bool,
    #[command(flatten)]
    data: DataArgs,
    /// Convert the model to this opset of the default domain (ai.onnx), up or down, with the
    /// version converter; a model it cannot convert exactly is an error naming every node.
    #[arg(long, value_name = "N")]
    opset: Option<i64>,
    /// Convert the model to this opset of ai.onnx.ml.
    #[arg(long, value_name = "N")]
    ml_opset: Option<i64>,
    /// What the files hold.
    #[arg(long, value_parser = message::entry_parser(), default_value = "model")]
    kind: Entry,
    #[command(flatten)]
    progress: ProgressArgs,
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
    #[command(flatten)]
    progress: ProgressArgs,
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
    no_huge_pages();
    let cli = Cli::parse();
    limit::set(cli.max_errors);
    lossy::allow(cli.lossy);
    let bar = |args: &ProgressArgs| !args.no_progress;
    let outcome = match &cli.command {
        Command::Fmt(args) => commands::fmt::fmt(args, bar(&args.progress)),
        Command::Check(args) => commands::check::check(args, bar(&args.progress)),
        Command::Convert(args) => commands::convert::convert(args, bar(&args.progress)),
        Command::Print(args) => commands::print::print(args, bar(&args.progress)),
        Command::Infer(args) => commands::infer::infer(args, bar(&args.progress)),
        Command::Inline(args) => commands::inline::inline(args, bar(&args.progress)),
        Command::Run(args) => commands::run::run(args, bar(&args.progress)),
        Command::Lsp => commands::lsp::lsp(),
    };
    if let Some(summary) = limit::summary() {
        reportln!("{summary}");
    }
    ExitCode::from(outcome as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_well_formed() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
