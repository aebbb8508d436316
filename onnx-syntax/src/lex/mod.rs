//! The lexer: source text to tokens.
//!
//! The reference parser reads characters directly, but every decision it makes can be expressed
//! on tokens, provided each token records whether white space or a comment came before it
//! ([`Token::joined`]): `=>` must be written without a gap, and so must `-` and the number it
//! negates.

use std::borrow::Cow;

use crate::error::{ParseError, ParseErrorKind};
use crate::span::Span;

/// What kind of token, with its text available through the span.
///
/// ```
/// use onnx_syntax::lex::{Lexer, TokenKind};
/// let mut lexer = Lexer::new("5.").unwrap();
/// assert_eq!(lexer.next_token().unwrap().kind, TokenKind::Float);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// `[A-Za-z_][A-Za-z0-9_]*`
    Ident,
    /// Decimal digits, without sign.
    Int,
    /// Digits with one `.` and/or an exponent: `5.`, `1.e5`, `2.5e-3`.
    Float,
    /// A `"…"` literal, quotes included; see [`unescape`].
    Str,
    /// One ASCII punctuation character.
    Punct(u8),
    /// The end of the input.
    Eof,
}

/// One token of ONNX text.
///
/// ```
/// use onnx_syntax::lex::Lexer;
/// let mut lexer = Lexer::new("= >").unwrap();
/// lexer.next_token().unwrap();
/// assert!(!lexer.next_token().unwrap().joined); // the space makes `= >` no arrow
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Where it is.
    pub span: Span,
    /// True when the token directly follows the previous one, with no white space or comment.
    pub joined: bool,
}

impl Token {
    /// True for the punctuation character `c`.
    ///
    /// ```
    /// let token = onnx_syntax::lex::Lexer::new("(").unwrap().next_token().unwrap();
    /// assert!(token.is_punct(b'('));
    /// ```
    pub fn is_punct(&self, c: u8) -> bool {
        // `matches!` rather than `==`: the derived `eq` is a call per comparison in the
        // unoptimized macros, and this is the parser's most frequent question.
        matches!(self.kind, TokenKind::Punct(p) if p == c)
    }
}

/// Splits ONNX text into tokens, one at a time.
///
/// ```
/// use onnx_syntax::lex::{Lexer, TokenKind};
/// let mut lexer = Lexer::new("y = Relu(x) # done").unwrap();
/// let mut kinds = Vec::new();
/// loop {
///     let token = lexer.next_token().unwrap();
///     if token.kind == TokenKind::Eof { break; }
///     kinds.push(token.kind);
/// }
/// assert_eq!(kinds.len(), 6);
/// assert_eq!(kinds[1], TokenKind::Punct(b'='));
/// ```
#[derive(Clone)]
pub struct Lexer<'a> {
    source: &'a str,
    pos: usize,
}

/// The largest input accepted: spans are 32-bit.
///
/// ```
/// assert_eq!(onnx_syntax::lex::MAX_INPUT_LEN, u32::MAX as usize - 1);
/// ```
pub const MAX_INPUT_LEN: usize = u32::MAX as usize - 1;

impl<'a> Lexer<'a> {
    /// A lexer at the start of `source`. Fails only for inputs of 4 GiB or more.
    ///
    /// ```
    /// assert!(onnx_syntax::lex::Lexer::new("x = Foo(y)").is_ok());
    /// assert!(onnx_syntax::lex::Lexer::new("x\0").is_err()); // NUL bytes are rejected
    /// ```
    pub fn new(source: &'a str) -> Result<Lexer<'a>, ParseError> {
        if source.len() > MAX_INPUT_LEN {
            return Err(ParseError::new(
                "",
                Span::at(0),
                ParseErrorKind::InvalidInput,
                "input is larger than 4 GiB",
            ));
        }
        // The reference reads C strings, so a NUL byte silently ends its input; we reject it
        // wherever it is rather than drop what follows. (`find` scans with std's optimized
        // memchr, which matters in the macros: they run unoptimized in a default dev build.)
        if let Some(nul) = source.find('\0') {
            let span = Span::new(nul as u32, nul as u32 + 1);
            return Err(ParseError::new(
                source,
                span,
                ParseErrorKind::InvalidInput,
                "NUL byte in input",
            ));
        }
        Ok(Lexer { source, pos: 0 })
    }

    /// The text being lexed.
    ///
    /// ```
    /// let lexer = onnx_syntax::lex::Lexer::new("g").unwrap();
    /// assert_eq!(lexer.source(), "g");
    /// ```
    pub fn source(&self) -> &'a str {
        self.source
    }

