//! The `onnx-text` binary run as a user runs it, on real files in a temporary directory.
//!
//! Expected texts and bytes come from the conformance corpus (`tests/corpus/`, printed and
//! parsed by onnx 1.23.2): `<case>.onnxtxt` is `onnx.printer.to_text` of `<case>.source.pb`, and
//! `<case>.pb` is what `onnx.parser` makes of that text.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_onnx-text");
const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus");

/// A fresh, empty directory for one test.
fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("onnx-text-cli")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

struct Run {
    code: i32,
    stdout: Vec<u8>,
    stderr: String,
}

impl Run {
    fn stdout_text(&self) -> String {
        String::from_utf8(self.stdout.clone()).expect("stdout is UTF-8")
    }
}

/// Runs the binary in `dir` with `args`, feeding `stdin`.
fn run(dir: &Path, args: &[&str], stdin: &[u8]) -> Run {
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code().expect("exit code"),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn corpus(case: &str, ext: &str) -> Vec<u8> {
    let path = format!("{CORPUS}/{case}.{ext}");
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The reference printer's text of a corpus case, as a file: with a final newline.
fn golden_file(case: &str) -> String {
    String::from_utf8(corpus(case, "onnxtxt")).unwrap() + "\n"
}

const CASE: &str = "backend/test_gemm_default_scalar_bias.model";

/// The model of CASE, written by hand: other spacing, a header on one line, no quotes needed.
const MESSY: &str = r#"<ir_version:7,opset_import:["":13],producer_name:"backend-test">
test_gemm_default_scalar_bias(float[2,3] a,float[3,4] b,float c)=>(float[2,4] y){y=Gemm(a,b,c)}
"#;

/// A model that parses but fails three checks: `q` is undefined (3:11), `t` is defined twice
/// (4:3), and Relu takes one input, not two (5:15).
const THREE_PROBLEMS: &str = "<ir_version: 10, opset_import: [\"\" : 21]>\ng (float x) => (float y) {\n  t = Abs(q)\n  t = Neg(x)\n  y = Relu(t, x)\n}\n";

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn the_messy_text_is_the_golden_model() {
    // The premise of the fmt tests: MESSY parses to the bytes the reference parser gives for
    // the golden text.
    let dir = temp_dir("premise");
    std::fs::write(dir.join("m.onnxtxt"), MESSY).unwrap();
    let r = run(&dir, &["convert", "m.onnxtxt"], b"");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        std::fs::read(dir.join("m.onnx")).unwrap(),
        corpus(CASE, "pb")
    );
}

#[test]
fn check_says_one_line_on_success_unless_quiet() {
    let dir = temp_dir("check-ok");
    std::fs::write(dir.join("model.onnxtxt"), golden_file(CASE)).unwrap();
    std::fs::write(dir.join("model.onnx"), corpus(CASE, "source.pb")).unwrap();
    let r = run(&dir, &["check", "model.onnxtxt", "model.onnx"], b"");
    assert_eq!(
        (r.code, r.stderr.as_str(), r.stdout.len()),
        (0, "2 files checked, no problems\n", 0)
    );
    let r = run(&dir, &["check", "model.onnxtxt"], b"");
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (0, "1 file checked, no problems\n")
    );
    for quiet in ["--quiet", "-q"] {
        let r = run(&dir, &["check", quiet, "model.onnxtxt", "model.onnx"], b"");
        assert_eq!((r.code, r.stderr.as_str(), r.stdout.len()), (0, "", 0));
    }
}

#[test]
fn check_decodes_binary_models_by_name_or_by_content() {
    let dir = temp_dir("check-binary");
    let bytes = corpus(CASE, "source.pb");
    // By the extension, and by the content on standard input and under an unknown extension.
    std::fs::write(dir.join("model.onnx"), &bytes).unwrap();
    std::fs::write(dir.join("model.bin"), &bytes).unwrap();
    for (args, stdin) in [
        (&["check", "model.onnx"][..], &[][..]),
        (&["check", "model.bin"], &[]),
        (&["check", "-"], bytes.as_slice()),
    ] {
        let r = run(&dir, args, stdin);
        assert_eq!(
            (r.code, r.stderr.as_str()),
            (0, "1 file checked, no problems\n"),
            "{args:?}"
        );
    }
    // Bytes that do not decode are named as such.
    std::fs::write(dir.join("junk.onnx"), b"\x0a\x05ab").unwrap();
    let r = run(&dir, &["check", "junk.onnx"], b"");
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .starts_with("error: `junk.onnx` is not a valid ONNX model"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_malformed_binary_model_gets_every_problem_at_its_place_in_the_printed_text() {
    let dir = temp_dir("check-binary-malformed");
    // Parses, so `convert --unchecked` writes it.
    std::fs::write(dir.join("bad.onnxtxt"), THREE_PROBLEMS).unwrap();
    let r = run(&dir, &["convert", "--unchecked", "bad.onnxtxt"], b"");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let printed = run(&dir, &["print", "bad.onnx"], b"").stdout_text();
    let r = run(&dir, &["check", "bad.onnx"], b"");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.is_empty());
    // Each problem points at its line and column in the text `print` shows.
    let line_of = |needle: &str| {
        let index = printed.lines().position(|l| l.contains(needle));
        index.unwrap_or_else(|| panic!("no `{needle}` in:\n{printed}")) + 1
    };
    let column_of = |line: usize, needle: &str| {
        printed.lines().nth(line - 1).unwrap().find(needle).unwrap() + 1
    };
    let abs = line_of("Abs");
    let neg = line_of("Neg");
    let relu = line_of("Relu");
    for (message, at) in [
        (
            "value `q` is used but never defined".to_owned(),
            format!("bad.onnx:{abs}:{}", column_of(abs, "q)")),
        ),
        (
            format!("`t` is already defined at line {abs}"),
            format!("bad.onnx:{neg}:{}", column_of(neg, "t ")),
        ),
        (
            "`Relu` takes 1 input, found 2".to_owned(),
            format!("bad.onnx:{relu}:{}", column_of(relu, "x)")),
        ),
    ] {
        let expected = format!("{message}\n --> {at}\n");
        assert!(
            r.stderr.contains(&expected),
            "{expected}\nnot in:\n{}",
            r.stderr
        );
    }
    assert!(
        r.stderr.contains(
            "note: `bad.onnx` is binary: the positions are in its text, as `onnx-text print bad.onnx` shows it"
        ),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.ends_with("error: 3 problems in 1 file\n"),
        "{}",
        r.stderr
    );
}

/// The one corpus binary that does not check clean (see below).
const FLEX_ATTENTION: &str = "schema-functions/ai.onnx.preview-FlexAttention-1-ctx1.function";

/// The corpus folders of real binary messages: onnx's backend test models, the models shipped in
/// its wheel, and its operator-schema function bodies. (`printer/` holds messages made to test
/// the printer, malformed on purpose; the other folders hold texts only.)
const BINARY_DIRS: [&str; 3] = ["backend", "shipped", "schema-functions"];

/// Every binary message of the corpus (`<case>.source.pb`, what the reference printer printed)
/// checks clean in one run of `check` per kind, as its text does (`check_corpus.rs` in
/// onnx-syntax checks the texts), but for one flagged upstream body.
#[test]
fn every_corpus_binary_checks_clean() {
    let mut by_kind: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for dir in BINARY_DIRS {
        for file in std::fs::read_dir(Path::new(CORPUS).join(dir)).unwrap() {
            let path = file.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap();
            let Some(stem) = name.strip_suffix(".source.pb") else {
                continue;
            };
            let kind = stem.rsplit('.').next().unwrap();
            by_kind
                .entry(kind.to_owned())
                .or_default()
                .push(path.to_str().unwrap().to_owned());
        }
    }
    // onnx 1.23.2's own body of this function uses default-domain operators without importing
    // the domain; onnx's checker rejects it too, and `check_corpus.rs` flags its text the same
    // way. Its binary must get that one problem, and only it.
    let flagged = format!("{CORPUS}/{FLEX_ATTENTION}.source.pb");
    let functions = by_kind.get_mut("function").unwrap();
    let before = functions.len();
    functions.retain(|path| *path != flagged);
    assert_eq!(functions.len(), before - 1, "{flagged} is in the corpus");
    let dir = temp_dir("corpus-binaries");
    let r = run(&dir, &["check", "--kind", "function", &flagged], b"");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "operator `Shape` is in domain \"\", which function `FlexAttention` does not import"
        ),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.ends_with("error: 1 problem in 1 file\n"),
        "{}",
        r.stderr
    );

    let mut checked = 1;
    for (kind, files) in &by_kind {
        let mut args = vec!["check", "--kind", kind];
        args.extend(files.iter().map(String::as_str));
        let r = run(&dir, &args, b"");
        let summary = format!(
            "{} file{} checked, no problems\n",
            files.len(),
            if files.len() == 1 { "" } else { "s" }
        );
        assert_eq!(
            (r.code, r.stderr.as_str()),
            (0, summary.as_str()),
            "--kind {kind}"
        );
        checked += files.len();
    }
    assert_eq!(by_kind.keys().collect::<Vec<_>>(), ["function", "model"]);
    assert!(checked > 2000, "only {checked} corpus binaries");
}

