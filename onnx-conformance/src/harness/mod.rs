//! The test harness: every case as its own libtest-mimic test, judged against the runtime's
//! expectation file, and a summary at the end.

mod expectations;
mod summary;

use crate::{Case, Value, cases, release};
use expectations::{Expectations, FILE_NAME};
use libtest_mimic::{Arguments, Failed, Trial};
use std::fmt::Display;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use summary::Summary;

/// What running one case gave.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Verdict {
    Pass,
    /// The outputs differ from the expected ones.
    Fail(String),
    /// The runtime returned an error or panicked.
    Error(String),
}

/// Runs every case through `run` as its own test, and exits the process with libtest's code.
///
/// `run` gets a case and its inputs and returns the outputs, or an error. A runtime error or a
/// panic fails that case only. The cases listed in `onnx-conformance.toml` (in the crate
/// that runs the tests, `CARGO_MANIFEST_DIR`) are expected to fail; one that passes fails the
/// run, so that the list only shrinks. With `ONNX_CONFORMANCE_WRITE=1` the file is rewritten
/// with the cases that failed. Filtering (`cargo test --test onnx -- abs`, `--exact`),
/// `--list` and libtest's other options work.
///
/// ```no_run
/// // The main function of tests/onnx.rs, with `harness = false` for it in Cargo.toml:
/// // a "runtime" that only knows Identity.
/// onnx_conformance::harness(|case, inputs| match case.op_type() {
///     "Identity" => Ok(inputs),
///     other => Err(format!("{other} is not implemented")),
/// })
/// ```
pub fn harness<F, E>(run: F)
where
    F: Fn(&Case, Vec<Value>) -> Result<Vec<Value>, E> + Send + Sync + 'static,
    E: Display,
{
    run_harness(all_cases(), run)
}

/// Runs the cases of the onnx releases named (see [`releases`](crate::releases)) as
/// [`harness`] runs onnx 1.23.2's, each test named with its release: `1.9.0::test_abs`, and so
/// in `onnx-conformance.toml` and filters (`cargo test --test onnx -- 1.9.0::`). A release this
/// build does not hold (its feature, `onnx_1_9_0`, is off) stops the run before any case.
///
/// ```no_run
/// // tests/onnx.rs, with the kit's features `onnx_1_9_0` and `onnx_1_13_0` on.
/// onnx_conformance::harness_releases(&["1.9.0", "1.13.0", "1.23.2"], |case, inputs| {
///     match case.op_type() {
///         "Identity" => Ok(inputs),
///         other => Err(format!("{other} is not implemented")),
///     }
/// })
/// ```
pub fn harness_releases<F, E>(releases: &[&str], run: F)
where
    F: Fn(&Case, Vec<Value>) -> Result<Vec<Value>, E> + Send + Sync + 'static,
    E: Display,
{
    let mut selected = Vec::new();
    for &version in releases {
        let Some(cases) = release(version) else {
            exit_with(&format!(
                "this build holds no onnx {version}: it holds {:?} (turn on the kit's feature \
                 `onnx_{}`)",
                crate::releases(),
                version.replace('.', "_")
            ))
        };
        selected.extend(
            cases
                .iter()
                .map(|c| (format!("{version}::{}", c.name()), c)),
        );
    }
    run_harness(selected, run)
}

/// The cases a run takes, each with its test name.
pub(crate) type Selected = Vec<(String, &'static Case)>;

/// onnx 1.23.2's cases, each named by its name.
fn all_cases() -> Selected {
    cases().iter().map(|c| (c.name().to_string(), c)).collect()
}

fn run_harness<F, E>(selected: Selected, run: F)
where
    F: Fn(&Case, Vec<Value>) -> Result<Vec<Value>, E> + Send + Sync + 'static,
    E: Display,
{
    let arguments = Arguments::from_args();
    let path = expectation_file();
    let expectations = match std::fs::read_to_string(&path) {
        Ok(text) => Expectations::parse(&text).unwrap_or_else(|error| exit_with(&error)),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Expectations::default(),
        Err(error) => exit_with(&format!("{}: {error}", path.display())),
    };
    let unknown: Vec<&String> = expectations
        .failures
        .keys()
        .filter(|name| !selected.iter().any(|(n, _)| n == name.as_str()))
        .collect();
    if !unknown.is_empty() {
        exit_with(&format!("{FILE_NAME}: no case is named {unknown:?}"));
    }
    let (conclusion, summary) =
        run_selected(&arguments, selected, expectations.clone_failures(), run);
    if !arguments.list {
        print!("{summary}");
        if std::env::var_os("ONNX_CONFORMANCE_WRITE").is_some_and(|v| v == "1") {
            let text = summary.expectations(&expectations).to_text();
            if let Err(error) = std::fs::write(&path, text) {
                exit_with(&format!("{}: {error}", path.display()));
            }
            println!("wrote {}", path.display());
        }
    }
    conclusion.exit()
}

fn exit_with(message: &dyn Display) -> ! {
    eprintln!("onnx-conformance: {message}");
    std::process::exit(2)
}

fn expectation_file() -> PathBuf {
    let root =
        std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| PathBuf::from("."), PathBuf::from);
    root.join(FILE_NAME)
}

