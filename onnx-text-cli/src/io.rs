//! Reading inputs: `-` for standard input, progress on large files. Outputs are written by
//! [`crate::write`].

use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crate::progress::Progress;

/// Where data comes from or goes to: a file, or `-` for standard input or output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// Standard input or output.
    Std,
    /// A file.
    File(PathBuf),
}

impl Place {
    /// `-` is standard input or output; anything else is a file.
    pub fn new(path: &Path) -> Place {
        if path.as_os_str() == "-" {
            Place::Std
        } else {
            Place::File(path.to_owned())
        }
    }

    /// The name to show in messages.
    pub fn display(&self, std_name: &str) -> String {
        match self {
            Place::Std => std_name.to_owned(),
            Place::File(path) => path.display().to_string(),
        }
    }

    /// The size of a file, if known (for the progress bar).
    pub fn size(&self) -> u64 {
        match self {
            Place::Std => 0,
            Place::File(path) => fs::metadata(path).map_or(0, |m| m.len()),
        }
    }
}

/// An error with the operation and the file it concerns.
#[derive(Debug)]
pub struct IoError {
    pub message: String,
    /// The file was read but holds nothing: the input is invalid, not unreadable.
    pub empty: bool,
    /// Standard output was closed by its reader (`| head`): the command ends quietly, as Unix
    /// tools do.
    pub closed: bool,
}

impl std::fmt::Display for IoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

fn io_error(what: &str, name: &str, err: &io::Error) -> IoError {
    IoError {
        message: format!("cannot {what} `{name}`: {err}"),
        empty: false,
        closed: err.kind() == io::ErrorKind::BrokenPipe,
    }
}

const CHUNK: usize = 1 << 20;

/// Reads all of `place`, showing progress on `progress`. Nothing at all is an error: no entry
/// point of the syntax is empty, and the protobuf decoding of zero bytes is an empty model that
/// would pass for a real one.
pub fn read(place: &Place, progress: &Progress) -> Result<Vec<u8>, IoError> {
    let name = place.display("<stdin>");
    let (mut reader, size): (Box<dyn Read>, u64) = match place {
        Place::Std => (Box::new(io::stdin().lock()), 0),
        Place::File(path) => {
            let file = File::open(path).map_err(|e| io_error("read", &name, &e))?;
            let size = file.metadata().map_or(0, |m| m.len());
            if file.metadata().is_ok_and(|m| m.is_dir()) {
                return Err(IoError {
                    message: format!("cannot read `{name}`: it is a directory"),
                    empty: false,
                    closed: false,
                });
            }
            (Box::new(file), size)
        }
    };
    progress.stage(&format!("reading {name}"), (size > 0).then_some(size));
    let mut data = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    loop {
        // Read straight into `data`, a chunk at a time for the progress bar: no copy through a
        // buffer of its own (`read_to_end` leaves `Interrupted` retried).
        match reader.by_ref().take(CHUNK as u64).read_to_end(&mut data) {
            Ok(0) => break,
            Ok(n) => progress.advance(n as u64),
            Err(e) => return Err(io_error("read", &name, &e)),
        }
    }
    if data.is_empty() {
        return Err(IoError {
            message: format!("`{name}` is empty: it holds no model, text or binary"),
            empty: true,
            closed: false,
        });
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dash_is_standard_input_or_output() {
        assert_eq!(Place::new(Path::new("-")), Place::Std);
        assert_eq!(Place::new(Path::new("-")).display("<stdin>"), "<stdin>");
        assert_eq!(
            Place::new(Path::new("a.onnx")),
            Place::File("a.onnx".into())
        );
    }
}
