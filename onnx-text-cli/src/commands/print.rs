//! `onnx-text print`: any model as text.

use onnx_text::Style;

use super::{load, report_io, write_external_data};
use crate::io::{self, Place};
use crate::message::{self, Format};
use crate::progress::Progress;
use crate::{Outcome, PrintArgs};

/// Prints every file as text.
pub fn print(args: &PrintArgs, show_progress: bool) -> Outcome {
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
