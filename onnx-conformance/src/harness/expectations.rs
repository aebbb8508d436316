//! The expectation file: the cases a runtime is known to fail, each with its reason.
//!
//! A small subset of TOML, read by hand so that a runtime's test build pays for no TOML crate:
//! one `[expected-failures]` table of `name = "reason"` lines, `#` comments, blank lines.
//! Anything else is an error naming the line and column.

use std::collections::BTreeMap;
use std::fmt;

pub(crate) const FILE_NAME: &str = "onnx-conformance.toml";
const TABLE: &str = "[expected-failures]";

/// Case name → reason.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Expectations {
    pub failures: BTreeMap<String, String>,
}

#[derive(Debug, PartialEq)]
pub(crate) struct SyntaxError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{FILE_NAME}:{}:{}: {}",
            self.line, self.column, self.message
        )
    }
}

impl Expectations {
    pub(crate) fn parse(text: &str) -> Result<Expectations, SyntaxError> {
        let mut expectations = Expectations::default();
        let mut in_table = false;
        for (number, line) in text.lines().enumerate() {
            let error = |column: usize, message: String| SyntaxError {
                line: number + 1,
                column: column + 1,
                message,
            };
            let content = line.trim_start();
            let indent = line.len() - content.len();
            if content.is_empty() || content.starts_with('#') {
                continue;
            }
            if content.starts_with('[') {
                if strip_comment(content) != TABLE {
                    return Err(error(
                        indent,
                        format!("expected `{TABLE}`, the one table of this file"),
                    ));
                }
                in_table = true;
                continue;
            }
            if !in_table {
                return Err(error(
                    indent,
                    format!("expected `{TABLE}` before the first case"),
                ));
            }
            let (name, after_name) = key(content).map_err(|(at, m)| error(indent + at, m))?;
            let rest = content[after_name..].trim_start();
            let at = content.len() - rest.len();
            let Some(rest) = rest.strip_prefix('=') else {
                return Err(error(
                    indent + at,
                    "expected `=` after the case name".to_string(),
                ));
            };
            let value = rest.trim_start();
            let start = content.len() - value.len();
            let (reason, used) = string(value).map_err(|(at, m)| error(indent + start + at, m))?;
            let tail = strip_comment(&value[used..]);
            if !tail.is_empty() {
                let at = indent + content.len() - value[used..].trim_start().len();
                return Err(error(at, format!("unexpected `{tail}` after the reason")));
            }
            if expectations.failures.insert(name.clone(), reason).is_some() {
                return Err(error(indent, format!("`{name}` is listed twice")));
            }
        }
        Ok(expectations)
    }

    /// The file listing these failures, one line each, sorted.
    pub(crate) fn to_text(&self) -> String {
        let mut text = format!(
            "# The onnx-conformance cases this runtime is expected to fail, each with a reason.\n\
             # A listed case that passes fails the run: remove it then.\n{TABLE}\n"
        );
        for (name, reason) in &self.failures {
            text.push_str(&format!("{name} = {}\n", quote(reason)));
        }
        text
    }
}

fn strip_comment(text: &str) -> &str {
    text.split_once('#')
        .map_or(text, |(before, _)| before)
        .trim()
}

/// A bare key (letters, digits, `_`, `-`) or a quoted one; returns it and where it ends.
fn key(text: &str) -> Result<(String, usize), (usize, String)> {
    if text.starts_with('"') {
        return string(text);
    }
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(text.len());
    if end == 0 {
        return Err((0, "expected a case name".to_string()));
    }
    Ok((text[..end].to_string(), end))
}

/// A basic string `"…"` with the escapes `\"`, `\\`, `\n` and `\t`; returns its value and
/// the bytes it took.
fn string(text: &str) -> Result<(String, usize), (usize, String)> {
    if !text.starts_with('"') {
        return Err((0, "expected a string in double quotes".to_string()));
    }
    let mut value = String::new();
    let mut chars = text.char_indices().skip(1);
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => return Ok((value, at + 1)),
            '\\' => match chars.next() {
                Some((_, '"')) => value.push('"'),
                Some((_, '\\')) => value.push('\\'),
                Some((_, 'n')) => value.push('\n'),
                Some((_, 't')) => value.push('\t'),
                _ => {
                    return Err((
                        at,
                        "expected one of the escapes \\\" \\\\ \\n \\t".to_string(),
                    ));
                }
            },
            c => value.push(c),
        }
    }
    Err((text.len(), "the string is not closed".to_string()))
}

fn quote(text: &str) -> String {
    let escaped = text
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
        .replace('\t', "\\t");
    format!("\"{escaped}\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_names_and_reasons_with_comments() {
        let text = "# runtime x\n\n[expected-failures]  # the list\ntest_abs = \"no \\\"Abs\\\"\"  # later\n  \"test_b\"=\"a # b\"\n";
        let expectations = Expectations::parse(text).unwrap();
        let pairs: Vec<_> = expectations
            .failures
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(pairs, [("test_abs", "no \"Abs\""), ("test_b", "a # b")]);
    }

    #[test]
    fn writes_what_it_reads() {
        let mut expectations = Expectations::default();
        expectations.failures.insert(
            "test_a".into(),
            "a \"quoted\" \\ reason\nsecond line".into(),
        );
        expectations.failures.insert("test_b".into(), String::new());
        assert_eq!(
            Expectations::parse(&expectations.to_text()).unwrap(),
            expectations
        );
    }

    #[test]
    fn errors_name_line_and_column() {
        let cases = [
            (
                "test_a = \"x\"\n",
                1,
                1,
                "expected `[expected-failures]` before the first case",
            ),
            (
                "[expected-failures]\ntest_a \"x\"\n",
                2,
                8,
                "expected `=` after the case name",
            ),
            (
                "[expected-failures]\ntest_a = x\n",
                2,
                10,
                "expected a string in double quotes",
            ),
            (
                "[expected-failures]\ntest_a = \"x\n",
                2,
                12,
                "the string is not closed",
            ),
            (
                "[expected-failures]\ntest_a = \"x\" y\n",
                2,
                14,
                "unexpected `y` after the reason",
            ),
            (
                "[expected-failures]\n a = \"\"\n a = \"\"\n",
                3,
                2,
                "`a` is listed twice",
            ),
            (
                "[other]\n",
                1,
                1,
                "expected `[expected-failures]`, the one table of this file",
            ),
            (
                "[expected-failures]\n= \"x\"\n",
                2,
                1,
                "expected a case name",
            ),
            (
                "[expected-failures]\na = \"\\q\"\n",
                2,
                6,
                "expected one of the escapes \\\" \\\\ \\n \\t",
            ),
        ];
        for (text, line, column, message) in cases {
            let error = Expectations::parse(text).unwrap_err();
            assert_eq!(
                (error.line, error.column, error.message.as_str()),
                (line, column, message),
                "{text:?}"
            );
        }
        let error = Expectations::parse("[x]").unwrap_err();
        assert!(error.to_string().starts_with("onnx-conformance.toml:1:1: "));
    }
}
