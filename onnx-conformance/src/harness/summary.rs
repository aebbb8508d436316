//! The summary printed after a run: counts by outcome and coverage by operator.

use super::expectations::{Expectations, FILE_NAME};
use super::{Selected, Verdict};
use crate::Case;
use std::collections::BTreeMap;
use std::fmt;

/// The verdict of every case that ran, with the expectation file they were judged against.
pub(crate) struct Summary {
    verdicts: Vec<(usize, Verdict)>,
    listed: Vec<bool>,
    /// The cases of the run, by the index of `verdicts`, each with its test name.
    selected: Selected,
}

#[derive(Default)]
struct Counts {
    passed: usize,
    failed: usize,
    erred: usize,
    expected: usize,
    newly_passing: usize,
}

impl Summary {
    pub(crate) fn new(
        verdicts: Vec<(usize, Verdict)>,
        expectations: &Expectations,
        selected: Selected,
    ) -> Summary {
        let listed = verdicts
            .iter()
            .map(|(i, _)| expectations.failures.contains_key(&selected[*i].0))
            .collect();
        Summary {
            verdicts,
            listed,
            selected,
        }
    }

    pub(crate) fn verdicts(&self) -> impl Iterator<Item = (&'static Case, &Verdict)> {
        self.named_verdicts()
            .map(|(_, case, verdict)| (case, verdict))
    }

    /// Each verdict with its case and the case's test name.
    fn named_verdicts(&self) -> impl Iterator<Item = (&str, &'static Case, &Verdict)> {
        self.verdicts.iter().map(|(i, verdict)| {
            let (name, case) = &self.selected[*i];
            (name.as_str(), *case, verdict)
        })
    }

    fn counts(&self) -> Counts {
        let mut counts = Counts::default();
        for ((_, verdict), &listed) in self.verdicts.iter().zip(&self.listed) {
            let slot = match (verdict, listed) {
                (Verdict::Pass, false) => &mut counts.passed,
                (Verdict::Pass, true) => &mut counts.newly_passing,
                (_, true) => &mut counts.expected,
                (Verdict::Fail(_), false) => &mut counts.failed,
                (Verdict::Error(_), false) => &mut counts.erred,
            };
            *slot += 1;
        }
        counts
    }

    /// The expectation file this run calls for: every case that failed (keeping a listed
    /// case's reason, else the first line of its failure), and the listed cases that did not
    /// run; newly passing cases leave it.
    pub(crate) fn expectations(&self, old: &Expectations) -> Expectations {
        let mut failures = old.failures.clone();
        for (name, case, verdict) in self.named_verdicts() {
            match verdict {
                Verdict::Pass => {
                    failures.remove(name);
                }
                Verdict::Fail(why) | Verdict::Error(why) => {
                    let first_line = why.lines().next().unwrap_or_default();
                    let reason = first_line
                        .strip_prefix(&format!("{}: ", case.name()))
                        .unwrap_or(first_line);
                    let reason: String = reason.chars().take(160).collect();
                    failures.entry(name.to_string()).or_insert(reason);
                }
            }
        }
        Expectations { failures }
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.counts();
        writeln!(
            f,
            "\nonnx-conformance: {} cases run: {} passed, {} failed (wrong outputs), {} erred \
             (runtime error or panic), {} expected failures, {} newly passing (listed in {FILE_NAME})",
            self.verdicts.len(),
            c.passed,
            c.failed,
            c.erred,
            c.expected,
            c.newly_passing
        )?;
        // Operator → (passed, run); an operator of another domain is written domain.Op.
        let mut coverage: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for (case, verdict) in self.verdicts() {
            let name = match (case.kind(), case.domain()) {
                // A model test has no one operator: counted under its suite.
                (crate::CaseKind::Model, _) => format!("({} models)", case.suite()),
                (_, "") => case.op_type().to_string(),
                (_, domain) => format!("{domain}.{}", case.op_type()),
            };
            let entry = coverage.entry(name).or_default();
            entry.0 += usize::from(*verdict == Verdict::Pass);
            entry.1 += 1;
        }
        let full = coverage
            .values()
            .filter(|(passed, run)| passed == run)
            .count();
        writeln!(
            f,
            "coverage by operator (cases passed/run): {full} of {} operators pass every case",
            coverage.len()
        )?;
        let mut line = String::new();
        for (operator, (passed, run)) in coverage {
            let item = format!("{operator} {passed}/{run}");
            if !line.is_empty() && line.len() + item.len() > 98 {
                writeln!(f, "  {}", line.trim_end_matches(", "))?;
                line.clear();
            }
            line.push_str(&item);
            line.push_str(", ");
        }
        if !line.is_empty() {
            writeln!(f, "  {}", line.trim_end_matches(", "))?;
        }
        Ok(())
    }
}
