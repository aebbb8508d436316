//! Messages on standard error as a terminal user expects them: coloured as rustc and cargo
//! colour theirs when standard error is a terminal, plain when it is not or `NO_COLOR` is set
//! (`anstream` decides, and strips the styles; `CLICOLOR_FORCE` forces them), and with the
//! control characters of a quoted line shown as escapes rather than sent to the terminal.

use std::fmt::Write as _;
use std::io::Write as _;

use anstyle::{AnsiColor, Style};

const ERROR: Style = AnsiColor::Red.on_default().bold();
const WARNING: Style = AnsiColor::Yellow.on_default().bold();
const NOTE: Style = Style::new().bold();
const GUTTER: Style = AnsiColor::Blue.on_default().bold();
const MESSAGE: Style = Style::new().bold();

/// Writes `text` (whole lines) to standard error, escaped and coloured.
pub fn eprint(text: &str) {
    let text = paint(&escape_controls(text));
    let mut stderr = anstream::stderr().lock();
    // Standard error closed: nothing else can be said.
    let _ = stderr.write_all(text.as_bytes());
}

/// `text` with every control character but the line feed, the tab and the carriage return of a
/// line end written as an escape (`\x1b`, `\u{85}`): bytes of a binary file quoted in a snippet
/// never reach the terminal as commands. The marks under a quoted line (`^^^`) move and widen
/// with the escapes before and under them, so that they still point at the same characters.
pub fn escape_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // The width, once escaped, of each character of the last quoted line's code.
    let mut widths: Option<Vec<usize>> = None;
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        match split_gutter(body) {
            Some((gutter, code, true)) => {
                let escaped: Vec<String> = code.chars().map(escape_char).collect();
                widths = Some(escaped.iter().map(|e| e.chars().count()).collect());
                out.push_str(gutter);
                out.extend(escaped);
            }
            Some((gutter, marks, false)) => {
                out.push_str(gutter);
                match &widths {
                    Some(widths) => out.push_str(&move_marks(marks, widths)),
                    None => out.push_str(&escape_line(marks)),
                }
            }
            None => {
                widths = None;
                out.push_str(&escape_line(body));
            }
        }
        out.push_str(end);
    }
    out
}

/// A snippet line split after its gutter (`12 | `, `   | `): the gutter, the rest, and whether
/// the line quotes code (numbered) or marks it.
fn split_gutter(line: &str) -> Option<(&str, &str, bool)> {
    let trimmed = line.trim_start();
    let digits = trimmed.len()
        - trimmed
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .len();
    let after = &trimmed[digits..];
    let bar = if digits > 0 {
        after.strip_prefix(" |")?
    } else {
        after.strip_prefix('|')?
    };
    let rest = bar.strip_prefix(' ').unwrap_or(bar);
    let gutter_len = line.len() - rest.len();
    Some((&line[..gutter_len], rest, digits > 0))
}

/// A line of marks (`    ^^^ label`) under a quoted line whose characters are `widths` wide
/// once escaped: the marks start and end under the same characters.
fn move_marks(marks: &str, widths: &[usize]) -> String {
    let lead = marks.len() - marks.trim_start_matches(' ').len();
    let run = &marks[lead..];
    let Some(mark) = run.chars().next().filter(|c| matches!(c, '^' | '-')) else {
        return escape_line(marks);
    };
    let count = run.len() - run.trim_start_matches(mark).len();
    let width = |range: std::ops::Range<usize>| -> usize {
        range.map(|i| widths.get(i).copied().unwrap_or(1)).sum()
    };
    let mut out = " ".repeat(width(0..lead));
    out.extend(std::iter::repeat_n(mark, width(lead..lead + count)));
    out.push_str(&escape_line(&run[count..]));
    out
}

/// One control character as an escape; any other as itself.
fn escape_char(c: char) -> String {
    match c {
        '\t' => c.to_string(),
        c if c.is_control() && (c as u32) < 0x80 => format!("\\x{:02x}", c as u32),
        c if c.is_control() => format!("\\u{{{:x}}}", c as u32),
        c => c.to_string(),
    }
}

/// A line (without its line feed) with its control characters escaped, but a final carriage
/// return (a CRLF line end).
fn escape_line(line: &str) -> String {
    let (body, cr) = match line.strip_suffix('\r') {
        Some(body) => (body, "\r"),
        None => (line, ""),
    };
    let mut out: String = body.chars().map(escape_char).collect();
    out.push_str(cr);
    out
}

