//! The expectation file: the cases a runtime is known to fail, each with how it fails and why.
//!
//! A small subset of TOML, read by hand so that a runtime's test build pays for no TOML crate:
//!
//! ```toml
//! [operators]                 # every case of an operator (its `_expanded` cases aside)
//! Acos = { error = "Acos is not implemented" }
//! "ai.onnx.ml.Binarizer" = { error = "no ai.onnx.ml" }
//!
//! [patterns]                  # every case whose name matches; `*` stands for any characters
//! "test_attention_*" = { error = "Attention is not implemented" }
//!
//! [cases]                     # one case
//! test_abs = { error = "Abs is not implemented" }
//! test_add_uint8 = { wrong = "output 0 (`C`): values differ" }
//! ```
//!
//! Keys are bare (letters, digits, `_`, `-`) or basic strings in double quotes; values are
//! inline tables of one key, `error` or `wrong`, whose value is a basic string (escapes `\"`,
//! `\\`, `\n`, `\t`). `#` starts a comment outside strings. Anything else is an error naming the
//! line and column. What an entry means when cases run is in [`Rule::admits`].

use super::Selected;
use super::sorted::SortedMap;
use crate::{Case, CaseKind};
use std::fmt;
use std::sync::Arc;

pub(crate) const FILE_NAME: &str = "onnx-conformance.toml";

/// How a case fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The runtime returned an error or panicked.
    Error,
    /// The runtime returned outputs, and they are not the expected ones.
    Wrong,
}

impl Kind {
    pub(crate) fn key(self) -> &'static str {
        match self {
            Kind::Error => "error",
            Kind::Wrong => "wrong",
        }
    }

    pub(crate) fn describe(self) -> &'static str {
        match self {
            Kind::Error => "an error",
            Kind::Wrong => "wrong outputs",
        }
    }
}

/// One line of the file: how the cases it covers fail, and where it stands.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Entry {
    pub kind: Kind,
    pub reason: String,
    /// The line of its key (1-based); 0 for an entry made by a write run.
    pub line: usize,
    pub column: usize,
}

impl Entry {
    /// The entry's value as the file writes it: the kind alone (`"error"`) when it admits any
    /// message, else `{ error = "…" }`.
    pub(crate) fn value(&self) -> String {
        if self.reason.is_empty() {
            quote(self.kind.key())
        } else {
            format!("{{ {} = {} }}", self.kind.key(), quote(&self.reason))
        }
    }

    pub(crate) fn new(kind: Kind, reason: impl Into<String>) -> Entry {
        Entry {
            kind,
            reason: reason.into(),
            line: 0,
            column: 0,
        }
    }
}

/// The three tables of the file, and its name in messages.
#[derive(Debug, PartialEq)]
pub(crate) struct Expectations {
    /// The file as messages name it: `onnx-conformance.toml`, or the path a harness was given.
    pub file: String,
    /// Operator (`Acos`, or `domain.Op` outside the default domain) → entry.
    pub operators: SortedMap<Entry>,
    /// Pattern → entry, in the file's order.
    pub patterns: Vec<(String, Entry)>,
    /// Case name → entry.
    pub cases: SortedMap<Entry>,
}

impl Default for Expectations {
    fn default() -> Self {
        Expectations {
            file: FILE_NAME.to_string(),
            operators: SortedMap::default(),
            patterns: Vec::new(),
            cases: SortedMap::default(),
        }
    }
}

/// Which entry covers a case.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Source {
    Case,
    Pattern(String),
    Operator(String),
}

/// The entry that applies to one case: the case's own, else the first pattern that matches its
/// name, else its operator's.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Rule {
    pub entry: Entry,
    pub source: Source,
    /// The file, as messages name it.
    pub file: Arc<str>,
}

/// What the harness says of a failing case, as a rule compares it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Failure<'a> {
    pub kind: Kind,
    /// For an error, the whole message (`the runtime failed: …`, `the runtime panicked: …`);
    /// for wrong outputs, the mismatch's summary (`output 0 (`y`): values differ`).
    pub text: &'a str,
}

impl Rule {
    /// Whether the case fails as this rule says: the same kind of failure, and the reason is
    /// a part of the failure's text (for an error, its whole message; for wrong outputs, the
    /// mismatch's summary, where and what differs, without the values).
    pub(crate) fn admits(&self, failure: Failure<'_>) -> bool {
        self.entry.kind == failure.kind && failure.text.contains(&self.entry.reason)
    }