#[test]
fn check_reports_a_syntax_error_with_file_line_column_and_snippet() {
    let dir = temp_dir("check-syntax");
    let text = "<ir_version: 10, opset_import: [\"\" : 21]>\ng (float x) => (float y) {\n  y = Relu(x);\n}\n";
    std::fs::write(dir.join("broken.onnxtxt"), text).unwrap();
    let r = run(&dir, &["check", "broken.onnxtxt"], b"");
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .contains("error: expected a node or `}`, found `;`\n --> broken.onnxtxt:3:14\n"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("3 |   y = Relu(x);\n"), "{}", r.stderr);
    assert!(
        r.stderr.contains("error: 1 problem in 1 file"),
        "{}",
        r.stderr
    );
}

#[test]
fn check_reports_every_semantic_problem_of_every_file() {
    let dir = temp_dir("check-semantic");
    std::fs::write(dir.join("bad.onnxtxt"), THREE_PROBLEMS).unwrap();
    std::fs::write(dir.join("good.onnxtxt"), golden_file(CASE)).unwrap();
    let r = run(&dir, &["check", "bad.onnxtxt", "good.onnxtxt"], b"");
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .contains("value `q` is used but never defined\n --> bad.onnxtxt:3:11"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains(" --> bad.onnxtxt:4:3"), "{}", r.stderr);
    assert!(r.stderr.contains(" --> bad.onnxtxt:5:15"), "{}", r.stderr);
    assert!(!r.stderr.contains("good.onnxtxt"), "{}", r.stderr);
    assert!(
        r.stderr.contains("error: 3 problems in 1 file"),
        "{}",
        r.stderr
    );
}

#[test]
fn check_reads_standard_input() {
    let dir = temp_dir("check-stdin");
    let r = run(&dir, &["check", "-"], b"g (x) => (y) { y = Neg(x) }");
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains(" --> <stdin>:1:20"), "{}", r.stderr);
    let ok = run(&dir, &["check", "--kind", "node", "-"], b"y = Neg(x)");
    assert_eq!(ok.code, 0, "{}", ok.stderr);
}

#[test]
fn a_missing_file_is_an_io_error_naming_the_file() {
    let dir = temp_dir("missing");
    for args in [
        &["check", "nope.onnxtxt"][..],
        &["fmt", "nope.onnxtxt"],
        &["convert", "nope.onnxtxt"],
        &["print", "nope.onnx"],
    ] {
        let r = run(&dir, args, b"");
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(
            r.stderr.starts_with("error: cannot read `nope.onnx"),
            "{args:?}: {}",
            r.stderr
        );
    }
}

#[test]
fn usage_errors_exit_with_2() {
    let dir = temp_dir("usage");
    assert_eq!(run(&dir, &[], b"").code, 2);
    assert_eq!(run(&dir, &["fmt"], b"").code, 2);
    assert_eq!(run(&dir, &["frobnicate"], b"").code, 2);
    assert_eq!(run(&dir, &["fmt", "--check", "--stdout", "x"], b"").code, 2);
    assert_eq!(run(&dir, &["--help"], b"").code, 0);
}

#[test]
fn fmt_check_lists_unformatted_files_and_changes_nothing() {
    let dir = temp_dir("fmt-check");
    std::fs::write(dir.join("messy.onnxtxt"), MESSY).unwrap();
    std::fs::write(dir.join("tidy.onnxtxt"), golden_file(CASE)).unwrap();
    let r = run(
        &dir,
        &["fmt", "--check", "messy.onnxtxt", "tidy.onnxtxt"],
        b"",
    );
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stderr,
        "would reformat messy.onnxtxt\n1 file is not formatted\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("messy.onnxtxt")).unwrap(),
        MESSY
    );
    let r = run(&dir, &["fmt", "--check", "tidy.onnxtxt"], b"");
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
}

#[test]
fn fmt_rewrites_in_place_to_the_reference_layout() {
    let dir = temp_dir("fmt-in-place");
    std::fs::write(dir.join("m.onnxtxt"), MESSY).unwrap();
    let r = run(&dir, &["fmt", "m.onnxtxt"], b"");
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    assert_eq!(
        std::fs::read_to_string(dir.join("m.onnxtxt")).unwrap(),
        golden_file(CASE)
    );
    assert_eq!(files_in(&dir), ["m.onnxtxt"]); // no temporary file left behind
    let again = run(&dir, &["fmt", "--check", "m.onnxtxt"], b"");
    assert_eq!(again.code, 0);
}

#[test]
fn fmt_to_standard_output() {
    let dir = temp_dir("fmt-stdout");
    let r = run(&dir, &["fmt", "-"], MESSY.as_bytes());
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout_text(), golden_file(CASE));
    std::fs::write(dir.join("m.onnxtxt"), MESSY).unwrap();
    let r = run(&dir, &["fmt", "--stdout", "m.onnxtxt"], b"");
    assert_eq!(r.stdout_text(), golden_file(CASE));
    assert_eq!(
        std::fs::read_to_string(dir.join("m.onnxtxt")).unwrap(),
        MESSY
    );
}

#[test]
fn fmt_keeps_comments_in_their_places() {
    let dir = temp_dir("fmt-comments");
    let commented = r#"# the gemm test
<ir_version:7,opset_import:["":13],
  # who made it
  producer_name:"backend-test">
test_gemm_default_scalar_bias(float[2,3] a,float[3,4] b, # the weights
  float c)=>(float[2,4] y){
    # one node
    y=Gemm(a,b,c)   # y = a b + c
}
"#;
    std::fs::write(dir.join("c.onnxtxt"), commented).unwrap();
    let r = run(&dir, &["fmt", "c.onnxtxt"], b"");
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let formatted = r#"# the gemm test
<
   ir_version: 7,
   opset_import: ["" : 13],
   # who made it
   producer_name: "backend-test"
>
test_gemm_default_scalar_bias (float[2,3] a, float[3,4] b, # the weights
   float c) => (float[2,4] y) {
   # one node
   y = Gemm (a, b, c) # y = a b + c
}
"#;
    assert_eq!(
        std::fs::read_to_string(dir.join("c.onnxtxt")).unwrap(),
        formatted
    );
    // The model is the reference's, and the formatted file is formatted.
    let r = run(&dir, &["convert", "c.onnxtxt", "-o", "c.onnx"], b"");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        std::fs::read(dir.join("c.onnx")).unwrap(),
        corpus(CASE, "pb")
    );
    let again = run(&dir, &["fmt", "--check", "c.onnxtxt"], b"");
    assert_eq!((again.code, again.stderr.as_str()), (0, ""));
}

