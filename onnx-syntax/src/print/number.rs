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
    /// `(m, q)` with the value's magnitude `m × 2^q` and `m` odd (`(0, 0)` for zero).
    fn decompose(self) -> (u64, i32);
    fn is_nan(self) -> bool;
    fn is_sign_negative(self) -> bool;
    fn is_infinite(self) -> bool;
    /// The magnitude as an integer; only called on integral values below 10^23.
    fn integral_magnitude(self) -> u128;
}

impl ShortestFloat for f32 {
    fn decompose(self) -> (u64, i32) {
        let bits = self.to_bits();
        let exp = ((bits >> 23) & 0xff) as i32;
        let frac = u64::from(bits & 0x7f_ffff);
        let (m, q) = if exp == 0 {
            (frac, -149)
        } else {
            (frac | 1 << 23, exp - 150)
        };
        strip_twos(m, q)
    }
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
    fn decompose(self) -> (u64, i32) {
        let bits = self.to_bits();
        let exp = ((bits >> 52) & 0x7ff) as i32;
        let frac = bits & 0xf_ffff_ffff_ffff;
        let (m, q) = if exp == 0 {
            (frac, -1074)
        } else {
            (frac | 1 << 52, exp - 1075)
        };
        strip_twos(m, q)
    }
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

fn strip_twos(m: u64, q: i32) -> (u64, i32) {
    if m == 0 {
        return (0, 0);
    }
    let zeros = m.trailing_zeros();
    (m >> zeros, q + zeros as i32)
}

/// Appends an integer in decimal, as `std::to_chars` writes it.
pub(crate) fn write_int(out: &mut String, value: i128) {
    if value < 0 {
        out.push('-');
    }
    let mut magnitude = value.unsigned_abs();
    let mut buf = [0u8; 40];
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (magnitude % 10) as u8;
        magnitude /= 10;
        if magnitude == 0 {
            break;
        }
    }
    out.push_str(std::str::from_utf8(&buf[at..]).unwrap_or("0"));
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
    let _ = write!(sci, "{value:e}");
    let text = &sci.bytes[..sci.len];
    let text = text.strip_prefix(b"-").unwrap_or(text);
    let e = text.iter().position(|&b| b == b'e').unwrap_or(text.len());
    let exponent = parse_exponent(text.get(e + 1..).unwrap_or(&[]));
    let mut digits = SmallBuf::new();
    digits.extend(text[..e].iter().copied().filter(u8::is_ascii_digit));
    round_half_to_even(&mut digits, exponent, value);
    let digits = &digits.bytes[..digits.len];
    let push = |out: &mut String, bytes: &[u8]| out.extend(bytes.iter().map(|&b| char::from(b)));
    let k = digits.len() as i32;
    // value = 0.digits × 10^point: `point` digits stand before the decimal point.
    let point = exponent + 1;
    let ryu_exponent = point - k;
    let (lower, upper) = if k == 1 { (-3, 4) } else { (-(k + 3), 5) };
    if (lower..=upper).contains(&ryu_exponent) {
        if ryu_exponent >= 0 {
            // An integer: `to_chars` prints its exact value, not the digits padded with zeros.
            write_int(out, value.integral_magnitude() as i128);
        } else if point > 0 {
            let (int, frac) = digits.split_at(point as usize);
            push(out, int);
            out.push('.');
            push(out, frac);
        } else {
            out.push_str("0.");
            for _ in 0..-point {
                out.push('0');
            }
            push(out, digits);
        }
    } else {
        push(out, &digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            push(out, &digits[1..]);
        }
        out.push('e');
        out.push(if exponent < 0 { '-' } else { '+' });
        if exponent.unsigned_abs() < 10 {
            out.push('0');
        }
        write_int(out, i128::from(exponent.unsigned_abs()));
    }
}

/// The exponent after `e` in Rust's `{:e}` output: an optional `-` and digits.
fn parse_exponent(text: &[u8]) -> i32 {
    let (negative, digits) = match text.strip_prefix(b"-") {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let magnitude = digits
        .iter()
        .fold(0i32, |acc, &d| acc * 10 + i32::from(d - b'0'));
    if negative { -magnitude } else { magnitude }
}

/// Rust breaks a tie between two shortest candidates upwards; `to_chars` (Ryu) breaks it to the
/// even digit. When the value lies exactly halfway between `digits` and the candidate one below,
/// and that candidate reads back to the same value too, take it.
fn round_half_to_even<F: ShortestFloat>(digits: &mut SmallBuf, exponent: i32, value: F) {
    let k = digits.len;
    let Some(&last) = digits.bytes[..k].last() else {
        return;
    };
    if k < 2 || (last - b'0').is_multiple_of(2) {
        return;
    }
    let mut lower = SmallBuf::new();
    lower.extend(digits.bytes[..k - 1].iter().copied());
    lower.extend(std::iter::once(last - 1));
    // Halfway means value = N × 10^j exactly, with N the digits of `lower` followed by a 5 and
    // j = exponent - k. With value = m × 2^q and m odd, N and 5^|j| odd, the powers of two say
    // q = j; then m = N × 5^j (j >= 0) or m × 5^-j = N (j < 0). All in integers: no rounding.
    let (m, q) = value.decompose();
    let j = exponent - k as i32;
    if q != j {
        return;
    }
    let n = lower.bytes[..lower.len]
        .iter()
        .fold(0u128, |acc, &d| acc * 10 + u128::from(d - b'0'))
        * 10
        + 5;
    let pow5 = |e: u32| 5u128.checked_pow(e);
    let halfway = if j >= 0 {
        pow5(j.unsigned_abs()).and_then(|p| n.checked_mul(p)) == Some(u128::from(m))
    } else {
        pow5(j.unsigned_abs()).and_then(|p| u128::from(m).checked_mul(p)) == Some(n)
    };
    if !halfway {
        return;
    }
    // The candidate must read back to the same value (not so just below a power of two).
    let lower_digits = lower.as_str();
    let sign = if value.is_sign_negative() { "-" } else { "" };
    let text = format!(
        "{sign}{}.{}e{exponent}",
        &lower_digits[..1],
        &lower_digits[1..]
    );
    if text.parse::<F>().ok() == Some(value) {
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
        let tie = 171_038_272_850_885.0 + 0.125; // exact
        assert_eq!(f64_text(tie), "171038272850885.12");
        assert_eq!(f64_text(-tie), "-171038272850885.12");
    }

    #[test]
    fn decomposes_into_an_odd_mantissa() {
        assert_eq!(1.5f64.decompose(), (3, -1));
        assert_eq!(8.0f32.decompose(), (1, 3));
        assert_eq!(f64::from_bits(1).decompose(), (1, -1074));
        assert_eq!(0.0f32.decompose(), (0, 0));
    }
}
