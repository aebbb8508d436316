//! A test runner that takes libtest's options and prints its report, for tests made at run time
//! (one per case): what `cargo test` expects of a `harness = false` test target.
//!
//! The kit had used libtest-mimic, a well-kept crate for exactly this; but it parses its
//! options with clap and clap's derive, which took more of a runtime's cold test build than the
//! kit's 1,884 cases (`docs/conformance.md` has the figures). This is the part of it the kit
//! needs: libtest's options as `cargo test` passes them, tests on threads, and its report.

use std::io::{self, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::AtomicBool;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Instant;

/// libtest's options, as far as the kit's tests have a use for them.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Arguments {
    /// Run the tests whose names contain one of these (all when empty).
    pub filters: Vec<String>,
    /// Leave out the tests whose names contain one of these.
    pub skip: Vec<String>,
    /// Filters and skips match whole names.
    pub exact: bool,
    /// List the tests instead of running them.
    pub list: bool,
    /// Run only the ignored tests (the kit has none).
    pub ignored: bool,
    /// A line per test (`false`), or a character per test (`-q`, `--format terse`).
    pub terse: bool,
    /// How many tests run at once: `--test-threads`, else `RUST_TEST_THREADS`, else the
    /// machine's parallelism.
    pub threads: Option<usize>,
    /// `--bench`: run benchmarks only (the kit has none).
    pub bench: bool,
}

const USAGE: &str = "\
Usage: cargo test --test onnx -- [OPTIONS] [FILTERS...]

Runs onnx-conformance's cases, each a test named as the case (1.9.0::test_abs for a
case of an older release). Options, as libtest's:
  FILTERS              run the tests whose names contain one of these
  --exact              filters (and --skip) match whole names
  --skip FILTER        leave out the tests whose names contain FILTER (repeatable)
  --list               list the tests, do not run them
  --test-threads N     run N tests at once (default: RUST_TEST_THREADS, else the machine's)
  -q, --quiet          one character per test (as --format terse)
  --format pretty|terse
  --ignored            run only ignored tests (there are none)
  --include-ignored    run ignored tests too (there are none)
  --nocapture, --show-output, --color WHEN
                       accepted; the cases' output is not captured, and the report has no color
  -h, --help           this text

ONNX_CONFORMANCE_WRITE=1 rewrites onnx-conformance.toml from the run (see the crate docs).
";

/// What reading the command line asks for.
#[derive(Debug, PartialEq)]
pub(crate) enum Command {
    Run(Arguments),
    Help,
}

impl Command {
    /// Reads the options after the program's name.
    pub(crate) fn parse(args: impl IntoIterator<Item = String>) -> Result<Command, String> {
        let mut arguments = Arguments::default();
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            // `--name=value` is `--name value`.
            let (name, mut inline) = match arg.split_once('=') {
                Some((name, value)) if name.starts_with("--") => {
                    (name.to_string(), Some(value.to_string()))
                }
                _ => (arg.clone(), None),
            };
            let mut value = |what: &str| -> Result<String, String> {
                inline
                    .take()
                    .or_else(|| args.next())
                    .ok_or_else(|| format!("`{name}` needs {what}"))
            };
            match name.as_str() {
                "-h" | "--help" => return Ok(Command::Help),
                "--exact" => arguments.exact = true,
                "--list" => arguments.list = true,
                "--ignored" => arguments.ignored = true,
                "--include-ignored" => {}
                "-q" | "--quiet" => arguments.terse = true,
                "--nocapture" | "--no-capture" | "--show-output" | "--test" => {}
                "--bench" => arguments.bench = true,
                "--skip" => arguments.skip.push(value("a filter")?),
                "--test-threads" => {
                    let n = value("a number")?;
                    match n.parse::<usize>() {
                        Ok(n) if n > 0 => arguments.threads = Some(n),
                        _ => {
                            return Err(format!(
                                "`--test-threads` takes a number over 0, not `{n}`"
                            ));
                        }
                    }
                }
                "--color" => match value("auto, always or never")?.as_str() {
                    "auto" | "always" | "never" => {}
                    other => {
                        return Err(format!(
                            "`--color` takes auto, always or never, not `{other}`"
                        ));
                    }
                },
                "--format" => match value("pretty or terse")?.as_str() {
                    "pretty" => arguments.terse = false,
                    "terse" => arguments.terse = true,
                    other => {
                        return Err(format!(
                            "`--format` takes pretty or terse here, not `{other}`"
                        ));
                    }
                },
                option if option.starts_with('-') && option != "-" => {
                    return Err(format!(
                        "`{option}` is not an option of this harness (`--help` lists them)"
                    ));
                }
                _ => arguments.filters.push(arg),
            }
            if let Some(extra) = inline {
                return Err(format!("`{name}` takes no value, not `{extra}`"));
            }
        }
        Ok(Command::Run(arguments))
    }

    /// The command line of this process, or its usage printed and the process ended.
    pub(crate) fn from_env() -> Arguments {
        match Command::parse(std::env::args().skip(1)) {
            Ok(Command::Run(arguments)) => arguments,
            Ok(Command::Help) => {
                print!("{USAGE}");
                std::process::exit(0)
            }
            Err(message) => {
                eprintln!("onnx-conformance: {message}");
                std::process::exit(2)
            }
        }
    }
}

