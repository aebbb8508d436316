//! The one write path of every command: the files of one run are written together, and a failure
//! changes nothing the user had.
//!
//! It works in three steps:
//!
//! 1. **Look**: every target is examined before anything is written. A folder is refused. A
//!    symbolic link is followed (the file it names is written, and the link stays a link). A
//!    device, a FIFO or a terminal is a *stream*: it is opened and written into, as `cp` and
//!    `tee` do; renaming a file over it would replace `/dev/null` with a regular file.
//! 2. **Stage**: each file's bytes are written in full to a fresh temporary file next to it
//!    (`tempfile`'s: created exclusively, removed on any failure) and synced. If one of them
//!    fails (a full disk, a folder that does not exist), the temporaries go and nothing else
//!    has been touched.
//! 3. **Put in place**: only then are streams written into and temporaries renamed over their
//!    targets. A file with other hard links is not renamed over, which would split it from
//!    them: its temporary is removed and the bytes are copied into the existing inode. Freeing
//!    the temporary first frees at least as many blocks as the copy needs more than the old
//!    file had, so a disk that took the temporary takes the copy; and if the copy still fails,
//!    the old bytes (read before) are put back.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Seek, Write};
use std::path::{Path, PathBuf};

use crate::io::{IoError, Place};
use crate::progress::Progress;

const CHUNK: usize = 1 << 20;

/// Writes every `(place, bytes)` of one run: all of them, or (if any fails before they are put
/// in place) none. `-` (standard output) is written with the streams.
pub fn write_all(outputs: &[(&Place, &[u8])], progress: &Progress) -> Result<(), IoError> {
    let mut targets = Vec::with_capacity(outputs.len());
    for &(place, data) in outputs {
        let name = place.display("<stdout>");
        let target = look(place).map_err(|e| unchanged(&name, &e))?;
        targets.push((name, target, data));
    }
    let mut staged = Vec::with_capacity(targets.len());
    for (name, target, data) in targets {
        let step = match target {
            Target::Stream(stream) => Step::Stream(stream),
            Target::File(file) => {
                progress.stage(&format!("writing {name}"), Some(data.len() as u64));
                Step::Staged(stage(&file, data, progress).map_err(|e| unchanged(&name, &e))?)
            }
        };
        staged.push((name, step, data));
    }
    // Streams first: a reader that went away (`| head`) then leaves the files as they were.
    for (name, step, data) in &staged {
        if let Step::Stream(stream) = step {
            progress.stage(&format!("writing {name}"), Some(data.len() as u64));
            write_stream(stream, data, progress).map_err(|e| failed(name, &e))?;
        }
    }
    for (name, step, data) in staged {
        if let Step::Staged(file) = step {
            put_in_place(file, data).map_err(|e| failed(&name, &e))?;
        }
    }
    Ok(())
}

/// Writes `data` to `place`: [`write_all`] of one output.
pub fn write(place: &Place, data: &[u8], progress: &Progress) -> Result<(), IoError> {
    write_all(&[(place, data)], progress)
}

/// What a path is to the write path.
enum Target {
    /// Standard output, a device, a FIFO or a terminal: written into.
    Stream(Option<PathBuf>),
    /// A regular file, existing or not, links followed.
    File(PathBuf),
}

enum Step {
    Stream(Option<PathBuf>),
    Staged(Staged),
}

/// A file whose new bytes are all in a temporary file next to it.
struct Staged {
    temp: tempfile::NamedTempFile,
    path: PathBuf,
    /// The file has other hard links, which a rename would split from it.
    linked: bool,
}

fn look(place: &Place) -> io::Result<Target> {
    let Place::File(path) = place else {
        return Ok(Target::Stream(None));
    };
    // What the kernel finds at the end of the links: `/dev/stdout` on a pipe is a FIFO, though
    // its last link names no path (`pipe:[123]`).
    match fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "it is a folder, and a file is written here",
        )),
        Ok(meta) if !meta.is_file() => Ok(Target::Stream(Some(path.clone()))),
        _ => Ok(Target::File(follow_links(path)?)),
    }
}

