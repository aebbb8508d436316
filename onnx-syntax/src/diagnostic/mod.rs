//! What every layer reports, syntax errors, the checks of trees and the rules of binary models
//! alike: [`Diagnostic`] (one problem: its code, severity, byte spans, labels and fixes) and
//! [`Diagnostics`] (all problems of one text, positioned and displayable without the text at
//! hand). [`Check`] names the codes, one for each check, as `#![allow(...)]`, `--allow` and the
//! docs spell them.

use std::fmt;

mod code;
// Shared with the layers above, whose messages name things this way; not API for users.
#[doc(hidden)]
pub mod message;
mod place;

pub use code::{Category, Check, UnknownCheck};
pub use place::Place;

use crate::error::{ParseError, ParseErrorKind};
use crate::render::{Excerpt, Mark, render};
use crate::span::LineIndex;
use crate::span::{LineColumn, Span};

/// A secondary span of a diagnostic, with what it shows, such as "first defined here".
///
/// ```
/// use onnx_syntax::Span;
/// use onnx_check::Label;
/// let label = Label { span: Span::new(0, 1), message: "first defined here".into() };
/// assert_eq!(label.span.len(), 1);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// The byte range in the source text.
    pub span: Span,
    /// What the range shows.
    pub message: String,
}

/// How bad a [`Diagnostic`] is. Every check and syntax error is an error today; the type is
/// here so that tools (the language server) read the severity instead of assuming it.
///
/// ```
/// use onnx_syntax::Span;
/// use onnx_check::{Check, Diagnostic, Severity};
/// let d = Diagnostic::new(Check::UndefinedValue, Span::new(0, 1), "value `q` is used but never defined");
/// assert_eq!(d.severity(), Severity::Error);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    /// The text is invalid: the macros fail to compile, the CLI exits with 1.
    Error,
}

/// One change to the source text: replace the bytes of `span` with `text` (an empty span
/// inserts).
///
/// ```
/// use onnx_syntax::Span;
/// use onnx_check::Edit;
/// let edit = Edit { span: Span::new(4, 8), text: "Relu".into() };
/// let mut source = String::from("y = Rleu(x)");
/// source.replace_range(edit.span.range(), &edit.text);
/// assert_eq!(source, "y = Relu(x)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    /// The bytes replaced.
    pub span: Span,
    /// What replaces them.
    pub text: String,
}

/// A fix a diagnostic suggests: what it does, in a few words, and the edits that make it. The
/// checks build their fixes where they know what to write, so that tools apply them without
/// reading the message.
///
/// ```
/// use onnx_check::CheckOptions;
/// let text = "<opset_import: [\"\" : 21]> g (float x) => (float y) { y = Rleu(x) }";
/// let found = CheckOptions::default().check_model(text).unwrap_err();
/// let fix = &found[0].fixes()[0];
/// assert_eq!(fix.title, "Replace with `Relu`");
/// assert_eq!(&text[fix.edits[0].span.range()], "Rleu");
/// assert_eq!(fix.edits[0].text, "Relu");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    /// What the fix does ("Replace with `Relu`").
    pub title: String,
    /// The changes, in no particular order, none overlapping.
    pub edits: Vec<Edit>,
}

impl Fix {
    /// The fix that replaces `span` with `text`, titled "Replace with `text`".
    ///
    /// ```
    /// use onnx_syntax::Span;
    /// use onnx_check::Fix;
    /// let fix = Fix::replace(Span::new(4, 8), "Relu");
    /// assert_eq!((fix.title.as_str(), fix.edits.len()), ("Replace with `Relu`", 1));
    /// ```
    pub fn replace(span: Span, text: impl Into<String>) -> Fix {
        let text = text.into();
        Fix {
            title: format!("Replace with `{text}`"),
            edits: vec![Edit { span, text }],
        }
    }
}

