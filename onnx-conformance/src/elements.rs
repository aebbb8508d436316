//! A tensor's elements, decoded from `raw_data` or its typed field into plain numbers, for every
//! element type onnx 1.23.2 defines, including the ones no Rust type holds (float16, bfloat16,
//! the float8, float6 and float4 kinds, 4-bit and 2-bit integers).

use onnx_text::TensorProto;
use onnx_text::tensor_proto::DataType;

/// The elements of one tensor, row-major.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Elements {
    /// Every floating type, widened exactly to f64.
    Float(Vec<f64>),
    /// complex64 and complex128, as (real, imaginary).
    Complex(Vec<(f64, f64)>),
    /// Every signed and unsigned integer type (uint64 fits i128).
    Int(Vec<i128>),
    Bool(Vec<bool>),
    String(Vec<Vec<u8>>),
}

/// A small float format: sign, exponent and mantissa widths, bias, and how it spells
/// infinities and NaNs.
#[derive(Clone, Copy)]
struct MiniFloat {
    exponent_bits: u32,
    mantissa_bits: u32,
    bias: i32,
    special: Special,
}

#[derive(Clone, Copy, PartialEq)]
enum Special {
    /// IEEE: the top exponent is infinity (mantissa 0) or NaN.
    Ieee,
    /// The `fn` kinds: no infinity; all ones is NaN (e4m3fn), or nothing is (float4, float6).
    AllOnesNan,
    NoNan,
    /// The `fnuz` kinds: no infinity, no negative zero; the code of -0 is the NaN.
    NegativeZeroNan,
}

const FLOAT16: MiniFloat = MiniFloat::new(5, 10, 15, Special::Ieee);
const FLOAT8E4M3FN: MiniFloat = MiniFloat::new(4, 3, 7, Special::AllOnesNan);
const FLOAT8E4M3FNUZ: MiniFloat = MiniFloat::new(4, 3, 8, Special::NegativeZeroNan);
const FLOAT8E5M2: MiniFloat = MiniFloat::new(5, 2, 15, Special::Ieee);
const FLOAT8E5M2FNUZ: MiniFloat = MiniFloat::new(5, 2, 16, Special::NegativeZeroNan);
const FLOAT6E2M3: MiniFloat = MiniFloat::new(2, 3, 1, Special::NoNan);
const FLOAT6E3M2: MiniFloat = MiniFloat::new(3, 2, 3, Special::NoNan);
const FLOAT4E2M1: MiniFloat = MiniFloat::new(2, 1, 1, Special::NoNan);

impl MiniFloat {
    const fn new(exponent_bits: u32, mantissa_bits: u32, bias: i32, special: Special) -> Self {
        MiniFloat {
            exponent_bits,
            mantissa_bits,
            bias,
            special,
        }
    }

    fn decode(self, code: u32) -> f64 {
        let width = 1 + self.exponent_bits + self.mantissa_bits;
        let negative = (code >> (width - 1)) & 1 == 1;
        let exponent = (code >> self.mantissa_bits) & ((1 << self.exponent_bits) - 1);
        let mantissa = code & ((1 << self.mantissa_bits) - 1);
        let top = (1 << self.exponent_bits) - 1;
        match self.special {
            Special::Ieee if exponent == top => {
                return match (mantissa, negative) {
                    (0, false) => f64::INFINITY,
                    (0, true) => f64::NEG_INFINITY,
                    _ => f64::NAN,
                };
            }
            Special::AllOnesNan if exponent == top && mantissa == (1 << self.mantissa_bits) - 1 => {
                return f64::NAN;
            }
            Special::NegativeZeroNan if negative && exponent == 0 && mantissa == 0 => {
                return f64::NAN;
            }
            _ => {}
        }
        let fraction = f64::from(mantissa) / f64::from(1u32 << self.mantissa_bits);
        let magnitude = if exponent == 0 {
            fraction * 2f64.powi(1 - self.bias)
        } else {
            (1.0 + fraction) * 2f64.powi(exponent as i32 - self.bias)
        };
        if negative { -magnitude } else { magnitude }
    }
}

fn bfloat16(code: u32) -> f64 {
    f64::from(f32::from_bits(code << 16))
}

/// float8e8m0: an exponent only, 2^(code - 127); all ones is NaN.
fn float8e8m0(code: u32) -> f64 {
    if code == 0xff {
        f64::NAN
    } else {
        2f64.powi(code as i32 - 127)
    }
}

