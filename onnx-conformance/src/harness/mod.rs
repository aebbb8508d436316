//! The test harness: every case as its own test (libtest's options and report), judged against
//! the runtime's expectation file, and a summary at the end.

mod expectations;
mod runner;
mod sorted;
mod summary;

use crate::{Case, Value, cases, release};
use expectations::{Expectations, FILE_NAME, Failure, Faults, Kind, Rule, Source};
pub(crate) use runner::Arguments;
use runner::{Command, Conclusion, Test};
use std::fmt::Display;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use summary::Summary;

/// What running one case gave.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Verdict {
    Pass,
    /// The outputs differ from the expected ones: the mismatch, and its summary (where and
    /// what differs, without the values).
    Wrong {
        message: String,
        summary: String,
    },
    /// The runtime returned an error or panicked.
    Error(String),
}

impl Verdict {
    /// The failure as an expectation compares it, or `None` for a pass.
    pub(crate) fn failure(&self) -> Option<Failure<'_>> {
        match self {
            Verdict::Pass => None,
            Verdict::Wrong { summary, .. } => Some(Failure {
                kind: Kind::Wrong,
                text: summary,
            }),
            Verdict::Error(message) => Some(Failure {
                kind: Kind::Error,
                text: message,
            }),
        }
    }
}

/// Runs every case through `run` as its own test, and exits the process with libtest's code.
///
/// `run` gets a case and its inputs and returns the outputs, or an error. A runtime error or a
/// panic fails that case only. The cases a runtime is known to fail are listed in
/// `onnx-conformance.toml` (in the crate that runs the tests, `CARGO_MANIFEST_DIR`), each with
/// how it fails (`error` or `wrong`) and a part of what the harness says then; a listed case
/// that passes, or fails otherwise, fails the run, so the list only shrinks (the crate docs say
/// exactly how a failure is compared with its entry). With `ONNX_CONFORMANCE_WRITE=1` the file
/// is rewritten from the run and the process exits 0. libtest's options work as `cargo test`
/// passes them: filters (`cargo test --test onnx -- abs`), `--exact`, `--skip`, `--list`,
/// `--test-threads`, `-q`; `-- --help` lists them. After libtest's closing line,
/// the harness prints a summary (coverage by operator) and a closing line of its own that
/// counts the expected failures apart from the passes.
///
/// A malformed expectation file stops the run before any case, with the line and column of
/// the fault and exit code 2.
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
    Harness::new().run(run)
}

/// Runs the cases of the onnx releases named (see [`releases`](crate::releases)) as
/// [`harness`] runs onnx 1.23.2's, each test named with its release: `1.9.0::test_abs`, and so
/// in filters (`cargo test --test onnx -- 1.9.0::`) and in `onnx-conformance.toml`, whose
/// `[cases]` and `[patterns]` go by these names (`"1.9.0::test_abs"`, `"*::test_abs*"`) and
/// whose `[operators]` entries cover an operator's node tests in every release named. A model
/// test has no operator: the summary counts it under its suite (`(simple models)`). A release
/// this build does not hold (its feature, `onnx_1_9_0`, is off) stops the run before any case,
/// with exit code 2.
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
    Harness::new().releases(releases).run(run)
}

/// [`harness`] and [`harness_releases`] with options: which cases run, and which expectation
/// file judges them. A crate can so hold two harness tests, each a test target of its own with
/// its own file (say 1.23.2's cases in `tests/onnx.rs` with `onnx-conformance.toml`, and the
/// older releases in `tests/onnx_releases.rs` with `onnx-conformance-releases.toml`).
///
/// ```no_run
/// // tests/onnx_releases.rs, with `harness = false` for it in Cargo.toml.
/// onnx_conformance::Harness::new()
///     .releases(&["1.9.0", "1.13.0"])
///     .expectation_file("onnx-conformance-releases.toml")
///     .run(|case, inputs| match case.op_type() {
///         "Identity" => Ok(inputs),
///         other => Err(format!("{other} is not implemented")),
///     })
/// ```
///
/// The defaults are [`harness`]'s:
///
/// ```
/// let harness = onnx_conformance::Harness::new();
/// assert_eq!(harness.file(), std::path::Path::new("onnx-conformance.toml"));
/// let harness = harness.expectation_file("tests/releases.toml");
/// assert_eq!(harness.file(), std::path::Path::new("tests/releases.toml"));
/// ```
#[derive(Clone, Debug)]
pub struct Harness {
    /// `None`: onnx 1.23.2's node cases, named by their names.
    releases: Option<Vec<String>>,
    file: PathBuf,
}

impl Default for Harness {
    fn default() -> Self {
        Harness::new()
    }
}

impl Harness {
    /// onnx 1.23.2's node cases, judged by `onnx-conformance.toml` beside the crate's
    /// `Cargo.toml`: what [`harness`] runs.
    ///
    /// ```
    /// let harness = onnx_conformance::Harness::new();
    /// assert_eq!(harness.file().to_str(), Some("onnx-conformance.toml"));
    /// ```
    pub fn new() -> Harness {
        Harness {
            releases: None,
            file: PathBuf::from(FILE_NAME),
        }
    }