/// What kind of problem a [`Diagnostic`] is: a syntax error of some [`ParseErrorKind`], or what
/// a [`Check`] found. Match on it to tell problems apart without reading messages.
///
/// ```
/// use onnx_syntax::ParseErrorKind;
/// use onnx_syntax::diagnostic::{Check, DiagnosticKind};
/// use onnx_check::CheckOptions;
/// let kinds = |text| -> Vec<DiagnosticKind> {
///     CheckOptions::default().check_graph(text).unwrap_err().iter().map(|d| d.kind()).collect()
/// };
/// assert_eq!(kinds("g (x) => (y) { y = Abs(q) }"), [DiagnosticKind::Check(Check::UndefinedValue)]);
/// assert_eq!(kinds("g (x) => (y) { y = Abs(x }"), [DiagnosticKind::Syntax(ParseErrorKind::Unexpected)]);
/// assert_eq!(DiagnosticKind::from(Check::UndefinedValue).to_string(), "undefined_value");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DiagnosticKind {
    /// A syntax error: the text does not parse.
    Syntax(ParseErrorKind),
    /// A problem that a check found in text that parses, or a rule in a binary model.
    Check(Check),
    /// Bytes that are not a model at all: they do not decode as one, or go past the decoding
    /// limits.
    Decode,
}

impl From<Check> for DiagnosticKind {
    fn from(check: Check) -> DiagnosticKind {
        DiagnosticKind::Check(check)
    }
}

impl From<ParseErrorKind> for DiagnosticKind {
    fn from(kind: ParseErrorKind) -> DiagnosticKind {
        DiagnosticKind::Syntax(kind)
    }
}

/// The name of the check or of the syntax error kind.
impl fmt::Display for DiagnosticKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DiagnosticKind::Syntax(kind) => kind.fmt(f),
            DiagnosticKind::Check(check) => check.fmt(f),
            DiagnosticKind::Decode => f.write_str("decode"),
        }
    }
}

/// One problem: its [`DiagnosticKind`] (the check that found it, or the kind of syntax error),
/// what is wrong, where, and the fixes it suggests. In a text, where is the smallest offending
/// byte range and secondary labelled ranges; in a binary model, which has no text, a [`Place`]
/// in its messages.
///
/// ```
/// use onnx_syntax::Entry;
/// use onnx_syntax::diagnostic::Check;
/// use onnx_check::{CheckOptions, CheckTree};
///
/// let text = "g (x) => (y) { y = Add(x, q) }";
/// let found = Entry::Graph.parse(text)?.check(text, &CheckOptions::default()).diagnostics;
/// assert_eq!(found.len(), 1);
/// assert_eq!(found[0].check(), Some(Check::UndefinedValue));
/// assert_eq!(found[0].message(), "value `q` is used but never defined");
/// assert_eq!(&text[found[0].span().range()], "q");
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    kind: DiagnosticKind,
    message: String,
    span: Span,
    labels: Vec<Label>,
    fixes: Vec<Fix>,
    // Boxed: most diagnostics are in a text and have none.
    place: Option<Box<Place>>,
}

