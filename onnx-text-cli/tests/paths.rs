//! One rule for every path, as a table: every subcommand that writes a file × every pair of its
//! path arguments (a file it reads or writes, and a file it writes) × the ways two names can be
//! one file (the same path, a `..` form, a symbolic link, a hard link) and an existing unrelated
//! file. Each row runs the binary in a fresh folder and asserts the error (exit code and
//! message) and that no byte of any file in the folder changed.
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

/// Every file under `dir`: its bytes (a link: where it points), keyed by path.
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
            } else {
                files.insert(key, std::fs::read(&path).unwrap());
            }
        }
    }
    files
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
