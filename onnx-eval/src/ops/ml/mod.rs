//! The classical machine-learning operators of ai.onnx.ml, by family: encoders (LabelEncoder,
//! CategoryMapper), feature transforms (Binarizer, Scaler, Normalizer, Imputer, OneHotEncoder,
//! ArrayFeatureExtractor, FeatureVectorizer), maps (ZipMap, DictVectorizer, CastMap), linear
//! models, SVMs and tree ensembles. What several families share lives here: the post-transform
//! of scores, class labels, and float-list attributes that may come as tensors.

mod encoders;
mod linear;
mod maps;
mod svm;
mod transform;
mod trees;

use super::{Ctx, Registry};
use crate::error::KernelResult;
use crate::tensor::{Data, Tensor};
use ndarray::{ArrayD, IxDyn};

const DOMAIN: &str = "ai.onnx.ml";

pub(super) fn register(r: &mut Registry) {
    encoders::register(r);
    transform::register(r);
    maps::register(r);
    linear::register(r);
    svm::register(r);
    trees::register(r);
}

/// How scores are transformed after a model computes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Transform {
    None,
    Softmax,
    Logistic,
    /// Softmax over the nonzero scores; zeros stay zero.
    SoftmaxZero,
    Probit,
}

impl Transform {
    /// The `post_transform` string attribute of the operators before TreeEnsemble.
    fn read(ctx: &Ctx<'_>) -> KernelResult<Transform> {
        match ctx.string("post_transform").as_deref() {
            None | Some("NONE") => Ok(Transform::None),
            Some("SOFTMAX") => Ok(Transform::Softmax),
            Some("LOGISTIC") => Ok(Transform::Logistic),
            Some("SOFTMAX_ZERO") => Ok(Transform::SoftmaxZero),
            Some("PROBIT") => Ok(Transform::Probit),
            Some(other) => Err(format!("unknown post_transform {other:?}")),
        }
    }

    /// TreeEnsemble's integer code.
    fn from_code(code: i64) -> KernelResult<Transform> {
        Ok(match code {
            0 => Transform::None,
            1 => Transform::Softmax,
            2 => Transform::Logistic,
            3 => Transform::SoftmaxZero,
            4 => Transform::Probit,
            other => return Err(format!("unknown post_transform {other}")),
        })
    }

    /// Transforms one row of scores in place.
    fn apply(self, scores: &mut [f64]) {
        match self {
            Transform::None => {}
            Transform::Softmax | Transform::SoftmaxZero => {
                let keep_zero = self == Transform::SoftmaxZero;
                let peak = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let mut total = 0.0;
                for s in scores.iter_mut() {
                    *s = if keep_zero && *s == 0.0 {
                        0.0
                    } else {
                        (*s - peak).exp()
                    };
                    total += *s;
                }
                if total > 0.0 {
                    scores.iter_mut().for_each(|s| *s /= total);
                }
            }
            Transform::Logistic => scores.iter_mut().for_each(|s| *s = logistic(*s)),
            Transform::Probit => scores.iter_mut().for_each(|s| *s = probit(*s)),
        }
    }
}

pub(crate) fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// sqrt(2) * erfinv(2p - 1), with erfinv by Winitzki's approximation (as onnxruntime computes
/// PROBIT).
fn probit(p: f64) -> f64 {
    let x = 2.0 * p - 1.0;
    let a = 0.147;
    let sign = if x < 0.0 { -1.0 } else { 1.0 };
    let ln = ((1.0 - x) * (1.0 + x)).ln();
    let v = 2.0 / (std::f64::consts::PI * a) + 0.5 * ln;
    std::f64::consts::SQRT_2 * sign * ((v * v - ln / a).sqrt() - v).sqrt()
}

/// The two columns a binary classifier reports from its one score `s`, as onnxruntime writes
/// them: a probability-like score (weights all positive) as [1 - s, s]; a margin as [-s, s], or
/// under LOGISTIC as [logistic(-s), logistic(s)]; PROBIT transforms the score alone.
pub(crate) fn second_class(s: f64, probability_like: bool, transform: Transform) -> [f64; 2] {
    if transform == Transform::Probit {
        let p = probit(s);
        return [p, p];
    }
    if probability_like {
        [1.0 - s, s]
    } else if transform == Transform::Logistic {
        [logistic(-s), logistic(s)]
    } else {
        [-s, s]
    }
}

