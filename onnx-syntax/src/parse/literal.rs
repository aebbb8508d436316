//! Literals: numbers (with `-`, `inf` and `nan`), and their conversion for the context they are in.
//!
//! A literal is scanned without knowing its use, then converted where it is used, as the
//! reference does: an int literal becomes an `i64`, a wrapped `u64`, or a float, by context.

use std::ops::Div;

use super::{Parser, shorten};
use crate::error::{ParseError, ParseErrorKind};
use crate::lex::{Token, TokenKind, unescape};
use crate::span::Span;

/// The kind of a scanned literal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LitKind {
    /// Digits, optionally negated.
    Int,
    /// A float, `inf`/`infinity`/`nan` included, optionally negated.
    Float,
    /// A quoted string.
    Str,
}

/// A scanned literal; its text includes the sign.
#[derive(Clone, Copy, Debug)]
pub(super) struct Literal {
    pub kind: LitKind,
    pub span: Span,
}

/// The special float words, matched case-insensitively.
const FLOAT_WORDS: [&str; 3] = ["inf", "infinity", "nan"];

/// How an identifier reads where a number may stand.
pub(super) enum Word {
    /// `inf`, `-Infinity`, `NaN`, …
    Float,
    /// A float word run into more text: `inf1`, `nan_x`.
    Malformed,
    /// Anything else.
    Other,
}

/// Classifies `word` (an identifier) as a float word. The reference reads the run of letters:
/// a float word followed by a digit is invalid, and one followed by `_` ends at the `_`.
pub(super) fn classify_word(word: &str) -> Word {
    let letters = word.bytes().take_while(u8::is_ascii_alphabetic).count();
    if !FLOAT_WORDS
        .iter()
        .any(|w| w.eq_ignore_ascii_case(&word[..letters]))
    {
        Word::Other
    } else if letters == word.len() {
        Word::Float
    } else {
        Word::Malformed
    }
}