/// The `n`-bit codes of a packed stream, least significant bits first (4-bit, 2-bit and 6-bit
/// types are packed that way in `raw_data`).
fn unpack(bytes: &[u8], bits: usize, count: usize) -> Result<Vec<u32>, String> {
    if bytes.len() * 8 < count * bits {
        return Err(format!(
            "{} bytes hold fewer than {count} {bits}-bit values",
            bytes.len()
        ));
    }
    Ok((0..count)
        .map(|i| {
            (0..bits).fold(0u32, |code, bit| {
                let at = i * bits + bit;
                code | (u32::from((bytes[at / 8] >> (at % 8)) & 1) << bit)
            })
        })
        .collect())
}

fn chunks<const N: usize>(raw: &[u8]) -> impl Iterator<Item = [u8; N]> + '_ {
    raw.chunks_exact(N)
        .map(|c| c.try_into().expect("chunks_exact gives N bytes"))
}

/// The number of elements the dims give, as onnx counts them (no dims: a scalar).
pub(crate) fn element_count(tensor: &TensorProto) -> Result<usize, String> {
    tensor.dims.iter().try_fold(1usize, |n, &d| {
        usize::try_from(d)
            .ok()
            .and_then(|d| n.checked_mul(d))
            .ok_or(format!("dims {:?}", tensor.dims))
    })
}

/// Decodes a tensor's elements. Errors name what cannot be read (an element type this kit does
/// not know, data of the wrong length, external data).
pub(crate) fn decode(tensor: &TensorProto) -> Result<Elements, String> {
    let count = element_count(tensor)?;
    let ty = tensor.data_type.unwrap_or(0);
    let data_type = DataType::try_from(ty).map_err(|_| format!("unknown element type {ty}"))?;
    if !tensor.external_data.is_empty() {
        return Err("a tensor with external data".to_string());
    }
    let raw = tensor.raw_data.as_deref();
    let elements = match data_type {
        DataType::Float => Elements::Float(match raw {
            Some(raw) => chunks(raw)
                .map(|b| f64::from(f32::from_le_bytes(b)))
                .collect(),
            None => tensor.float_data.iter().map(|&v| f64::from(v)).collect(),
        }),
        DataType::Double => Elements::Float(match raw {
            Some(raw) => chunks(raw).map(f64::from_le_bytes).collect(),
            None => tensor.double_data.clone(),
        }),
        DataType::Complex64 => Elements::Complex(match raw {
            Some(raw) => chunks(raw)
                .map(|b: [u8; 8]| {
                    let (re, im) = b.split_at(4);
                    let part = |p: &[u8]| f64::from(f32::from_le_bytes(p.try_into().unwrap()));
                    (part(re), part(im))
                })
                .collect(),
            None => pairs(tensor.float_data.iter().map(|&v| f64::from(v))),
        }),
        DataType::Complex128 => Elements::Complex(match raw {
            Some(raw) => chunks(raw)
                .map(|b: [u8; 16]| {
                    let (re, im) = b.split_at(8);
                    let part = |p: &[u8]| f64::from_le_bytes(p.try_into().unwrap());
                    (part(re), part(im))
                })
                .collect(),
            None => pairs(tensor.double_data.iter().copied()),
        }),
        DataType::Float16 => floats(tensor, 2, |c| FLOAT16.decode(c)),
        DataType::Bfloat16 => floats(tensor, 2, bfloat16),
        DataType::Float8e4m3fn => floats(tensor, 1, |c| FLOAT8E4M3FN.decode(c)),
        DataType::Float8e4m3fnuz => floats(tensor, 1, |c| FLOAT8E4M3FNUZ.decode(c)),
        DataType::Float8e5m2 => floats(tensor, 1, |c| FLOAT8E5M2.decode(c)),
        DataType::Float8e5m2fnuz => floats(tensor, 1, |c| FLOAT8E5M2FNUZ.decode(c)),
        DataType::Float8e8m0 => floats(tensor, 1, float8e8m0),
        DataType::Float4e2m1 => Elements::Float(
            packed(tensor, 4, count)?
                .into_iter()
                .map(|c| FLOAT4E2M1.decode(c))
                .collect(),
        ),
        DataType::Float6e2m3 | DataType::Float6e3m2 => {
            let format = if data_type == DataType::Float6e2m3 {
                FLOAT6E2M3
            } else {
                FLOAT6E3M2
            };
            // int32_data holds one 6-bit code per entry; raw_data the packed stream.
            let codes = match raw {
                Some(raw) => unpack(raw, 6, count)?,
                None => tensor.int32_data.iter().map(|&c| c as u32 & 0x3f).collect(),
            };
            Elements::Float(codes.into_iter().map(|c| format.decode(c)).collect())
        }
        DataType::Uint4 => Elements::Int(
            packed(tensor, 4, count)?
                .into_iter()
                .map(i128::from)
                .collect(),
        ),
        DataType::Int4 => Elements::Int(
            packed(tensor, 4, count)?
                .into_iter()
                .map(|c| signed(c, 4))
                .collect(),
        ),
        DataType::Uint2 => Elements::Int(
            packed(tensor, 2, count)?
                .into_iter()
                .map(i128::from)
                .collect(),
        ),
        DataType::Int2 => Elements::Int(
            packed(tensor, 2, count)?
                .into_iter()
                .map(|c| signed(c, 2))
                .collect(),
        ),
        DataType::Bool => Elements::Bool(match raw {
            Some(raw) => raw.iter().map(|&b| b != 0).collect(),
            None => tensor.int32_data.iter().map(|&v| v != 0).collect(),
        }),
        DataType::Int8 => ints(raw, &tensor.int32_data, |b: [u8; 1]| {
            i8::from_le_bytes(b).into()
        }),
        DataType::Uint8 => ints(raw, &tensor.int32_data, |b: [u8; 1]| {
            u8::from_le_bytes(b).into()
        }),
        DataType::Int16 => ints(raw, &tensor.int32_data, |b: [u8; 2]| {
            i16::from_le_bytes(b).into()
        }),
        DataType::Uint16 => ints(raw, &tensor.int32_data, |b: [u8; 2]| {
            u16::from_le_bytes(b).into()
        }),
        DataType::Int32 => ints(raw, &tensor.int32_data, |b: [u8; 4]| {
            i32::from_le_bytes(b).into()
        }),
        DataType::Int64 => ints(raw, &tensor.int64_data, |b: [u8; 8]| {
            i64::from_le_bytes(b).into()
        }),
        DataType::Uint32 => ints(raw, &tensor.uint64_data, |b: [u8; 4]| {
            u32::from_le_bytes(b).into()
        }),
        DataType::Uint64 => ints(raw, &tensor.uint64_data, |b: [u8; 8]| {
            u64::from_le_bytes(b).into()
        }),
        DataType::String => Elements::String(tensor.string_data.clone()),
        DataType::Undefined => return Err("a tensor of undefined element type".to_string()),
    };
    if elements.len() != count {
        return Err(format!(
            "{} elements where dims {:?} give {count}",
            elements.len(),
            tensor.dims
        ));
    }
    Ok(elements)
}

