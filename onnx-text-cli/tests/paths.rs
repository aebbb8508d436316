//! One rule for every path, as a table: every subcommand that writes a file × every pair of its
//! path arguments (a file it reads or writes, and a file it writes) × the ways two names can be
//! one file (the same path, a `..` form, a symbolic link, a hard link) and an existing unrelated
//! file. Each row runs the binary in a fresh folder and asserts the error (exit code and
//! message) and that no byte of any file in the folder changed.
//!
//! A second table, [`KINDS`], takes the kinds of path a write meets: a device and a FIFO (made
//! with mknod and mkfifo in the row's folder; a device row is skipped, saying why, only where
//! mknod fails), standard input redirected from an input, a symbolic link to the output, a file
//! with two hard links, a folder where a file is written, and a failure between the two writes
//! of a two-file command (a file size limit, as a full disk fails a write). Each row checks that
//! no file but the outputs it names changed, and that links and special files are what they
//! were.
//!
//! `check` and `lsp` write no file: they have no row.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_onnx-text");
const EXTERNAL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/external");

/// A model with raw tensors above the threshold, and no external data.
const MODEL: &str = "m.onnx";
/// onnx's own save of that model with its data in `model.bin` (the data it references).
const WITH_DATA: &str = "e.onnx";
const REFERENCED: &str = "model.bin";
/// An existing output, for the pairs of two written files.
const OUTPUT: &str = "out.onnxtxt";
const TEXT: &str = "t.onnxtxt";
const LIBRARY: &str = "lib.onnxtxt";
/// An existing file that nothing reads.
const NOTES: &str = "notes.data";

/// An unformatted text, which `fmt` would rewrite.
const UNFORMATTED: &str =
    "<ir_version:10,opset_import:[\"\":21]>\ng(float[2] x)=>(float[2] y){y=Relu(x)}\n";
const FUNCTIONS: &str = "<domain: \"my\", opset_import: [\"\" : 21]> Half (a) => (b) { h = Constant <value_float = 0.5> ()  b = Mul(a, h) }\n";

/// A folder with every file of the table, and `sub/` for the `..` forms.
fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let golden = |path: &str| std::fs::read(format!("{EXTERNAL}/{path}")).unwrap();
    std::fs::write(root.join(MODEL), golden("model.onnx")).unwrap();
    std::fs::write(root.join(WITH_DATA), golden("saved-1024/model.onnx")).unwrap();
    std::fs::write(root.join(REFERENCED), golden("saved-1024/model.bin")).unwrap();
    std::fs::write(root.join(OUTPUT), "an output written before\n").unwrap();
    std::fs::write(root.join(TEXT), UNFORMATTED).unwrap();
    std::fs::write(root.join(LIBRARY), FUNCTIONS).unwrap();
    std::fs::write(root.join(NOTES), "notes nobody reads\n").unwrap();
    std::fs::create_dir(root.join("sub")).unwrap();
    dir
}