    fn error(&self, kind: ParseErrorKind, span: Span, message: impl Into<String>) -> ParseError {
        ParseError::new(self.source, span, kind, message)
    }

    /// Skips white space, `#` comments, and `//` comments (our leniency: onnx-mlir's `.onnxtext`
    /// files hold `// RUN:` and `// CHECK:` lines, and token mode writes comments so).
    #[inline(always)]
    fn skip_trivia(&mut self) {
        let bytes = self.source.as_bytes();
        let mut pos = self.pos;
        loop {
            while pos < bytes.len() && SPACE[bytes[pos] as usize] {
                pos += 1;
            }
            let comment = match bytes.get(pos) {
                Some(b'#') => true,
                Some(b'/') => bytes.get(pos + 1) == Some(&b'/'),
                _ => false,
            };
            if !comment {
                break;
            }
            pos = next_newline(bytes, pos);
        }
        self.pos = pos;
    }

    /// The next token; [`TokenKind::Eof`] at the end, again and again.
    ///
    /// ```
    /// use onnx_syntax::lex::{Lexer, TokenKind};
    /// let mut lexer = Lexer::new("x # comment").unwrap();
    /// assert_eq!(lexer.next_token().unwrap().kind, TokenKind::Ident);
    /// assert_eq!(lexer.next_token().unwrap().kind, TokenKind::Eof);
    /// assert!(Lexer::new("1e+").unwrap().next_token().is_err()); // an exponent needs digits
    /// ```
    #[inline(always)]
    pub fn next_token(&mut self) -> Result<Token, ParseError> {
        // The macros run this unoptimized, where every call costs: look at the next byte before
        // calling the trivia loop, as most tokens follow one space or none.
        let bytes = self.source.as_bytes();
        let joined = self.pos >= bytes.len() || !TRIVIA_START[bytes[self.pos] as usize];
        if !joined {
            self.skip_trivia();
        }
        let start = self.pos;
        if start >= bytes.len() {
            return Ok(Token {
                kind: TokenKind::Eof,
                span: Span::at(start as u32),
                joined,
            });
        }
        let kind = match bytes[start] {
            b'A'..=b'Z' | b'a'..=b'z' | b'_' => {
                // Plain indexing: iterator adaptors cost a call per byte when unoptimized.
                let mut end = start + 1;
                while end < bytes.len() && IDENT_CONTINUE[bytes[end] as usize] {
                    end += 1;
                }
                self.pos = end;
                TokenKind::Ident
            }
            b'0'..=b'9' => self.number()?,
            b'"' => self.string()?,
            b if PUNCT[b as usize] => {
                self.pos += 1;
                TokenKind::Punct(b)
            }
            _ => return Err(self.invalid_character(start)),
        };
        Ok(Token {
            kind,
            span: Span {
                start: start as u32,
                end: self.pos as u32,
            },
            joined,
        })
    }

