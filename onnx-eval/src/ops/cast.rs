//! Cast and CastLike, between every element type each version allows: numbers of every width
//! (the float8, float6, float4 and e8m0 kinds rounded by `saturate` and `round_mode`, the 4-bit
//! and 2-bit integers wrapped), bools, and strings both ways. BitCast: the same bits read as
//! another type of their width.

use super::{Ctx, Registry, one, tensor};
use crate::error::KernelResult;
use crate::halves::{bf16, f16};
use crate::tensor::MapEach;
use crate::tensor::{Data, Tensor};
use crate::value::Val;
use ndarray::ArrayD;
use onnx_runtime_types::tensor_proto::DataType;
use onnx_value::elements::round_to;

pub(super) fn register(r: &mut Registry) {
    // One kernel reads the version: `to` is a string at version 1, the element types grow
    // (strings 9, bfloat16 13, float8 19, 4-bit integers 21, float4 23, e8m0 24, 2-bit
    // integers 25, float6 28), `saturate` comes at 19 and `round_mode` at 24.
    r.add("", "Cast", 1, cast);
    r.add("", "CastLike", 15, cast_like);
    r.add("", "BitCast", 26, bitcast);
}

/// The version of Cast that first takes an element type (CastLike follows Cast's versions).
fn introduced(dtype: DataType) -> i64 {
    match dtype {
        DataType::String => 9,
        DataType::Bfloat16 => 13,
        DataType::Float8e4m3fn
        | DataType::Float8e4m3fnuz
        | DataType::Float8e5m2
        | DataType::Float8e5m2fnuz => 19,
        DataType::Int4 | DataType::Uint4 => 21,
        DataType::Float4e2m1 => 23,
        DataType::Float8e8m0 => 24,
        DataType::Int2 | DataType::Uint2 => 25,
        DataType::Float6e2m3 | DataType::Float6e3m2 => 28,
        DataType::Complex64 | DataType::Complex128 | DataType::Undefined => i64::MAX,
        _ => 1,
    }
}

fn check_type(ctx: &Ctx<'_>, dtype: DataType) -> KernelResult<()> {
    if introduced(dtype) > ctx.since {
        return Err(format!(
            "{} version {} does not take {}",
            ctx.op_type,
            ctx.since,
            dtype.as_str_name()
        ));
    }
    Ok(())
}

/// How a value becomes a float8e8m0 (a power of two).
#[derive(Clone, Copy)]
enum Rounding {
    Up,
    Down,
    Nearest,
}

/// The options of a cast: `saturate` (from version 19) and `round_mode` (from 24).
struct Options {
    saturate: bool,
    rounding: Rounding,
}

fn options(ctx: &Ctx<'_>) -> KernelResult<Options> {
    let saturate = ctx.since < 19 || ctx.int("saturate", 1) != 0;
    let rounding = if ctx.since < 24 {
        Rounding::Up
    } else {
        match ctx.string("round_mode").as_deref().unwrap_or("up") {
            "up" => Rounding::Up,
            "down" => Rounding::Down,
            "nearest" => Rounding::Nearest,
            other => {
                return Err(format!(
                    "round_mode {other:?} is not \"up\", \"down\" or \"nearest\""
                ));
            }
        }
    };
    Ok(Options { saturate, rounding })
}

fn cast(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let to = if ctx.since < 6 {
        let name = ctx.string("to").ok_or("attribute `to` is required")?;
        DataType::from_str_name(&name.to_ascii_uppercase())
            .ok_or_else(|| format!("`to` is {name:?}, not an element type"))?
    } else {
        let code = ctx.int_opt("to").ok_or("attribute `to` is required")?;
        i32::try_from(code)
            .ok()
            .and_then(|c| DataType::try_from(c).ok())
            .ok_or_else(|| format!("`to` is {code}, not an element type"))?
    };
    one(cast_tensor(ctx, tensor(inputs, 0)?, to)?)
}

