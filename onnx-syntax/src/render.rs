//! The rustc-style snippet renderer shared by [`ParseError`](crate::ParseError) and the
//! [`Diagnostics`](crate::diagnostic::Diagnostics).

use std::fmt;

/// One underlined range of one source line.
pub(crate) struct Mark<'a> {
    /// 1-based line number, as printed in the gutter.
    pub line: usize,
    /// 1-based byte column of the range's start.
    pub column: usize,
    /// The part of the line to show.
    pub excerpt: &'a Excerpt,
    /// Length of the range in bytes (at least one caret is drawn).
    pub len: usize,
    /// `^` for the primary range, `-` for secondary ones.
    pub primary: bool,
    /// Text after the underline; empty for none.
    pub label: &'a str,
}

/// Lines up to this many bytes are shown whole; longer ones (a 10 MB single-line model) as a
/// window of this size around the marked range, so that a snippet stays readable and an error
/// holds a bounded copy of its line.
const LONG_LINE: usize = 160;

/// How much of a long line is shown before the marked range.
const CONTEXT_BEFORE: usize = 40;

/// The part of a source line that a snippet shows: all of a short line, or a window of a long
/// one with `…` where it is cut.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Excerpt {
    /// The text shown, without the line terminator.
    text: String,
    /// The byte offsets in the line of the first byte shown and of the byte after the last.
    start: usize,
    end: usize,
}

impl Excerpt {
    /// The part of `line` to show for the range of bytes `from..to` of it.
    pub fn new(line: &str, from: usize, to: usize) -> Excerpt {
        if line.len() <= LONG_LINE {
            return Excerpt {
                text: line.to_owned(),
                start: 0,
                end: line.len(),
            };
        }
        let from = from.min(line.len());
        let mut start = from.saturating_sub(CONTEXT_BEFORE);
        while !line.is_char_boundary(start) {
            start -= 1;
        }
        // Up to the end of the range, within the window size, and at least half a window.
        let mut end = to
            .max(start + LONG_LINE / 2)
            .min(start + LONG_LINE)
            .min(line.len());
        while !line.is_char_boundary(end) {
            end += 1;
        }
        let cut = |cut: bool| if cut { "…" } else { "" };
        let text = format!(
            "{}{}{}",
            cut(start > 0),
            &line[start..end],
            cut(end < line.len())
        );
        Excerpt { text, start, end }
    }

    /// True if one window can show the bytes `from..to` of a line, with its context.
    pub fn fits(from: usize, to: usize) -> bool {
        to.saturating_sub(from) <= LONG_LINE - CONTEXT_BEFORE
    }

    /// The byte offset in the excerpt's text of byte `offset` of the line.
    fn text_offset(&self, offset: usize) -> usize {
        let lead = if self.start > 0 { '…'.len_utf8() } else { 0 };
        offset.saturating_sub(self.start) + lead
    }
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
    // A row is one line, or one window of a long line.
    let mut previous: Option<(usize, usize)> = None;
    for mark in order {
        let row = (mark.line, mark.excerpt.start);
        if previous != Some(row) {
            if previous.is_some_and(|(p, _)| mark.line > p + 1) {
                writeln!(f, "...")?;
            }
            writeln!(f, "{:<gutter$} | {}", mark.line, mark.excerpt.text)?;
            previous = Some(row);
        }
        underline(f, gutter, mark)?;
    }
    Ok(())
}