    /// The entry as the file has it, for messages: `line 3: test_abs = { error = "…" }`.
    pub(crate) fn describe(&self, case: &str) -> String {
        let key = match &self.source {
            Source::Case => quote_key(case),
            Source::Pattern(pattern) => quote(pattern),
            Source::Operator(operator) => quote_key(operator),
        };
        let table = match &self.source {
            Source::Case => "cases",
            Source::Pattern(_) => "patterns",
            Source::Operator(_) => "operators",
        };
        format!(
            "{}:{}, [{table}] {key} = {}",
            self.file,
            self.entry.line,
            self.entry.value()
        )
    }
}

/// A fault of the file: where, and what.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SyntaxError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// The table an entry line is in.
#[derive(Clone, Copy, PartialEq)]
enum Table {
    Operators,
    Patterns,
    Cases,
}

const TABLES: &str = "`[operators]`, `[patterns]` or `[cases]`";
const VALUE_FORM: &str = "`\"error\"`, `\"wrong\"`, `{ error = \"…\" }` or `{ wrong = \"…\" }`";

/// The key an operator entry of a case is under: `Acos`, or `ai.onnx.ml.Binarizer`. A model
/// test (of [`release`](crate::release)) has no one operator: it is counted under its suite,
/// `(simple models)`, and no operator entry covers it.
pub(crate) fn operator_of(case: &Case) -> String {
    match (case.kind(), case.domain()) {
        (CaseKind::Model, _) => format!("({} models)", case.suite()),
        (CaseKind::Node, "") => case.op_type().to_string(),
        (CaseKind::Node, domain) => format!("{domain}.{}", case.op_type()),
    }
}

/// Whether an operator entry covers the case: its operator's, a node test, and not an
/// `_expanded` case (those run the operator's function body, not the operator).
pub(crate) fn runs_operator(case: &Case) -> bool {
    case.kind() == CaseKind::Node && !case.name().contains("_expanded")
}

/// The table a header line opens.
fn header(cursor: &Cursor) -> Result<Table, SyntaxError> {
    match strip_comment(cursor.rest()) {
        "[operators]" => Ok(Table::Operators),
        "[patterns]" => Ok(Table::Patterns),
        "[cases]" => Ok(Table::Cases),
        "[expected-failures]" => Err(cursor.error(format!(
            "`[expected-failures]` is the old form of this file: list the cases under \
             `[cases]`, each as {VALUE_FORM} (see the crate docs of onnx-conformance)"
        ))),
        _ => Err(cursor.error(format!("expected {TABLES}, the tables of this file"))),
    }
}

/// Every fault of a file, shown in the order of its lines, each with the file's name.
#[derive(Debug, PartialEq)]
pub(crate) struct Faults {
    /// The file, as messages name it.
    pub file: String,
    pub faults: Vec<SyntaxError>,
}

impl Faults {
    pub(crate) fn new(file: &str, mut faults: Vec<SyntaxError>) -> Faults {
        faults.sort_by_key(|fault| (fault.line, fault.column));
        Faults {
            file: file.to_string(),
            faults,
        }
    }

    /// The first fault (there is at least one).
    #[cfg(test)]
    pub(crate) fn first(&self) -> &SyntaxError {
        &self.faults[0]
    }
}

impl fmt::Display for Faults {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.faults.len() > 1 {
            writeln!(f, "{} faults in {}:", self.faults.len(), self.file)?;
        }
        for (i, fault) in self.faults.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            let SyntaxError {
                line,
                column,
                message,
            } = fault;
            write!(f, "{}:{line}:{column}: {message}", self.file)?;
        }
        Ok(())
    }
}