/// Styles the parts of a report that rustc styles: the `error:`, `error[check]:`, `warning:`
/// and `note:` heads, the message after them, and the gutter of snippets (`-->`, ` | `, `=`)
/// with their carets.
fn paint(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        paint_line(body, &mut out);
        out.push_str(end);
    }
    out
}

fn styled(out: &mut String, style: Style, text: &str) {
    let _ = write!(out, "{style}{text}{style:#}");
}

fn paint_line(line: &str, out: &mut String) {
    for (word, style) in [("error", ERROR), ("warning", WARNING), ("note", NOTE)] {
        if let Some(rest) = line.strip_prefix(word)
            && (rest.starts_with(':') || rest.starts_with('['))
            && let Some(colon) = rest.find(": ").or_else(|| rest.find(':'))
        {
            styled(out, style, &line[..word.len() + colon + 1]);
            styled(out, MESSAGE, &rest[colon + 1..]);
            return;
        }
    }
    let trimmed = line.trim_start();
    let indent = &line[..line.len() - trimmed.len()];
    if let Some(rest) = trimmed.strip_prefix("-->") {
        out.push_str(indent);
        styled(out, GUTTER, "-->");
        out.push_str(rest);
        return;
    }
    if let Some(rest) = trimmed.strip_prefix("= ") {
        out.push_str(indent);
        styled(out, GUTTER, "=");
        out.push(' ');
        match rest.split_once(':') {
            Some((head, tail)) if !head.contains(' ') => {
                styled(out, MESSAGE, &format!("{head}:"));
                out.push_str(tail);
            }
            _ => out.push_str(rest),
        }
        return;
    }
    // A snippet line: `12 | text` or `   |   ^^^ label`.
    let number_end = trimmed
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(trimmed.len());
    let after_number = &trimmed[number_end..];
    if let Some(rest) = after_number.strip_prefix(" |").or_else(|| {
        (number_end == 0)
            .then(|| after_number.strip_prefix('|'))
            .flatten()
    }) {
        let gutter_len = line.len() - rest.len();
        styled(out, GUTTER, &line[..gutter_len]);
        let marks = rest.trim_start();
        if number_end == 0 && marks.starts_with(['^', '-']) {
            out.push_str(&rest[..rest.len() - marks.len()]);
            let style = if marks.starts_with('^') {
                ERROR
            } else {
                GUTTER
            };
            styled(out, style, marks);
        } else {
            out.push_str(rest);
        }
        return;
    }
    out.push_str(line);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_lines_kept() {
        assert_eq!(
            escape_controls("a\x1b[2Jb\x00\u{85}\n\tc\r\nd\re"),
            "a\\x1b[2Jb\\x00\\u{85}\n\tc\r\nd\\x0de"
        );
        assert_eq!(escape_controls("ré ✓"), "ré ✓");
    }

    #[test]
    fn marks_move_and_widen_with_the_escapes_before_and_under_them() {
        let report = "error: x\n --> c:2:3\n  |\n2 | g \x1b[2J\x07 \u{fffd}\n  |   ^^^^^ here\n  |         ^\n";
        assert_eq!(
            escape_controls(report),
            "error: x\n --> c:2:3\n  |\n2 | g \\x1b[2J\\x07 \u{fffd}\n  |   ^^^^^^^^^^^ here\n  |               ^\n"
        );
        // No quoted line above: marks are left alone.
        assert_eq!(escape_controls("  |   ^^\n"), "  |   ^^\n");
    }

    #[test]
    fn heads_gutters_and_carets_are_styled_and_the_text_is_unchanged() {
        let report = "error[undefined_value]: value `q` is used but never defined\n \
                      --> m.onnxtxt:3:11\n  |\n3 |   t = Abs(q)\n  |           ^ not defined\n  \
                      = note: see `check`\nerror: 1 problem in 1 file\nwould reformat x\n";
        let painted = paint(report);
        assert!(painted.contains(&format!("{ERROR}error[undefined_value]:{ERROR:#}")));
        assert!(painted.contains(&format!("{GUTTER}-->{GUTTER:#}")));
        assert!(painted.contains(&format!("{ERROR}^ not defined{ERROR:#}")));
        assert!(painted.contains(&format!("{GUTTER}3 |{GUTTER:#}")));
        assert!(painted.ends_with("would reformat x\n"));
        // Without its styles, the text is the report itself.
        let mut plain = Vec::new();
        let mut stream = anstream::StripStream::new(&mut plain);
        stream.write_all(painted.as_bytes()).unwrap();
        assert_eq!(String::from_utf8(plain).unwrap(), report);
    }
}
