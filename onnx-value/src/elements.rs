//! A tensor's elements, decoded from `raw_data` or its typed field into plain numbers, and
//! encoded back, for every element type onnx 1.23.2 defines, including the ones no Rust type
//! holds (the float8, float6 and float4 kinds, 4-bit and 2-bit integers). This is the one place
//! that knows how those types are stored: the conformance kit and the evaluator both use it.
//!
//! ```
//! use onnx_value::elements::{self, Elements};
//! use onnx_runtime_types::tensor_proto::DataType;
//!
//! // 0.3 is no float8e4m3fn: it rounds to the nearest one, 0.3125.
//! let tensor = elements::encode(DataType::Float8e4m3fn, &[2], &Elements::Float(vec![0.3, -448.0]), true).unwrap();
//! assert_eq!(tensor.raw_data.as_deref(), Some(&[0x2a, 0xfe][..]));
//! assert_eq!(elements::decode(&tensor).unwrap(), Elements::Float(vec![0.3125, -448.0]));
//! ```

use onnx_runtime_types::TensorProto;
use onnx_runtime_types::tensor_proto::DataType;

/// The elements of one tensor, row-major, each element type widened to the one Rust type that
/// holds all its values exactly.
///
/// ```
/// use onnx_value::elements::Elements;
///
/// assert_eq!(Elements::Int(vec![1, -2, 3]).len(), 3);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Elements {
    /// Every floating type, widened exactly to f64.
    Float(Vec<f64>),
    /// complex64 and complex128, as (real, imaginary).
    Complex(Vec<(f64, f64)>),
    /// Every signed and unsigned integer type (uint64 fits i128).
    Int(Vec<i128>),
    /// bool.
    Bool(Vec<bool>),
    /// string, as bytes (onnx's strings need not be UTF-8).
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

/// The code of `value` in an IEEE binary format of `exponent` and `mantissa` bits (the top
/// exponent is infinity and NaN), rounded to nearest, ties to even; a NaN stays a quiet NaN of
/// its sign with its top payload bits.
fn ieee_half_code(value: f64, exponent: u32, mantissa: u32) -> u16 {
    let bits = value.to_bits();
    let sign = ((bits >> 63) as u16) << (exponent + mantissa);
    let biased = ((bits >> 52) & 0x7ff) as i64;
    let fraction = bits & ((1 << 52) - 1);
    let top = (1i64 << exponent) - 1;
    let infinity = sign | ((top as u16) << mantissa);
    if biased == 0x7ff {
        let nan = if fraction == 0 {
            0
        } else {
            (1 << (mantissa - 1)) | (fraction >> (52 - mantissa)) as u16
        };
        return infinity | nan;
    }
    if biased == 0 {
        // f64's subnormals are far below the smallest subnormal of float16.
        return sign;
    }
    let e = biased - 1023 + (1 << (exponent - 1)) - 1;
    if e >= top {
        return infinity;
    }
    let significand = fraction | (1 << 52);
    // How far the significand moves right: to `mantissa` bits after the leading one, and for a
    // subnormal of the format (e <= 0) further, by how far its exponent is below the least.
    let shift = 52 - i64::from(mantissa) + if e <= 0 { 1 - e } else { 0 };
    if shift > 53 {
        // Below half the smallest subnormal.
        return sign;
    }
    let kept = significand >> shift;
    let half = 1u64 << (shift - 1);
    // Up when past the halfway point, or on it with an odd last kept bit.
    let up = significand & half != 0 && significand & (3 * half - 1) != 0;
    let code = if e <= 0 {
        kept
    } else {
        ((e as u64) << mantissa) | (kept & ((1 << mantissa) - 1))
    };
    // A carry out of the mantissa moves into the exponent, up to infinity, as it should.
    sign | (code + u64::from(up)) as u16
}