/// `*` matches any characters, none included; every other character itself.
pub(crate) fn matches(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

impl Expectations {
    /// The file, or every fault of its syntax (each line read on its own, so that one run
    /// reports them all).
    #[cfg(test)]
    pub(crate) fn parse(text: &str) -> Result<Expectations, Faults> {
        let (expectations, faults) = Expectations::parse_partial(text);
        if faults.is_empty() {
            Ok(expectations)
        } else {
            Err(Faults::new(&expectations.file, faults))
        }
    }

    /// The entries of every line that reads, and the faults of the others. A line under a table
    /// header that is itself a fault is skipped, not reported again.
    pub(crate) fn parse_partial(text: &str) -> (Expectations, Vec<SyntaxError>) {
        let mut expectations = Expectations::default();
        let mut faults = Vec::new();
        // `Some(None)`: under a header that is a fault.
        let mut table: Option<Option<Table>> = None;
        for (number, line) in text.lines().enumerate() {
            let mut cursor = Cursor {
                line,
                at: 0,
                number: number + 1,
            };
            cursor.skip_spaces();
            if cursor.rest().is_empty() || cursor.rest().starts_with('#') {
                continue;
            }
            if cursor.rest().starts_with('[') {
                let header = header(&cursor);
                if let Err(fault) = &header {
                    faults.push(fault.clone());
                }
                table = Some(header.ok());
                continue;
            }
            let result = match table {
                None => Err(cursor.error(format!("expected {TABLES} before the first entry"))),
                Some(None) => continue,
                Some(Some(table)) => expectations.entry(table, &mut cursor),
            };
            if let Err(fault) = result {
                faults.push(fault);
            }
        }
        (expectations, faults)
    }

    /// Reads one entry line into `table`.
    fn entry(&mut self, table: Table, cursor: &mut Cursor) -> Result<(), SyntaxError> {
        let (line, column) = (cursor.number, cursor.column());
        let key = cursor.key()?;
        if cursor.rest().starts_with(['.', '*']) {
            return Err(SyntaxError {
                line,
                column,
                message: "a name with `.` or `*` goes in double quotes \
                          (`\"ai.onnx.ml.Binarizer\"`, `\"test_attention_*\"`)"
                    .to_string(),
            });
        }
        cursor.skip_spaces();
        cursor.expect('=', "expected `=` after the name")?;
        cursor.skip_spaces();
        let (kind, reason) = if cursor.rest().starts_with('"') {
            // The kind alone: any failure of that kind, whatever its message.
            let kind_at = cursor.at;
            match cursor.string()?.as_str() {
                "error" => (Kind::Error, String::new()),
                "wrong" => (Kind::Wrong, String::new()),
                _ => {
                    return Err(cursor.error_at(
                        kind_at,
                        format!(
                            "a reason needs its kind: {VALUE_FORM} (the old form of this file \
                             had the reason alone)"
                        ),
                    ));
                }
            }
        } else {
            cursor.expect('{', &format!("expected {VALUE_FORM}"))?;
            cursor.skip_spaces();
            let kind_at = cursor.at;
            let kind = match cursor.key()?.as_str() {
                "error" => Kind::Error,
                "wrong" => Kind::Wrong,
                other => {
                    return Err(cursor.error_at(
                        kind_at,
                        format!(
                            "expected `error` (the runtime errs or panics) or `wrong` (its \
                             outputs differ), not `{other}`"
                        ),
                    ));
                }
            };
            cursor.skip_spaces();
            cursor.expect('=', &format!("expected `=` after `{}`", kind.key()))?;
            cursor.skip_spaces();
            let reason = cursor.string()?;
            cursor.skip_spaces();
            if cursor.rest().starts_with(',') {
                return Err(cursor.error(format!("an entry has one kind only: {VALUE_FORM}")));
            }
            cursor.expect('}', "expected `}` after the reason")?;
            (kind, reason)
        };
        cursor.skip_spaces();
        let tail = strip_comment(cursor.rest());
        if !tail.is_empty() {
            return Err(cursor.error(format!("unexpected `{tail}` after the entry")));
        }
        let entry = Entry {
            kind,
            reason,
            line,
            column,
        };
        let twice = || SyntaxError {
            line,
            column,
            message: format!("`{key}` is listed twice"),
        };
        match table {
            Table::Operators => {
                if self.operators.get(&key).is_some() {
                    return Err(twice());
                }
                self.operators.insert(key, entry);
            }
            Table::Patterns => {
                if !key.contains('*') {
                    return Err(SyntaxError {
                        line,
                        column,
                        message: format!(
                            "`{key}` has no `*`: a pattern stands for names (`test_attention_*`); \
                             list one case under `[cases]`"
                        ),
                    });
                }
                if self.patterns.iter().any(|(p, _)| *p == key) {
                    return Err(twice());
                }
                self.patterns.push((key, entry));
            }
            Table::Cases => {
                if self.cases.get(&key).is_some() {
                    return Err(twice());
                }
                self.cases.insert(key, entry);
            }
        }
        Ok(())
    }

    /// The rule of each of the kit's cases, 1.23.2's (`None` for a case no entry covers); see
    /// [`Expectations::resolve_for`].
    #[cfg(test)]
    pub(crate) fn resolve(&self) -> Result<Vec<Option<Rule>>, Faults> {
        self.resolve_for(&super::kit_cases())
    }

    /// The rule of each case of a run, by its index in `selected` (`None` for a case no entry
    /// covers): case entries and patterns go by the test name, operator entries by the case's
    /// operator. An entry that names no case or operator, or that covers no case (every case it
    /// matches has an entry of its own, or a pattern before it), is an error at its line.
    pub(crate) fn resolve_for(&self, selected: &Selected) -> Result<Vec<Option<Rule>>, Faults> {
        let (rules, faults) = self.resolve_partial(selected);
        if faults.is_empty() {
            Ok(rules)
        } else {
            Err(Faults::new(&self.file, faults))
        }
    }

    /// The rule of each case, and every fault of coverage (all of them, for one report).
    pub(crate) fn resolve_partial(
        &self,
        selected: &Selected,
    ) -> (Vec<Option<Rule>>, Vec<SyntaxError>) {
        let mut faults = Vec::new();
        let mut fault = |entry: &Entry, message: String| {
            faults.push(SyntaxError {
                line: entry.line,
                column: entry.column,
                message,
            })
        };
        let names: std::collections::HashSet<&str> =
            selected.iter().map(|(n, _)| n.as_str()).collect();
        for (name, entry) in &self.cases {
            if !names.contains(name.as_str()) {
                fault(entry, format!("no case is named `{name}`"));
            }
        }
        let operators: std::collections::HashSet<String> = selected
            .iter()
            .filter(|(_, c)| c.kind() == CaseKind::Node)
            .map(|(_, c)| operator_of(c))
            .collect();
        for (operator, entry) in &self.operators {
            if !operators.contains(operator) {
                fault(
                    entry,
                    format!(
                        "no case is of operator `{operator}` (an operator outside the default \
                         domain is written `domain.Op`, as `\"ai.onnx.ml.Binarizer\"`)"
                    ),
                );
            }
        }
        let file: Arc<str> = self.file.as_str().into();
        let mut used_patterns = vec![false; self.patterns.len()];
        // By the operator's position in `self.operators`.
        let mut used_operators = vec![false; self.operators.len()];
        let rules = selected
            .iter()
            .map(|(name, case)| {
                let rule = |entry: &Entry, source| Rule {
                    entry: entry.clone(),
                    source,
                    file: file.clone(),
                };
                if let Some(entry) = self.cases.get(name) {
                    return Some(rule(entry, Source::Case));
                }
                if let Some(i) = self
                    .patterns
                    .iter()
                    .position(|(pattern, _)| matches(pattern, name))
                {
                    used_patterns[i] = true;
                    let (pattern, entry) = &self.patterns[i];
                    return Some(rule(entry, Source::Pattern(pattern.clone())));
                }
                let operator = operator_of(case);
                let (position, entry) = self.operators.get_with_position(&operator)?;
                if !runs_operator(case) {
                    return None;
                }
                used_operators[position] = true;
                Some(rule(entry, Source::Operator(operator)))
            })
            .collect();
        for ((pattern, entry), used) in self.patterns.iter().zip(used_patterns) {
            if !used {
                let message = if names.iter().any(|n| matches(pattern, n)) {
                    format!(
                        "`{pattern}` covers no case: each case it matches has its own entry or \
                         an earlier pattern's"
                    )
                } else {
                    format!("`{pattern}` matches no case")
                };
                fault(entry, message);
            }
        }
        for ((operator, entry), used) in self.operators.iter().zip(used_operators) {
            // An operator no case is of is reported above.
            if !used && operators.contains(operator) {
                fault(
                    entry,
                    format!(
                        "`{operator}` covers no case: each of its cases has its own entry or a \
                         pattern's (an operator's entry leaves its `_expanded` cases out)"
                    ),
                );
            }
        }
        (rules, faults)
    }

    /// The file, sorted within each table but the patterns (whose order says which applies).
    pub(crate) fn to_text(&self) -> String {
        let mut text = String::from(
            "# The onnx-conformance cases this runtime is expected to fail: how each fails (`error`:\n\
             # the runtime errs or panics; `wrong`: its outputs differ) and a part of what the\n\
             # harness says then. A listed case that passes, or fails otherwise, fails the run.\n\
             # `ONNX_CONFORMANCE_WRITE=1 cargo test --test onnx` rewrites this file from a run.\n",
        );
        let line = |key: &str, entry: &Entry| format!("{key} = {}\n", entry.value());
        if !self.operators.is_empty() {
            text.push_str("\n[operators]\n");
            for (operator, entry) in &self.operators {
                text.push_str(&line(&quote_key(operator), entry));
            }
        }
        if !self.patterns.is_empty() {
            text.push_str("\n[patterns]\n");
            for (pattern, entry) in &self.patterns {
                text.push_str(&line(&quote(pattern), entry));
            }
        }
        text.push_str("\n[cases]\n");
        for (name, entry) in &self.cases {
            text.push_str(&line(&quote_key(name), entry));
        }
        text
    }
}

/// A line and where its reader is.
struct Cursor<'a> {
    line: &'a str,
    /// A byte offset in `line`.
    at: usize,
    number: usize,
}