#[test]
fn fmt_keeps_the_run_and_check_lines_of_an_onnx_mlir_lit_test() {
    let dir = temp_dir("fmt-lit-test");
    let lit_test = r#"// RUN: onnx-mlir --EmitONNXBasic --printIR %s | FileCheck %s

// Adds two vectors.
<ir_version: 8, opset_import: ["" : 16]>
test_add (float[2] x, float[2] y) => (float[2] z) {
  z = Add(x, y)  // the sum
}

// CHECK-LABEL:  func.func @main_graph
// CHECK:        onnx.Add
"#;
    std::fs::write(dir.join("add.onnxtext"), lit_test).unwrap();
    let r = run(&dir, &["fmt", "--check", "add.onnxtext"], b"");
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stderr,
        "would reformat add.onnxtext\n1 file is not formatted\n"
    );
    let r = run(&dir, &["fmt", "add.onnxtext"], b"");
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let formatted = r#"// RUN: onnx-mlir --EmitONNXBasic --printIR %s | FileCheck %s

// Adds two vectors.
<
   ir_version: 8,
   opset_import: ["" : 16]
>
test_add (float[2] x, float[2] y) => (float[2] z) {
   z = Add (x, y) // the sum
}

// CHECK-LABEL:  func.func @main_graph
// CHECK:        onnx.Add
"#;
    assert_eq!(
        std::fs::read_to_string(dir.join("add.onnxtext")).unwrap(),
        formatted
    );
    let again = run(&dir, &["fmt", "--check", "add.onnxtext"], b"");
    assert_eq!((again.code, again.stderr.as_str()), (0, ""));
}

#[test]
fn fmt_leaves_files_with_syntax_errors_alone() {
    let dir = temp_dir("fmt-refuses");
    let bad = "# a comment\ng (x) => (y) { y = }";
    std::fs::write(dir.join("bad.onnxtxt"), bad).unwrap();
    std::fs::write(dir.join("good.onnxtxt"), MESSY).unwrap();
    let r = run(&dir, &["fmt", "bad.onnxtxt", "good.onnxtxt"], b"");
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains(" --> bad.onnxtxt:2:20"), "{}", r.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.join("bad.onnxtxt")).unwrap(),
        bad
    );
    // The other file is formatted all the same.
    assert_eq!(
        std::fs::read_to_string(dir.join("good.onnxtxt")).unwrap(),
        golden_file(CASE)
    );
    assert_eq!(files_in(&dir), ["bad.onnxtxt", "good.onnxtxt"]);
}

#[test]
fn fmt_formats_a_function_library() {
    let dir = temp_dir("fmt-functions");
    let lib = "<domain: \"my\", opset_import: [\"\" : 21]> Square (x) => (y) { y = Mul(x, x) }\n\
               <domain: \"my\", opset_import: [\"\" : 21, \"my\" : 1]> Quad (x) => (y) { s = my.Square(x) y = my.Square(s) }\n";
    let r = run(&dir, &["fmt", "--kind", "functions", "-"], lib.as_bytes());
    assert_eq!(r.code, 0, "{}", r.stderr);
    let expected = "<\n  domain: \"my\",\n  opset_import: [\"\" : 21]\n>\nSquare (x) => (y)\n{\n   y = Mul (x, x)\n}\n\
                    <\n  domain: \"my\",\n  opset_import: [\"\" : 21,\"my\" : 1]\n>\nQuad (x) => (y)\n{\n   s = my.Square (x)\n   y = my.Square (s)\n}\n";
    assert_eq!(r.stdout_text(), expected);
}

#[test]
fn every_entry_point_is_a_kind_and_lists_have_no_binary_form() {
    let dir = temp_dir("kinds");
    let r = run(
        &dir,
        &["fmt", "--kind", "node_list", "-"],
        b"{ t = Abs(x)  y = Neg(t) }",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout_text(), "{\n   t = Abs (x)\n   y = Neg (t)\n}\n");
    let r = run(
        &dir,
        &["fmt", "--kind", "nodes", "-"],
        b"t = Abs(x)  y = Neg(t)",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout_text(), "   t = Abs (x)\n   y = Neg (t)\n");
    let r = run(
        &dir,
        &["check", "--kind", "nodes", "-"],
        b"y = Neg(t)  t = Abs(x)",
    );
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("error[use_before_definition]"),
        "{}",
        r.stderr
    );
    let r = run(
        &dir,
        &[
            "convert", "--kind", "nodes", "--to", "binary", "-", "-o", "n.onnx",
        ],
        b"y = Neg(x)",
    );
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("a list of nodes has no binary form"),
        "{}",
        r.stderr
    );
    let r = run(&dir, &["check", "--kind", "tensor", "-"], b"");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("node_list"), "{}", r.stderr);
}

#[test]
fn binary_round_trip_through_text() {
    // source.pb (a model from the onnx wheel) → text → binary: the text is the reference
    // printer's, and the binary is what the reference parser makes of that text.
    let dir = temp_dir("round-trip");
    std::fs::write(dir.join("model.onnx"), corpus(CASE, "source.pb")).unwrap();
    let r = run(&dir, &["convert", "model.onnx"], b"");
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    assert_eq!(
        std::fs::read_to_string(dir.join("model.onnxtxt")).unwrap(),
        golden_file(CASE)
    );
    let r = run(&dir, &["convert", "model.onnxtxt", "-o", "again.onnx"], b"");
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    assert_eq!(
        std::fs::read(dir.join("again.onnx")).unwrap(),
        corpus(CASE, "pb")
    );
    assert_eq!(
        files_in(&dir),
        ["again.onnx", "model.onnx", "model.onnxtxt"]
    );
}

#[test]
fn round_trips_of_larger_models_keep_every_byte() {
    let dir = temp_dir("round-trip-large");
    for case in [
        "shipped/light-light_inception_v1.model",
        "backend/test_loop11.model",
        "printer/floats.model",
        "printer/lossy-no-ir-version.model",
    ] {
        // The reference parser's bytes (.pb) → text → the same bytes.
        std::fs::write(dir.join("in.onnx"), corpus(case, "pb")).unwrap();
        let r = run(&dir, &["convert", "in.onnx", "-o", "mid.onnxtxt"], b"");
        assert_eq!(r.code, 0, "{case}: {}", r.stderr);
        // `printer/floats.model` calls operators onnx does not have, on purpose.
        let args = ["convert", "--unchecked", "mid.onnxtxt", "-o", "out.onnx"];
        let r = run(&dir, &args, b"");
        assert_eq!(r.code, 0, "{case}: {}", r.stderr);
        assert_eq!(
            std::fs::read(dir.join("out.onnx")).unwrap(),
            corpus(case, "pb"),
            "{case}"
        );
    }
}

#[test]
fn convert_with_pipes_sniffs_the_format() {
    let dir = temp_dir("convert-pipes");
    let r = run(&dir, &["convert", "-", "-o", "m.onnx"], MESSY.as_bytes());
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        std::fs::read(dir.join("m.onnx")).unwrap(),
        corpus(CASE, "pb")
    );
    let r = run(&dir, &["convert", "-"], &corpus(CASE, "source.pb"));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout_text(), golden_file(CASE));
    let r = run(
        &dir,
        &["convert", "--to", "binary", "-", "-o", "-"],
        MESSY.as_bytes(),
    );
    assert_eq!(r.stdout, corpus(CASE, "pb"));
}

