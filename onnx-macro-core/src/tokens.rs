//! The token adapter: Rust tokens back to ONNX text, remembering where each piece came from.
//!
//! The macros parse with the same parser as text mode, so the same text gives the same bytes.
//! Rust's lexer has already split the input; joining happens by source position: two tokens with
//! no gap between them (`=>`, `-5`, `1.e5`) are written without a gap, others with one. The text
//! keeps the original line and column layout, so positions in messages match the Rust file.
//! Where a group's source text is certainly its tokens' text ([`verbatim`]), the compact layout
//! takes that text whole instead of walking the tokens.

use std::collections::VecDeque;
use std::fmt::{Display, Write};

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};

use crate::verbatim;

/// ONNX text rebuilt from tokens, with the Rust span of every byte range that came from a token.
pub struct Source {
    /// The ONNX text.
    pub text: String,
    /// `(start, end, span)` for each token, in text order.
    pub pieces: Vec<(u32, u32, Span)>,
    /// The holes (`#x`, `#(expr)`, `..#xs`), in text order: the text holds each one's marker
    /// (see `onnx_syntax::hole`), numbered by its place here.
    pub holes: Vec<HoleExpr>,
}

/// A Rust value in a literal: the expression, and whether it is a spread.
pub struct HoleExpr {
    /// The expression: the name of `#name`, or what the parentheses of `#(expr)` hold.
    pub expr: TokenStream,
    /// `..#name` or `..#(expr)`.
    pub spread: bool,
    /// Where the expression is written: errors about its value go there.
    pub span: Span,
    /// True for `#name`: a spread borrows the variable rather than consuming it.
    pub named: bool,
}

impl HoleExpr {
    /// The hole as the user wrote it (`#b`, `..#(dims)`), for messages.
    pub fn shown(&self) -> String {
        let dots = if self.spread { ".." } else { "" };
        if self.named {
            format!("{dots}#{}", self.expr)
        } else {
            format!("{dots}#({})", self.expr)
        }
    }
}

/// An error found while rebuilding the text: a token that ONNX text cannot contain.
pub struct TokenError {
    pub span: Span,
    pub message: String,
}

impl Source {
    /// Rebuilds the text of `tokens`.
    pub fn from_tokens(tokens: TokenStream, layout: Layout) -> Result<Source, TokenError> {
        let source = Source {
            text: String::new(),
            pieces: Vec::new(),
            holes: Vec::new(),
        };
        let mut builder = Builder {
            source,
            layout,
            previous: None,
            depth: 0,
        };
        builder.stream(tokens)?;
        Ok(builder.source)
    }

    /// The Rust spans covering the byte range `start..end` of the text: the first and last token
    /// it touches. `None` if no token is there (an empty input).
    pub fn spans(&self, start: u32, end: u32) -> Option<(Span, Span)> {
        if self.pieces.is_empty() {
            return None;
        }
        // The first piece that ends after `start` (or the last piece, for an error at the end).
        let first = self
            .pieces
            .partition_point(|&(_, piece_end, _)| piece_end <= start)
            .min(self.pieces.len() - 1);
        let last_end = end.max(start + 1);
        let last = self
            .pieces
            .partition_point(|&(piece_start, _, _)| piece_start < last_end)
            .saturating_sub(1)
            .max(first);
        Some((self.pieces[first].2, self.pieces[last].2))
    }
}

/// How the rebuilt text is laid out.
#[derive(Clone, Copy, PartialEq)]
pub enum Layout {
    /// One space between tokens, none where the source has none and it matters (`=>`, `-5`,
    /// `1.e5`). It asks the compiler for positions only there, which keeps big literals cheap,
    /// and takes a group's source text whole where [`verbatim`] can vouch for it.
    Compact,
    /// Every token at its own line and column, so that line numbers quoted in messages are the
    /// Rust file's. Used to report errors.
    Faithful,
}

/// A line and column in the Rust source.
#[derive(Clone, Copy, PartialEq)]
struct Position {
    line: usize,
    column: usize,
}

impl Position {
    fn start(span: Span) -> Position {
        let at = span.start();
        Position {
            line: at.line,
            column: at.column,
        }
    }

    fn end(span: Span) -> Position {
        let at = span.end();
        Position {
            line: at.line,
            column: at.column,
        }
    }
}