/// The float16 code of `value`: the nearest, ties to even, overflow to infinity; a NaN stays a
/// quiet NaN of its sign.
///
/// ```
/// use onnx_value::elements::float16_code;
/// assert_eq!(float16_code(1.0), 0x3c00);
/// assert_eq!(float16_code(65520.0), 0x7c00); // halfway past the largest: infinity
/// ```
pub fn float16_code(value: f64) -> u16 {
    ieee_half_code(value, 5, 10)
}

/// The bfloat16 code of a value: rounded to float32 first, then to its top 16 bits, ties to
/// even, as ml_dtypes and Eigen (and so onnx's reference) cast a double to bfloat16; a NaN
/// stays a (quiet) NaN of its sign.
///
/// ```
/// use onnx_value::elements::bfloat16_code;
/// assert_eq!(bfloat16_code(1.0), 0x3f80);
/// ```
pub fn bfloat16_code(value: f64) -> u16 {
    let bits = (value as f32).to_bits();
    if value.is_nan() {
        return ((bits >> 16) | 0x0040) as u16;
    }
    // Adding just under half of the dropped part, plus the kept part's lowest bit, carries
    // into the kept part exactly when rounding to nearest, ties to even, goes up (an overflow
    // carries into the exponent: infinity).
    let lowest = (bits >> 16) & 1;
    ((bits + 0x7fff + lowest) >> 16) as u16
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
    let mut codes = Vec::with_capacity(count);
    for i in 0..count {
        let mut code = 0u32;
        for bit in 0..bits {
            let at = i * bits + bit;
            code |= u32::from((bytes[at / 8] >> (at % 8)) & 1) << bit;
        }
        codes.push(code);
    }
    Ok(codes)
}

// The conversions below are loops over plain functions (`fn` pointers, which capture-free
// closures coerce to), not `map(closure).collect()` chains: each closure is a type of its own,
// and each chain monomorphized `Map`, `fold`, `from_iter`, `extend_trusted` and `size_hint`
// for it, most of this crate's build (which a runtime's test build with the kit waits for).
// A helper is compiled once per pair of types instead.

/// `f` of each `N`-byte chunk of `raw` (a trailing partial chunk is left out, and the count
/// check of the caller finds it).
pub(crate) fn from_chunks<const N: usize, U>(raw: &[u8], f: fn([u8; N]) -> U) -> Vec<U> {
    let mut values = Vec::with_capacity(raw.len() / N);
    for chunk in raw.chunks_exact(N) {
        values.push(f(chunk.try_into().expect("chunks_exact gives N bytes")));
    }
    values
}

/// `f` of each item.
pub(crate) fn each<T: Copy, U>(items: &[T], f: fn(T) -> U) -> Vec<U> {
    let mut values = Vec::with_capacity(items.len());
    for &item in items {
        values.push(f(item));
    }
    values
}

/// The bytes of `f` of each value, one after the other.
fn to_bytes<T: Copy, const N: usize>(values: &[T], f: fn(T) -> [u8; N]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(values.len() * N);
    for &value in values {
        bytes.extend_from_slice(&f(value));
    }
    bytes
}

/// The number of elements the dims give, as onnx counts them (no dims: a scalar).
///
/// ```
/// use onnx_runtime_types::TensorProto;
///
/// let tensor = TensorProto { dims: vec![2, 3], ..Default::default() };
/// assert_eq!(onnx_value::elements::element_count(&tensor), Ok(6));
/// ```
pub fn element_count(tensor: &TensorProto) -> Result<usize, String> {
    tensor.dims.iter().try_fold(1usize, |n, &d| {
        usize::try_from(d)
            .ok()
            .and_then(|d| n.checked_mul(d))
            .ok_or(format!("dims {:?}", tensor.dims))
    })
}

