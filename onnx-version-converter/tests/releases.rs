//! The proof: every distinct node case and model test of every onnx release (1.4.1 to 1.23.2),
//! converted to every opset from 7 to the newest. The model tests (most exported by PyTorch at
//! opset 6) are counted apart, as "models up" and "models down". Each converted model must pass the project's checker;
//! where onnx-eval passes the original case, the converted one must give the case's expected
//! outputs. A refusal must be listed, with its reason, in `releases.expected`; a listed one that
//! now converts fails too.
//!
//! `cargo test -p onnx-version-converter --test releases` checks; with `VC_WRITE=1` it writes
//! the expectation file instead. Either way it prints the outcomes per direction and per
//! operator, counted as onnx's were (pairs whose original runs).

mod common;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;
use std::sync::Mutex;

use onnx_conformance::{Case, CaseKind, release, releases};
use onnx_version_converter::{Error, Reason, convert_version};

const EXPECTED: &str = "tests/releases.expected";
const FIRST_TARGET: i64 = 7;
const RANDOM_OPERATORS: &[&str] = &[
    "Bernoulli",
    "Multinomial",
    "RandomNormal",
    "RandomNormalLike",
    "RandomUniform",
    "RandomUniformLike",
];

#[derive(Default)]
struct Counts {
    preserved: usize,
    refused: usize,
    wrong: usize,
    invalid: usize,
}

#[derive(Default)]
struct Outcomes {
    /// "up" / "down" → counts, of the pairs whose original runs.
    directions: BTreeMap<&'static str, Counts>,
    /// (operator, direction) → counts.
    operators: BTreeMap<(String, &'static str), Counts>,
    /// (case, reasons) → the targets refused so.
    refused_targets: BTreeMap<(String, String), Vec<i64>>,
    /// Wrong outputs and invalid models: each fails the run.
    failures: Vec<String>,
}

fn main() {
    let start = std::time::Instant::now();
    let newest = onnx_schema::newest_opset("").unwrap();
    let cases = distinct_cases();
    let queue = Mutex::new(cases.iter());
    let outcomes = Mutex::new(Outcomes::default());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let Some((key, case)) = queue.lock().unwrap().next() else {
                        break;
                    };
                    let mut local = Outcomes::default();
                    run_case(key, case, newest, &mut local);
                    merge(&mut outcomes.lock().unwrap(), local);
                }
            });
        }
    });
    let outcomes = outcomes.into_inner().unwrap();
    report(&outcomes, cases.len(), newest, start.elapsed());
    let refusals = expectation_lines(&outcomes.refused_targets);
    let mut failed = outcomes.failures.clone();
    failed.extend(common::expectation(
        Path::new(EXPECTED),
        "The refusals of tests/releases.rs: case, target, reason kind: message. Regenerate with VC_WRITE=1.",
        &refusals,
    ));
    if !failed.is_empty() {
        failed.sort();
        // The whole list, for a long run of failures.
        if let Some(path) = std::env::var_os("VC_FAILURES") {
            std::fs::write(path, failed.join("\n")).unwrap();
        }
        for failure in failed.iter().take(60) {
            eprintln!("{failure}");
        }
        eprintln!("{} failures", failed.len());
        std::process::exit(1);
    }
}

/// With `VC_DUMP=DIR`, writes every converted model of one case in ten to `DIR`
/// (`scripts/check_converted_models.py` runs onnx's full checker over them).
fn dump(key: &str, target: i64, model: &onnx_runtime_types::ModelProto) {
    use onnx_runtime_types::prost::Message;
    let sampled = key.bytes().map(usize::from).sum::<usize>() % 10 == 0;
    if let Some(dir) = std::env::var_os("VC_DUMP").filter(|_| sampled) {
        let name = format!("{}_to_{target}.onnx", key.replace('/', "_"));
        std::fs::write(std::path::Path::new(&dir).join(name), model.encode_to_vec()).unwrap();
    }
}

