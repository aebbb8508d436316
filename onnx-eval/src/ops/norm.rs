//! Normalizations and Dropout: BatchNormalization (inference and training outputs),
//! InstanceNormalization, LRN, LpNormalization, MeanVarianceNormalization, and Dropout in
//! inference. Values are computed in f64 and rounded once to the element type.

use super::floats::{from_f64, to_f64};
use super::{Ctx, Registry, axis, one, tensor, tensor_opt};
use crate::error::KernelResult;
use crate::tensor::MapEach;
use crate::tensor::{Data, Tensor};
use crate::value::Val;
use ndarray::{ArrayD, Axis, IxDyn};

pub(super) fn register(r: &mut Registry) {
    for since in [1, 6, 7, 9, 14, 15] {
        r.add("", "BatchNormalization", since, batch_normalization);
    }
    for since in [1, 6, 22] {
        r.add("", "InstanceNormalization", since, instance_normalization);
    }
    for since in [1, 13] {
        r.add("", "LRN", since, lrn);
    }
    for since in [1, 22] {
        r.add("", "LpNormalization", since, lp_normalization);
    }
    for since in [9, 13] {
        r.add(
            "",
            "MeanVarianceNormalization",
            since,
            mean_variance_normalization,
        );
    }
    // From 12 on, Dropout is `random::dropout`: inference here, or seeded masks in training.
    for since in [1, 6, 7, 10] {
        r.add("", "Dropout", since, dropout);
    }
}

/// A float operand's elements, which must number `count`.
fn vector(
    inputs: &[Option<&Val>],
    index: usize,
    count: usize,
    name: &str,
) -> KernelResult<Vec<f64>> {
    let values: Vec<f64> = to_f64(tensor(inputs, index)?)?.iter().copied().collect();
    if values.len() != count {
        return Err(format!("{name} has {} elements, not {count}", values.len()));
    }
    Ok(values)
}

/// X seen as [N, K, inner] for per-channel statistics: K the channels (or, with `spatial` 0
/// before version 9, every non-batch element).
fn channel_blocks(shape: &[usize], per_element: bool) -> KernelResult<(usize, usize, usize)> {
    if shape.len() < 2 {
        return Err(format!("X of shape {shape:?} has no channel axis"));
    }
    let inner: usize = shape[2..].iter().product();
    Ok(if per_element {
        (shape[0], shape[1] * inner, 1)
    } else {
        (shape[0], shape[1], inner)
    })
}

/// The mean and population variance of each channel of `x` ([N, K, inner], flat).
fn channel_moments(x: &[f64], (n, k, inner): (usize, usize, usize)) -> (Vec<f64>, Vec<f64>) {
    let count = (n * inner).max(1) as f64;
    let mut mean = vec![0.0; k];
    let mut var = vec![0.0; k];
    for c in 0..k {
        let values = (0..n).flat_map(|b| x[(b * k + c) * inner..(b * k + c + 1) * inner].iter());
        mean[c] = values.clone().sum::<f64>() / count;
        var[c] = values.map(|v| (v - mean[c]) * (v - mean[c])).sum::<f64>() / count;
    }
    (mean, var)
}

/// Y = scale * (X - mean) / sqrt(var + epsilon) + B, per channel.
fn normalize(
    x: &[f64],
    (n, k, inner): (usize, usize, usize),
    [scale, bias, mean, var]: [&[f64]; 4],
    epsilon: f64,
) -> Vec<f64> {
    let mut y = Vec::with_capacity(x.len());
    for b in 0..n {
        for c in 0..k {
            let factor = scale[c] / (var[c] + epsilon).sqrt();
            let shift = bias[c] - mean[c] * factor;
            let block = &x[(b * k + c) * inner..(b * k + c + 1) * inner];
            y.extend(block.iter().map(|&v| v * factor + shift));
        }
    }
    y
}

fn flat(values: &ArrayD<f64>) -> Vec<f64> {
    values.iter().copied().collect()
}

/// A 1-D tensor of `dtype` from f64 values.
fn vector_tensor(
    dtype: onnx_runtime_types::tensor_proto::DataType,
    values: Vec<f64>,
) -> KernelResult<Tensor> {
    let n = values.len();
    from_f64(
        dtype,
        ArrayD::from_shape_vec(IxDyn(&[n]), values).map_err(|e| e.to_string())?,
    )
}