    /// The error for a byte at `start` that starts no token.
    fn invalid_character(&self, start: usize) -> ParseError {
        let c = self.source[start..].chars().next().unwrap_or('\u{fffd}');
        let end = start + c.len_utf8();
        let message = if c.is_ascii() {
            format!("unexpected control character {c:?}")
        } else if c == '\u{feff}' {
            // The reference rejects a byte order mark too: it is not white space.
            "unexpected byte order mark (U+FEFF): ONNX text is UTF-8 without a BOM".to_owned()
        } else {
            format!("unexpected character `{c}`: names with non-ASCII characters must be quoted")
        };
        self.error(
            ParseErrorKind::InvalidCharacter,
            Span::new(start as u32, end as u32),
            message,
        )
    }

    /// Digits, at most one `.` with optional digits, and an optional exponent.
    #[inline(always)]
    fn number(&mut self) -> Result<TokenKind, ParseError> {
        let bytes = self.source.as_bytes();
        let start = self.pos;
        let mut pos = digits_end(bytes, start);
        let mut kind = TokenKind::Int;
        if pos < bytes.len() && bytes[pos] == b'.' {
            pos = digits_end(bytes, pos + 1);
            kind = TokenKind::Float;
        }
        if pos < bytes.len() && matches!(bytes[pos], b'e' | b'E') {
            pos += 1;
            if pos < bytes.len() && matches!(bytes[pos], b'+' | b'-') {
                pos += 1;
            }
            let exponent = pos;
            pos = digits_end(bytes, exponent);
            if pos == exponent {
                let span = Span::new(start as u32, pos as u32);
                return Err(self.error(
                    ParseErrorKind::MalformedNumber,
                    span,
                    format!(
                        "the exponent of `{}` has no digits",
                        &self.source[span.range()]
                    ),
                ));
            }
            kind = TokenKind::Float;
        }
        self.pos = pos;
        Ok(kind)
    }

    /// A `"…"` literal; a backslash escapes the next byte, whatever it is.
    fn string(&mut self) -> Result<TokenKind, ParseError> {
        let bytes = self.source.as_bytes();
        let start = self.pos;
        let mut pos = start + 1;
        loop {
            match bytes.get(pos) {
                Some(b'"') => {
                    self.pos = pos + 1;
                    return Ok(TokenKind::Str);
                }
                Some(b'\\') if pos + 1 < bytes.len() => pos += 2,
                Some(_) => pos += 1,
                None => {
                    return Err(self.error(
                        ParseErrorKind::UnterminatedString,
                        Span::new(start as u32, start as u32 + 1),
                        "unterminated string literal: no closing `\"` before the end of input",
                    ));
                }
            }
        }
    }
}

/// A comment (`#` or `//` to the end of its line), which the parser skips as it skips white
/// space.
///
/// The parser never sees comments; [`tokens_with_comments`] finds them, in a pass of its own,
/// for the formatter, which keeps them.
///
/// ```
/// use onnx_syntax::lex::tokens_with_comments;
/// let text = "// a graph\ng () => () { y = Foo() # one node\n}";
/// let found = tokens_with_comments(text)?;
/// let comments: Vec<&str> = found.comments.iter().map(|c| &text[c.span.range()]).collect();
/// assert_eq!(comments, ["// a graph", "# one node"]);
/// assert!(!found.comments[0].trailing && found.comments[1].trailing);
/// assert!(found.tokens[found.comments[1].before].is_punct(b'}'));
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Comment {
    /// The comment, from its first character to the end of its line (the newline excluded).
    pub span: Span,
    /// The index in [`Tokens::tokens`] of the token that follows the comment.
    pub before: usize,
    /// True when a token precedes the comment on its line, as in `y = Relu(x) # why`.
    pub trailing: bool,
}

/// The tokens of a text, ending with [`TokenKind::Eof`], and the comments between them.
///
/// ```
/// let found = onnx_syntax::lex::tokens_with_comments("x # c")?;
/// assert_eq!((found.tokens.len(), found.comments.len()), (2, 1));
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tokens {
    /// Every token in order, the last one [`TokenKind::Eof`].
    pub tokens: Vec<Token>,
    /// Every comment in order.
    pub comments: Vec<Comment>,
}