/// Tokens whose neighbours' spacing can change the meaning: `-5` is not `- 5`, and `1.e5` is
/// not `1 . e5`.
#[derive(Clone, Copy, PartialEq)]
enum Sticky {
    No,
    Minus,
    Dot,
    Number,
}

/// The previous token, as far as spacing is concerned.
#[derive(Clone, Copy)]
struct Previous {
    span: Span,
    /// Punctuation with joint spacing (`=` of `=>`): never a gap after it.
    joint: bool,
    sticky: Sticky,
}

struct Builder {
    source: Source,
    layout: Layout,
    previous: Option<Previous>,
    /// How many groups enclose the current token.
    depth: usize,
}

/// How deeply groups (`(…)`, `[…]`, `{…}`) may nest. Each level of graph or type nesting opens
/// one group, and a few more (a list, dims, data) can sit inside the deepest, so valid text stays
/// within twice the parser's limit. Deeper input is an error here, before the recursion over
/// the groups could exhaust the stack.
pub const MAX_GROUP_NESTING: usize = 2 * onnx_syntax::parse::MAX_NESTING as usize;

/// True when the compiler reports real positions for a token. Some hosts (older IDE servers)
/// report none, or the same position for every token, which would make every token look adjacent.
fn located(start: Position, end: Position) -> bool {
    start.line > 0 && end != start
}

impl Builder {
    fn stream(&mut self, tokens: TokenStream) -> Result<(), TokenError> {
        // A hole takes up to four trees (`..#x`): look ahead only from a `.` or a `#`, so that
        // other tokens pass through without being copied.
        let mut trees = tokens.into_iter();
        let mut window: VecDeque<TokenTree> = VecDeque::new();
        loop {
            if window.is_empty() {
                match trees.next() {
                    Some(tree) => window.push_back(tree),
                    None => return Ok(()),
                }
            }
            if matches!(&window[0], TokenTree::Punct(p) if matches!(p.as_char(), '.' | '#')) {
                window.extend(trees.by_ref().take(4 - window.len().min(4)));
                if let Some((hole, used)) = hole_at(window.make_contiguous())? {
                    self.hole(hole);
                    window.drain(..used);
                    continue;
                }
            }
            if let Some(tree) = window.pop_front() {
                self.tree(tree)?;
            }
        }
    }

    /// Writes a hole's marker as a quoted string, and keeps its expression.
    fn hole(&mut self, hole: HoleExpr) {
        let index = self.source.holes.len() as u32;
        let marker = onnx_syntax::hole::Hole {
            index,
            spread: hole.spread,
        }
        .marker();
        let from = self.gap(hole.span, Sticky::No);
        self.source.text.push('"');
        self.source.text.push_str(&marker);
        self.source.text.push('"');
        self.written(from, hole.span, false, Sticky::No);
        self.source.holes.push(hole);
    }

    fn tree(&mut self, tree: TokenTree) -> Result<(), TokenError> {
        match tree {
            TokenTree::Group(group) => {
                if self.depth == MAX_GROUP_NESTING {
                    return Err(TokenError {
                        span: group.span_open(),
                        message: format!(
                            "brackets nest more than {MAX_GROUP_NESTING} levels deep here"
                        ),
                    });
                }
                self.depth += 1;
                let result = self.group(&group);
                self.depth -= 1;
                result?;
            }
            TokenTree::Ident(ident) => {
                let from = self.gap(ident.span(), Sticky::No);
                self.write(&ident);
                // `r#type` is the identifier `type`.
                if self.source.text[from..].starts_with("r#") {
                    self.source.text.replace_range(from..from + 2, "");
                }
                self.written(from, ident.span(), false, Sticky::No);
            }
            TokenTree::Punct(punct) => {
                let c = punct.as_char();
                let joint = punct.spacing() == proc_macro2::Spacing::Joint;
                let sticky = match c {
                    '-' => Sticky::Minus,
                    '.' => Sticky::Dot,
                    _ => Sticky::No,
                };
                self.piece(c, punct.span(), joint, sticky);
            }
            TokenTree::Literal(literal) => {
                let from = self.gap(literal.span(), Sticky::No);
                self.write(&literal);
                let text = &self.source.text[from..];
                check_literal(text, literal.span())?;
                let sticky = if text.as_bytes()[0].is_ascii_digit() {
                    Sticky::Number
                } else {
                    Sticky::No
                };
                self.written(from, literal.span(), false, sticky);
            }
        }
        Ok(())
    }

