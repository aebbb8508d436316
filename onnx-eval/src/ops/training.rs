//! The optimizers of ai.onnx.preview.training: Adagrad, Adam and Momentum. Each takes the
//! learning rate R and the update count T, then groups of n tensors (the parameters X, their
//! gradients G, and the optimizer's accumulators), and gives the updated X and accumulators.
//! Computed in f64 from the spec's pseudo code, rounded once to the tensors' type.

use super::{Ctx, Registry, tensor};
use crate::error::KernelResult;
use crate::halves::{bf16, f16};
use crate::tensor::{Data, Tensor};
use crate::value::Val;

const DOMAIN: &str = "ai.onnx.preview.training";

pub(super) fn register(r: &mut Registry) {
    r.add(DOMAIN, "Adagrad", 1, adagrad);
    r.add(DOMAIN, "Adam", 1, adam);
    r.add(DOMAIN, "Momentum", 1, momentum);
}

/// A tensor of `like`'s float type and shape holding `values`.
pub(crate) fn floats_like(like: &Tensor, values: Vec<f64>) -> KernelResult<Tensor> {
    let shape = ndarray::IxDyn(like.shape());
    let err = |e: ndarray::ShapeError| e.to_string();
    let data = match &like.data {
        Data::F32(_) => Data::F32(
            ndarray::ArrayD::from_shape_vec(shape, values.into_iter().map(|v| v as f32).collect())
                .map_err(err)?,
        ),
        Data::F64(_) => Data::F64(ndarray::ArrayD::from_shape_vec(shape, values).map_err(err)?),
        Data::F16(_) => Data::F16(
            ndarray::ArrayD::from_shape_vec(shape, values.into_iter().map(f16::from_f64).collect())
                .map_err(err)?,
        ),
        Data::BF16(_) => Data::BF16(
            ndarray::ArrayD::from_shape_vec(
                shape,
                values.into_iter().map(bf16::from_f64).collect(),
            )
            .map_err(err)?,
        ),
        _ => return Err(format!("expected floats, got {}", like.type_name())),
    };
    Ok(like.with_data(data))
}

/// R and T, both scalars.
fn rate_and_count(inputs: &[Option<&Val>]) -> KernelResult<(f64, i64)> {
    let rate = match tensor(inputs, 0)?.to_f64_vec()?[..] {
        [r] => r,
        _ => return Err("the learning rate R must be one number".to_string()),
    };
    let count = match tensor(inputs, 1)?.to_i64_vec()?[..] {
        [t] => t,
        _ => return Err("the update count T must be one integer".to_string()),
    };
    Ok((rate, count))
}

/// The groups after R and T: `groups` lists of n tensors each, every tensor of its X's shape.
fn groups<'v>(inputs: &[Option<&'v Val>], groups: usize) -> KernelResult<Vec<Vec<&'v Tensor>>> {
    let operands = inputs.len().saturating_sub(2);
    if operands == 0 || !operands.is_multiple_of(groups) {
        return Err(format!(
            "{operands} tensors after R and T, not {groups} groups of one size"
        ));
    }
    let n = operands / groups;
    let mut result = Vec::with_capacity(groups);
    for g in 0..groups {
        let group = (0..n)
            .map(|i| tensor(inputs, 2 + g * n + i))
            .collect::<KernelResult<Vec<_>>>()?;
        result.push(group);
    }
    for i in 0..n {
        let x = result[0][i];
        if let Some(other) = result.iter().map(|g| g[i]).find(|t| t.shape() != x.shape()) {
            return Err(format!(
                "tensor {i} of a group has shape {:?}, its X {:?}",
                other.shape(),
                x.shape()
            ));
        }
    }
    Ok(result)
}

/// Applies `update` to the elements of each parameter's group (X, G, then the accumulators),
/// giving the new X's, then each new accumulator's tensors.
fn update_all(
    inputs: &[Option<&Val>],
    group_count: usize,
    update: impl Fn(&[f64]) -> Vec<f64>,
) -> KernelResult<Vec<Val>> {
    let groups = groups(inputs, group_count)?;
    let outputs_per_item = group_count - 1;
    let n = groups[0].len();
    let mut outputs: Vec<Vec<Val>> = vec![Vec::with_capacity(n); outputs_per_item];
    for i in 0..n {
        let columns: Vec<Vec<f64>> = groups
            .iter()
            .map(|g| g[i].to_f64_vec())
            .collect::<KernelResult<_>>()?;
        let len = columns[0].len();
        let mut results: Vec<Vec<f64>> = vec![Vec::with_capacity(len); outputs_per_item];
        for e in 0..len {
            let operands: Vec<f64> = columns.iter().map(|c| c[e]).collect();
            for (result, value) in results.iter_mut().zip(update(&operands)) {
                result.push(value);
            }
        }
        // X's outputs come first, then the accumulators' (skipping G's group).
        let likes = std::iter::once(0).chain(2..group_count);
        for ((output, values), like) in outputs.iter_mut().zip(results).zip(likes) {
            output.push(Val::Tensor(floats_like(groups[like][i], values)?));
        }
    }
    Ok(outputs.into_iter().flatten().collect())
}