/// What a reason is about, briefly (the full messages name the target, and would make one line
/// per target).
fn subject(reason: &Reason) -> String {
    match reason {
        Reason::ElementType { ty, .. } => format!(" {ty}"),
        Reason::UnknownType { value, .. } => format!(" `{value}`"),
        Reason::Attribute { name, .. } | Reason::RuntimeInput { input: name, .. } => {
            format!(" `{name}`")
        }
        Reason::Input { input, .. } => format!(" `{input}`"),
        Reason::AttributeValue { name, value, .. } => format!(" {name}={value}"),
        Reason::Unknown { what, .. } | Reason::Inexact { what, .. } => format!(" ({what})"),
        Reason::NoAdapter { from, to, .. } => format!(" {from}→{to}"),
        Reason::NotAtTarget { .. } | Reason::UnknownOperator { .. } => String::new(),
    }
}

/// One line per case and reasons: `case targets: kind Operator subject; …`, the targets as
/// runs (`7-12,14`).
fn expectation_lines(refused: &BTreeMap<(String, String), Vec<i64>>) -> BTreeSet<String> {
    refused
        .iter()
        .map(|((case, reasons), targets)| {
            let mut targets = targets.clone();
            targets.sort_unstable();
            let mut runs: Vec<String> = Vec::new();
            let mut start = targets[0];
            for (i, &t) in targets.iter().enumerate() {
                let next = targets.get(i + 1);
                if next != Some(&(t + 1)) {
                    runs.push(if start == t {
                        format!("{t}")
                    } else {
                        format!("{start}-{t}")
                    });
                    if let Some(&n) = next {
                        start = n;
                    }
                }
            }
            format!("{case} {}: {reasons}", runs.join(","))
        })
        .collect()
}

/// Every case of every release, once: identical models with identical data are one.
fn distinct_cases() -> Vec<(String, &'static Case)> {
    let mut seen = HashSet::new();
    let mut cases = Vec::new();
    for version in releases() {
        for case in release(version).unwrap() {
            let identity = (case.text(), case.input_files(), case.output_files());
            if !seen.insert(identity) {
                continue;
            }
            let key = match case.kind() {
                CaseKind::Node => format!("{version}/{}", case.name()),
                CaseKind::Model => format!("{version}/{}/{}", case.suite(), case.name()),
            };
            cases.push((key, case));
        }
    }
    cases
}

