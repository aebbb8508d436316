//! Normalizations over trailing axes or groups of channels: LayerNormalization,
//! GroupNormalization and RMSNormalization.
//!
//! Each standardizes in the precision `stash_type` names (float32 by default), rounds the
//! normalized values to the input's element type, then scales (and shifts) them, as the specs'
//! function bodies do.

use super::softmax::Rows;
use super::wide::{narrow, widen};
use super::{Ctx, Registry, axis, tensor, tensor_opt};
use crate::error::KernelResult;
use crate::tensor::Tensor;
use crate::value::Val;
use ndarray::{ArrayD, IxDyn};
use onnx_runtime_types::tensor_proto::DataType;

pub(super) fn register(r: &mut Registry) {
    r.add("", "LayerNormalization", 17, layer_normalization);
    // Version 18 scales and shifts per group, 21 per channel (and has `stash_type`).
    r.add("", "GroupNormalization", 18, group_normalization);
    r.add("", "GroupNormalization", 21, group_normalization);
    r.add("", "RMSNormalization", 23, rms_normalization);
}

/// The element type `stash_type` names.
fn stash_type(ctx: &Ctx<'_>) -> KernelResult<DataType> {
    let code = ctx.int("stash_type", 1);
    match i32::try_from(code)
        .ok()
        .and_then(|c| DataType::try_from(c).ok())
    {
        Some(t @ (DataType::Float | DataType::Double | DataType::Float16 | DataType::Bfloat16)) => {
            Ok(t)
        }
        _ => Err(format!("stash_type {code} is no float type")),
    }
}

/// `a` rounded to the element type `dtype`, kept wide.
fn round_through(dtype: DataType, a: ArrayD<f64>) -> KernelResult<ArrayD<f64>> {
    widen(&narrow(dtype, a)?)
}

/// A scale or bias operand as f64, broadcast (unidirectionally) to `shape`.
fn broadcast_operand(t: &Tensor, shape: &[usize], name: &str) -> KernelResult<ArrayD<f64>> {
    let wide = widen(t)?;
    let view = wide.broadcast(IxDyn(shape)).ok_or_else(|| {
        format!(
            "{name} of shape {:?} does not broadcast to {shape:?}",
            wide.shape()
        )
    })?;
    Ok(view.to_owned())
}

/// The mean and the inverse standard deviation (with `epsilon`) of a set of values.
fn moments(values: &[f64], epsilon: f64) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let variance = values.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    (mean, 1.0 / (variance + epsilon).sqrt())
}

/// LayerNormalization: Y, and the optional Mean and InvStdDev (of the stash type, shaped as X
/// with the normalized axes 1).
fn layer_normalization(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (x, scale, bias) = (
        tensor(inputs, 0)?,
        tensor(inputs, 1)?,
        tensor_opt(inputs, 2)?,
    );
    let shape = x.shape().to_vec();
    if shape.is_empty() {
        return Err("LayerNormalization of a scalar".to_string());
    }
    let at = axis(ctx.int("axis", -1), shape.len())?;
    let stash = stash_type(ctx)?;
    let epsilon = f64::from(ctx.float("epsilon", 1e-5));
    let rows = Rows::flattened(&shape, at);
    let mut stats_shape = shape[..at].to_vec();
    stats_shape.resize(shape.len(), 1);
    // An empty X may still have many rows, each with a (NaN) mean.
    ctx.checked_count(&stats_shape)?;
    let stashed = round_through(stash, widen(x)?)?;
    let mut values: Vec<f64> = stashed.iter().copied().collect();
    let (mut means, mut inverses) = (Vec::new(), Vec::new());
    if rows.len > 0 {
        for row in values.chunks_mut(rows.len) {
            let (mean, inverse) = moments(row, epsilon);
            row.iter_mut().for_each(|v| *v = (*v - mean) * inverse);
            means.push(mean);
            inverses.push(inverse);
        }
    } else {
        means = vec![f64::NAN; rows.outer];
        inverses = vec![f64::NAN; rows.outer];
    }
    let normalized = ArrayD::from_shape_vec(IxDyn(&shape), values).map_err(|e| e.to_string())?;
    let normalized = round_through(x.dtype, normalized)?;
    let mut y = round_through(
        x.dtype,
        normalized * broadcast_operand(scale, &shape, "Scale")?,
    )?;
    if let Some(bias) = bias {
        y = y + broadcast_operand(bias, &shape, "B")?;
    }
    let stats = |v: Vec<f64>| -> KernelResult<Val> {
        let a = ArrayD::from_shape_vec(IxDyn(&stats_shape), v).map_err(|e| e.to_string())?;
        Ok(Val::Tensor(narrow(stash, a)?))
    };
    Ok(vec![
        Val::Tensor(narrow(x.dtype, y)?),
        stats(means)?,
        stats(inverses)?,
    ])
}