fn pairs(values: impl Iterator<Item = f64>) -> Vec<(f64, f64)> {
    let values: Vec<f64> = values.collect();
    values.chunks_exact(2).map(|p| (p[0], p[1])).collect()
}

/// A type stored as `width`-byte codes in raw_data, or one code per int32_data entry.
fn floats(tensor: &TensorProto, width: usize, decode: impl Fn(u32) -> f64) -> Elements {
    let codes: Vec<u32> = match tensor.raw_data.as_deref() {
        Some(raw) if width == 2 => chunks(raw)
            .map(|b| u32::from(u16::from_le_bytes(b)))
            .collect(),
        Some(raw) => raw.iter().map(|&b| u32::from(b)).collect(),
        None => tensor
            .int32_data
            .iter()
            .map(|&c| c as u32 & ((1 << (8 * width)) - 1))
            .collect(),
    };
    Elements::Float(codes.into_iter().map(decode).collect())
}

/// The codes of a packed type: raw_data is the packed stream, and so is int32_data, one byte of
/// it per entry.
fn packed(tensor: &TensorProto, bits: usize, count: usize) -> Result<Vec<u32>, String> {
    match tensor.raw_data.as_deref() {
        Some(raw) => unpack(raw, bits, count),
        None => {
            let bytes: Vec<u8> = tensor.int32_data.iter().map(|&b| b as u8).collect();
            unpack(&bytes, bits, count)
        }
    }
}

fn signed(code: u32, bits: u32) -> i128 {
    let shift = 32 - bits;
    i128::from(((code << shift) as i32) >> shift)
}

