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
/// Plain loops that copy whole runs of ordinary bytes: this runs unoptimized in default dev
/// builds, where a call per byte would cost more than the rest of the fast path.
pub fn without_comments(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let run = i;
        while i < bytes.len() && !matches!(bytes[i], b'"' | b'/' | b'#' | b'$' | b'\'' | 0x80..) {
            i += 1;
        }
        out.extend_from_slice(&bytes[run..i]);
        if i == bytes.len() {
            break;
        }
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
                let mut end = i;
                while end < bytes.len() && bytes[end] != b'\n' {
                    end += 1;
                }
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
            (b'/', _) => {
                out.push(b'/');
                i += 1;
            }
            _ => return None, // `#`, `$`, `'` or a non-ASCII byte
        }
    }
    // Only whole strings and ASCII bytes were copied, so the text is still UTF-8.
    String::from_utf8(out).ok()
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
