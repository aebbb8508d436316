//! Feature transforms: ArrayFeatureExtractor, Binarizer, Scaler, Normalizer, Imputer,
//! OneHotEncoder and FeatureVectorizer.

use super::{DOMAIN, float_tensor, rows};
use crate::error::KernelResult;
use crate::ops::{Ctx, Registry, input, one, tensor};
use crate::tensor::Data;
use crate::tensor::MapEach;
use crate::value::Val;
use ndarray::{ArrayD, IxDyn};
use std::collections::HashMap;

pub(super) fn register(r: &mut Registry) {
    r.add(DOMAIN, "ArrayFeatureExtractor", 1, array_feature_extractor);
    r.add(DOMAIN, "Binarizer", 1, binarizer);
    r.add(DOMAIN, "Scaler", 1, scaler);
    r.add(DOMAIN, "Normalizer", 1, normalizer);
    r.add(DOMAIN, "Imputer", 1, imputer);
    r.add(DOMAIN, "OneHotEncoder", 1, one_hot_encoder);
    r.add(DOMAIN, "FeatureVectorizer", 1, feature_vectorizer);
}

/// ArrayFeatureExtractor: the elements at the indices Y along X's last axis. A 1-D X is one
/// row, so its result is [1, K] (as onnxruntime and onnx's evaluator give it).
fn array_feature_extractor(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let indices = tensor(inputs, 1)?.to_i64_vec()?;
    let last = x.rank().checked_sub(1).ok_or("X must have an axis")?;
    let dim = x.shape()[last];
    let indices: Vec<usize> = indices
        .iter()
        .map(|&i| {
            usize::try_from(i)
                .ok()
                .filter(|&i| i < dim)
                .ok_or_else(|| format!("index {i} is out of range for a last axis of {dim}"))
        })
        .collect::<KernelResult<_>>()?;
    // Positions computed on the shape alone, so that the picking is one loop for every type.
    let outer: usize = x.shape()[..last].iter().product();
    let mut picks = Vec::with_capacity(outer * indices.len());
    for o in 0..outer {
        for &i in &indices {
            picks.push(o * dim + i);
        }
    }
    let shape = if x.rank() == 1 {
        vec![1, indices.len()]
    } else {
        [&x.shape()[..last], &[indices.len()]].concat()
    };
    one(x.with_data(crate::ops::layout::pick(&x.data, &shape, &picks, None)?))
}

/// Binarizer: 1 where an element is above `threshold`, else 0.
fn binarizer(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    fn binarize<T: Copy>(a: &ArrayD<T>, above: impl Fn(T) -> bool, one: T, zero: T) -> ArrayD<T> {
        a.map_each(&|v| if above(v) { one } else { zero })
    }
    let x = tensor(inputs, 0)?;
    let t = f64::from(ctx.float("threshold", 0.0));
    let data = match &x.data {
        Data::F32(a) => Data::F32(binarize(a, |v| f64::from(v) > t, 1.0, 0.0)),
        Data::F64(a) => Data::F64(binarize(a, |v| v > t, 1.0, 0.0)),
        Data::I32(a) => Data::I32(binarize(a, |v| f64::from(v) > t, 1, 0)),
        Data::I64(a) => Data::I64(binarize(a, |v| v as f64 > t, 1, 0)),
        _ => return Err(format!("Binarizer takes numbers, got {}", x.type_name())),
    };
    one(x.with_data(data))
}

/// A per-feature attribute of length 1 (every feature) or F.
fn per_feature(len: usize, name: &str, features: usize) -> KernelResult<()> {
    if len == 1 || len == features {
        Ok(())
    } else {
        Err(format!(
            "`{name}` has {len} entries for {features} features (1 or {features} expected)"
        ))
    }
}

/// Scaler: (X - offset) * scale, per feature of the last axis, as floats.
fn scaler(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let (_, f, values) = rows(x)?;
    let list = |name: &str| -> KernelResult<Vec<f64>> {
        let v: Vec<f64> = ctx
            .floats(name)
            .unwrap_or_default()
            .iter()
            .map(|&v| f64::from(v))
            .collect();
        per_feature(v.len(), name, f)?;
        Ok(v)
    };
    let (scale, offset) = (list("scale")?, list("offset")?);
    let out = values
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let j = i % f.max(1);
            let s = scale[if scale.len() == 1 { 0 } else { j }];
            let o = offset[if offset.len() == 1 { 0 } else { j }];
            (v - o) * s
        })
        .collect();
    one(float_tensor(out, x.shape())?)
}

/// Normalizer: each row divided by its MAX (the greatest element, by the spec), L1 (sum of
/// magnitudes) or L2 norm; a row whose divisor is zero stays as it is.
fn normalizer(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let (_, f, mut values) = rows(x)?;
    let norm = ctx.string("norm").unwrap_or_else(|| "MAX".to_string());
    let divisor: fn(&[f64]) -> f64 = match norm.as_str() {
        "MAX" => |r| r.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        "L1" => |r| r.iter().map(|v| v.abs()).sum(),
        "L2" => |r| r.iter().map(|v| v * v).sum::<f64>().sqrt(),
        other => return Err(format!("unknown norm {other:?}")),
    };
    if f > 0 {
        for row in values.chunks_mut(f) {
            let d = divisor(row);
            if d != 0.0 {
                row.iter_mut().for_each(|v| *v /= d);
            }
        }
    }
    one(float_tensor(values, x.shape())?)
}

