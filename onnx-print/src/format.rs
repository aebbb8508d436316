//! Formatting a text: the printer's layout for what the text says, with its comments kept.
//!
//! The printer prints messages, which hold no comments, so the formatter places them itself: it
//! lines up the tokens of the text with the tokens of the printed text and puts each comment in
//! the gap of the printed text that matches its gap in the original. Nodes and functions line
//! up one to one (both texts are parsed, and their starts are taken from the syntax trees); the
//! tokens between two of them line up as a longest common subsequence, where names match
//! however they are quoted and numbers match whatever their digits (the printer rewrites both).
//! A comment in a gap whose neighbours line up lands in that gap; one among tokens that the
//! printer dropped or rewrote lands before the next token that lines up, or, when it ended a
//! line of code, right after the previous one.
//!
//! In its gap, a comment that ended a line of code ends the same line of the printed text; the
//! others get lines of their own, indented as the code around them, with a blank line before or
//! after them where the text had one. Where the printed text has no line break (inside a node,
//! say), the comment brings one, and the code goes on indented one level deeper. Comments change
//! no token, so the model is the same; and formatting the result lines its tokens up one to one
//! with the printed text, which puts every comment back in the same gap in the same way:
//! formatting is idempotent.
//!
//! Where the printer puts things in an order of its own (the keys of a header; initializers
//! before value infos in a graph's `<…>` list, an input's initializer moved there), the comments
//! keep their order among themselves, so a comment on an entry that moved stays where the
//! entries around it line up, which may be next to another entry.
//!
//! The parser never sees comments: they are found by a lexing pass of their own
//! ([`tokens_with_comments`]), only when a text has a `#` or a `//`, so parsing costs the same
//! with or without them.

use std::borrow::Cow;

use crate::Style;
use crate::ToText;
use onnx_syntax::lex::{Comment, Token, TokenKind, Tokens, tokens_with_comments, unescape};
use onnx_syntax::syntax::{AttrValue, Function, Graph, Node};
use onnx_syntax::{Entry, ParseError, Proto, Tree};

/// Formats the text of a model, keeping its comments (`#` and `//`).
///
/// The result is the printer's text of the same model (see [`file_text`]), with every comment
/// of `text`, in order: a comment after a node stays at the end of its line, comment lines
/// before a node, a header entry or a function stay before it, and comments inside lists stay
/// between the same neighbours. Parsing the result gives the same model as parsing `text`, and
/// formatting it again changes nothing. A text without comments formats to exactly the
/// printer's text. For the other forms (a graph, functions, nodes), see [`format_text_as`].
///
/// ```
/// let text = "<ir_version: 10, opset_import: [\"\" : 21]>\n// Doubles x.\n\
///             g (float x) => (float y) {\n    y = Add(x, x)   # twice\n}";
/// let formatted = onnx_print::format_text(text)?;
/// assert_eq!(formatted, "<\n   ir_version: 10,\n   opset_import: [\"\" : 21]\n>\n// Doubles x.\n\
///                        g (float x) => (float y) {\n   y = Add (x, x) # twice\n}\n");
/// assert_eq!(onnx_print::format_text(&formatted)?, formatted);
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
pub fn format_text(text: &str) -> Result<String, ParseError> {
    format_text_as(text, Entry::Model)
}

/// Formats `text`, read as `entry` reads it, keeping its comments, as [`format_text`] does for
/// a model.
///
/// ```
/// use onnx_print::format_text_as;
/// use onnx_syntax::Entry;
/// let text = "g (float x) => (float y) {\n    y = Add(x, x)   # twice\n}";
/// let formatted = format_text_as(text, Entry::Graph)?;
/// assert_eq!(formatted, "g (float x) => (float y) {\n   y = Add (x, x) # twice\n}\n");
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
pub fn format_text_as(text: &str, entry: Entry) -> Result<String, ParseError> {
    format_message(text, entry).map(|(_, formatted)| formatted)
}

