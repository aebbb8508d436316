//! Compile-time behaviour of the macros, pinned by trybuild: `ui-tests/pass` must compile and run,
//! and each `ui-tests/fail/*.rs` must fail with the diagnostics in its `.stderr`.
//!
//! rustc's rendering (notes, help, snippets, trait lists) changes between releases, so the test
//! runs in one of two modes, and says which:
//! - **exact**, on the compiler named in `ui-tests/TOOLCHAIN`: each `.stderr` must match byte for
//!   byte, as trybuild compares it;
//! - **any compiler**, on every other one: every pass case must still compile and run, every fail
//!   case must still fail, and the errors it gives must be those of its `.stderr`, in order, each
//!   compared by what our macros decide: the message and the line:column it points at (the file
//!   too, by name). What rustc draws around them is not compared.
//!
//! After a compiler upgrade, re-bless consciously: `TRYBUILD=overwrite cargo test --test it ui::`,
//! review the diff, and update `ui-tests/TOOLCHAIN`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

#[test]
fn ui() {
    let pinned = include_str!("../../ui-tests/TOOLCHAIN").trim();
    // trybuild builds the cases with the `RUSTC` that cargo would use, so ask that one.
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let output = Command::new(&rustc)
        .arg("--version")
        .output()
        .expect("rustc runs");
    let current = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    copy_include_data();
    if current == pinned {
        say(&format!(
            "ui: exact mode: {current} is the pinned compiler, each .stderr must match byte for byte"
        ));
        let cases = trybuild::TestCases::new();
        cases.pass("ui-tests/pass/*.rs");
        cases.compile_fail("ui-tests/fail/*.rs");
    } else {
        say(&format!(
            "ui: any-compiler mode: {current} is not the pinned {pinned}; each fail case must fail \
             with its .stderr's errors (message and line:column), rustc's rendering is not compared; \
             trybuild marks the fail cases `wip` as it writes their output to {}",
            scratch_dir().display()
        ));
        any_compiler_mode();
    }
}

/// Writes past the test harness's capture, as trybuild writes its own per-case lines, so that the
/// mode shows in every run's output.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// The cases run through trybuild as they are; the fail cases are copied, without their
/// `.stderr`, to a scratch folder where trybuild writes what this compiler says, which is then
/// compared with the pinned `.stderr` by its errors alone. The pinned files are never written.
fn any_compiler_mode() {
    let fail_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("ui-tests/fail");
    let scratch = scratch_dir();
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&fail_dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no fail cases in {}", fail_dir.display());
    for case in &cases {
        std::fs::copy(case, scratch.join(case.file_name().unwrap())).unwrap();
    }

    // SAFETY: this binary's only test sets it before trybuild, the only reader, starts; no other
    // thread reads the environment meanwhile. `overwrite` makes trybuild write each fail case's
    // output where no `.stderr` is yet (the scratch copies) instead of failing; a case that
    // compiles, or a pass case that fails, still fails the run.
    unsafe { std::env::set_var("TRYBUILD", "overwrite") };
    {
        let run = trybuild::TestCases::new();
        run.pass("ui-tests/pass/*.rs");
        run.compile_fail(scratch.join("*.rs"));
    } // trybuild builds and runs the cases here, when `run` is dropped.
    unsafe { std::env::remove_var("TRYBUILD") };

    let mut differing = Vec::new();
    for case in &cases {
        let expected_path = case.with_extension("stderr");
        let expected = errors(&std::fs::read_to_string(&expected_path).unwrap());
        let actual_path = scratch.join(expected_path.file_name().unwrap());
        let actual = errors(&std::fs::read_to_string(&actual_path).unwrap());
        // A `.stderr` whose errors this reader could not find would compare equal to nothing.
        assert!(
            !expected.is_empty(),
            "{} names no error",
            expected_path.display()
        );
        if actual != expected {
            differing.push(format!(
                "{}:\n  expected (from {}):\n{}\n  this compiler (full output in {}):\n{}",
                case.display(),
                expected_path.display(),
                listing(&expected),
                actual_path.display(),
                listing(&actual),
            ));
        }
    }
    assert!(
        differing.is_empty(),
        "{} of {} fail cases give other errors than their .stderr:\n\n{}",
        differing.len(),
        cases.len(),
        differing.join("\n\n")
    );
    say(&format!(
        "ui: any-compiler mode: {} fail cases gave their errors, pass cases compiled and ran",
        cases.len()
    ));
}

/// Where the any-compiler mode copies the fail cases and trybuild writes what they give.
fn scratch_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("ui-any-compiler")
}

/// One error of a rendered diagnostic output: its header (`error[E0277]: message`, the code
/// included, as our `on_unimplemented` texts choose it) and the file name, line and column it
/// points at, if any.
#[derive(Debug, PartialEq)]
struct Error {
    header: String,
    at: Option<String>,
}

/// The errors in rustc's rendered output, in order. An error starts with a line `error: ...` or
/// `error[E...]: ...` at the margin; its primary position is the `--> path:line:column` line
/// right after, whose path is compared by file name (the scratch copies live elsewhere).
fn errors(rendered: &str) -> Vec<Error> {
    let lines: Vec<&str> = rendered.lines().collect();
    let mut found = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let is_error = line.starts_with("error:") || line.starts_with("error[");
        if !is_error {
            continue;
        }
        let at = lines
            .get(index + 1)
            .and_then(|next| next.trim_start().strip_prefix("--> "))
            .map(|location| {
                let file_start = location.rfind(['/', '\\']).map_or(0, |slash| slash + 1);
                location[file_start..].to_owned()
            });
        found.push(Error {
            header: (*line).to_owned(),
            at,
        });
    }
    found
}

fn listing(errors: &[Error]) -> String {
    errors
        .iter()
        .map(|error| {
            let at = error.at.as_deref().unwrap_or("(no position)");
            format!("    {at}: {}", error.header)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Copies `ui-tests/data/` to where the cases' `include_onnx!` looks for it. trybuild builds the
/// cases as a crate of its own, in `<target>/tests/trybuild/<crate>`, whose `CARGO_MANIFEST_DIR`
/// the paths are relative to. (Were the layout to change, the cases would fail to find the files,
/// and say so.)
fn copy_include_data() {
    let target = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("CARGO_TARGET_TMPDIR is <target>/tmp");
    let to = target.join("tests/trybuild/onnx-text/ui-tests/data");
    std::fs::create_dir_all(&to).unwrap();
    let from = concat!(env!("CARGO_MANIFEST_DIR"), "/ui-tests/data");
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
    }
}