#[test]
fn a_bad_input_never_leaves_an_output_file() {
    let dir = temp_dir("no-partial-output");
    std::fs::write(dir.join("bad.onnxtxt"), "g (x) => (y) { y = Neg(x) ").unwrap();
    std::fs::write(dir.join("bad.onnx"), b"\x0a\xff\xff\xff\xff\x0f").unwrap();
    let r = run(&dir, &["convert", "bad.onnxtxt", "-o", "out.onnx"], b"");
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains(" --> bad.onnxtxt:1:27"), "{}", r.stderr);
    let r = run(&dir, &["convert", "bad.onnx", "-o", "out.onnxtxt"], b"");
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .starts_with("error: `bad.onnx` is not a valid ONNX model"),
        "{}",
        r.stderr
    );
    assert_eq!(files_in(&dir), ["bad.onnx", "bad.onnxtxt"]);
    // An existing output stays as it was.
    std::fs::write(dir.join("keep.onnx"), b"old").unwrap();
    let r = run(&dir, &["convert", "bad.onnxtxt", "-o", "keep.onnx"], b"");
    assert_eq!(r.code, 1);
    assert_eq!(std::fs::read(dir.join("keep.onnx")).unwrap(), b"old");
}

#[test]
fn convert_runs_the_checks_unless_unchecked() {
    let dir = temp_dir("convert-check");
    // Three problems: no opset import, an untyped output, an undefined `q`.
    std::fs::write(dir.join("m.onnxtxt"), "g (x) => (y) { y = Neg(q) }").unwrap();
    // By default, as the macros do, and as the old --check did.
    for args in [
        &["convert", "m.onnxtxt"][..],
        &["convert", "--check", "m.onnxtxt"],
    ] {
        let checked = run(&dir, args, b"");
        assert_eq!(checked.code, 1, "{args:?}");
        assert!(
            checked.stderr.contains(" --> m.onnxtxt:1:24"),
            "{}",
            checked.stderr
        );
        assert_eq!(files_in(&dir), ["m.onnxtxt"]);
    }
    // --allow turns off the checks it names, and only those.
    let r = run(
        &dir,
        &["convert", "--allow", "undefined_value", "m.onnxtxt"],
        b"",
    );
    assert_eq!(r.code, 1);
    assert!(!r.stderr.contains("1:24"), "{}", r.stderr);
    assert_eq!(files_in(&dir), ["m.onnxtxt"]);
    // --unchecked converts a model malformed on purpose.
    let unchecked = run(&dir, &["convert", "--unchecked", "m.onnxtxt"], b"");
    assert_eq!((unchecked.code, unchecked.stderr.as_str()), (0, ""));
    assert_eq!(files_in(&dir), ["m.onnx", "m.onnxtxt"]);
    let r = run(
        &dir,
        &["convert", "--unchecked", "--check", "m.onnxtxt"],
        b"",
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn print_shows_binary_models_as_text() {
    let dir = temp_dir("print");
    std::fs::write(dir.join("model.onnx"), corpus(CASE, "source.pb")).unwrap();
    let r = run(&dir, &["print", "model.onnx"], b"");
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    assert_eq!(r.stdout_text(), golden_file(CASE));
    let r = run(&dir, &["print", "-"], &corpus(CASE, "source.pb"));
    assert_eq!(r.stdout_text(), golden_file(CASE));
}

#[test]
fn print_reference_style_matches_onnx_printer_where_lossless_keeps_more() {
    // A schema function whose doc string the reference printer drops.
    let dir = temp_dir("print-reference");
    let case = "schema-functions/ai.onnx-Relu-14.function";
    std::fs::write(dir.join("f.pb"), corpus(case, "source.pb")).unwrap();
    let reference = run(
        &dir,
        &["print", "--kind", "function", "--reference", "f.pb"],
        b"",
    );
    assert_eq!(reference.code, 0, "{}", reference.stderr);
    assert_eq!(reference.stdout_text(), golden_file(case));
    let lossless = run(&dir, &["print", "--kind", "function", "f.pb"], b"");
    assert!(
        lossless
            .stdout_text()
            .contains("  doc_string: \"\nRelu takes one input data"),
        "{}",
        lossless.stdout_text()
    );
}

#[test]
fn print_rejects_bytes_that_are_not_a_model() {
    let dir = temp_dir("print-bad");
    std::fs::write(dir.join("junk.onnx"), b"\x0a\x05ab").unwrap();
    let r = run(&dir, &["print", "junk.onnx"], b"");
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .starts_with("error: `junk.onnx` is not a valid ONNX model"),
        "{}",
        r.stderr
    );
    assert!(r.stdout.is_empty());
}

#[test]
fn bytes_that_are_not_utf8_get_the_line_and_column_of_the_first_bad_byte() {
    let dir = temp_dir("not-utf8");
    let text = b"<ir_version: 10, opset_import: [\"\" : 21]>\ng (float x) => (float y) {\n  y = Relu(x) # caf\xe9\n}\n";
    std::fs::write(dir.join("latin1.onnxtxt"), text).unwrap();
    for args in [
        &["check", "latin1.onnxtxt"][..],
        &["fmt", "--check", "latin1.onnxtxt"],
        &["convert", "latin1.onnxtxt", "-o", "out.onnx"],
    ] {
        let r = run(&dir, args, b"");
        assert_eq!(r.code, 1, "{args:?}: {}", r.stderr);
        assert!(
            r.stderr.starts_with(
                "error: invalid UTF-8: 0xe9 is not a character\n --> latin1.onnxtxt:3:20\n"
            ),
            "{args:?}: {}",
            r.stderr
        );
        // One Latin-1 byte in a comment: a text with a wrong byte, not a binary model.
        assert!(!r.stderr.contains("binary"), "{}", r.stderr);
    }
    assert!(!dir.join("out.onnx").exists());
    // The same bytes on standard input, and cut inside a character at the end.
    let r = run(&dir, &["check", "-"], b"g () => () {}\n\xe2\x82");
    assert!(
        r.stderr.starts_with(
            "error: invalid UTF-8: the input ends inside a character (0xe2 0x82)\n --> <stdin>:2:1\n"
        ),
        "{}",
        r.stderr
    );
}

#[test]
fn a_byte_order_mark_is_an_error_and_crlf_line_ends_are_white_space() {
    let dir = temp_dir("bom-crlf");
    let lf = "<ir_version: 10, opset_import: [\"\" : 21]>\ng (float x) => (float y) {\n  y = Relu(x)\n}\n";
    let crlf = lf.replace('\n', "\r\n");
    std::fs::write(dir.join("crlf.onnxtxt"), &crlf).unwrap();
    std::fs::write(dir.join("lf.onnxtxt"), lf).unwrap();
    std::fs::write(dir.join("bom.onnxtxt"), format!("\u{feff}{lf}")).unwrap();
    let r = run(&dir, &["check", "crlf.onnxtxt"], b"");
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (0, "1 file checked, no problems\n")
    );
    for name in ["crlf", "lf"] {
        let r = run(&dir, &["convert", &format!("{name}.onnxtxt")], b"");
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    assert_eq!(
        std::fs::read(dir.join("crlf.onnx")).unwrap(),
        std::fs::read(dir.join("lf.onnx")).unwrap()
    );
    let r = run(&dir, &["check", "bom.onnxtxt"], b"");
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.starts_with(
            "error: unexpected byte order mark (U+FEFF): ONNX text is UTF-8 without a BOM\n --> bom.onnxtxt:1:1\n"
        ),
        "{}",
        r.stderr
    );
}

#[test]
fn infer_writes_the_inferred_shapes_as_text_or_binary() {
    let dir = temp_dir("infer");
    let text = "<ir_version: 10, opset_import: [\"\" : 21]>\ng (float[N, 128] x, float[128, 10] w) => (y) {\n  t = MatMul(x, w)\n  y = Relu(t)\n}\n";
    std::fs::write(dir.join("m.onnxtxt"), text).unwrap();
    let r = run(&dir, &["infer", "m.onnxtxt"], b"");
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let out = r.stdout_text();
    assert!(out.contains("=> (float[N,10] y)"), "{out}");
    assert!(out.contains("<float[N,10] t>"), "{out}");

    // Binary in, binary out: the same model as the text output, parsed. The output's type is
    // what infer adds: the check of it is off for the conversion.
    let args = [
        "convert",
        "--allow",
        "missing_type",
        "m.onnxtxt",
        "-o",
        "m.onnx",
    ];
    let r = run(&dir, &args, b"");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = run(&dir, &["infer", "m.onnx", "-o", "inferred.onnx"], b"");
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let bytes = std::fs::read(dir.join("inferred.onnx")).unwrap();
    let decoded = <onnx_text::ModelProto as onnx_text::prost::Message>::decode(&bytes[..]).unwrap();
    assert_eq!(decoded, onnx_text::parse_model(&out).unwrap());
}

