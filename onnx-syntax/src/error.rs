//! The error type of the parser: a message, a position and enough of the source to draw a snippet.

use std::fmt;

use crate::render::{Mark, render};
use crate::span::{LineColumn, Span, line_text};

/// A positioned syntax error.
///
/// It carries the message, the byte span of the offending text, the 1-based line and column of the
/// span's start, and the text of that line, so that `Display` can draw a rustc-style snippet without
/// the source at hand.
///
/// ```
/// let err = onnx_syntax::parse_node("y = Relu(x);").unwrap_err();
/// assert_eq!((err.line(), err.column()), (1, 12));
/// assert_eq!(err.to_string(), "\
/// error: expected end of input, found `;`
///  --> 1:12
///   |
/// 1 | y = Relu(x);
///   |            ^
/// ");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    message: String,
    span: Span,
    position: LineColumn,
    line_text: String,
    origin: Option<String>,
}

impl ParseError {
    /// An error at `span` of `source`.
    pub fn new(source: &str, span: Span, message: impl Into<String>) -> ParseError {
        let start = span.start as usize;
        ParseError {
            message: message.into(),
            span,
            position: LineColumn::of(source, start),
            line_text: line_text(source, start).to_owned(),
            origin: None,
        }
    }

    /// The same error, naming where the text came from (a file name) in `Display`.
    ///
    /// ```
    /// let err = onnx_syntax::parse_node("y = ").unwrap_err().with_origin("model.onnxtxt");
    /// assert!(err.to_string().contains(" --> model.onnxtxt:1:5"));
    /// ```
    pub fn with_origin(mut self, origin: impl Into<String>) -> ParseError {
        self.origin = Some(origin.into());
        self
    }

    /// What went wrong, without the position.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The byte span of the offending text.
    pub fn span(&self) -> Span {
        self.span
    }

    /// 1-based line of the span's start.
    pub fn line(&self) -> usize {
        self.position.line
    }

    /// 1-based byte column of the span's start.
    pub fn column(&self) -> usize {
        self.position.column
    }

    /// The text of the line of the span's start, for snippets drawn elsewhere.
    pub(crate) fn line_text(&self) -> &str {
        &self.line_text
    }

    /// The file name given by [`ParseError::with_origin`], if any.
    pub fn origin(&self) -> Option<&str> {
        self.origin.as_deref()
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mark = Mark {
            line: self.position.line,
            column: self.position.column,
            line_text: &self.line_text,
            len: self.span.len(),
            primary: true,
            label: "",
        };
        render(f, "error", &self.message, self.origin.as_deref(), &[mark])
    }
}

impl std::error::Error for ParseError {}
