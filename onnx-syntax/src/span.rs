//! Byte spans into the source text, and their translation to 1-based line and column.

/// A half-open byte range `start..end` into the parsed text.
///
/// Spans are `u32` to keep the syntax tree small; inputs over 4 GiB are rejected up front.
///
/// ```
/// use onnx_syntax::Span;
/// let span = Span::new(4, 7);
/// assert_eq!(span.len(), 3);
/// assert_eq!(&"a = Foo(x)"[span.range()], "Foo");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// First byte of the range.
    pub start: u32,
    /// One past the last byte of the range.
    pub end: u32,
}

impl Span {
    /// The span `start..end`.
    ///
    /// ```
    /// assert_eq!(onnx_syntax::Span::new(1, 4).len(), 3);
    /// ```
    pub const fn new(start: u32, end: u32) -> Span {
        Span { start, end }
    }

    /// An empty span at `offset`.
    ///
    /// ```
    /// assert!(onnx_syntax::Span::at(7).is_empty());
    /// ```
    pub const fn at(offset: u32) -> Span {
        Span {
            start: offset,
            end: offset,
        }
    }

    /// The smallest span that covers both `self` and `other`.
    ///
    /// ```
    /// use onnx_syntax::Span;
    /// assert_eq!(Span::new(1, 3).to(Span::new(6, 8)), Span::new(1, 8));
    /// ```
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// Length in bytes.
    ///
    /// ```
    /// assert_eq!(onnx_syntax::Span::new(2, 2).len(), 0);
    /// ```
    pub const fn len(self) -> usize {
        (self.end - self.start) as usize
    }

    /// True for a zero-length span.
    ///
    /// ```
    /// assert!(!onnx_syntax::Span::new(0, 1).is_empty());
    /// ```
    pub const fn is_empty(self) -> bool {
        self.start == self.end
    }

    /// The span as a `usize` range, for slicing the source.
    ///
    /// ```
    /// assert_eq!(&"abcdef"[onnx_syntax::Span::new(1, 3).range()], "bc");
    /// ```
    pub const fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// A 1-based line and column. Columns count bytes, as the reference parser does, so a tab is one
/// column.
///
/// ```
/// use onnx_syntax::LineColumn;
/// let pos = LineColumn::of("a\nbc", 3);
/// assert_eq!((pos.line, pos.column), (2, 2));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineColumn {
    /// 1-based line number.
    pub line: usize,
    /// 1-based byte column.
    pub column: usize,
}

impl LineColumn {
    /// The line and column of byte `offset` in `source` (clamped to the end of the source).
    pub fn of(source: &str, offset: usize) -> LineColumn {
        let offset = offset.min(source.len());
        let before = &source.as_bytes()[..offset];
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        LineColumn {
            line,
            column: offset - line_start + 1,
        }
    }
}

/// The text of the line that holds byte `offset`, without its line terminator.
pub(crate) fn line_text(source: &str, offset: usize) -> &str {
    let offset = offset.min(source.len());
    let bytes = source.as_bytes();
    let start = bytes[..offset]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let end = bytes[offset..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| offset + i);
    source[start..end].trim_end_matches('\r')
}
