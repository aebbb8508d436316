//! Support vector machines: SVMClassifier (one-against-one voting, Platt probabilities with
//! pairwise coupling) and SVMRegressor (including one-class).

use super::{
    DOMAIN, Labels, Transform, argmax, float_tensor, floats, logistic, rows, second_class,
};
use crate::error::KernelResult;
use crate::ops::{Ctx, Registry, one, tensor};
use crate::value::Val;

pub(super) fn register(r: &mut Registry) {
    r.add(DOMAIN, "SVMClassifier", 1, svm_classifier);
    r.add(DOMAIN, "SVMRegressor", 1, svm_regressor);
}

/// The kernel of `kernel_type` with `kernel_params` [gamma, coef0, degree].
#[derive(Clone, Copy)]
enum Kernel {
    Linear,
    Poly { gamma: f64, coef0: f64, degree: f64 },
    Rbf { gamma: f64 },
    Sigmoid { gamma: f64, coef0: f64 },
}

impl Kernel {
    fn read(ctx: &Ctx<'_>) -> KernelResult<Kernel> {
        let p = floats(ctx, "kernel_params");
        let param = |i: usize| p.get(i).copied().unwrap_or(0.0);
        let (gamma, coef0, degree) = (param(0), param(1), param(2));
        Ok(
            match ctx.string("kernel_type").as_deref().unwrap_or("LINEAR") {
                "LINEAR" => Kernel::Linear,
                "POLY" => Kernel::Poly {
                    gamma,
                    coef0,
                    degree,
                },
                "RBF" => Kernel::Rbf { gamma },
                "SIGMOID" => Kernel::Sigmoid { gamma, coef0 },
                other => return Err(format!("unknown kernel_type {other:?}")),
            },
        )
    }

    /// The kernel of two vectors, computed in f32 as onnxruntime computes it: decision values
    /// near zero (a one-class model's border) cancel, and their digits follow the precision.
    fn eval(self, a: &[f64], b: &[f64]) -> f64 {
        f64::from(self.eval_f32(a, b))
    }

    fn eval_f32(self, a: &[f64], b: &[f64]) -> f32 {
        let dot = || {
            a.iter()
                .zip(b)
                .map(|(x, y)| *x as f32 * *y as f32)
                .sum::<f32>()
        };
        let (a, b) = (a.iter().map(|&v| v as f32), b.iter().map(|&v| v as f32));
        match self {
            Kernel::Linear => dot(),
            Kernel::Poly {
                gamma,
                coef0,
                degree,
            } => (gamma as f32 * dot() + coef0 as f32).powf(degree as f32),
            Kernel::Rbf { gamma } => {
                let d: f32 = a.zip(b).map(|(x, y)| (x - y) * (x - y)).sum();
                (-(gamma as f32) * d).exp()
            }
            Kernel::Sigmoid { gamma, coef0 } => (gamma as f32 * dot() + coef0 as f32).tanh(),
        }
    }
}

/// The support vectors [V, F] and the feature count, checked against X's.
fn support_vectors(ctx: &Ctx<'_>, count: usize, f: usize) -> KernelResult<Vec<f64>> {
    let sv = floats(ctx, "support_vectors");
    if sv.len() != count.saturating_mul(f) {
        return Err(format!(
            "{} support vector values for {count} vectors of X's {f} features",
            sv.len()
        ));
    }
    Ok(sv)
}

