//! Numbers as the reference prints them: C++ `std::to_chars` without a format, which gives the
//! shortest text that reads back to the same value, in fixed or scientific notation, whichever is
//! shorter (fixed on a tie).
//!
//! Rust's own `{}` differs: it never uses an exponent for `1e20`, writes `1e-7` rather than
//! `1e-07`, and pads large integers with zeros (`123456790`) where `to_chars` prints the exact
//! value (`123456792`).

use std::fmt::Write;

/// A float type that `to_chars` formats: `f32` or `f64`.
pub(crate) trait ShortestFloat:
    Copy + PartialEq + std::fmt::LowerExp + std::str::FromStr
{
    /// Enough significant digits to write any value of the type exactly.
    const EXACT_DIGITS: usize;
    fn is_nan(self) -> bool;
    fn is_sign_negative(self) -> bool;
    fn is_infinite(self) -> bool;
    /// The magnitude as an integer; only called on integral values below 10^23.
    fn integral_magnitude(self) -> u128;
}

impl ShortestFloat for f32 {
    const EXACT_DIGITS: usize = 120;
    fn is_nan(self) -> bool {
        f32::is_nan(self)
    }
    fn is_sign_negative(self) -> bool {
        f32::is_sign_negative(self)
    }
    fn is_infinite(self) -> bool {
        f32::is_infinite(self)
    }
    fn integral_magnitude(self) -> u128 {
        self.abs() as u128
    }
}

impl ShortestFloat for f64 {
    const EXACT_DIGITS: usize = 780;
    fn is_nan(self) -> bool {
        f64::is_nan(self)
    }
    fn is_sign_negative(self) -> bool {
        f64::is_sign_negative(self)
    }
    fn is_infinite(self) -> bool {
        f64::is_infinite(self)
    }
    fn integral_magnitude(self) -> u128 {
        self.abs() as u128
    }
}