fn cast_like(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let to = tensor(inputs, 1)?.dtype;
    one(cast_tensor(ctx, tensor(inputs, 0)?, to)?)
}

fn cast_tensor(ctx: &Ctx<'_>, input: &Tensor, to: DataType) -> KernelResult<Tensor> {
    check_type(ctx, input.dtype)?;
    check_type(ctx, to)?;
    let options = options(ctx)?;
    let data = if to == DataType::String {
        Data::Str(strings(input)?)
    } else {
        convert(&numbers(input)?, to, &options)?
    };
    Ok(Tensor { dtype: to, data })
}

/// One element on its way to another type.
#[derive(Clone, Copy, Debug)]
enum Number {
    Float(f64),
    Int(i128),
    Bool(bool),
}

impl Number {
    fn as_f64(self) -> f64 {
        match self {
            Number::Float(v) => v,
            Number::Int(i) => i as f64,
            Number::Bool(b) => f64::from(u8::from(b)),
        }
    }

    fn as_f32(self) -> f32 {
        match self {
            // One rounding, straight from the source.
            Number::Float(v) => v as f32,
            Number::Int(i) => i as f32,
            Number::Bool(b) => f32::from(u8::from(b)),
        }
    }

    /// Floats truncate toward zero (out of range is undefined: they saturate here).
    fn as_i128(self) -> i128 {
        match self {
            Number::Float(v) => v.trunc() as i128,
            Number::Int(i) => i,
            Number::Bool(b) => i128::from(b),
        }
    }

    fn as_bool(self) -> bool {
        match self {
            Number::Float(v) => v != 0.0,
            Number::Int(i) => i != 0,
            Number::Bool(b) => b,
        }
    }
}

/// A string as a number: an integer if it reads as one, else a float (`INF`, `+INF`, `-INF`
/// and `NaN` in any case).
fn parse_number(text: &str) -> KernelResult<Number> {
    let trimmed = text.trim();
    match trimmed.to_ascii_lowercase().as_str() {
        "inf" | "+inf" | "infinity" | "+infinity" => return Ok(Number::Float(f64::INFINITY)),
        "-inf" | "-infinity" => return Ok(Number::Float(f64::NEG_INFINITY)),
        "nan" | "+nan" | "-nan" => return Ok(Number::Float(f64::NAN)),
        _ => {}
    }
    if let Ok(i) = trimmed.parse::<i128>() {
        return Ok(Number::Int(i));
    }
    trimmed
        .parse::<f64>()
        .map(Number::Float)
        .map_err(|_| format!("the string {text:?} is not a number"))
}

/// The elements of a tensor as numbers.
fn numbers(t: &Tensor) -> KernelResult<ArrayD<Number>> {
    Ok(match &t.data {
        Data::F32(a) => a.map_each(&|x| Number::Float(f64::from(x))),
        Data::F64(a) => a.map_each(&Number::Float),
        Data::F16(a) => a.map_each(&|x| Number::Float(x.to_f64())),
        Data::BF16(a) => a.map_each(&|x| Number::Float(x.to_f64())),
        Data::I8(a) => a.map_each(&|x| Number::Int(i128::from(x))),
        Data::I16(a) => a.map_each(&|x| Number::Int(i128::from(x))),
        Data::I32(a) => a.map_each(&|x| Number::Int(i128::from(x))),
        Data::I64(a) => a.map_each(&|x| Number::Int(i128::from(x))),
        Data::U8(a) => a.map_each(&|x| Number::Int(i128::from(x))),
        Data::U16(a) => a.map_each(&|x| Number::Int(i128::from(x))),
        Data::U32(a) => a.map_each(&|x| Number::Int(i128::from(x))),
        Data::U64(a) => a.map_each(&|x| Number::Int(i128::from(x))),
        Data::Bool(a) => a.map_each(&Number::Bool),
        Data::Str(a) => {
            let parsed = a
                .iter()
                .map(|s| parse_number(s))
                .collect::<KernelResult<Vec<Number>>>()?;
            ArrayD::from_shape_vec(a.raw_dim(), parsed).map_err(|e| e.to_string())?
        }
        Data::C64(_) | Data::C128(_) => {
            return Err(format!("cannot cast {}", t.type_name()));
        }
    })
}