    /// The cases of these releases instead, each test named `<release>::<case>`, as
    /// [`harness_releases`] runs them.
    ///
    /// ```
    /// let harness = onnx_conformance::Harness::new().releases(&["1.23.2"]);
    /// # let _ = harness;
    /// ```
    pub fn releases(mut self, releases: &[&str]) -> Harness {
        self.releases = Some(releases.iter().map(|r| r.to_string()).collect());
        self
    }

    /// The expectation file: a path relative to the directory of the crate's `Cargo.toml`
    /// (`CARGO_MANIFEST_DIR`), or an absolute one. Messages name the file by this path; write
    /// mode writes it.
    ///
    /// ```
    /// let harness = onnx_conformance::Harness::new().expectation_file("tests/onnx.toml");
    /// assert_eq!(harness.file().to_str(), Some("tests/onnx.toml"));
    /// ```
    pub fn expectation_file(mut self, path: impl Into<PathBuf>) -> Harness {
        self.file = path.into();
        self
    }

    /// The expectation file's path, as given.
    ///
    /// ```
    /// assert!(onnx_conformance::Harness::new().file().is_relative());
    /// ```
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// Runs the cases through `run` and exits the process, as [`harness`] does.
    ///
    /// ```no_run
    /// onnx_conformance::Harness::new().run(|_, inputs| Ok::<_, String>(inputs))
    /// ```
    pub fn run<F, E>(self, run: F)
    where
        F: Fn(&Case, Vec<Value>) -> Result<Vec<Value>, E> + Send + Sync + 'static,
        E: Display,
    {
        let selected = match &self.releases {
            None => kit_cases(),
            Some(releases) => {
                let releases: Vec<&str> = releases.iter().map(String::as_str).collect();
                release_cases(&releases).unwrap_or_else(|error| exit_with(&error))
            }
        };
        run_harness(selected, &self.file, run)
    }
}

/// The cases a run takes, each with its test name.
pub(crate) type Selected = Vec<(String, &'static Case)>;

/// onnx 1.23.2's cases ([`cases`]), each named by its name.
pub(crate) fn kit_cases() -> Selected {
    cases().iter().map(|c| (c.name().to_string(), c)).collect()
}

/// The cases of the releases named, in that order (a release named twice, once), each named
/// `<release>::<case>`; an error for a release this build does not hold.
pub(crate) fn release_cases(releases: &[&str]) -> Result<Selected, String> {
    let mut selected = Vec::new();
    for (i, &version) in releases.iter().enumerate() {
        if releases[..i].contains(&version) {
            continue;
        }
        let Some(cases) = release(version) else {
            return Err(format!(
                "this build holds no onnx {version}: it holds {:?} (turn on the kit's feature \
                 `onnx_{}`)",
                crate::releases(),
                version.replace('.', "_")
            ));
        };
        selected.extend(
            cases
                .iter()
                .map(|c| (format!("{version}::{}", c.name()), c)),
        );
    }
    Ok(selected)
}

/// [`harness`] over the cases given, each under its test name, judged by the expectation file
/// at `file` (relative to the crate's directory, or absolute).
fn run_harness<F, E>(selected: Selected, file: &Path, run: F)
where
    F: Fn(&Case, Vec<Value>) -> Result<Vec<Value>, E> + Send + Sync + 'static,
    E: Display,
{
    let arguments = Command::from_env();
    let path = crate_dir().join(file);
    let name = file.display().to_string();
    let (expectations, rules) =
        read_expectations(&path, &name, &selected).unwrap_or_else(|faults| exit_with(&faults));
    let (conclusion, summary) = run_cases(
        &arguments,
        Arc::new(selected),
        Arc::new(rules),
        run,
        &mut std::io::stdout(),
    )
    .unwrap_or_else(|error| exit_with(&format!("writing the report: {error}")));
    if arguments.list {
        conclusion.exit()
    }
    // The kit's closing line stays the last line of the output.
    if std::env::var_os(WRITE).is_some_and(|v| v == "1") {
        let text = summary.expectations(&expectations).to_text();
        if let Err(error) = std::fs::write(&path, text) {
            exit_with(&format!("{}: {error}", path.display()));
        }
        println!(
            "\nonnx-conformance: wrote {} from this run ({WRITE}=1 exits 0)",
            path.display()
        );
        print!("{summary}");
        std::process::exit(0)
    }
    print!("{summary}");
    conclusion.exit()
}

/// The expectation file at `path` (none there: no entries) and the rule of each case; or every
/// fault of its syntax and of its coverage, for one report.
fn read_expectations(
    path: &Path,
    name: &str,
    selected: &Selected,
) -> Result<(Expectations, Vec<Option<Rule>>), String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(error) => return Err(format!("{}: {error}", path.display())),
    };
    let (mut expectations, mut faults) = Expectations::parse_partial(&text);
    expectations.file = name.to_string();
    let (rules, coverage) = expectations.resolve_partial(selected);
    faults.extend(coverage);
    if faults.is_empty() {
        Ok((expectations, rules))
    } else {
        Err(Faults::new(name, faults).to_string())
    }
}

/// The variable that turns on write mode.
const WRITE: &str = "ONNX_CONFORMANCE_WRITE";

