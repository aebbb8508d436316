//! Quantization: QuantizeLinear and DequantizeLinear (per tensor, per axis, blocked; integer,
//! float8, float6 and float4 kinds), DynamicQuantizeLinear, and the integer products
//! MatMulInteger, QLinearMatMul and QLinearConv.

use super::conv::integer_convolution;
use super::linalg::integer_matmul;
use super::{Ctx, Registry, axis, one, tensor, tensor_opt};
use crate::error::KernelResult;
use crate::tensor::MapEach;
use crate::tensor::{Data, Tensor};
use crate::value::Val;
use ndarray::{ArrayD, Axis, IxDyn};
use onnx_runtime_types::tensor_proto::DataType;
use onnx_value::elements::round_to;

pub(super) fn register(r: &mut Registry) {
    for since in [10, 13, 19, 21, 23, 24, 25, 28] {
        r.add("", "QuantizeLinear", since, quantize_linear);
        r.add("", "DequantizeLinear", since, dequantize_linear);
    }
    r.add("", "DynamicQuantizeLinear", 11, dynamic_quantize_linear);
    r.add("", "MatMulInteger", 10, matmul_integer);
    for since in [10, 21] {
        r.add("", "QLinearMatMul", since, qlinear_matmul);
    }
    r.add("", "QLinearConv", 10, qlinear_conv);
}

/// Any real tensor's elements as f64, whatever kind computes them (the narrow floats too).
fn numbers(t: &Tensor) -> KernelResult<ArrayD<f64>> {
    Ok(match &t.data {
        Data::F32(a) => a.map_each(&f64::from),
        Data::F64(a) => a.clone(),
        Data::F16(a) => a.map_each(&|v| v.to_f64()),
        Data::BF16(a) => a.map_each(&|v| v.to_f64()),
        _ => ArrayD::from_shape_vec(t.shape(), t.to_f64_vec()?).map_err(|e| e.to_string())?,
    })
}

/// The integer range of a quantized integer kind; None for the float kinds.
fn integer_range(dtype: DataType) -> Option<(f64, f64)> {
    Some(match dtype {
        DataType::Uint8 => (0.0, 255.0),
        DataType::Int8 => (-128.0, 127.0),
        DataType::Uint16 => (0.0, 65535.0),
        DataType::Int16 => (-32768.0, 32767.0),
        DataType::Uint4 => (0.0, 15.0),
        DataType::Int4 => (-8.0, 7.0),
        DataType::Uint2 => (0.0, 3.0),
        DataType::Int2 => (-2.0, 1.0),
        DataType::Int32 => (i32::MIN as f64, i32::MAX as f64),
        _ => return None,
    })
}

fn is_narrow_float(dtype: DataType) -> bool {
    matches!(
        dtype,
        DataType::Float8e4m3fn
            | DataType::Float8e4m3fnuz
            | DataType::Float8e5m2
            | DataType::Float8e5m2fnuz
            | DataType::Float4e2m1
            | DataType::Float6e2m3
            | DataType::Float6e3m2
    )
}

/// A tensor of a quantized kind from values already rounded and saturated to it.
fn quantized_tensor(dtype: DataType, values: ArrayD<f64>) -> KernelResult<Tensor> {
    let data = match dtype {
        DataType::Uint8 | DataType::Uint4 | DataType::Uint2 => {
            Data::U8(values.map_each(&|v| v as u8))
        }
        DataType::Int8 | DataType::Int4 | DataType::Int2 => Data::I8(values.map_each(&|v| v as i8)),
        DataType::Uint16 => Data::U16(values.map_each(&|v| v as u16)),
        DataType::Int16 => Data::I16(values.map_each(&|v| v as i16)),
        DataType::Int32 => Data::I32(values.map_each(&|v| v as i32)),
        _ if is_narrow_float(dtype) => Data::F32(values.map_each(&|v| v as f32)),
        _ => return Err(format!("{} is not a quantized type", dtype.as_str_name())),
    };
    Ok(Tensor { dtype, data })
}

