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
    kind: ParseErrorKind,
    message: String,
    span: Span,
    position: LineColumn,
    excerpt: Excerpt,
    origin: Option<String>,
}

impl ParseError {
    /// An error of `kind` at `span` of `source`.
    ///
    /// ```
    /// use onnx_syntax::{ParseError, ParseErrorKind, Span};
    /// let err = ParseError::new("y = ", Span::at(4), ParseErrorKind::Unexpected, "expected an operator name");
    /// assert_eq!((err.kind(), err.column()), (ParseErrorKind::Unexpected, 5));
    /// ```
    pub fn new(
        source: &str,
        span: Span,
        kind: ParseErrorKind,
        message: impl Into<String>,
    ) -> ParseError {
        let start = span.start as usize;
        let position = LineColumn::of(source, start);
        let from = position.column - 1;
        ParseError {
            inner: Box::new(ErrorInner {
                kind,
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

    /// Which kind of syntax error this is, to tell errors apart without matching the message.
    ///
    /// ```
    /// use onnx_syntax::ParseErrorKind;
    /// let err = onnx_syntax::parse_node(r#"y = Foo <s = "abc> (x)"#).unwrap_err();
    /// assert_eq!(err.kind(), ParseErrorKind::UnterminatedString);
    /// ```
    pub fn kind(&self) -> ParseErrorKind {
        self.inner.kind
    }

    /// What went wrong, without the position.
    ///
    /// ```
    /// let err = onnx_syntax::parse_node("y = ").unwrap_err();
    /// assert_eq!(err.message(), "expected an operator name, found end of input");
    /// ```
    pub fn message(&self) -> &str {
        &self.inner.message
    }

    /// The byte span of the offending text.
    ///
    /// ```
    /// let err = onnx_syntax::parse_node("y = Relu(x);").unwrap_err();
    /// assert_eq!(err.span().range(), 11..12);
    /// ```
    pub fn span(&self) -> Span {
        self.inner.span
    }

    /// 1-based line of the span's start.
    ///
    /// ```
    /// assert_eq!(onnx_syntax::parse_graph("g () => () {\n y = }").unwrap_err().line(), 2);
    /// ```
    pub fn line(&self) -> usize {
        self.inner.position.line
    }

    /// 1-based byte column of the span's start.
    ///
    /// ```
    /// assert_eq!(onnx_syntax::parse_node("y = ").unwrap_err().column(), 5);
    /// ```
    pub fn column(&self) -> usize {
        self.inner.position.column
    }

    /// The part of the span's line that the snippet shows, for snippets drawn elsewhere.
    pub(crate) fn excerpt(&self) -> &Excerpt {
        &self.inner.excerpt
    }

    /// The file name given by [`ParseError::with_origin`], if any.
    ///
    /// ```
    /// let err = onnx_syntax::parse_node("y = ").unwrap_err();
    /// assert_eq!(err.with_origin("n.onnxtxt").origin(), Some("n.onnxtxt"));
    /// ```
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

crate::named_enum! {
    path "onnx_syntax::ParseErrorKind";
    /// What kind of syntax error a [`ParseError`] is, as serde_json's `Category` classifies its
    /// errors: callers tell errors apart by kind, not by message. Each kind has a stable snake_case
    /// [`name`](ParseErrorKind::name), for logs and tests.
    ///
    /// ```
    /// use onnx_syntax::ParseErrorKind;
    /// let kind = |text| onnx_syntax::parse_node(text).unwrap_err().kind();
    /// assert_eq!(kind("y = Foo(x"), ParseErrorKind::Unexpected);
    /// assert_eq!(kind("y = Foo <a = 99999999999999999999> (x)"), ParseErrorKind::OutOfRange);
    /// assert_eq!(kind("y = Foo(x) ¿"), ParseErrorKind::InvalidCharacter);
    /// ```
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum ParseErrorKind {
        /// The input is not UTF-8 (text read as bytes, [`text_from_bytes`](crate::text_from_bytes)).
        InvalidUtf8 = "invalid_utf8",
        /// The input holds a NUL byte, or is 4 GiB or larger.
        InvalidInput = "invalid_input",
        /// A character that starts no token: a control character, a byte order mark, or a
        /// non-ASCII character outside a quoted string.
        InvalidCharacter = "invalid_character",
        /// A string literal without its closing `"`.
        UnterminatedString = "unterminated_string",
        /// A number that is not well formed: an exponent without digits, `-` not followed by a
        /// number, `inf` running into other text.
        MalformedNumber = "malformed_number",
        /// A number that does not fit its type: an integer beyond 64 bits, a value beyond the
        /// storage of its tensor.
        OutOfRange = "out_of_range",
        /// A token that the grammar does not allow where it stands ("expected X, found Y").
        Unexpected = "unexpected",
        /// A header key (`<key: value>`) that the model or function header does not have.
        UnknownHeaderKey = "unknown_header_key",
        /// An attribute type annotation that names no attribute type.
        UnknownAttributeType = "unknown_attribute_type",
        /// An attribute value that does not match its type annotation, a list mixing types, a
        /// nested list, or an empty list without a type.
        InvalidAttributeValue = "invalid_attribute_value",
        /// A tensor constant or initializer without the element type, known shape or integer dims
        /// that its data needs.
        TensorType = "tensor_type",
        /// Graphs and types nested deeper than `onnx_syntax::parse::MAX_NESTING`.
        TooDeep = "too_deep",
        /// A hole (`#x`, `..#xs`) where the macros cannot splice a value.
        MisplacedHole = "misplaced_hole",
        /// A Rust value spliced into a hole that does not convert to what the text needs there
        /// (found when the macro's value is built, at runtime).
        HoleValue = "hole_value",
    }
}
