//! One rule for every path: a command writes only the files it was told to write, and never one
//! that it reads or that the model references.
//!
//! Each command names, before it writes anything, every file it reads (its inputs, the
//! `--library` files, the external data the model already references) and every file it writes
//! (`-o`, a file `fmt` rewrites in place, the `--external-data` file). [`Paths::check`] then
//! compares them as files, not as names: the same path, a `..` form, a symbolic link and a hard
//! link are all the same file (on Unix, the same device and inode; elsewhere, the same
//! canonical path). Standard input is one of them when it is a file (`- < model.onnx`). It
//! also refuses a folder where a file is written; a file that exists and was not named as the
//! output, unless `--force` is given; and a read-only file, which the rename of an atomic write
//! would otherwise replace behind its permissions, as rustfmt refuses it.

use std::fs;
use std::path::{Path, PathBuf};

/// How a command uses a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Read only.
    Read,
    /// Written; `named` if the user named it as the output (`-o`), which is the permission to
    /// replace it. A file written without being named (an `--external-data` file, the default
    /// output of `convert`) is replaced only with `--force`.
    Write { named: bool },
    /// Read and then written over: `fmt` in place.
    InPlace,
}

impl Access {
    fn reads(self) -> bool {
        matches!(self, Access::Read | Access::InPlace)
    }

    fn writes(self) -> bool {
        !matches!(self, Access::Read)
    }
}

/// A file as the user named it, and what it is to the command.
#[derive(Clone, Debug)]
struct Use {
    path: PathBuf,
    /// What the path is, for messages: "the input", "-o", "--external-data", ...
    role: String,
    access: Access,
}

/// The files one run of a command reads and writes, checked together before anything is
/// written.
#[derive(Clone, Debug, Default)]
pub struct Paths {
    uses: Vec<Use>,
}

/// What makes two paths the same file.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Identity {
    /// An existing file (links followed): its device and inode.
    #[cfg(unix)]
    Inode(u64, u64),
    /// A canonical path: of the file if it exists, else of its folder followed by its name.
    Path(PathBuf),
}

/// What file `path` is; `-` (standard input) is one only when it is a file.
fn identity(path: &Path) -> Option<Identity> {
    if path.as_os_str() == "-" {
        return stdin_identity();
    }
    Some(path_identity(path))
}

/// The name of `path` in messages.
fn shown(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "<stdin>".to_owned()
    } else {
        path.display().to_string()
    }
}