fn exit_with(message: &dyn Display) -> ! {
    eprintln!("onnx-conformance: {message}");
    std::process::exit(2)
}

/// The directory of the crate whose tests run: relative paths of expectation files start there.
fn crate_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| PathBuf::from("."), PathBuf::from)
}

/// Runs the cases of `selected` that libtest's arguments select, each under its test name and
/// judged against its rule (by index in `selected`); the summary holds the verdict of each case
/// run.
pub(crate) fn run_cases<F, E>(
    arguments: &Arguments,
    selected: Arc<Selected>,
    rules: Arc<Vec<Option<Rule>>>,
    run: F,
    out: &mut dyn std::io::Write,
) -> std::io::Result<(Conclusion, Summary)>
where
    F: Fn(&Case, Vec<Value>) -> Result<Vec<Value>, E> + Send + Sync + 'static,
    E: Display,
{
    let run = Arc::new(run);
    let verdicts: Arc<Mutex<Vec<(usize, Verdict)>>> = Arc::default();
    let tests = selected
        .iter()
        .enumerate()
        .map(|(index, (name, case))| {
            let (run, verdicts, rules) = (run.clone(), verdicts.clone(), rules.clone());
            let listed = rules[index].is_some();
            let (case, test_name) = (*case, name.clone());
            Test {
                name: name.clone(),
                mark: listed.then_some("[expected to fail]"),
                body: Box::new(move || {
                    let verdict = judge(case, &*run);
                    let result = outcome(&test_name, &verdict, rules[index].as_ref());
                    verdicts
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push((index, verdict));
                    result
                }),
            }
        })
        .collect();
    let conclusion = runner::run(arguments, tests, out)?;
    // In the order of `selected` (the threads finish in any order).
    let mut slots: Vec<Option<Verdict>> = vec![None; selected.len()];
    for (index, verdict) in std::mem::take(&mut *verdicts.lock().unwrap_or_else(|e| e.into_inner()))
    {
        slots[index] = Some(verdict);
    }
    let verdicts = slots
        .into_iter()
        .enumerate()
        .filter_map(|(index, verdict)| Some((index, verdict?)))
        .collect();
    Ok((conclusion, Summary::new(verdicts, selected, rules)))
}

/// Whether a verdict passes its test (`name`), given the case's rule; the error says why not.
fn outcome(name: &str, verdict: &Verdict, rule: Option<&Rule>) -> Result<(), String> {
    let full = |verdict: &Verdict| match verdict {
        Verdict::Pass => String::new(),
        Verdict::Wrong { message, .. } | Verdict::Error(message) => message.clone(),
    };
    match (verdict.failure(), rule) {
        (None, None) => Ok(()),
        (Some(_), None) => Err(full(verdict)),
        (None, Some(rule)) => Err(match &rule.source {
            Source::Case => format!(
                "passes now: remove `{name}` from {} (line {})",
                rule.file, rule.entry.line
            ),
            Source::Pattern(_) | Source::Operator(_) => format!(
                "passes now, but this entry says it fails: {}; narrow it, or list the cases that \
                 still fail by name",
                rule.describe(name)
            ),
        }),
        (Some(failure), Some(rule)) if rule.admits(failure) => Ok(()),
        (Some(failure), Some(rule)) => Err(format!(
            "fails otherwise than listed: {} expects {} whose text contains {:?}, but the case \
             gives {}: {}\n{}",
            rule.describe(name),
            rule.entry.kind.describe(),
            rule.entry.reason,
            failure.kind.describe(),
            failure.text,
            full(verdict)
        )),
    }
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
            Err(mismatch) => Verdict::Wrong {
                message: mismatch.to_string(),
                summary: mismatch.summary(),
            },
        },
        Ok(Err(error)) => Verdict::Error(format!("{RUNTIME_FAILED}{error}")),
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

/// How an error's message starts (a panic's starts `the runtime panicked: `).
pub(crate) const RUNTIME_FAILED: &str = "the runtime failed: ";

#[cfg(test)]
mod tests {
    use super::*;

    use std::cell::RefCell;

    /// The cases whose names contain `filter`, one at a time.
    fn arguments(filter: &str) -> Arguments {
        Arguments {
            filters: vec![filter.to_string()],
            threads: Some(1),
            ..Arguments::default()
        }
    }

    thread_local! {
        /// The report of this thread's last run (each test has a thread of its own).
        static LOG: RefCell<String> = RefCell::default();
    }

    /// [`super::run_cases`] on 1.23.2's cases, its report kept for [`report`].
    fn run_cases<F, E>(
        arguments: &Arguments,
        rules: Arc<Vec<Option<Rule>>>,
        run: F,
    ) -> (Conclusion, Summary)
    where
        F: Fn(&Case, Vec<Value>) -> Result<Vec<Value>, E> + Send + Sync + 'static,
        E: Display,
    {
        run_selected(arguments, kit_cases(), rules, run)
    }