/// A scale or zero point broadcast to X's shape: a scalar (per tensor), a 1-D tensor along
/// `axis` (per axis), or X's shape with `axis` cut in blocks of `block` (blocked).
fn expand_parameter(
    values: &ArrayD<f64>,
    shape: &[usize],
    along: usize,
    block: usize,
) -> KernelResult<ArrayD<f64>> {
    let target = IxDyn(shape);
    if values.len() == 1 && (values.ndim() <= 1 || block == 0) {
        let v = values.iter().next().copied().unwrap_or(0.0);
        return Ok(ArrayD::from_elem(target, v));
    }
    if block == 0 {
        if values.ndim() != 1 || shape.get(along) != Some(&values.len()) {
            return Err(format!(
                "a per-axis parameter of shape {:?} for X of shape {shape:?} along axis {along}",
                values.shape()
            ));
        }
        let mut view_shape = vec![1; shape.len()];
        view_shape[along] = values.len();
        let reshaped = values
            .to_shape(IxDyn(&view_shape))
            .map_err(|e| e.to_string())?;
        return Ok(reshaped
            .broadcast(target)
            .ok_or("cannot broadcast a per-axis parameter")?
            .to_owned());
    }
    let fits = values.ndim() == shape.len()
        && (0..shape.len()).all(|i| {
            if i == along {
                values.shape()[i] == shape[i].div_ceil(block)
            } else {
                values.shape()[i] == shape[i]
            }
        });
    if !fits {
        return Err(format!(
            "a blocked parameter of shape {:?} for X of shape {shape:?}, axis {along}, blocks of {block}",
            values.shape()
        ));
    }
    let picks: Vec<usize> = (0..shape[along]).map(|i| i / block).collect();
    Ok(values.select(Axis(along), &picks))
}

/// The quantization axis and block size of a node (no blocks before version 21). The axis
/// matters only for a parameter of more than one element, so a per-tensor one takes any.
fn granularity(ctx: &Ctx<'_>, rank: usize, parameter: &Tensor) -> KernelResult<(usize, usize)> {
    let along = if parameter.len() == 1 && parameter.rank() <= 1 {
        0
    } else {
        axis(ctx.int("axis", 1), rank)?
    };
    let block = if ctx.since >= 21 {
        ctx.int("block_size", 0)
    } else {
        0
    };
    if block < 0 {
        return Err(format!("block_size {block}"));
    }
    Ok((along, block as usize))
}

/// `value` rounded to a float type's precision (the precision a division or product is done
/// in); f64 and integer types keep it.
fn round_to_precision(dtype: DataType, value: f64) -> f64 {
    match dtype {
        DataType::Float => value as f32 as f64,
        DataType::Float16 => crate::halves::f16::from_f64(value).to_f64(),
        DataType::Bfloat16 => crate::halves::bf16::from_f64(value).to_f64(),
        _ => value,
    }
}

/// A quantized value: `scaled` (x / scale) plus the zero point, rounded half to even and
/// saturated (integers), or rounded to the float kind (saturated as `saturate` says).
fn quantize_value(dtype: DataType, scaled: f64, zero: f64, saturate: bool) -> f64 {
    match integer_range(dtype) {
        Some((low, high)) => (scaled.round_ties_even() + zero).clamp(low, high),
        None => {
            // `saturate` applies to float8 only; float4 and float6 have no infinity or NaN.
            let saturate = saturate || !dtype.as_str_name().starts_with("FLOAT8");
            round_to(dtype, scaled + zero, saturate).unwrap_or(f64::NAN)
        }
    }
}

fn quantize_linear(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let scale = tensor(inputs, 1)?;
    let zero = tensor_opt(inputs, 2)?;
    let requested = ctx.int("output_dtype", 0);
    let output = match (zero, requested) {
        (Some(z), 0) => z.dtype,
        (Some(z), code) if code == z.dtype as i64 => z.dtype,
        (Some(z), code) => {
            return Err(format!(
                "output_dtype {code} differs from the zero point's {}",
                z.type_name()
            ));
        }
        (None, 0) => DataType::Uint8,
        (None, code) => {
            DataType::try_from(code as i32).map_err(|_| format!("unknown output_dtype {code}"))?
        }
    };
    let quantized =
        is_narrow_float(output) || (integer_range(output).is_some() && output != DataType::Int32);
    if !quantized {
        return Err(format!("{} is not a quantized type", output.as_str_name()));
    }
    let precision = match ctx.int("precision", 0) {
        0 => scale.dtype,
        code => DataType::try_from(code as i32).map_err(|_| format!("unknown precision {code}"))?,
    };
    let values = numbers(x)?;
    let shape = values.shape().to_vec();
    let (along, block) = granularity(ctx, shape.len(), scale)?;
    if ctx.since < 21 && scale.rank() > 1 {
        return Err("the scale must be a scalar or 1-D".to_string());
    }
    let scales = expand_parameter(&numbers(scale)?, &shape, along, block)?;
    let zeros = match zero {
        Some(z) => expand_parameter(&numbers(z)?, &shape, along, block)?,
        None => ArrayD::zeros(IxDyn(&shape)),
    };
    let saturate = ctx.int("saturate", 1) != 0;
    let mut y = values;
    ndarray::Zip::from(&mut y)
        .and(&scales)
        .and(&zeros)
        .for_each(|v, &s, &z| {
            let scaled = round_to_precision(precision, round_to_precision(precision, *v) / s);
            *v = quantize_value(output, scaled, z, saturate);
        });
    one(quantized_tensor(output, y)?)
}