/// Every file under `dir`: its bytes (a link: where it points; a device or a FIFO, which is
/// never read: its kind and inode, so that a regular file put in its place shows), keyed by
/// path.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            let key = path.strip_prefix(dir).unwrap().display().to_string();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                files.insert(key, format!("-> {}", target.display()).into_bytes());
            } else if meta.is_dir() {
                files.insert(key, b"<dir>".to_vec());
                folders.push(path);
            } else if !meta.is_file() {
                files.insert(key, special(&meta).into_bytes());
            } else {
                files.insert(key, std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

/// A device or a FIFO as [`snapshot`] records it.
#[cfg(unix)]
fn special(meta: &std::fs::Metadata) -> String {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let kind = meta.file_type();
    let what = if kind.is_fifo() {
        "fifo"
    } else if kind.is_char_device() {
        "char device"
    } else if kind.is_block_device() {
        "block device"
    } else {
        "socket"
    };
    format!("<{what} {} inode {}>", meta.rdev(), meta.ino())
}

#[cfg(not(unix))]
fn special(_: &std::fs::Metadata) -> String {
    "<special>".to_owned()
}

/// How the second path of a pair names the file of the first.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Relation {
    Same,
    DotDot,
    Symlink,
    HardLink,
}

const RELATIONS: [Relation; 4] = [
    Relation::Same,
    Relation::DotDot,
    Relation::Symlink,
    Relation::HardLink,
];

/// Another name of `file` in `dir` under `relation`, created if it is a link.
fn other_name(dir: &Path, file: &str, relation: Relation) -> String {
    match relation {
        Relation::Same => file.to_owned(),
        Relation::DotDot => format!("sub/../{file}"),
        Relation::Symlink => {
            let link = format!("ln-{file}");
            #[cfg(unix)]
            std::os::unix::fs::symlink(file, dir.join(&link)).unwrap();
            #[cfg(windows)]
            std::os::windows::fs::symlink_file(dir.join(file), dir.join(&link)).unwrap();
            link
        }
        Relation::HardLink => {
            let link = format!("hl-{file}");
            std::fs::hard_link(dir.join(file), dir.join(&link)).unwrap();
            link
        }
    }
}

/// A subcommand and the arguments that name its paths: `slots` are the option (or "" for a
/// positional argument) and default value of each; `refers` says which input references
/// [`REFERENCED`].
struct Spec {
    command: &'static str,
    slots: &'static [(&'static str, &'static str)],
    /// Options that are not paths.
    extra: &'static [&'static str],
    /// The pairs (read or written slot, written slot) of the table; the slot `"ref"` is the
    /// data file the input [`WITH_DATA`] references.
    pairs: &'static [(&'static str, &'static str)],
    /// Slots whose file is written without being named as the output (replaced only with
    /// --force).
    unnamed: &'static [&'static str],
    /// Whether the command takes --force.
    force: bool,
}

const SPECS: &[Spec] = &[
    Spec {
        command: "convert",
        slots: &[
            ("", MODEL),
            ("-o", "new.onnxtxt"),
            ("--external-data", "w.bin"),
        ],
        extra: &[],
        pairs: &[
            ("", "-o"),
            ("", "--external-data"),
            ("-o", "--external-data"),
            ("ref", "-o"),
            ("ref", "--external-data"),
        ],
        unnamed: &["--external-data"],
        force: true,
    },
    Spec {
        command: "print",
        slots: &[
            ("", MODEL),
            ("-o", "new.onnxtxt"),
            ("--external-data", "w.bin"),
        ],
        extra: &[],
        pairs: &[
            ("", "-o"),
            ("", "--external-data"),
            ("-o", "--external-data"),
            ("ref", "-o"),
            ("ref", "--external-data"),
        ],
        unnamed: &["--external-data"],
        force: true,
    },
    Spec {
        command: "infer",
        slots: &[("", MODEL), ("-o", "new.onnxtxt")],
        extra: &[],
        pairs: &[("", "-o"), ("ref", "-o")],
        unnamed: &[],
        force: false,
    },
    Spec {
        command: "inline",
        slots: &[("", MODEL), ("-o", "new.onnxtxt"), ("--library", LIBRARY)],
        extra: &[],
        pairs: &[("", "-o"), ("--library", "-o"), ("ref", "-o")],
        unnamed: &[],
        force: false,
    },
    Spec {
        command: "fmt",
        slots: &[("", TEXT), ("+", "")],
        extra: &[],
        pairs: &[("", "+")],
        unnamed: &[],
        force: false,
    },
];

/// The command line of one row: `values` overrides the default of some slots. The `print`
/// rows leave -o out unless they are about it, as the first data-loss case does.
fn command_line(spec: &Spec, values: &[(&str, String)], pair: (&str, &str)) -> Vec<String> {
    let mut args = vec![spec.command.to_owned()];
    for &(slot, default) in spec.slots {
        let value = values
            .iter()
            .find(|(s, _)| *s == slot)
            .map_or(default.to_owned(), |(_, v)| v.clone());
        let about_output = pair.0 == "-o" || pair.1 == "-o";
        if value.is_empty() || (spec.command == "print" && slot == "-o" && !about_output) {
            continue;
        }
        if !slot.is_empty() && slot != "+" {
            args.push(slot.to_owned());
        }
        args.push(value);
    }
    args.extend(spec.extra.iter().map(|s| (*s).to_owned()));
    args
}

struct Outcome {
    code: i32,
    stderr: String,
    changed: Vec<String>,
}