impl Cursor<'_> {
    fn rest(&self) -> &str {
        &self.line[self.at..]
    }

    /// The column (1-based, in characters) of a byte offset.
    fn column_of(&self, at: usize) -> usize {
        self.line[..at].chars().count() + 1
    }

    fn column(&self) -> usize {
        self.column_of(self.at)
    }

    fn error(&self, message: String) -> SyntaxError {
        self.error_at(self.at, message)
    }

    fn error_at(&self, at: usize, message: String) -> SyntaxError {
        SyntaxError {
            line: self.number,
            column: self.column_of(at),
            message,
        }
    }

    fn skip_spaces(&mut self) {
        let rest = self.rest();
        self.at += rest.len() - rest.trim_start_matches([' ', '\t']).len();
    }

    fn expect(&mut self, c: char, message: &str) -> Result<(), SyntaxError> {
        if self.rest().starts_with(c) {
            self.at += c.len_utf8();
            Ok(())
        } else {
            Err(self.error(message.to_string()))
        }
    }

    /// A bare key (letters, digits, `_`, `-`) or a quoted one.
    fn key(&mut self) -> Result<String, SyntaxError> {
        if self.rest().starts_with('"') {
            return self.string();
        }
        let rest = self.rest();
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(rest.len());
        if end == 0 {
            return Err(self.error(
                "expected a name: letters, digits, `_` and `-`, or a string in double quotes"
                    .to_string(),
            ));
        }
        let key = rest[..end].to_string();
        self.at += end;
        Ok(key)
    }

    /// A basic string `"…"` with the escapes `\"`, `\\`, `\n` and `\t`.
    fn string(&mut self) -> Result<String, SyntaxError> {
        if !self.rest().starts_with('"') {
            return Err(self.error("expected a string in double quotes".to_string()));
        }
        let start = self.at;
        let mut value = String::new();
        let mut chars = self.rest().char_indices().skip(1);
        while let Some((at, c)) = chars.next() {
            match c {
                '"' => {
                    self.at = start + at + 1;
                    return Ok(value);
                }
                '\\' => match chars.next() {
                    Some((_, '"')) => value.push('"'),
                    Some((_, '\\')) => value.push('\\'),
                    Some((_, 'n')) => value.push('\n'),
                    Some((_, 't')) => value.push('\t'),
                    _ => {
                        return Err(self.error_at(
                            start + at,
                            "expected one of the escapes \\\" \\\\ \\n \\t".to_string(),
                        ));
                    }
                },
                c => value.push(c),
            }
        }
        Err(self.error_at(self.line.len(), "the string is not closed".to_string()))
    }
}