fn run_case(key: &str, case: &Case, newest: i64, outcomes: &mut Outcomes) {
    let model = case.model();
    let Some(source) = model
        .opset_import
        .iter()
        .find(|i| matches!(i.domain.as_deref(), None | Some("" | "ai.onnx")))
        .and_then(|i| i.version)
    else {
        return;
    };
    let inputs = case.inputs();
    // A random operator's expected outputs are one draw: no run of it can be compared.
    let random = RANDOM_OPERATORS.contains(&case.op_type());
    let original_runs = !random
        && onnx_eval::run(&model, &inputs)
            .ok()
            .is_some_and(|outputs| case.check(&outputs).is_ok());
    let checker = onnx_validate::ModelCheck::default();
    // A case whose own model fails the checker (older releases declared other shapes) cannot
    // hold its conversions to it.
    let original_valid = checker.check(&model).is_ok();
    for target in FIRST_TARGET..=newest {
        if target == source {
            continue;
        }
        let direction = match (case.kind(), target > source) {
            (CaseKind::Node, true) => "up",
            (CaseKind::Node, false) => "down",
            (CaseKind::Model, true) => "models up",
            (CaseKind::Model, false) => "models down",
        };
        let operator = match case.kind() {
            CaseKind::Node => case.op_type().to_owned(),
            CaseKind::Model => format!("model {}", case.suite()),
        };
        let converted = convert_version(&model, target);
        if let Ok(converted) = &converted {
            dump(key, target, converted);
        }
        let outcome = match converted {
            Err(Error::Nodes(refusals)) => {
                let reasons: BTreeSet<String> = refusals
                    .iter()
                    .map(|r| format!("{} {}{}", r.reason.kind(), r.operator, subject(&r.reason)))
                    .collect();
                if original_runs {
                    let reasons = reasons.into_iter().collect::<Vec<_>>().join("; ");
                    outcomes
                        .refused_targets
                        .entry((key.to_owned(), reasons))
                        .or_default()
                        .push(target);
                }
                Outcome::Refused
            }
            Err(other) => {
                outcomes.failures.push(format!("{key} → {target}: {other}"));
                Outcome::Invalid
            }
            Ok(converted) => match checker.check(&converted) {
                Err(problems) if original_valid => {
                    outcomes.failures.push(format!(
                        "{key} → {target}: the converted model fails the checker: {}",
                        problems
                            .iter()
                            .next()
                            .map(|d| d.message())
                            .unwrap_or_default()
                    ));
                    Outcome::Invalid
                }
                _ if !original_runs => Outcome::Preserved,
                _ => match onnx_eval::run(&converted, &inputs) {
                    Ok(outputs) if case.check(&outputs).is_ok() => Outcome::Preserved,
                    Ok(_) => {
                        outcomes
                            .failures
                            .push(format!("{key} → {target}: wrong outputs"));
                        Outcome::Wrong
                    }
                    Err(error) => {
                        outcomes
                            .failures
                            .push(format!("{key} → {target}: does not run: {error}"));
                        Outcome::Wrong
                    }
                },
            },
        };
        if !original_runs {
            continue;
        }
        for counts in [
            outcomes.directions.entry(direction).or_default(),
            outcomes
                .operators
                .entry((operator.clone(), direction))
                .or_default(),
        ] {
            match outcome {
                Outcome::Preserved => counts.preserved += 1,
                Outcome::Refused => counts.refused += 1,
                Outcome::Wrong => counts.wrong += 1,
                Outcome::Invalid => counts.invalid += 1,
            }
        }
    }
}

#[derive(Clone, Copy)]
enum Outcome {
    Preserved,
    Refused,
    Wrong,
    Invalid,
}

fn merge(into: &mut Outcomes, from: Outcomes) {
    let add = |a: &mut Counts, b: &Counts| {
        a.preserved += b.preserved;
        a.refused += b.refused;
        a.wrong += b.wrong;
        a.invalid += b.invalid;
    };
    for (k, v) in &from.directions {
        add(into.directions.entry(k).or_default(), v);
    }
    for (k, v) in &from.operators {
        add(into.operators.entry(k.clone()).or_default(), v);
    }
    for (k, mut v) in from.refused_targets {
        into.refused_targets.entry(k).or_default().append(&mut v);
    }
    into.failures.extend(from.failures);
}

fn report(outcomes: &Outcomes, cases: usize, newest: i64, elapsed: std::time::Duration) {
    println!(
        "{cases} distinct cases (node cases and model tests), targets {FIRST_TARGET}..={newest}, {:.1} s",
        elapsed.as_secs_f64()
    );
    println!("| direction | preserved | refused | wrong | invalid | preserved % |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (direction, c) in &outcomes.directions {
        let total = c.preserved + c.refused + c.wrong + c.invalid;
        println!(
            "| {direction} | {} | {} | {} | {} | {:.1}% |",
            c.preserved,
            c.refused,
            c.wrong,
            c.invalid,
            100.0 * c.preserved as f64 / total.max(1) as f64
        );
    }
    if std::env::var_os("VC_OPERATORS").is_some() {
        println!("| operator | direction | preserved | refused | wrong | invalid |");
        println!("|---|---|---:|---:|---:|---:|");
        for ((operator, direction), c) in &outcomes.operators {
            println!(
                "| {operator} | {direction} | {} | {} | {} | {} |",
                c.preserved, c.refused, c.wrong, c.invalid
            );
        }
    }
}
