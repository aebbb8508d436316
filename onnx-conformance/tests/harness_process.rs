//! `onnx_conformance::harness` (and `harness_releases`) as a runtime runs it: a whole process,
//! its exit code, its report and the expectation file it reads and writes. This test target
//! (`harness = false`) runs itself again as a toy runtime's test binary, with
//! `CARGO_MANIFEST_DIR` set to a folder of its own that holds the expectation file.

use onnx_conformance::{Case, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Set in the child: which toy runtime it is.
const CHILD: &str = "ONNX_CONFORMANCE_TEST_CHILD";

/// Softsign is not implemented (its `_expanded` cases, made of other operators, pass).
fn without_softsign(case: &Case, _: Vec<Value>) -> Result<Vec<Value>, String> {
    if case.op_type() == "Softsign" && !case.name().contains("_expanded") {
        Err("Softsign is not implemented".to_string())
    } else {
        Ok(case.outputs())
    }
}

/// Softsign is implemented, wrongly: its outputs are its inputs.
fn wrong_softsign(case: &Case, inputs: Vec<Value>) -> Result<Vec<Value>, String> {
    if case.op_type() == "Softsign" && !case.name().contains("_expanded") {
        Ok(inputs)
    } else {
        Ok(case.outputs())
    }
}

fn main() {
    match std::env::var(CHILD).as_deref() {
        Ok("without-softsign") => onnx_conformance::harness(without_softsign),
        Ok("wrong-softsign") => onnx_conformance::harness(wrong_softsign),
        Ok("releases-without-softsign") => {
            onnx_conformance::harness_releases(&["1.9.0", "1.23.2"], without_softsign)
        }
        Ok("release-1.0") => onnx_conformance::harness_releases(&["1.0"], without_softsign),
        // The same runtime judged by a file of its own: a second harness test of one crate.
        Ok("custom-file") => onnx_conformance::Harness::new()
            .expectation_file("tests/softsign.toml")
            .run(without_softsign),
        // Softsign implemented: every listed Softsign case passes now.
        Ok("everything") => onnx_conformance::harness(|case, _| Ok::<_, String>(case.outputs())),
        Ok(other) => panic!("no toy runtime {other}"),
        Err(_) => parent(),
    }
}

/// Where this process's folders go.
fn root() -> PathBuf {
    std::env::temp_dir().join(format!(
        "onnx-conformance-harness-process-{}",
        std::process::id()
    ))
}

/// A folder with this expectation file in it (none when `None`).
fn folder(name: &str, file: Option<&str>) -> PathBuf {
    let dir = root().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    if let Some(text) = file {
        std::fs::write(dir.join("onnx-conformance.toml"), text).unwrap();
    }
    dir
}

fn child(runtime: &str, dir: &Path, args: &[&str], write: bool) -> (i32, String, String) {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .env(CHILD, runtime)
        .env("CARGO_MANIFEST_DIR", dir)
        .env_remove("ONNX_CONFORMANCE_WRITE")
        .args(args);
    if write {
        command.env("ONNX_CONFORMANCE_WRITE", "1");
    }
    let Output {
        status,
        stdout,
        stderr,
    } = command.output().unwrap();
    (
        status.code().unwrap(),
        String::from_utf8(stdout).unwrap(),
        String::from_utf8(stderr).unwrap(),
    )
}

/// The last line that is not empty.
fn last_line(text: &str) -> &str {
    text.lines()
        .rev()
        .find(|l| !l.is_empty())
        .unwrap_or_default()
}

const SOFTSIGN_FAILS: &str =
    "[operators]\nSoftsign = { error = \"Softsign is not implemented\" }\n";

fn listed_failures_pass_and_the_kit_closes_the_report() {
    let dir = folder("green", Some(SOFTSIGN_FAILS));
    let (code, out, err) = child("without-softsign", &dir, &["test_softsign"], false);
    assert_eq!(code, 0, "{out}{err}");
    let libtest = out
        .find("\ntest result: ok. 4 passed; 0 failed; 0 ignored; 0 measured; 1880 filtered out;")
        .unwrap_or_else(|| panic!("{out}"));
    let kit = out.find("\nonnx-conformance result: ").unwrap();
    assert!(libtest < kit, "{out}");
    assert_eq!(
        last_line(&out),
        "onnx-conformance result: ok. 2 passed; 0 failed; 0 newly passing; 2 expected failures (2 errors, 0 wrong \
         outputs); 1880 filtered out"
    );
    assert!(
        out.contains("\ntest [expected to fail] test_softsign_example ... ok\n"),
        "{out}"
    );
}

fn a_change_of_failure_fails_the_run() {
    let dir = folder("changed", Some(SOFTSIGN_FAILS));
    let (code, out, _) = child("wrong-softsign", &dir, &["test_softsign"], false);
    assert_eq!(code, 101, "{out}");
    assert!(
        out.contains(
            "\n---- test_softsign ----\nfails otherwise than listed: onnx-conformance.toml:2, \
             [operators] Softsign = { error = \"Softsign is not implemented\" } expects an error \
             whose text contains \"Softsign is not implemented\", but the case gives wrong \
             outputs: output 0 (`y`): values differ\ntest_softsign: output 0 (`y`): element 0 "
        ),
        "{out}"
    );
    // The mismatch says how many elements differ (Softsign(x) = x only at 0).
    assert!(out.contains("; 60 of 60 elements differ\n"), "{out}");
    assert_eq!(
        last_line(&out),
        "onnx-conformance result: FAILED. 2 passed; 2 failed; 0 newly passing; 0 expected failures (0 errors, 0 \
         wrong outputs); 1880 filtered out"
    );
}

fn write_mode_records_the_run_and_exits_0() {
    let dir = folder("write", Some(SOFTSIGN_FAILS));
    let (code, out, err) = child("wrong-softsign", &dir, &["test_softsign"], true);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("test result: FAILED. 2 passed; 2 failed;"),
        "{out}"
    );
    assert!(
        out.contains("onnx-conformance: wrote ")
            && out.contains("(ONNX_CONFORMANCE_WRITE=1 exits 0)"),
        "{out}"
    );
    assert!(
        last_line(&out).starts_with("onnx-conformance result: FAILED. 2 passed; 2 failed;"),
        "{out}"
    );
    let text = std::fs::read_to_string(dir.join("onnx-conformance.toml")).unwrap();
    assert!(
        text.ends_with("\n[operators]\nSoftsign = \"wrong\"\n\n[cases]\n"),
        "{text}"
    );
    // The file it wrote keeps the next run green.
    let (code, out, _) = child("wrong-softsign", &dir, &["test_softsign"], false);
    assert_eq!(code, 0, "{out}");
    assert!(
        last_line(&out).contains("2 expected failures (0 errors, 2 wrong outputs)"),
        "{out}"
    );
}