/// Imputer: elements equal to the replaced value (NaN matches NaN) become the imputed value of
/// their feature (one value for all, or one per feature of the last axis).
fn imputer(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let f = *x.shape().last().ok_or("X must have an axis")?;
    let column = |i: usize, len: usize| if len == 1 { 0 } else { i % f.max(1) };
    let data = match &x.data {
        Data::F32(_) | Data::F64(_) => {
            let imputed = ctx.floats("imputed_value_floats").unwrap_or_default();
            let imputed: Vec<f64> = imputed.iter().map(|&v| f64::from(v)).collect();
            if imputed.is_empty() {
                return Err("imputed_value_floats is required for float inputs".to_string());
            }
            per_feature(imputed.len(), "imputed_value_floats", f)?;
            let replaced = f64::from(ctx.float("replaced_value_float", 0.0));
            let matches = |v: f64| v == replaced || (replaced.is_nan() && v.is_nan());
            let mut values = x.to_f64_vec()?;
            for (i, v) in values.iter_mut().enumerate() {
                if matches(*v) {
                    *v = imputed[column(i, imputed.len())];
                }
            }
            match &x.data {
                Data::F32(_) => return one(float_tensor(values, x.shape())?),
                _ => Data::F64(
                    ArrayD::from_shape_vec(IxDyn(x.shape()), values).map_err(|e| e.to_string())?,
                ),
            }
        }
        Data::I32(_) | Data::I64(_) => {
            let imputed = ctx.ints("imputed_value_int64s").unwrap_or_default();
            if imputed.is_empty() {
                return Err("imputed_value_int64s is required for integer inputs".to_string());
            }
            per_feature(imputed.len(), "imputed_value_int64s", f)?;
            let replaced = ctx.int("replaced_value_int64", 0);
            let mut values = x.to_i64_vec()?;
            for (i, v) in values.iter_mut().enumerate() {
                if *v == replaced {
                    *v = imputed[column(i, imputed.len())];
                }
            }
            let shape = IxDyn(x.shape());
            match &x.data {
                Data::I32(_) => Data::I32(
                    ArrayD::from_shape_vec(shape, values.iter().map(|&v| v as i32).collect())
                        .map_err(|e| e.to_string())?,
                ),
                _ => Data::I64(ArrayD::from_shape_vec(shape, values).map_err(|e| e.to_string())?),
            }
        }
        _ => return Err(format!("Imputer takes numbers, got {}", x.type_name())),
    };
    one(x.with_data(data))
}

/// OneHotEncoder: each element replaced by a vector over the categories with a one at its own;
/// Y is X's shape with a last axis of the category count. An unknown category is a zero vector,
/// or an error when `zeros` is 0.
fn one_hot_encoder(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let zeros = ctx.int("zeros", 1) != 0;
    let positions: Vec<Option<usize>> = match &x.data {
        Data::Str(a) => {
            let cats = ctx.strings("cats_strings").unwrap_or_default();
            let index: HashMap<&str, usize> = cats
                .iter()
                .enumerate()
                .map(|(i, s)| (s.as_str(), i))
                .collect();
            a.iter().map(|s| index.get(s.as_str()).copied()).collect()
        }
        Data::I64(_) | Data::I32(_) | Data::F32(_) | Data::F64(_) => {
            let cats = ctx.ints("cats_int64s").unwrap_or_default();
            let index: HashMap<i64, usize> =
                cats.iter().enumerate().map(|(i, &c)| (c, i)).collect();
            x.to_f64_vec()?
                .iter()
                .map(|&v| index.get(&(v as i64)).copied())
                .collect()
        }
        _ => return Err(format!("OneHotEncoder cannot take {}", x.type_name())),
    };
    let count = match &x.data {
        Data::Str(_) => ctx.strings("cats_strings").unwrap_or_default().len(),
        _ => ctx.ints("cats_int64s").unwrap_or_default().len(),
    };
    if count == 0 {
        return Err("no categories: cats_strings or cats_int64s is required".to_string());
    }
    let mut shape = x.shape().to_vec();
    shape.push(count);
    let total = ctx.checked_count(&shape)?;
    let mut out = vec![0.0; total];
    for (i, p) in positions.iter().enumerate() {
        match p {
            Some(p) => out[i * count + p] = 1.0,
            None if !zeros => {
                return Err(format!("element {i} is no category, and zeros is 0"));
            }
            None => {}
        }
    }
    one(float_tensor(out, &shape)?)
}

/// FeatureVectorizer: the inputs' columns side by side, [N, sum of inputdimensions], as floats;
/// each input cut or padded with zeros to its dimension; a 1-D input is one row.
fn feature_vectorizer(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let dims = ctx.ints("inputdimensions").unwrap_or_default();
    if dims.len() != inputs.len() {
        return Err(format!(
            "{} inputdimensions for {} inputs",
            dims.len(),
            inputs.len()
        ));
    }
    let dims: Vec<usize> = dims
        .iter()
        .map(|&d| usize::try_from(d).map_err(|_| format!("negative input dimension {d}")))
        .collect::<KernelResult<_>>()?;
    let width = dims
        .iter()
        .try_fold(0usize, |a, &d| a.checked_add(d))
        .ok_or("the input dimensions overflow")?;
    let mut parts = Vec::with_capacity(inputs.len());
    let mut n = None;
    for i in 0..inputs.len() {
        let t = input(inputs, i)?.as_tensor()?;
        let (rows_i, f, values) = rows(t)?;
        if *n.get_or_insert(rows_i) != rows_i {
            return Err(format!(
                "input {i} has {rows_i} rows, input 0 another count"
            ));
        }
        parts.push((f, values));
    }
    let n = n.unwrap_or(1);
    let total = ctx.checked_count(&[n, width])?;
    let mut out = vec![0.0; total];
    let mut start = 0;
    for ((f, values), &d) in parts.iter().zip(&dims) {
        for r in 0..n {
            for c in 0..d.min(*f) {
                out[r * width + start + c] = values[r * f + c];
            }
        }
        start += d;
    }
    one(float_tensor(out, &[n, width])?)
}
