//! The rustc-style snippet renderer shared by [`ParseError`](crate::ParseError) and the
//! diagnostics of [`check`](crate::check), and a line index for positioning many spans at once.

use std::fmt;

use crate::span::LineColumn;

/// One underlined range of one source line.
pub(crate) struct Mark<'a> {
    /// 1-based line number, as printed in the gutter.
    pub line: usize,
    /// 1-based byte column of the range's start.
    pub column: usize,
    /// The text of the line, without its terminator.
    pub line_text: &'a str,
    /// Length of the range in bytes (at least one caret is drawn).
    pub len: usize,
    /// `^` for the primary range, `-` for secondary ones.
    pub primary: bool,
    /// Text after the underline; empty for none.
    pub label: &'a str,
}

/// Writes `title: message`, the ` --> origin:line:column` of the first primary mark (else the
/// first mark), and the marked lines in line order, with `...` where lines are skipped.
pub(crate) fn render(
    f: &mut dyn fmt::Write,
    title: &str,
    message: &str,
    origin: Option<&str>,
    marks: &[Mark<'_>],
) -> fmt::Result {
    writeln!(f, "{title}: {message}")?;
    let Some(main) = marks.iter().find(|m| m.primary).or_else(|| marks.first()) else {
        return Ok(());
    };
    let gutter = marks
        .iter()
        .map(|m| m.line.to_string().len())
        .max()
        .unwrap_or(1);
    let pad = "";
    let (line, column) = (main.line, main.column);
    match origin {
        Some(origin) => writeln!(f, "{pad:gutter$}--> {origin}:{line}:{column}")?,
        None => writeln!(f, "{pad:gutter$}--> {line}:{column}")?,
    }
    writeln!(f, "{pad:gutter$} |")?;
    let mut order: Vec<&Mark<'_>> = marks.iter().collect();
    order.sort_by_key(|m| (m.line, m.column));
    let mut previous: Option<usize> = None;
    for mark in order {
        if previous != Some(mark.line) {
            if previous.is_some_and(|p| mark.line > p + 1) {
                writeln!(f, "...")?;
            }
            writeln!(f, "{:<gutter$} | {}", mark.line, mark.line_text)?;
            previous = Some(mark.line);
        }
        underline(f, gutter, mark)?;
    }
    Ok(())
}

/// The underline row of one mark: it covers the range, but never past the end of the line.
fn underline(f: &mut dyn fmt::Write, gutter: usize, mark: &Mark<'_>) -> fmt::Result {
    let text = mark.line_text;
    let mut prefix = mark.column.saturating_sub(1).min(text.len());
    while !text.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let available = text.len() - prefix;
    let count = mark.len.clamp(1, available.max(1));
    let indent: String = text[..prefix]
        .chars()
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    let glyph = if mark.primary { "^" } else { "-" };
    let pad = "";
    write!(f, "{pad:gutter$} | {indent}{}", glyph.repeat(count))?;
    if mark.label.is_empty() {
        writeln!(f)
    } else {
        writeln!(f, " {}", mark.label)
    }
}

/// The start offsets of the lines of a text, to turn many byte offsets into lines and columns
/// in logarithmic time each.
pub(crate) struct LineIndex {
    starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    /// Indexes `source` (linear time).
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

    /// The 0-based line holding `offset` (clamped to the end of the text).
    fn line_of(&self, offset: usize) -> usize {
        let offset = offset.min(self.len);
        self.starts.partition_point(|&s| s <= offset) - 1
    }

    /// The 1-based line and column of `offset`, as [`LineColumn::of`] gives them.
    pub fn line_column(&self, offset: usize) -> LineColumn {
        let offset = offset.min(self.len);
        let line = self.line_of(offset);
        LineColumn {
            line: line + 1,
            column: offset - self.starts[line] + 1,
        }
    }

    /// The text of the line holding `offset`, without its terminator.
    pub fn line_text<'s>(&self, source: &'s str, offset: usize) -> &'s str {
        let line = self.line_of(offset);
        let start = self.starts[line].min(source.len());
        let end = self
            .starts
            .get(line + 1)
            .map_or(source.len(), |&next| next - 1)
            .clamp(start, source.len());
        source.get(start..end).unwrap_or("").trim_end_matches('\r')
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::line_text;

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

    #[test]
    fn marks_on_several_lines_render_in_line_order_with_gaps() {
        let mark = |line, column, line_text, len, primary, label| Mark {
            line,
            column,
            line_text,
            len,
            primary,
            label,
        };
        let marks = [
            mark(12, 1, "t = Neg(x)", 1, true, ""),
            mark(3, 1, "t = Abs(x)", 1, false, "first defined here"),
            mark(4, 5, "u = t", 1, false, ""),
        ];
        let mut out = String::new();
        render(&mut out, "error[x]", "boom", Some("f.onnx"), &marks).unwrap();
        assert_eq!(
            out,
            "\
error[x]: boom
  --> f.onnx:12:1
   |
3  | t = Abs(x)
   | - first defined here
4  | u = t
   |     -
...
12 | t = Neg(x)
   | ^
"
        );
    }
}
