//! float16 and bfloat16 as the kernels compute them: stored as their bits, widened to f32 or
//! f64 exactly, narrowed as onnx-value encodes them (the one rounding the kit and the evaluator
//! share: to nearest, ties to even; bfloat16 from f64 through f32, as onnx's reference does). This is what the
//! `half` crate's types do, without the crate: since 2.5 it brings zerocopy and its derive,
//! which were a large share of what the evaluator added to a runtime's cold test build.

use std::cmp::Ordering;
use std::fmt;

macro_rules! narrow_float {
    ($name:ident, $narrow:path, $widen:expr) => {
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Default)]
        pub(crate) struct $name(u16);

        impl $name {
            pub fn from_bits(bits: u16) -> Self {
                $name(bits)
            }

            pub fn to_bits(self) -> u16 {
                self.0
            }

            pub fn from_f64(value: f64) -> Self {
                $name($narrow(value))
            }

            /// f32 widens to f64 exactly, so one rounding from there is the rounding from f32.
            pub fn from_f32(value: f32) -> Self {
                Self::from_f64(f64::from(value))
            }

            pub fn to_f32(self) -> f32 {
                let widen: fn(u16) -> f32 = $widen;
                widen(self.0)
            }

            pub fn to_f64(self) -> f64 {
                f64::from(self.to_f32())
            }
        }

        // As numbers (NaN unequal, the zeros equal), as the `half` crate compares.
        impl PartialEq for $name {
            fn eq(&self, other: &Self) -> bool {
                self.to_f32() == other.to_f32()
            }
        }

        impl PartialOrd for $name {
            fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
                self.to_f32().partial_cmp(&other.to_f32())
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.to_f32(), f)
            }
        }
    };
}

narrow_float!(f16, onnx_value::elements::float16_code, |code| {
    let sign = u32::from(code >> 15) << 31;
    let exponent = u32::from((code >> 10) & 0x1f);
    let mantissa = u32::from(code & 0x3ff);
    match exponent {
        // Subnormal: mantissa * 2^-24, exact in f32.
        0 if sign == 0 => mantissa as f32 / 16_777_216.0,
        0 => -(mantissa as f32 / 16_777_216.0),
        0x1f if mantissa == 0 => f32::from_bits(sign | 0x7f80_0000),
        // A NaN: quiet, with its payload, as the `half` crate widens it.
        0x1f => f32::from_bits(sign | 0x7fc0_0000 | (mantissa << 13)),
        _ => f32::from_bits(sign | ((exponent + 112) << 23) | (mantissa << 13)),
    }
});

narrow_float!(bf16, onnx_value::elements::bfloat16_code, |code| {
    // A NaN is made quiet, as the `half` crate widens it.
    let quiet = if code & 0x7fff > 0x7f80 { 0x0040 } else { 0 };
    f32::from_bits(u32::from(code | quiet) << 16)
});

#[cfg(test)]
mod tests {
    use super::{bf16, f16};

    /// Deterministic bit patterns: every pattern of the bits that decide a rounding, around
    /// every exponent, and pseudo-random ones.
    fn patterns() -> impl Iterator<Item = u32> {
        let lows = [
            0u32, 1, 0x0fff, 0x1000, 0x1001, 0x1fff, 0x2000, 0x3000, 0x7fff, 0x8000, 0x8001,
            0xffff, 0x1_8000,
        ];
        let structured = (0..1u32 << 15).flat_map(move |high| lows.map(|low| (high << 17) ^ low));
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let random = std::iter::repeat_with(move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u32
        })
        .take(1 << 20);
        structured.chain(random)
    }

    /// The same codes as the `half` crate from every f32 tried, and the same f32 from every code.
    #[test]
    fn as_the_half_crate_rounds_and_widens() {
        for bits in patterns() {
            let x = f32::from_bits(bits);
            assert_eq!(
                f16::from_f32(x).to_bits(),
                half::f16::from_f32(x).to_bits(),
                "{x:e}"
            );
            assert_eq!(
                bf16::from_f32(x).to_bits(),
                half::bf16::from_f32(x).to_bits(),
                "{x:e}"
            );
        }
        for code in 0..=u16::MAX {
            let ours = (
                f16::from_bits(code).to_f32(),
                bf16::from_bits(code).to_f32(),
            );
            let theirs = (
                half::f16::from_bits(code).to_f32(),
                half::bf16::from_bits(code).to_f32(),
            );
            assert_eq!(ours.0.to_bits(), theirs.0.to_bits(), "f16 {code:#06x}");
            assert_eq!(ours.1.to_bits(), theirs.1.to_bits(), "bf16 {code:#06x}");
        }
    }

    /// From f64, the nearest float16 code, ties to the even one (the `half` crate rounds on the
    /// top 32 bits of the f64 only, so it is not the reference here); bfloat16 rounds through f32
    /// first, as onnx's reference (ml_dtypes) casts a double.
    #[test]
    fn from_f64_rounds_to_nearest_even() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Values within both formats' range, and around their halfway points.
            let x = f64::from_bits(state) % 60_000.0;
            if !x.is_finite() {
                continue;
            }
            assert_eq!(
                bf16::from_f64(x).to_bits(),
                bf16::from_f32(x as f32).to_bits(),
                "{x:e}"
            );
            for (code, widen) in [(
                f16::from_f64(x).to_bits(),
                (|c| f16::from_bits(c).to_f64()) as fn(u16) -> f64,
            )] {
                let got = widen(code);
                // The neighbours of the code of the same sign, away from and toward zero.
                for other in [code.wrapping_add(1), code.wrapping_sub(1)] {
                    let near = widen(other);
                    if near.is_nan() || other & 0x8000 != code & 0x8000 {
                        continue;
                    }
                    let (mine, theirs) = ((x - got).abs(), (x - near).abs());
                    assert!(
                        mine < theirs || (mine == theirs && code % 2 == 0),
                        "{x:e}: {got:e} (code {code:#06x}) against {near:e}"
                    );
                }
            }
        }
        assert_eq!(f16::from_f64(65520.0).to_f64(), f64::INFINITY);
        assert_eq!(f16::from_f64(65519.99).to_f64(), 65504.0);
        assert_eq!(f16::from_f64(2f64.powi(-25)).to_bits(), 0);
        assert_eq!(f16::from_f64(2f64.powi(-25) * 1.000001).to_bits(), 1);
        assert_eq!(f16::from_f64(-1e-300).to_bits(), 0x8000);
        assert!(bf16::from_f64(f64::NAN).to_f32().is_nan());
        assert_eq!(bf16::from_f64(1e39).to_f64(), f64::INFINITY);
        // Halfway between 1 and the next f16: to the even code; just past it: up, though the
        // deciding bit is in the low 32 bits of the f64.
        let step = 2f64.powi(-10);
        assert_eq!(f16::from_f64(1.0 + step / 2.0).to_bits(), 0x3c00);
        assert_eq!(f16::from_f64(1.0 + 1.5 * step).to_bits(), 0x3c02);
        assert_eq!(
            f16::from_f64(1.0 + step / 2.0 + 2f64.powi(-40)).to_bits(),
            0x3c01
        );
    }
}
