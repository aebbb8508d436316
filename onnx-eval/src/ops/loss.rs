//! Losses over class scores: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.
//!
//! The input is (N, C, d1, ..., dk) and the target (N, d1, ..., dk) holds class indices; a
//! target equal to `ignore_index` contributes nothing, neither loss nor weight, so that "mean"
//! divides by the weights of the samples that count.

use super::softmax::{Rows, log_softmax_row};
use super::wide::{narrow, widen};
use super::{Ctx, Registry, tensor, tensor_opt};
use crate::error::KernelResult;
use crate::tensor::Tensor;
use crate::value::Val;
use ndarray::{ArrayD, IxDyn};

pub(super) fn register(r: &mut Registry) {
    // The later versions only widen the element types.
    r.add("", "NegativeLogLikelihoodLoss", 12, nll_loss);
    r.add(
        "",
        "SoftmaxCrossEntropyLoss",
        12,
        softmax_cross_entropy_loss,
    );
}

/// How the per-sample losses are combined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reduction {
    None,
    Sum,
    Mean,
}

fn reduction(ctx: &Ctx<'_>) -> KernelResult<Reduction> {
    match ctx.string("reduction").as_deref().unwrap_or("mean") {
        "none" => Ok(Reduction::None),
        "sum" => Ok(Reduction::Sum),
        "mean" => Ok(Reduction::Mean),
        other => Err(format!("unknown reduction `{other}`")),
    }
}

/// The loss of log-probabilities `input` (N, C, d...) against `target` (N, d...): per sample
/// (`Reduction::None`, target-shaped), summed or weight-averaged.
fn negative_log_likelihood(
    ctx: &Ctx<'_>,
    input: &ArrayD<f64>,
    target: &Tensor,
    weight: Option<&Tensor>,
) -> KernelResult<ArrayD<f64>> {
    let shape = input.shape();
    let (n, classes) = match shape {
        [n, c, ..] => (*n, *c),
        _ => return Err(format!("input of shape {shape:?} has no class axis")),
    };
    let mut sample_shape = vec![n];
    sample_shape.extend_from_slice(&shape[2..]);
    if target.shape() != sample_shape.as_slice() {
        return Err(format!(
            "target of shape {:?} does not fit input of shape {shape:?}",
            target.shape()
        ));
    }
    let weight: Option<Vec<f64>> = match weight {
        Some(w) if w.len() != classes => {
            return Err(format!(
                "weight holds {} elements for {classes} classes",
                w.len()
            ));
        }
        Some(w) => Some(widen(w)?.iter().copied().collect()),
        None => None,
    };
    let ignore_index = ctx.int_opt("ignore_index");
    let labels = target.to_i64_vec()?;
    let positions: usize = shape[2..].iter().product();
    let values: Vec<f64> = input.iter().copied().collect();
    let (mut losses, mut weights) = (Vec::with_capacity(labels.len()), Vec::new());
    for (i, &label) in labels.iter().enumerate() {
        if Some(label) == ignore_index {
            losses.push(0.0);
            weights.push(0.0);
            continue;
        }
        let class = usize::try_from(label)
            .ok()
            .filter(|&c| c < classes)
            .ok_or_else(|| format!("target {label} is outside the {classes} classes"))?;
        let (sample, position) = (i / positions, i % positions);
        let w = weight.as_ref().map_or(1.0, |w| w[class]);
        losses.push(-values[(sample * classes + class) * positions + position] * w);
        weights.push(w);
    }
    let total: f64 = losses.iter().sum();
    Ok(match reduction(ctx)? {
        Reduction::None => {
            ArrayD::from_shape_vec(IxDyn(&sample_shape), losses).map_err(|e| e.to_string())?
        }
        Reduction::Sum => ArrayD::from_elem(IxDyn(&[]), total),
        Reduction::Mean => ArrayD::from_elem(IxDyn(&[]), total / weights.iter().sum::<f64>()),
    })
}

fn nll_loss(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let input = tensor(inputs, 0)?;
    let loss = negative_log_likelihood(
        ctx,
        &widen(input)?,
        tensor(inputs, 1)?,
        tensor_opt(inputs, 2)?,
    )?;
    Ok(vec![Val::Tensor(narrow(input.dtype, loss)?)])
}

/// SoftmaxCrossEntropyLoss: the log-softmax of the scores over the class axis, then the
/// negative log-likelihood loss; its second output is that log-softmax.
fn softmax_cross_entropy_loss(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let scores = tensor(inputs, 0)?;
    let shape = scores.shape().to_vec();
    if shape.len() < 2 {
        return Err(format!("scores of shape {shape:?} have no class axis"));
    }
    let mut log_prob: Vec<f64> = widen(scores)?.iter().copied().collect();
    Rows::along(&shape, 1).apply(&mut log_prob, log_softmax_row);
    let log_prob = ArrayD::from_shape_vec(IxDyn(&shape), log_prob).map_err(|e| e.to_string())?;
    // The loss reads the log-probabilities as rounded to the scores' type, as the function
    // body's LogSoftmax output is.
    let log_prob = narrow(scores.dtype, log_prob)?;
    let loss = negative_log_likelihood(
        ctx,
        &widen(&log_prob)?,
        tensor(inputs, 1)?,
        tensor_opt(inputs, 2)?,
    )?;
    Ok(vec![
        Val::Tensor(narrow(scores.dtype, loss)?),
        Val::Tensor(log_prob),
    ])
}

#[cfg(test)]
mod tests {
    use crate::Value;

    /// A class index outside [0, C) that is not `ignore_index` is an error, not a panic.
    #[test]
    fn a_target_outside_the_classes_is_an_error() {
        let model = onnx_text::parse_model(
            r#"<ir_version: 8, opset_import: ["" : 22]>
            g (float[1, 3] x, int64[1] t) => (float y) { y = NegativeLogLikelihoodLoss (x, t) }"#,
        )
        .unwrap();
        let inputs = [
            Value::tensor(&[0.1f32, 0.2, 0.7], &[1, 3]).unwrap(),
            Value::tensor(&[5i64], &[1]).unwrap(),
        ];
        let error = crate::run(&model, &inputs).unwrap_err().to_string();
        assert!(error.contains("outside the 3 classes"), "{error}");
    }
}