    /// [`super::run_cases`] on the cases given, its report kept for [`report`].
    fn run_selected<F, E>(
        arguments: &Arguments,
        selected: Selected,
        rules: Arc<Vec<Option<Rule>>>,
        run: F,
    ) -> (Conclusion, Summary)
    where
        F: Fn(&Case, Vec<Value>) -> Result<Vec<Value>, E> + Send + Sync + 'static,
        E: Display,
    {
        let mut out = Vec::new();
        let result = super::run_cases(arguments, Arc::new(selected), rules, run, &mut out).unwrap();
        LOG.with(|log| *log.borrow_mut() = String::from_utf8(out).unwrap());
        result
    }

    /// The line of the report that starts so.
    fn line_of<'a>(log: &'a str, start: &str) -> &'a str {
        log.lines()
            .find(|l| l.starts_with(start))
            .unwrap_or_default()
    }

    /// The report of this thread's last run.
    fn report(_: &Arguments) -> String {
        LOG.with(|log| log.take())
    }

    /// A runtime that errs on one case, panics on another and answers the third right: each is
    /// one case's verdict, and the run goes on to the end.
    #[test]
    fn errors_and_panics_fail_their_case_only() {
        let arguments = arguments("test_softsign");
        let (conclusion, summary) =
            run_cases(&arguments, rules(""), |case: &Case, _| match case.name() {
                "test_softsign" => Err("no Softsign"),
                "test_softsign_example" => panic!("Softsign exploded"),
                _ => Ok(case.outputs()),
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
        assert_eq!((conclusion.passed, conclusion.failed), (2, 2));
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

    /// The rules of an expectation file's text (which must be valid).
    fn rules(text: &str) -> Arc<Vec<Option<Rule>>> {
        Arc::new(Expectations::parse(text).unwrap().resolve().unwrap())
    }

    /// The libtest line of each selected case, after its name: `ok` or `FAILED`.
    fn results(log: &str) -> BTreeMap<String, String> {
        log.lines()
            .filter_map(|l| l.strip_prefix("test "))
            .filter_map(|l| {
                let l = l.strip_prefix("[expected to fail] ").unwrap_or(l);
                let (name, result) = l.split_once(" ... ")?;
                Some((name.trim().to_string(), result.trim().to_string()))
            })
            .collect()
    }

    /// Outputs that are wrong in their values: the expected ones with the first element of
    /// the first output doubled plus one.
    fn wrong_values(case: &Case) -> Vec<Value> {
        let mut outputs = case.outputs();
        let x = outputs[0].to_vec::<f32>().unwrap();
        let Value::Tensor(t) = &outputs[0] else {
            unreachable!()
        };
        let dims: Vec<usize> = t.dims.iter().map(|&d| d as usize).collect();
        let mut y = x.clone();
        y[0] = 2.0 * y[0] + 1.0;
        outputs[0] = Value::tensor(&y, &dims).unwrap();
        outputs
    }

    use std::collections::BTreeMap;

    #[test]
    fn wrong_outputs_fail_and_expected_failures_pass_until_they_pass() {
        let arguments = arguments("test_re");
        let (conclusion, summary) = run_cases(
            &arguments,
            rules(
                "[cases]\ntest_relu = { error = \"r\" }\n\
                 test_reshape_extended_dims = { wrong = \"output 0 (`reshaped`): the shape differs\" }\n",
            ),
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
            matches!(reshape, Verdict::Wrong { message, summary }
                if message.contains("expected shape [2, 3, 2, 2], got [2, 3, 4]")
                    && summary == "output 0 (`reshaped`): the shape differs"),
            "{reshape:?}"
        );
        // Every other selected case passes; Relu fails the run.
        assert_eq!(conclusion.failed, 1);
        assert_eq!(conclusion.passed, summary.verdicts().count() - 1);
        let counts = summary.counts();
        assert_eq!((counts.newly_passing, counts.expected_wrong), (1, 1));
        let text = summary.to_string();
        assert!(
            text.contains("1 expected failures (0 errors, 1 wrong outputs)"),
            "{text}"
        );
        let log = report(&arguments);
        assert!(
            log.contains("passes now: remove `test_relu` from onnx-conformance.toml (line 2)"),
            "{log}"
        );
        let reshape = line_of(&log, "test [expected to fail] test_reshape_extended_dims ");
        assert!(reshape.ends_with(" ... ok"), "{log}");
    }

    /// Each way an entry could hide a change of failure fails that case's test.
    #[test]
    fn an_entry_hides_no_change_of_failure() {
        let arguments = arguments("test_softsign");
        let (conclusion, summary) = run_cases(
            &arguments,
            rules(
                "[cases]\n\
                 # error → wrong outputs\n\
                 test_softsign = { error = \"Softsign is not implemented\" }\n\
                 # wrong outputs → error\n\
                 test_softsign_example = { wrong = \"values differ\" }\n\
                 # an error, but another one\n\
                 test_softsign_expanded_ver18 = { error = \"Softsign is not implemented\" }\n\
                 # wrong outputs, but elsewhere than recorded\n\
                 test_softsign_example_expanded_ver18 = { wrong = \"output 1\" }\n",
            ),
            |case: &Case, _| match case.name() {
                "test_softsign" => Ok(wrong_values(case)),
                "test_softsign_example" => Err("Softsign is not implemented".to_string()),
                "test_softsign_expanded_ver18" => Err("Softplus is not implemented".to_string()),
                _ => Ok(wrong_values(case)),
            },
        );
        assert_eq!((conclusion.passed, conclusion.failed), (0, 4));
        assert_eq!(summary.counts().otherwise, 4);
        let log = report(&arguments);
        assert!(results(&log).values().all(|r| r == "FAILED"), "{log}");
        assert!(
            log.contains(
                "fails otherwise than listed: onnx-conformance.toml:3, [cases] test_softsign = \
                 { error = \"Softsign is not implemented\" } expects an error whose text contains \
                 \"Softsign is not implemented\", but the case gives wrong outputs: output 0 \
                 (`y`): values differ\ntest_softsign: output 0 (`y`): element 0 (at [0, 0, 0]): expected "
            ),
            "{log}"
        );
        assert!(
            log.contains(
                "but the case gives an error: the runtime failed: Softsign is not implemented\n"
            ),
            "{log}"
        );
        assert!(
            log.contains(
                "but the case gives an error: the runtime failed: Softplus is not implemented\n"
            ),
            "{log}"
        );
        // The mismatch in the log counts the elements that differ.
        assert!(log.contains("; 1 of 3 elements differs\n"), "{log}");
    }

    /// The same runtime, with entries that say how each case fails: every test passes.
    #[test]
    fn entries_that_say_how_cases_fail_keep_the_run_green() {
        let arguments = arguments("test_softsign");
        let (conclusion, summary) = run_cases(
            &arguments,
            rules(
                "[cases]\n\
                 test_softsign = { wrong = \"output 0 (`y`): values differ\" }\n\
                 test_softsign_example = { error = \"Softsign is not implemented\" }\n\
                 test_softsign_expanded_ver18 = { error = \"the runtime failed: Softplus\" }\n\
                 test_softsign_example_expanded_ver18 = { wrong = \"\" }\n",
            ),
            |case: &Case, _| match case.name() {
                "test_softsign" => Ok(wrong_values(case)),
                "test_softsign_example" => Err("Softsign is not implemented".to_string()),
                "test_softsign_expanded_ver18" => Err("Softplus is not implemented".to_string()),
                _ => Ok(wrong_values(case)),
            },
        );
        assert_eq!((conclusion.passed, conclusion.failed), (4, 0));
        let counts = summary.counts();
        assert_eq!((counts.expected_errors, counts.expected_wrong), (2, 2));
        let text = summary.to_string();
        assert!(
            text.ends_with(
                "\nonnx-conformance result: ok. 0 passed; 0 failed; 0 newly passing; 4 expected failures (2 errors, \
                 2 wrong outputs); 1880 filtered out\n"
            ),
            "{text}"
        );
        report(&arguments);
    }

    /// An operator's entry covers its cases but the `_expanded` ones; a pattern's, every case
    /// whose name matches, and a case that passes under either fails the run.
    #[test]
    fn operator_and_pattern_entries_cover_their_cases_and_hide_no_pass() {
        let runtime = |case: &Case, _: Vec<Value>| {
            if case.name().contains("_expanded") {
                Ok(case.outputs())
            } else {
                Err(format!("{} is not implemented", case.op_type()))
            }
        };
        let arguments = arguments("test_softsign");
        let (conclusion, _) = run_cases(
            &arguments,
            rules("[operators]\nSoftsign = { error = \"Softsign is not implemented\" }\n"),
            runtime,
        );
        assert_eq!((conclusion.passed, conclusion.failed), (4, 0));
        let log = report(&arguments);
        assert!(
            line_of(&log, "test [expected to fail] test_softsign_example ").ends_with(" ... ok"),
            "{log}"
        );
        assert_eq!(results(&log)["test_softsign_expanded_ver18"], "ok", "{log}");

        let arguments = super::tests::arguments("test_softsign");
        let (conclusion, summary) = run_cases(
            &arguments,
            rules("[patterns]\n\"test_softsign*\" = { error = \"Softsign is not implemented\" }\n"),
            runtime,
        );
        assert_eq!((conclusion.passed, conclusion.failed), (2, 2));
        assert_eq!(summary.counts().newly_passing, 2);
        let log = report(&arguments);
        assert!(
            log.contains(
                "passes now, but this entry says it fails: onnx-conformance.toml:2, [patterns] \
                 \"test_softsign*\" = { error = \"Softsign is not implemented\" }"
            ),
            "{log}"
        );
        let found = results(&log);
        assert_eq!(found["test_softsign_expanded_ver18"], "FAILED", "{log}");
        assert_eq!(found["test_softsign"], "ok", "{log}");
    }

    /// A case's own entry comes before a pattern's, and a pattern before an operator's.
    #[test]
    fn a_case_entry_overrides_a_pattern_which_overrides_an_operator() {
        let rules = rules(
            "[operators]\nSoftsign = { wrong = \"values differ\" }\n\
             [patterns]\n\"test_softsign_ex*\" = { error = \"pattern\" }\n\
             [cases]\ntest_softsign_example_expanded_ver18 = { error = \"case\" }\n",
        );
        let rule_of = |name: &str| {
            let index = cases().iter().position(|c| c.name() == name).unwrap();
            rules[index].clone().map(|r| (r.source, r.entry.reason))
        };
        assert_eq!(
            rule_of("test_softsign_example_expanded_ver18"),
            Some((Source::Case, "case".to_string()))
        );
        assert_eq!(
            rule_of("test_softsign_expanded_ver18"),
            Some((
                Source::Pattern("test_softsign_ex*".into()),
                "pattern".to_string()
            ))
        );
        assert_eq!(
            rule_of("test_softsign_example"),
            Some((
                Source::Pattern("test_softsign_ex*".into()),
                "pattern".to_string()
            ))
        );
        assert_eq!(
            rule_of("test_softsign"),
            Some((
                Source::Operator("Softsign".into()),
                "values differ".to_string()
            ))
        );
        assert_eq!(rule_of("test_relu"), None);
    }

    /// harness_releases' cases: each a test named `<release>::<case>`, selected by filters under
    /// that name, judged by an entry of that name, counted in the summary and the closing line,
    /// and written back under that name.
    #[cfg(feature = "onnx_1_9_0")]
    #[test]
    fn release_cases_run_under_their_release_names() {
        let selected = release_cases(&["1.9.0", "1.23.2", "1.9.0"]).unwrap();
        let (old, new) = (release("1.9.0").unwrap(), release("1.23.2").unwrap());
        // A release named twice is taken once.
        assert_eq!(selected.len(), old.len() + new.len());
        assert_eq!(selected[0].0, format!("1.9.0::{}", old[0].name()));
        assert_eq!(selected[old.len()].0, format!("1.23.2::{}", new[0].name()));
        let softsign_9 = selected
            .iter()
            .find(|(name, _)| name == "1.9.0::test_softsign")
            .unwrap()
            .1;
        assert_eq!(softsign_9.opset_version(), 9);
        // Fails 1.9.0's test_softsign only (1.23.2's has the same case name).
        let runtime = move |case: &Case, _: Vec<Value>| {
            if std::ptr::eq(case, softsign_9) {
                Err("no Softsign-9".to_string())
            } else {
                Ok(case.outputs())
            }
        };
        let filtered_out = selected.len() - 6;

        // No entry: the filter takes both releases' Softsign cases, and 1.9.0's fails.
        let arguments = arguments("::test_softsign");
        let no_rules = Arc::new(Expectations::default().resolve_for(&selected).unwrap());
        let (conclusion, summary) = run_selected(&arguments, selected.clone(), no_rules, runtime);
        let log = report(&arguments);
        let found = results(&log);
        assert_eq!(
            found.keys().map(String::as_str).collect::<Vec<_>>(),
            [
                "1.23.2::test_softsign",
                "1.23.2::test_softsign_example",
                "1.23.2::test_softsign_example_expanded_ver18",
                "1.23.2::test_softsign_expanded_ver18",
                "1.9.0::test_softsign",
                "1.9.0::test_softsign_example",
            ],
            "{log}"
        );
        assert_eq!(found["1.9.0::test_softsign"], "FAILED", "{log}");
        assert!(log.contains("the runtime failed: no Softsign-9"), "{log}");
        assert_eq!((conclusion.passed, conclusion.failed), (5, 1));
        let text = summary.to_string();
        assert!(text.contains("\n  Softsign 5/6\n"), "{text}");
        assert!(
            text.ends_with(&format!(
                "\nonnx-conformance result: FAILED. 5 passed; 1 failed; 0 newly passing; 0 expected failures (0 \
                 errors, 0 wrong outputs); {filtered_out} filtered out\n"
            )),
            "{text}"
        );

        // An entry under the test name: an expected failure, and the run is green.
        let expectations = Expectations::parse(
            "[cases]\n\"1.9.0::test_softsign\" = { error = \"no Softsign\" }\n",
        )
        .unwrap();
        let rules = Arc::new(expectations.resolve_for(&selected).unwrap());
        let (conclusion, summary) = run_selected(&arguments, selected.clone(), rules, runtime);
        let log = report(&arguments);
        assert_eq!((conclusion.passed, conclusion.failed), (6, 0), "{log}");
        assert!(
            line_of(&log, "test [expected to fail] 1.9.0::test_softsign ").ends_with(" ... ok"),
            "{log}"
        );
        let text = summary.to_string();
        assert!(
            text.ends_with(&format!(
                "\nonnx-conformance result: ok. 5 passed; 0 failed; 0 newly passing; 1 expected failures (1 \
                 errors, 0 wrong outputs); {filtered_out} filtered out\n"
            )),
            "{text}"
        );
        // Write mode keeps it under that name; the file reads back and resolves.
        let written = summary.expectations(&expectations).to_text();
        assert!(
            written.ends_with("[cases]\n\"1.9.0::test_softsign\" = { error = \"no Softsign\" }\n"),
            "{written}"
        );
        Expectations::parse(&written)
            .unwrap()
            .resolve_for(&selected)
            .unwrap();

        // 1.23.2's name alone names no case of this run; a pattern goes by the test name.
        let bare = Expectations::parse("[cases]\ntest_softsign = { error = \"\" }\n").unwrap();
        assert_eq!(
            bare.resolve_for(&selected).unwrap_err().first().message,
            "no case is named `test_softsign`"
        );
        let pattern =
            Expectations::parse("[patterns]\n\"1.9.0::test_softs*\" = { error = \"\" }\n")
                .unwrap()
                .resolve_for(&selected)
                .unwrap();
        let covered: Vec<&str> = selected
            .iter()
            .zip(pattern.iter())
            .filter(|(_, rule)| rule.is_some())
            .map(|((name, _), _)| name.as_str())
            .collect();
        assert_eq!(
            covered,
            ["1.9.0::test_softsign", "1.9.0::test_softsign_example"]
        );
        // An operator's entry covers its node tests in every release of the run.
        let operator = Expectations::parse("[operators]\nSoftsign = { error = \"\" }\n")
            .unwrap()
            .resolve_for(&selected)
            .unwrap();
        assert_eq!(operator.iter().filter(|rule| rule.is_some()).count(), 4);

        // A model test is counted under its suite.
        let arguments = super::tests::arguments("1.9.0::test_single_relu_model");
        let (conclusion, summary) = run_selected(
            &arguments,
            selected.clone(),
            Arc::new(Expectations::default().resolve_for(&selected).unwrap()),
            runtime,
        );
        report(&arguments);
        assert_eq!((conclusion.passed, conclusion.failed), (1, 0));
        let text = summary.to_string();
        assert!(text.contains("\n  (simple models) 1/1\n"), "{text}");

        let error = release_cases(&["1.9.0", "1.0"]).unwrap_err();
        assert!(
            error.starts_with("this build holds no onnx 1.0: it holds [")
                && error.contains("\"1.9.0\", ")
                && error.ends_with("(turn on the kit's feature `onnx_1_0`)"),
            "{error}"
        );
    }

    /// A write run keeps what still holds, replaces what does not, and drops what passes.
    #[test]
    fn write_mode_records_failures_and_keeps_reasons_that_still_hold() {
        let old = Expectations::parse(
            "[operators]\n\
             Softsign = { error = \"not implemented\" }\n\
             Relu = { error = \"Relu is not implemented\" }\n\
             [patterns]\n\
             \"test_reshape_*\" = { error = \"Reshape is not implemented\" }\n\
             [cases]\n\
             test_reshape_extended_dims = { error = \"kept, not run\" }\n\
             test_softsign_expanded_ver18 = { wrong = \"values\" }\n\
             test_softsign_example_expanded_ver18 = { error = \"now passes\" }\n",
        )
        .unwrap();
        let arguments = arguments("test_softsign");
        let rules = Arc::new(old.resolve().unwrap());
        let (_, summary) = run_cases(&arguments, rules, |case: &Case, _| match case.name() {
            // Still fails as its operator says: the operator entry stays.
            "test_softsign" | "test_softsign_example" => {
                Err("Softsign is not implemented\nmore lines".to_string())
            }
            // Fails otherwise than its entry: the new failure is recorded.
            "test_softsign_expanded_ver18" => Err("out of memory".to_string()),
            _ => Ok(case.outputs()),
        });
        report(&arguments);
        let new = summary.expectations(&old);
        assert_eq!(
            new.to_text().split_once("\n\n").unwrap().1,
            "[operators]\n\
             Relu = { error = \"Relu is not implemented\" }\n\
             Softsign = { error = \"not implemented\" }\n\
             \n[patterns]\n\
             \"test_reshape_*\" = { error = \"Reshape is not implemented\" }\n\
             \n[cases]\n\
             test_reshape_extended_dims = { error = \"kept, not run\" }\n\
             test_softsign_expanded_ver18 = \"error\"\n"
        );
        // The file it writes reads back as it was made.
        assert_eq!(
            Expectations::parse(&new.to_text()).unwrap().to_text(),
            new.to_text()
        );

        // Now a Softsign case gives wrong outputs: the operator entry gives way to one entry
        // per case of it, the one that still fails as it said keeping its reason.
        let arguments = super::tests::arguments("test_softsign");
        let rules = Arc::new(new.resolve().unwrap());
        let (_, summary) = run_cases(&arguments, rules, |case: &Case, _| match case.name() {
            "test_softsign" => Err("Softsign is not implemented".to_string()),
            "test_softsign_example" => Ok(wrong_values(case)),
            _ => Ok(case.outputs()),
        });
        report(&arguments);
        let newer = summary.expectations(&new);
        assert_eq!(
            newer.to_text().split_once("\n\n").unwrap().1,
            "[operators]\n\
             Relu = { error = \"Relu is not implemented\" }\n\
             \n[patterns]\n\
             \"test_reshape_*\" = { error = \"Reshape is not implemented\" }\n\
             \n[cases]\n\
             test_reshape_extended_dims = { error = \"kept, not run\" }\n\
             test_softsign = { error = \"not implemented\" }\n\
             test_softsign_example = \"wrong\"\n"
        );
    }

    /// Write mode gives an operator whose every case fails alike one entry, of the kind alone;
    /// an operator whose cases fail in different ways, or some of whose cases did not run, keeps
    /// an entry per case.
    #[test]
    fn write_mode_groups_an_operator_whose_cases_all_fail_alike() {
        let no_entries = Expectations::default();
        let run = |filter: &str, runtime: fn(&Case) -> Result<Vec<Value>, String>| {
            let arguments = arguments(filter);
            let (_, summary) = run_cases(
                &arguments,
                Arc::new(no_entries.resolve().unwrap()),
                move |case: &Case, _| runtime(case),
            );
            report(&arguments);
            let written = summary.expectations(&no_entries);
            // What it writes reads back, and covers exactly the failing cases.
            written.resolve().unwrap();
            written.to_text().split_once("\n\n").unwrap().1.to_string()
        };
        // Every Softsign case errs, each with its own message; the expanded ones pass.
        let errs = |case: &Case| {
            if case.name().contains("_expanded") {
                Ok(case.outputs())
            } else {
                Err(format!("{} cannot run Softsign", case.name()))
            }
        };
        assert_eq!(
            run("test_softsign", errs),
            "[operators]\nSoftsign = \"error\"\n\n[cases]\n"
        );
        // One errs, the other gives wrong outputs.
        let mixed = |case: &Case| match case.name() {
            "test_softsign" => Err("no".to_string()),
            "test_softsign_example" => Ok(wrong_values(case)),
            _ => Ok(case.outputs()),
        };
        assert_eq!(
            run("test_softsign", mixed),
            "[cases]\ntest_softsign = \"error\"\ntest_softsign_example = \"wrong\"\n"
        );
        // The `_expanded` cases run other operators: an operator's entry leaves them out.
        assert_eq!(
            run("test_softsign", |case| Err(case.name().to_string())),
            "[operators]\nSoftsign = \"error\"\n\n[cases]\n\
             test_softsign_example_expanded_ver18 = \"error\"\n\
             test_softsign_expanded_ver18 = \"error\"\n"
        );
        // test_softsign did not run: nothing says how it fails.
        let one_run = |case: &Case| Err::<Vec<Value>, _>(case.name().to_string());
        assert_eq!(
            run("test_softsign_example", one_run),
            "[cases]\ntest_softsign_example = \"error\"\n\
             test_softsign_example_expanded_ver18 = \"error\"\n"
        );
    }

    /// An entry of the kind alone holds for any message of that kind, so that a runtime that
    /// rewords its errors keeps its file; a text narrows it to the messages that contain it.
    #[test]
    fn an_entry_matches_the_kind_and_a_text_only_where_given() {
        let arguments = arguments("test_softsign");
        let reworded = |case: &Case, _: Vec<Value>| match case.name() {
            "test_softsign" => Err("Softsign: unsupported operator".to_string()),
            "test_softsign_example" => Ok(wrong_values(case)),
            _ => Ok(case.outputs()),
        };
        let (conclusion, summary) = run_cases(
            &arguments,
            rules("[cases]\ntest_softsign = \"error\"\ntest_softsign_example = \"wrong\"\n"),
            reworded,
        );
        report(&arguments);
        assert_eq!((conclusion.passed, conclusion.failed), (4, 0));
        let counts = summary.counts();
        assert_eq!((counts.expected_errors, counts.expected_wrong), (1, 1));
        // The kinds swapped: both fail.
        let (conclusion, _) = run_cases(
            &arguments,
            rules("[cases]\ntest_softsign = \"wrong\"\ntest_softsign_example = \"error\"\n"),
            reworded,
        );
        let log = report(&arguments);
        assert_eq!((conclusion.passed, conclusion.failed), (2, 2), "{log}");
        // A text that the message no longer contains.
        let (conclusion, _) = run_cases(
            &arguments,
            rules(
                "[cases]\ntest_softsign = { error = \"Softsign is not implemented\" }\n\
                   test_softsign_example = \"wrong\"\n",
            ),
            reworded,
        );
        let log = report(&arguments);
        assert_eq!((conclusion.passed, conclusion.failed), (3, 1), "{log}");
        assert_eq!(results(&log)["test_softsign"], "FAILED", "{log}");
    }

    /// A case whose own entry goes (it passes now) falls under a pattern that says it fails:
    /// the write run breaks the pattern up rather than leave a file that fails the next run.
    #[test]
    fn write_mode_leaves_no_group_over_a_passing_case() {
        let old = Expectations::parse(
            "[patterns]\n\"test_softsign_ex*\" = { error = \"no Softplus\" }\n\
             [cases]\ntest_softsign_example_expanded_ver18 = { error = \"no Exp\" }\n",
        )
        .unwrap();
        let arguments = arguments("test_softsign_ex");
        let (_, summary) = run_cases(
            &arguments,
            Arc::new(old.resolve().unwrap()),
            |case: &Case, _| match case.name() {
                "test_softsign_example_expanded_ver18" => Ok(case.outputs()),
                _ => Err("no Softplus".to_string()),
            },
        );
        report(&arguments);
        let new = summary.expectations(&old);
        assert_eq!(
            new.to_text().split_once("\n\n").unwrap().1,
            "[cases]\ntest_softsign_example = { error = \"no Softplus\" }\n\
             test_softsign_expanded_ver18 = { error = \"no Softplus\" }\n"
        );
        new.resolve().unwrap();
    }
}
