//! Byte spans into the source text, and their translation to lines and columns: one at a time
//! ([`LineColumn::of`]), or many through a [`LineIndex`].

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

/// Where each line of a text starts, to turn many byte offsets into lines and columns in
/// logarithmic time each. The one line index of the project: the snippets of diagnostics and the
/// language server's positions both use it. A line ends at `\n`; a `\r` before it belongs to
/// the line's text but not to what [`line_text`](LineIndex::line_text) gives.
///
/// ```
/// use onnx_syntax::{LineColumn, LineIndex};
/// let source = "a\r\nbc\n";
/// let index = LineIndex::new(source);
/// assert_eq!(index.line_column(4), LineColumn { line: 2, column: 2 });
/// assert_eq!(index.line_text(source, 0), "a");
/// assert_eq!((index.line_of(4), index.line_start(1), index.line_end(1)), (1, Some(3), Some(5)));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineIndex {
    starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    /// Indexes `source` (linear time).
    ///
    /// ```
    /// assert_eq!(onnx_syntax::LineIndex::new("a\nb\n").line_count(), 3);
    /// ```
    pub fn new(source: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(
            source
                .bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex {
            starts,
            len: source.len(),
        }
    }

    /// How many lines the text has: one more than it has `\n`.
    ///
    /// ```
    /// assert_eq!(onnx_syntax::LineIndex::new("").line_count(), 1);
    /// ```
    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// The 0-based line holding `offset` (clamped to the end of the text).
    ///
    /// ```
    /// assert_eq!(onnx_syntax::LineIndex::new("a\nb").line_of(99), 1);
    /// ```
    pub fn line_of(&self, offset: usize) -> usize {
        let offset = offset.min(self.len);
        self.starts.partition_point(|&s| s <= offset) - 1
    }

    /// The byte offset where 0-based line `line` starts, if the text has that line.
    ///
    /// ```
    /// assert_eq!(onnx_syntax::LineIndex::new("a\nb").line_start(1), Some(2));
    /// ```
    pub fn line_start(&self, line: usize) -> Option<usize> {
        self.starts.get(line).copied()
    }

    /// The byte offset where 0-based line `line` ends, before its `\n` (a `\r` before that is
    /// part of the line), if the text has that line.
    ///
    /// ```
    /// assert_eq!(onnx_syntax::LineIndex::new("ab\ncd").line_end(0), Some(2));
    /// ```
    pub fn line_end(&self, line: usize) -> Option<usize> {
        self.starts.get(line)?;
        Some(self.starts.get(line + 1).map_or(self.len, |&next| next - 1))
    }

    /// Follows the indexed text's bytes `replaced` becoming `inserted`: the lines that started
    /// inside the replaced bytes go, those of the inserted text come, those after move (an
    /// editor's edit costs the lines after it, not the whole text).
    ///
    /// ```
    /// let mut text = String::from("a\nbc\nd");
    /// let mut index = onnx_syntax::LineIndex::new(&text);
    /// text.replace_range(1..4, "\n\nx");
    /// index.edit(1..4, "\n\nx");
    /// assert_eq!(index, onnx_syntax::LineIndex::new(&text));
    /// ```
    pub fn edit(&mut self, replaced: std::ops::Range<usize>, inserted: &str) {
        let (from, to) = (replaced.start, replaced.end);
        let shift = |offset: usize| offset + inserted.len() - (to - from);
        let first = self.starts.partition_point(|&s| s <= from);
        let last = self.starts.partition_point(|&s| s <= to);
        let lines = inserted.bytes().enumerate().filter(|&(_, b)| b == b'\n');
        let lines: Vec<usize> = lines.map(|(i, _)| from + i + 1).collect();
        let added = lines.len();
        self.starts.splice(first..last, lines);
        for start in &mut self.starts[first + added..] {
            *start = shift(*start);
        }
        self.len = shift(self.len);
    }

    /// The 1-based line and column of `offset`, as [`LineColumn::of`] gives them.
    ///
    /// ```
    /// use onnx_syntax::{LineColumn, LineIndex};
    /// assert_eq!(LineIndex::new("a\nbc").line_column(3), LineColumn::of("a\nbc", 3));
    /// ```
    pub fn line_column(&self, offset: usize) -> LineColumn {
        let offset = offset.min(self.len);
        let line = self.line_of(offset);
        LineColumn {
            line: line + 1,
            column: offset - self.starts[line] + 1,
        }
    }

    /// The text of the line holding `offset`, without its terminator. `source` must be the
    /// indexed text.
    ///
    /// ```
    /// assert_eq!(onnx_syntax::LineIndex::new("a\nbc\r\n").line_text("a\nbc\r\n", 3), "bc");
    /// ```
    pub fn line_text<'s>(&self, source: &'s str, offset: usize) -> &'s str {
        let line = self.line_of(offset);
        let start = self.starts[line].min(source.len());
        let end = self
            .line_end(line)
            .unwrap_or(source.len())
            .clamp(start, source.len());
        source.get(start..end).unwrap_or("").trim_end_matches('\r')
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_index_agrees_with_line_column_of() {
        let source = "a\r\nbc\n\nd é\n";
        let index = LineIndex::new(source);
        for offset in 0..=source.len() + 2 {
            assert_eq!(
                index.line_column(offset),
                LineColumn::of(source, offset),
                "{offset}"
            );
            if source.is_char_boundary(offset.min(source.len())) {
                assert_eq!(
                    index.line_text(source, offset),
                    line_text(source, offset),
                    "{offset}"
                );
            }
        }
    }
}