impl Diagnostic {
    /// A diagnostic of `kind` (a [`Check`] or a [`ParseErrorKind`]) at `span`.
    ///
    /// ```
    /// use onnx_syntax::Span;
    /// use onnx_check::{Check, Diagnostic};
    /// let d = Diagnostic::new(Check::UndefinedValue, Span::new(4, 5), "value `q` is used but never defined");
    /// assert_eq!(d.span(), Span::new(4, 5));
    /// ```
    pub fn new(
        kind: impl Into<DiagnosticKind>,
        span: Span,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            kind: kind.into(),
            message: message.into(),
            span,
            labels: Vec::new(),
            fixes: Vec::new(),
            place: None,
        }
    }

    /// A diagnostic of `kind` at `place` in the messages of a binary model, which has no text.
    ///
    /// ```
    /// use onnx_syntax::diagnostic::{Check, Diagnostic, Place};
    /// let d = Diagnostic::in_message(Check::EmptyOpType, Place::new(vec!["graph `g`".into()]), "node has no op_type");
    /// assert_eq!(d.place().unwrap().to_string(), "graph `g`");
    /// assert_eq!(d.to_string(), "error[empty_op_type]: node has no op_type (at graph `g`)");
    /// ```
    pub fn in_message(
        kind: impl Into<DiagnosticKind>,
        place: Place,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            place: Some(Box::new(place)),
            ..Diagnostic::new(kind, Span::default(), message)
        }
    }

    /// Where in the messages of a binary model the problem is; `None` for a problem located in
    /// a text by its spans.
    ///
    /// ```
    /// let err = onnx_syntax::parse_node("y = ").unwrap_err();
    /// assert!(onnx_syntax::diagnostic::Diagnostic::from(&err).place().is_none());
    /// ```
    pub fn place(&self) -> Option<&Place> {
        self.place.as_deref()
    }

    /// The same diagnostic with a fix it suggests.
    ///
    /// ```
    /// use onnx_syntax::Span;
    /// use onnx_check::{Check, Diagnostic, Fix};
    /// let d = Diagnostic::new(Check::UnknownOperator, Span::new(4, 8), "`Rleu` is not an operator of ai.onnx")
    ///     .with_fix(Fix::replace(Span::new(4, 8), "Relu"));
    /// assert_eq!(d.fixes()[0].edits[0].text, "Relu");
    /// ```
    pub fn with_fix(mut self, fix: Fix) -> Diagnostic {
        self.fixes.push(fix);
        self
    }

    /// The fixes the diagnostic suggests, if any.
    ///
    /// ```
    /// use onnx_syntax::Span;
    /// use onnx_check::{Check, Diagnostic};
    /// let d = Diagnostic::new(Check::UndefinedValue, Span::new(0, 1), "value `q` is used but never defined");
    /// assert!(d.fixes().is_empty());
    /// ```
    pub fn fixes(&self) -> &[Fix] {
        &self.fixes
    }

    /// How bad the problem is.
    ///
    /// ```
    /// use onnx_syntax::{ParseErrorKind, Span};
    /// use onnx_check::{Diagnostic, Severity};
    /// let d = Diagnostic::new(ParseErrorKind::Unexpected, Span::at(0), "expected a graph");
    /// assert_eq!(d.severity(), Severity::Error);
    /// ```
    pub fn severity(&self) -> Severity {
        Severity::Error
    }

    /// The same diagnostic with a secondary labelled span.
    ///
    /// ```
    /// use onnx_syntax::Span;
    /// use onnx_check::{Check, Diagnostic};
    /// let d = Diagnostic::new(Check::DuplicateDefinition, Span::new(12, 13), "`t` is already defined at line 1")
    ///     .with_label(Span::new(0, 1), "first defined here");
    /// assert_eq!(d.labels()[0].message, "first defined here");
    /// ```
    pub fn with_label(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label {
            span,
            message: message.into(),
        });
        self
    }

    /// What kind of problem this is: a syntax error's kind, or the check that found it.
    ///
    /// ```
    /// use onnx_syntax::ParseErrorKind;
    /// use onnx_check::{Diagnostic, DiagnosticKind};
    /// let err = onnx_syntax::parse_node("y = ").unwrap_err();
    /// assert_eq!(Diagnostic::from(&err).kind(), DiagnosticKind::Syntax(ParseErrorKind::Unexpected));
    /// ```
    pub fn kind(&self) -> DiagnosticKind {
        self.kind
    }

    /// The check that found the problem; `None` for a syntax error.
    ///
    /// ```
    /// let err = onnx_syntax::parse_node("y = ").unwrap_err();
    /// assert_eq!(onnx_syntax::diagnostic::Diagnostic::from(&err).check(), None);
    /// ```
    pub fn check(&self) -> Option<Check> {
        match self.kind {
            DiagnosticKind::Check(check) => Some(check),
            DiagnosticKind::Syntax(_) | DiagnosticKind::Decode => None,
        }
    }

    /// What is wrong: what was expected and what was found.
    ///
    /// ```
    /// use onnx_syntax::{ParseErrorKind, Span};
    /// use onnx_check::Diagnostic;
    /// assert_eq!(Diagnostic::new(ParseErrorKind::Unexpected, Span::at(0), "oops").message(), "oops");
    /// ```
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The smallest offending byte range of the source text.
    ///
    /// ```
    /// use onnx_syntax::{ParseErrorKind, Span};
    /// use onnx_check::Diagnostic;
    /// assert_eq!(Diagnostic::new(ParseErrorKind::Unexpected, Span::new(2, 3), "oops").span().range(), 2..3);
    /// ```
    pub fn span(&self) -> Span {
        self.span
    }

    /// Secondary labelled ranges, such as where a value was first defined.
    ///
    /// ```
    /// use onnx_syntax::{ParseErrorKind, Span};
    /// use onnx_check::Diagnostic;
    /// assert!(Diagnostic::new(ParseErrorKind::Unexpected, Span::at(0), "oops").labels().is_empty());
    /// ```
    pub fn labels(&self) -> &[Label] {
        &self.labels
    }

    /// Draws the diagnostic rustc-style, with the lines of `source` (the text that was checked)
    /// that it points at. `origin`, when given, names the text (a file name) in the ` --> ` line.
    ///
    /// ```
    /// use onnx_check::CheckTree;
    /// use onnx_syntax::Entry;
    /// use onnx_check::CheckOptions;
    /// let text = "g (x) => (y) {\n  t = Abs(x)\n  t = Neg(x)\n  y = Identity(t)\n}";
    /// let found = Entry::Graph.parse(text)?.check(text, &CheckOptions::default()).diagnostics;
    /// assert_eq!(found[0].render(text, Some("g.onnxtxt")), "\
    /// error[duplicate_definition]: `t` is already defined at line 2
    ///  --> g.onnxtxt:3:3
    ///   |
    /// 2 |   t = Abs(x)
    ///   |   - first defined here
    /// 3 |   t = Neg(x)
    ///   |   ^
    /// ");
    /// # Ok::<(), onnx_syntax::ParseError>(())
    /// ```
    pub fn render(&self, source: &str, origin: Option<&str>) -> String {
        let index = LineIndex::new(source);
        let resolved = Resolved::new(self, source, &index);
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = resolved.write(&mut out, self, origin);
        out
    }

    /// `error[name]` for a check, `error` for a syntax error.
    fn title(&self) -> String {
        match self.kind {
            DiagnosticKind::Check(check) => format!("error[{}]", check.name()),
            DiagnosticKind::Syntax(_) | DiagnosticKind::Decode => "error".to_owned(),
        }
    }
}