/// SVMClassifier. With support vectors, each pair of classes (i < j) has a decision value from
/// the two classes' vectors, and votes for i when it is positive, else j; the label is the most
/// voted class (the first of equals). With prob_a and prob_b the scores are the classes'
/// probabilities by Platt's sigmoid and pairwise coupling; without them, the decision values.
/// Without support vectors, the coefficients are linear weights per class and the label is the
/// greatest score's.
fn svm_classifier(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let (n, f, values) = rows(x)?;
    let labels = Labels::read(ctx, "classlabels_ints")?;
    let classes = labels.len();
    if classes == 0 {
        return Err("no class labels".to_string());
    }
    let transform = Transform::read(ctx)?;
    let coefficients = floats(ctx, "coefficients");
    let rho = floats(ctx, "rho");
    let prob_a = floats(ctx, "prob_a");
    let prob_b = floats(ctx, "prob_b");
    if prob_a.len() != prob_b.len() {
        return Err("prob_a and prob_b differ in length".to_string());
    }
    let per_class: Vec<usize> = ctx
        .ints("vectors_per_class")
        .unwrap_or_default()
        .iter()
        .map(|&v| usize::try_from(v).map_err(|_| format!("negative vectors_per_class {v}")))
        .collect::<KernelResult<_>>()?;
    let vectors = per_class
        .iter()
        .try_fold(0usize, |a, &v| a.checked_add(v))
        .ok_or("vectors_per_class overflows")?;
    let kernel = Kernel::read(ctx)?;
    if vectors == 0 {
        return linear_svm(&labels, &values, n, f, &coefficients, &rho, transform);
    }
    if per_class.len() != classes {
        return Err(format!(
            "vectors_per_class has {} entries for {classes} classes",
            per_class.len()
        ));
    }
    let pairs = classes * (classes - 1) / 2;
    if coefficients.len() != (classes - 1).saturating_mul(vectors) {
        return Err(format!(
            "{} coefficients, not (classes - 1) x vectors = {}",
            coefficients.len(),
            (classes - 1).saturating_mul(vectors)
        ));
    }
    if rho.len() < pairs {
        return Err(format!("{} rho for {pairs} class pairs", rho.len()));
    }
    let with_probabilities = !prob_a.is_empty();
    if with_probabilities && prob_a.len() < pairs {
        return Err(format!("{} prob_a for {pairs} class pairs", prob_a.len()));
    }
    let sv = support_vectors(ctx, vectors, f)?;
    let starts: Vec<usize> = per_class
        .iter()
        .scan(0, |s, &v| {
            let start = *s;
            *s += v;
            Some(start)
        })
        .collect();
    let width = if with_probabilities {
        classes
    } else if classes > 2 {
        pairs
    } else {
        2
    };
    ctx.checked_count(&[n, width])?;
    ctx.checked_count(&[classes, classes])?;
    let mut out = Vec::with_capacity(n * width);
    let mut chosen = Vec::with_capacity(n);
    let mut kernels = vec![0.0; vectors];
    let mut decisions = vec![0.0; pairs];
    let mut votes = vec![0usize; classes];
    let mut pairwise = vec![0.0; classes * classes];
    let mut probabilities = vec![0.0; classes];
    for row in values.chunks(f.max(1)).take(n) {
        for (v, k) in kernels.iter_mut().enumerate() {
            *k = kernel.eval(row, &sv[v * f..(v + 1) * f]);
        }
        votes.iter_mut().for_each(|v| *v = 0);
        let mut index = 0;
        for i in 0..classes {
            for j in i + 1..classes {
                let side = |class: usize, coefficient_row: usize| -> f64 {
                    let range = starts[class]..starts[class] + per_class[class];
                    coefficients[coefficient_row * vectors..][range.clone()]
                        .iter()
                        .zip(&kernels[range])
                        .map(|(c, k)| c * k)
                        .sum()
                };
                let d = side(i, j - 1) + side(j, i) + rho[index];
                decisions[index] = d;
                votes[if d > 0.0 { i } else { j }] += 1;
                index += 1;
            }
        }
        // The most voted class, the first of equals.
        let mut best = 0;
        for (c, &v) in votes.iter().enumerate() {
            if v > votes[best] {
                best = c;
            }
        }
        chosen.push(best);
        if with_probabilities {
            let mut index = 0;
            for i in 0..classes {
                for j in i + 1..classes {
                    let p = 1.0 - logistic(decisions[index] * prob_a[index] + prob_b[index]);
                    let p = p.clamp(1e-7, 1.0 - 1e-7);
                    pairwise[i * classes + j] = p;
                    pairwise[j * classes + i] = 1.0 - p;
                    index += 1;
                }
            }
            couple(classes, &pairwise, &mut probabilities);
            transform.apply(&mut probabilities);
            out.extend_from_slice(&probabilities);
        } else if classes > 2 {
            let start = out.len();
            out.extend_from_slice(&decisions);
            transform.apply(&mut out[start..]);
        } else {
            out.extend(second_class(
                decisions[0],
                transform != Transform::None,
                transform,
            ));
        }
    }
    Ok(vec![
        Val::Tensor(labels.pick(&chosen)?),
        Val::Tensor(float_tensor(out, &[n, width])?),
    ])
}