/// The underline row of one mark: it covers the range, but never past the end of the line.
fn underline(f: &mut dyn fmt::Write, gutter: usize, mark: &Mark<'_>) -> fmt::Result {
    let text = &mark.excerpt.text;
    let mut prefix = mark
        .excerpt
        .text_offset(mark.column.saturating_sub(1))
        .min(text.len());
    while !text.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let available = mark
        .excerpt
        .text_offset(mark.excerpt.end)
        .saturating_sub(prefix);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_on_several_lines_render_in_line_order_with_gaps() {
        let lines = ["t = Neg(x)", "t = Abs(x)", "u = t"].map(|l| Excerpt::new(l, 0, 1));
        let mark = |line, column, excerpt, len, primary, label| Mark {
            line,
            column,
            excerpt,
            len,
            primary,
            label,
        };
        let marks = [
            mark(12, 1, &lines[0], 1, true, ""),
            mark(3, 1, &lines[1], 1, false, "first defined here"),
            mark(4, 5, &lines[2], 1, false, ""),
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

    fn render_one(excerpt: &Excerpt, column: usize, len: usize) -> String {
        let mark = Mark {
            line: 1,
            column,
            excerpt,
            len,
            primary: true,
            label: "",
        };
        let mut out = String::new();
        render(&mut out, "error", "boom", None, &[mark]).unwrap();
        out
    }

    #[test]
    fn short_lines_show_whole() {
        let excerpt = Excerpt::new("y = Relu(x);", 11, 12);
        assert_eq!(
            render_one(&excerpt, 12, 1),
            "error: boom\n --> 1:12\n  |\n1 | y = Relu(x);\n  |            ^\n"
        );
    }

    #[test]
    fn long_lines_show_a_window_around_the_mark() {
        let line = format!("{}BAD{}", "a ".repeat(5000), "b ".repeat(5000));
        let from = 10_000;
        let excerpt = Excerpt::new(&line, from, from + 3);
        let shown = render_one(&excerpt, from + 1, 3);
        let rows: Vec<&str> = shown.lines().collect();
        assert_eq!(rows[1], " --> 1:10001");
        assert!(
            rows[3].starts_with("1 | …a a ") && rows[3].ends_with(" b…"),
            "{shown}"
        );
        assert!(rows[3].len() < 200, "{shown}");
        // The carets stand under `BAD`.
        let caret = rows[4].find('^').unwrap();
        let chars_before: usize = rows[3][..rows[3].find("BAD").unwrap()].chars().count();
        assert_eq!(rows[4][..caret].chars().count(), chars_before, "{shown}");
        assert_eq!(rows[4].matches('^').count(), 3);
    }

    #[test]
    fn windows_cut_at_character_boundaries() {
        let line = "é".repeat(1000);
        for from in [0, 1, 2, 3, 999, 1000, 1001, 1999, 2000] {
            let excerpt = Excerpt::new(&line, from, from + 1);
            let shown = render_one(&excerpt, from + 1, 1);
            let rows: Vec<&str> = shown.lines().collect();
            let text = rows[3].strip_prefix("1 | ").expect("the source row");
            // Whole characters only, with `…` where the window cuts the line.
            let inner = text.trim_start_matches('…').trim_end_matches('…');
            assert!(inner.chars().all(|c| c == 'é'), "{from}: {shown}");
            assert!(inner.len() <= LONG_LINE + 1, "{from}: {shown}");
            assert_eq!(text.starts_with('…'), excerpt.start > 0, "{from}: {shown}");
            assert_eq!(
                text.ends_with('…'),
                excerpt.end < line.len(),
                "{from}: {shown}"
            );
            // One caret, under the character that holds byte `from` (or just past the end).
            let underline = rows[4].strip_prefix("  | ").expect("the underline row");
            assert_eq!(underline.matches('^').count(), 1, "{from}: {shown}");
            let lead = usize::from(excerpt.start > 0);
            let marked = lead + (from.min(line.len()) - excerpt.start) / 'é'.len_utf8();
            assert_eq!(underline.find('^'), Some(marked), "{from}: {shown}");
        }
    }

    #[test]
    fn far_apart_marks_of_one_long_line_get_a_row_each() {
        let line = format!("x{}y", " ".repeat(10_000));
        let (near, far) = (
            Excerpt::new(&line, 0, 1),
            Excerpt::new(&line, 10_001, 10_002),
        );
        let marks =
            [(1, &near, true), (10_002, &far, false)].map(|(column, excerpt, primary)| Mark {
                line: 1,
                column,
                excerpt,
                len: 1,
                primary,
                label: "",
            });
        let mut out = String::new();
        render(&mut out, "error", "boom", None, &marks).unwrap();
        assert_eq!(
            out.lines().filter(|l| l.starts_with("1 | ")).count(),
            2,
            "{out}"
        );
        assert!(out.len() < 1000, "{out}");
    }
}
