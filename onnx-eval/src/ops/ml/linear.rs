//! Linear models: LinearClassifier and LinearRegressor.

use super::{DOMAIN, Labels, Transform, argmax, float_tensor, floats, rows, second_class};
use crate::error::KernelResult;
use crate::ops::{Ctx, Registry, one, tensor};
use crate::value::Val;

pub(super) fn register(r: &mut Registry) {
    r.add(DOMAIN, "LinearClassifier", 1, linear_classifier);
    r.add(DOMAIN, "LinearRegressor", 1, linear_regressor);
}

/// X [N, F] times `coefficients` [T, F] transposed, plus `intercepts` [T] (or none): [N, T].
fn scores(ctx: &Ctx<'_>, x: &[f64], n: usize, f: usize, targets: usize) -> KernelResult<Vec<f64>> {
    let coefficients = floats(ctx, "coefficients");
    let intercepts = floats(ctx, "intercepts");
    if coefficients.len() != targets.saturating_mul(f) {
        return Err(format!(
            "{} coefficients for {targets} targets of {f} features",
            coefficients.len()
        ));
    }
    if !intercepts.is_empty() && intercepts.len() != targets {
        return Err(format!(
            "{} intercepts for {targets} targets",
            intercepts.len()
        ));
    }
    ctx.checked_count(&[n, targets])?;
    let mut out = Vec::with_capacity(n * targets);
    for row in 0..n {
        let xr = &x[row * f..(row + 1) * f];
        for t in 0..targets {
            let w = &coefficients[t * f..(t + 1) * f];
            let dot: f64 = xr.iter().zip(w).map(|(a, b)| a * b).sum();
            out.push(dot + intercepts.get(t).copied().unwrap_or(0.0));
        }
    }
    Ok(out)
}

/// LinearClassifier: a score per class (one per intercept), the label of the greatest, then
/// `post_transform`. One score with two labels is a binary classifier: the second label where
/// the score is positive, and scores [1 - s, s] (onnxruntime's reading).
fn linear_classifier(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let (n, f, values) = rows(x)?;
    let labels = Labels::read(ctx, "classlabels_ints")?;
    let classes = floats(ctx, "intercepts").len();
    if classes == 0 {
        return Err("intercepts are required (one per class)".to_string());
    }
    let transform = Transform::read(ctx)?;
    let raw = scores(ctx, &values, n, f, classes)?;
    if classes == 1 {
        let binary = labels.len() == 2;
        if !binary && labels.len() != 1 {
            return Err(format!("one class score for {} labels", labels.len()));
        }
        let chosen: Vec<usize> = raw
            .iter()
            .map(|&s| if binary && s > 0.0 { 1 } else { 0 })
            .collect();
        let (width, out) = if binary {
            let mut out = Vec::with_capacity(2 * n);
            for &s in &raw {
                let mut one = [s];
                transform.apply(&mut one);
                let pair = if transform == Transform::Probit {
                    [one[0], one[0]]
                } else {
                    second_class(one[0], true, Transform::None)
                };
                out.extend(pair);
            }
            (2, out)
        } else {
            let mut out = raw;
            transform.apply(&mut out);
            (1, out)
        };
        return Ok(vec![
            Val::Tensor(labels.pick(&chosen)?),
            Val::Tensor(float_tensor(out, &[n, width])?),
        ]);
    }
    if labels.len() != classes {
        return Err(format!(
            "{classes} class scores for {} labels",
            labels.len()
        ));
    }
    let mut out = raw;
    let mut chosen = Vec::with_capacity(n);
    for row in out.chunks_mut(classes) {
        chosen.push(argmax(row));
        transform.apply(row);
    }
    Ok(vec![
        Val::Tensor(labels.pick(&chosen)?),
        Val::Tensor(float_tensor(out, &[n, classes])?),
    ])
}

/// LinearRegressor: `targets` scores per row, then `post_transform`.
fn linear_regressor(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let (n, f, values) = rows(x)?;
    let targets = usize::try_from(ctx.int("targets", 1)).map_err(|_| "targets is negative")?;
    let transform = Transform::read(ctx)?;
    let mut out = scores(ctx, &values, n, f, targets)?;
    if targets > 0 {
        out.chunks_mut(targets).for_each(|row| transform.apply(row));
    }
    one(float_tensor(out, &[n, targets])?)
}