/// Runs `args` in `dir`, and lists the files whose bytes changed (or appeared, or went).
fn run(dir: &Path, args: &[String]) -> Outcome {
    let before = snapshot(dir);
    let out = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    let after = snapshot(dir);
    let mut changed: Vec<String> = before
        .keys()
        .chain(after.keys())
        .filter(|k| before.get(*k) != after.get(*k))
        .cloned()
        .collect();
    changed.dedup();
    Outcome {
        code: out.status.code().expect("an exit code"),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        changed,
    }
}

/// The file the slot names by default in a row of `pair` (the input is [`WITH_DATA`] in the
/// rows about the data it references).
fn first_file(spec: &Spec, slot: &str) -> &'static str {
    match slot {
        "ref" => REFERENCED,
        "-o" => OUTPUT,
        _ => spec.slots.iter().find(|(s, _)| *s == slot).unwrap().1,
    }
}

#[test]
fn no_command_writes_a_file_it_reads_or_writes_under_another_name() {
    let mut rows = 0;
    for spec in SPECS {
        for &(first, second) in spec.pairs {
            for relation in RELATIONS {
                for force in [false, true] {
                    if force && !spec.force {
                        continue;
                    }
                    let dir = fixture();
                    let file = first_file(spec, first);
                    let mut values = vec![(second, other_name(dir.path(), file, relation))];
                    match first {
                        "ref" => values.push(("", WITH_DATA.to_owned())),
                        "-o" => values.push(("-o", OUTPUT.to_owned())),
                        _ => {}
                    }
                    let mut args = command_line(spec, &values, (first, second));
                    if force {
                        args.push("--force".into());
                    }
                    let row = format!("{args:?} ({relation:?})");
                    let r = run(dir.path(), &args);
                    assert_eq!(r.code, 2, "{row}: {}", r.stderr);
                    assert!(
                        r.stderr.starts_with("error: `")
                            && r.stderr.contains("is the same file as `")
                            && r.stderr.ends_with("; nothing was written\n"),
                        "{row}: {}",
                        r.stderr
                    );
                    assert!(r.stderr.lines().count() == 1, "{row}: {}", r.stderr);
                    assert_eq!(r.changed, Vec::<String>::new(), "{row}");
                    rows += 1;
                }
            }
        }
    }
    // convert and print: 5 pairs × 4 relations × with and without --force; infer 2 × 4;
    // inline 3 × 4; fmt 1 × 4.
    assert_eq!(rows, 2 * 5 * 4 * 2 + 8 + 12 + 4);
}

#[test]
fn an_existing_unrelated_file_is_replaced_only_when_named_as_the_output_or_forced() {
    for spec in SPECS {
        for &(slot, _) in spec.slots {
            let written = slot == "-o" || spec.unnamed.contains(&slot);
            if !written {
                continue;
            }
            let dir = fixture();
            let mut args = command_line(spec, &[(slot, NOTES.to_owned())], ("-o", slot));
            if spec.unnamed.contains(&slot) {
                let r = run(dir.path(), &args);
                let row = format!("{args:?}");
                assert_eq!(r.code, 2, "{row}: {}", r.stderr);
                assert_eq!(
                    r.stderr,
                    format!(
                        "error: `{NOTES}` ({slot}) exists, and onnx-text replaces only a file \
                         named with -o: pass --force to replace it; nothing was written\n"
                    ),
                    "{row}"
                );
                assert_eq!(r.changed, Vec::<String>::new(), "{row}");
                args.push("--force".into());
            }
            // Named with -o, or forced: replaced, and nothing else but the row's other outputs.
            let r = run(dir.path(), &args);
            let row = format!("{args:?}");
            assert_eq!(r.code, 0, "{row}: {}", r.stderr);
            assert!(r.changed.contains(&NOTES.to_owned()), "{row}");
            let others: Vec<&String> = r.changed.iter().filter(|f| !args.contains(f)).collect();
            assert_eq!(others, Vec::<&String>::new(), "{row}");
        }
    }
}

