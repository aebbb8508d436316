//! The summary printed after a run: counts by outcome, coverage by operator, the kit's closing
//! line, and the expectation file a write run leaves.

use super::expectations::{
    Entry, Expectations, Kind, Rule, Source, matches, operator_of, runs_operator,
};
use super::sorted::SortedMap;
use super::{Selected, Verdict};
use crate::Case;
use std::fmt;
use std::sync::Arc;

/// The verdict of every case that ran, with the rules they were judged against.
pub(crate) struct Summary {
    verdicts: Vec<(usize, Verdict)>,
    /// The cases of the run, each with its test name.
    selected: Arc<Selected>,
    /// The rule of each case of the run, by its index in `selected`.
    rules: Arc<Vec<Option<Rule>>>,
}

#[derive(Debug, Default, PartialEq)]
pub(crate) struct Counts {
    pub passed: usize,
    pub wrong: usize,
    pub erred: usize,
    pub expected_errors: usize,
    pub expected_wrong: usize,
    /// Listed, and failing otherwise than the entry says.
    pub otherwise: usize,
    /// Listed, and passing.
    pub newly_passing: usize,
}

impl Counts {
    /// The cases that fail the run.
    pub(crate) fn failed(&self) -> usize {
        self.wrong + self.erred + self.otherwise + self.newly_passing
    }
}

/// What a write run records of a failure: its kind alone, so that the entry holds while the
/// case fails so, whatever its message says (a runtime that rewords an error keeps its file).
/// A hand-written text narrows an entry to the failures whose message contains it.
fn recorded(verdict: &Verdict) -> Option<Entry> {
    verdict
        .failure()
        .map(|failure| Entry::new(failure.kind, ""))
}

impl Summary {
    pub(crate) fn new(
        verdicts: Vec<(usize, Verdict)>,
        selected: Arc<Selected>,
        rules: Arc<Vec<Option<Rule>>>,
    ) -> Summary {
        Summary {
            verdicts,
            selected,
            rules,
        }
    }

    pub(crate) fn verdicts(&self) -> impl Iterator<Item = (&'static Case, &Verdict)> {
        self.verdicts
            .iter()
            .map(|(i, verdict)| (self.selected[*i].1, verdict))
    }

    pub(crate) fn counts(&self) -> Counts {
        let mut counts = Counts::default();
        for (index, verdict) in &self.verdicts {
            let rule = self.rules[*index].as_ref();
            let slot = match (verdict.failure(), rule) {
                (None, None) => &mut counts.passed,
                (None, Some(_)) => &mut counts.newly_passing,
                (Some(failure), Some(rule)) if rule.admits(failure) => match failure.kind {
                    Kind::Error => &mut counts.expected_errors,
                    Kind::Wrong => &mut counts.expected_wrong,
                },
                (Some(_), Some(_)) => &mut counts.otherwise,
                (Some(failure), None) => match failure.kind {
                    Kind::Error => &mut counts.erred,
                    Kind::Wrong => &mut counts.wrong,
                },
            };
            *slot += 1;
        }
        counts
    }

    /// The expectation file this run calls for. An entry whose cases all fail as it says (or
    /// did not run) stays as it is. An operator's or pattern's entry that some case of it
    /// contradicts (by passing, or failing otherwise) gives way to one entry per case of it that
    /// still fails: its own entry where the case fails as the group says or did not run, the
    /// new failure otherwise. A case's own entry goes when the case passes, and takes the new
    /// failure when the case fails otherwise. Every other failing case gets an entry of its own.
    pub(crate) fn expectations(&self, old: &Expectations) -> Expectations {
        let mut ran: Ran = vec![None; self.selected.len()];
        for (index, verdict) in &self.verdicts {
            ran[*index] = Some(verdict);
        }
        // The groups broken, by `group_key`.
        let mut broken: SortedMap<()> = SortedMap::default();
        // Breaks the groups that some case contradicts; whether one was new.
        let break_groups = |rules: &[Option<Rule>], broken: &mut SortedMap<()>| {
            let mut more = false;
            for (index, rule) in rules.iter().enumerate() {
                if let Some(rule) = rule
                    && rule.source != Source::Case
                    && !holds(&ran, index, rule)
                {
                    more |= broken.insert(group_key(&rule.source), ()).is_none();
                }
            }
            more
        };
        break_groups(&self.rules, &mut broken);
        // The file written may put a case under a group that did not cover it before (its own
        // entry went): the groups it contradicts break too, until none does.
        loop {
            let new = self.written(old, &broken, &ran);
            match new.resolve_for(&self.selected) {
                Ok(rules) => {
                    if !break_groups(&rules, &mut broken) {
                        return grouped(new, &self.selected);
                    }
                }
                // A group that covers no case any more (each case it matches has its own entry
                // now) goes too.
                Err(faults) => {
                    let mut more = false;
                    for fault in &faults.faults {
                        let at = |entry: &Entry| {
                            (entry.line, entry.column) == (fault.line, fault.column)
                        };
                        let group = new
                            .operators
                            .iter()
                            .find(|(_, entry)| at(entry))
                            .map(|(op, _)| Source::Operator(op.clone()))
                            .or_else(|| {
                                new.patterns
                                    .iter()
                                    .find(|(_, entry)| at(entry))
                                    .map(|(p, _)| Source::Pattern(p.clone()))
                            });
                        // Case entries name the run's cases: not a group's fault.
                        if let Some(group) = group {
                            more |= broken.insert(group_key(&group), ()).is_none();
                        }
                    }
                    if !more {
                        return grouped(new, &self.selected);
                    }
                }
            }
        }
    }