/// Decodes a tensor's elements. Errors name what cannot be read (an unknown element type, data
/// of the wrong length, external data).
///
/// ```
/// use onnx_runtime_types::{TensorProto, tensor_proto::DataType};
/// use onnx_value::elements::{Elements, decode};
///
/// // Two int4 values packed in one byte, low nibble first.
/// let tensor = TensorProto { dims: vec![2], data_type: Some(DataType::Int4 as i32), raw_data: Some(vec![0xf3]), ..Default::default() };
/// assert_eq!(decode(&tensor), Ok(Elements::Int(vec![3, -1])));
/// ```
pub fn decode(tensor: &TensorProto) -> Result<Elements, String> {
    let count = element_count(tensor)?;
    let ty = tensor.data_type.unwrap_or(0);
    let data_type = DataType::try_from(ty).map_err(|_| format!("unknown element type {ty}"))?;
    if !tensor.external_data.is_empty() {
        return Err("a tensor with external data".to_string());
    }
    let raw = tensor.raw_data.as_deref();
    let elements = match data_type {
        DataType::Float => Elements::Float(match raw {
            Some(raw) => from_chunks(raw, |b| f64::from(f32::from_le_bytes(b))),
            None => each(&tensor.float_data, f64::from),
        }),
        DataType::Double => Elements::Float(match raw {
            Some(raw) => from_chunks(raw, f64::from_le_bytes),
            None => tensor.double_data.clone(),
        }),
        DataType::Complex64 => Elements::Complex(match raw {
            Some(raw) => from_chunks(raw, |b: [u8; 8]| {
                let (re, im) = b.split_at(4);
                let part = |p: &[u8]| f64::from(f32::from_le_bytes(p.try_into().unwrap()));
                (part(re), part(im))
            }),
            None => pairs(&each(&tensor.float_data, f64::from)),
        }),
        DataType::Complex128 => Elements::Complex(match raw {
            Some(raw) => from_chunks(raw, |b: [u8; 16]| {
                let (re, im) = b.split_at(8);
                let part = |p: &[u8]| f64::from_le_bytes(p.try_into().unwrap());
                (part(re), part(im))
            }),
            None => pairs(&tensor.double_data),
        }),
        DataType::Float16 => floats(tensor, 2, |c| FLOAT16.decode(c)),
        DataType::Bfloat16 => floats(tensor, 2, bfloat16),
        DataType::Float8e4m3fn => floats(tensor, 1, |c| FLOAT8E4M3FN.decode(c)),
        DataType::Float8e4m3fnuz => floats(tensor, 1, |c| FLOAT8E4M3FNUZ.decode(c)),
        DataType::Float8e5m2 => floats(tensor, 1, |c| FLOAT8E5M2.decode(c)),
        DataType::Float8e5m2fnuz => floats(tensor, 1, |c| FLOAT8E5M2FNUZ.decode(c)),
        DataType::Float8e8m0 => floats(tensor, 1, float8e8m0),
        DataType::Float4e2m1 => {
            Elements::Float(each(&packed(tensor, 4, count)?, |c| FLOAT4E2M1.decode(c)))
        }
        DataType::Float6e2m3 | DataType::Float6e3m2 => {
            // int32_data holds one 6-bit code per entry; raw_data the packed stream.
            let codes = match raw {
                Some(raw) => unpack(raw, 6, count)?,
                None => each(&tensor.int32_data, |c| c as u32 & 0x3f),
            };
            Elements::Float(if data_type == DataType::Float6e2m3 {
                each(&codes, |c| FLOAT6E2M3.decode(c))
            } else {
                each(&codes, |c| FLOAT6E3M2.decode(c))
            })
        }
        DataType::Uint4 => Elements::Int(each(&packed(tensor, 4, count)?, i128::from)),
        DataType::Int4 => Elements::Int(each(&packed(tensor, 4, count)?, |c| signed(c, 4))),
        DataType::Uint2 => Elements::Int(each(&packed(tensor, 2, count)?, i128::from)),
        DataType::Int2 => Elements::Int(each(&packed(tensor, 2, count)?, |c| signed(c, 2))),
        DataType::Bool => Elements::Bool(match raw {
            Some(raw) => each(raw, |b| b != 0),
            None => each(&tensor.int32_data, |v| v != 0),
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

/// (real, imaginary) pairs of consecutive values.
fn pairs(values: &[f64]) -> Vec<(f64, f64)> {
    let mut pairs = Vec::with_capacity(values.len() / 2);
    for pair in values.chunks_exact(2) {
        pairs.push((pair[0], pair[1]));
    }
    pairs
}

/// A type stored as `width`-byte codes in raw_data, or one code per int32_data entry.
fn floats(tensor: &TensorProto, width: usize, decode: fn(u32) -> f64) -> Elements {
    let codes: Vec<u32> = match tensor.raw_data.as_deref() {
        Some(raw) if width == 2 => from_chunks(raw, |b| u32::from(u16::from_le_bytes(b))),
        Some(raw) => each(raw, u32::from),
        None if width == 2 => each(&tensor.int32_data, |c| c as u32 & 0xffff),
        None => each(&tensor.int32_data, |c| c as u32 & 0xff),
    };
    Elements::Float(each(&codes, decode))
}

/// The codes of a packed type: raw_data is the packed stream, and so is int32_data, one byte of
/// it per entry.
fn packed(tensor: &TensorProto, bits: usize, count: usize) -> Result<Vec<u32>, String> {
    match tensor.raw_data.as_deref() {
        Some(raw) => unpack(raw, bits, count),
        None => unpack(&each(&tensor.int32_data, |b| b as u8), bits, count),
    }
}

fn signed(code: u32, bits: u32) -> i128 {
    let shift = 32 - bits;
    i128::from(((code << shift) as i32) >> shift)
}

fn ints<const N: usize, T: Copy + Into<i128>>(
    raw: Option<&[u8]>,
    typed: &[T],
    from_le: fn([u8; N]) -> i128,
) -> Elements {
    Elements::Int(match raw {
        Some(raw) => from_chunks(raw, from_le),
        None => each(typed, T::into),
    })
}

impl Elements {
    /// The number of elements.
    ///
    /// ```
    /// assert_eq!(onnx_value::elements::Elements::Bool(vec![true]).len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        match self {
            Elements::Float(v) => v.len(),
            Elements::Complex(v) => v.len(),
            Elements::Int(v) => v.len(),
            Elements::Bool(v) => v.len(),
            Elements::String(v) => v.len(),
        }
    }

    /// Whether there are no elements.
    ///
    /// ```
    /// assert!(onnx_value::elements::Elements::Float(vec![]).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl MiniFloat {
    /// The largest finite code's magnitude bits (sign clear).
    fn max_code(self) -> u32 {
        let top_exponent = (1 << self.exponent_bits) - 1;
        let all_mantissa = (1 << self.mantissa_bits) - 1;
        match self.special {
            // The top exponent is infinity and NaN.
            Special::Ieee => ((top_exponent - 1) << self.mantissa_bits) | all_mantissa,
            // All ones is the NaN, one below it the largest value.
            Special::AllOnesNan => (top_exponent << self.mantissa_bits) | (all_mantissa - 1),
            Special::NoNan | Special::NegativeZeroNan => {
                (top_exponent << self.mantissa_bits) | all_mantissa
            }
        }
    }

    fn sign_bit(self) -> u32 {
        1 << (self.exponent_bits + self.mantissa_bits)
    }

    fn nan(self, negative: bool) -> u32 {
        let sign = if negative { self.sign_bit() } else { 0 };
        match self.special {
            Special::Ieee => sign | ((1 << (self.exponent_bits + self.mantissa_bits)) - 1),
            Special::AllOnesNan => sign | (self.max_code() + 1),
            Special::NegativeZeroNan => self.sign_bit(),
            // No NaN to give: the largest value, as ml_dtypes' casts do.
            Special::NoNan => sign | self.max_code(),
        }
    }

    /// The code of each value, as [`MiniFloat::encode`] rounds it.
    fn encode_all(self, values: &[f64], saturate: bool) -> Vec<u32> {
        let mut codes = Vec::with_capacity(values.len());
        for &value in values {
            codes.push(self.encode(value, saturate));
        }
        codes
    }

    /// The code nearest to `value`, ties to the even code; out of range gives the largest finite
    /// value when `saturate` (and always for the kinds with neither infinity nor NaN), else
    /// infinity or NaN as the kind has.
    fn encode(self, value: f64, saturate: bool) -> u32 {
        let negative = value.is_sign_negative();
        if value.is_nan() {
            return self.nan(negative);
        }
        let sign = if negative { self.sign_bit() } else { 0 };
        let magnitude = value.abs();
        let max_code = self.max_code();
        let max = self.decode(max_code);
        let overflow = || {
            if saturate || self.special == Special::NoNan {
                sign | max_code
            } else if self.special == Special::Ieee {
                sign | (((1 << self.exponent_bits) - 1) << self.mantissa_bits)
            } else {
                self.nan(negative)
            }
        };
        if magnitude.is_infinite() {
            return overflow();
        }
        // Codes of one sign grow with their value: find the two around the magnitude.
        let (mut low, mut high) = (0u32, max_code);
        if magnitude >= max {
            // Past the largest value by half a step or more rounds away, as IEEE rounding does.
            let step = max - self.decode(max_code - 1);
            let beyond = magnitude - max;
            return if beyond < step / 2.0 || (beyond == step / 2.0 && max_code.is_multiple_of(2)) {
                sign | max_code
            } else {
                overflow()
            };
        }
        while high - low > 1 {
            let middle = (low + high) / 2;
            if self.decode(middle) <= magnitude {
                low = middle;
            } else {
                high = middle;
            }
        }
        let (below, above) = (self.decode(low), self.decode(high));
        let code = if magnitude - below < above - magnitude
            || (magnitude - below == above - magnitude && low.is_multiple_of(2))
        {
            low
        } else {
            high
        };
        // fnuz kinds have no negative zero: its code is the NaN.
        if code == 0 && self.special == Special::NegativeZeroNan {
            0
        } else {
            sign | code
        }
    }
}

/// The format of a small floating type, if it is one this module rounds itself.
fn mini_float(data_type: DataType) -> Option<MiniFloat> {
    Some(match data_type {
        DataType::Float8e4m3fn => FLOAT8E4M3FN,
        DataType::Float8e4m3fnuz => FLOAT8E4M3FNUZ,
        DataType::Float8e5m2 => FLOAT8E5M2,
        DataType::Float8e5m2fnuz => FLOAT8E5M2FNUZ,
        DataType::Float6e2m3 => FLOAT6E2M3,
        DataType::Float6e3m2 => FLOAT6E3M2,
        DataType::Float4e2m1 => FLOAT4E2M1,
        _ => return None,
    })
}

/// Rounds a value to the nearest value of a small floating type (the float8, float6 and float4
/// kinds), ties to even, as onnx's `Cast` does: `saturate` clamps values out of range to the
/// largest finite one, else they become infinity (e5m2) or NaN (the kinds without infinity).
/// `None` for other element types.
///
/// ```
/// use onnx_runtime_types::tensor_proto::DataType;
/// use onnx_value::elements::round_to;
///
/// assert_eq!(round_to(DataType::Float4e2m1, 2.6, true), Some(3.0));
/// assert_eq!(round_to(DataType::Float8e4m3fn, 1000.0, true), Some(448.0));
/// assert!(round_to(DataType::Float8e4m3fn, 1000.0, false).unwrap().is_nan());
/// assert_eq!(round_to(DataType::Float8e5m2, 1e6, false), Some(f64::INFINITY));
/// ```
pub fn round_to(data_type: DataType, value: f64, saturate: bool) -> Option<f64> {
    let format = mini_float(data_type)?;
    Some(format.decode(format.encode(value, saturate)))
}

/// The `n`-bit codes packed into bytes, least significant bits first.
fn pack(codes: &[u32], bits: usize) -> Vec<u8> {
    let mut bytes = vec![0u8; (codes.len() * bits).div_ceil(8)];
    for (i, &code) in codes.iter().enumerate() {
        for bit in 0..bits {
            if (code >> bit) & 1 == 1 {
                let at = i * bits + bit;
                bytes[at / 8] |= 1 << (at % 8);
            }
        }
    }
    bytes
}

/// Encodes elements as a tensor of `data_type` with `dims`, in `raw_data` (strings in
/// `string_data`), the inverse of [`decode`]. Floats are rounded to the type (ties to even;
/// `saturate` as [`round_to`] says, for the small float kinds), integers wrap to its width.
/// Errors name a kind of elements that the type cannot hold, or a count the dims do not give.
///
/// ```
/// use onnx_runtime_types::tensor_proto::DataType;
/// use onnx_value::elements::{Elements, decode, encode};
///
/// let tensor = encode(DataType::Uint4, &[3], &Elements::Int(vec![1, 2, 15]), false).unwrap();
/// assert_eq!(tensor.raw_data.as_deref(), Some(&[0x21, 0x0f][..]));
/// assert_eq!(decode(&tensor), Ok(Elements::Int(vec![1, 2, 15])));
/// ```
pub fn encode(
    data_type: DataType,
    dims: &[i64],
    elements: &Elements,
    saturate: bool,
) -> Result<TensorProto, String> {
    let mut tensor = TensorProto {
        dims: dims.to_vec(),
        data_type: Some(data_type as i32),
        ..Default::default()
    };
    let count = element_count(&tensor)?;
    if elements.len() != count {
        return Err(format!(
            "{} elements where dims {dims:?} give {count}",
            elements.len()
        ));
    }
    let mismatch = || {
        let kind = match elements {
            Elements::Float(_) => "floats",
            Elements::Complex(_) => "complex numbers",
            Elements::Int(_) => "integers",
            Elements::Bool(_) => "bools",
            Elements::String(_) => "strings",
        };
        Err(format!(
            "{kind} cannot be stored as {}",
            data_type.as_str_name()
        ))
    };
    let raw: Vec<u8> = match (data_type, elements) {
        (DataType::String, Elements::String(v)) => {
            tensor.string_data = v.clone();
            return Ok(tensor);
        }
        (DataType::Float, Elements::Float(v)) => to_bytes(v, |x| (x as f32).to_le_bytes()),
        (DataType::Double, Elements::Float(v)) => to_bytes(v, f64::to_le_bytes),
        // IEEE rounding (ties to even, overflow to infinity), as a float16 or bfloat16 cast does.
        (DataType::Float16, Elements::Float(v)) => to_bytes(v, |x| float16_code(x).to_le_bytes()),
        (DataType::Bfloat16, Elements::Float(v)) => to_bytes(v, |x| bfloat16_code(x).to_le_bytes()),
        (DataType::Float8e8m0, Elements::Float(v)) => each(v, float8e8m0_code),
        (
            DataType::Float4e2m1 | DataType::Float6e2m3 | DataType::Float6e3m2,
            Elements::Float(v),
        ) => {
            let format = mini_float(data_type).expect("a small float kind");
            let codes = format.encode_all(v, saturate);
            pack(
                &codes,
                if data_type == DataType::Float4e2m1 {
                    4
                } else {
                    6
                },
            )
        }
        (_, Elements::Float(v)) if mini_float(data_type).is_some() => {
            let format = mini_float(data_type).expect("a small float kind");
            each(&format.encode_all(v, saturate), |code| code as u8)
        }
        (DataType::Complex64, Elements::Complex(v)) => to_bytes(v, |(re, im)| {
            let (re, im) = ((re as f32).to_le_bytes(), (im as f32).to_le_bytes());
            [re[0], re[1], re[2], re[3], im[0], im[1], im[2], im[3]]
        }),
        (DataType::Complex128, Elements::Complex(v)) => to_bytes(v, |(re, im)| {
            let mut bytes = [0u8; 16];
            bytes[..8].copy_from_slice(&re.to_le_bytes());
            bytes[8..].copy_from_slice(&im.to_le_bytes());
            bytes
        }),
        (DataType::Bool, Elements::Bool(v)) => each(v, u8::from),
        (DataType::Int4 | DataType::Uint4, Elements::Int(v)) => {
            pack(&each(v, |x| x as u32 & 0xf), 4)
        }
        (DataType::Int2 | DataType::Uint2, Elements::Int(v)) => {
            pack(&each(v, |x| x as u32 & 0x3), 2)
        }
        (_, Elements::Int(v)) => {
            let width = match data_type {
                DataType::Int8 | DataType::Uint8 => 1,
                DataType::Int16 | DataType::Uint16 => 2,
                DataType::Int32 | DataType::Uint32 => 4,
                DataType::Int64 | DataType::Uint64 => 8,
                _ => return mismatch(),
            };
            let mut bytes = Vec::with_capacity(v.len() * width);
            for x in v {
                bytes.extend_from_slice(&x.to_le_bytes()[..width]);
            }
            bytes
        }
        _ => return mismatch(),
    };
    tensor.raw_data = Some(raw);
    Ok(tensor)
}

/// float8e8m0's code for a value: the nearest power of two (ties up), NaN for what has none.
fn float8e8m0_code(value: f64) -> u8 {
    if value.is_nan() || value <= 0.0 || value.is_infinite() {
        return 0xff;
    }
    let exponent = value.log2().round() as i32 + 127;
    exponent.clamp(0, 254) as u8
}

#[cfg(test)]
mod tests {
    /// float16 and bfloat16 rounding against half's (a dev-dependency only), on values that
    /// are float32s: every code's
    /// value, the values halfway between neighbours (ties go to the even code), values just
    /// off them, values past the largest finite one, and a spread of others.
    #[test]
    fn float16_and_bfloat16_round_as_half_does() {
        let mut values: Vec<f64> = vec![0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, 1e-30, 1e30];
        for code in 0..=u16::MAX {
            for decoded in [
                half::f16::from_bits(code).to_f64(),
                half::bf16::from_bits(code).to_f64(),
            ] {
                if decoded.is_finite() {
                    values.extend([decoded, decoded * (1.0 + 1e-9), decoded * (1.0 - 1e-9)]);
                }
            }
            let (a, b) = (
                half::f16::from_bits(code).to_f64(),
                half::f16::from_bits(code.wrapping_add(1)).to_f64(),
            );
            values.push((a + b) / 2.0);
            let (a, b) = (
                half::bf16::from_bits(code).to_f64(),
                half::bf16::from_bits(code.wrapping_add(1)).to_f64(),
            );
            values.push((a + b) / 2.0);
        }
        let mut x = 0.123_456_789f64;
        for _ in 0..20_000 {
            x = (x * 7919.0 + 0.5).fract();
            values.push((x - 0.5) * 10f64.powi((x * 80.0) as i32 - 40));
        }
        // Through float32, where half rounds exactly (its float64 paths drop low bits).
        for value in values.into_iter().filter(|v| !v.is_nan()) {
            let single = value as f32;
            let value = f64::from(single);
            let ours = FLOAT16.encode(value, false) as u16;
            let theirs = half::f16::from_f32(single).to_bits();
            assert_eq!(ours, theirs, "float16 of {value:e}");
            let theirs = half::bf16::from_f32(single).to_bits();
            assert_eq!(bfloat16_code(value), theirs, "bfloat16 of {value:e}");
        }
        // float16 rounds a double itself, every bit of it counted: just over half the least
        // subnormal goes up, the halves go to the even code.
        let least = 2f64.powi(-24);
        assert_eq!(
            FLOAT16.encode(least / 2.0 * (1.0 + 2f64.powi(-40)), false),
            1
        );
        assert_eq!(FLOAT16.encode(least / 2.0, false), 0);
        assert_eq!(FLOAT16.encode(least * 1.5, false), 2);
        assert_eq!(FLOAT16.encode(65520.0, false), 0x7c00);
        assert_eq!(FLOAT16.encode(65519.99, false), 0x7bff);
        assert!(FLOAT16.decode(FLOAT16.encode(f64::NAN, false)).is_nan());
        assert!(bfloat16(u32::from(bfloat16_code(f64::NAN))).is_nan());
        assert!(bfloat16(u32::from(bfloat16_code(-f64::NAN))).is_nan());
        // A value just above a bfloat16 tie, that float32 rounds onto the tie: through float32,
        // it goes to the even code (down), as ml_dtypes' cast does.
        let tie = 2f64.powi(-16) * (1.0 + 2f64.powi(-8));
        assert_eq!(bfloat16_code(tie * (1.0 + 1e-9)), 0x3780);
    }

    use super::*;

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

    /// Every code of every small float kind decodes to a value that encodes back to it (NaNs to
    /// a NaN), with and without saturation; halfway between two neighbours goes to the even one.
    #[test]
    fn every_small_float_code_round_trips_and_ties_go_to_even() {
        let kinds = [
            (DataType::Float8e4m3fn, 8),
            (DataType::Float8e4m3fnuz, 8),
            (DataType::Float8e5m2, 8),
            (DataType::Float8e5m2fnuz, 8),
            (DataType::Float6e2m3, 6),
            (DataType::Float6e3m2, 6),
            (DataType::Float4e2m1, 4),
        ];
        for (data_type, bits) in kinds {
            let format = mini_float(data_type).unwrap();
            for code in 0..1u32 << bits {
                let value = format.decode(code);
                for saturate in [false, true] {
                    let back = format.encode(value, saturate);
                    if value.is_nan() {
                        assert!(format.decode(back).is_nan(), "{data_type:?} {code:#x}");
                    } else if !(value.is_infinite() && saturate) {
                        assert_eq!(
                            format.decode(back).to_bits(),
                            value.to_bits(),
                            "{data_type:?} {code:#x}"
                        );
                    }
                }
            }
            // The midpoint of 1 and the next value up rounds down to 1 (its mantissa is even).
            let one = format.encode(1.0, false);
            let next = format.decode(one + 1);
            assert_eq!(
                format.encode((1.0 + next) / 2.0, false),
                one,
                "{data_type:?}"
            );
            let after = format.decode(one + 2);
            assert_eq!(
                format.encode((next + after) / 2.0, false),
                one + 2,
                "{data_type:?}"
            );
        }
    }

    #[test]
    fn encode_refuses_elements_the_type_cannot_hold_and_wrong_counts() {
        let floats = Elements::Float(vec![1.0]);
        assert_eq!(
            encode(DataType::Int32, &[1], &floats, false),
            Err("floats cannot be stored as INT32".to_string())
        );
        assert_eq!(
            encode(DataType::Float, &[2], &floats, false),
            Err("1 elements where dims [2] give 2".to_string())
        );
    }

    /// Every element type onnx defines encodes and decodes back to the same elements.
    #[test]
    fn encode_is_decodes_inverse_for_every_element_type() {
        for ty in 1..=26 {
            let Ok(data_type) = DataType::try_from(ty) else {
                continue;
            };
            let elements = match data_type {
                DataType::String => Elements::String(vec![b"a".to_vec(), vec![0xff]]),
                DataType::Bool => Elements::Bool(vec![true, false]),
                DataType::Complex64 | DataType::Complex128 => {
                    Elements::Complex(vec![(1.0, -2.0), (0.5, 0.0)])
                }
                DataType::Float8e8m0 => Elements::Float(vec![1.0, 0.25]),
                DataType::Int2 => Elements::Int(vec![-2, 1]),
                DataType::Undefined => continue,
                _ if data_type.as_str_name().starts_with("UINT") => Elements::Int(vec![1, 2]),
                _ if data_type.as_str_name().starts_with("INT") => Elements::Int(vec![-7, 3]),
                _ => Elements::Float(vec![-1.5, 0.5]),
            };
            let tensor = encode(data_type, &[2], &elements, false).unwrap();
            assert_eq!(decode(&tensor), Ok(elements), "{data_type:?}");
        }
    }
}