/// The two cases of the issue that replaced a 102 MB model with its weights, exit code 0.
#[test]
fn the_input_is_never_its_own_external_data() {
    for args in [
        &["print", MODEL, "--external-data", MODEL][..],
        &[
            "convert",
            MODEL,
            "-o",
            "t.onnxtxt",
            "--external-data",
            MODEL,
        ],
    ] {
        let dir = fixture();
        let args: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
        let r = run(dir.path(), &args);
        assert_eq!(
            (r.code, r.stderr.as_str()),
            (
                2,
                "error: `m.onnx` (--external-data) is the same file as `m.onnx` (the input), \
                 which it reads; nothing was written\n"
            ),
            "{args:?}"
        );
        assert_eq!(r.changed, Vec::<String>::new());
    }
}

#[test]
fn fmt_refuses_a_read_only_file_and_leaves_it_whole() {
    let dir = fixture();
    let path = dir.path().join(TEXT);
    let mut permissions = std::fs::metadata(&path).unwrap().permissions();
    permissions.set_readonly(true); // 0444 on Unix
    std::fs::set_permissions(&path, permissions).unwrap();
    let args = vec!["fmt".to_owned(), TEXT.to_owned()];
    let r = run(dir.path(), &args);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            2,
            "error: `t.onnxtxt` (a file to format) is read-only; onnx-text does not replace it; \
             nothing was written\n"
        )
    );
    assert_eq!(r.changed, Vec::<String>::new());
    // `--check` and `--stdout` write nothing: a read-only file is fine for them.
    let args = vec!["fmt".to_owned(), "--stdout".to_owned(), TEXT.to_owned()];
    assert_eq!(run(dir.path(), &args).code, 0);
    // An output named with -o that is read-only is not replaced either.
    let args: Vec<String> = ["convert", MODEL, "-o", TEXT].map(String::from).to_vec();
    let r = run(dir.path(), &args);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("is read-only"), "{}", r.stderr);
    assert_eq!(r.changed, Vec::<String>::new());
}

/// What a row of [`KINDS`] needs before it runs.
enum Setup {
    Ready,
    /// A thread reads the FIFO `fifo` to its end.
    Reader(std::thread::JoinHandle<Vec<u8>>),
    /// The row cannot run here, for this reason.
    Skip(String),
}

/// A row of the table of the kinds of path: what `args` must do in a [`fixture`] that `setup`
/// prepared.
struct KindRow {
    setup: fn(&Path) -> Setup,
    args: &'static [&'static str],
    /// The file standard input is redirected from.
    stdin: Option<&'static str>,
    /// A limit on the size of the files the command writes, in blocks of 512 bytes (`ulimit -f`
    /// with SIGXFSZ ignored): a write past it fails with EFBIG, as on a full disk.
    file_limit: Option<u64>,
    code: i32,
    /// A part of standard error ("" for any).
    stderr: &'static str,
    /// The only files whose bytes may change: the outputs of a row that succeeds.
    changed: &'static [&'static str],
    /// What else the row checks, given what a FIFO's reader got.
    after: fn(&Path, Option<Vec<u8>>),
}