    /// A group: its delimiters and, between them, its tokens.
    fn group(&mut self, group: &proc_macro2::Group) -> Result<(), TokenError> {
        let (open, close) = match group.delimiter() {
            Delimiter::Parenthesis => ('(', ')'),
            Delimiter::Brace => ('{', '}'),
            Delimiter::Bracket => ('[', ']'),
            // An invisible group (from a `macro_rules!` fragment): only its contents count.
            Delimiter::None => return self.stream(group.stream()),
        };
        if self.layout == Layout::Compact
            && let Some(text) = verbatim::group_text(group)
        {
            let from = self.gap(group.span(), Sticky::No);
            self.source.text.push_str(&text);
            self.written(from, group.span(), false, Sticky::No);
            return Ok(());
        }
        self.piece(open, group.span_open(), false, Sticky::No);
        self.stream(group.stream())?;
        self.piece(close, group.span_close(), false, Sticky::No);
        Ok(())
    }

    /// Appends a one-character token, after the white space that separated it from the previous
    /// one.
    fn piece(&mut self, c: char, span: Span, joint: bool, sticky: Sticky) {
        let from = self.gap(span, sticky);
        self.source.text.push(c);
        self.written(from, span, joint, sticky);
    }

    /// Appends the white space before a token; gives where the token's text starts.
    fn gap(&mut self, span: Span, sticky: Sticky) -> usize {
        match self.layout {
            Layout::Compact => self.compact_gap(span, sticky),
            Layout::Faithful => self.faithful_gap(span),
        }
        self.source.text.len()
    }

    /// Appends a token's text as the compiler shows it. Writing straight into the text, rather
    /// than through `to_string`, saves an allocation and a copy per token.
    fn write(&mut self, token: &impl Display) {
        write!(self.source.text, "{token}").expect("writing to a String cannot fail");
    }

    /// Records the token whose text was written from `from` on.
    fn written(&mut self, from: usize, span: Span, joint: bool, sticky: Sticky) {
        let to = self.source.text.len();
        self.source.pieces.push((from as u32, to as u32, span));
        self.previous = Some(Previous {
            span,
            joint,
            sticky,
        });
    }

    fn compact_gap(&mut self, span: Span, sticky: Sticky) {
        let Some(previous) = self.previous else {
            return;
        };
        let matters = matches!(previous.sticky, Sticky::Minus | Sticky::Dot)
            || (sticky == Sticky::Dot && previous.sticky == Sticky::Number);
        let gap = if previous.joint {
            false
        } else if matters {
            let (end, start) = (Position::end(previous.span), Position::start(span));
            // Without positions, assume the tokens were written apart.
            !located(Position::start(previous.span), end) || end != start
        } else {
            true
        };
        if gap {
            self.source.text.push(' ');
        }
    }

    fn faithful_gap(&mut self, span: Span) {
        let start = Position::start(span);
        let located = located(start, Position::end(span));
        let previous_end = self.previous.map(|p| (Position::end(p.span), p.joint));
        let out = &mut self.source.text;
        match previous_end {
            // Without positions, only joint punctuation (`=>`) is written without a gap.
            Some((previous, true)) if !located || previous.line == 0 => {}
            Some((previous, false)) if !located || previous.line == 0 => out.push(' '),
            Some((previous, _)) if start.line > previous.line => {
                out.extend(std::iter::repeat_n('\n', start.line - previous.line));
                out.extend(std::iter::repeat_n(' ', start.column));
            }
            Some((previous, _)) if start != previous => {
                out.extend(std::iter::repeat_n(
                    ' ',
                    start.column.saturating_sub(previous.column).max(1),
                ));
            }
            Some(_) => {}
            // Keep the first token on its own line and column, so that messages quoting line
            // numbers name lines of the Rust file.
            None if located => {
                out.extend(std::iter::repeat_n('\n', start.line - 1));
                out.extend(std::iter::repeat_n(' ', start.column));
            }
            None => {}
        }
    }
}

