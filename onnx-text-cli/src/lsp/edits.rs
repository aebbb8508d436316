//! The edits that turn a text into another, for formatting: small edits leave the editor's
//! cursor, marks and undo history of the untouched lines alone, and an unchanged text gets none.

use onnx_syntax::Span;

/// Edits (a span of `old`, its replacement) that make `old` into `new`, in text order, none
/// overlapping. The lines the two share at their start and end stay. Between them, when both
/// have as many lines (the formatter re-indents or re-spaces lines in place), each run of
/// differing lines is an edit; otherwise the whole stretch is one. Each edit then keeps only
/// what differs, from its first differing character to its last.
///
/// Linear in the texts' lengths.
pub fn between<'n>(old: &str, new: &'n str) -> Vec<(Span, &'n str)> {
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let (prefix, suffix) = common_ends(&a, &b);
    let (a_end, b_end) = (a.len() - suffix, b.len() - suffix);
    // Runs of lines, `(first, end)` in `a` and in `b`.
    let mut runs: Vec<((usize, usize), (usize, usize))> = Vec::new();
    if a_end - prefix == b_end - prefix {
        let mut i = prefix;
        while i < a_end {
            if a[i] == b[i] {
                i += 1;
                continue;
            }
            let first = i;
            while i < a_end && a[i] != b[i] {
                i += 1;
            }
            runs.push(((first, i), (first, i)));
        }
    } else {
        runs.push(((prefix, a_end), (prefix, b_end)));
    }
    let a_starts = line_starts(&a);
    let b_starts = line_starts(&b);
    runs.into_iter()
        .map(|((a_first, a_end), (b_first, b_end))| {
            let from = a_starts[a_first];
            let replaced = &old[from..a_starts[a_end]];
            let by = &new[b_starts[b_first]..b_starts[b_end]];
            let (head, tail) = common_characters(replaced, by);
            let span = Span::new((from + head) as u32, (from + replaced.len() - tail) as u32);
            (span, &by[head..by.len() - tail])
        })
        .collect()
}

/// Where each line starts, and where the last ends.
fn line_starts(lines: &[&str]) -> Vec<usize> {
    let mut starts = Vec::with_capacity(lines.len() + 1);
    let mut at = 0;
    starts.push(0);
    for line in lines {
        at += line.len();
        starts.push(at);
    }
    starts
}

/// How many elements two slices share at their start, and then at their end.
fn common_ends<T: PartialEq>(a: &[T], b: &[T]) -> (usize, usize) {
    let head = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[head..], &b[head..]);
    let tail = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    (head, tail)
}

/// The bytes two texts share at their start and then at their end, at character boundaries of
/// both.
fn common_characters(a: &str, b: &str) -> (usize, usize) {
    let (mut head, mut tail) = common_ends(a.as_bytes(), b.as_bytes());
    while !(a.is_char_boundary(head) && b.is_char_boundary(head)) {
        head -= 1;
    }
    while !(a.is_char_boundary(a.len() - tail) && b.is_char_boundary(b.len() - tail)) {
        tail -= 1;
    }
    (head, tail)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The edits applied to `old`, from the last so that spans stay valid.
    fn applied(old: &str, edits: &[(Span, &str)]) -> String {
        let mut text = old.to_owned();
        for (span, by) in edits.iter().rev() {
            text.replace_range(span.range(), by);
        }
        text
    }

    fn check(old: &str, new: &str) -> Vec<(String, String)> {
        let edits = between(old, new);
        assert_eq!(applied(old, &edits), new);
        assert!(edits.windows(2).all(|w| w[0].0.end <= w[1].0.start));
        edits
            .iter()
            .map(|(span, by)| (old[span.range()].to_owned(), (*by).to_owned()))
            .collect()
    }

    #[test]
    fn only_what_differs_is_replaced() {
        let old = "g () => () {\n  a = Relu(x)\n    b = Neg (a)\n  c = Abs (b)\n}\n";
        let new = "g () => () {\n    a = Relu (x)\n    b = Neg (a)\n    c = Abs (b)\n}\n";
        // Lines in place: one edit per run of changed lines, each trimmed to its difference.
        assert_eq!(
            check(old, new),
            [
                ("a = Relu".to_owned(), "  a = Relu ".to_owned()),
                ("".to_owned(), "  ".to_owned())
            ]
        );
        assert!(check(new, new).is_empty());
        assert!(check("", "").is_empty());
        // Lines joined: one edit for the stretch between the common lines.
        assert_eq!(
            check("a\nb\nc\nd\n", "a\nb c\nd\n"),
            [("\n".to_owned(), " ".to_owned())]
        );
        // At character boundaries: `é` and `è` share their first byte.
        assert_eq!(check("x é y", "x è y"), [("é".into(), "è".into())]);
        assert_eq!(check("ab", "abab"), [("".into(), "ab".into())]);
        assert_eq!(check("abc", ""), [("abc".into(), "".into())]);
        assert_eq!(check("no end", "no end\n"), [("".into(), "\n".into())]);
    }
}