/// Formats `text` as [`format_text_as`] does, and gives the message it holds too, for callers
/// that need both (`onnx-text fmt` checks that the formatted text holds the same message)
/// without parsing the text twice.
///
/// ```
/// use onnx_print::format_message;
/// use onnx_syntax::{Entry, Proto};
/// let (message, formatted) = format_message("y = Neg(x) // negated", Entry::Node)?;
/// assert!(matches!(message, Proto::Node(_)));
/// assert_eq!(formatted, "y = Neg (x) // negated\n");
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
pub fn format_message(text: &str, entry: Entry) -> Result<(Proto, String), ParseError> {
    let tree = entry.parse(text)?;
    // Most texts have no comment character at all: spare them the rest.
    let commented = text.contains('#') || text.contains("//");
    let source_anchors = if commented {
        anchors(&tree)
    } else {
        Vec::new()
    };
    let message = tree.lower();
    let printed = file_text(&message, Style::Lossless);
    if !commented {
        return Ok((message, printed));
    }
    let source = tokens_with_comments(text)?;
    if source.comments.is_empty() {
        return Ok((message, printed));
    }
    let target = tokens_with_comments(&printed)?;
    // The printed text parses (the printer is lossless); without its tree, the tokens still
    // line up, as one stretch.
    let target_anchors = entry.parse(&printed).map_or(Vec::new(), |t| anchors(&t));
    let places = places(
        text,
        &source,
        &source_anchors,
        &printed,
        &target.tokens,
        &target_anchors,
    );
    let formatted = layout(text, &source.comments, &places, &printed, &target.tokens);
    Ok((message, formatted))
}

/// The text of a message as a file holds it: the printer's text, ending with a newline, and a
/// node on its own at the margin rather than indented as in a graph.
///
/// ```
/// use onnx_print::{Style, file_text};
/// use onnx_syntax::Entry;
/// let node = Entry::Node.parse("y = Neg(x)")?.lower();
/// assert_eq!(file_text(&node, Style::Lossless), "y = Neg (x)\n");
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
pub fn file_text(proto: &Proto, style: Style) -> String {
    let mut text = String::new();
    proto.write_text(&mut text, style);
    if let Proto::Node(_) = proto {
        text = text.trim_start().to_owned();
    }
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

// ---------------------------------------------------------------------------------------------
// Lining up

/// The starts of every node and function of a tree, in text order: the places that line up one
/// to one between a text and its printed text.
fn anchors(tree: &Tree) -> Vec<u32> {
    let mut starts = Vec::new();
    match tree {
        Tree::Model(model) => {
            graph_anchors(&model.graph, &mut starts);
            model
                .functions
                .iter()
                .for_each(|f| function_anchors(f, &mut starts));
        }
        Tree::Graph(graph) => graph_anchors(graph, &mut starts),
        Tree::Function(function) => function_anchors(function, &mut starts),
        Tree::Functions(functions) => functions
            .iter()
            .for_each(|f| function_anchors(f, &mut starts)),
        Tree::Node(node) => node_anchors(node, &mut starts),
        Tree::Nodes(nodes) | Tree::NodeList(nodes) => {
            nodes.iter().for_each(|n| node_anchors(n, &mut starts))
        }
    }
    starts
}

fn function_anchors(function: &Function, starts: &mut Vec<u32>) {
    starts.push(function.span.start);
    function.nodes.iter().for_each(|n| node_anchors(n, starts));
}

fn graph_anchors(graph: &Graph, starts: &mut Vec<u32>) {
    graph.nodes.iter().for_each(|n| node_anchors(n, starts));
}

fn node_anchors(node: &Node, starts: &mut Vec<u32>) {
    starts.push(node.span.start);
    for attribute in &node.attributes {
        match &attribute.value {
            Some(AttrValue::Graph(graph)) => graph_anchors(graph, starts),
            Some(AttrValue::Graphs(graphs)) => graphs.iter().for_each(|g| graph_anchors(g, starts)),
            _ => {}
        }
    }
}

/// What a token is, for lining up a text with its printed text.
#[derive(PartialEq, Eq)]
enum Key<'a> {
    /// An identifier or a string, by its text: the printer quotes names or not as they need.
    Name(Cow<'a, str>),
    /// Any number: the printer writes its own digits.
    Number,
    Punct(u8),
    End,
}

fn key<'a>(text: &'a str, token: &Token) -> Key<'a> {
    let written = &text[token.span.range()];
    match token.kind {
        TokenKind::Ident => Key::Name(Cow::Borrowed(written)),
        TokenKind::Str => Key::Name(unescape(written)),
        TokenKind::Int | TokenKind::Float => Key::Number,
        TokenKind::Punct(c) => Key::Punct(c),
        TokenKind::Eof => Key::End,
    }
}