impl Parser<'_> {
    /// True if a number literal starts here: a digit, `-`, or a float word.
    pub(super) fn at_number(&self) -> bool {
        match self.peek().kind {
            TokenKind::Int | TokenKind::Float => true,
            TokenKind::Punct(b'-') => true,
            TokenKind::Ident => !matches!(classify_word(self.text(self.peek())), Word::Other),
            _ => false,
        }
    }

    /// Scans a literal: a string, or a number with an optional `-` written directly before it.
    pub(super) fn literal(&mut self, what: &str) -> Result<Literal, ParseError> {
        let next = self.peek();
        match next.kind {
            TokenKind::Str => {
                tri!(self.bump());
                Ok(Literal {
                    kind: LitKind::Str,
                    span: next.span,
                })
            }
            TokenKind::Punct(b'-') => {
                tri!(self.bump());
                let number = self.peek();
                if !number.joined || !self.at_number() || number.is_punct(b'-') {
                    return Err(self.error(
                        ParseErrorKind::MalformedNumber,
                        next.span.to(number.span),
                        format!(
                            "expected a number directly after `-`, found {}",
                            self.describe(number)
                        ),
                    ));
                }
                let literal = tri!(self.unsigned_number(what));
                Ok(Literal {
                    kind: literal.kind,
                    span: next.span.to(literal.span),
                })
            }
            _ => self.unsigned_number(what),
        }
    }

    fn unsigned_number(&mut self, what: &str) -> Result<Literal, ParseError> {
        let next = self.peek();
        let kind = match next.kind {
            TokenKind::Int => LitKind::Int,
            TokenKind::Float => LitKind::Float,
            TokenKind::Ident => match classify_word(self.text(next)) {
                Word::Float => LitKind::Float,
                Word::Malformed => return Err(self.malformed_word(next)),
                Word::Other => {
                    return Err(self.error(
                        ParseErrorKind::Unexpected,
                        next.span,
                        format!(
                            "expected {what}, found `{}` (the only words that are numbers are \
                             `inf`, `infinity` and `nan`)",
                            self.text(next)
                        ),
                    ));
                }
            },
            _ => return Err(self.expected(what)),
        };
        tri!(self.bump());
        Ok(Literal {
            kind,
            span: next.span,
        })
    }

    /// The error for `inf1`, `nan_x` and the like.
    pub(super) fn malformed_word(&self, token: Token) -> ParseError {
        self.error(ParseErrorKind::MalformedNumber,
            token.span,
            format!(
                "invalid float literal `{}`: `inf`, `infinity` and `nan` cannot run into other text",
                self.text(token)
            ),
        )
    }

    /// The text of a literal, sign included.
    pub(super) fn literal_text(&self, literal: Literal) -> &str {
        &self.source()[literal.span.range()]
    }

    /// A string literal's contents, as bytes.
    pub(super) fn literal_bytes(&self, literal: Literal) -> Vec<u8> {
        unescape(self.literal_text(literal))
            .into_owned()
            .into_bytes()
    }

    /// An integer literal as `i64`.
    pub(super) fn to_i64(&self, literal: Literal, what: &str) -> Result<i64, ParseError> {
        if literal.kind != LitKind::Int {
            return Err(self.kind_error(literal, what));
        }
        let text = self.literal_text(literal);
        text.parse().map_err(|_| {
            self.error(
                ParseErrorKind::OutOfRange,
                literal.span,
                format!("integer `{}` does not fit in 64 bits", shorten(text)),
            )
        })
    }

    /// An integer literal as the reference's `stoull` reads it: a minus sign wraps around.
    pub(super) fn to_u64_wrapping(&self, literal: Literal, what: &str) -> Result<u64, ParseError> {
        if literal.kind != LitKind::Int {
            return Err(self.kind_error(literal, what));
        }
        let text = self.literal_text(literal);
        let (negative, digits) = match text.strip_prefix('-') {
            Some(digits) => (true, digits),
            None => (false, text),
        };
        let value: u64 = tri!(digits.parse().map_err(|_| {
            self.error(
                ParseErrorKind::OutOfRange,
                literal.span,
                format!("integer `{}` does not fit in 64 bits", shorten(text)),
            )
        }));
        Ok(if negative {
            value.wrapping_neg()
        } else {
            value
        })
    }

    /// A number literal (int or float) as `f32`. Overflow is an error; underflow rounds to zero.
    pub(super) fn to_f32(&self, literal: Literal, what: &str) -> Result<f32, ParseError> {
        self.to_float(literal, what, "float", |text| {
            text.parse::<f32>().ok().filter(|v| v.is_finite())
        })
    }

    /// A number literal (int or float) as `f64`. Overflow is an error; underflow rounds to zero.
    pub(super) fn to_f64(&self, literal: Literal, what: &str) -> Result<f64, ParseError> {
        self.to_float(literal, what, "double", |text| {
            text.parse::<f64>().ok().filter(|v| v.is_finite())
        })
    }

    fn to_float<F: SpecialFloat>(
        &self,
        literal: Literal,
        what: &str,
        type_name: &str,
        parse_finite: impl Fn(&str) -> Option<F>,
    ) -> Result<F, ParseError> {
        if matches!(literal.kind, LitKind::Str) {
            return Err(self.kind_error(literal, what));
        }
        // Most numbers are short decimals such as `0.1`: read them from the bytes, which spares
        // slicing a `str` and std's generic parser, both costly unoptimized (the macros).
        let bytes = &self.source().as_bytes()[literal.span.range()];
        if let Some(value) = exact_decimal(bytes) {
            return Ok(value);
        }
        let text = self.literal_text(literal);
        // Bytes, not `strip_prefix`: that is several calls when unoptimized, for every number.
        let negative = text.as_bytes()[0] == b'-';
        let magnitude_start = negative as usize;
        if text.as_bytes()[magnitude_start].is_ascii_alphabetic() {
            let value = if text[magnitude_start..].eq_ignore_ascii_case("nan") {
                F::NAN
            } else {
                F::INFINITY
            };
            return Ok(if negative { value.negate() } else { value });
        }
        parse_finite(text).ok_or_else(|| {
            self.error(
                ParseErrorKind::OutOfRange,
                literal.span,
                format!("`{}` is out of range for {type_name}", shorten(text)),
            )
        })
    }

    /// "expected an integer, found a float" and the like.
    pub(super) fn kind_error(&self, literal: Literal, what: &str) -> ParseError {
        let token = Token {
            kind: TokenKind::Str,
            span: literal.span,
            joined: false,
        };
        if literal.kind == LitKind::Str && self.hole_in(token).is_some() {
            let message =
                format!("expected {what}, found a Rust value `#…`, which cannot stand here");
            return self.error(ParseErrorKind::MisplacedHole, literal.span, message);
        }
        let found = match literal.kind {
            LitKind::Int => "an integer",
            LitKind::Float => "a float",
            LitKind::Str => "a string",
        };
        self.error(
            ParseErrorKind::Unexpected,
            literal.span,
            format!(
                "expected {what}, found {found} `{}`",
                shorten(self.literal_text(literal))
            ),
        )
    }

    /// Parses an integer literal (`-` allowed) as `i64`.
    pub(super) fn int(&mut self, what: &str) -> Result<i64, ParseError> {
        let literal = tri!(self.literal(what));
        self.to_i64(literal, what)
    }
}

/// The float types a literal can become.
trait SpecialFloat: Copy + Div<Output = Self> + 'static {
    const NAN: Self;
    const INFINITY: Self;
    /// The largest integer up to which every integer is exact in this type: 2^(mantissa bits + 1).
    const MAX_EXACT_INT: u64;
    /// 10^0, 10^1, …: the powers of ten that are exact in this type.
    const EXACT_POWERS_OF_TEN: &'static [Self];
    fn negate(self) -> Self;
    /// `n` as this type; exact for `n <= MAX_EXACT_INT`.
    fn from_exact_int(n: u64) -> Self;
}