/// Standard input's file, when it is a regular file: a pipe or a terminal is no file a
/// command could write.
#[cfg(unix)]
fn stdin_identity() -> Option<Identity> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let fd = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    let meta = fs::File::from(fd).metadata().ok()?;
    meta.is_file()
        .then(|| Identity::Inode(meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn stdin_identity() -> Option<Identity> {
    None
}

fn path_identity(path: &Path) -> Identity {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let Ok(meta) = fs::metadata(path) {
            return Identity::Inode(meta.dev(), meta.ino());
        }
    }
    if let Ok(real) = path.canonicalize() {
        return Identity::Path(real);
    }
    // A file that does not exist yet (or a dangling link): its folder's real path and its name.
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let folder = parent
        .canonicalize()
        .unwrap_or_else(|_| parent.to_path_buf());
    Identity::Path(match path.file_name() {
        Some(name) => folder.join(name),
        None => folder,
    })
}

impl Paths {
    /// Records that the command uses `path`. A `-` it reads is standard input, compared with
    /// the written files when it is a file; a `-` it writes is standard output, which is no
    /// file the command replaces, and is left out.
    pub fn add(&mut self, path: impl AsRef<Path>, role: impl Into<String>, access: Access) {
        let path = path.as_ref();
        let access = match access {
            _ if path.as_os_str() != "-" => access,
            Access::Read | Access::InPlace => Access::Read,
            Access::Write { .. } => return,
        };
        self.uses.push(Use {
            path: path.to_path_buf(),
            role: role.into(),
            access,
        });
    }

    /// Checks every written file against every other file, and against what may be replaced.
    /// The error says which two paths are one file, or why a file is not replaced; nothing has
    /// been written when it is returned.
    pub fn check(&self, force: bool) -> Result<(), String> {
        self.check_same_files()?;
        self.check_replaced(force)
    }

    /// The first half of [`Paths::check`]: no written file is another file of the run.
    pub fn check_same_files(&self) -> Result<(), String> {
        let ids: Vec<Option<Identity>> = self.uses.iter().map(|u| identity(&u.path)).collect();
        for (i, written) in self.uses.iter().enumerate() {
            if !written.access.writes() {
                continue;
            }
            for (j, other) in self.uses.iter().enumerate() {
                if i == j || ids[i].is_none() || ids[i] != ids[j] {
                    continue;
                }
                // Report each pair once, from the first of two writes.
                if other.access.writes() && j < i {
                    continue;
                }
                let (a, b) = (shown(&written.path), shown(&other.path));
                let what = if other.access.reads() {
                    "it reads"
                } else {
                    "it also writes"
                };
                return Err(format!(
                    "`{a}` ({}) is the same file as `{b}` ({}), which {what}; nothing was written",
                    written.role, other.role
                ));
            }
        }
        Ok(())
    }

    /// The second half of [`Paths::check`]: every existing file a write would replace may be
    /// replaced (named as the output, or `force`; and not read-only).
    pub fn check_replaced(&self, force: bool) -> Result<(), String> {
        for written in self.uses.iter().filter(|u| u.access.writes()) {
            let Ok(meta) = fs::symlink_metadata(&written.path) else {
                continue;
            };
            let shown = written.path.display();
            // Links followed: a link to a folder is a folder.
            let meta = fs::metadata(&written.path).unwrap_or(meta);
            if meta.is_dir() {
                return Err(format!(
                    "`{shown}` ({}) is a folder, and onnx-text writes a file there; nothing was \
                     written",
                    written.role
                ));
            }
            if written.access == (Access::Write { named: false }) && !force {
                return Err(format!(
                    "`{shown}` ({}) exists, and onnx-text replaces only a file named with -o: \
                     pass --force to replace it; nothing was written",
                    written.role
                ));
            }
            if meta.is_file() && !writable(&written.path, &meta) {
                return Err(format!(
                    "`{shown}` ({}) is read-only; onnx-text does not replace it; nothing was \
                     written",
                    written.role
                ));
            }
        }
        Ok(())
    }
}

/// Whether the user may write the existing file at `path`: it has a write permission bit (which
/// the superuser is not held to, but a read-only mode still says "do not change"), and opens for
/// writing (without truncating or changing it). Only a regular file is opened: opening a FIFO
/// waits for its reader.
fn writable(path: &Path, meta: &fs::Metadata) -> bool {
    !meta.permissions().readonly() && fs::OpenOptions::new().write(true).open(path).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(uses: &[(&Path, Access)]) -> Paths {
        let mut paths = Paths::default();
        for (i, (path, access)) in uses.iter().enumerate() {
            paths.add(path, format!("arg{i}"), *access);
        }
        paths
    }

    const OUT: Access = Access::Write { named: true };
    const DATA: Access = Access::Write { named: false };

    #[test]
    fn the_same_file_under_any_name_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let model = root.join("m.onnx");
        fs::write(&model, b"model").unwrap();
        fs::create_dir(root.join("sub")).unwrap();
        let mut names = vec![model.clone(), root.join("sub/../m.onnx")];
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&model, root.join("link.onnx")).unwrap();
            fs::hard_link(&model, root.join("hard.onnx")).unwrap();
            names.push(root.join("link.onnx"));
            names.push(root.join("hard.onnx"));
        }
        for name in &names {
            let err = paths(&[(&model, Access::Read), (name, DATA)])
                .check(true)
                .unwrap_err();
            assert!(err.contains("is the same file as"), "{err}");
            assert!(err.contains("(arg1)") && err.contains("(arg0)"), "{err}");
        }
        // Two outputs that do not exist yet, one name through `..`.
        let out = root.join("out.onnx");
        let err = paths(&[(&out, OUT), (&root.join("sub/../out.onnx"), DATA)])
            .check(true)
            .unwrap_err();
        assert!(err.contains("which it also writes"), "{err}");
        // `-` is standard input or output, never a file.
        let dash = Path::new("-");
        assert_eq!(
            paths(&[(dash, Access::Read), (dash, OUT)]).check(false),
            Ok(())
        );
    }

    #[test]
    fn an_unnamed_existing_file_needs_force_and_a_read_only_one_is_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let notes = dir.path().join("notes.data");
        fs::write(&notes, b"notes").unwrap();
        let err = paths(&[(&notes, DATA)]).check(false).unwrap_err();
        assert!(err.contains("pass --force"), "{err}");
        assert_eq!(paths(&[(&notes, DATA)]).check(true), Ok(()));
        assert_eq!(paths(&[(&notes, OUT)]).check(false), Ok(()));
        let mut readonly = fs::metadata(&notes).unwrap().permissions();
        readonly.set_readonly(true);
        fs::set_permissions(&notes, readonly).unwrap();
        for access in [OUT, DATA, Access::InPlace] {
            let err = paths(&[(&notes, access)]).check(true).unwrap_err();
            assert!(err.contains("is read-only"), "{err}");
        }
        assert_eq!(paths(&[(&notes, Access::Read)]).check(false), Ok(()));
    }
}