/// For each comment of `source`, the index of the token of the printed text that it goes
/// before. The indices never decrease, so the comments keep their order.
fn places(
    text: &str,
    source: &Tokens,
    source_anchors: &[u32],
    printed: &str,
    target: &[Token],
    target_anchors: &[u32],
) -> Vec<usize> {
    let matched = line_up(
        text,
        &source.tokens,
        source_anchors,
        printed,
        target,
        target_anchors,
    );
    // The nearest token at or before, and at or after, each index that lines up.
    let mut previous = vec![None; matched.len()];
    let mut last = None;
    for (i, m) in matched.iter().enumerate() {
        last = m.or(last);
        previous[i] = last;
    }
    let mut next = vec![target.len() - 1; matched.len()];
    let mut following = target.len() - 1;
    for (i, m) in matched.iter().enumerate().rev() {
        following = m.unwrap_or(following);
        next[i] = following;
    }
    let mut floor = 0;
    source
        .comments
        .iter()
        .map(|comment| {
            let j = comment.before;
            let mut gap = match (matched[j], comment.trailing, j.checked_sub(1)) {
                (Some(k), _, _) => k,
                (None, true, Some(before)) => previous[before].map_or(0, |k| k + 1),
                (None, _, _) => next[j],
            };
            gap = gap.max(floor);
            while gap > 0 && gap < target.len() - 1 && must_join(&target[gap - 1], &target[gap]) {
                gap += 1;
            }
            floor = gap;
            gap
        })
        .collect()
}

/// True when nothing may come between `a` and `b`: the `=>` arrow and a `-` sign with its
/// number.
fn must_join(a: &Token, b: &Token) -> bool {
    b.joined && (a.is_punct(b'-') || (a.is_punct(b'=') && b.is_punct(b'>')))
}

/// For each token of the text, the token of the printed text it lines up with, if any. Anchors
/// (node and function starts) line up one to one, as do the ends; between them, the longest
/// common subsequence of keys.
fn line_up(
    text: &str,
    source: &[Token],
    source_anchors: &[u32],
    printed: &str,
    target: &[Token],
    target_anchors: &[u32],
) -> Vec<Option<usize>> {
    let source_keys: Vec<Key> = source.iter().map(|t| key(text, t)).collect();
    let target_keys: Vec<Key> = target.iter().map(|t| key(printed, t)).collect();
    let index = |tokens: &[Token], start: &u32| tokens.partition_point(|t| t.span.start < *start);
    let mut bounds = vec![(0, 0)];
    if source_anchors.len() == target_anchors.len() {
        bounds.extend(
            source_anchors
                .iter()
                .zip(target_anchors)
                .map(|(s, t)| (index(source, s), index(target, t))),
        );
    }
    let ends = (source.len() - 1, target.len() - 1);
    bounds.push(ends);
    let mut matched = vec![None; source.len()];
    matched[ends.0] = Some(ends.1);
    for (k, pair) in bounds.windows(2).enumerate() {
        let ((mut s, mut t), (s_end, t_end)) = (pair[0], pair[1]);
        if s_end < s || t_end < t {
            continue; // anchors out of order: leave this stretch unmatched
        }
        if k > 0 && s < s_end && t < t_end {
            matched[s] = Some(t);
            s += 1;
            t += 1;
        }
        common_subsequence(
            &source_keys[s..s_end],
            &target_keys[t..t_end],
            &mut matched[s..s_end],
            t,
        );
    }
    slide_to_entries(&source_keys, &mut matched);
    matched
}