/// The low `bits` bits of a value, read as a signed integer of that width.
fn wrap_signed(value: i128, bits: u32) -> i8 {
    let mask = (1i128 << bits) - 1;
    let sign = 1i128 << (bits - 1);
    (((value & mask) ^ sign) - sign) as i8
}

/// The numbers as elements of `to` (not a string).
fn convert(n: &ArrayD<Number>, to: DataType, options: &Options) -> KernelResult<Data> {
    let saturate = options.saturate;
    Ok(match to {
        DataType::Float => Data::F32(n.map_each(&Number::as_f32)),
        DataType::Double => Data::F64(n.map_each(&Number::as_f64)),
        DataType::Float16 => Data::F16(n.map_each(&|x| f16::from_f64(x.as_f64()))),
        DataType::Bfloat16 => Data::BF16(n.map_each(&|x| bf16::from_f64(x.as_f64()))),
        DataType::Float8e8m0 => {
            let rounding = options.rounding;
            Data::F32(n.map_each(&|x| to_e8m0(x.as_f64(), saturate, rounding)))
        }
        DataType::Float8e4m3fn
        | DataType::Float8e4m3fnuz
        | DataType::Float8e5m2
        | DataType::Float8e5m2fnuz
        | DataType::Float6e2m3
        | DataType::Float6e3m2
        | DataType::Float4e2m1 => {
            Data::F32(n.map_each(&|x| narrow_float(to, x.as_f64(), saturate)))
        }
        DataType::Int8 => Data::I8(n.map_each(&|x| x.as_i128() as i8)),
        DataType::Int16 => Data::I16(n.map_each(&|x| x.as_i128() as i16)),
        DataType::Int32 => Data::I32(n.map_each(&|x| x.as_i128() as i32)),
        DataType::Int64 => Data::I64(n.map_each(&|x| x.as_i128() as i64)),
        DataType::Uint8 => Data::U8(n.map_each(&|x| x.as_i128() as u8)),
        DataType::Uint16 => Data::U16(n.map_each(&|x| x.as_i128() as u16)),
        DataType::Uint32 => Data::U32(n.map_each(&|x| x.as_i128() as u32)),
        DataType::Uint64 => Data::U64(n.map_each(&|x| x.as_i128() as u64)),
        // The narrow integers keep their low bits, as the wide ones do.
        DataType::Int4 => Data::I8(n.map_each(&|x| wrap_signed(x.as_i128(), 4))),
        DataType::Int2 => Data::I8(n.map_each(&|x| wrap_signed(x.as_i128(), 2))),
        DataType::Uint4 => Data::U8(n.map_each(&|x| (x.as_i128() & 0xf) as u8)),
        DataType::Uint2 => Data::U8(n.map_each(&|x| (x.as_i128() & 0x3) as u8)),
        DataType::Bool => Data::Bool(n.map_each(&Number::as_bool)),
        other => return Err(format!("cannot cast to {}", other.as_str_name())),
    })
}

/// A value rounded to a float8, float6 or float4 kind. The float6 and float4 kinds have no NaN,
/// and the spec is silent on casting one to them: NaN gives zero of the opposite sign, as onnx's
/// evaluator (ml_dtypes) does.
fn narrow_float(to: DataType, value: f64, saturate: bool) -> f32 {
    let without_nan = matches!(
        to,
        DataType::Float4e2m1 | DataType::Float6e2m3 | DataType::Float6e3m2
    );
    if without_nan && value.is_nan() {
        return if value.is_sign_positive() { -0.0 } else { 0.0 };
    }
    round_to(to, value, saturate).unwrap_or(f64::NAN) as f32
}

