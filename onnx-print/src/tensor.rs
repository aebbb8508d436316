//! Tensor data: the `{…}` after a tensor constant's type and name.
//!
//! The reference prints the typed field that the parser would fill (see `dtype::Storage`), and
//! decodes `raw_data` (little-endian) into the same lists. It prints `...` for what it does not
//! handle: packed sub-byte types, complex numbers and unknown types. The lossless style prints
//! those too (their typed fields, and their `raw_data` in the form of those fields), keeping
//! `...` only where no list can stand for the data: `raw_data` of a string tensor or of the wrong
//! size, and unknown element types.

use super::{Printer, Style, number};
use onnx_runtime_types::TensorProto;
use onnx_syntax::dtype::{Storage, elem_type_by_number};

// `TensorProto.DataType` numbers.
const UINT8: i32 = 2;
const INT8: i32 = 3;
const UINT16: i32 = 4;
const INT16: i32 = 5;
const INT32: i32 = 6;
const INT64: i32 = 7;
const STRING: i32 = 8;
const BOOL: i32 = 9;
const FLOAT16: i32 = 10;
const DOUBLE: i32 = 11;
const UINT32: i32 = 12;
const UINT64: i32 = 13;
const COMPLEX64: i32 = 14;
const COMPLEX128: i32 = 15;
const BFLOAT16: i32 = 16;
const FLOAT8E4M3FN: i32 = 17;
const FLOAT8E5M2FNUZ: i32 = 20;
const UINT4: i32 = 21;
const INT4: i32 = 22;
const FLOAT4E2M1: i32 = 23;
const FLOAT8E8M0: i32 = 24;
const UINT2: i32 = 25;
const INT2: i32 = 26;
const FLOAT6E2M3: i32 = 27;
const FLOAT6E3M2: i32 = 28;
const FLOAT: i32 = 1;

/// True for the types whose typed-field data the reference prints (the others print `...`).
fn reference_prints_typed(data_type: i32) -> bool {
    matches!(
        data_type,
        FLOAT
            | UINT8
            | INT8
            | UINT16
            | INT16
            | INT32
            | INT64
            | STRING
            | BOOL
            | FLOAT16
            | DOUBLE
            | UINT32
            | UINT64
            | BFLOAT16
            | FLOAT8E4M3FN..=FLOAT8E5M2FNUZ | FLOAT8E8M0
    )
}

/// Appends the data of `tensor` (not external): ` {1,2}`, `{"a", "b"}` or `...`.
pub(super) fn data<const M: bool>(p: &mut Printer<'_, M>, tensor: &TensorProto) {
    let data_type = tensor.data_type.unwrap_or(0);
    if let Some(raw) = &tensor.raw_data {
        if !raw_data(p, data_type, raw, &tensor.dims) {
            p.out.push_str("...");
        }
        return;
    }
    let storage = elem_type_by_number(data_type).map(|info| info.storage);
    let printable = match p.style {
        Style::Reference => reference_prints_typed(data_type),
        Style::Lossless => storage.is_some(),
    };
    if !printable {
        p.out.push_str("...");
        return;
    }
    match storage {
        Some(Storage::Int32) => ints(p, tensor.int32_data.iter().copied()),
        Some(Storage::Int64) => ints(p, tensor.int64_data.iter().copied()),
        Some(Storage::Uint64) => ints(p, tensor.uint64_data.iter().copied()),
        Some(Storage::Float) => floats(p, tensor.float_data.iter().copied()),
        Some(Storage::Double) => floats(p, tensor.double_data.iter().copied()),
        Some(Storage::String) => {
            // No space before `{` here, unlike the numeric lists: the reference's layout. It
            // opens the list with its first element, so that no data prints as `}`.
            if tensor.string_data.is_empty() && p.style == Style::Reference {
                p.out.push('}');
                return;
            }
            p.out.push('{');
            for (i, s) in tensor.string_data.iter().enumerate() {
                if i > 0 {
                    p.out.push_str(", ");
                }
                p.quoted_bytes(s);
            }
            p.out.push('}');
        }
        None => p.out.push_str("..."),
    }
}

fn ints<T: Into<i128>, const M: bool>(p: &mut Printer<'_, M>, values: impl Iterator<Item = T>) {
    p.out.push_str(" {");
    for (i, v) in values.enumerate() {
        if i > 0 {
            p.out.push(',');
        }
        p.int(v);
    }
    p.out.push('}');
}