/// Moves matches so that the tokens the printer dropped or moved form whole entries: where a
/// token lines up and the tokens after it, up to the next one that lines up right after it,
/// lined up with nothing, the last of them with the same key lines up instead. When the printer
/// moves `float t` after `float[1] b`, `float` lines up with the `float` of `float[1] b` rather
/// than that of `float t`, so that a comment after `float t,` stays between entries. The
/// matches stay as many and in order.
fn slide_to_entries(keys: &[Key], matched: &mut [Option<usize>]) {
    let mut i = 0;
    while i + 1 < matched.len() {
        let (Some(j), None) = (matched[i], matched[i + 1]) else {
            i += 1;
            continue;
        };
        let next = (i + 1..matched.len()).find(|&r| matched[r].is_some());
        let Some(next) = next.filter(|&r| matched[r] == Some(j + 1)) else {
            i += 1;
            continue;
        };
        if let Some(last) = (i + 1..next).rev().find(|&r| keys[r] == keys[i]) {
            matched[i] = None;
            matched[last] = Some(j);
        }
        i = next;
    }
}

/// The most edits [`common_subsequence`] looks for: a stretch that differs more lines up at its
/// common start and end only. Between two nodes the printer makes a handful (an attribute's
/// type, quotes); a header written in another order makes a few dozen.
const MAX_EDITS: usize = 1024;

/// Lines up `a` with `b` along a longest common subsequence: `matched[i]` becomes the index
/// (plus `offset`) of the element of `b` that `a[i]` lines up with.
///
/// This is Myers' greedy search for a shortest edit script, which takes time in proportion to
/// the length times the number of edits: a long tensor that the printer moves whole (from an
/// input to the initializer list) costs a few passes over it, where a table would not fit.
fn common_subsequence(a: &[Key], b: &[Key], matched: &mut [Option<usize>], offset: usize) {
    let (n, m) = (a.len() as isize, b.len() as isize);
    // No script has more edits than both stretches have elements.
    let max = (MAX_EDITS as isize).min(n + m);
    // furthest[k + max + 1]: how far along `a` the furthest path on diagonal k (x - y) reaches.
    let mut furthest = vec![0isize; 2 * max as usize + 3];
    let at = |k: isize| (k + max + 1) as usize;
    let snake = |mut x: isize, mut y: isize| {
        while x < n && y < m && a[x as usize] == b[y as usize] {
            x += 1;
            y += 1;
        }
        x
    };
    // The state before each round, to walk the path back.
    let mut history: Vec<Vec<isize>> = Vec::new();
    let mut end = None;
    'search: for d in 0..=max {
        history.push(furthest[at(-d)..=at(d)].to_vec());
        for k in (-d..=d).step_by(2) {
            let x = if k == -d || (k != d && furthest[at(k - 1)] < furthest[at(k + 1)]) {
                furthest[at(k + 1)] // a step along `b`
            } else {
                furthest[at(k - 1)] + 1 // a step along `a`
            };
            let x = snake(x, x - k);
            furthest[at(k)] = x;
            if x >= n && x - k >= m {
                end = Some(d);
                break 'search;
            }
        }
    }
    let Some(edits) = end else {
        // Too different: line up the common start and end.
        let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
        let suffix = a[prefix..]
            .iter()
            .rev()
            .zip(b[prefix..].iter().rev())
            .take_while(|(x, y)| x == y)
            .count();
        for (i, slot) in matched.iter_mut().enumerate().take(prefix) {
            *slot = Some(offset + i);
        }
        for i in 1..=suffix {
            matched[a.len() - i] = Some(offset + b.len() - i);
        }
        return;
    };
    // Walk back from the end: the matches of each round, then its one edit.
    let mut diagonal = |x: &mut isize, y: &mut isize, to_x: isize| {
        while *x > to_x {
            *x -= 1;
            *y -= 1;
            matched[*x as usize] = Some(offset + *y as usize);
        }
    };
    let (mut x, mut y) = (n, m);
    for d in (1..=edits).rev() {
        let before = &history[d as usize];
        let value = |k: isize| before[(k + d) as usize];
        let k = x - y;
        let from_b = k == -d || (k != d && value(k - 1) < value(k + 1));
        let previous_k = if from_b { k + 1 } else { k - 1 };
        let previous_x = value(previous_k);
        // The edit ends at this point; matches follow it up to (x, y).
        let edited_x = if from_b { previous_x } else { previous_x + 1 };
        diagonal(&mut x, &mut y, edited_x);
        (x, y) = (previous_x, previous_x - previous_k);
    }
    diagonal(&mut x, &mut y, 0);
}