/// The hole that `trees` start with, and how many trees it takes: `#name`, `#(expr)`,
/// `..#name` or `..#(expr)`. `None` if they start with none; an error for a `#` that no name or
/// parenthesized expression follows.
fn hole_at(trees: &[TokenTree]) -> Result<Option<(HoleExpr, usize)>, TokenError> {
    let is_punct = |tree: Option<&TokenTree>, c: char| matches!(tree, Some(TokenTree::Punct(p)) if p.as_char() == c);
    let spread = is_punct(trees.first(), '.') && is_punct(trees.get(1), '.');
    let hash_at = if spread { 2 } else { 0 };
    let Some(TokenTree::Punct(hash)) = trees.get(hash_at) else {
        return Ok(None);
    };
    if hash.as_char() != '#' {
        return Ok(None);
    }
    let next = trees.get(hash_at + 1);
    if let Some(TokenTree::Group(group)) = next
        && group.delimiter() == Delimiter::Bracket
        && matches!(group.stream().into_iter().next(), Some(TokenTree::Ident(doc)) if doc == "doc")
    {
        return Err(TokenError {
            span: hash.span(),
            message: "a `///` doc comment is not available here: inside the macros, comments \
                      are `//` or `/* */`; in `onnx_library!`, `///` before a function is its \
                      doc string"
                .into(),
        });
    }
    if next.is_some_and(|next| apart(hash.span(), next.span())) {
        return Err(TokenError {
            span: hash.span(),
            message: "`#` comments are not available inside the macros: use `//` or `/* */`; a \
                      Rust value is written `#name` or `#(expr)`, with no space after `#`"
                .into(),
        });
    }
    let (expr, span, named) = match next {
        Some(TokenTree::Ident(name)) => (TokenTree::Ident(name.clone()).into(), name.span(), true),
        Some(TokenTree::Group(group))
            if group.delimiter() == Delimiter::Parenthesis && !group.stream().is_empty() =>
        {
            (group.stream(), group.span(), false)
        }
        other => {
            let span = other.map_or(hash.span(), |tree| tree.span());
            return Err(TokenError {
                span,
                message: "expected a Rust value after `#`: a name (`#x`) or a parenthesized \
                          expression (`#(expr)`), or a spread of either (`..#xs`); comments \
                          inside the macros are `//` and `/* */`"
                    .into(),
            });
        }
    };
    let hole = HoleExpr {
        expr,
        spread,
        span,
        named,
    };
    Ok(Some((hole, hash_at + 2)))
}

/// True when the compiler reports positions for both tokens and there is a gap between them.
fn apart(first: Span, second: Span) -> bool {
    let (end, start) = (Position::end(first), Position::start(second));
    located(Position::start(first), end) && end != start
}

/// Rejects literals that ONNX text has no use for: characters, byte strings, raw strings, C
/// strings and suffixed numbers; and strings holding the characters that mark holes.
fn check_literal(text: &str, span: Span) -> Result<(), TokenError> {
    let first = text.as_bytes()[0];
    let problem = if onnx_syntax::hole::has_reserved(text) {
        Some(
            "strings in the macros cannot hold the characters U+E000 to U+E002, which mark Rust values",
        )
    } else if first == b'\'' {
        Some("character literals are not ONNX text; use a string `\"…\"`")
    } else if first == b'b' || first == b'c' {
        Some("byte and C string literals are not ONNX text; use a plain string `\"…\"`")
    } else if first == b'r' {
        Some("raw strings are not ONNX text; use a plain string `\"…\"` with `\\\"` escapes")
    } else if first.is_ascii_digit() && has_suffix(text) {
        Some("number literals cannot have a type suffix in ONNX text")
    } else {
        None
    };
    match problem {
        Some(message) => Err(TokenError {
            span,
            message: message.into(),
        }),
        None => Ok(()),
    }
}

/// True for `1u8`, `2.5f32`, `0x10`: letters other than an exponent.
fn has_suffix(number: &str) -> bool {
    let bytes = number.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| {
        b.is_ascii_alphabetic()
            && !((b == b'e' || b == b'E')
                && bytes[..i]
                    .iter()
                    .all(|c| c.is_ascii_digit() || *c == b'.' || *c == b'_')
                && bytes[i + 1..]
                    .iter()
                    .all(|c| c.is_ascii_digit() || *c == b'+' || *c == b'-'))
    }) || number.contains('_')
}