#[test]
fn infer_reports_shape_errors_with_their_position() {
    let dir = temp_dir("infer-error");
    let text = "<ir_version: 10, opset_import: [\"\" : 21]>\ng (float[N, 128] x, float[64, 10] w) => (y) {\n  y = MatMul(x, w)\n}\n";
    std::fs::write(dir.join("bad.onnxtxt"), text).unwrap();
    let r = run(&dir, &["infer", "bad.onnxtxt"], b"");
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("error[incompatible_shapes]"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains(" --> bad.onnxtxt:3:17"), "{}", r.stderr);
    let r = run(&dir, &["check", "bad.onnxtxt"], b"");
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("inner dims differ: [N, 128] by [64, 10]"),
        "{}",
        r.stderr
    );
}

const LOCAL_CALL: &str = r#"<ir_version: 10, opset_import: ["" : 21, "local" : 1]>
g (float[N] x) => (float[N] y) { t = local.Sq(x)  y = my.Quad(t) }
<domain: "local", opset_import: ["" : 21]> Sq (a) => (b) { b = Mul(a, a) }
"#;

const LIBRARY: &str = r#"<domain: "my", opset_import: ["" : 21, "my" : 1]> Quad (a) => (b) { s = my.Half(a)  b = LeakyRelu(s) }
<domain: "my", opset_import: ["" : 21]> Half (a) => (b) { h = Constant <value_float = 0.5> ()  b = Mul(a, h) }
"#;

#[test]
fn inline_writes_text_or_binary_and_reports_on_stderr() {
    let dir = temp_dir("inline");
    std::fs::write(dir.join("m.onnxtxt"), LOCAL_CALL).unwrap();
    std::fs::write(dir.join("lib.onnxtxt"), LIBRARY).unwrap();
    let args = [
        "inline",
        "m.onnxtxt",
        "--library",
        "lib.onnxtxt",
        "--expand",
        "LeakyRelu",
    ];
    let r = run(&dir, &args, b"");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        "inlined 1 call of `LeakyRelu`\ninlined 1 call of `local.Sq`\ninlined 1 call of `my.Half`\n\
         inlined 1 call of `my.Quad`\nremoved `local.Sq`\n"
    );
    let text = r.stdout_text();
    assert!(text.starts_with("<\n   ir_version: 10,"), "{text}");
    assert!(!text.contains("local.") && !text.contains("my.") && !text.contains("LeakyRelu ("));
    // The text output is a valid model, and the binary output is its bytes.
    let checked = run(&dir, &["check", "-"], text.as_bytes());
    assert_eq!(checked.code, 0, "{}", checked.stderr);
    let r = run(&dir, &[&args[..], &["-o", "out.onnx"]].concat(), b"");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let printed = run(&dir, &["print", "out.onnx"], b"");
    assert_eq!(printed.stdout_text(), text);
    // Binary input works as well.
    let r = run(&dir, &["inline", "out.onnx"], b"");
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    assert_eq!(r.stdout_text(), text);
}

#[test]
fn inline_errors_name_the_file_and_the_call() {
    let dir = temp_dir("inline-errors");
    std::fs::write(
        dir.join("rec.onnxtxt"),
        r#"<opset_import: ["" : 21, "local" : 1]> g (x) => (y) { y = local.F(x) }
<domain: "local", opset_import: ["" : 21, "local" : 1]> F (a) => (b) { b = local.F(a) }"#,
    )
    .unwrap();
    let r = run(&dir, &["inline", "rec.onnxtxt", "-o", "out.onnx"], b"");
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stderr,
        "error: `rec.onnxtxt`: recursive function call `local.F` -> `local.F` at graph \"g\" > \
         node 0 (y = local.F) > function `local.F` > node 0 (y = local.F)\n"
    );
    assert_eq!(files_in(&dir), ["rec.onnxtxt"], "no output on error");

    std::fs::write(dir.join("m.onnxtxt"), LOCAL_CALL).unwrap();
    let r = run(&dir, &["inline", "m.onnxtxt", "--expand", "Gelu"], b"");
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stderr,
        "error: `m.onnxtxt`: `Gelu` is not one of the standard operators with a static function body\n"
    );
    std::fs::write(dir.join("bad.onnxtxt"), "F (x) => (y) { y = Abs(x) ").unwrap();
    let r = run(
        &dir,
        &["inline", "m.onnxtxt", "--library", "bad.onnxtxt"],
        b"",
    );
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains(" --> bad.onnxtxt:1:"), "{}", r.stderr);
}

#[test]
fn check_looks_for_external_data_in_the_binary_models_folder_only() {
    let dir = temp_dir("check-external");
    std::fs::create_dir_all(dir.join("models")).unwrap();
    std::fs::write(dir.join("models/w.bin"), [0u8; 8]).unwrap();
    std::fs::write(dir.join("outside.bin"), [0u8; 8]).unwrap();
    let model = |location: &str| {
        format!(
            "<ir_version: 10, opset_import: [\"\" : 21]>\n\
             g (float[2] x) => (float[2] y) <float[2] w = [\"location\": \"{location}\"]> {{ y = Add(x, w) }}\n"
        )
    };
    for (name, location) in [("good", "w.bin"), ("bad", "../outside.bin")] {
        std::fs::write(dir.join(format!("models/{name}.onnxtxt")), model(location)).unwrap();
        let r = run(&dir, &["convert", &format!("models/{name}.onnxtxt")], b"");
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    // Run from the parent folder: the model's folder is the file's, not the working one.
    let r = run(&dir, &["check", "models/good.onnx"], b"");
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (0, "1 file checked, no problems\n")
    );
    let r = run(&dir, &["check", "models/bad.onnx"], b"");
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stderr,
        "error[external_data]: tensor `w` has its data at `../outside.bin`: a path that leaves \
         the model's folder\n --> models/bad.onnx: graph `g`, initializer `w`\n\n\
         error: 1 problem in 1 file\n"
    );
    let r = run(
        &dir,
        &["check", "--allow", "external_data", "models/bad.onnx"],
        b"",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    // On standard input there is no folder: external data cannot be found.
    let bytes = std::fs::read(dir.join("models/good.onnx")).unwrap();
    let r = run(&dir, &["check", "-"], &bytes);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("but no model folder was given"),
        "{}",
        r.stderr
    );
}

#[test]
fn check_with_a_library_checks_calls_against_its_functions() {
    let dir = temp_dir("check-library");
    std::fs::write(dir.join("lib.onnxtxt"), LIBRARY).unwrap();
    std::fs::write(
        dir.join("m.onnxtxt"),
        r#"<ir_version: 10, opset_import: ["" : 21, "my" : 1]>
g (float[N] x) => (float[N] y) { t = my.Qaud(x)  y = my.Half(t, t) }
"#,
    )
    .unwrap();
    // Without the library, `my` is a custom domain whose operators may come from a runtime.
    let r = run(&dir, &["check", "m.onnxtxt"], b"");
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (0, "1 file checked, no problems\n")
    );
    let r = run(
        &dir,
        &["check", "m.onnxtxt", "--library", "lib.onnxtxt"],
        b"",
    );
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stderr,
        "error[unresolved_function]: no function `my.Qaud` is defined in domain \"my\"; did you mean \
         `Quad` (library `lib.onnxtxt`)?\n --> m.onnxtxt:2:38\n  |\n2 | g (float[N] x) => (float[N] y) \
         { t = my.Qaud(x)  y = my.Half(t, t) }\n  |                                      ^^^^^^^\n\n\
         error[function_signature]: function `my.Half` (library `lib.onnxtxt`) declares 1 input, \
         found 2\n --> m.onnxtxt:2:65\n  |\n2 | g (float[N] x) => (float[N] y) { t = my.Qaud(x)  y = \
         my.Half(t, t) }\n  |                                                                 ^\n\n\
         error: 2 problems in 1 file\n"
    );
}