/// A value as float8e8m0 (a power of two from 2^-127 to 2^127): `Up` to the next power unless
/// exact, `Down` to the one below, `Nearest` to the nearer (ties up, the mantissa measured
/// linearly). Beyond the range, the extreme power when `saturate`, else NaN; infinity alike, and
/// zero is below the range. Negative values (undefined) go by their magnitude.
fn to_e8m0(value: f64, saturate: bool, rounding: Rounding) -> f32 {
    if value.is_nan() {
        return f32::NAN;
    }
    let magnitude = value.abs();
    let out_of_range = |high: bool| {
        if !saturate {
            f32::NAN
        } else if high {
            2f32.powi(127)
        } else {
            2f32.powi(-127)
        }
    };
    if magnitude.is_infinite() {
        return out_of_range(true);
    }
    let bits = magnitude.to_bits();
    let biased = (bits >> 52) & 0x7ff;
    if biased == 0 {
        // Zero and f64's subnormals, far below 2^-127.
        return out_of_range(false);
    }
    let fraction = bits & ((1u64 << 52) - 1);
    let exponent = biased as i64 - 1023;
    let code = exponent
        + 127
        + match rounding {
            Rounding::Up => i64::from(fraction != 0),
            Rounding::Down => 0,
            Rounding::Nearest => i64::from(fraction >= 1 << 51),
        };
    match code {
        ..0 => out_of_range(false),
        255.. => out_of_range(true),
        _ => 2f32.powi((code - 127) as i32),
    }
}

/// A float's shortest decimal that reads back to it through `same`, written plainly
/// ("0.1", "314.15926"); infinities as "INF" and "-INF", NaN as "NaN".
fn float_text(value: f64, same: impl Fn(f64) -> bool) -> String {
    if value.is_nan() {
        return "NaN".to_string();
    }
    if value.is_infinite() {
        return if value > 0.0 { "INF" } else { "-INF" }.to_string();
    }
    for digits in 0..17 {
        if let Ok(candidate) = format!("{value:.digits$e}").parse::<f64>()
            && same(candidate)
        {
            return format!("{candidate}");
        }
    }
    format!("{value}")
}

/// The width in bits of one element of a type BitCast-26 takes: every type but strings (and the
/// float6 kinds, which come later).
fn bit_width(dtype: DataType) -> Option<u32> {
    Some(match dtype {
        DataType::Int2 | DataType::Uint2 => 2,
        DataType::Int4 | DataType::Uint4 | DataType::Float4e2m1 => 4,
        DataType::Bool
        | DataType::Int8
        | DataType::Uint8
        | DataType::Float8e4m3fn
        | DataType::Float8e4m3fnuz
        | DataType::Float8e5m2
        | DataType::Float8e5m2fnuz
        | DataType::Float8e8m0 => 8,
        DataType::Int16 | DataType::Uint16 | DataType::Float16 | DataType::Bfloat16 => 16,
        DataType::Int32 | DataType::Uint32 | DataType::Float => 32,
        DataType::Int64 | DataType::Uint64 | DataType::Double | DataType::Complex64 => 64,
        DataType::Complex128 => 128,
        _ => return None,
    })
}