/// A one-line form without the source: `error[name]: message (bytes a..b)`, or
/// `(at place)` for a diagnostic of a binary model.
///
/// ```
/// use onnx_syntax::Span;
/// use onnx_check::{Check, Diagnostic};
/// let d = Diagnostic::new(Check::UndefinedValue, Span::new(4, 5), "value `q` is used but never defined");
/// assert_eq!(d.to_string(), "error[undefined_value]: value `q` is used but never defined (bytes 4..5)");
/// ```
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(place) = &self.place {
            return write!(f, "{}: {} (at {place})", self.title(), self.message);
        }
        write!(
            f,
            "{}: {} (bytes {}..{})",
            self.title(),
            self.message,
            self.span.start,
            self.span.end
        )
    }
}

/// A syntax error as a diagnostic of its kind.
///
/// ```
/// use onnx_syntax::diagnostic::DiagnosticKind;
/// let err = onnx_syntax::parse_node("y = Relu(x);").unwrap_err();
/// let d = onnx_syntax::diagnostic::Diagnostic::from(&err);
/// assert_eq!((d.message(), d.span()), (err.message(), err.span()));
/// assert_eq!(d.kind(), DiagnosticKind::Syntax(err.kind()));
/// ```
impl From<&ParseError> for Diagnostic {
    fn from(err: &ParseError) -> Diagnostic {
        Diagnostic::new(err.kind(), err.span(), err.message())
    }
}

/// One underlined range, with its line resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
struct ResolvedMark {
    position: LineColumn,
    excerpt: Excerpt,
    len: usize,
    primary: bool,
    label: String,
}

/// A diagnostic's ranges, resolved against the source text.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Resolved {
    marks: Vec<ResolvedMark>,
}