/// The path a chain of symbolic links at `path` ends at (itself if it is no link), which may
/// not exist yet: writing through a dangling link creates the file it names, as `cp` does.
pub fn follow_links(path: &Path) -> io::Result<PathBuf> {
    let mut path = path.to_path_buf();
    // Linux's own limit on the links of one lookup.
    for _ in 0..40 {
        match fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = fs::read_link(&path)?;
                // A relative target is relative to the link's folder; `join` keeps an absolute one.
                path = match path.parent() {
                    Some(folder) => folder.join(target),
                    None => target,
                };
            }
            _ => return Ok(path),
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

fn stage(path: &Path, data: &[u8], progress: &Progress) -> io::Result<Staged> {
    let folder = match path.parent() {
        Some(folder) if !folder.as_os_str().is_empty() => folder,
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
    let mut temp = builder.tempfile_in(folder)?;
    write_chunks(temp.as_file_mut(), data, progress)?;
    temp.as_file().sync_all()?;
    let existing = fs::metadata(path).ok();
    if let Some(meta) = &existing {
        temp.as_file().set_permissions(meta.permissions())?;
    }
    Ok(Staged {
        temp,
        path: path.to_path_buf(),
        linked: existing.as_ref().is_some_and(has_other_links),
    })
}

#[cfg(unix)]
fn has_other_links(meta: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    meta.nlink() > 1
}

#[cfg(not(unix))]
fn has_other_links(_: &fs::Metadata) -> bool {
    false
}

fn put_in_place(staged: Staged, data: &[u8]) -> io::Result<()> {
    if !staged.linked {
        return staged
            .temp
            .persist(&staged.path)
            .map(drop)
            .map_err(|e| e.error);
    }
    let old = fs::read(&staged.path)?;
    let mut file = OpenOptions::new().write(true).open(&staged.path)?;
    // See the module's comment: the temporary's blocks go back to the disk before the copy.
    drop(staged.temp);
    // Putting the old bytes back is best effort: the error reported is the copy's.
    overwrite(&mut file, data).inspect_err(|_| {
        let _ = overwrite(&mut file, &old);
    })
}

/// Makes `file` hold exactly `data`.
fn overwrite(file: &mut File, data: &[u8]) -> io::Result<()> {
    file.rewind()?;
    file.write_all(data)?;
    file.set_len(data.len() as u64)?;
    file.sync_all()
}

fn write_stream(stream: &Option<PathBuf>, data: &[u8], progress: &Progress) -> io::Result<()> {
    match stream {
        None => {
            let mut out = io::stdout().lock();
            write_chunks(&mut out, data, progress)?;
            out.flush()
        }
        // No truncation and no creation: the device or FIFO is there, and is only written to.
        Some(path) => {
            let mut out = OpenOptions::new().write(true).open(path)?;
            write_chunks(&mut out, data, progress)?;
            out.flush()
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

/// A failure before anything was put in place.
fn unchanged(name: &str, err: &io::Error) -> IoError {
    let mut error = failed(name, err);
    if !error.closed {
        error.message.push_str("; nothing was written");
    }
    error
}

fn failed(name: &str, err: &io::Error) -> IoError {
    IoError {
        message: format!("cannot write `{name}`: {err}"),
        empty: false,
        closed: err.kind() == io::ErrorKind::BrokenPipe,
    }
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

    fn file(path: &Path) -> Place {
        Place::File(path.to_path_buf())
    }

    #[test]
    fn writes_replace_the_file_keep_its_permissions_and_leave_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model.onnx");
        let progress = Progress::new(false, 0);
        write(&file(&path), b"first", &progress).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        }
        write(&file(&path), b"second", &progress).unwrap();
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
    fn a_folder_among_the_targets_stops_every_write() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("w.bin");
        fs::write(&data, b"old").unwrap();
        let folder = dir.path().join("sub");
        fs::create_dir(&folder).unwrap();
        let progress = Progress::new(false, 0);
        let outputs = [(&file(&data), &b"new"[..]), (&file(&folder), b"text")];
        let err = write_all(&outputs, &progress).unwrap_err();
        assert!(err.message.contains("it is a folder"), "{}", err.message);
        assert!(
            err.message.ends_with("; nothing was written"),
            "{}",
            err.message
        );
        assert_eq!(fs::read(&data).unwrap(), b"old");
        assert_eq!(files(dir.path()), ["sub", "w.bin"]);
    }

    #[test]
    fn a_missing_folder_stops_every_write_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("w.bin");
        fs::write(&data, b"old").unwrap();
        let missing = dir.path().join("no/such/t.onnxtxt");
        let progress = Progress::new(false, 0);
        let outputs = [(&file(&data), &b"new"[..]), (&file(&missing), b"text")];
        assert!(write_all(&outputs, &progress).is_err());
        assert_eq!(fs::read(&data).unwrap(), b"old");
        assert_eq!(files(dir.path()), ["w.bin"]);
    }

    #[cfg(unix)]
    #[test]
    fn links_are_kept_and_the_file_they_name_is_written() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.txt");
        fs::write(&real, b"old").unwrap();
        let hard = dir.path().join("hard.txt");
        fs::hard_link(&real, &hard).unwrap();
        let soft = dir.path().join("soft.txt");
        std::os::unix::fs::symlink("real.txt", &soft).unwrap();
        let progress = Progress::new(false, 0);
        write(&file(&soft), b"through the link", &progress).unwrap();
        assert!(
            fs::symlink_metadata(&soft)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read(&hard).unwrap(), b"through the link");
        write(&file(&real), b"short", &progress).unwrap();
        assert_eq!(fs::read(&hard).unwrap(), b"short");
        let (a, b) = (fs::metadata(&real).unwrap(), fs::metadata(&hard).unwrap());
        assert_eq!((a.ino(), a.nlink()), (b.ino(), 2));
        assert_eq!(files(dir.path()), ["hard.txt", "real.txt", "soft.txt"]);
        // A dangling link: the file it names is created.
        let dangling = dir.path().join("dangling.txt");
        std::os::unix::fs::symlink("created.txt", &dangling).unwrap();
        write(&file(&dangling), b"new", &progress).unwrap();
        assert_eq!(fs::read(dir.path().join("created.txt")).unwrap(), b"new");
        assert!(
            fs::symlink_metadata(&dangling)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }

    #[test]
    fn dash_is_standard_output() {
        assert!(matches!(look(&Place::Std), Ok(Target::Stream(None))));
    }
}