/// BitCast: each element's bits, little-endian as the spec says, read as an element of `to`,
/// which must be as wide. The tensor goes through its proto's `raw_data`, which holds exactly
/// those bytes (the 4-bit and 2-bit kinds packed alike, so they reinterpret element by
/// element too). The float8 kinds compute as values here, so a NaN's sign and payload bits
/// come back as the kind's canonical NaN.
fn bitcast(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let code = ctx.int_opt("to").ok_or("attribute `to` is required")?;
    let to = i32::try_from(code)
        .ok()
        .and_then(|c| DataType::try_from(c).ok())
        .filter(|&t| t != DataType::Undefined)
        .ok_or_else(|| format!("`to` is {code}, not an element type"))?;
    let from_bits =
        bit_width(x.dtype).ok_or_else(|| format!("BitCast does not take {}", x.type_name()))?;
    let to_bits =
        bit_width(to).ok_or_else(|| format!("BitCast cannot give {}", to.as_str_name()))?;
    if from_bits != to_bits {
        return Err(format!(
            "BitCast from {} ({from_bits} bits) to {} ({to_bits} bits): the widths must be equal",
            x.type_name(),
            to.as_str_name()
        ));
    }
    let mut proto = x.to_proto();
    let raw = proto.raw_data.as_deref().unwrap_or_default();
    // A bool is the byte 0 or 1; other bytes have no bool to become.
    if to == DataType::Bool
        && let Some(byte) = raw.iter().find(|&&b| b > 1)
    {
        return Err(format!(
            "BitCast to BOOL of the byte {byte}, which is not a bool (0 or 1)"
        ));
    }
    proto.data_type = Some(to as i32);
    one(Tensor::from_proto(&proto)?)
}