#[cfg(unix)]
fn make_node(dir: &Path, args: &[&str]) -> Result<(), String> {
    let out = Command::new(args[0])
        .args(&args[1..])
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", args[0]))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// A character device like `/dev/null` (1, 3), made in the row's folder: writes go nowhere.
#[cfg(unix)]
fn device(dir: &Path) -> Setup {
    match make_node(dir, &["mknod", "dev", "c", "1", "3"]) {
        Ok(()) => Setup::Ready,
        Err(why) => Setup::Skip(format!("mknod failed: {why}")),
    }
}

/// A FIFO, and a reader of everything written to it.
#[cfg(unix)]
fn fifo(dir: &Path) -> Setup {
    make_node(dir, &["mkfifo", "fifo"]).expect("mkfifo works everywhere the tests run");
    let path = dir.join("fifo");
    Setup::Reader(std::thread::spawn(move || {
        std::fs::read(&path).expect("the FIFO is read")
    }))
}

/// Ends a reader that no writer opened: opens the FIFO for writing without waiting (a reader
/// that is done no longer waits, and the open fails without blocking), then closes it.
#[cfg(unix)]
fn release(dir: &Path, reader: std::thread::JoinHandle<Vec<u8>>) -> Vec<u8> {
    use std::os::unix::fs::OpenOptionsExt;
    #[cfg(target_os = "linux")]
    const O_NONBLOCK: i32 = 0o4000;
    #[cfg(not(target_os = "linux"))]
    const O_NONBLOCK: i32 = 0x0004;
    if !reader.is_finished() {
        let _ = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(O_NONBLOCK)
            .open(dir.join("fifo"));
    }
    reader.join().unwrap()
}

fn symlink(dir: &Path, link: &str, target: &str) {
    #[cfg(unix)]
    std::os::unix::fs::symlink(target, dir.join(link)).unwrap();
    #[cfg(windows)]
    std::os::windows::fs::symlink_file(dir.join(target), dir.join(link)).unwrap();
}

fn is_symlink_to(dir: &Path, link: &str, target: &str) -> bool {
    std::fs::read_link(dir.join(link)).is_ok_and(|t| t == Path::new(target))
}

/// Both names are one file with two links, holding the same bytes.
#[cfg(unix)]
fn still_hard_linked(dir: &Path, a: &str, b: &str) {
    use std::os::unix::fs::MetadataExt;
    let (ma, mb) = (
        std::fs::metadata(dir.join(a)).unwrap(),
        std::fs::metadata(dir.join(b)).unwrap(),
    );
    assert_eq!((ma.ino(), ma.nlink()), (mb.ino(), 2), "{a} and {b}");
}

fn nothing_more(_: &Path, _: Option<Vec<u8>>) {}

/// The text `print m.onnx` writes on standard output.
fn printed_model(dir: &Path) -> Vec<u8> {
    let out = Command::new(BIN)
        .args(["print", MODEL])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    out.stdout
}

fn golden_data() -> Vec<u8> {
    std::fs::read(format!("{EXTERNAL}/saved-1024/model.bin")).unwrap()
}

#[cfg(unix)]
const KINDS: &[KindRow] = &[
    // A device named as an output is written into, never replaced by a regular file.
    KindRow {
        setup: device,
        args: &["convert", TEXT, "-o", "dev", "--to", "binary"],
        stdin: None,
        file_limit: None,
        code: 0,
        stderr: "",
        changed: &[],
        after: nothing_more,
    },
    KindRow {
        setup: device,
        args: &["print", MODEL, "-o", "dev"],
        stdin: None,
        file_limit: None,
        code: 0,
        stderr: "",
        changed: &[],
        after: nothing_more,
    },
    KindRow {
        setup: device,
        args: &[
            "print",
            MODEL,
            "-o",
            "new.onnxtxt",
            "--external-data",
            "dev",
            "--force",
        ],
        stdin: None,
        file_limit: None,
        code: 0,
        stderr: "",
        changed: &["new.onnxtxt"],
        after: nothing_more,
    },
    KindRow {
        setup: device,
        args: &[
            "print",
            MODEL,
            "-o",
            "new.onnxtxt",
            "--external-data",
            "dev",
        ],
        stdin: None,
        file_limit: None,
        code: 2,
        stderr: "error: `dev` (--external-data) exists, and onnx-text replaces only a file named with -o",
        changed: &[],
        after: nothing_more,
    },
    // A FIFO: its reader gets the bytes, and the FIFO stays.
    KindRow {
        setup: fifo,
        args: &["print", MODEL, "-o", "fifo"],
        stdin: None,
        file_limit: None,
        code: 0,
        stderr: "",
        changed: &[],
        after: |dir, read| assert_eq!(read.unwrap(), printed_model(dir)),
    },
    KindRow {
        setup: fifo,
        args: &[
            "convert",
            MODEL,
            "-o",
            "new.onnxtxt",
            "--external-data",
            "fifo",
            "--force",
        ],
        stdin: None,
        file_limit: None,
        code: 0,
        stderr: "",
        changed: &["new.onnxtxt"],
        after: |_, read| assert_eq!(read.unwrap(), golden_data()),
    },
    // Standard input redirected from a file is that file, --force or not.
    KindRow {
        setup: |_| Setup::Ready,
        args: &[
            "print",
            "-",
            "-o",
            OUTPUT,
            "--external-data",
            MODEL,
            "--force",
        ],
        stdin: Some(MODEL),
        file_limit: None,
        code: 2,
        stderr: "error: `m.onnx` (--external-data) is the same file as `<stdin>` (the input), which it reads; nothing was written\n",
        changed: &[],
        after: nothing_more,
    },
    KindRow {
        setup: |_| Setup::Ready,
        args: &["convert", "-", "-o", TEXT, "--force"],
        stdin: Some(TEXT),
        file_limit: None,
        code: 2,
        stderr: "error: `t.onnxtxt` (-o) is the same file as `<stdin>` (the input), which it reads; nothing was written\n",
        changed: &[],
        after: nothing_more,
    },
    KindRow {
        setup: |_| Setup::Ready,
        args: &["infer", "-", "-o", TEXT],
        stdin: Some(TEXT),
        file_limit: None,
        code: 2,
        stderr: "error: `t.onnxtxt` (-o) is the same file as `<stdin>` (the input)",
        changed: &[],
        after: nothing_more,
    },
    KindRow {
        setup: |_| Setup::Ready,
        args: &["inline", "-", "-o", TEXT],
        stdin: Some(TEXT),
        file_limit: None,
        code: 2,
        stderr: "error: `t.onnxtxt` (-o) is the same file as `<stdin>` (the input)",
        changed: &[],
        after: nothing_more,
    },
    // A symbolic link to the output: the file it names is written, and the link stays.
    KindRow {
        setup: |dir| {
            symlink(dir, "ln-out.onnxtxt", OUTPUT);
            Setup::Ready
        },
        args: &["convert", MODEL, "-o", "ln-out.onnxtxt"],
        stdin: None,
        file_limit: None,
        code: 0,
        stderr: "",
        changed: &[OUTPUT],
        after: |dir, _| assert!(is_symlink_to(dir, "ln-out.onnxtxt", OUTPUT)),
    },
    KindRow {
        setup: |dir| {
            symlink(dir, "ln-t.onnxtxt", TEXT);
            Setup::Ready
        },
        args: &["fmt", "ln-t.onnxtxt"],
        stdin: None,
        file_limit: None,
        code: 0,
        stderr: "",
        changed: &[TEXT],
        after: |dir, _| assert!(is_symlink_to(dir, "ln-t.onnxtxt", TEXT)),
    },
    KindRow {
        setup: |dir| {
            symlink(dir, "ln-out.onnxtxt", OUTPUT);
            symlink(dir, "ln-w.bin", NOTES);
            Setup::Ready
        },
        args: &[
            "print",
            MODEL,
            "-o",
            "ln-out.onnxtxt",
            "--external-data",
            "ln-w.bin",
            "--force",
        ],
        stdin: None,
        file_limit: None,
        code: 0,
        stderr: "",
        changed: &[NOTES, OUTPUT],
        after: |dir, _| {
            assert!(is_symlink_to(dir, "ln-out.onnxtxt", OUTPUT));
            assert!(is_symlink_to(dir, "ln-w.bin", NOTES));
            assert_eq!(std::fs::read(dir.join(NOTES)).unwrap(), golden_data());
        },
    },
    // A file with two hard links keeps them both.
    KindRow {
        setup: |dir| {
            std::fs::hard_link(dir.join(TEXT), dir.join("hl-t.onnxtxt")).unwrap();
            Setup::Ready
        },
        args: &["fmt", TEXT],
        stdin: None,
        file_limit: None,
        code: 0,
        stderr: "",
        changed: &["hl-t.onnxtxt", TEXT],
        after: |dir, _| still_hard_linked(dir, TEXT, "hl-t.onnxtxt"),
    },
    KindRow {
        setup: |dir| {
            std::fs::hard_link(dir.join(OUTPUT), dir.join("hl-out.onnxtxt")).unwrap();
            Setup::Ready
        },
        args: &["convert", MODEL, "-o", OUTPUT],
        stdin: None,
        file_limit: None,
        code: 0,
        stderr: "",
        changed: &["hl-out.onnxtxt", OUTPUT],
        after: |dir, _| still_hard_linked(dir, OUTPUT, "hl-out.onnxtxt"),
    },
    // A folder where a file is written: refused before anything is written.
    KindRow {
        setup: |dir| {
            std::fs::create_dir(dir.join("outdir")).unwrap();
            Setup::Ready
        },
        args: &[
            "convert",
            MODEL,
            "-o",
            "outdir",
            "--external-data",
            NOTES,
            "--force",
        ],
        stdin: None,
        file_limit: None,
        code: 2,
        stderr: "error: `outdir` (-o) is a folder, and onnx-text writes a file there; nothing was written\n",
        changed: &[],
        after: nothing_more,
    },
    KindRow {
        setup: |_| Setup::Ready,
        args: &[
            "print",
            MODEL,
            "-o",
            "new.onnxtxt",
            "--external-data",
            "sub",
            "--force",
        ],
        stdin: None,
        file_limit: None,
        code: 2,
        stderr: "error: `sub` (--external-data) is a folder, and onnx-text writes a file there; nothing was written\n",
        changed: &[],
        after: nothing_more,
    },
    // A failure between the two writes of a two-file command (the text is written, then the
    // data is past the limit): neither old file changes, and no temporary file is left.
    KindRow {
        setup: |_| Setup::Ready,
        args: &[
            "convert",
            MODEL,
            "-o",
            OUTPUT,
            "--external-data",
            NOTES,
            "--force",
        ],
        stdin: None,
        file_limit: Some(12),
        code: 2,
        stderr: "error: cannot write `notes.data`: File too large (os error 27); nothing was written\n",
        changed: &[],
        after: nothing_more,
    },
    KindRow {
        setup: |_| Setup::Ready,
        args: &[
            "print",
            MODEL,
            "-o",
            OUTPUT,
            "--external-data",
            NOTES,
            "--force",
        ],
        stdin: None,
        file_limit: Some(12),
        code: 2,
        stderr: "error: cannot write `notes.data`: File too large (os error 27); nothing was written\n",
        changed: &[],
        after: nothing_more,
    },
];

/// Runs a row's command in `dir`: with standard input from a file, or under a file size limit.
#[cfg(unix)]
fn run_row(dir: &Path, row: &KindRow) -> Outcome {
    let before = snapshot(dir);
    let mut command = match row.file_limit {
        // SIGXFSZ ignored (an ignored signal stays ignored across exec): the write fails with
        // EFBIG instead of killing the process.
        Some(blocks) => {
            let mut sh = Command::new("sh");
            sh.arg("-c")
                .arg(format!(
                    "trap '' XFSZ; ulimit -f {blocks}; exec \"$0\" \"$@\""
                ))
                .arg(BIN)
                .args(row.args);
            sh
        }
        None => {
            let mut command = Command::new(BIN);
            command.args(row.args);
            command
        }
    };
    if let Some(file) = row.stdin {
        command.stdin(std::fs::File::open(dir.join(file)).unwrap());
    }
    let out = command.current_dir(dir).output().unwrap();
    let after = snapshot(dir);
    let mut changed: Vec<String> = before
        .keys()
        .chain(after.keys())
        .filter(|k| before.get(*k) != after.get(*k))
        .cloned()
        .collect();
    changed.sort();
    changed.dedup();
    Outcome {
        code: out.status.code().expect("an exit code"),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        changed,
    }
}

/// Devices, FIFOs, standard input, links, folders and a failure halfway: each row changes no
/// byte of any file but the outputs it names, and leaves every link and special file as it was.
#[cfg(unix)]
#[test]
fn every_kind_of_path_is_written_through_or_refused_and_nothing_is_lost() {
    let mut rows = 0;
    for row in KINDS {
        let dir = fixture();
        let reader = match (row.setup)(dir.path()) {
            Setup::Ready => None,
            Setup::Reader(reader) => Some(reader),
            Setup::Skip(why) => {
                eprintln!("skipped {:?}: {why}", row.args);
                continue;
            }
        };
        let r = run_row(dir.path(), row);
        let read = reader.map(|reader| release(dir.path(), reader));
        let shown = format!("{:?} (stdin {:?})", row.args, row.stdin);
        assert_eq!(r.code, row.code, "{shown}: {}", r.stderr);
        assert!(r.stderr.contains(row.stderr), "{shown}: {}", r.stderr);
        assert_eq!(r.changed, row.changed, "{shown}: {}", r.stderr);
        (row.after)(dir.path(), read);
        rows += 1;
    }
    assert!(
        rows >= KINDS.len() - 4,
        "only the device rows may be skipped"
    );
}