/// BatchNormalization. Inference normalizes by the given mean and variance. Training (more
/// than one output before version 14, `training_mode` from it) normalizes by the batch's own
/// moments and gives the running moments (`momentum`-weighted), and before version 14 the
/// batch's moments too.
fn batch_normalization(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let values = to_f64(x)?;
    let per_element = ctx.since < 9 && ctx.int("spatial", 1) == 0;
    let blocks = channel_blocks(values.shape(), per_element)?;
    let k = blocks.1;
    let scale = vector(inputs, 1, k, "scale")?;
    let bias = vector(inputs, 2, k, "B")?;
    let mean = vector(inputs, 3, k, "mean")?;
    let var = vector(inputs, 4, k, "var")?;
    let epsilon = f64::from(ctx.float("epsilon", 1e-5));
    let momentum = f64::from(ctx.float("momentum", 0.9));
    let training = if ctx.since >= 14 {
        ctx.int("training_mode", 0) != 0
    } else if ctx.since < 7 && ctx.int("is_test", 0) != 0 {
        false
    } else {
        ctx.outputs > 1
    };
    let xs = flat(&values);
    let shape = values.shape().to_vec();
    let to_y = |y: Vec<f64>| -> KernelResult<Val> {
        let y = ArrayD::from_shape_vec(IxDyn(&shape), y).map_err(|e| e.to_string())?;
        Ok(Val::Tensor(from_f64(x.dtype, y)?))
    };
    if !training {
        return Ok(vec![to_y(normalize(
            &xs,
            blocks,
            [&scale, &bias, &mean, &var],
            epsilon,
        ))?]);
    }
    let (batch_mean, batch_var) = channel_moments(&xs, blocks);
    let y = normalize(
        &xs,
        blocks,
        [&scale, &bias, &batch_mean, &batch_var],
        epsilon,
    );
    let running = |given: &[f64], batch: &[f64]| -> Vec<f64> {
        given
            .iter()
            .zip(batch)
            .map(|(g, b)| g * momentum + b * (1.0 - momentum))
            .collect()
    };
    let stats_type = tensor(inputs, 3)?.dtype;
    let mut outputs = vec![
        to_y(y)?,
        Val::Tensor(vector_tensor(stats_type, running(&mean, &batch_mean))?),
        Val::Tensor(vector_tensor(stats_type, running(&var, &batch_var))?),
    ];
    if ctx.since < 14 {
        outputs.push(Val::Tensor(vector_tensor(stats_type, batch_mean)?));
        outputs.push(Val::Tensor(vector_tensor(stats_type, batch_var)?));
    }
    outputs.truncate(ctx.outputs.max(1));
    Ok(outputs)
}

/// InstanceNormalization: each (batch, channel) plane normalized by its own moments, then
/// scaled and shifted per channel.
fn instance_normalization(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let values = to_f64(x)?;
    let shape = values.shape().to_vec();
    let (n, k, inner) = channel_blocks(&shape, false)?;
    let scale = vector(inputs, 1, k, "scale")?;
    let bias = vector(inputs, 2, k, "B")?;
    let epsilon = f64::from(ctx.float("epsilon", 1e-5));
    let xs = flat(&values);
    let mut y = Vec::with_capacity(xs.len());
    for b in 0..n {
        let batch = &xs[b * k * inner..(b + 1) * k * inner];
        let (mean, var) = channel_moments(batch, (1, k, inner));
        y.extend(normalize(
            batch,
            (1, k, inner),
            [&scale, &bias, &mean, &var],
            epsilon,
        ));
    }
    let y = ArrayD::from_shape_vec(IxDyn(&shape), y).map_err(|e| e.to_string())?;
    one(from_f64(x.dtype, y)?)
}

/// LRN: each element divided by (bias + alpha / size * the sum of squares over `size`
/// neighbouring channels) ^ beta.
fn lrn(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let values = to_f64(x)?;
    let shape = values.shape().to_vec();
    let (n, k, inner) = channel_blocks(&shape, false)?;
    let size = ctx.int_opt("size").ok_or("LRN needs its `size`")?;
    if size < 1 {
        return Err(format!("size {size}"));
    }
    let alpha = f64::from(ctx.float("alpha", 1e-4));
    let beta = f64::from(ctx.float("beta", 0.75));
    let bias = f64::from(ctx.float("bias", 1.0));
    let before = ((size - 1) / 2) as usize;
    let after = (size as usize - 1).div_ceil(2);
    let xs = flat(&values);
    let mut y = vec![0.0; xs.len()];
    for b in 0..n {
        for c in 0..k {
            let low = c.saturating_sub(before);
            let high = (c + after).min(k - 1);
            for i in 0..inner {
                let sum: f64 = (low..=high)
                    .map(|j| xs[(b * k + j) * inner + i].powi(2))
                    .sum();
                let at = (b * k + c) * inner + i;
                y[at] = xs[at] / (bias + alpha / size as f64 * sum).powf(beta);
            }
        }
    }
    let y = ArrayD::from_shape_vec(IxDyn(&shape), y).map_err(|e| e.to_string())?;
    one(from_f64(x.dtype, y)?)
}

