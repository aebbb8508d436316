//! Errors as a terminal user expects them: external data problems at their line and column and
//! one per file, one decode message in every command, the binary hint only for binary bytes,
//! control bytes escaped, a closed standard output, colour only on a terminal.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_onnx-text");
const EXTERNAL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/external");

struct Run {
    code: i32,
    stdout: Vec<u8>,
    stderr: String,
}

/// Runs the binary in `dir` with `args` and `env`, colour left to the terminal test.
fn run_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CLICOLOR");
    for (key, value) in env {
        command.env(key, value);
    }
    let out = command.stdin(Stdio::null()).output().unwrap();
    Run {
        code: out.status.code().expect("an exit code"),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn run(dir: &Path, args: &[&str]) -> Run {
    run_env(dir, args, &[])
}

fn golden(path: &str) -> Vec<u8> {
    std::fs::read(format!("{EXTERNAL}/{path}")).unwrap()
}

/// A text whose three large tensors are in `w.bin`, which is not there.
fn text_with_missing_data(dir: &Path) -> String {
    std::fs::write(dir.join("in.onnx"), golden("model.onnx")).unwrap();
    let r = run(
        dir,
        &[
            "convert",
            "in.onnx",
            "-o",
            "m.onnxtxt",
            "--external-data",
            "w.bin",
        ],
    );
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    std::fs::remove_file(dir.join("w.bin")).unwrap();
    std::fs::read_to_string(dir.join("m.onnxtxt")).unwrap()
}

/// The 1-based line and column of the first `needle` in `text`.
fn line_column(text: &str, needle: &str) -> (usize, usize) {
    let at = text.find(needle).unwrap();
    let line = text[..at].matches('\n').count() + 1;
    let column = at - text[..at].rfind('\n').map_or(0, |n| n + 1) + 1;
    (line, column)
}

#[test]
fn a_missing_data_file_is_one_error_at_its_first_tensor_with_the_count() {
    let dir = tempfile::tempdir().unwrap();
    let text = text_with_missing_data(dir.path());
    let tensors = text.matches("\"location\": \"w.bin\"").count();
    assert!(tensors >= 2, "{text}");
    let r = run(dir.path(), &["check", "m.onnxtxt"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    // The first tensor stored in w.bin, by its name where the text declares it.
    let first = text.find("\"location\": \"w.bin\"").unwrap();
    let declaration = &text[..first];
    let name_end = declaration.rfind(" = [").unwrap();
    let name_start = declaration[..name_end].rfind(' ').unwrap() + 1;
    let name = &declaration[name_start..name_end];
    let (line, column) = line_column(&text, &format!(" {name} = [")[1..]);
    assert_eq!(
        r.stderr.lines().next().unwrap(),
        format!(
            "error[external_data]: `w.bin` does not exist, and {tensors} tensors have their data \
             in it; the first is `{name}`"
        )
    );
    assert!(
        r.stderr
            .contains(&format!(" --> m.onnxtxt:{line}:{column}\n")),
        "{}",
        r.stderr
    );
    assert_eq!(r.stderr.matches("error[external_data]").count(), 1);
    assert!(
        r.stderr.ends_with("error: 1 problem in 1 file\n"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_short_data_file_is_one_error_too() {
    let dir = tempfile::tempdir().unwrap();
    let text = text_with_missing_data(dir.path());
    let tensors = text.matches("\"location\": \"w.bin\"").count();
    std::fs::write(dir.path().join("w.bin"), [0u8; 10]).unwrap();
    let r = run(dir.path(), &["check", "m.onnxtxt"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let head = r.stderr.lines().next().unwrap();
    assert!(
        head.starts_with(&format!(
            "error[external_data]: `w.bin` has 10 bytes, fewer than the offsets and lengths of \
             {tensors} tensors need; the first is `"
        )),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains(" --> m.onnxtxt:"), "{}", r.stderr);
    assert_eq!(r.stderr.matches("error[external_data]").count(), 1);
}

#[test]
fn a_truncated_binary_gets_one_message_in_every_command_with_path_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let model = golden("model.onnx");
    std::fs::write(dir.path().join("cut.onnx"), &model[..model.len() - 100]).unwrap();
    let mut messages = Vec::new();
    for args in [
        &["check", "cut.onnx"][..],
        &["print", "cut.onnx"],
        &["convert", "cut.onnx", "-o", "x.onnxtxt"],
        &["infer", "cut.onnx"],
        &["inline", "cut.onnx"],
    ] {
        let r = run(dir.path(), args);
        assert_eq!(r.code, 1, "{args:?}: {}", r.stderr);
        messages.push(r.stderr);
    }
    // `check` adds its count of problems; the message itself is the same everywhere.
    let first = &messages[0].lines().next().unwrap().to_owned();
    assert!(
        first.starts_with("error: `cut.onnx` is not a valid ONNX model (ModelProto): ModelProto."),
        "{first}"
    );
    assert!(first.contains(", at byte "), "{first}");
    assert!(first.contains("bytes, and the file has"), "{first}");
    for message in &messages {
        assert_eq!(message.lines().next().unwrap(), first);
    }
}

#[test]
fn the_binary_hint_comes_only_with_binary_bytes_and_control_bytes_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    // A Latin-1 byte in a comment of a text: a wrong byte, not a binary model.
    let mut latin1 = b"# caf\xe9\n<ir_version: 10, opset_import: [\"\" : 21]>\n".to_vec();
    latin1.extend_from_slice(b"g (float[2] x) => (float[2] y) { y = Relu(x) }\n");
    std::fs::write(dir.path().join("latin1.onnxtxt"), &latin1).unwrap();
    let r = run(dir.path(), &["check", "latin1.onnxtxt"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("latin1.onnxtxt:1:6"), "{}", r.stderr);
    assert!(!r.stderr.contains("binary"), "{}", r.stderr);
    // A binary model named as text: the hint.
    std::fs::write(dir.path().join("b.onnxtxt"), golden("model.onnx")).unwrap();
    for command in ["check", "fmt", "convert"] {
        let r = run(dir.path(), &[command, "b.onnxtxt"]);
        assert_eq!(r.code, 1, "{command}: {}", r.stderr);
        assert!(r.stderr.contains("is it a binary model?"), "{}", r.stderr);
    }
    // Control bytes on the quoted line (a terminal's "clear screen", a bell) come as escapes.
    let bytes = b"<ir_version: 10>\ng \x1b[2J\x07 \xff\n";
    std::fs::write(dir.path().join("c.onnxtxt"), bytes).unwrap();
    for command in ["check", "fmt", "convert"] {
        let r = run(dir.path(), &[command, "c.onnxtxt"]);
        assert_eq!(r.code, 1, "{command}: {}", r.stderr);
        let controls = |c: char| c.is_control() && c != '\n';
        assert!(!r.stderr.chars().any(controls), "{command}: {:?}", r.stderr);
        assert!(
            r.stderr.contains("2 | g \\x1b[2J\\x07 \u{fffd}\n"),
            "{command}: {}",
            r.stderr
        );
        assert!(r.stderr.contains("is it a binary model?"), "{}", r.stderr);
        // The caret is still under the bad byte's replacement character.
        let lines: Vec<&str> = r.stderr.lines().collect();
        let quoted = lines.iter().position(|l| l.starts_with("2 | ")).unwrap();
        let column = |line: &str, c: char| line.chars().position(|x| x == c);
        assert_eq!(
            column(lines[quoted], '\u{fffd}'),
            column(lines[quoted + 1], '^'),
            "{command}: {}",
            r.stderr
        );
    }
}

#[test]
fn a_closed_standard_output_ends_the_command_quietly() {
    let dir = tempfile::tempdir().unwrap();
    // A text of a few hundred kilobytes, more than a pipe holds.
    let mut text = String::from(
        "<ir_version: 10, opset_import: [\"\" : 21]>\ng (float[2] x0) => (float[2] y) {\n",
    );
    for i in 1..20_000 {
        text.push_str(&format!("  x{i} = Relu(x{})\n", i - 1));
    }
    text.push_str("  y = Relu(x19999)\n}\n");
    std::fs::write(dir.path().join("big.onnxtxt"), &text).unwrap();
    let mut child = Command::new(BIN)
        .args(["print", "big.onnxtxt"])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // `| head -1`: one line, then the reader goes.
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert_eq!(first, "<\n");
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).as_ref()
        ),
        (Some(0), "")
    );
}

#[test]
fn colour_on_a_terminal_only_and_never_with_no_color() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.onnxtxt"),
        "g (x) => (y) { y = Neg(q) }",
    )
    .unwrap();
    let piped = run(dir.path(), &["check", "bad.onnxtxt"]);
    assert_eq!(piped.code, 1);
    assert!(!piped.stderr.contains('\x1b'), "{:?}", piped.stderr);
    assert!(piped.stderr.starts_with("error["), "{}", piped.stderr);
    // As on a terminal (anstream's CLICOLOR_FORCE stands for one in a test).
    let forced = run_env(
        dir.path(),
        &["check", "bad.onnxtxt"],
        &[("CLICOLOR_FORCE", "1")],
    );
    assert!(forced.stderr.starts_with("\x1b["), "{:?}", forced.stderr);
    assert_eq!(strip_styles(&forced.stderr), piped.stderr);
    let no_color = run_env(
        dir.path(),
        &["check", "bad.onnxtxt"],
        &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")],
    );
    assert_eq!(no_color.stderr, piped.stderr);
}

/// `text` without its SGR escapes (`ESC [ ... m`).
fn strip_styles(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for d in chars.by_ref() {
                if d == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn lsp_help_lists_no_progress_option_and_the_others_do() {
    let dir = tempfile::tempdir().unwrap();
    let r = run(dir.path(), &["lsp", "--help"]);
    assert_eq!(r.code, 0);
    let help = String::from_utf8(r.stdout).unwrap();
    assert!(!help.contains("--no-progress"), "{help}");
    for command in ["fmt", "check", "convert", "print", "infer", "inline"] {
        let r = run(dir.path(), &[command, "--help"]);
        assert!(
            String::from_utf8(r.stdout)
                .unwrap()
                .contains("--no-progress"),
            "{command}"
        );
    }
    let r = run(dir.path(), &["lsp", "--no-progress"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn a_read_error_on_standard_input_is_not_mistaken_for_a_closed_output() {
    // A closed standard output ends quietly; an empty standard input is still an error.
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(BIN)
        .args(["print", "-"])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is empty"));
}