fn ints<const N: usize, T: Copy + Into<i128>>(
    raw: Option<&[u8]>,
    typed: &[T],
    from_le: impl Fn([u8; N]) -> i128,
) -> Elements {
    Elements::Int(match raw {
        Some(raw) => chunks(raw).map(from_le).collect(),
        None => typed.iter().map(|&v| v.into()).collect(),
    })
}

impl Elements {
    pub(crate) fn len(&self) -> usize {
        match self {
            Elements::Float(v) => v.len(),
            Elements::Complex(v) => v.len(),
            Elements::Int(v) => v.len(),
            Elements::Bool(v) => v.len(),
            Elements::String(v) => v.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Value, cases};
    use std::collections::BTreeSet;

    /// A "runtime" that casts with this decoder: onnx's Cast and CastLike cases from each small
    /// type to float32 (or int8/uint8) check the decoder against onnx's own conversion.
    #[test]
    fn decoding_agrees_with_onnxs_casts_from_every_small_type() {
        let mut covered = BTreeSet::new();
        for case in cases()
            .iter()
            .filter(|c| ["Cast", "CastLike"].contains(&c.op_type()))
        {
            let (Value::Tensor(input), Value::Tensor(expected)) =
                (&case.inputs()[0], &case.outputs()[0])
            else {
                continue;
            };
            let (from, to) = (input.data_type(), expected.data_type());
            let raw: Vec<u8> = match (decode(input).unwrap(), DataType::try_from(to).unwrap()) {
                (Elements::Float(v), DataType::Float) => {
                    v.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect()
                }
                (Elements::Int(v), DataType::Int8 | DataType::Uint8) => {
                    v.iter().map(|&x| x as u8).collect()
                }
                (Elements::Int(v), DataType::Float) => {
                    v.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect()
                }
                _ => continue,
            };
            let output = TensorProto {
                dims: expected.dims.clone(),
                data_type: Some(to),
                raw_data: Some(raw),
                ..Default::default()
            };
            if let Err(mismatch) = case.check(&[Value::Tensor(output)]) {
                panic!("{mismatch}");
            }
            covered.insert(DataType::try_from(from).unwrap().as_str_name());
        }
        let small = [
            "FLOAT16",
            "BFLOAT16",
            "FLOAT8E4M3FN",
            "FLOAT8E4M3FNUZ",
            "FLOAT8E5M2",
            "FLOAT8E5M2FNUZ",
            "FLOAT8E8M0",
            "FLOAT4E2M1",
            "INT4",
            "UINT4",
            "INT2",
            "UINT2",
        ];
        let missing: Vec<&str> = small.into_iter().filter(|t| !covered.contains(t)).collect();
        assert!(
            missing.is_empty(),
            "no cast case checks {missing:?}; checked {covered:?}"
        );
    }

    /// The landmarks of each small float kind (largest finite value, NaN, infinity, smallest
    /// subnormal), including the float6 kinds no case uses. Each expected value is what
    /// ml_dtypes (onnx 1.23.2's dependency for these types) gives for that code.
    #[test]
    fn landmarks_of_the_small_float_kinds() {
        assert_eq!(FLOAT8E4M3FN.decode(0x7e), 448.0);
        assert!(FLOAT8E4M3FN.decode(0x7f).is_nan() && FLOAT8E4M3FN.decode(0xff).is_nan());
        assert_eq!(FLOAT8E4M3FN.decode(0x01), 2f64.powi(-9));
        assert_eq!(FLOAT8E4M3FNUZ.decode(0x7f), 240.0);
        assert!(FLOAT8E4M3FNUZ.decode(0x80).is_nan());
        assert_eq!(FLOAT8E5M2.decode(0x7b), 57344.0);
        assert_eq!(FLOAT8E5M2.decode(0xfc), f64::NEG_INFINITY);
        assert!(FLOAT8E5M2.decode(0x7d).is_nan());
        assert_eq!(FLOAT8E5M2FNUZ.decode(0x7f), 57344.0);
        assert!(FLOAT8E5M2FNUZ.decode(0x80).is_nan());
        assert_eq!(float8e8m0(0), 2f64.powi(-127));
        assert!(float8e8m0(0xff).is_nan());
        assert_eq!(FLOAT4E2M1.decode(0x7), 6.0);
        assert_eq!(FLOAT4E2M1.decode(0x9), -0.5);
        assert_eq!(FLOAT6E2M3.decode(0x1f), 7.5);
        assert_eq!(FLOAT6E3M2.decode(0x1f), 28.0);
        assert_eq!(FLOAT16.decode(0x7bff), 65504.0);
    }
}