// ---------------------------------------------------------------------------------------------
// Layout

/// The printed text with each comment in its place: `places[i]` is the index of the printed
/// token that comment `i` goes before.
fn layout(
    text: &str,
    comments: &[Comment],
    places: &[usize],
    printed: &str,
    target: &[Token],
) -> String {
    let extra: usize = comments.iter().map(|c| c.span.len() + 16).sum();
    let mut out = String::with_capacity(printed.len() + extra);
    let mut copied = 0;
    let mut i = 0;
    while i < comments.len() {
        let gap = places[i];
        let count = places[i..].iter().take_while(|&&p| p == gap).count();
        let group = &comments[i..i + count];
        i += count;
        let gap_start = gap
            .checked_sub(1)
            .map_or(0, |k| target[k].span.end as usize);
        let gap_end = target[gap].span.start as usize;
        out.push_str(&printed[copied..gap_start]);
        copied = gap_end;
        let white = &printed[gap_start..gap_end];
        let comment_text = |c: &Comment| text[c.span.range()].trim_end();
        // Only the first comment of a gap can end a line of code: each comment ends its line.
        let trailing = gap > 0 && group[0].trailing;
        let own_lines = if trailing { &group[1..] } else { group };
        if trailing {
            out.push(' ');
            out.push_str(comment_text(&group[0]));
        }
        if let Some(newline) = white.rfind('\n') {
            // Between lines: comment lines indented as the deeper of the lines around them.
            let next_indent = &white[newline + 1..];
            let indent = match gap {
                0 => next_indent.len(),
                _ => next_indent.len().max(line_indent(printed, gap_start)),
            };
            let before_break = &white[..newline];
            // No white space at the end of a comment's line.
            out.push_str(match trailing {
                true => before_break.trim_end_matches(' '),
                false => before_break,
            });
            out.push('\n');
            for comment in own_lines {
                if blank_before(text, comment) && !out.is_empty() {
                    out.push('\n');
                }
                push_spaces(&mut out, indent);
                out.push_str(comment_text(comment));
                out.push('\n');
            }
            if blank_after(text, &group[count - 1]) && gap + 1 < target.len() {
                out.push('\n');
            }
            out.push_str(next_indent);
        } else if gap == 0 {
            // Before the first token, with the blank lines between and after the comments.
            for comment in own_lines {
                if blank_before(text, comment) && !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(comment_text(comment));
                out.push('\n');
            }
            if blank_after(text, &group[count - 1]) {
                out.push('\n');
            }
            out.push_str(white);
        } else {
            // Inside a line: the comments break it, and the code goes on one level deeper.
            let indent = line_indent(printed, gap_start) + 3;
            for comment in own_lines {
                out.push('\n');
                push_spaces(&mut out, indent);
                out.push_str(comment_text(comment));
            }
            out.push('\n');
            push_spaces(&mut out, indent);
        }
    }
    out.push_str(&printed[copied..]);
    out
}