fn floats<F: number::ShortestFloat, const M: bool>(
    p: &mut Printer<'_, M>,
    values: impl Iterator<Item = F>,
) {
    p.out.push_str(" {");
    for (i, v) in values.enumerate() {
        if i > 0 {
            p.out.push(',');
        }
        number::write_float(p.out, v);
    }
    p.out.push('}');
}

/// Little-endian elements of `N` bytes; `None` if the size is not a multiple of `N`.
fn chunks<const N: usize>(raw: &[u8]) -> Option<impl Iterator<Item = [u8; N]> + '_> {
    if !raw.len().is_multiple_of(N) {
        return None;
    }
    Some(
        raw.chunks_exact(N)
            .map(|c| <[u8; N]>::try_from(c).unwrap_or([0; N])),
    )
}

/// Prints `raw` decoded for `data_type`; false if it cannot be printed as a list.
fn raw_data<const M: bool>(
    p: &mut Printer<'_, M>,
    data_type: i32,
    raw: &[u8],
    dims: &[i64],
) -> bool {
    macro_rules! raw_ints {
        ($t:ty, $n:literal) => {
            match chunks::<$n>(raw) {
                Some(it) => {
                    ints(p, it.map(<$t>::from_le_bytes));
                    true
                }
                None => false,
            }
        };
    }
    macro_rules! raw_floats {
        ($t:ty, $n:literal) => {
            match chunks::<$n>(raw) {
                Some(it) => {
                    floats(p, it.map(<$t>::from_le_bytes));
                    true
                }
                None => false,
            }
        };
    }
    let lossless = p.style == Style::Lossless;
    match data_type {
        INT8 => raw_ints!(i8, 1),
        UINT8 | BOOL | FLOAT8E4M3FN..=FLOAT8E5M2FNUZ | FLOAT8E8M0 => raw_ints!(u8, 1),
        INT16 => raw_ints!(i16, 2),
        UINT16 | FLOAT16 | BFLOAT16 => raw_ints!(u16, 2),
        INT32 => raw_ints!(i32, 4),
        UINT32 => raw_ints!(u32, 4),
        INT64 => raw_ints!(i64, 8),
        UINT64 => raw_ints!(u64, 8),
        FLOAT => raw_floats!(f32, 4),
        DOUBLE => raw_floats!(f64, 8),
        // Interleaved real and imaginary parts, as in float_data and double_data.
        COMPLEX64 if lossless => raw_floats!(f32, 4),
        COMPLEX128 if lossless => raw_floats!(f64, 8),
        // Packed 4-bit and 2-bit types: int32_data holds one packed byte per entry, as raw_data.
        UINT4 | INT4 | FLOAT4E2M1 | UINT2 | INT2 if lossless => raw_ints!(u8, 1),
        // 6-bit types: raw_data is a packed bit stream, int32_data one element per entry.
        FLOAT6E2M3 | FLOAT6E3M2 if lossless => match unpack_6bit(raw, dims) {
            Some(values) => {
                ints(p, values.into_iter());
                true
            }
            None => false,
        },
        _ => false,
    }
}

/// The elements of a packed 6-bit stream (least significant bits first), as many as the dims
/// say; `None` if the dims are invalid or the data is too short.
fn unpack_6bit(raw: &[u8], dims: &[i64]) -> Option<Vec<u8>> {
    let count = dims.iter().try_fold(1u64, |acc, &d| {
        u64::try_from(d).ok().and_then(|d| acc.checked_mul(d))
    })?;
    let bits = count.checked_mul(6)?;
    if bits.div_ceil(8) > raw.len() as u64 {
        return None;
    }
    Some(
        (0..count as usize)
            .map(|i| {
                let bit = i * 6;
                let (byte, shift) = (bit / 8, bit % 8);
                let lo = u16::from(raw[byte]);
                let hi = u16::from(raw.get(byte + 1).copied().unwrap_or(0));
                (((lo | (hi << 8)) >> shift) & 0x3F) as u8
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::unpack_6bit;

    #[test]
    fn six_bit_stream_matches_the_reference_layout() {
        // onnx.numpy_helper._pack_6bit([1, 2, 3, 4, 63]) == b"\x81\x30\x10\x3f"
        assert_eq!(
            unpack_6bit(&[0x81, 0x30, 0x10, 0x3f], &[5]),
            Some(vec![1, 2, 3, 4, 63])
        );
        assert_eq!(unpack_6bit(&[0x81], &[2]), None);
        assert_eq!(unpack_6bit(&[], &[-1]), None);
    }
}