    /// The file with the groups in `broken` replaced by entries for their cases.
    fn written(&self, old: &Expectations, broken: &SortedMap<()>, ran: &Ran) -> Expectations {
        let kept = |source: Source| broken.get(&group_key(&source)).is_none();
        let mut new = Expectations {
            file: old.file.clone(),
            operators: old
                .operators
                .iter()
                .filter(|(op, _)| kept(Source::Operator((*op).clone())))
                .map(|(op, entry)| (op.clone(), entry.clone()))
                .collect(),
            patterns: old
                .patterns
                .iter()
                .filter(|(p, _)| kept(Source::Pattern(p.clone())))
                .cloned()
                .collect(),
            cases: SortedMap::default(),
        };
        for (index, (name, _)) in self.selected.iter().enumerate() {
            let verdict = ran[index];
            let entry = match &self.rules[index] {
                Some(rule) if rule.source != Source::Case && kept(rule.source.clone()) => continue,
                Some(rule) if holds(ran, index, rule) => Some(rule.entry.clone()),
                Some(_) | None => verdict.and_then(recorded),
            };
            if let Some(entry) = entry {
                new.cases.insert(name.clone(), entry);
            }
        }
        new
    }
}

/// The file with one operator entry in place of the case entries of an operator whose every
/// case (that an operator entry covers: its node tests but the `_expanded` ones, under no
/// pattern) has an entry of its own, all alike, and that has no entry yet: a runtime that lacks
/// an operator gets one line for it, not one per case.
fn grouped(mut file: Expectations, selected: &Selected) -> Expectations {
    /// An operator's cases so far: their names and the entry they share, or `Mixed` once one
    /// has none or another.
    #[derive(Default)]
    enum Group {
        #[default]
        Empty,
        Alike(Vec<String>, Entry),
        Mixed,
    }
    let mut groups: SortedMap<Group> = SortedMap::default();
    for (name, case) in selected.iter() {
        if !runs_operator(case) || file.patterns.iter().any(|(p, _)| matches(p, name)) {
            continue;
        }
        let operator = operator_of(case);
        if file.operators.get(&operator).is_some() {
            continue;
        }
        let group = groups.get_or_default(operator);
        let entry = file.cases.get(name);
        *group = match (std::mem::take(group), entry) {
            (Group::Empty, Some(entry)) => Group::Alike(vec![name.clone()], entry.clone()),
            (Group::Alike(mut names, shared), Some(entry))
                if (shared.kind, &shared.reason) == (entry.kind, &entry.reason) =>
            {
                names.push(name.clone());
                Group::Alike(names, shared)
            }
            _ => Group::Mixed,
        };
    }
    let mut grouped: SortedMap<()> = SortedMap::default();
    for (operator, group) in groups {
        // One case gains nothing from a group.
        if let Group::Alike(names, entry) = group
            && names.len() > 1
        {
            file.operators
                .insert(operator, Entry::new(entry.kind, entry.reason));
            for name in names {
                grouped.insert(name, ());
            }
        }
    }
    file.cases = std::mem::take(&mut file.cases)
        .into_iter()
        .filter(|(name, _)| grouped.get(name).is_none())
        .collect();
    file
}

/// The verdict of each case of the run, by its index in `selected` (`None`: it did not run).
type Ran<'a> = Vec<Option<&'a Verdict>>;

/// Whether a case fails as its rule says, or did not run.
fn holds(ran: &Ran, index: usize, rule: &Rule) -> bool {
    match ran[index] {
        None => true,
        Some(verdict) => verdict.failure().is_some_and(|f| rule.admits(f)),
    }
}

fn group_key(source: &Source) -> String {
    match source {
        Source::Case => String::new(),
        Source::Pattern(pattern) => format!("pattern {pattern}"),
        Source::Operator(operator) => format!("operator {operator}"),
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.counts();
        writeln!(
            f,
            "\nonnx-conformance: {} cases run: {} passed, {} failed (wrong outputs), {} erred \
             (runtime error or panic), {} expected failures, {} failing otherwise than listed, \
             {} newly passing",
            self.verdicts.len(),
            c.passed,
            c.wrong,
            c.erred,
            c.expected_errors + c.expected_wrong,
            c.otherwise,
            c.newly_passing
        )?;
        // Operator → (passed, run); an operator of another domain is written domain.Op.
        let mut coverage: SortedMap<(usize, usize)> = SortedMap::default();
        for (case, verdict) in self.verdicts() {
            let entry = coverage.get_or_default(operator_of(case));
            entry.0 += usize::from(*verdict == Verdict::Pass);
            entry.1 += 1;
        }
        let full = coverage
            .iter()
            .filter(|(_, (passed, run))| passed == run)
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
        // A newly passing case fails the run as a failure does (its entry must go), but it is
        // progress, not a regression: counted apart.
        writeln!(
            f,
            "\nonnx-conformance result: {}. {} passed; {} failed; {} newly passing; {} expected \
             failures ({} errors, {} wrong outputs); {} filtered out",
            if c.failed() == 0 { "ok" } else { "FAILED" },
            c.passed,
            c.failed() - c.newly_passing,
            c.newly_passing,
            c.expected_errors + c.expected_wrong,
            c.expected_errors,
            c.expected_wrong,
            self.selected.len() - self.verdicts.len()
        )
    }
}
