//! Reading inputs and writing outputs: `-` for standard input and output, progress on large
//! files, and outputs written to a temporary file in the same directory and then renamed, so
//! that a failure never leaves a partial file.

use std::fs::{self, File};
use std::io::{self, Read, Write};
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
}

impl std::fmt::Display for IoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

fn io_error(what: &str, name: &str, err: &io::Error) -> IoError {
    IoError {
        message: format!("cannot {what} `{name}`: {err}"),
    }
}

const CHUNK: usize = 1 << 20;

/// Reads all of `place`, showing progress on `progress`.
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
                });
            }
            (Box::new(file), size)
        }
    };
    progress.stage(&format!("reading {name}"), (size > 0).then_some(size));
    let mut data = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    let mut chunk = vec![0; CHUNK];
    loop {
        match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                data.extend_from_slice(&chunk[..n]);
                progress.advance(n as u64);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io_error("read", &name, &e)),
        }
    }
    Ok(data)
}

/// Writes `data` to `place`. A file is written next to its destination under a temporary name,
/// synced, and renamed over it, keeping the permissions of a file it replaces.
pub fn write(place: &Place, data: &[u8], progress: &Progress) -> Result<(), IoError> {
    let name = place.display("<stdout>");
    progress.stage(&format!("writing {name}"), Some(data.len() as u64));
    match place {
        Place::Std => {
            let mut out = io::stdout().lock();
            write_chunks(&mut out, data, progress)
                .and_then(|()| out.flush())
                .map_err(|e| io_error("write", &name, &e))
        }
        Place::File(path) => {
            let temp = temp_path(path);
            let result = write_file(&temp, path, data, progress);
            if result.is_err() {
                let _ = fs::remove_file(&temp);
            }
            result.map_err(|e| io_error("write", &name, &e))
        }
    }
}

fn write_chunks(out: &mut impl Write, data: &[u8], progress: &Progress) -> io::Result<()> {
    for chunk in data.chunks(CHUNK) {
        out.write_all(chunk)?;
        progress.advance(chunk.len() as u64);
    }
    Ok(())
}

fn write_file(temp: &Path, path: &Path, data: &[u8], progress: &Progress) -> io::Result<()> {
    let mut file = File::create(temp)?;
    write_chunks(&mut file, data, progress)?;
    file.sync_all()?;
    if let Ok(meta) = fs::metadata(path) {
        fs::set_permissions(temp, meta.permissions())?;
    }
    drop(file);
    fs::rename(temp, path)
}

/// `dir/.name.onnx-text-<pid>.tmp` next to `path`.
fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    let temp_name = format!(".{name}.onnx-text-{}.tmp", std::process::id());
    match path.parent() {
        Some(dir) => dir.join(temp_name),
        None => PathBuf::from(temp_name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_files_sit_next_to_their_destination() {
        let temp = temp_path(Path::new("some/dir/model.onnx"));
        assert_eq!(temp.parent(), Some(Path::new("some/dir")));
        assert!(
            temp.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(".model.onnx.onnx-text-")
        );
    }

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
