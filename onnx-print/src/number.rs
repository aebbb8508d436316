//! Numbers as the reference prints them: C++ `std::to_chars` without a format, which gives the
//! shortest text that reads back to the same value, in fixed or scientific notation, whichever is
//! shorter (fixed on a tie).
//!
//! Rust's own `{}` differs: it never uses an exponent for `1e20`, writes `1e-7` rather than
//! `1e-07`, pads large integers with zeros (`123456790`) where `to_chars` prints the exact
//! value (`123456792`), and breaks ties between two shortest candidates upwards where
//! `to_chars` takes the even one. The digits come from the `ryu` crate, the algorithm that
//! `to_chars` implementations use, so they agree digit for digit; only the layout is ours.

/// A float type that `to_chars` formats: `f32` or `f64`.
pub(crate) trait ShortestFloat: Copy + ryu::Float {
    fn is_nan(self) -> bool;
    fn is_sign_negative(self) -> bool;
    fn is_infinite(self) -> bool;
    /// The magnitude as an integer; only called on integral values below 10^23.
    fn integral_magnitude(self) -> u128;
}

macro_rules! shortest_float {
    ($float:ty) => {
        impl ShortestFloat for $float {
            fn is_nan(self) -> bool {
                <$float>::is_nan(self)
            }
            fn is_sign_negative(self) -> bool {
                <$float>::is_sign_negative(self)
            }
            fn is_infinite(self) -> bool {
                <$float>::is_infinite(self)
            }
            fn integral_magnitude(self) -> u128 {
                self.abs() as u128
            }
        }
    };
}

shortest_float!(f32);
shortest_float!(f64);

/// Appends an integer in decimal, as `std::to_chars` writes it.
pub(crate) fn write_int(out: &mut String, value: i128) {
    if value < 0 {
        out.push('-');
    }
    write_magnitude(out, value.unsigned_abs());
}

fn write_magnitude(out: &mut String, mut magnitude: u128) {
    let mut buf = [0u8; 40];
    let mut at = buf.len();
    // u64 division is far cheaper than u128's; every value but a huge float integer fits.
    while magnitude > u128::from(u64::MAX) {
        at -= 1;
        buf[at] = b'0' + (magnitude % 10) as u8;
        magnitude /= 10;
    }
    let mut small = magnitude as u64;
    loop {
        at -= 1;
        buf[at] = b'0' + (small % 10) as u8;
        small /= 10;
        if small == 0 {
            break;
        }
    }
    // Only ASCII digits were written.
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
    let mut ryu = ryu::Buffer::new();
    let digits = Digits::of(ryu.format_finite(value));
    let k = digits.len() as i32;
    // value = 0.digits × 10^point: `point` digits stand before the decimal point. Of the two
    // layouts `to_chars` takes the shorter (fixed on a tie); these bounds are where fixed is.
    let point = digits.point;
    let ryu_exponent = point - k;
    let (lower, upper) = if k == 1 { (-3, 4) } else { (-(k + 3), 5) };
    if (lower..=upper).contains(&ryu_exponent) {
        if ryu_exponent >= 0 {
            // An integer: `to_chars` prints its exact value, not the digits padded with zeros.
            write_magnitude(out, value.integral_magnitude());
        } else if point > 0 {
            digits.write(out, 0..point as usize);
            out.push('.');
            digits.write(out, point as usize..k as usize);
        } else {
            out.push_str("0.");
            // At most three zeros: below that scientific notation is shorter.
            out.push_str(&"000"[..(-point).min(3) as usize]);
            digits.write(out, 0..k as usize);
        }
    } else {
        digits.write(out, 0..1);
        if k > 1 {
            out.push('.');
            digits.write(out, 1..k as usize);
        }
        let exponent = point - 1;
        out.push_str(if exponent < 0 { "e-" } else { "e+" });
        // Two digits at least, three at most (doubles reach 10^308).
        let magnitude = exponent.unsigned_abs();
        if magnitude >= 100 {
            out.push(decimal_digit(magnitude / 100));
        }
        out.push(decimal_digit(magnitude / 10 % 10));
        out.push(decimal_digit(magnitude % 10));
    }
}

/// The significant digits of a finite number as `ryu` printed it (`1.5e-7`, `0.001`,
/// `123456790.0`, `-0.0`), without leading or trailing zeros: `head` then `tail`, two pieces of
/// `ryu`'s text on either side of its decimal point, so that nothing is copied. The value is
/// `0.head tail × 10^point`.
struct Digits<'a> {
    head: &'a str,
    tail: &'a str,
    point: i32,
}

impl<'a> Digits<'a> {
    fn of(text: &'a str) -> Digits<'a> {
        // Byte positions in one pass over at most 24 bytes: this runs once per float printed,
        // so it avoids the general string searches.
        let bytes = text.as_bytes();
        let start = usize::from(bytes.first() == Some(&b'-'));
        let (mut dot, mut e) = (None, bytes.len());
        for (i, &b) in bytes.iter().enumerate().skip(start) {
            if b == b'.' {
                dot = Some(i);
            } else if b == b'e' {
                e = i;
                break;
            }
        }
        let exponent = parse_exponent(bytes.get(e + 1..).unwrap_or_default());
        let (int_end, mut frac_start) = dot.map_or((e, e), |dot| (dot, dot + 1));
        let mut frac_end = e;
        while frac_end > frac_start && bytes[frac_end - 1] == b'0' {
            frac_end -= 1;
        }
        if &bytes[start..int_end] == b"0" {
            // `0.000123`: the zeros after the point move it left.
            let zeros_start = frac_start;
            while frac_start < frac_end && bytes[frac_start] == b'0' {
                frac_start += 1;
            }
            if frac_start == frac_end {
                return Digits {
                    head: "0",
                    tail: "",
                    point: 1,
                };
            }
            let point = exponent - (frac_start - zeros_start) as i32;
            return Digits {
                head: "",
                tail: &text[frac_start..frac_end],
                point,
            };
        }
        let point = (int_end - start) as i32 + exponent;
        let mut head_end = int_end;
        if frac_start == frac_end {
            // `123456790.0`: the integer's zeros are padding, not digits.
            while head_end > start + 1 && bytes[head_end - 1] == b'0' {
                head_end -= 1;
            }
        }
        Digits {
            head: &text[start..head_end],
            tail: &text[frac_start..frac_end],
            point,
        }
    }

    fn len(&self) -> usize {
        self.head.len() + self.tail.len()
    }

    /// Appends the digits at positions `range` of `head` followed by `tail`.
    fn write(&self, out: &mut String, range: std::ops::Range<usize>) {
        let split = self.head.len();
        if range.start < split {
            out.push_str(
                self.head
                    .get(range.start..range.end.min(split))
                    .unwrap_or(""),
            );
        }
        if range.end > split {
            let tail = range.start.max(split) - split..range.end - split;
            out.push_str(self.tail.get(tail).unwrap_or(""));
        }
    }
}

fn decimal_digit(d: u32) -> char {
    char::from(b'0' + (d % 10) as u8)
}

/// The exponent after `e` in `ryu`'s output: an optional `-` and at most three digits.
fn parse_exponent(text: &[u8]) -> i32 {
    let (negative, digits) = match text.strip_prefix(b"-") {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let magnitude = digits
        .iter()
        .fold(0i32, |acc, &d| acc * 10 + i32::from(d.wrapping_sub(b'0')));
    if negative { -magnitude } else { magnitude }
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
}
