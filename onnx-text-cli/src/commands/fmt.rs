//! `onnx-text fmt`: format text files canonically, in place or to standard output.

use onnx_print::format_message;

use super::{check_paths, check_same_files, read_text, report_io};
use crate::io::Place;
use crate::message;
use crate::paths::{Access, Paths};
use crate::progress::Progress;
use crate::write;
use crate::{FmtArgs, Outcome};

/// Formats every file; the outcome is the worst of theirs.
pub fn fmt(args: &FmtArgs, show_progress: bool) -> Outcome {
    // In place, no file may be named twice (under any name): check that before any is written.
    let in_place = !args.check && !args.stdout;
    let mut paths = Paths::default();
    for file in &args.files {
        let access = if in_place {
            Access::InPlace
        } else {
            Access::Read
        };
        paths.add(file, "a file to format", access);
    }
    if let Err(outcome) = check_same_files(&paths) {
        return outcome;
    }
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
        reportln!(
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
        report!("{}", e.with_origin(name));
        Outcome::Failed
    })?;
    // The printer is lossless for everything the syntax expresses, and comments are white
    // space to the parser; make sure before writing.
    if message::parse(args.kind, &formatted).as_ref() != Ok(&message) {
        reportln!("error: formatting `{name}` would change its model; it is left unchanged");
        return Err(Outcome::Failed);
    }
    if args.check {
        if formatted != text {
            reportln!("would reformat {name}");
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
    // A read-only file is not replaced, even though the rename of the write could, as rustfmt
    // refuses it.
    if let Place::File(path) = &output {
        let mut paths = Paths::default();
        paths.add(path, "a file to format", Access::InPlace);
        check_paths(&paths, false)?;
    }
    write::write(&output, formatted.as_bytes(), progress).map_err(|e| report_io(&e))?;
    Ok(true)
}