impl Resolved {
    fn new(diagnostic: &Diagnostic, source: &str, index: &LineIndex) -> Resolved {
        if diagnostic.place.is_some() {
            return Resolved { marks: Vec::new() };
        }
        let ranges: Vec<(Span, bool, &str)> = std::iter::once((diagnostic.span, true, ""))
            .chain(
                diagnostic
                    .labels
                    .iter()
                    .map(|label| (label.span, false, label.message.as_str())),
            )
            .collect();
        // Each range as (line, first byte, end byte) within its line.
        let places: Vec<(LineColumn, usize, usize)> = ranges
            .iter()
            .map(|(span, _, _)| {
                let position = index.line_column(span.start as usize);
                let from = position.column - 1;
                let len = span.end.saturating_sub(span.start) as usize;
                (position, from, from + len)
            })
            .collect();
        let marks = ranges
            .iter()
            .zip(&places)
            .map(|(&(span, primary, label), &(position, from, to))| {
                // One window for the ranges of one line when it can show them all, so that
                // the line is drawn once.
                let same_line = places.iter().filter(|p| p.0.line == position.line);
                let low = same_line.clone().map(|p| p.1).min().unwrap_or(from);
                let high = same_line.map(|p| p.2).max().unwrap_or(to);
                let (from, to) = if Excerpt::fits(low, high) {
                    (low, high)
                } else {
                    (from, to)
                };
                let line = index.line_text(source, span.start as usize);
                ResolvedMark {
                    position,
                    excerpt: Excerpt::new(line, from, to),
                    len: span.end.saturating_sub(span.start) as usize,
                    primary,
                    label: label.to_owned(),
                }
            })
            .collect();
        Resolved { marks }
    }

    fn write(
        &self,
        f: &mut dyn fmt::Write,
        diagnostic: &Diagnostic,
        origin: Option<&str>,
    ) -> fmt::Result {
        if let Some(place) = &diagnostic.place {
            writeln!(f, "{}: {}", diagnostic.title(), diagnostic.message)?;
            return match origin {
                Some(origin) => writeln!(f, " --> {}", (**place).clone().in_file(origin)),
                None => writeln!(f, " --> {place}"),
            };
        }
        let marks: Vec<Mark<'_>> = self
            .marks
            .iter()
            .map(|m| Mark {
                line: m.position.line,
                column: m.position.column,
                excerpt: &m.excerpt,
                len: m.len,
                primary: m.primary,
                label: &m.label,
            })
            .collect();
        render(f, &diagnostic.title(), &diagnostic.message, origin, &marks)
    }
}

/// Every problem found in one text, in source order, positioned against that text.
///
/// `Display` draws them all rustc-style, separated by blank lines; the source is not needed,
/// as the lines pointed at are kept. It implements `std::error::Error`.
///
/// ```
/// let text = "g (x) => (y) { y = Add(p, q) }";
/// let err = onnx_check::CheckOptions::default().check_graph(text).unwrap_err();
/// assert_eq!(err.len(), 2); // a slice of `Diagnostic`s
/// assert_eq!(err[1].message(), "value `q` is used but never defined");
/// assert_eq!(err.line_column(1).map(|p| p.column), Some(27));
/// assert!(err.to_string().starts_with("error[undefined_value]: value `p` is used but never defined\n"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostics {
    list: Vec<Diagnostic>,
    resolved: Vec<Resolved>,
    origin: Option<String>,
}

impl Diagnostics {
    /// The diagnostics `list`, found in `source`, positioned against it.
    ///
    /// ```
    /// use onnx_syntax::{ParseErrorKind, Span};
    /// use onnx_check::{Diagnostic, Diagnostics};
    /// let d = Diagnostics::new("a\nbc", vec![Diagnostic::new(ParseErrorKind::Unexpected, Span::new(3, 4), "oops")]);
    /// assert_eq!(d.line_column(0).map(|p| (p.line, p.column)), Some((2, 2)));
    /// ```
    pub fn new(source: &str, list: Vec<Diagnostic>) -> Diagnostics {
        let index = LineIndex::new(source);
        let resolved = list
            .iter()
            .map(|d| Resolved::new(d, source, &index))
            .collect();
        Diagnostics {
            list,
            resolved,
            origin: None,
        }
    }

    /// Adds the diagnostics of `other` after these (as syn's `Error::combine` does), each
    /// keeping its position in its own text.
    ///
    /// ```
    /// use onnx_check::CheckOptions;
    /// let mut err = CheckOptions::default().check_node("y = ").unwrap_err();
    /// err.combine(CheckOptions::default().check_graph("g () => (y) {}").unwrap_err());
    /// assert_eq!(err.len(), 2);
    /// assert_eq!(err.line_column(1).map(|p| (p.line, p.column)), Some((1, 10)));
    /// ```
    pub fn combine(&mut self, other: Diagnostics) {
        self.list.extend(other.list);
        self.resolved.extend(other.resolved);
    }