fn dequantize_linear(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let scale = tensor(inputs, 1)?;
    let zero = tensor_opt(inputs, 2)?;
    if let Some(z) = zero
        && z.dtype != x.dtype
    {
        return Err(format!(
            "x is {} and its zero point {}",
            x.type_name(),
            z.type_name()
        ));
    }
    let output = match ctx.int("output_dtype", 0) {
        0 if scale.dtype == DataType::Float8e8m0 => DataType::Float,
        0 => scale.dtype,
        code => {
            DataType::try_from(code as i32).map_err(|_| format!("unknown output_dtype {code}"))?
        }
    };
    let values = numbers(x)?;
    let shape = values.shape().to_vec();
    let (along, block) = granularity(ctx, shape.len(), scale)?;
    if ctx.since < 21 && scale.rank() > 1 {
        return Err("the scale must be a scalar or 1-D".to_string());
    }
    let scales = expand_parameter(&numbers(scale)?, &shape, along, block)?;
    let zeros = match zero {
        Some(z) => expand_parameter(&numbers(z)?, &shape, along, block)?,
        None => ArrayD::zeros(IxDyn(&shape)),
    };
    let mut y = values;
    ndarray::Zip::from(&mut y)
        .and(&scales)
        .and(&zeros)
        .for_each(|v, &s, &z| *v = (*v - z) * s);
    one(super::floats::from_f64(output, y)?)
}

/// DynamicQuantizeLinear: uint8 with the scale and zero point that map [min(0, min X),
/// max(0, max X)] onto [0, 255], computed in float32 as the function body does.
fn dynamic_quantize_linear(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let Data::F32(values) = &x.data else {
        return Err(format!("expected float, got {}", x.type_name()));
    };
    let low = values.iter().copied().fold(0.0f32, f32::min);
    let high = values.iter().copied().fold(0.0f32, f32::max);
    let scale = (high - low) / 255.0;
    // An all-zero X has scale 0: every value quantizes to the zero point 0.
    let zero = if scale == 0.0 {
        0.0
    } else {
        ((0.0 - low) / scale).round_ties_even().clamp(0.0, 255.0)
    };
    let y = values.map_each(&|v| {
        if scale == 0.0 {
            0
        } else {
            ((v / scale).round_ties_even() + zero).clamp(0.0, 255.0) as u8
        }
    });
    Ok(vec![
        Val::Tensor(Tensor::from_data(Data::U8(y))),
        Val::Tensor(Tensor::from_data(Data::F32(ArrayD::from_elem(
            IxDyn(&[]),
            scale,
        )))),
        Val::Tensor(Tensor::from_data(Data::U8(ArrayD::from_elem(
            IxDyn(&[]),
            zero as u8,
        )))),
    ])
}

/// An int8/uint8 operand minus its zero point, as i64: a scalar, or one per row of A
/// (`rows`, the axis before the last) or per column of B (the last axis).
fn shifted(t: &Tensor, zero: Option<&Tensor>, rows: bool) -> KernelResult<ArrayD<i64>> {
    let mut values = super::conv::to_i64(t)?;
    let Some(zero) = zero else {
        return Ok(values);
    };
    let zeros = super::conv::to_i64(zero)?;
    if zeros.len() == 1 {
        let z = zeros.iter().next().copied().unwrap_or(0);
        values.mapv_inplace(|v| v - z);
        return Ok(values);
    }
    let rank = values.ndim();
    let along = if rows {
        rank.checked_sub(2)
    } else {
        rank.checked_sub(1)
    };
    let fits = along.is_some_and(|a| values.shape()[a] == zeros.len()) && zeros.ndim() == 1;
    let Some(along) = along.filter(|_| fits) else {
        return Err(format!(
            "a zero point of shape {:?} for an operand of shape {:?}",
            zeros.shape(),
            values.shape()
        ));
    };
    let zeros: Vec<i64> = zeros.iter().copied().collect();
    for mut lane in values.lanes_mut(Axis(along)) {
        for (v, z) in lane.iter_mut().zip(&zeros) {
            *v -= z;
        }
    }
    Ok(values)
}