/// A classifier's labels: `classlabels_strings`, or integers (`classlabels_int64s` or
/// `classlabels_ints`).
pub(crate) enum Labels {
    Strings(Vec<String>),
    Ints(Vec<i64>),
}

impl Labels {
    fn read(ctx: &Ctx<'_>, ints_name: &str) -> KernelResult<Labels> {
        let strings = ctx.strings("classlabels_strings").unwrap_or_default();
        let ints = ctx.ints(ints_name).unwrap_or_default();
        match (strings.is_empty(), ints.is_empty()) {
            (false, true) => Ok(Labels::Strings(strings)),
            (true, _) => Ok(Labels::Ints(ints.to_vec())),
            (false, false) => Err(format!(
                "both classlabels_strings and {ints_name} are set; one is allowed"
            )),
        }
    }

    fn len(&self) -> usize {
        match self {
            Labels::Strings(s) => s.len(),
            Labels::Ints(i) => i.len(),
        }
    }

    /// The label tensor [N] of the chosen classes (each an index below `len`).
    fn pick(&self, classes: &[usize]) -> KernelResult<Tensor> {
        let shape = IxDyn(&[classes.len()]);
        let data = match self {
            Labels::Strings(s) => Data::Str(
                ArrayD::from_shape_vec(shape, classes.iter().map(|&c| s[c].clone()).collect())
                    .map_err(|e| e.to_string())?,
            ),
            Labels::Ints(i) => Data::I64(
                ArrayD::from_shape_vec(shape, classes.iter().map(|&c| i[c]).collect())
                    .map_err(|e| e.to_string())?,
            ),
        };
        Ok(Tensor::from_data(data))
    }
}

/// A float-list attribute: `<name>_as_tensor` (doubles, from the versions that have it), else
/// `<name>`.
pub(crate) fn float_list(ctx: &Ctx<'_>, name: &str) -> KernelResult<Option<Vec<f64>>> {
    if let Some(t) = ctx.tensor(&format!("{name}_as_tensor"))? {
        if ctx.attribute(name).is_some() {
            return Err(format!("both {name} and {name}_as_tensor are set"));
        }
        return t.to_f64_vec().map(Some);
    }
    Ok(ctx
        .floats(name)
        .map(|f| f.iter().map(|&v| f64::from(v)).collect()))
}

/// A float-list attribute as f64, empty where it is absent (the versions without tensor forms).
pub(crate) fn floats(ctx: &Ctx<'_>, name: &str) -> Vec<f64> {
    ctx.floats(name)
        .unwrap_or_default()
        .iter()
        .map(|&v| f64::from(v))
        .collect()
}

/// A float tensor of `shape` from f64 values.
pub(crate) fn float_tensor(values: Vec<f64>, shape: &[usize]) -> KernelResult<Tensor> {
    let data = ArrayD::from_shape_vec(IxDyn(shape), values.into_iter().map(|v| v as f32).collect())
        .map_err(|e| e.to_string())?;
    Ok(Tensor::from_data(Data::F32(data)))
}

/// X as rows of features: [N, F], or one row for a 1-D X; numbers only.
pub(crate) fn rows(x: &Tensor) -> KernelResult<(usize, usize, Vec<f64>)> {
    let (n, f) = match *x.shape() {
        [f] => (1, f),
        [n, f] => (n, f),
        _ => return Err(format!("X must be [N, F] or [F], got {:?}", x.shape())),
    };
    match x.data {
        Data::F32(_) | Data::F64(_) | Data::I32(_) | Data::I64(_) => Ok((n, f, x.to_f64_vec()?)),
        _ => Err(format!("X must hold numbers, got {}", x.type_name())),
    }
}

/// The index of the greatest score, the first of equals.
pub(crate) fn argmax(scores: &[f64]) -> usize {
    let mut best = 0;
    for (i, &s) in scores.iter().enumerate() {
        if s > scores[best] {
            best = i;
        }
    }
    best
}