/// GroupNormalization of X (N, C, ...): each instance's channels in `num_groups` groups, each
/// group standardized over its channels and spatial positions together.
fn group_normalization(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (x, scale, bias) = (tensor(inputs, 0)?, tensor(inputs, 1)?, tensor(inputs, 2)?);
    let shape = x.shape().to_vec();
    let (n, channels) = match shape[..] {
        [n, c, ..] => (n, c),
        _ => return Err(format!("X of shape {shape:?} has no channel axis")),
    };
    let groups = ctx.int("num_groups", 0);
    if groups <= 0 || channels % groups as usize != 0 {
        return Err(format!(
            "num_groups {groups} does not divide the {channels} channels"
        ));
    }
    let groups = groups as usize;
    let per_group = channels / groups;
    // Version 18 gives one scale and bias per group, 21 one per channel.
    let per_channel = ctx.since >= 21;
    let expected = if per_channel { channels } else { groups };
    let (scale, bias) = (widen(scale)?, widen(bias)?);
    if scale.len() != expected || bias.len() != expected {
        return Err(format!(
            "scale and bias hold {} and {} elements, not {expected}",
            scale.len(),
            bias.len()
        ));
    }
    let (scale, bias): (Vec<f64>, Vec<f64>) = (
        scale.iter().copied().collect(),
        bias.iter().copied().collect(),
    );
    let stash = if per_channel {
        stash_type(ctx)?
    } else {
        DataType::Double
    };
    let epsilon = f64::from(ctx.float("epsilon", 1e-5));
    let spatial: usize = shape[2..].iter().product();
    let stashed = round_through(stash, widen(x)?)?;
    let mut values: Vec<f64> = stashed.iter().copied().collect();
    let set = per_group * spatial;
    if set > 0 {
        for group in values.chunks_mut(set) {
            let (mean, inverse) = moments(group, epsilon);
            group.iter_mut().for_each(|v| *v = (*v - mean) * inverse);
        }
    }
    let normalized = ArrayD::from_shape_vec(IxDyn(&shape), values).map_err(|e| e.to_string())?;
    let mut normalized: Vec<f64> = round_through(x.dtype, normalized)?
        .iter()
        .copied()
        .collect();
    if spatial > 0 {
        for (i, channel_block) in normalized.chunks_mut(spatial).enumerate() {
            let channel = i % channels;
            let k = if per_channel {
                channel
            } else {
                channel / per_group
            };
            channel_block
                .iter_mut()
                .for_each(|v| *v = *v * scale[k] + bias[k]);
        }
    }
    debug_assert_eq!(normalized.len(), n * channels * spatial);
    let y = ArrayD::from_shape_vec(IxDyn(&shape), normalized).map_err(|e| e.to_string())?;
    Ok(vec![Val::Tensor(narrow(x.dtype, y)?)])
}

/// RMSNormalization: X over the root mean square of its trailing axes from `axis`, times the
/// scale; Y has the scale's element type.
fn rms_normalization(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (x, scale) = (tensor(inputs, 0)?, tensor(inputs, 1)?);
    let shape = x.shape().to_vec();
    if shape.is_empty() {
        return Err("RMSNormalization of a scalar".to_string());
    }
    let at = axis(ctx.int("axis", -1), shape.len())?;
    let stash = stash_type(ctx)?;
    let epsilon = f64::from(ctx.float("epsilon", 1e-5));
    let rows = Rows::flattened(&shape, at);
    let mut values: Vec<f64> = round_through(stash, widen(x)?)?.iter().copied().collect();
    if rows.len > 0 {
        for row in values.chunks_mut(rows.len) {
            let mean_square = row.iter().map(|v| v * v).sum::<f64>() / rows.len as f64;
            let rms = (mean_square + epsilon).sqrt();
            row.iter_mut().for_each(|v| *v /= rms);
        }
    }
    let normalized = ArrayD::from_shape_vec(IxDyn(&shape), values).map_err(|e| e.to_string())?;
    let normalized = round_through(x.dtype, normalized)?;
    let y = normalized * broadcast_operand(scale, &shape, "scale")?;
    Ok(vec![Val::Tensor(narrow(scale.dtype, y)?)])
}

#[cfg(test)]
mod tests {
    use crate::Value;

    /// GroupNormalization-18 scales and shifts per group: one group over [0, 0, 2, 2] has mean 1
    /// and variance 1, so Y = 2 * (x - 1) / sqrt(1 + 1e-5) + 1 (by hand from the spec).
    #[test]
    fn group_normalization_18_scales_per_group() {
        let model = onnx_text::parse_model(
            r#"<ir_version: 8, opset_import: ["" : 18]>
            g (float[1, 2, 2] x, float[1] scale, float[1] bias) => (float[1, 2, 2] y) {
                y = GroupNormalization <num_groups = 1> (x, scale, bias)
            }"#,
        )
        .unwrap();
        let inputs = [
            Value::tensor(&[0.0f32, 0.0, 2.0, 2.0], &[1, 2, 2]).unwrap(),
            Value::tensor(&[2.0f32], &[1]).unwrap(),
            Value::tensor(&[1.0f32], &[1]).unwrap(),
        ];
        let y = crate::run(&model, &inputs).unwrap()[0]
            .to_vec::<f32>()
            .unwrap();
        let k = 2.0 / (1.0f32 + 1e-5).sqrt();
        let want = [1.0 - k, 1.0 - k, 1.0 + k, 1.0 + k];
        assert!(
            y.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-5),
            "{y:?} against {want:?}"
        );
    }
}