/// Lexes all of `source`, keeping its comments, which [`Lexer::next_token`] skips.
///
/// This is a pass of its own, so that the parser pays nothing for comments: the lexer skips
/// trivia without looking at it, and this pass reads the gaps between tokens afterwards. In a
/// gap, whatever is not white space is a comment running to the end of its line, since the
/// lexer skips nothing else.
///
/// ```
/// use onnx_syntax::lex::tokens_with_comments;
/// let text = "g () => () {\n  # first\n  # second\n}";
/// let comments = tokens_with_comments(text)?.comments;
/// assert_eq!(comments.len(), 2);
/// assert_eq!(comments[0].before, comments[1].before); // both before the `}`
/// assert!(tokens_with_comments("\"open").is_err());
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
pub fn tokens_with_comments(source: &str) -> Result<Tokens, ParseError> {
    let mut lexer = Lexer::new(source)?;
    let bytes = source.as_bytes();
    // About one token per four bytes of printed text: room enough to grow rarely.
    let mut found = Tokens {
        tokens: Vec::with_capacity(source.len() / 4 + 1),
        comments: Vec::new(),
    };
    let mut gap_start = 0;
    loop {
        let token = lexer.next_token()?;
        let index = found.tokens.len();
        let gap_end = token.span.start as usize;
        let mut pos = gap_start;
        while !token.joined && pos < gap_end {
            while pos < gap_end && SPACE[bytes[pos] as usize] {
                pos += 1;
            }
            if pos == gap_end {
                break;
            }
            let end = next_newline(bytes, pos).min(gap_end);
            found.comments.push(Comment {
                span: Span::new(pos as u32, end as u32),
                before: index,
                trailing: index > 0 && !bytes[gap_start..pos].contains(&b'\n'),
            });
            pos = end;
        }
        found.tokens.push(token);
        if token.kind == TokenKind::Eof {
            return Ok(found);
        }
        gap_start = token.span.end as usize;
    }
}

/// `bytes` as text, or a positioned error at the first byte that is not UTF-8.
///
/// The runtime API takes `&str`; this is the check for text that arrives as bytes (a file read
/// by the CLI or by `include_onnx!`), so that its error names the line and column of the bad
/// byte, as a syntax error does.
///
/// ```
/// use onnx_syntax::lex::text_from_bytes;
/// assert_eq!(text_from_bytes(b"y = Relu(x)").unwrap(), "y = Relu(x)");
/// let err = text_from_bytes(b"g () => () {\n  y = \xff(x)\n}").unwrap_err();
/// assert_eq!((err.line(), err.column()), (2, 7));
/// assert_eq!(err.message(), "invalid UTF-8: 0xff is not a character");
/// ```
pub fn text_from_bytes(bytes: &[u8]) -> Result<&str, ParseError> {
    let error = match std::str::from_utf8(bytes) {
        Ok(text) => return Ok(text),
        Err(error) => error,
    };
    let at = error.valid_up_to();
    let bad_len = error.error_len().unwrap_or(bytes.len() - at);
    let bad = &bytes[at..at + bad_len];
    let message = match error.error_len() {
        None => format!(
            "invalid UTF-8: the input ends inside a character ({})",
            hex_bytes(bad)
        ),
        Some(_) => format!("invalid UTF-8: {} is not a character", hex_bytes(bad)),
    };
    // Everything before the bad byte is valid, so its offset, line and column are the same in
    // the lossy text, which only serves to show the line.
    let shown = String::from_utf8_lossy(bytes);
    let offset = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let span = Span::new(offset(at), offset(at + bad_len));
    Err(ParseError::new(
        &shown,
        span,
        ParseErrorKind::InvalidUtf8,
        message,
    ))
}

/// `0xc3 0x28`, as messages show bytes.
fn hex_bytes(bytes: &[u8]) -> String {
    let shown: Vec<String> = bytes.iter().map(|b| format!("0x{b:02x}")).collect();
    shown.join(" ")
}