/// Runs the binary through `sh` under `umask`, in `dir`.
#[cfg(unix)]
fn run_with_umask(dir: &Path, umask: &str, args: &[&str]) -> Run {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("umask {umask} && exec \"$0\" \"$@\""))
        .arg(BIN)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("sh runs");
    Run {
        code: out.status.code().expect("exit code"),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn convert_never_replaces_a_file_it_was_not_told_to_write() {
    // The user's story: a commented text, converted to binary and back, lost its comments.
    let dir = temp_dir("convert-no-clobber");
    let text = format!("# notes that only the text has\n{MESSY}");
    std::fs::write(dir.join("m.onnxtxt"), &text).unwrap();
    let r = run(&dir, &["convert", "m.onnxtxt"], b"");
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let r = run(&dir, &["convert", "m.onnx"], b"");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.starts_with(
            "error: `m.onnxtxt` (the default output) exists, and onnx-text replaces only a file \
             named with -o: pass --force to replace it; nothing was written"
        ),
        "{}",
        r.stderr
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("m.onnxtxt")).unwrap(),
        text
    );
    assert_eq!(files_in(&dir), ["m.onnx", "m.onnxtxt"]);
    // The same default output again, from text to binary: refused too.
    let binary = std::fs::read(dir.join("m.onnx")).unwrap();
    let r = run(&dir, &["convert", "m.onnxtxt"], b"");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(std::fs::read(dir.join("m.onnx")).unwrap(), binary);
    // --force, or naming the file with -o, replaces it.
    let r = run(&dir, &["convert", "--force", "m.onnx"], b"");
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    assert_eq!(
        std::fs::read_to_string(dir.join("m.onnxtxt")).unwrap(),
        golden_file(CASE)
    );
    std::fs::write(dir.join("m.onnxtxt"), &text).unwrap();
    let r = run(&dir, &["convert", "m.onnx", "-o", "m.onnxtxt"], b"");
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    assert_eq!(
        std::fs::read_to_string(dir.join("m.onnxtxt")).unwrap(),
        golden_file(CASE)
    );
    assert_eq!(files_in(&dir), ["m.onnx", "m.onnxtxt"]);
}