/// The elements of a tensor as strings.
fn strings(t: &Tensor) -> KernelResult<ArrayD<String>> {
    Ok(match &t.data {
        Data::F32(a) => a.map_each(&|x| float_text(f64::from(x), |c| c as f32 == x)),
        Data::F64(a) => a.map_each(&|x| float_text(x, |c| c == x)),
        Data::F16(a) => a.map_each(&|x| float_text(x.to_f64(), |c| f16::from_f64(c) == x)),
        Data::BF16(a) => a.map_each(&|x| float_text(x.to_f64(), |c| bf16::from_f64(c) == x)),
        Data::I8(a) => a.map_each(&|x| x.to_string()),
        Data::I16(a) => a.map_each(&|x| x.to_string()),
        Data::I32(a) => a.map_each(&|x| x.to_string()),
        Data::I64(a) => a.map_each(&|x| x.to_string()),
        Data::U8(a) => a.map_each(&|x| x.to_string()),
        Data::U16(a) => a.map_each(&|x| x.to_string()),
        Data::U32(a) => a.map_each(&|x| x.to_string()),
        Data::U64(a) => a.map_each(&|x| x.to_string()),
        // The spec is silent; onnx's evaluator (numpy) writes these.
        Data::Bool(a) => a.map_each(&|x| if x { "True" } else { "False" }.to_string()),
        Data::Str(a) => a.clone(),
        Data::C64(_) | Data::C128(_) => {
            return Err(format!("cannot cast {}", t.type_name()));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::super::math::testing::*;
    use super::{Rounding, to_e8m0};

    /// Cast at version 1 names the type in a string; at 6 it is the enum's number. By hand.
    #[test]
    fn cast_1_takes_the_type_by_name() {
        let v1 = r#"<ir_version: 3, opset_import: ["" : 1]>
            g (float[3] x) => (int32[3] y) { y = Cast <to: string = "INT32"> (x) }"#;
        let v6 = r#"<ir_version: 3, opset_import: ["" : 6]>
            g (float[3] x) => (int32[3] y) { y = Cast <to: int = 6> (x) }"#;
        let x = floats(&[1.7, -2.7, 300.0], &[3]);
        for text in [v1, v6] {
            let out = run(text, std::slice::from_ref(&x)).unwrap();
            assert_eq!(out[0].to_vec::<i32>().unwrap(), [1, -2, 300]);
        }
    }

    /// Strings come at version 9: both ways, plain decimals, the reserved INF and NaN. By hand.
    #[test]
    fn cast_takes_strings_from_version_9() {
        let to_string = |opset: i64| {
            format!(
                r#"<ir_version: 4, opset_import: ["" : {opset}]>
                g (float[4] x) => (string[4] y) {{ y = Cast <to: int = 8> (x) }}"#
            )
        };
        let x = floats(&[0.1, -314.25, 1e-5, f32::INFINITY], &[4]);
        let out = run(&to_string(9), std::slice::from_ref(&x)).unwrap();
        let expected: Vec<String> = ["0.1", "-314.25", "0.00001", "INF"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(out[0].to_vec::<String>().unwrap(), expected);
        let error = run(&to_string(6), &[x]).unwrap_err();
        assert!(error.contains("does not take STRING"), "{error}");
        let from_string = r#"<ir_version: 4, opset_import: ["" : 9]>
            g (string[4] x) => (float[4] y) { y = Cast <to: int = 1> (x) }"#;
        let x = value(
            &["3.5".to_string(), "1e3".into(), "-inf".into(), "7".into()],
            &[4],
        );
        assert_eq!(
            run_f32(from_string, &[x]),
            Ok(vec![3.5, 1000.0, f32::NEG_INFINITY, 7.0])
        );
    }

    /// `saturate` comes at version 19 (before it, float8 does not exist); float8e4m3fn of 1000
    /// is 448 saturated, NaN not. By hand from the spec's table.
    #[test]
    fn saturate_chooses_between_the_largest_value_and_nan() {
        let text = |saturate: i64| {
            format!(
                r#"<ir_version: 9, opset_import: ["" : 19]>
                g (float[2] x) => (float8e4m3fn[2] y) {{ y = Cast <to: int = 17, saturate: int = {saturate}> (x) }}"#
            )
        };
        let x = floats(&[1000.0, 1.0], &[2]);
        let out = run(&text(1), std::slice::from_ref(&x)).unwrap();
        let onnx_value::Value::Tensor(proto) = &out[0] else {
            panic!("not a tensor")
        };
        assert_eq!(proto.raw_data.as_deref(), Some(&[0x7e, 0x38][..]));
        let out = run(&text(0), &[x]).unwrap();
        let onnx_value::Value::Tensor(proto) = &out[0] else {
            panic!("not a tensor")
        };
        assert_eq!(proto.raw_data.as_deref(), Some(&[0x7f, 0x38][..]));
    }

    /// Each version takes the element types it introduced and none newer: int4 from 21,
    /// float4e2m1 from 23, int2 from 25. By hand: 7 and -5 both keep 0b11 in int2, which is -1.
    #[test]
    fn cast_takes_new_element_types_from_their_versions() {
        let text = |opset: i64, to: i64, ty: &str| {
            format!(
                r#"<ir_version: 11, opset_import: ["" : {opset}]>
                g (int32[2] x) => ({ty}[2] y) {{ y = Cast <to: int = {to}> (x) }}"#
            )
        };
        let x = value(&[7i32, -5], &[2]);
        for (to, ty, since) in [(22, "int4", 21), (23, "float4e2m1", 23), (26, "int2", 25)] {
            let error = run(&text(since - 2, to, ty), std::slice::from_ref(&x)).unwrap_err();
            assert!(error.contains("does not take"), "{error}");
            assert!(run(&text(since, to, ty), std::slice::from_ref(&x)).is_ok());
        }
        let out = run(&text(25, 26, "int2"), std::slice::from_ref(&x)).unwrap();
        let onnx_value::Value::Tensor(proto) = &out[0] else {
            panic!("not a tensor")
        };
        // int2 codes 0b11 (7 wraps to -1) and 0b11 (-5 wraps to -1), packed low bits first.
        assert_eq!(proto.raw_data.as_deref(), Some(&[0x0f][..]));
    }

    /// float8e8m0's rounding modes and saturation, by hand: 3 lies between 2 and 4, 1.4 below
    /// the middle of 1 and 2; infinity saturates to 2^127 (the spec's table) or is NaN.
    #[test]
    fn e8m0_rounds_by_its_mode() {
        assert_eq!(to_e8m0(3.0, true, Rounding::Up), 4.0);
        assert_eq!(to_e8m0(3.0, true, Rounding::Down), 2.0);
        assert_eq!(to_e8m0(3.0, true, Rounding::Nearest), 4.0);
        assert_eq!(to_e8m0(1.4, true, Rounding::Nearest), 1.0);
        assert_eq!(to_e8m0(4.0, true, Rounding::Up), 4.0);
        assert_eq!(to_e8m0(f64::INFINITY, true, Rounding::Up), 2f32.powi(127));
        assert!(to_e8m0(f64::INFINITY, false, Rounding::Up).is_nan());
        assert!(to_e8m0(0.0, false, Rounding::Nearest).is_nan());
        assert_eq!(to_e8m0(0.0, true, Rounding::Up), 2f32.powi(-127));
    }

    fn bitcast_text(from: &str, to: i64, to_name: &str) -> String {
        format!(
            r#"<ir_version: 11, opset_import: ["" : 26]>
            g ({from}[2] x) => ({to_name}[2] y) {{ y = BitCast <to: int = {to}> (x) }}"#
        )
    }

    /// BitCast keeps the bits. By hand: 1.0f32 is 0x3f800000 and -2.0 is 0xc0000000; int8 -1
    /// is the byte 0xff; int4 -1 is the nibble 0xf; float16 1.0 is 0x3c00, which as bfloat16
    /// has exponent 0x78, so 2^(120 - 127).
    #[test]
    fn bitcast_reinterprets_the_bits() {
        let out = run(
            &bitcast_text("float", 6, "int32"),
            &[floats(&[1.0, -2.0], &[2])],
        )
        .unwrap();
        assert_eq!(
            out[0].to_vec::<i32>().unwrap(),
            [0x3f80_0000, 0xc000_0000u32 as i32]
        );
        let out = run(
            &bitcast_text("int8", 2, "uint8"),
            &[value(&[-1i8, 5], &[2])],
        )
        .unwrap();
        assert_eq!(out[0].to_vec::<u8>().unwrap(), [255, 5]);
        let int4 = onnx_value::elements::encode(
            onnx_runtime_types::tensor_proto::DataType::Int4,
            &[2],
            &onnx_value::elements::Elements::Int(vec![-1, 7]),
            false,
        )
        .unwrap();
        let out = run(
            &bitcast_text("int4", 21, "uint4"),
            &[onnx_value::Value::Tensor(int4)],
        )
        .unwrap();
        let onnx_value::Value::Tensor(proto) = &out[0] else {
            panic!("not a tensor")
        };
        assert_eq!(
            onnx_value::elements::decode(proto),
            Ok(onnx_value::elements::Elements::Int(vec![15, 7]))
        );
        let halves = [half::f16::from_f32(1.0), half::f16::from_f32(-0.0)];
        let out = run(
            &bitcast_text("float16", 16, "bfloat16"),
            &[value(&halves, &[2])],
        )
        .unwrap();
        let bf = out[0].to_vec::<half::bf16>().unwrap();
        assert_eq!(bf[0].to_f32(), 2f32.powi(-7));
        assert_eq!(bf[1].to_bits(), 0x8000);
    }

    /// Types of different widths, strings, and bytes that are no bool are refused with a
    /// message, as the spec allows only same-width non-string types.
    #[test]
    fn bitcast_refuses_other_widths_strings_and_non_bool_bytes() {
        let error = run(
            &bitcast_text("float", 5, "int16"),
            &[floats(&[1.0, 2.0], &[2])],
        )
        .unwrap_err();
        assert!(
            error.contains("FLOAT (32 bits) to INT16 (16 bits)"),
            "{error}"
        );
        let strings = value(&["a".to_string(), "b".to_string()], &[2]);
        let error = run(&bitcast_text("string", 8, "string"), &[strings]).unwrap_err();
        assert!(error.contains("does not take STRING"), "{error}");
        let error = run(&bitcast_text("uint8", 9, "bool"), &[value(&[1u8, 2], &[2])]).unwrap_err();
        assert!(error.contains("the byte 2"), "{error}");
        let error = run(
            &bitcast_text("int8", 99, "uint8"),
            &[value(&[1i8, 2], &[2])],
        )
        .unwrap_err();
        assert!(error.contains("`to` is 99"), "{error}");
    }
}