/// Adagrad: H += G_reg², X -= r · G_reg / (√H + ε), with r = R / (1 + T · decay_factor).
fn adagrad(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (rate, count) = rate_and_count(inputs)?;
    let decay = f64::from(ctx.float("decay_factor", 0.0));
    let epsilon = f64::from(ctx.float("epsilon", 1e-6));
    let norm = f64::from(ctx.float("norm_coefficient", 0.0));
    let r = rate / (1.0 + count as f64 * decay);
    update_all(inputs, 3, |v| {
        let (x, g, h) = (v[0], v[1], v[2]);
        let g_reg = norm * x + g;
        let h_new = h + g_reg * g_reg;
        let x_new = x - r * g_reg / (h_new.sqrt() + epsilon);
        vec![x_new, h_new]
    })
}

/// A float attribute that has no default.
fn required_float(ctx: &Ctx<'_>, name: &str) -> KernelResult<f32> {
    ctx.attribute(name)
        .and_then(|a| a.f)
        .ok_or_else(|| format!("attribute `{name}` is required"))
}

/// Momentum, standard or Nesterov's: V = α·V + β'·G_reg (β' = 1 at T = 0), then X moves by R·V,
/// or by R·(G_reg + α·V).
fn momentum(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (rate, count) = rate_and_count(inputs)?;
    let alpha = f64::from(required_float(ctx, "alpha")?);
    let beta = f64::from(required_float(ctx, "beta")?);
    let norm = f64::from(required_float(ctx, "norm_coefficient")?);
    let nesterov = match ctx.string("mode").as_deref() {
        Some("standard") => false,
        Some("nesterov") => true,
        other => return Err(format!("mode must be standard or nesterov, got {other:?}")),
    };
    let beta = if count > 0 { beta } else { 1.0 };
    update_all(inputs, 3, |v| {
        let (x, g, velocity) = (v[0], v[1], v[2]);
        let g_reg = norm * x + g;
        let v_new = alpha * velocity + beta * g_reg;
        let x_new = if nesterov {
            x - rate * (g_reg + alpha * v_new)
        } else {
            x - rate * v_new
        };
        vec![x_new, v_new]
    })
}

/// Adam: V and H are the moving averages of G_reg and G_reg²; X moves by
/// R' · V / (√H + ε), R' bias-corrected when T > 0; then shrinks by `norm_coefficient_post`.
fn adam(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (rate, count) = rate_and_count(inputs)?;
    let alpha = f64::from(ctx.float("alpha", 0.9));
    let beta = f64::from(ctx.float("beta", 0.999));
    let epsilon = f64::from(ctx.float("epsilon", 1e-6));
    let norm = f64::from(ctx.float("norm_coefficient", 0.0));
    let norm_post = f64::from(ctx.float("norm_coefficient_post", 0.0));
    let rate = if count > 0 {
        let t = count as f64;
        rate * (1.0 - beta.powf(t)).sqrt() / (1.0 - alpha.powf(t))
    } else {
        rate
    };
    update_all(inputs, 4, |v| {
        let (x, g, velocity, h) = (v[0], v[1], v[2], v[3]);
        let g_reg = norm * x + g;
        let v_new = alpha * velocity + (1.0 - alpha) * g_reg;
        let h_new = beta * h + (1.0 - beta) * g_reg * g_reg;
        let x_new = x - rate * v_new / (h_new.sqrt() + epsilon);
        vec![(1.0 - norm_post) * x_new, v_new, h_new]
    })
}

#[cfg(test)]
mod tests {
    use crate::Value;

    /// Nesterov's momentum at T = 0 (β' = 1), by hand from the spec: X = 1, G = 2, V = 3,
    /// α = 0.5, R = 0.1: V' = 1.5 + 2 = 3.5, X' = 1 - 0.1 · (2 + 1.75) = 0.625.
    #[test]
    fn nesterov_momentum_at_the_first_update() {
        let model = onnx_text::parse_model(
            "<ir_version: 7, opset_import: [\"ai.onnx.preview.training\" : 1]>
            g (float r, int64 t, float[1] x, float[1] gr, float[1] v) => (float[1] x2, float[1] v2) {
                x2, v2 = ai.onnx.preview.training.Momentum <alpha: float = 0.5, beta: float = 0.25,
                    mode: string = \"nesterov\", norm_coefficient: float = 0.0> (r, t, x, gr, v)
            }",
        )
        .unwrap();
        let inputs = [
            Value::tensor(&[0.1f32], &[]).unwrap(),
            Value::tensor(&[0i64], &[]).unwrap(),
            Value::tensor(&[1.0f32], &[1]).unwrap(),
            Value::tensor(&[2.0f32], &[1]).unwrap(),
            Value::tensor(&[3.0f32], &[1]).unwrap(),
        ];
        let out = crate::run(&model, &inputs).unwrap();
        assert_eq!(out[0].to_vec::<f32>().unwrap(), [0.625]);
        assert_eq!(out[1].to_vec::<f32>().unwrap(), [3.5]);
    }
}