#[cfg(unix)]
#[test]
fn new_files_get_0666_less_the_umask_and_replaced_files_keep_their_mode() {
    let dir = temp_dir("file-modes");
    std::fs::write(dir.join("m.onnxtxt"), MESSY).unwrap();
    for (umask, expected) in [("022", 0o644), ("027", 0o640), ("002", 0o664)] {
        for out in ["c.onnx", "i.onnxtxt"] {
            let _ = std::fs::remove_file(dir.join(out));
        }
        let r = run_with_umask(&dir, umask, &["convert", "m.onnxtxt", "-o", "c.onnx"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(
            mode(&dir.join("c.onnx")),
            expected,
            "convert, umask {umask}"
        );
        let r = run_with_umask(&dir, umask, &["infer", "c.onnx", "-o", "i.onnxtxt"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(
            mode(&dir.join("i.onnxtxt")),
            expected,
            "infer, umask {umask}"
        );
    }
    // A file that is replaced keeps its mode, whatever the umask; so does one `fmt` rewrites.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir.join("c.onnx"), std::fs::Permissions::from_mode(0o600)).unwrap();
    let r = run_with_umask(&dir, "022", &["convert", "m.onnxtxt", "-o", "c.onnx"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(mode(&dir.join("c.onnx")), 0o600);
    std::fs::set_permissions(
        dir.join("m.onnxtxt"),
        std::fs::Permissions::from_mode(0o640),
    )
    .unwrap();
    let r = run_with_umask(&dir, "000", &["fmt", "m.onnxtxt"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.join("m.onnxtxt")).unwrap(),
        golden_file(CASE)
    );
    assert_eq!(mode(&dir.join("m.onnxtxt")), 0o640);
}

#[test]
fn an_empty_input_is_an_error_naming_it_in_every_subcommand() {
    let dir = temp_dir("empty-input");
    std::fs::write(dir.join("empty.onnx"), b"").unwrap();
    std::fs::write(dir.join("empty.onnxtxt"), b"").unwrap();
    for file in ["empty.onnx", "empty.onnxtxt"] {
        for args in [
            vec!["print", file],
            vec!["convert", file, "-o", "out.onnx"],
            vec!["convert", file, "-o", "out.onnxtxt"],
            vec!["infer", file],
            vec!["infer", file, "-o", "out.onnx"],
            vec!["inline", file],
            vec!["check", file],
            vec!["fmt", file],
            vec!["fmt", "--check", file],
            vec!["check", "--library", file, "empty.onnx"],
            vec!["inline", "--library", file, "empty.onnx"],
        ] {
            let r = run(&dir, &args, b"");
            assert_eq!(r.code, 1, "{args:?}: {}", r.stderr);
            assert!(
                r.stderr
                    .starts_with(&format!("error: `{file}` is empty: it holds no model")),
                "{args:?}: {}",
                r.stderr
            );
        }
    }
    for args in [
        ["print", "-"],
        ["check", "-"],
        ["convert", "-"],
        ["infer", "-"],
    ] {
        let r = run(&dir, &args, b"");
        assert_eq!(r.code, 1, "{args:?}: {}", r.stderr);
        assert!(
            r.stderr.starts_with("error: `<stdin>` is empty"),
            "{}",
            r.stderr
        );
    }
    assert_eq!(files_in(&dir), ["empty.onnx", "empty.onnxtxt"]);
}

#[test]
fn a_failed_infer_or_fmt_leaves_the_old_file_whole() {
    let dir = temp_dir("no-truncation");
    std::fs::write(dir.join("old.onnxtxt"), "the old contents").unwrap();
    // Shape inference fails on this model: MatMul's inner dims differ.
    let text = "<ir_version: 10, opset_import: [\"\" : 21]>\ng (float[2, 3] x, float[4, 5] w) => (y) {\n  y = MatMul(x, w)\n}\n";
    std::fs::write(dir.join("bad.onnxtxt"), text).unwrap();
    let r = run(&dir, &["infer", "bad.onnxtxt", "-o", "old.onnxtxt"], b"");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.join("old.onnxtxt")).unwrap(),
        "the old contents"
    );
    // fmt of a file that does not parse leaves it as it is.
    let r = run(&dir, &["fmt", "old.onnxtxt"], b"");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.join("old.onnxtxt")).unwrap(),
        "the old contents"
    );
    assert_eq!(files_in(&dir), ["bad.onnxtxt", "old.onnxtxt"]);
}

const EXTERNAL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/external");

fn external_golden(path: &str) -> Vec<u8> {
    std::fs::read(format!("{EXTERNAL}/{path}")).unwrap()
}

#[test]
fn external_data_is_written_as_onnx_save_model_writes_it() {
    // The goldens are onnx.save_model(..., save_as_external_data=True, location="model.bin",
    // size_threshold=T) of model.onnx (scripts/gen_external_data.py).
    for threshold in ["1024", "0"] {
        let dir = temp_dir(&format!("external-as-onnx-{threshold}"));
        std::fs::write(dir.join("in.onnx"), external_golden("model.onnx")).unwrap();
        let args = [
            "convert",
            "in.onnx",
            "-o",
            "model.onnx",
            "--external-data",
            "model.bin",
            "--size-threshold",
            threshold,
        ];
        let r = run(&dir, &args, b"");
        assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{threshold}");
        let saved = format!("saved-{threshold}");
        for file in ["model.onnx", "model.bin"] {
            assert_eq!(
                std::fs::read(dir.join(file)).unwrap(),
                external_golden(&format!("{saved}/{file}")),
                "{threshold}: {file}"
            );
        }
    }
}

#[test]
fn binary_to_text_and_data_to_binary_gives_the_model_back() {
    let dir = temp_dir("external-round-trip");
    std::fs::write(dir.join("in.onnx"), external_golden("model.onnx")).unwrap();
    // Threshold 0: every tensor's raw data leaves the text, so nothing is left to normalize.
    let args = [
        "convert",
        "in.onnx",
        "-o",
        "m.onnxtxt",
        "--external-data",
        "model.bin",
        "--size-threshold",
        "0",
    ];
    let r = run(&dir, &args, b"");
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let text = std::fs::read_to_string(dir.join("m.onnxtxt")).unwrap();
    assert!(
        text.contains(
            r#"float[16,32] w = ["location": "model.bin", "offset": "0", "length": "2048"]"#
        ),
        "{text}"
    );
    assert!(text.len() < 2000, "the weights stayed in the text: {text}");
    // The text alone: the external references, as onnx saves them.
    let r = run(&dir, &["convert", "m.onnxtxt", "-o", "refs.onnx"], b"");
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    assert_eq!(
        std::fs::read(dir.join("refs.onnx")).unwrap(),
        external_golden("saved-0/model.onnx")
    );
    // With --inline-data: the model we started from, byte for byte.
    let r = run(
        &dir,
        &["convert", "m.onnxtxt", "-o", "back.onnx", "--inline-data"],
        b"",
    );
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    assert_eq!(
        std::fs::read(dir.join("back.onnx")).unwrap(),
        external_golden("model.onnx")
    );
    // onnx's own file, data in the folder: inlined, it is the original model too.
    std::fs::write(
        dir.join("model.onnx"),
        external_golden("saved-1024/model.onnx"),
    )
    .unwrap();
    std::fs::write(
        dir.join("model.bin"),
        external_golden("saved-1024/model.bin"),
    )
    .unwrap();
    let r = run(
        &dir,
        &["convert", "model.onnx", "-o", "whole.onnx", "--inline-data"],
        b"",
    );
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    assert_eq!(
        std::fs::read(dir.join("whole.onnx")).unwrap(),
        external_golden("model.onnx")
    );
}

#[test]
fn print_writes_the_data_file_and_refuses_locations_outside_the_folder() {
    let dir = temp_dir("external-print");
    std::fs::write(dir.join("in.onnx"), external_golden("model.onnx")).unwrap();
    // print writes text, never into a file named as binary.
    let r = run(&dir, &["print", "in.onnx", "-o", "x.onnx"], b"");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("use `onnx-text convert`"), "{}", r.stderr);
    assert_eq!(files_in(&dir), ["in.onnx"]);
    // On standard output, the folder of the text is unknown: refused, nothing written.
    let r = run(&dir, &["print", "in.onnx", "--external-data", "w.bin"], b"");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("--external-data needs -o"),
        "{}",
        r.stderr
    );
    assert_eq!(files_in(&dir), ["in.onnx"]);
    let r = run(
        &dir,
        &[
            "print",
            "in.onnx",
            "--external-data",
            "w.bin",
            "-o",
            "w.onnxtxt",
        ],
        b"",
    );
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    assert!(r.stdout.is_empty());
    let text = std::fs::read_to_string(dir.join("w.onnxtxt")).unwrap();
    assert!(text.contains(r#"["location": "w.bin", "offset": "0""#));
    std::fs::remove_file(dir.join("w.onnxtxt")).unwrap();
    assert_eq!(
        std::fs::read(dir.join("w.bin")).unwrap(),
        external_golden("saved-1024/model.bin")
    );
    let r = run(
        &dir,
        &[
            "print",
            "in.onnx",
            "--external-data",
            "../w.bin",
            "-o",
            "x.onnxtxt",
        ],
        b"",
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("is outside the model's folder"),
        "{}",
        r.stderr
    );
    let r = run(
        &dir,
        &[
            "convert",
            "in.onnx",
            "-o",
            "x.onnx",
            "--external-data",
            "x.onnx",
        ],
        b"",
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("`x.onnx` (-o) is the same file as `x.onnx` (--external-data)"),
        "{}",
        r.stderr
    );
    assert_eq!(files_in(&dir), ["in.onnx", "w.bin"]);
}

#[test]
fn check_of_a_text_follows_its_external_data_as_the_binary_check_does() {
    let dir = temp_dir("external-check");
    std::fs::write(dir.join("in.onnx"), external_golden("model.onnx")).unwrap();
    let r = run(
        &dir,
        &[
            "convert",
            "in.onnx",
            "-o",
            "m.onnxtxt",
            "--external-data",
            "m.bin",
        ],
        b"",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = run(&dir, &["check", "m.onnxtxt"], b"");
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (0, "1 file checked, no problems\n")
    );
    let text = std::fs::read_to_string(dir.join("m.onnxtxt")).unwrap();
    let full = std::fs::read(dir.join("m.bin")).unwrap();
    // A missing file, a range past its end, a path out of the folder: the text and the same
    // model as a binary get the same rule. The text says it at the tensor's line and column,
    // and a missing or short file once, with the count of the tensors it affects.
    type Breakage<'a> = Box<dyn Fn() + 'a>;
    let cases: [(&str, Breakage, &str); 3] = [
        (
            "missing",
            Box::new(|| std::fs::remove_file(dir.join("m.bin")).unwrap()),
            concat!(
                "`m.bin` does not exist, and 3 tensors have their data in it; the first is `w`\n",
                " --> m.onnxtxt:6:18\n",
            ),
        ),
        (
            "short",
            Box::new(|| std::fs::write(dir.join("m.bin"), &full[..3000]).unwrap()),
            "`m.bin` has 3000 bytes, fewer than the offsets and lengths of 2 tensors need; the \
             first is `",
        ),
        (
            "outside",
            Box::new(|| {
                std::fs::write(dir.join("m.bin"), &full).unwrap();
                let escaped = text.replace(r#""location": "m.bin""#, r#""location": "../m.bin""#);
                std::fs::write(dir.join("m.onnxtxt"), escaped).unwrap();
            }),
            "has its data at `../m.bin`: a path that leaves the model's folder",
        ),
    ];
    for (case, break_it, message) in cases {
        break_it();
        let as_text = run(&dir, &["check", "m.onnxtxt"], b"");
        assert_eq!(as_text.code, 1, "{case}: {}", as_text.stderr);
        assert!(
            as_text.stderr.contains(message),
            "{case}: {}",
            as_text.stderr
        );
        let r = run(&dir, &["convert", "--force", "m.onnxtxt"], b"");
        assert_eq!(r.code, 0, "{case}: {}", r.stderr);
        let as_binary = run(&dir, &["check", "m.onnx"], b"");
        assert_eq!(as_binary.code, 1, "{case}: {}", as_binary.stderr);
        let errors = |stderr: &str| -> Vec<String> {
            let lines = stderr
                .lines()
                .filter(|l| l.starts_with("error[external_data]"));
            lines.map(str::to_owned).collect()
        };
        let (text_errors, binary_errors) = (errors(&as_text.stderr), errors(&as_binary.stderr));
        // Every problem at its tensor's line and column, in the subgraph too.
        let unpositioned = " --> m.onnxtxt: graph";
        assert!(!as_text.stderr.contains(unpositioned), "{}", as_text.stderr);
        assert_eq!(text_errors, binary_errors, "{case}");
        // A problem of each tensor's location, one per tensor; a missing or short file, once.
        let expected = if case == "outside" { 3 } else { 1 };
        assert_eq!(text_errors.len(), expected, "{case}: {}", as_text.stderr);
    }
    // --allow external_data turns it off for text, as for binaries.
    let r = run(
        &dir,
        &["check", "--allow", "external_data", "m.onnxtxt"],
        b"",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn check_with_a_library_checks_the_library_itself() {
    let dir = temp_dir("check-library-itself");
    // An attribute reference to an attribute the function does not declare, and a call to a
    // function of the library's own domain that it does not define.
    let library = r#"<domain: "com.acme", opset_import: ["" : 21, "com.acme" : 1]>
Affine <alpha> (x) => (y) { y = LeakyRelu <alpha = @alpah> (x) }
<domain: "com.acme", opset_import: ["" : 21, "com.acme" : 1]>
Twice (x) => (y) { y = com.acme.Afine (x) }
"#;
    std::fs::write(dir.join("lib.onnxtxt"), library).unwrap();
    std::fs::write(dir.join("m.onnxtxt"), MESSY).unwrap();
    let as_functions = run(&dir, &["check", "--kind", "functions", "lib.onnxtxt"], b"");
    assert_eq!(as_functions.code, 1, "{}", as_functions.stderr);
    let r = run(
        &dir,
        &["check", "--library", "lib.onnxtxt", "m.onnxtxt"],
        b"",
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    // The same problems as the library checked on its own, then a word that nothing else was.
    let (problems, summary) = as_functions.stderr.rsplit_once("\nerror: ").unwrap();
    assert_eq!(summary, "2 problems in 1 file\n");
    assert!(
        problems.contains("error[invalid_attribute_ref]"),
        "{problems}"
    );
    assert!(
        problems.contains("error[unresolved_function]"),
        "{problems}"
    );
    assert!(problems.contains("did you mean `Affine`"), "{problems}");
    assert!(r.stderr.starts_with(problems), "{}", r.stderr);
    assert!(
        r.stderr
            .ends_with("error: the library `lib.onnxtxt` has problems; nothing else is checked\n"),
        "{}",
        r.stderr
    );
}

/// A text with two unknown attributes in each of its `nodes` nodes.
fn flood(nodes: usize) -> String {
    let mut text =
        "<ir_version: 10, opset_import: [\"\" : 21]>\ng (float[2] x) => (float[2] y) {\n"
            .to_owned();
    let mut last = "x".to_owned();
    for i in 0..nodes {
        text.push_str(&format!("  v{i} = Relu <bad_a = 1, bad_b = 2> ({last})\n"));
        last = format!("v{i}");
    }
    text.push_str(&format!("  y = Identity({last})\n}}\n"));
    text
}

#[test]
fn problems_past_the_limit_are_counted_not_shown() {
    let dir = temp_dir("error-limit");
    std::fs::write(dir.join("flood.onnxtxt"), flood(15)).unwrap();
    let shown = |r: &Run| r.stderr.lines().filter(|l| l.starts_with("error[")).count();
    let r = run(&dir, &["check", "flood.onnxtxt"], b"");
    assert_eq!((r.code, shown(&r)), (1, 20));
    assert!(
        r.stderr.ends_with(
            "error: 30 problems in 1 file\nnote: 10 more problems are not shown: the first 20 \
             of 30 are; pass --max-errors 0 to see them all, or --max-errors N for the first N\n"
        ),
        "{}",
        r.stderr
    );
    let r = run(&dir, &["check", "--max-errors", "0", "flood.onnxtxt"], b"");
    assert_eq!((r.code, shown(&r)), (1, 30));
    assert!(!r.stderr.contains("not shown"), "{}", r.stderr);
    // Every command that reports problems, over all the files of a run.
    let r = run(
        &dir,
        &[
            "convert",
            "flood.onnxtxt",
            "-o",
            "f.onnx",
            "--max-errors",
            "3",
        ],
        b"",
    );
    assert_eq!((r.code, shown(&r)), (1, 3));
    assert!(
        r.stderr.contains("note: 27 more problems are not shown"),
        "{}",
        r.stderr
    );
    let r = run(
        &dir,
        &[
            "check",
            "flood.onnxtxt",
            "flood.onnxtxt",
            "--max-errors",
            "40",
        ],
        b"",
    );
    assert_eq!((r.code, shown(&r)), (1, 40));
    assert!(
        r.stderr
            .contains("note: 20 more problems are not shown: the first 40 of 60")
    );
}

#[test]
fn external_data_with_nothing_to_move_says_what_it_found() {
    let dir = temp_dir("nothing-to-move");
    let data = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/data/external/saved-1024"
    );
    for file in ["model.onnx", "model.bin"] {
        std::fs::copy(format!("{data}/{file}"), dir.join(file)).unwrap();
    }
    let args = [
        "convert",
        "model.onnx",
        "-o",
        "e.onnxtxt",
        "--external-data",
        "x.bin",
    ];
    let r = run(&dir, &args, b"");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        "note: `x.bin` is not written: no initializer has 1024 bytes of raw data or more, as \
         onnx counts them (33 more than their length): 3 initializers are already stored \
         outside, in `model.bin`, and stay there; 3 initializers have raw data under the \
         threshold (the largest: 990 bytes)\n"
    );
    assert!(!dir.join("x.bin").exists());
}

#[test]
fn weights_no_text_can_express_are_refused_without_lossy_and_doc_strings_warned_of() {
    use onnx_text::prost::Message;
    let dir = temp_dir("lossy");
    let mut model = onnx_text::parse_model(
        "<ir_version: 10, opset_import: [\"\" : 21]> g (float[4] x) => (float[4] y) { y = Relu(x) }",
    )
    .unwrap();
    let graph = model.graph.as_mut().unwrap();
    graph.doc_string = Some("the graph".into());
    graph.sparse_initializer.push(onnx_text::SparseTensorProto {
        values: Some(onnx_text::TensorProto {
            name: Some("w".into()),
            dims: vec![2],
            data_type: Some(1),
            float_data: vec![1.5, 2.5],
            ..Default::default()
        }),
        dims: vec![4],
        ..Default::default()
    });
    std::fs::write(dir.join("sparse.onnx"), model.encode_to_vec()).unwrap();
    for args in [
        &["print", "sparse.onnx"][..],
        &["convert", "sparse.onnx", "-o", "s.onnxtxt"],
        &["infer", "sparse.onnx", "-o", "s.onnxtxt"],
    ] {
        let r = run(&dir, args, b"");
        assert_eq!((r.code, r.stdout.len()), (1, 0), "{args:?}: {}", r.stderr);
        assert_eq!(
            r.stderr,
            "error: `sparse.onnx` holds 1 sparse initializer (`w`), which no text can express: \
             its text would lose these weights. Keep the model binary, or pass --lossy to write \
             the text without them\n",
            "{args:?}"
        );
        assert_eq!(files_in(&dir), ["sparse.onnx"], "{args:?}");
    }
    let r = run(
        &dir,
        &["convert", "sparse.onnx", "-o", "s.onnxtxt", "--lossy"],
        b"",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        "warning: `sparse.onnx`: the text leaves out 1 sparse initializer (`w`) (--lossy)\n\
         warning: `sparse.onnx`: the text leaves out the doc_string of graph `g`, which no text \
         can express\n"
    );
    // To binary, nothing is lost, and nothing is said.
    let r = run(&dir, &["convert", "sparse.onnx", "-o", "copy.onnx"], b"");
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
}

#[test]
fn the_help_names_every_command() {
    let r = run(Path::new("."), &["--help"], b"");
    let help = r.stdout_text();
    let first = help.lines().next().unwrap();
    for command in [
        "format", "check", "convert", "print", "infer", "inline", "run",
    ] {
        assert!(first.contains(command), "{first}");
    }
    for command in [
        "fmt", "check", "convert", "print", "infer", "lsp", "inline", "run",
    ] {
        assert!(
            help.contains(&format!("\n  {command} ")),
            "{command}: {help}"
        );
    }
}