fn bad_files_and_options_stop_the_run_with_where() {
    let dir = folder(
        "old",
        Some("[cases]\ntest_abs = \"Abs is not implemented\"\n"),
    );
    let (code, out, err) = child("without-softsign", &dir, &[], false);
    assert_eq!(code, 2, "{out}");
    assert!(
        err.starts_with(
            "onnx-conformance: onnx-conformance.toml:2:12: a reason needs its kind: `\"error\"`, \
             `\"wrong\"`, `{ error = \"…\" }` or `{ wrong = \"…\" }`"
        ),
        "{err}"
    );
    assert!(!out.contains("running"), "no case runs: {out}");
    let dir = folder("unknown", Some("[cases]\ntest_nope = { error = \"\" }\n"));
    let (code, _, err) = child("without-softsign", &dir, &[], false);
    assert_eq!(code, 2);
    assert!(
        err.contains("onnx-conformance.toml:2:1: no case is named `test_nope`"),
        "{err}"
    );
    let dir = folder("options", None);
    let (code, _, err) = child("without-softsign", &dir, &["--frobnicate"], false);
    assert_eq!(code, 2);
    assert!(err.contains("`--frobnicate` is not an option"), "{err}");
    let (code, out, _) = child(
        "without-softsign",
        &dir,
        &["--list", "test_softsign_ex"],
        false,
    );
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "test_softsign_example: test\ntest_softsign_example_expanded_ver18: test\n\
         test_softsign_expanded_ver18: test\n\n3 tests, 0 benchmarks\n"
    );
    // Without a file, every failure fails the run.
    let (code, out, _) = child("without-softsign", &dir, &["test_softsign"], false);
    assert_eq!(code, 101, "{out}");
    assert!(
        out.contains(
            "\n---- test_softsign ----\nthe runtime failed: Softsign is not implemented\n"
        ),
        "{out}"
    );
}