/// Appends `value` as `std::to_chars(value)` writes it, with NaN as `nan` or `-nan` (the
/// reference normalises NaN so that every platform prints the same).
pub(crate) fn write_float<F: ShortestFloat>(out: &mut String, value: F) {
    if value.is_nan() {
        out.push_str(if value.is_sign_negative() {
            "-nan"
        } else {
            "nan"
        });
        return;
    }
    if value.is_sign_negative() {
        out.push('-');
    }
    if value.is_infinite() {
        out.push_str("inf");
        return;
    }
    // Rust's `{:e}` gives the shortest round-trip digits (the same digits Ryu finds, which is what
    // `to_chars` uses); only the layout is ours to choose.
    let mut sci = SmallBuf::new();
    // Cannot fail: SmallBuf grows as needed.
    let _ = write!(sci, "{value:e}");
    let text = sci.as_str().trim_start_matches('-');
    let (mantissa, exponent) = text.split_once('e').unwrap_or((text, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let mut digits = SmallBuf::new();
    digits.extend(mantissa.bytes().filter(u8::is_ascii_digit));
    round_half_to_even(&mut digits, exponent, value);
    let digits = digits.as_str();
    let k = digits.len() as i32;
    // value = 0.digits × 10^point: `point` digits stand before the decimal point.
    let point = exponent + 1;
    let ryu_exponent = point - k;
    let (lower, upper) = if k == 1 { (-3, 4) } else { (-(k + 3), 5) };
    if (lower..=upper).contains(&ryu_exponent) {
        if ryu_exponent >= 0 {
            // An integer: `to_chars` prints its exact value, not the digits padded with zeros.
            let _ = write!(out, "{}", value.integral_magnitude());
        } else if point > 0 {
            let (int, frac) = digits.split_at(point as usize);
            out.push_str(int);
            out.push('.');
            out.push_str(frac);
        } else {
            out.push_str("0.");
            for _ in 0..-point {
                out.push('0');
            }
            out.push_str(digits);
        }
    } else {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let _ = write!(
            out,
            "e{}{:02}",
            if exponent < 0 { '-' } else { '+' },
            exponent.unsigned_abs()
        );
    }
}

/// Rust breaks a tie between two shortest candidates upwards; `to_chars` (Ryu) breaks it to the
/// even digit. When the value lies exactly halfway between `digits` and the candidate one below,
/// and that candidate reads back to the same value too, take it.
fn round_half_to_even<F: ShortestFloat>(digits: &mut SmallBuf, exponent: i32, value: F) {
    let Some(&last) = digits.bytes[..digits.len].last() else {
        return;
    };
    if digits.len < 2 || (last - b'0').is_multiple_of(2) {
        return;
    }
    let mut lower = SmallBuf::new();
    lower.extend(digits.bytes[..digits.len - 1].iter().copied());
    lower.extend(std::iter::once(last - 1));
    // The candidate, as `d.ddd` × 10^exponent, must read back to the same value …
    let mut text = String::with_capacity(32);
    let lower_digits = lower.as_str();
    let sign = if value.is_sign_negative() { "-" } else { "" };
    let _ = write!(
        text,
        "{sign}{}.{}e{exponent}",
        &lower_digits[..1],
        &lower_digits[1..]
    );
    if text.parse::<F>().ok() != Some(value) {
        return;
    }
    // … and the value must be exactly halfway: its exact expansion is `lower` then `5`.
    let exact = format!("{:.*e}", F::EXACT_DIGITS, value);
    let exact = exact.trim_start_matches('-');
    let Some((mantissa, exp)) = exact.split_once('e') else {
        return;
    };
    if exp.parse::<i32>().ok() != Some(exponent) {
        return;
    }
    let mut exact_digits = mantissa.bytes().filter(u8::is_ascii_digit);
    let halfway = lower.bytes[..lower.len]
        .iter()
        .all(|&d| exact_digits.next() == Some(d))
        && exact_digits.next() == Some(b'5')
        && exact_digits.all(|d| d == b'0');
    if halfway {
        *digits = lower;
    }
}

/// A fixed-size text buffer, so that formatting a float does not allocate.
struct SmallBuf {
    bytes: [u8; 48],
    len: usize,
}

impl SmallBuf {
    fn new() -> SmallBuf {
        SmallBuf {
            bytes: [0; 48],
            len: 0,
        }
    }

    fn as_str(&self) -> &str {
        // Only ASCII is ever written.
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or("")
    }

    fn extend(&mut self, bytes: impl Iterator<Item = u8>) {
        for b in bytes {
            if self.len < self.bytes.len() {
                self.bytes[self.len] = b;
                self.len += 1;
            }
        }
    }
}

impl Write for SmallBuf {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        if end > self.bytes.len() {
            return Err(std::fmt::Error);
        }
        self.bytes[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32_text(v: f32) -> String {
        let mut s = String::new();
        write_float(&mut s, v);
        s
    }

    fn f64_text(v: f64) -> String {
        let mut s = String::new();
        write_float(&mut s, v);
        s
    }

    #[test]
    fn reference_examples() {
        // The examples of the reference notes (§13), printed by onnx 1.23.2.
        assert_eq!(f32_text(2.0), "2");
        assert_eq!(f32_text(0.1), "0.1");
        assert_eq!(f32_text(1e-7), "1e-07");
        assert_eq!(f32_text(3.402_823_5e38), "3.4028235e+38");
        assert_eq!(f32_text(123_456_792.0), "123456792");
        assert_eq!(f32_text(1e20), "1e+20");
        assert_eq!(f32_text(f32::INFINITY), "inf");
        assert_eq!(f32_text(f32::NEG_INFINITY), "-inf");
        assert_eq!(f32_text(f32::NAN), "nan");
        assert_eq!(f32_text(-f32::NAN), "-nan");
        assert_eq!(f32_text(-0.0), "-0");
        assert_eq!(f32_text(0.0), "0");
    }

    #[test]
    fn fixed_or_scientific_by_length() {
        assert_eq!(f32_text(1.5e6), "1500000"); // 7 chars either way: fixed wins the tie
        assert_eq!(f32_text(1e-3), "0.001");
        assert_eq!(f32_text(1e-4), "1e-04");
        assert_eq!(f32_text(12345.678), "12345.678");
        assert_eq!(f64_text(1e22), "1e+22");
        assert_eq!(f64_text(1e-300), "1e-300");
        assert_eq!(f64_text(123456.0), "123456");
        assert_eq!(f64_text(0.000_012_34), "1.234e-05");
        assert_eq!(f64_text(0.000_123_4), "0.0001234");
    }

    #[test]
    fn ties_between_shortest_candidates_go_to_even() {
        // 171038272850885.125 is exactly halfway between …12 and …13; onnx prints …12.
        assert_eq!(f64_text(171_038_272_850_885.125), "171038272850885.12");
        assert_eq!(f64_text(-171_038_272_850_885.125), "-171038272850885.12");
    }
}