fn strip_comment(text: &str) -> &str {
    text.split_once('#')
        .map_or(text, |(before, _)| before)
        .trim()
}

fn quote(text: &str) -> String {
    let escaped = text
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
        .replace('\t', "\\t");
    format!("\"{escaped}\"")
}

/// A key bare when it can be, quoted otherwise.
fn quote_key(key: &str) -> String {
    if !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        key.to_string()
    } else {
        quote(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cases;

    fn parse_error(text: &str) -> (usize, usize, String) {
        let faults = Expectations::parse(text).unwrap_err();
        let error = faults.first().clone();
        (error.line, error.column, error.message)
    }

    fn resolve_error(text: &str) -> (usize, usize, String) {
        let faults = Expectations::parse(text).unwrap().resolve().unwrap_err();
        let error = faults.first().clone();
        (error.line, error.column, error.message)
    }

    #[test]
    fn reads_the_three_tables_with_comments_and_quoted_keys() {
        let text = "# runtime x\n\n[operators]  # whole operators\n\
                    Acos = { error = \"Acos is not implemented\" }  # later\n\
                    \"ai.onnx.ml.Binarizer\" = {error=\"no ml\"}\n\
                    [patterns]\n\"test_attention_*\" = { wrong = \"a # b \\\"q\\\"\" }\n\
                    [cases]\n  test_abs = { error = \"\" }\n";
        let e = Expectations::parse(text).unwrap();
        let acos = &e.operators["Acos"];
        assert_eq!(
            (acos.kind, acos.reason.as_str(), acos.line, acos.column),
            (Kind::Error, "Acos is not implemented", 4, 1)
        );
        assert_eq!(e.operators["ai.onnx.ml.Binarizer"].reason, "no ml");
        assert_eq!(e.patterns.len(), 1);
        assert_eq!(e.patterns[0].0, "test_attention_*");
        assert_eq!(e.patterns[0].1.kind, Kind::Wrong);
        assert_eq!(e.patterns[0].1.reason, "a # b \"q\"");
        assert_eq!(
            (e.cases["test_abs"].line, e.cases["test_abs"].column),
            (9, 3)
        );
    }

    #[test]
    fn writes_what_it_reads() {
        let mut e = Expectations::default();
        e.cases.insert(
            "test_a".into(),
            Entry::new(
                Kind::Wrong,
                "a \"quoted\" \\ reason\nsecond line\tand a tab",
            ),
        );
        e.cases.insert("test_b".into(), Entry::new(Kind::Error, ""));
        e.operators
            .insert("ai.onnx.ml.Binarizer".into(), Entry::new(Kind::Error, "é"));
        e.patterns
            .push(("test_z*".into(), Entry::new(Kind::Error, "z")));
        e.patterns
            .push(("test_a*".into(), Entry::new(Kind::Wrong, "a")));
        let text = e.to_text();
        assert!(text.contains("\n[operators]\n\"ai.onnx.ml.Binarizer\" = { error = \"é\" }\n"));
        // Patterns keep their order: the first that matches applies.
        assert!(
            text.contains("\"test_z*\" = { error = \"z\" }\n\"test_a*\""),
            "{text}"
        );
        let back = Expectations::parse(&text).unwrap();
        assert_eq!(back.to_text(), text);
        let strip = |e: &Expectations| -> Vec<(String, Kind, String)> {
            let all = e.operators.iter().chain(e.cases.iter());
            all.chain(e.patterns.iter())
                .map(|(k, v)| (k.clone(), v.kind, v.reason.clone()))
                .collect()
        };
        assert_eq!(strip(&back), strip(&e));
    }

    #[test]
    fn errors_name_line_and_column() {
        let cases: &[(&str, usize, usize, &str)] = &[
            (
                "test_a = { error = \"x\" }\n",
                1,
                1,
                "expected `[operators]`, `[patterns]` or `[cases]` before the first entry",
            ),
            (
                "[cases]\ntest_a { error = \"x\" }\n",
                2,
                8,
                "expected `=` after the name",
            ),
            (
                "[operators]\nai.onnx.ml.Binarizer = { error = \"x\" }\n",
                2,
                1,
                "a name with `.` or `*` goes in double quotes (`\"ai.onnx.ml.Binarizer\"`, \
                 `\"test_attention_*\"`)",
            ),
            (
                "[patterns]\ntest_attention_* = { error = \"x\" }\n",
                2,
                1,
                "a name with `.` or `*` goes in double quotes (`\"ai.onnx.ml.Binarizer\"`, \
                 `\"test_attention_*\"`)",
            ),
            (
                "[cases]\ntest_a = error\n",
                2,
                10,
                "expected `\"error\"`, `\"wrong\"`, `{ error = \"…\" }` or `{ wrong = \"…\" }`",
            ),
            (
                "[cases]\ntest_a = { error = \"x }\n",
                2,
                24,
                "the string is not closed",
            ),
            (
                "[cases]\ntest_a = { error = \"x\" } y\n",
                2,
                26,
                "unexpected `y` after the entry",
            ),
            (
                "[cases]\ntest_a = { error = \"x\"\n",
                2,
                23,
                "expected `}` after the reason",
            ),
            (
                "[cases]\ntest_a = { error = \"x\", wrong = \"y\" }\n",
                2,
                23,
                "an entry has one kind only: `\"error\"`, `\"wrong\"`, `{ error = \"…\" }` or \
                 `{ wrong = \"…\" }`",
            ),
            (
                "[cases]\ntest_a = { fails = \"x\" }\n",
                2,
                12,
                "expected `error` (the runtime errs or panics) or `wrong` (its outputs differ), \
                 not `fails`",
            ),
            (
                "[cases]\ntest_a = { error \"x\" }\n",
                2,
                18,
                "expected `=` after `error`",
            ),
            (
                "[cases]\ntest_a = { error = x }\n",
                2,
                20,
                "expected a string in double quotes",
            ),
            (
                "[cases]\n a = { error = \"\" }\n a = { wrong = \"\" }\n",
                3,
                2,
                "`a` is listed twice",
            ),
            (
                "[patterns]\n\"t*\" = { error = \"\" }\n\"t*\" = { error = \"\" }\n",
                3,
                1,
                "`t*` is listed twice",
            ),
            (
                "[patterns]\ntest_abs = { error = \"\" }\n",
                2,
                1,
                "`test_abs` has no `*`: a pattern stands for names (`test_attention_*`); list one \
                 case under `[cases]`",
            ),
            (
                "[other]\n",
                1,
                1,
                "expected `[operators]`, `[patterns]` or `[cases]`, the tables of this file",
            ),
            (
                "[cases]\n= { error = \"x\" }\n",
                2,
                1,
                "expected a name: letters, digits, `_` and `-`, or a string in double quotes",
            ),
            (
                "[cases]\na = { error = \"\\q\" }\n",
                2,
                16,
                "expected one of the escapes \\\" \\\\ \\n \\t",
            ),
            (
                "[cases]\n\"é\" = { error = \"\\q\" }\n",
                2,
                18,
                "expected one of the escapes \\\" \\\\ \\n \\t",
            ),
        ];
        for &(text, line, column, message) in cases {
            assert_eq!(
                parse_error(text),
                (line, column, message.to_string()),
                "{text:?}"
            );
        }
        let error = Expectations::parse("[x]").unwrap_err();
        assert!(error.to_string().starts_with("onnx-conformance.toml:1:1: "));
    }

    /// Every text one edit away from a valid file reads, or fails with a place inside the text:
    /// no panic, and no line or column past the end.
    #[test]
    fn no_edit_of_a_file_panics() {
        let valid = "# c\n[operators]\n\"ai.x\" = { error = \"é \\\" #\" } # t\n\
                     [patterns]\n\"t_*\" = { wrong = \"\" }\n[cases]\nt_a = {error=\"a\"}\n";
        Expectations::parse(valid).unwrap();
        let chars: Vec<char> = valid.chars().collect();
        let inserts = [
            '"', '\\', '{', '}', '=', '#', '[', ']', 'é', '*', '.', ' ', '\n', ',', 'x',
        ];
        let mut texts = Vec::new();
        for i in 0..=chars.len() {
            if i < chars.len() {
                let mut t = chars.clone();
                t.remove(i);
                texts.push(t);
            }
            for c in inserts {
                let mut t = chars.clone();
                t.insert(i, c);
                texts.push(t);
            }
        }
        for text in texts {
            let text: String = text.into_iter().collect();
            for error in Expectations::parse(&text)
                .err()
                .map_or(vec![], |f| f.faults)
            {
                let lines: Vec<&str> = text.lines().collect();
                assert!(
                    error.line >= 1 && error.line <= lines.len(),
                    "{text:?}: {error:?}"
                );
                let width = lines[error.line - 1].chars().count();
                assert!(
                    error.column >= 1 && error.column <= width + 1,
                    "{text:?}: {error:?}"
                );
            }
        }
    }

    /// The old form (a table of plain reasons) is refused with what to write instead.
    #[test]
    fn the_old_form_is_refused_with_the_new_one() {
        let (line, column, message) = parse_error("# x\n[expected-failures]\ntest_abs = \"r\"\n");
        assert_eq!((line, column), (2, 1));
        assert!(
            message.starts_with("`[expected-failures]` is the old form"),
            "{message}"
        );
        let (line, column, message) = parse_error("[cases]\ntest_abs = \"r\"\n");
        assert_eq!((line, column), (2, 12));
        assert!(
            message.starts_with("a reason needs its kind: `\"error\"`, `\"wrong\"`, `{ error"),
            "{message}"
        );
    }

    #[test]
    fn entries_must_cover_cases() {
        let texts: &[(&str, usize, usize, &str)] = &[
            (
                "[cases]\n\n  test_nope = { error = \"\" }\n",
                3,
                3,
                "no case is named `test_nope`",
            ),
            (
                "[operators]\nBinarizer = { error = \"\" }\n",
                2,
                1,
                "no case is of operator `Binarizer` (an operator outside the default domain is \
                 written `domain.Op`, as `\"ai.onnx.ml.Binarizer\"`)",
            ),
            (
                "[patterns]\n\"test_nope_*\" = { error = \"\" }\n",
                2,
                1,
                "`test_nope_*` matches no case",
            ),
            (
                "[patterns]\n\"test_softsign*\" = { error = \"\" }\n\"test_softsign_e*\" = { error = \"\" }\n",
                3,
                1,
                "`test_softsign_e*` covers no case: each case it matches has its own entry or an \
                 earlier pattern's",
            ),
            (
                "[operators]\nSoftsign = { error = \"\" }\n[cases]\n\
                 test_softsign = { error = \"\" }\ntest_softsign_example = { error = \"\" }\n",
                2,
                1,
                "`Softsign` covers no case: each of its cases has its own entry or a pattern's (an \
                 operator's entry leaves its `_expanded` cases out)",
            ),
        ];
        for &(text, line, column, message) in texts {
            assert_eq!(
                resolve_error(text),
                (line, column, message.to_string()),
                "{text:?}"
            );
        }
        let e = Expectations::parse("[operators]\n\"ai.onnx.ml.Binarizer\" = { error = \"\" }\n")
            .unwrap();
        let covered: Vec<&str> = e
            .resolve()
            .unwrap()
            .iter()
            .zip(cases())
            .filter(|(rule, _)| rule.is_some())
            .map(|(_, case)| case.name())
            .collect();
        assert_eq!(covered, ["test_ai_onnx_ml_binarizer"]);
    }

    #[test]
    fn patterns_match_with_stars() {
        for (pattern, name, expected) in [
            ("test_attention_*", "test_attention_3d", true),
            ("test_attention_*", "test_attention_", true),
            ("test_attention_*", "test_attentio", false),
            ("*_expanded", "test_abs_expanded", true),
            ("*_expanded", "test_abs_expanded_ver18", false),
            ("*_expanded*", "test_abs_expanded_ver18", true),
            (
                "test_*_bf16*",
                "test_attention_4d_causal_bf16_expanded",
                true,
            ),
            ("test_*_bf16*", "test_bf16", false),
            ("a*a", "a", false),
            ("a*a", "aa", true),
            ("*", "", true),
            ("a**b", "ab", true),
        ] {
            assert_eq!(matches(pattern, name), expected, "{pattern} {name}");
        }
    }

    #[test]
    fn a_rule_admits_its_kind_with_its_reason_inside() {
        let rule = |kind, reason: &str| Rule {
            entry: Entry::new(kind, reason),
            source: Source::Case,
            file: FILE_NAME.into(),
        };
        let error = |text| Failure {
            kind: Kind::Error,
            text,
        };
        let wrong = |text| Failure {
            kind: Kind::Wrong,
            text,
        };
        let acos = rule(Kind::Error, "Acos is not implemented");
        assert!(acos.admits(error("the runtime failed: Acos is not implemented")));
        // Acos implemented, wrongly: the entry no longer holds.
        assert!(!acos.admits(wrong("output 0 (`y`): values differ")));
        // Acos implemented, failing on something else.
        assert!(!acos.admits(error("the runtime failed: Acos: float16 is not supported")));
        let values = rule(Kind::Wrong, "output 0 (`y`): values differ");
        assert!(values.admits(wrong("output 0 (`y`): values differ")));
        assert!(!values.admits(wrong("output 0 (`y`): the shape differs")));
        assert!(!values.admits(wrong("output 1 (`z`): values differ")));
        assert!(!values.admits(error("the runtime failed: output 0 (`y`): values differ")));
        // A recorded panic is not an error of the same message: the runtime's change shows.
        let panic = rule(Kind::Error, "the runtime panicked: index out of bounds");
        assert!(panic.admits(error("the runtime panicked: index out of bounds: 3")));
        assert!(!panic.admits(error("the runtime failed: index out of bounds")));
        // The empty reason admits any failure of its kind.
        assert!(rule(Kind::Wrong, "").admits(wrong("the number of outputs differs")));
        assert!(!rule(Kind::Wrong, "").admits(error("")));
    }

    /// The files of the example runners (examples/conformance-*) are in the form this reads,
    /// name only the kit's cases, and are as a write run leaves them.
    #[test]
    fn the_example_runners_files_read_back_as_written() {
        for runner in ["conformance-tract", "conformance-candle"] {
            let path = format!(
                "{}/../examples/{runner}/{FILE_NAME}",
                env!("CARGO_MANIFEST_DIR")
            );
            let text = std::fs::read_to_string(&path).unwrap();
            let e = Expectations::parse(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
            e.resolve().unwrap_or_else(|e| panic!("{path}: {e}"));
            assert!(e.cases.len() > 600, "{path}");
            assert_eq!(e.to_text(), text, "{path}");
        }
    }
}