/// harness_releases as a process: tests named `<release>::<case>`, filtered, judged by the file
/// under those names (an operator's entry covers both releases), written back under them, and
/// counted in the kit's closing line; a release the build lacks stops the run.
fn releases_run_under_their_names() {
    let total = ["1.9.0", "1.23.2"]
        .iter()
        .map(|v| onnx_conformance::release(v).unwrap().len())
        .sum::<usize>();
    let dir = folder("releases", Some(SOFTSIGN_FAILS));
    let (code, out, err) = child(
        "releases-without-softsign",
        &dir,
        &["::test_softsign"],
        false,
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("\ntest [expected to fail] 1.9.0::test_softsign_example ... ok\n")
            && out.contains("\ntest 1.23.2::test_softsign_expanded_ver18 ... ok\n"),
        "{out}"
    );
    assert_eq!(
        last_line(&out),
        format!(
            "onnx-conformance result: ok. 2 passed; 0 failed; 0 newly passing; 4 expected failures (4 errors, 0 \
             wrong outputs); {} filtered out",
            total - 6
        )
    );
    // No file: 1.9.0's Softsign fails under its name; write mode records it so.
    let dir = folder("releases-write", None);
    let args = ["1.9.0::test_softsign"];
    let (code, out, _) = child("releases-without-softsign", &dir, &args, false);
    assert_eq!(code, 101, "{out}");
    assert!(
        out.contains(
            "\n---- 1.9.0::test_softsign ----\nthe runtime failed: Softsign is not implemented\n"
        ),
        "{out}"
    );
    let (code, out, err) = child("releases-without-softsign", &dir, &args, true);
    assert_eq!(code, 0, "{out}{err}");
    let text = std::fs::read_to_string(dir.join("onnx-conformance.toml")).unwrap();
    assert!(
        text.ends_with(
            "\n[cases]\n\"1.9.0::test_softsign\" = \"error\"\n\
             \"1.9.0::test_softsign_example\" = \"error\"\n"
        ),
        "{text}"
    );
    let (code, out, _) = child("releases-without-softsign", &dir, &args, false);
    assert_eq!(code, 0, "{out}");
    assert!(
        last_line(&out).contains("; 2 expected failures (2 errors, 0 wrong outputs); "),
        "{out}"
    );
    let (code, out, err) = child("release-1.0", &dir, &[], false);
    assert_eq!(code, 2, "{out}");
    assert!(
        err.starts_with("onnx-conformance: this build holds no onnx 1.0: "),
        "{err}"
    );
    assert!(!out.contains("running"), "no case runs: {out}");
}

/// A file with faults of syntax and of coverage on several lines: one run reports every one.
fn every_fault_of_the_file_is_reported_in_one_run() {
    let dir = folder(
        "faults",
        Some(
            "[cases]\ntest_abs = \"Abs is not implemented\"\ntest_nope = \"error\"\n\
             test_relu = { error = \"x\" } y\n[operators]\nNope = \"error\"\n\
             [patterns]\n\"test_nope_*\" = \"wrong\"\n",
        ),
    );
    let (code, out, err) = child("without-softsign", &dir, &[], false);
    assert_eq!(code, 2, "{out}");
    assert!(!out.contains("running"), "no case runs: {out}");
    assert_eq!(
        err,
        "onnx-conformance: 5 faults in onnx-conformance.toml:\n\
         onnx-conformance.toml:2:12: a reason needs its kind: `\"error\"`, `\"wrong\"`, `{ error = \
         \"…\" }` or `{ wrong = \"…\" }` (the old form of this file had the reason alone)\n\
         onnx-conformance.toml:3:1: no case is named `test_nope`\n\
         onnx-conformance.toml:4:29: unexpected `y` after the entry\n\
         onnx-conformance.toml:6:1: no case is of operator `Nope` (an operator outside the \
         default domain is written `domain.Op`, as `\"ai.onnx.ml.Binarizer\"`)\n\
         onnx-conformance.toml:8:1: `test_nope_*` matches no case\n"
    );
}