impl SpecialFloat for f32 {
    const NAN: f32 = f32::NAN;
    const INFINITY: f32 = f32::INFINITY;
    const MAX_EXACT_INT: u64 = 1 << 24;
    const EXACT_POWERS_OF_TEN: &'static [f32] =
        &[1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10];
    fn negate(self) -> f32 {
        -self
    }
    #[inline(always)]
    fn from_exact_int(n: u64) -> f32 {
        n as f32
    }
}

impl SpecialFloat for f64 {
    const NAN: f64 = f64::NAN;
    const INFINITY: f64 = f64::INFINITY;
    const MAX_EXACT_INT: u64 = 1 << 53;
    const EXACT_POWERS_OF_TEN: &'static [f64] = &[
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    fn negate(self) -> f64 {
        -self
    }
    #[inline(always)]
    fn from_exact_int(n: u64) -> f64 {
        n as f64
    }
}

/// The value of a number literal written `-`? digits, with at most one `.` and no exponent, when
/// its digits make an integer exact in `F` and its decimals a power of ten exact in `F`: then
/// one division, rounded once, is the correctly rounded value that `str::parse` gives (Clinger's
/// fast path, which std takes first too). `None` for other literals.
fn exact_decimal<F: SpecialFloat>(literal: &[u8]) -> Option<F> {
    let negative = matches!(literal, [b'-', ..]);
    let mut mantissa = 0;
    // The offset of the `.`, or the length: the decimals are the digits after it.
    let mut point = literal.len();
    // Plain indexing and a byte `match`: an iterator adaptor or `is_ascii_digit` costs a call
    // per byte when unoptimized.
    let mut i = negative as usize;
    // A literal of no digit (`-`, `.`) is not a number: std's parser rejects it.
    let mut digits = 0;
    while i < literal.len() {
        match literal[i] {
            digit @ b'0'..=b'9' => {
                digits += 1;
                mantissa = mantissa * 10 + (digit - b'0') as u64;
                if mantissa > F::MAX_EXACT_INT {
                    return None;
                }
            }
            b'.' if point == literal.len() => point = i,
            _ => return None,
        }
        i += 1;
    }
    if digits == 0 {
        return None;
    }
    let decimals = if point < literal.len() {
        literal.len() - point - 1
    } else {
        0
    };
    if decimals >= F::EXACT_POWERS_OF_TEN.len() {
        return None;
    }
    let value = F::from_exact_int(mantissa) / F::EXACT_POWERS_OF_TEN[decimals];
    Some(if negative { value.negate() } else { value })
}

#[cfg(test)]
mod tests {
    use super::exact_decimal;

    /// `exact_decimal` gives what `str::parse` gives, bit for bit, or nothing.
    fn check(text: &str) {
        if let Some(value) = exact_decimal::<f32>(text.as_bytes()) {
            assert_eq!(
                value.to_bits(),
                text.parse::<f32>().unwrap().to_bits(),
                "{text}"
            );
        }
        if let Some(value) = exact_decimal::<f64>(text.as_bytes()) {
            assert_eq!(
                value.to_bits(),
                text.parse::<f64>().unwrap().to_bits(),
                "{text}"
            );
        }
    }

    /// Every placement of the point in `digits`, signed and not.
    fn check_all_points(digits: &str) {
        check(digits);
        check(&format!("-{digits}"));
        for at in 1..=digits.len() {
            let text = format!("{}.{}", &digits[..at], &digits[at..]);
            check(&text);
            check(&format!("-{text}"));
        }
    }

    #[test]
    fn exact_decimals_match_std_for_every_short_literal() {
        // Every literal of up to six digits, leading zeros included.
        for len in 1..=6 {
            for n in 0..10u32.pow(len as u32) {
                check_all_points(&format!("{n:0len$}"));
            }
        }
    }

    #[test]
    fn texts_without_digits_are_left_to_std() {
        for text in ["", "-", ".", "-.", "1.2.3", "1e5", "+1"] {
            assert!(exact_decimal::<f32>(text.as_bytes()).is_none(), "{text}");
        }
    }

    #[test]
    fn exact_decimals_match_std_at_the_limits() {
        for limit in [1u64 << 24, 1 << 53] {
            for n in limit - 1000..=limit + 1000 {
                check_all_points(&n.to_string());
                check_all_points(&format!("{n}000"));
                check_all_points(&format!("00{n}"));
            }
        }
        // A pseudo-random sample of longer literals, up to 20 digits.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let digits = state.to_string();
            let len = (state % 20) as usize + 1;
            check_all_points(&digits[..len.min(digits.len())]);
        }
    }

    #[test]
    fn exact_decimals_leave_other_literals_to_std() {
        for text in ["1e5", "1.5e-3", "0.10000000000", "16777217", "1.2.3", "inf"] {
            assert!(exact_decimal::<f32>(text.as_bytes()).is_none(), "{text}");
        }
        assert_eq!(
            exact_decimal::<f32>(b"-0").map(f32::to_bits),
            Some((-0.0f32).to_bits())
        );
        assert_eq!(exact_decimal::<f32>(b"0.1"), Some(0.1));
    }
}
