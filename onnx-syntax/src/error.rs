//! The error type of the parser: a message, a position and enough of the source to draw a snippet.

use std::fmt;

use crate::render::{Excerpt, Mark, render};
use crate::span::{LineColumn, Span, line_text};

/// A positioned syntax error.
///
/// It carries the message, the byte span of the offending text, the 1-based line and column of the
/// span's start, and the text of that line (a window of it around the span, for lines over 160
/// bytes), so that `Display` can draw a rustc-style snippet without the source at hand.
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
    // Boxed so that the parser's many `Result<Token, ParseError>` stay two words wide: the
    // happy path should not move an error-sized value around.
    inner: Box<ErrorInner>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct ErrorInner {
    message: String,
    span: Span,
    position: LineColumn,
    excerpt: Excerpt,
    origin: Option<String>,
}

impl ParseError {
    /// An error at `span` of `source`.
    pub fn new(source: &str, span: Span, message: impl Into<String>) -> ParseError {
        let start = span.start as usize;
        let position = LineColumn::of(source, start);
        let from = position.column - 1;
        ParseError {
            inner: Box::new(ErrorInner {
                message: message.into(),
                span,
                position,
                excerpt: Excerpt::new(line_text(source, start), from, from + span.len()),
                origin: None,
            }),
        }
    }

    /// The same error, naming where the text came from (a file name) in `Display`.
    ///
    /// ```
    /// let err = onnx_syntax::parse_node("y = ").unwrap_err().with_origin("model.onnxtxt");
    /// assert!(err.to_string().contains(" --> model.onnxtxt:1:5"));
    /// ```
    pub fn with_origin(mut self, origin: impl Into<String>) -> ParseError {
        self.inner.origin = Some(origin.into());
        self
    }

    /// What went wrong, without the position.
    pub fn message(&self) -> &str {
        &self.inner.message
    }

    /// The byte span of the offending text.
    pub fn span(&self) -> Span {
        self.inner.span
    }

    /// 1-based line of the span's start.
    pub fn line(&self) -> usize {
        self.inner.position.line
    }

    /// 1-based byte column of the span's start.
    pub fn column(&self) -> usize {
        self.inner.position.column
    }

    /// The part of the span's line that the snippet shows, for snippets drawn elsewhere.
    pub(crate) fn excerpt(&self) -> &Excerpt {
        &self.inner.excerpt
    }

    /// The file name given by [`ParseError::with_origin`], if any.
    pub fn origin(&self) -> Option<&str> {
        self.inner.origin.as_deref()
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mark = Mark {
            line: self.inner.position.line,
            column: self.inner.position.column,
            excerpt: &self.inner.excerpt,
            len: self.inner.span.len(),
            primary: true,
            label: "",
        };
        render(
            f,
            "error",
            &self.inner.message,
            self.inner.origin.as_deref(),
            &[mark],
        )
    }
}

impl std::error::Error for ParseError {}