/// `Harness::expectation_file`: the file is read, named in messages and written at the path
/// given, relative to the crate's directory.
fn the_expectation_file_can_be_set() {
    let dir = folder("custom", Some(SOFTSIGN_FAILS));
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    // The default file says Softsign fails; the custom one does not exist yet.
    let (code, out, _) = child("custom-file", &dir, &["test_softsign"], false);
    assert_eq!(code, 101, "the default file is not read: {out}");
    let (code, out, err) = child("custom-file", &dir, &["test_softsign"], true);
    assert_eq!(code, 0, "{out}{err}");
    let written = std::fs::read_to_string(dir.join("tests/softsign.toml")).unwrap();
    assert!(
        written.ends_with("\n[operators]\nSoftsign = \"error\"\n\n[cases]\n"),
        "{written}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("onnx-conformance.toml")).unwrap(),
        SOFTSIGN_FAILS
    );
    let (code, out, _) = child("custom-file", &dir, &["test_softsign"], false);
    assert_eq!(code, 0, "{out}");
    // Messages name the file by its path.
    std::fs::write(
        dir.join("tests/softsign.toml"),
        "[cases]\ntest_nope = \"error\"\n",
    )
    .unwrap();
    let (code, _, err) = child("custom-file", &dir, &["test_softsign"], false);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "onnx-conformance: tests/softsign.toml:2:1: no case is named `test_nope`\n"
    );
}

/// Listed cases that pass fail the run, and the closing line counts them apart from failures.
fn newly_passing_cases_are_counted_apart() {
    let dir = folder("newly", Some(SOFTSIGN_FAILS));
    let (code, out, _) = child("everything", &dir, &["test_softsign"], false);
    assert_eq!(code, 101, "{out}");
    assert_eq!(
        last_line(&out),
        "onnx-conformance result: FAILED. 2 passed; 0 failed; 2 newly passing; 0 expected \
         failures (0 errors, 0 wrong outputs); 1880 filtered out"
    );
}

/// Runs as libtest would (a list of tests, each `ok` or `FAILED`), so that `cargo test` reads
/// this target as it reads the others.
fn parent() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let tests: [(&str, fn()); 8] = [
        (
            "every_fault_of_the_file_is_reported_in_one_run",
            every_fault_of_the_file_is_reported_in_one_run,
        ),
        (
            "the_expectation_file_can_be_set",
            the_expectation_file_can_be_set,
        ),
        (
            "newly_passing_cases_are_counted_apart",
            newly_passing_cases_are_counted_apart,
        ),
        (
            "listed_failures_pass_and_the_kit_closes_the_report",
            listed_failures_pass_and_the_kit_closes_the_report,
        ),
        (
            "a_change_of_failure_fails_the_run",
            a_change_of_failure_fails_the_run,
        ),
        (
            "write_mode_records_the_run_and_exits_0",
            write_mode_records_the_run_and_exits_0,
        ),
        (
            "bad_files_and_options_stop_the_run_with_where",
            bad_files_and_options_stop_the_run_with_where,
        ),
        (
            "releases_run_under_their_names",
            releases_run_under_their_names,
        ),
    ];
    let filters: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let selected: Vec<_> = tests
        .iter()
        .filter(|(name, _)| filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str())))
        .collect();
    if args.iter().any(|a| a == "--list") {
        for (name, _) in &selected {
            println!("{name}: test");
        }
        println!("\n{} tests, 0 benchmarks", selected.len());
        return;
    }
    println!("\nrunning {} tests", selected.len());
    let mut failed = 0;
    for (name, test) in &selected {
        let ok = std::panic::catch_unwind(test).is_ok();
        println!("test {name} ... {}", if ok { "ok" } else { "FAILED" });
        failed += usize::from(!ok);
    }
    println!(
        "\ntest result: {}. {} passed; {failed} failed; 0 ignored; 0 measured; {} filtered out\n",
        if failed == 0 { "ok" } else { "FAILED" },
        selected.len() - failed,
        tests.len() - selected.len()
    );
    let _ = std::fs::remove_dir_all(root());
    if failed > 0 {
        std::process::exit(101);
    }
}