/// LpNormalization: X divided by its L1 or L2 norm along `axis`.
fn lp_normalization(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let mut values = to_f64(x)?;
    let along = axis(ctx.int("axis", -1), values.ndim())?;
    let p = ctx.int("p", 2);
    if p != 1 && p != 2 {
        return Err(format!("p {p} is neither 1 nor 2"));
    }
    if values.ndim() > 0 {
        for mut lane in values.lanes_mut(Axis(along)) {
            let norm = if p == 1 {
                lane.iter().map(|v| v.abs()).sum::<f64>()
            } else {
                lane.iter().map(|v| v * v).sum::<f64>().sqrt()
            };
            // A zero norm leaves its zeros (as onnx's evaluator does; the spec is silent).
            if norm != 0.0 {
                lane.mapv_inplace(|v| v / norm);
            }
        }
    }
    one(from_f64(x.dtype, values)?)
}

/// MeanVarianceNormalization, as its function body computes it: (X - mean) / (std + 1e-9),
/// the moments over `axes` (default [0, 2, 3]).
fn mean_variance_normalization(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let values = to_f64(x)?;
    let rank = values.ndim();
    let mut axes: Vec<usize> = ctx
        .ints("axes")
        .unwrap_or(&[0, 2, 3])
        .iter()
        .map(|&a| axis(a, rank))
        .collect::<KernelResult<_>>()?;
    axes.sort_unstable();
    axes.dedup();
    // The moments keep the reduced axes as 1, to broadcast back.
    let mut mean = values.clone();
    let mut square = values.map_each(&|v| v * v);
    for &a in axes.iter().rev() {
        mean = mean
            .mean_axis(Axis(a))
            .ok_or("an empty axis")?
            .insert_axis(Axis(a));
        square = square
            .mean_axis(Axis(a))
            .ok_or("an empty axis")?
            .insert_axis(Axis(a));
    }
    let std = (&square - &mean.map_each(&|m| m * m)).map_each(&|v| v.max(0.0).sqrt());
    let centered = &values - &mean;
    let y = centered / std.map_each(&|s| s + 1e-9);
    one(from_f64(x.dtype, y)?)
}

/// Dropout in inference: Y is X and the mask all true (of X's type before version 10).
/// Training (version 1 and 6's `is_test` unset, or `training_mode` with a nonzero ratio)
/// draws random numbers: not done here.
fn dropout(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let training = if ctx.since < 7 {
        ctx.int("is_test", 0) == 0
    } else if ctx.since >= 12 {
        let mode = match tensor_opt(inputs, 2)? {
            Some(t) => t.to_f64_vec()?.first().is_some_and(|&v| v != 0.0),
            None => false,
        };
        let ratio = match tensor_opt(inputs, 1)? {
            Some(t) => t.to_f64_vec()?.first().copied().unwrap_or(0.5),
            None => 0.5,
        };
        mode && ratio != 0.0
    } else {
        false
    };
    if training {
        return Err("Dropout in training mode (random) is not implemented".to_string());
    }
    let mut outputs = vec![Val::Tensor(x.clone())];
    if ctx.outputs > 1 {
        let mask = if ctx.since >= 10 {
            Tensor::from_data(Data::Bool(ArrayD::from_elem(IxDyn(x.shape()), true)))
        } else {
            let ones = ArrayD::from_elem(IxDyn(x.shape()), 1.0);
            from_f64(x.dtype, ones)?
        };
        outputs.push(Val::Tensor(mask));
    }
    Ok(outputs)
}

#[cfg(test)]
mod tests {
    use onnx_value::Value;

    fn close(actual: &[f32], expected: &[f32]) {
        assert_eq!(actual.len(), expected.len(), "{actual:?} vs {expected:?}");
        for (a, e) in actual.iter().zip(expected) {
            assert!((a - e).abs() < 1e-4, "{actual:?} vs {expected:?}");
        }
    }

    fn run(text: &str, inputs: &[Value]) -> Vec<Value> {
        crate::run(&onnx_text::parse_model(text).unwrap(), inputs).unwrap()
    }

