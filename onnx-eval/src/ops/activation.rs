//! Activations, element-wise: Sigmoid, HardSigmoid, HardSwish, Elu, Selu, Celu, Gelu, Mish,
//! Softplus, Softsign, ThresholdedRelu, Shrink, Swish and PRelu. Each computes in f64 and
//! rounds once to the element type.

use super::elementwise::{Real, broadcast_shape, float_unary, real, real2, zip_broadcast};
use super::math::erf;
use super::{Ctx, Registry, one, tensor};
use crate::error::KernelResult;
use crate::tensor::MapEach;
use crate::tensor::{Data, Tensor};
use crate::value::Val;

pub(super) fn register(r: &mut Registry) {
    r.add("", "Sigmoid", 1, sigmoid_kernel);
    r.add("", "HardSigmoid", 1, hard_sigmoid);
    r.add("", "HardSwish", 14, hard_swish);
    r.add("", "Elu", 1, elu);
    r.add("", "Selu", 1, selu);
    // Version 6 changed the defaults of alpha and gamma.
    r.add("", "Selu", 6, selu);
    r.add("", "Celu", 12, celu);
    r.add("", "Gelu", 20, gelu);
    r.add("", "Mish", 18, mish);
    r.add("", "Softplus", 1, softplus_kernel);
    r.add("", "Softsign", 1, softsign);
    r.add("", "ThresholdedRelu", 10, thresholded_relu);
    r.add("", "Shrink", 9, shrink);
    r.add("", "Swish", 24, swish);
    r.add("", "PRelu", 1, prelu);
    // From version 7 on the slope broadcasts to X.
    r.add("", "PRelu", 7, prelu);
}