impl Arguments {
    /// Whether the test of this name runs.
    pub(crate) fn selects(&self, name: &str) -> bool {
        let hit = |filter: &String| {
            if self.exact {
                name == filter
            } else {
                name.contains(filter.as_str())
            }
        };
        (self.filters.is_empty() || self.filters.iter().any(hit)) && !self.skip.iter().any(hit)
    }
}

/// One test: its name, a mark shown before it (`[expected to fail]`), and its body, which says
/// why it failed.
pub(crate) struct Test {
    pub name: String,
    pub mark: Option<&'static str>,
    pub body: Box<dyn FnOnce() -> Result<(), String> + Send>,
}

/// How a run went.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Conclusion {
    pub passed: usize,
    pub failed: usize,
    pub filtered_out: usize,
}

impl Conclusion {
    /// Ends the process as libtest does: 101 when a test failed, else 0.
    pub(crate) fn exit(&self) -> ! {
        std::process::exit(if self.failed > 0 { 101 } else { 0 })
    }
}

/// Runs the selected tests, or lists them, writing libtest's report to `out`.
pub(crate) fn run(
    arguments: &Arguments,
    tests: Vec<Test>,
    out: &mut dyn Write,
) -> io::Result<Conclusion> {
    let total = tests.len();
    // The kit's tests are neither ignored nor benchmarks.
    let selected: Vec<Test> = if arguments.ignored || arguments.bench {
        Vec::new()
    } else {
        tests
            .into_iter()
            .filter(|t| arguments.selects(&t.name))
            .collect()
    };
    let filtered_out = total - selected.len();
    if arguments.list {
        for test in &selected {
            writeln!(out, "{}: test", test.name)?;
        }
        writeln!(out, "\n{} tests, 0 benchmarks", selected.len())?;
        return Ok(Conclusion {
            filtered_out,
            ..Conclusion::default()
        });
    }
    let start = Instant::now();
    writeln!(
        out,
        "\nrunning {} test{}",
        selected.len(),
        plural(selected.len())
    )?;
    out.flush()?;
    let threads = arguments
        .threads
        .or_else(|| {
            std::env::var("RUST_TEST_THREADS")
                .ok()?
                .parse()
                .ok()
                .filter(|&n| n > 0)
        })
        .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
        .unwrap_or(1)
        .min(selected.len().max(1));
    let names: Vec<(String, Option<&'static str>)> =
        selected.iter().map(|t| (t.name.clone(), t.mark)).collect();
    // Shared by reference: the threads are scoped.
    let queue: Mutex<Vec<Option<Test>>> = Mutex::new(selected.into_iter().map(Some).collect());
    let next = AtomicUsize::new(0);
    let count = names.len();
    let finished = Finished {
        state: Mutex::new(Progress {
            results: Vec::new(),
            running: threads,
        }),
        changed: Condvar::new(),
        stop: AtomicBool::new(false),
    };
    let mut failures: Vec<(String, String)> = Vec::new();
    let mut conclusion = Conclusion {
        filtered_out,
        ..Conclusion::default()
    };
    std::thread::scope(|scope| -> io::Result<()> {
        for _ in 0..threads {
            let (queue, next, finished) = (&queue, &next, &finished);
            scope.spawn(move || {
                while !finished.stop.load(Ordering::Relaxed) {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= count {
                        break;
                    }
                    let test = lock(queue)[index].take();
                    let Some(test) = test else { continue };
                    let result =
                        catch_unwind(AssertUnwindSafe(test.body)).unwrap_or_else(|panic| {
                            let message = panic
                                .downcast_ref::<&str>()
                                .map(|s| s.to_string())
                                .or_else(|| panic.downcast_ref::<String>().cloned())
                                .unwrap_or_else(|| "a panic without a message".to_string());
                            Err(format!("the test panicked: {message}"))
                        });
                    lock(&finished.state).results.push((index, result));
                    finished.changed.notify_one();
                }
                lock(&finished.state).running -= 1;
                finished.changed.notify_one();
            });
        }
        // Stops the threads (after the tests they run now) should the report fail.
        let mut report = |out: &mut dyn Write| -> io::Result<()> {
            let mut column = 0;
            while let Some(results) = finished.wait() {
                for (index, result) in results {
                    let (name, mark) = &names[index];
                    let ok = result.is_ok();
                    if arguments.terse {
                        write!(out, "{}", if ok { '.' } else { 'F' })?;
                        column += 1;
                        if column % 88 == 0 {
                            writeln!(out, " {column}/{count}")?;
                        }
                    } else {
                        let label = match mark {
                            Some(mark) => format!("{mark} {name}"),
                            None => name.clone(),
                        };
                        writeln!(out, "test {label} ... {}", if ok { "ok" } else { "FAILED" })?;
                    }
                    out.flush()?;
                    match result {
                        Ok(()) => conclusion.passed += 1,
                        Err(message) => {
                            conclusion.failed += 1;
                            failures.push((name.clone(), message));
                        }
                    }
                }
            }
            if arguments.terse && column % 88 != 0 {
                writeln!(out)?;
            }
            Ok(())
        };
        report(out).inspect_err(|_| finished.stop.store(true, Ordering::Relaxed))
    })?;
    if !failures.is_empty() {
        failures.sort();
        writeln!(out, "\nfailures:\n")?;
        for (name, message) in &failures {
            writeln!(out, "---- {name} ----\n{message}\n")?;
        }
        writeln!(out, "\nfailures:")?;
        for (name, _) in &failures {
            writeln!(out, "    {name}")?;
        }
    }
    writeln!(
        out,
        "\ntest result: {}. {} passed; {} failed; 0 ignored; 0 measured; {} filtered out; \
         finished in {:.2}s",
        if conclusion.failed == 0 {
            "ok"
        } else {
            "FAILED"
        },
        conclusion.passed,
        conclusion.failed,
        conclusion.filtered_out,
        start.elapsed().as_secs_f64()
    )?;
    out.flush()?;
    Ok(conclusion)
}

/// The results of the tests run so far and not yet reported, shared by the threads that run
/// them and the one that reports them (in the order they finish).
struct Finished {
    state: Mutex<Progress>,
    changed: Condvar,
    /// Set when the report cannot be written: the threads take no more tests.
    stop: AtomicBool,
}

struct Progress {
    results: Vec<(usize, Result<(), String>)>,
    /// The threads that may still add results.
    running: usize,
}

impl Finished {
    /// The results that came since the last call, once there are some; `None` once every
    /// thread is done and every result was taken.
    fn wait(&self) -> Option<Vec<(usize, Result<(), String>)>> {
        let mut state = lock(&self.state);
        while state.results.is_empty() && state.running > 0 {
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        (!state.results.is_empty()).then(|| std::mem::take(&mut state.results))
    }
}

/// A lock that a panicking test cannot poison for the others.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Command, String> {
        Command::parse(args.iter().map(|s| s.to_string()))
    }

    fn arguments(args: &[&str]) -> Arguments {
        match parse(args).unwrap() {
            Command::Run(arguments) => arguments,
            Command::Help => panic!("help"),
        }
    }

    #[test]
    fn reads_libtests_options_as_cargo_passes_them() {
        assert_eq!(arguments(&[]), Arguments::default());
        let a = arguments(&[
            "abs",
            "--exact",
            "--skip",
            "x",
            "--skip=y",
            "--test-threads",
            "3",
            "-q",
            "relu",
            "--nocapture",
            "--color=never",
            "--include-ignored",
            "--show-output",
        ]);
        assert_eq!(a.filters, ["abs", "relu"]);
        assert_eq!(a.skip, ["x", "y"]);
        assert!(a.exact && a.terse && !a.list && !a.ignored);
        assert_eq!(a.threads, Some(3));
        assert!(arguments(&["--list", "--format", "terse"]).list);
        assert!(!arguments(&["-q", "--format=pretty"]).terse);
        assert!(arguments(&["--ignored"]).ignored);
        assert!(arguments(&["--bench"]).bench);
        assert_eq!(arguments(&["--test-threads=1"]).threads, Some(1));
        assert_eq!(parse(&["--help"]), Ok(Command::Help));
        assert_eq!(parse(&["abs", "-h"]), Ok(Command::Help));
    }

    #[test]
    fn refuses_what_it_does_not_take_with_a_reason() {
        for (args, message) in [
            (
                &["--frobnicate"][..],
                "`--frobnicate` is not an option of this harness (`--help` lists them)",
            ),
            (&["--skip"], "`--skip` needs a filter"),
            (
                &["--test-threads", "0"],
                "`--test-threads` takes a number over 0, not `0`",
            ),
            (
                &["--test-threads=x"],
                "`--test-threads` takes a number over 0, not `x`",
            ),
            (
                &["--format", "json"],
                "`--format` takes pretty or terse here, not `json`",
            ),
            (
                &["--color", "pink"],
                "`--color` takes auto, always or never, not `pink`",
            ),
            (&["--exact=yes"], "`--exact` takes no value, not `yes`"),
        ] {
            assert_eq!(parse(args), Err(message.to_string()), "{args:?}");
        }
    }

    #[test]
    fn filters_skips_and_exact_names() {
        let a = arguments(&["soft", "--skip", "expanded"]);
        assert!(a.selects("test_softsign") && !a.selects("test_softsign_expanded"));
        assert!(!a.selects("test_relu"));
        let a = arguments(&["test_abs", "--exact"]);
        assert!(a.selects("test_abs") && !a.selects("test_abs_expanded"));
        assert!(arguments(&[]).selects("anything"));
    }

    fn tests() -> Vec<Test> {
        let test = |name: &str, mark, result: Result<(), &'static str>| Test {
            name: name.to_string(),
            mark,
            body: Box::new(move || result.map_err(str::to_string)),
        };
        vec![
            test("a_pass", None, Ok(())),
            test("b_fail", None, Err("b went wrong\nsecond line")),
            test("c_expected", Some("[expected to fail]"), Ok(())),
            Test {
                name: "d_panic".into(),
                mark: None,
                body: Box::new(|| panic!("d exploded")),
            },
            test("e_other", None, Ok(())),
        ]
    }

    fn report(args: &[&str]) -> (Conclusion, String) {
        let mut out = Vec::new();
        let conclusion = run(&arguments(args), tests(), &mut out).unwrap();
        (conclusion, String::from_utf8(out).unwrap())
    }

    #[test]
    fn reports_as_libtest_does() {
        let (conclusion, text) = report(&["--test-threads", "1", "--skip", "e_"]);
        assert_eq!(
            conclusion,
            Conclusion {
                passed: 2,
                failed: 2,
                filtered_out: 1
            }
        );
        let (head, tail) = text.split_once("\ntest result: ").unwrap();
        assert_eq!(
            head,
            "\nrunning 4 tests\n\
             test a_pass ... ok\n\
             test b_fail ... FAILED\n\
             test [expected to fail] c_expected ... ok\n\
             test d_panic ... FAILED\n\
             \nfailures:\n\n\
             ---- b_fail ----\nb went wrong\nsecond line\n\n\
             ---- d_panic ----\nthe test panicked: d exploded\n\n\
             \nfailures:\n    b_fail\n    d_panic\n"
        );
        assert!(
            tail.starts_with(
                "FAILED. 2 passed; 2 failed; 0 ignored; 0 measured; 1 filtered out; finished in "
            ),
            "{tail}"
        );
    }

    #[test]
    fn every_test_runs_once_on_many_threads() {
        let (conclusion, text) = report(&["--test-threads", "4"]);
        assert_eq!((conclusion.passed, conclusion.failed), (3, 2));
        for name in ["a_pass", "b_fail", "c_expected", "d_panic", "e_other"] {
            assert_eq!(text.matches(&format!(" {name} ... ")).count(), 1, "{text}");
        }
    }

    #[test]
    fn terse_lists_and_nothing_to_run() {
        let (_, text) = report(&["-q", "--test-threads=1"]);
        assert!(
            text.starts_with("\nrunning 5 tests\n.F.F.\n\nfailures:"),
            "{text}"
        );
        let (conclusion, text) = report(&["--list", "_e"]);
        assert_eq!(text, "c_expected: test\n\n1 tests, 0 benchmarks\n");
        assert_eq!((conclusion.passed, conclusion.filtered_out), (0, 4));
        let (conclusion, text) = report(&["--ignored"]);
        assert_eq!(conclusion.filtered_out, 5);
        assert!(
            text.contains("running 0 tests\n\ntest result: ok. 0 passed"),
            "{text}"
        );
    }
}