impl Expectations {
    fn clone_failures(&self) -> Arc<Expectations> {
        Arc::new(Expectations {
            failures: self.failures.clone(),
        })
    }
}

/// Runs the cases libtest's arguments select; the summary holds the verdict of each case run.
#[cfg(test)]
pub(crate) fn run_cases<F, E>(
    arguments: &Arguments,
    expectations: Arc<Expectations>,
    run: F,
) -> (libtest_mimic::Conclusion, Summary)
where
    F: Fn(&Case, Vec<Value>) -> Result<Vec<Value>, E> + Send + Sync + 'static,
    E: Display,
{
    run_selected(arguments, all_cases(), expectations, run)
}

/// [`run_cases`] over the cases given, each under its test name.
pub(crate) fn run_selected<F, E>(
    arguments: &Arguments,
    selected: Selected,
    expectations: Arc<Expectations>,
    run: F,
) -> (libtest_mimic::Conclusion, Summary)
where
    F: Fn(&Case, Vec<Value>) -> Result<Vec<Value>, E> + Send + Sync + 'static,
    E: Display,
{
    let run = Arc::new(run);
    let verdicts: Arc<Mutex<Vec<(usize, Verdict)>>> = Arc::default();
    let trials = selected
        .iter()
        .enumerate()
        .map(|(index, (name, case))| {
            let (run, verdicts, expectations) =
                (run.clone(), verdicts.clone(), expectations.clone());
            let (case, name) = (*case, name.clone());
            let expected_failure = expectations.failures.contains_key(&name);
            let trial = Trial::test(name.clone(), move || {
                let verdict = judge(case, &*run);
                verdicts
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((index, verdict.clone()));
                let reason = expectations.failures.get(&name);
                match (verdict, reason) {
                    (Verdict::Pass, None) => Ok(()),
                    (Verdict::Pass, Some(_)) => Err(Failed::from(format!(
                        "passes now: remove `{name}` from {FILE_NAME}"
                    ))),
                    (_, Some(_)) => Ok(()),
                    (Verdict::Fail(why) | Verdict::Error(why), None) => Err(Failed::from(why)),
                }
            });
            if expected_failure {
                trial.with_kind("expected to fail")
            } else {
                trial
            }
        })
        .collect();
    let conclusion = libtest_mimic::run(arguments, trials);
    let mut verdicts = std::mem::take(&mut *verdicts.lock().unwrap_or_else(|e| e.into_inner()));
    verdicts.sort_by_key(|(index, _)| *index);
    (conclusion, Summary::new(verdicts, &expectations, selected))
}

