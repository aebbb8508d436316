//! Reading inputs and writing outputs: `-` for standard input and output, progress on large
//! files, and outputs written to a temporary file in the same directory and then renamed, so
//! that a failure never leaves a partial file. The temporary file is `tempfile`'s: a fresh name
//! created exclusively (never an existing file or link of that name), and removed if anything
//! fails before the rename.

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
    if data.is_empty() {
        return Err(IoError {
            message: format!("`{name}` is empty: it holds no model, text or binary"),
            empty: true,
            closed: false,
        });
    }
    Ok(data)
}

/// Writes `data` to `place`. A file is written next to its destination under a temporary name,
/// synced, and renamed over it, keeping the permissions of a file it replaces. A new file gets
/// the usual mode, 0666 less the umask, as `cp` gives.
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
            write_file(path, data, progress).map_err(|e| io_error("write", &name, &e))
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

fn write_file(path: &Path, data: &[u8], progress: &Progress) -> io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".onnx-text.tmp");
    // A temporary file is private (0600) by default; the output is an ordinary file. The mode
    // is given at creation, so the kernel takes the umask off it.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let mut temp = builder.tempfile_in(dir)?;
    write_chunks(temp.as_file_mut(), data, progress)?;
    temp.as_file().sync_all()?;
    if let Ok(meta) = fs::metadata(path) {
        temp.as_file().set_permissions(meta.permissions())?;
    }
    // On failure the temporary file is dropped, which removes it.
    temp.persist(path).map(drop).map_err(|e| e.error)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The files of `dir`, sorted.
    fn files(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn writes_replace_the_file_keep_its_permissions_and_leave_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model.onnx");
        let progress = Progress::new(false, 0);
        write(&Place::File(path.clone()), b"first", &progress).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        }
        write(&Place::File(path.clone()), b"second", &progress).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"second");
        assert_eq!(files(dir.path()), ["model.onnx"]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o640);
        }
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model.onnx");
        fs::write(&path, b"old").unwrap();
        // A directory cannot be renamed over by a file: the write fails after the temporary
        // file is written.
        let target = dir.path().join("sub");
        fs::create_dir(&target).unwrap();
        let progress = Progress::new(false, 0);
        assert!(write(&Place::File(target.clone()), b"new", &progress).is_err());
        assert_eq!(fs::read(&path).unwrap(), b"old");
        assert_eq!(files(dir.path()), ["model.onnx", "sub"]);
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