/// (A - a_zero_point) times (B - b_zero_point), in i64 (no overflow for any realistic depth).
fn integer_product(
    ctx: &Ctx<'_>,
    a: &Tensor,
    a_zero: Option<&Tensor>,
    b: &Tensor,
    b_zero: Option<&Tensor>,
) -> KernelResult<ArrayD<i64>> {
    let a = shifted(a, a_zero, true)?;
    let b = shifted(b, b_zero, false)?;
    integer_matmul(ctx, &a, &b)
}

fn matmul_integer(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let product = integer_product(
        ctx,
        tensor(inputs, 0)?,
        tensor_opt(inputs, 2)?,
        tensor(inputs, 1)?,
        tensor_opt(inputs, 3)?,
    )?;
    one(Tensor::from_data(Data::I32(
        product.map_each(&|v| v as i32),
    )))
}

/// A scalar (or one-element) float operand and its type.
fn scalar(inputs: &[Option<&Val>], index: usize) -> KernelResult<(f64, DataType)> {
    let t = tensor(inputs, index)?;
    let values = numbers(t)?;
    match values.len() {
        1 => Ok((values.iter().next().copied().unwrap_or(0.0), t.dtype)),
        n => Err(format!("input {index} has {n} elements, not one")),
    }
}

/// Requantizes an i64 accumulator: round half to even of acc * multiplier, plus the zero
/// point, saturated to the output kind.
fn requantize(
    acc: &ArrayD<i64>,
    multiplier: &ArrayD<f64>,
    zero: f64,
    output: DataType,
) -> KernelResult<Tensor> {
    let (low, high) = integer_range(output).ok_or("the output is not int8 or uint8")?;
    let y = ndarray::Zip::from(acc)
        .and(multiplier)
        .map_collect(|&a, &m| ((a as f64 * m).round_ties_even() + zero).clamp(low, high));
    quantized_tensor(output, y)
}

/// QLinearMatMul: the integer product requantized by a_scale * b_scale / y_scale (computed in
/// the scales' type).
fn qlinear_matmul(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (a, b) = (tensor(inputs, 0)?, tensor(inputs, 3)?);
    let (a_scale, scale_type) = scalar(inputs, 1)?;
    let (b_scale, _) = scalar(inputs, 4)?;
    let (y_scale, _) = scalar(inputs, 6)?;
    let y_zero = tensor(inputs, 7)?;
    let (zero, _) = scalar(inputs, 7)?;
    let acc = integer_product(ctx, a, tensor_opt(inputs, 2)?, b, tensor_opt(inputs, 5)?)?;
    let multiplier = round_to_precision(
        scale_type,
        round_to_precision(scale_type, a_scale * b_scale) / y_scale,
    );
    let multiplier = ArrayD::from_elem(IxDyn(acc.shape()), multiplier);
    one(requantize(&acc, &multiplier, zero, y_zero.dtype)?)
}