/// Runs one case and compares its outputs; an error or a panic of the runtime is a verdict too.
fn judge<F, E>(case: &Case, run: &F) -> Verdict
where
    F: Fn(&Case, Vec<Value>) -> Result<Vec<Value>, E>,
    E: Display,
{
    match catch_unwind(AssertUnwindSafe(|| {
        run(case, case.inputs()).map_err(|e| e.to_string())
    })) {
        Ok(Ok(outputs)) => match case.check(&outputs) {
            Ok(()) => Verdict::Pass,
            Err(mismatch) => Verdict::Fail(mismatch.to_string()),
        },
        Ok(Err(error)) => Verdict::Error(format!("the runtime failed: {error}")),
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".to_string());
            Verdict::Error(format!("the runtime panicked: {message}"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cases whose names contain `filter`, one at a time, libtest's lines going to a file of
    /// their own (so that this test's output shows no inner "FAILED").
    fn arguments(filter: &str) -> Arguments {
        let log = std::env::temp_dir().join(format!(
            "onnx-conformance-{filter}-{}.log",
            std::process::id()
        ));
        Arguments {
            filter: Some(filter.to_string()),
            test_threads: Some(1),
            logfile: Some(log.display().to_string()),
            ..Arguments::default()
        }
    }

    /// The line of libtest's report that starts so (names are padded to one width).
    fn line_of<'a>(log: &'a str, start: &str) -> &'a str {
        log.lines()
            .find(|l| l.starts_with(start))
            .unwrap_or_default()
    }

    /// libtest's report of a run, read back and removed.
    fn report(arguments: &Arguments) -> String {
        let path = arguments.logfile.as_ref().unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        std::fs::remove_file(path).unwrap();
        text
    }

    /// A runtime that errs on one case, panics on another and answers the third right: each is
    /// one case's verdict, and the run goes on to the end.
    #[test]
    fn errors_and_panics_fail_their_case_only() {
        let arguments = arguments("test_softsign");
        let (conclusion, summary) = run_cases(&arguments, Arc::default(), |case: &Case, _| {
            match case.name() {
                "test_softsign" => Err("no Softsign"),
                "test_softsign_example" => panic!("Softsign exploded"),
                _ => Ok(case.outputs()),
            }
        });
        let found: Vec<(&str, &Verdict)> = summary
            .verdicts()
            .map(|(case, verdict)| (case.name(), verdict))
            .collect();
        assert_eq!(
            found,
            [
                (
                    "test_softsign",
                    &Verdict::Error("the runtime failed: no Softsign".to_string())
                ),
                (
                    "test_softsign_example",
                    &Verdict::Error("the runtime panicked: Softsign exploded".to_string())
                ),
                ("test_softsign_example_expanded_ver18", &Verdict::Pass),
                ("test_softsign_expanded_ver18", &Verdict::Pass),
            ]
        );
        assert_eq!((conclusion.num_passed, conclusion.num_failed), (2, 2));
        let text = summary.to_string();
        assert!(
            text.contains("4 cases run: 2 passed, 0 failed (wrong outputs), 2 erred"),
            "{text}"
        );
        assert!(text.contains("\n  Softsign 2/4\n"), "{text}");
        let log = report(&arguments);
        assert!(
            line_of(&log, "test test_softsign_example ").ends_with(" ... FAILED"),
            "{log}"
        );
        assert!(
            log.contains("the runtime panicked: Softsign exploded"),
            "{log}"
        );
    }

    #[test]
    fn wrong_outputs_fail_and_expected_failures_pass_until_they_pass() {
        let expectations = Expectations::parse(
            "[expected-failures]\ntest_relu = \"r\"\ntest_reshape_extended_dims = \"x\"\n",
        )
        .unwrap();
        let arguments = arguments("test_re");
        let (conclusion, summary) = run_cases(
            &arguments,
            Arc::new(expectations),
            |case: &Case, inputs: Vec<Value>| {
                match case.name() {
                    // Relu answers right: listed, so it fails the run as newly passing.
                    "test_relu" => Ok::<_, String>(case.outputs()),
                    // Its inputs are not its outputs: a wrong answer, expected.
                    "test_reshape_extended_dims" => Ok(inputs[..1].to_vec()),
                    _ => Ok(case.outputs()),
                }
            },
        );
        let relu = summary
            .verdicts()
            .find(|(c, _)| c.name() == "test_relu")
            .unwrap()
            .1;
        assert_eq!(relu, &Verdict::Pass);
        let reshape = summary
            .verdicts()
            .find(|(c, _)| c.name() == "test_reshape_extended_dims")
            .unwrap()
            .1;
        assert!(
            matches!(reshape, Verdict::Fail(why) if why.contains("expected shape [2, 3, 2, 2], got [2, 3, 4]")),
            "{reshape:?}"
        );
        // Every other selected case passes; Relu fails the run.
        assert_eq!(conclusion.num_failed, 1);
        assert_eq!(conclusion.num_passed, summary.verdicts().count() as u64 - 1);
        let text = summary.to_string();
        assert!(
            text.contains("1 newly passing (listed in onnx-conformance.toml)"),
            "{text}"
        );
        assert!(text.contains("1 expected failures"), "{text}");
        let log = report(&arguments);
        assert!(
            log.contains("passes now: remove `test_relu` from onnx-conformance.toml"),
            "{log}"
        );
        let reshape = line_of(&log, "test [expected to fail] test_reshape_extended_dims ");
        assert!(reshape.ends_with(" ... ok"), "{log}");
    }
}