/// True when a blank line separates `comment` from what comes before it: blank lines between
/// comments, and between comments and code, are kept (one, however many there were).
fn blank_before(text: &str, comment: &Comment) -> bool {
    let before = &text[..comment.span.start as usize];
    let white = &before[before.trim_end().len()..];
    white.matches('\n').count() >= 2
}

/// True when a blank line separates `comment` from what comes after it.
fn blank_after(text: &str, comment: &Comment) -> bool {
    let after = &text[comment.span.end as usize..];
    let white = &after[..after.len() - after.trim_start().len()];
    white.matches('\n').count() >= 2
}

/// The number of spaces that start the line holding `offset`.
fn line_indent(text: &str, offset: usize) -> usize {
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    text[start..].bytes().take_while(|&b| b == b' ').count()
}

fn push_spaces(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Formats `text` as a model, checks that the model and the comments are kept and that a
    /// second pass changes nothing, and returns the result.
    fn formatted(text: &str) -> String {
        formatted_as(text, Entry::Model)
    }

    /// [`formatted`] for any entry point.
    fn formatted_as(text: &str, entry: Entry) -> String {
        let out = format_text_as(text, entry).unwrap();
        assert_eq!(
            entry.parse(&out).unwrap().lower(),
            entry.parse(text).unwrap().lower()
        );
        let comments = |t: &str| -> Vec<String> {
            let found = tokens_with_comments(t).unwrap();
            found
                .comments
                .iter()
                .map(|c| t[c.span.range()].trim_end().to_owned())
                .collect()
        };
        assert_eq!(comments(&out), comments(text));
        assert_eq!(
            format_text_as(&out, entry).unwrap(),
            out,
            "second pass of\n{out}"
        );
        out
    }

    /// The length of a longest common subsequence, by the table.
    fn lcs_length(a: &[u8], b: &[u8]) -> usize {
        let mut table = vec![vec![0; b.len() + 1]; a.len() + 1];
        for i in (0..a.len()).rev() {
            for j in (0..b.len()).rev() {
                table[i][j] = if a[i] == b[j] {
                    table[i + 1][j + 1] + 1
                } else {
                    table[i + 1][j].max(table[i][j + 1])
                };
            }
        }
        table[0][0]
    }

    #[test]
    fn the_edit_search_finds_a_longest_common_subsequence() {
        // Sequences of a small alphabet from a fixed generator: many ties, many edits.
        let mut seed = 0x2545_f491_u32;
        let mut next = |n: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed % n
        };
        for _ in 0..500 {
            let a: Vec<u8> = (0..next(30)).map(|_| b'a' + next(4) as u8).collect();
            let b: Vec<u8> = (0..next(30)).map(|_| b'a' + next(4) as u8).collect();
            let keys =
                |s: &[u8]| -> Vec<Key<'static>> { s.iter().map(|&c| Key::Punct(c)).collect() };
            let mut matched = vec![None; a.len()];
            common_subsequence(&keys(&a), &keys(&b), &mut matched, 7);
            let pairs: Vec<(usize, usize)> = matched
                .iter()
                .enumerate()
                .filter_map(|(i, m)| m.map(|j| (i, j - 7)))
                .collect();
            assert!(pairs.iter().all(|&(i, j)| a[i] == b[j]), "{a:?} {b:?}");
            assert!(pairs.windows(2).all(|w| w[0].1 < w[1].1), "{a:?} {b:?}");
            assert_eq!(pairs.len(), lcs_length(&a, &b), "{a:?} {b:?}");
        }
    }

    #[test]
    fn comments_before_and_after_nodes_keep_their_lines() {
        let text = "<ir_version: 10, opset_import: [\"\" : 21]>\n\
                    g (float x) => (float y) {\n\
                    # first\n\
                    # lines\n\
                    t = Abs(x) # trailing\n\
                      y = Neg(t)\n\
                    # last\n\
                    }\n";
        assert_eq!(
            formatted(text),
            "<\n   ir_version: 10,\n   opset_import: [\"\" : 21]\n>\n\
             g (float x) => (float y) {\n   # first\n   # lines\n   t = Abs (x) # trailing\n\
             \x20  y = Neg (t)\n   # last\n}\n"
        );
    }

    #[test]
    fn comments_inside_lists_stay_between_their_neighbours() {
        let text = "g (float x, # the input\n float z) => (float y) {\n\
                    y = Foo <a = 1, # one\n b = 2.5> (x, # the first\n z)\n}";
        let out = formatted(text);
        assert_eq!(
            out,
            "<\n   opset_import: []\n>\ng (float x, # the input\n   float z) => (float y) {\n   \
             y = Foo <a: int = 1, # one\n      b: float = 2.5> (x, # the first\n      z)\n}\n"
        );
    }

    #[test]
    fn a_comment_in_a_tensor_moves_with_it() {
        // The printer moves an input's initializer to the `<…>` list.
        let text = "g (float[4] w = {1, 2, # half\n 3, 4}) => (float[4] y) { y = Neg(w) }";
        let out = formatted(text);
        assert!(
            out.contains("<float[4] w =  {1,2, # half\n      3,4}>"),
            "{out}"
        );
    }

    #[test]
    fn libraries_and_node_lists_keep_their_comments() {
        let library = "// squares\n<domain: \"m\", opset_import: [\"\" : 21]> Sq (x) => (y) { y = Mul(x, x) }\n\
                       \n# fourth powers\n<domain: \"m\", opset_import: [\"\" : 21, \"m\" : 1]> \
                       Quad (x) => (y) { s = m.Sq(x) # once\n y = m.Sq(s) # twice\n}";
        let out = formatted_as(library, Entry::Functions);
        assert!(out.starts_with("// squares\n<\n  domain: \"m\","), "{out}");
        assert!(out.contains("}\n\n# fourth powers\n<\n"), "{out}");
        assert!(
            out.contains("   s = m.Sq (x) # once\n   y = m.Sq (s) # twice\n}"),
            "{out}"
        );
        let nodes = "t = Abs(x) # first\n# then\ny = Neg(t)";
        assert_eq!(
            formatted_as(nodes, Entry::Nodes),
            "   t = Abs (x) # first\n   # then\n   y = Neg (t)\n"
        );
        let list = "{ # open\n t = Abs(x) }";
        assert_eq!(
            formatted_as(list, Entry::NodeList),
            "{ # open\n   t = Abs (x)\n}\n"
        );
    }

    #[test]
    fn a_comment_on_an_entry_the_printer_moves_stays_between_entries() {
        // The printer puts initializers before value infos: `float t` moves to the end.
        let text = "g (float x) => (float y)\n  <float[2] w = {1, 2}, # weights\n   float t, # temp\n   \
                    float[1] b = {3}> # bias\n{ y = Neg(x) }";
        let out = formatted(text);
        assert!(
            out.contains(
                "   <float[2] w =  {1,2}, # weights\n      # temp\n      float[1] b =  {3}, float t> # bias\n"
            ),
            "{out}"
        );
    }

    #[test]
    fn header_entries_and_functions_keep_their_comment_lines() {
        let text = "<\n  # the version\n  ir_version: 10,\n  # imports\n  opset_import: [\"\" : 21, \"f\" : 1]\n>\n\
                    g (float x) => (float y) { y = f.F(x) }\n\
                    # a function\n\
                    <domain: \"f\", opset_import: [\"\" : 21]>\n\
                    F (x) => (y) { y = Neg(x) }\n# the end";
        let out = formatted(text);
        assert!(
            out.starts_with(
                "<\n   # the version\n   ir_version: 10,\n   # imports\n   opset_import:"
            ),
            "{out}"
        );
        assert!(
            out.contains("}\n# a function\n<\n  domain: \"f\","),
            "{out}"
        );
        assert!(out.ends_with("}\n# the end\n"), "{out}");
    }
}