/// QLinearConv: the integer convolution plus the int32 bias, requantized by x_scale * w_scale
/// / y_scale (w_scale per output channel or scalar).
fn qlinear_conv(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (x, w) = (tensor(inputs, 0)?, tensor(inputs, 3)?);
    let (x_scale, scale_type) = scalar(inputs, 1)?;
    let w_scales: Vec<f64> = numbers(tensor(inputs, 4)?)?.iter().copied().collect();
    let (y_scale, _) = scalar(inputs, 6)?;
    let y_zero = tensor(inputs, 7)?;
    let (zero, _) = scalar(inputs, 7)?;
    let mut acc = integer_convolution(ctx, x, tensor_opt(inputs, 2)?, w, tensor_opt(inputs, 5)?)?;
    let channels = acc.shape()[1];
    if let Some(bias) = tensor_opt(inputs, 8)? {
        let bias: Vec<i64> = super::conv::to_i64(bias)?.iter().copied().collect();
        if bias.len() != channels {
            return Err(format!("a bias of {} for {channels} channels", bias.len()));
        }
        for mut batch in acc.outer_iter_mut() {
            for (mut channel, b) in batch.outer_iter_mut().zip(&bias) {
                channel.mapv_inplace(|v| v + b);
            }
        }
    }
    let per_channel: Vec<f64> = match w_scales.len() {
        1 => vec![w_scales[0]; channels],
        n if n == channels => w_scales,
        n => return Err(format!("{n} weight scales for {channels} channels")),
    };
    let mut multiplier = ArrayD::zeros(IxDyn(acc.shape()));
    for mut batch in multiplier.outer_iter_mut() {
        for (mut channel, &w_scale) in batch.outer_iter_mut().zip(&per_channel) {
            let m = round_to_precision(
                scale_type,
                round_to_precision(scale_type, x_scale * w_scale) / y_scale,
            );
            channel.fill(m);
        }
    }
    one(requantize(&acc, &multiplier, zero, y_zero.dtype)?)
}

#[cfg(test)]
mod tests {
    use onnx_value::Value;

    fn run(text: &str, inputs: &[Value]) -> Vec<Value> {
        crate::run(&onnx_text::parse_model(text).unwrap(), inputs).unwrap()
    }

    /// QuantizeLinear-10: per tensor, rounding half to even, saturating. By hand.
    #[test]
    fn quantize_linear_10_per_tensor() {
        let out = run(
            r#"<ir_version: 5, opset_import: ["" : 10]>
            g (float[4] x, float s, uint8 z) => (uint8[4] y) { y = QuantizeLinear (x, s, z) }"#,
            &[
                Value::tensor(&[0.0f32, 1.5, 2.5, -300.0], &[4]).unwrap(),
                Value::tensor(&[1.0f32], &[]).unwrap(),
                Value::tensor(&[128u8], &[]).unwrap(),
            ],
        );
        assert_eq!(out[0].to_vec::<u8>().unwrap(), [128, 130, 130, 0]);
    }

    /// QuantizeLinear-13 per axis, and QuantizeLinear-21 in blocks along axis 1. By hand.
    #[test]
    fn quantize_linear_per_axis_and_blocked() {
        let per_axis = run(
            r#"<ir_version: 7, opset_import: ["" : 13]>
            g (float[2, 2] x, float[2] s, int8[2] z) => (int8[2, 2] y) { y = QuantizeLinear (x, s, z) }"#,
            &[
                Value::tensor(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap(),
                Value::tensor(&[1.0f32, 2.0], &[2]).unwrap(),
                Value::tensor(&[0i8, 1], &[2]).unwrap(),
            ],
        );
        assert_eq!(per_axis[0].to_vec::<i8>().unwrap(), [1, 2, 3, 3]);
        let blocked = run(
            r#"<ir_version: 10, opset_import: ["" : 21]>
            g (float[1, 4] x, float[1, 2] s, uint8[1, 2] z) => (uint8[1, 4] y) {
                y = QuantizeLinear <block_size = 2> (x, s, z)
            }"#,
            &[
                Value::tensor(&[1.0f32, 2.0, 3.0, 4.0], &[1, 4]).unwrap(),
                Value::tensor(&[1.0f32, 2.0], &[1, 2]).unwrap(),
                Value::tensor(&[0u8, 0], &[1, 2]).unwrap(),
            ],
        );
        assert_eq!(blocked[0].to_vec::<u8>().unwrap(), [1, 2, 2, 2]);
    }

    /// DequantizeLinear-10: (x - zero point) * scale, float. By hand.
    #[test]
    fn dequantize_linear_10() {
        let out = run(
            r#"<ir_version: 5, opset_import: ["" : 10]>
            g (uint8[3] x, float s, uint8 z) => (float[3] y) { y = DequantizeLinear (x, s, z) }"#,
            &[
                Value::tensor(&[0u8, 128, 255], &[3]).unwrap(),
                Value::tensor(&[0.5f32], &[]).unwrap(),
                Value::tensor(&[128u8], &[]).unwrap(),
            ],
        );
        assert_eq!(out[0].to_vec::<f32>().unwrap(), [-64.0, 0.0, 63.5]);
    }
}
