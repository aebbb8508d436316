//! The fast path of the token adapter: a group's text as written in the Rust file.
//!
//! Walking a big literal token by token costs the compiler a round trip per token across the
//! proc-macro bridge, and costs us unoptimized code per token in a default dev build. Most
//! literals are plain text in a source file, so the compiler can hand over a group's source text
//! in one call instead. The text is used only when it is certainly what the tokens say:
//! - The group was read from source, not made by a macro: its delimiters have spans of their
//!   own, one character each. A group that a procedural macro builds (`Group::new`, `quote!`)
//!   has one span for the whole group, maybe borrowed from elsewhere, and so does a group of
//!   tokens parsed from a string.
//! - No `macro_rules!` substitution happened inside it: its text has no `$`.
//! - Nothing in it needs the token adapter's judgement: no `#`, `'`, doc comment, prefixed
//!   string (`r"…"`, `b"…"`) or non-ASCII character outside a string, which the token path
//!   rejects or rewrites.
//!
//! Rust comments are blanked out. Anything else falls back to the token walk, and so does every
//! literal whose fast text does not parse and check: its errors are reported from the tokens.

use proc_macro2::{Delimiter, Group};

/// The source text of `group`, delimiters included and Rust comments blanked, or `None` when
/// the token walk must decide.
pub fn group_text(group: &Group) -> Option<String> {
    let (open, close) = match group.delimiter() {
        Delimiter::Parenthesis => ("(", ")"),
        Delimiter::Brace => ("{", "}"),
        Delimiter::Bracket => ("[", "]"),
        Delimiter::None => return None,
    };
    let read_from_source = group.span_open().source_text().as_deref() == Some(open)
        && group.span_close().source_text().as_deref() == Some(close);
    if !read_from_source {
        return None;
    }
    let source = group.span().source_text()?;
    if !source.starts_with(open) || !source.ends_with(close) {
        return None;
    }
    without_comments(&source)
}

/// `text` with Rust comments replaced by spaces (line breaks kept, so lines still match the
/// file), or `None` if it holds a doc comment, `#`, `$`, `'`, a prefixed string, an unterminated
/// string or comment, or a non-ASCII character outside a string.
///
/// This runs unoptimized in default dev builds, where a loop over every byte costs tens of
/// instructions a byte. So the text is cut at the bytes that need a decision, `"` and `/`, and
/// the runs between them are checked and copied whole, with std's memchr-based searches, which
/// are compiled optimized whatever the profile.
pub fn without_comments(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    // Where the next `"` and `/` are; each is searched for again only once passed.
    let mut next_quote = find_from(text, 0, '"');
    let mut next_slash = find_from(text, 0, '/');
    let mut i = 0;
    loop {
        if next_quote < i {
            next_quote = find_from(text, i, '"');
        }
        if next_slash < i {
            next_slash = find_from(text, i, '/');
        }
        let special = if next_quote < next_slash {
            next_quote
        } else {
            next_slash
        };
        let run = &text[i..special];
        if !is_plain(run) {
            return None;
        }
        out.extend_from_slice(run.as_bytes());
        if special == bytes.len() {
            break;
        }
        i = special;
        let next = bytes.get(i + 1).copied();
        let after = bytes.get(i + 2).copied();
        match (bytes[i], next) {
            (b'"', _) => {
                if i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_') {
                    return None; // r"…", b"…", c"…": the token path rejects them
                }
                let end = string_end(bytes, i)?;
                out.extend_from_slice(&bytes[i..end]);
                i = end;
            }
            (b'/', Some(b'/')) => {
                if matches!(after, Some(b'/' | b'!')) {
                    return None; // a doc comment is an attribute to the token path
                }
                let end = find_from(text, i, '\n');
                out.resize(out.len() + (end - i), b' ');
                i = end;
            }
            (b'/', Some(b'*')) => {
                if matches!(after, Some(b'*' | b'!')) {
                    return None;
                }
                let end = block_comment_end(bytes, i)?;
                for &c in &bytes[i..end] {
                    out.push(if c == b'\n' { b'\n' } else { b' ' });
                }
                i = end;
            }
            _ => {
                // A `/` that starts no comment.
                out.push(b'/');
                i += 1;
            }
        }
    }
    // Only whole strings and ASCII bytes were copied, so the text is still UTF-8.
    String::from_utf8(out).ok()
}

/// True if `run`, text outside strings and comments, holds nothing that the token path must
/// judge: no `#`, `$` or `'`, and only ASCII characters (as many characters as bytes).
fn is_plain(run: &str) -> bool {
    let bytes = run.as_bytes();
    !bytes.contains(&b'#')
        && !bytes.contains(&b'$')
        && !bytes.contains(&b'\'')
        && run.chars().count() == run.len()
}

/// The offset of the first `c` in `text` at or after `from`, or the end of `text`.
fn find_from(text: &str, from: usize, c: char) -> usize {
    match text[from..].find(c) {
        Some(offset) => from + offset,
        None => text.len(),
    }
}

/// The offset just after the string literal that opens at `start`, or `None` if it is not closed.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// The offset just after the block comment that opens at `start`; Rust block comments nest.
fn block_comment_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0;
    let mut i = start;
    while i + 1 < bytes.len() {
        if bytes[i] == b'/' && bytes[i + 1] == b'*' {
            depth += 1;
            i += 2;
        } else if bytes[i] == b'*' && bytes[i + 1] == b'/' {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return Some(i);
            }
        } else {
            i += 1;
        }
    }
    None
}