/// The offset of the first byte at or after `from` that is not a decimal digit.
#[inline(always)]
fn digits_end(bytes: &[u8], from: usize) -> usize {
    let mut pos = from;
    while pos < bytes.len() && DIGIT[bytes[pos] as usize] {
        pos += 1;
    }
    pos
}

/// The bytes that continue an identifier: `[A-Za-z0-9_]`. A table, because the lexer asks for
/// every byte of every name.
static IDENT_CONTINUE: [bool; 256] =
    byte_set(&[(b'0', b'9'), (b'A', b'Z'), (b'_', b'_'), (b'a', b'z')]);

/// Decimal digits: `is_ascii_digit` as a table, which spares a call per byte when unoptimized.
static DIGIT: [bool; 256] = byte_set(&[(b'0', b'9')]);

/// ASCII punctuation, each character a token of its own: `is_ascii_punctuation` as a table.
static PUNCT: [bool; 256] = byte_set(&[(b'!', b'/'), (b':', b'@'), (b'[', b'`'), (b'{', b'~')]);

/// White space as C's `isspace` has it: `\t \n \v \f \r` and the space.
static SPACE: [bool; 256] = byte_set(&[(b'\t', b'\r'), (b' ', b' ')]);

/// The bytes that start trivia: white space, and `#` for a comment.
// `/` starts a `//` comment, or else an error token (no ONNX token starts with it).
static TRIVIA_START: [bool; 256] =
    byte_set(&[(b'\t', b'\r'), (b' ', b' '), (b'#', b'#'), (b'/', b'/')]);

/// A lookup table of the bytes in the inclusive `ranges`.
const fn byte_set(ranges: &[(u8, u8)]) -> [bool; 256] {
    let mut set = [false; 256];
    let mut i = 0;
    while i < ranges.len() {
        let (mut b, last) = ranges[i];
        while b <= last {
            set[b as usize] = true;
            if b == u8::MAX {
                break;
            }
            b += 1;
        }
        i += 1;
    }
    set
}

/// Offset of the next `\n` at or after `from`, or the end of `bytes`.
fn next_newline(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| from + i)
}

/// The contents of a string literal token (quotes included), with escapes resolved: a backslash
/// makes the next character literal, so `\n` is the letter `n`.
///
/// ```
/// use onnx_syntax::lex::unescape;
/// assert_eq!(unescape(r#""a\nb\"c\\d""#), r#"anb"c\d"#);
/// ```
pub fn unescape(literal: &str) -> Cow<'_, str> {
    let inner = &literal[1..literal.len() - 1];
    if !inner.contains('\\') {
        return Cow::Borrowed(inner);
    }
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// True if `s` is an identifier, `[A-Za-z_][A-Za-z0-9_]*`, which needs no quotes.
///
/// ```
/// assert!(onnx_syntax::lex::is_identifier("x_1"));
/// assert!(!onnx_syntax::lex::is_identifier("x.1"));
/// assert!(!onnx_syntax::lex::is_identifier(""));
/// ```
pub fn is_identifier(s: &str) -> bool {
    let mut bytes = s.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_tables_match_the_ascii_predicates() {
        for b in 0..=u8::MAX {
            let i = b as usize;
            assert_eq!(DIGIT[i], b.is_ascii_digit(), "{b:#04x}");
            assert_eq!(PUNCT[i], b.is_ascii_punctuation(), "{b:#04x}");
            assert_eq!(SPACE[i], b.is_ascii_whitespace() || b == 0x0b, "{b:#04x}");
            assert_eq!(
                TRIVIA_START[i],
                SPACE[i] || b == b'#' || b == b'/',
                "{b:#04x}"
            );
            assert_eq!(
                IDENT_CONTINUE[i],
                b.is_ascii_alphanumeric() || b == b'_',
                "{b:#04x}"
            );
        }
    }
}