/// A float attribute as f64.
fn attribute(ctx: &Ctx<'_>, name: &str, default: f32) -> f64 {
    f64::from(ctx.float(name, default))
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// ln(1 + e^x), without overflow for large x.
fn softplus(x: f64) -> f64 {
    if x > 0.0 {
        x + (-x).exp().ln_1p()
    } else {
        x.exp().ln_1p()
    }
}

fn sigmoid_kernel(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(float_unary(tensor(inputs, 0)?, &sigmoid)?)
}

fn hard_sigmoid(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let alpha = attribute(ctx, "alpha", 0.2);
    let beta = attribute(ctx, "beta", 0.5);
    one(float_unary(tensor(inputs, 0)?, &|x| {
        (alpha * x + beta).clamp(0.0, 1.0)
    })?)
}

fn hard_swish(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(float_unary(tensor(inputs, 0)?, &|x| {
        x * (x / 6.0 + 0.5).clamp(0.0, 1.0)
    })?)
}

fn elu(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let alpha = attribute(ctx, "alpha", 1.0);
    one(float_unary(tensor(inputs, 0)?, &|x| {
        if x < 0.0 { alpha * x.exp_m1() } else { x }
    })?)
}

/// Selu: gamma * x above 0, gamma * alpha * (e^x - 1) at or below; version 1's defaults are
/// the constants to four places, version 6's to the float's precision.
fn selu(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (alpha_default, gamma_default) = if ctx.since < 6 {
        (1.6732, 1.0507)
    } else {
        (1.673_263_2, 1.050_701)
    };
    let alpha = attribute(ctx, "alpha", alpha_default);
    let gamma = attribute(ctx, "gamma", gamma_default);
    one(float_unary(tensor(inputs, 0)?, &|x| {
        if x > 0.0 {
            gamma * x
        } else {
            gamma * alpha * x.exp_m1()
        }
    })?)
}

fn celu(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let alpha = attribute(ctx, "alpha", 1.0);
    one(float_unary(tensor(inputs, 0)?, &|x| {
        x.max(0.0) + (alpha * (x / alpha).exp_m1()).min(0.0)
    })?)
}

/// Gelu, by erf or (`approximate` "tanh") by its tanh approximation.
fn gelu(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    match ctx.string("approximate").as_deref().unwrap_or("none") {
        "none" => one(float_unary(x, &|v| {
            0.5 * v * (1.0 + erf(v / std::f64::consts::SQRT_2))
        })?),
        "tanh" => {
            let scale = (2.0 / std::f64::consts::PI).sqrt();
            one(float_unary(x, &|v| {
                0.5 * v * (1.0 + (scale * (v + 0.044715 * v * v * v)).tanh())
            })?)
        }
        other => Err(format!(
            "approximate is {other:?}, not \"none\" or \"tanh\""
        )),
    }
}

fn mish(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(float_unary(tensor(inputs, 0)?, &|x| {
        x * softplus(x).tanh()
    })?)
}

fn softplus_kernel(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(float_unary(tensor(inputs, 0)?, &softplus)?)
}

fn softsign(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(float_unary(tensor(inputs, 0)?, &|x| x / (1.0 + x.abs()))?)
}

fn thresholded_relu(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let alpha = attribute(ctx, "alpha", 1.0);
    one(float_unary(tensor(inputs, 0)?, &|x| {
        if x > alpha { x } else { 0.0 }
    })?)
}

/// Shrink, for every numeric type: x + bias below -lambd, x - bias above lambd, else 0
/// (integers truncated toward zero).
fn shrink(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let lambd = attribute(ctx, "lambd", 0.5);
    let bias = attribute(ctx, "bias", 0.0);
    fn of<T: Real>(v: T, lambd: f64, bias: f64) -> T {
        let x = v.to_f64();
        T::from_f64(if x < -lambd {
            x + bias
        } else if x > lambd {
            x - bias
        } else {
            0.0
        })
    }
    let x = tensor(inputs, 0)?;
    one(real!(x, a => a.map_each(&|v| of(v, lambd, bias))))
}

fn swish(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let alpha = attribute(ctx, "alpha", 1.0);
    one(float_unary(tensor(inputs, 0)?, &|x| {
        x * sigmoid(alpha * x)
    })?)
}

/// PRelu: slope * x below 0. Before version 7 the slope has X's shape, one element ("shared
/// across different channels", so the spec's slope is otherwise one per channel), or one
/// element per channel (axis 1), which PyTorch's exporter wrote for opset 6; from 7 on it
/// broadcasts to X's shape (and only to it).
fn prelu(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (x, slope) = (tensor(inputs, 0)?, tensor(inputs, 1)?);
    let to_shape = |shape: &[usize]| -> KernelResult<Tensor> {
        Ok(slope.with_data(crate::tensor::map_data!(&slope.data, s => s
            .clone()
            .into_shape_with_order(ndarray::IxDyn(shape))
            .map_err(|e| format!("{e}"))?)))
    };
    let slope = if ctx.since >= 7 {
        if broadcast_shape(x.shape(), slope.shape())? != x.shape() {
            return Err(format!(
                "the slope's shape {:?} does not broadcast to X's {:?}",
                slope.shape(),
                x.shape()
            ));
        }
        slope.clone()
    } else if slope.shape() == x.shape() {
        slope.clone()
    } else if slope.len() == 1 {
        to_shape(&[])?
    } else if slope.shape().len() == 1 && x.shape().len() >= 2 && slope.len() == x.shape()[1] {
        // [C] as [C, 1, ..., 1]: it broadcasts along axis 1 of X.
        let mut shape = vec![1; x.shape().len() - 1];
        shape[0] = slope.len();
        to_shape(&shape)?
    } else {
        return Err(format!(
            "before version 7 the slope has X's shape {:?}, one element, or one per channel \
             (axis 1), not shape {:?}",
            x.shape(),
            slope.shape()
        ));
    };
    fn of<T: Real>(v: T, s: T) -> T {
        if v < T::default() { v.mul(s) } else { v }
    }
    one(real2!(x, &slope, (a, b) => zip_broadcast(a, b, &|&v, &s| of(v, s))?))
}

#[cfg(test)]
mod tests {
    use super::super::math::testing::*;

    /// Selu's defaults: version 1's alpha 1.6732 and gamma 1.0507, version 6's 1.67326319 and
    /// 1.05070102. Expected values by hand: gamma * alpha * (e^-1 - 1) and gamma * 2.
    #[test]
    fn selu_defaults_change_at_version_6() {
        let text = |opset: i64| {
            format!(
                r#"<ir_version: 3, opset_import: ["" : {opset}]>
                g (float[2] x) => (float[2] y) {{ y = Selu (x) }}"#
            )
        };
        let x = floats(&[-1.0, 2.0], &[2]);
        let expected = |alpha: f64, gamma: f64| {
            [
                (gamma * alpha * ((-1f64).exp() - 1.0)) as f32,
                (gamma * 2.0) as f32,
            ]
        };
        let v1 = run_f32(&text(1), std::slice::from_ref(&x)).unwrap();
        let v6 = run_f32(&text(6), &[x]).unwrap();
        let (alpha1, gamma1) = (f64::from(1.6732f32), f64::from(1.0507f32));
        let (alpha6, gamma6) = (f64::from(1.673_263_2_f32), f64::from(1.050_701_f32));
        assert_eq!(v1, expected(alpha1, gamma1));
        assert_eq!(v6, expected(alpha6, gamma6));
        assert_ne!(v1, v6);
    }

    /// PRelu before version 7 takes a slope of X's shape, one element, or one per channel
    /// (axis 1); from 7 on the slope broadcasts from the last axis. So a slope of shape [2]
    /// over X [1, 2, 2] scales the rows at 6 and the columns at 7. By hand.
    #[test]
    fn prelu_broadcasts_the_slope_from_version_7() {
        let text = |opset: i64, slope: usize| {
            format!(
                r#"<ir_version: 3, opset_import: ["" : {opset}]>
                g (float[1, 2, 2] x, float[{slope}] s) => (float[1, 2, 2] y) {{ y = PRelu (x, s) }}"#
            )
        };
        let x = floats(&[-1.0, -2.0, 3.0, -4.0], &[1, 2, 2]);
        let s = floats(&[0.5, 0.25], &[2]);
        assert_eq!(
            run_f32(&text(7, 2), &[x.clone(), s.clone()]),
            Ok(vec![-0.5, -0.5, 3.0, -1.0])
        );
        assert_eq!(
            run_f32(&text(6, 2), &[x.clone(), s]),
            Ok(vec![-0.5, -1.0, 3.0, -1.0])
        );
        assert_eq!(
            run_f32(&text(6, 1), &[x.clone(), floats(&[0.5], &[1])]),
            Ok(vec![-0.5, -1.0, 3.0, -2.0])
        );
        let error = run_f32(&text(6, 3), &[x, floats(&[0.5, 0.25, 2.0], &[3])]).unwrap_err();
        assert!(
            error.contains("before version 7 the slope has X's shape [1, 2, 2], one element, or one per channel (axis 1), not shape [3]"),
            "{error}"
        );
    }
}