    /// BatchNormalization-6 with `spatial` 0: one statistic per element of a sample. By hand:
    /// scale * (x - 1) / sqrt(1 + 1e-5) + B.
    #[test]
    fn batch_normalization_6_per_element_statistics() {
        let text = r#"<ir_version: 3, opset_import: ["" : 6]>
            g (float[1, 2, 2] x, float[2, 2] s, float[2, 2] b, float[2, 2] m, float[2, 2] v)
                => (float[1, 2, 2] y) {
                y = BatchNormalization <spatial = 0, is_test = 1> (x, s, b, m, v)
            }"#;
        let t = |v: [f32; 4], dims: &[usize]| Value::tensor(&v, dims).unwrap();
        let out = run(
            text,
            &[
                t([1.0, 2.0, 3.0, 4.0], &[1, 2, 2]),
                t([1.0, 2.0, 3.0, 4.0], &[2, 2]),
                t([0.0, 0.0, 0.0, 1.0], &[2, 2]),
                t([1.0; 4], &[2, 2]),
                t([1.0; 4], &[2, 2]),
            ],
        );
        let k = 1.0 / (1.0f32 + 1e-5).sqrt();
        close(
            &out[0].to_vec::<f32>().unwrap(),
            &[0.0, 2.0 * k, 6.0 * k, 12.0 * k + 1.0],
        );
    }

    /// Training outputs: version 9 gives them when asked for (Y, running mean and variance,
    /// the batch's mean and variance), version 14 when `training_mode` is set (the first
    /// three). By hand: X = [1, 3], batch mean 2, variance 1, momentum 0.9 on mean 0, var 1.
    #[test]
    fn batch_normalization_training_outputs_by_version() {
        let inputs = [
            Value::tensor(&[1.0f32, 3.0], &[2, 1]).unwrap(),
            Value::tensor(&[1.0f32], &[1]).unwrap(),
            Value::tensor(&[0.0f32], &[1]).unwrap(),
            Value::tensor(&[0.0f32], &[1]).unwrap(),
            Value::tensor(&[1.0f32], &[1]).unwrap(),
        ];
        let k = 1.0 / (1.0f32 + 1e-5).sqrt();
        let v9 = run(
            r#"<ir_version: 4, opset_import: ["" : 9]>
            g (float[2, 1] x, float[1] s, float[1] b, float[1] m, float[1] v)
                => (float[2, 1] y, float[1] rm, float[1] rv, float[1] sm, float[1] sv) {
                y, rm, rv, sm, sv = BatchNormalization (x, s, b, m, v)
            }"#,
            &inputs,
        );
        let values: Vec<Vec<f32>> = v9.iter().map(|v| v.to_vec::<f32>().unwrap()).collect();
        close(&values[0], &[-k, k]);
        close(&values[1], &[0.2]);
        close(&values[2], &[1.0]);
        close(&values[3], &[2.0]);
        close(&values[4], &[1.0]);
        let v15 = run(
            r#"<ir_version: 8, opset_import: ["" : 15]>
            g (float[2, 1] x, float[1] s, float[1] b, float[1] m, float[1] v)
                => (float[2, 1] y, float[1] rm, float[1] rv) {
                y, rm, rv = BatchNormalization <training_mode = 1> (x, s, b, m, v)
            }"#,
            &inputs,
        );
        assert_eq!(v15.len(), 3);
        close(&v15[1].to_vec::<f32>().unwrap(), &[0.2]);
        let inference = run(
            r#"<ir_version: 8, opset_import: ["" : 15]>
            g (float[2, 1] x, float[1] s, float[1] b, float[1] m, float[1] v) => (float[2, 1] y) {
                y = BatchNormalization (x, s, b, m, v)
            }"#,
            &inputs,
        );
        close(&inference[0].to_vec::<f32>().unwrap(), &[k, 3.0 * k]);
    }

    /// Dropout's mask is of X's type before version 10, bool from it. By hand: inference
    /// copies X and keeps every element.
    #[test]
    fn dropout_mask_type_by_version() {
        let x = Value::tensor(&[1.5f32, -2.0], &[2]).unwrap();
        let v6 = run(
            r#"<ir_version: 3, opset_import: ["" : 6]>
            g (float[2] x) => (float[2] y, float[2] mask) {
                y, mask = Dropout <is_test = 1> (x)
            }"#,
            std::slice::from_ref(&x),
        );
        assert_eq!(v6[0].to_vec::<f32>().unwrap(), [1.5, -2.0]);
        assert_eq!(v6[1].to_vec::<f32>().unwrap(), [1.0, 1.0]);
        let v10 = run(
            r#"<ir_version: 5, opset_import: ["" : 10]>
            g (float[2] x) => (float[2] y, bool[2] mask) { y, mask = Dropout (x) }"#,
            std::slice::from_ref(&x),
        );
        assert_eq!(v10[1].to_vec::<bool>().unwrap(), [true, true]);
        let training = onnx_text::parse_model(
            r#"<ir_version: 3, opset_import: ["" : 6]>
            g (float[2] x) => (float[2] y) { y = Dropout (x) }"#,
        )
        .unwrap();
        assert!(crate::run(&training, &[x]).is_err());
    }
}