    /// The same diagnostics, naming where the text came from (a file name) in `Display`.
    ///
    /// ```
    /// let err = onnx_check::CheckOptions::default().check_node("y = ").unwrap_err();
    /// assert!(err.with_origin("n.onnxtxt").to_string().contains(" --> n.onnxtxt:1:5"));
    /// ```
    pub fn with_origin(mut self, origin: impl Into<String>) -> Diagnostics {
        self.origin = Some(origin.into());
        self
    }

    /// The snippet of the `index`-th diagnostic alone, as `Display` draws each one.
    ///
    /// ```
    /// let err = onnx_check::CheckOptions::default().check_node("y = ").unwrap_err();
    /// assert_eq!(err.render(0).unwrap(), "error: expected an operator name, found end of input\n --> 1:5\n  |\n1 | y = \n  |     ^\n");
    /// assert_eq!(err.render(1), None);
    /// ```
    pub fn render(&self, index: usize) -> Option<String> {
        let (diagnostic, resolved) = self.list.get(index).zip(self.resolved.get(index))?;
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = resolved.write(&mut out, diagnostic, self.origin.as_deref());
        Some(out)
    }

    /// The 1-based line and column of the `index`-th diagnostic's primary span.
    ///
    /// ```
    /// let err = onnx_check::CheckOptions::default().check_node("y = ").unwrap_err();
    /// assert_eq!(err.line_column(0).map(|p| p.column), Some(5));
    /// assert_eq!(err.line_column(1), None);
    /// ```
    pub fn line_column(&self, index: usize) -> Option<LineColumn> {
        self.resolved
            .get(index)
            .and_then(|r| r.marks.first())
            .map(|m| m.position)
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (diagnostic, resolved)) in self.list.iter().zip(&self.resolved).enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            resolved.write(f, diagnostic, self.origin.as_deref())?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

/// The diagnostics as a slice, in source order.
///
/// ```
/// let err = onnx_check::CheckOptions::default().check_graph("g () => (y) {}").unwrap_err();
/// assert_eq!(err.len(), 1);
/// assert_eq!(err[0].message(), "graph output `y` is never produced: no input, initializer or node defines it");
/// assert_eq!(err.iter().filter(|d| d.check().is_some()).count(), 1);
/// ```
impl std::ops::Deref for Diagnostics {
    type Target = [Diagnostic];

    fn deref(&self) -> &[Diagnostic] {
        &self.list
    }
}

/// The diagnostics, owned, in source order.
///
/// ```
/// let err = onnx_check::CheckOptions::default().check_graph("g () => (y) {}").unwrap_err();
/// let owned: Vec<onnx_syntax::diagnostic::Diagnostic> = err.into_iter().collect();
/// assert_eq!(owned.len(), 1);
/// ```
impl IntoIterator for Diagnostics {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;

    fn into_iter(self) -> Self::IntoIter {
        self.list.into_iter()
    }
}

/// The diagnostics, borrowed, in source order.
///
/// ```
/// let err = onnx_check::CheckOptions::default().check_graph("g () => (y) {}").unwrap_err();
/// assert_eq!((&err).into_iter().count(), 1);
/// ```
impl<'a> IntoIterator for &'a Diagnostics {
    type Item = &'a Diagnostic;
    type IntoIter = std::slice::Iter<'a, Diagnostic>;

    fn into_iter(self) -> Self::IntoIter {
        self.list.iter()
    }
}

impl From<ParseError> for Diagnostics {
    /// A syntax error as the one diagnostic of its text. The error keeps only its own line, so
    /// this is exact for the primary span, which is all a syntax error has.
    fn from(err: ParseError) -> Diagnostics {
        let diagnostic = Diagnostic::from(&err);
        let resolved = Resolved {
            marks: vec![ResolvedMark {
                position: LineColumn {
                    line: err.line(),
                    column: err.column(),
                },
                excerpt: err.excerpt().clone(),
                len: err.span().end.saturating_sub(err.span().start) as usize,
                primary: true,
                label: String::new(),
            }],
        };
        Diagnostics {
            list: vec![diagnostic],
            resolved: vec![resolved],
            origin: err.origin().map(str::to_owned),
        }
    }
}