/// SVMClassifier without support vectors: per class, the weights' dot product with the row
/// plus rho[0].
fn linear_svm(
    labels: &Labels,
    values: &[f64],
    n: usize,
    f: usize,
    coefficients: &[f64],
    rho: &[f64],
    transform: Transform,
) -> KernelResult<Vec<Val>> {
    let classes = labels.len();
    if coefficients.len() != classes.saturating_mul(f) {
        return Err(format!(
            "{} coefficients for {classes} classes of {f} features",
            coefficients.len()
        ));
    }
    let bias = *rho.first().ok_or("rho is required")?;
    let positive = coefficients.iter().all(|&c| c >= 0.0);
    let mut out = Vec::with_capacity(n * classes);
    let mut chosen = Vec::with_capacity(n);
    for row in values.chunks(f.max(1)).take(n) {
        let start = out.len();
        for c in 0..classes {
            let w = &coefficients[c * f..(c + 1) * f];
            out.push(row.iter().zip(w).map(|(a, b)| a * b).sum::<f64>() + bias);
        }
        let scores = &mut out[start..];
        let best = argmax(scores);
        let top = scores[best];
        // Two classes: onnxruntime takes the second where the top score passes 0.5 (weights
        // all positive) or 0 (mixed weights).
        chosen.push(
            if classes == 2 && ((positive && top >= 0.5) || (!positive && top > 0.0)) {
                1
            } else {
                best
            },
        );
        transform.apply(scores);
    }
    Ok(vec![
        Val::Tensor(labels.pick(&chosen)?),
        Val::Tensor(float_tensor(out, &[n, classes])?),
    ])
}

/// Pairwise coupling (Wu, Lin and Weng's second method, as libsvm computes it): the class
/// probabilities `p` from the pairwise ones `r` [k, k], where r[i][j] is P(i | i or j).
fn couple(k: usize, r: &[f64], p: &mut [f64]) {
    let mut q = vec![0.0; k * k];
    let mut qp = vec![0.0; k];
    for i in 0..k {
        p[i] = 1.0 / k as f64;
        for j in 0..k {
            if j == i {
                continue;
            }
            q[i * k + i] += r[j * k + i] * r[j * k + i];
            q[i * k + j] = if j < i {
                q[j * k + i]
            } else {
                -r[j * k + i] * r[i * k + j]
            };
        }
    }
    let eps = 0.005 / k as f64;
    for _ in 0..100.max(k) {
        let mut pqp = 0.0;
        for i in 0..k {
            qp[i] = (0..k).map(|j| q[i * k + j] * p[j]).sum();
            pqp += p[i] * qp[i];
        }
        let worst = qp.iter().map(|v| (v - pqp).abs()).fold(0.0, f64::max);
        if worst < eps {
            break;
        }
        for i in 0..k {
            let diff = (-qp[i] + pqp) / q[i * k + i];
            p[i] += diff;
            pqp = (pqp + diff * (diff * q[i * k + i] + 2.0 * qp[i])) / (1.0 + diff) / (1.0 + diff);
            for j in 0..k {
                qp[j] = (qp[j] + diff * q[i * k + j]) / (1.0 + diff);
                p[j] /= 1.0 + diff;
            }
        }
    }
}

/// SVMRegressor: the coefficients' weighted sum of the kernels with the `n_supports` support
/// vectors (or, without them, the coefficients as linear weights) plus rho[0]; a one-class
/// model gives 1 where that is positive, else -1. Then `post_transform`.
fn svm_regressor(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let (n, f, values) = rows(x)?;
    let transform = Transform::read(ctx)?;
    let coefficients = floats(ctx, "coefficients");
    let bias = *floats(ctx, "rho").first().ok_or("rho is required")?;
    let supports =
        usize::try_from(ctx.int("n_supports", 0)).map_err(|_| "n_supports is negative")?;
    let one_class = ctx.int("one_class", 0) != 0;
    let kernel = Kernel::read(ctx)?;
    let sv = if supports > 0 {
        if coefficients.len() != supports {
            return Err(format!(
                "{} coefficients for {supports} support vectors",
                coefficients.len()
            ));
        }
        support_vectors(ctx, supports, f)?
    } else {
        if coefficients.len() != f {
            return Err(format!(
                "{} coefficients for X's {f} features",
                coefficients.len()
            ));
        }
        Vec::new()
    };
    let mut out = Vec::with_capacity(n);
    for row in values.chunks(f.max(1)).take(n) {
        let mut score = if supports > 0 {
            (0..supports)
                .map(|v| coefficients[v] as f32 * kernel.eval_f32(row, &sv[v * f..(v + 1) * f]))
                .sum::<f32>()
                .into()
        } else {
            row.iter()
                .zip(&coefficients)
                .map(|(a, b)| a * b)
                .sum::<f64>()
        } + bias;
        if one_class {
            score = if score > 0.0 { 1.0 } else { -1.0 };
        }
        let mut s = [score];
        transform.apply(&mut s);
        out.push(s[0]);
    }
    one(float_tensor(out, &[n, 1])?)
}
