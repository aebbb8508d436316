//! The classical machine-learning operators of ai.onnx.ml: ArrayFeatureExtractor, Binarizer,
//! LabelEncoder (classes in version 1, key and value lists from 2, tensors from 4), and
//! TreeEnsemble.

use super::training::floats_like;
use super::{Ctx, Registry, one, tensor};
use crate::error::KernelResult;
use crate::tensor::{Data, Tensor, map_data, zip_data};
use crate::value::Val;
use ndarray::{ArrayD, Axis, IxDyn};
use onnx_runtime_types::tensor_proto::DataType;
use std::collections::HashMap;

const DOMAIN: &str = "ai.onnx.ml";

pub(super) fn register(r: &mut Registry) {
    r.add(DOMAIN, "ArrayFeatureExtractor", 1, array_feature_extractor);
    r.add(DOMAIN, "Binarizer", 1, binarizer);
    r.add(DOMAIN, "LabelEncoder", 1, label_encoder_v1);
    r.add(DOMAIN, "LabelEncoder", 2, label_encoder);
    r.add(DOMAIN, "LabelEncoder", 4, label_encoder);
    r.add(DOMAIN, "TreeEnsemble", 5, tree_ensemble);
}

/// ArrayFeatureExtractor: the elements at the indices Y along X's last axis.
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
    one(x.with_data(map_data!(&x.data, a => a.select(Axis(last), &indices))))
}

/// Binarizer: 1 where an element is above `threshold`, else 0.
fn binarizer(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    fn binarize<T: Copy>(a: &ArrayD<T>, above: impl Fn(T) -> bool, one: T, zero: T) -> ArrayD<T> {
        a.mapv(|v| if above(v) { one } else { zero })
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

/// A key of LabelEncoder's map: floats by their bits, NaN as one key (version 4) or by its bits
/// (version 2's bitwise comparison).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Str(String),
    Int(i64),
    Float(u64),
}

fn float_key(v: f64, nan_is_one_key: bool) -> Key {
    if v.is_nan() && nan_is_one_key {
        Key::Float(f64::NAN.to_bits())
    } else {
        Key::Float(v.to_bits())
    }
}

/// The keys of a tensor's elements.
fn keys_of(t: &Tensor, nan_is_one_key: bool) -> KernelResult<Vec<Key>> {
    Ok(match &t.data {
        Data::Str(a) => a.iter().cloned().map(Key::Str).collect(),
        Data::F32(_) | Data::F64(_) | Data::F16(_) | Data::BF16(_) => t
            .to_f64_vec()?
            .into_iter()
            .map(|v| float_key(v, nan_is_one_key))
            .collect(),
        _ => t.to_i64_vec()?.into_iter().map(Key::Int).collect(),
    })
}

/// A 1-D tensor from a list attribute (`<prefix>_strings`, `_int64s`, `_floats`), or from
/// `<prefix>_tensor` in version 4.
fn list_attribute(ctx: &Ctx<'_>, prefix: &str) -> KernelResult<Option<Tensor>> {
    let mut found = Vec::new();
    if ctx.since >= 4
        && let Some(t) = ctx.tensor(&format!("{prefix}_tensor"))?
    {
        found.push(t);
    }
    if let Some(s) = ctx.strings(&format!("{prefix}_strings")) {
        found.push(Tensor::from_data(Data::Str(
            ArrayD::from_shape_vec(IxDyn(&[s.len()]), s).map_err(|e| e.to_string())?,
        )));
    }
    if let Some(i) = ctx.ints(&format!("{prefix}_int64s")) {
        found.push(Tensor::from_i64s(i.to_vec()));
    }
    if let Some(f) = ctx.floats(&format!("{prefix}_floats")) {
        found.push(Tensor::from_data(Data::F32(
            ArrayD::from_shape_vec(IxDyn(&[f.len()]), f.to_vec()).map_err(|e| e.to_string())?,
        )));
    }
    match found.len() {
        0 => Ok(None),
        1 => Ok(found.pop()),
        _ => Err(format!("more than one of the {prefix}_* attributes is set")),
    }
}

/// LabelEncoder's default for values of `values`' type: `default_tensor` (version 4), else
/// `default_string` ("_Unused"), `default_int64` (-1) or `default_float` (-0.0).
fn default_value(ctx: &Ctx<'_>, values: &Tensor) -> KernelResult<Tensor> {
    if ctx.since >= 4
        && let Some(t) = ctx.tensor("default_tensor")?
    {
        if t.len() != 1 || t.dtype != values.dtype {
            return Err(format!(
                "default_tensor must be one {}, got {} {:?}",
                values.type_name(),
                t.type_name(),
                t.shape()
            ));
        }
        return Ok(t);
    }
    let scalar = match &values.data {
        Data::Str(_) => {
            let s = ctx
                .string("default_string")
                .unwrap_or_else(|| "_Unused".to_string());
            Tensor::from_data(Data::Str(ArrayD::from_elem(IxDyn(&[1]), s)))
        }
        Data::F32(_) | Data::F64(_) | Data::F16(_) | Data::BF16(_) => {
            let like = Tensor::zeros(values.dtype, &[1])?;
            floats_like(&like, vec![f64::from(ctx.float("default_float", -0.0))])?
        }
        _ => {
            let v = ctx.int("default_int64", -1);
            let data = match values.dtype {
                DataType::Int16 => Data::I16(ArrayD::from_elem(IxDyn(&[1]), v as i16)),
                DataType::Int32 => Data::I32(ArrayD::from_elem(IxDyn(&[1]), v as i32)),
                DataType::Int64 => Data::I64(ArrayD::from_elem(IxDyn(&[1]), v)),
                other => {
                    return Err(format!(
                        "values of {} are not supported",
                        other.as_str_name()
                    ));
                }
            };
            Tensor::from_data(data)
        }
    };
    Ok(scalar)
}

/// The values at `picks` (or the default where `None`), shaped `shape`.
fn pick<T: Clone>(
    values: &ArrayD<T>,
    default: &ArrayD<T>,
    picks: &[Option<usize>],
    shape: &[usize],
) -> KernelResult<ArrayD<T>> {
    let fallback = default.iter().next().ok_or("an empty default")?;
    let flat: Vec<T> = values.iter().cloned().collect();
    let out: Vec<T> = picks
        .iter()
        .map(|p| p.and_then(|i| flat.get(i)).unwrap_or(fallback).clone())
        .collect();
    ArrayD::from_shape_vec(IxDyn(shape), out).map_err(|e| e.to_string())
}

/// LabelEncoder from version 2: each element mapped through the parallel keys and values (the
/// last of repeated keys wins), the default where no key matches.
fn label_encoder(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let keys = list_attribute(ctx, "keys")?.ok_or("LabelEncoder needs keys")?;
    let values = list_attribute(ctx, "values")?.ok_or("LabelEncoder needs values")?;
    if keys.len() != values.len() {
        return Err(format!("{} keys for {} values", keys.len(), values.len()));
    }
    let nan_is_one_key = ctx.since >= 4;
    let map: HashMap<Key, usize> = keys_of(&keys, nan_is_one_key)?
        .into_iter()
        .enumerate()
        .map(|(i, k)| (k, i))
        .collect();
    let picks: Vec<Option<usize>> = keys_of(x, nan_is_one_key)?
        .iter()
        .map(|k| map.get(k).copied())
        .collect();
    let default = default_value(ctx, &values)?;
    let data = zip_data!(&values.data, &default.data, (v, d) => pick(v, d, &picks, x.shape())?)
        .ok_or("the default is not of the values' type")?;
    one(values.with_data(data))
}

/// LabelEncoder version 1: strings to their index in `classes_strings` (else `default_int64`),
/// or int64 indices to those strings (else `default_string`).
fn label_encoder_v1(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let classes = ctx.strings("classes_strings").unwrap_or_default();
    let data = match &x.data {
        Data::Str(a) => {
            let index: HashMap<&str, i64> = classes
                .iter()
                .enumerate()
                .map(|(i, s)| (s.as_str(), i as i64))
                .collect();
            let default = ctx.int("default_int64", -1);
            Data::I64(a.map(|s| index.get(s.as_str()).copied().unwrap_or(default)))
        }
        Data::I64(a) => {
            let default = ctx
                .string("default_string")
                .unwrap_or_else(|| "_Unused".to_string());
            Data::Str(a.map(|&i| {
                usize::try_from(i)
                    .ok()
                    .and_then(|i| classes.get(i))
                    .unwrap_or(&default)
                    .clone()
            }))
        }
        _ => {
            return Err(format!(
                "LabelEncoder-1 takes strings or int64, got {}",
                x.type_name()
            ));
        }
    };
    one(Tensor::from_data(data))
}

/// One interior node of a tree ensemble.
struct TreeNode {
    feature: usize,
    mode: u8,
    split: f64,
    members: Vec<f64>,
    nan_goes_true: bool,
    truth: (usize, bool),
    falsity: (usize, bool),
}

/// TreeEnsemble's trees, read from its attributes.
struct Ensemble {
    nodes: Vec<TreeNode>,
    roots: Vec<usize>,
    leaf_targets: Vec<usize>,
    leaf_weights: Vec<f64>,
}

fn index_list(ctx: &Ctx<'_>, name: &str, len: Option<usize>) -> KernelResult<Vec<usize>> {
    let values = ctx
        .ints(name)
        .ok_or_else(|| format!("`{name}` is required"))?;
    if let Some(len) = len
        && values.len() != len
    {
        return Err(format!("`{name}` has {} entries, not {len}", values.len()));
    }
    values
        .iter()
        .map(|&v| usize::try_from(v).map_err(|_| format!("`{name}` holds a negative {v}")))
        .collect()
}

fn attribute_floats(ctx: &Ctx<'_>, name: &str) -> KernelResult<Option<Vec<f64>>> {
    ctx.tensor(name)?.map(|t| t.to_f64_vec()).transpose()
}

impl Ensemble {
    fn read(ctx: &Ctx<'_>) -> KernelResult<Ensemble> {
        let features = index_list(ctx, "nodes_featureids", None)?;
        let n = features.len();
        let splits = attribute_floats(ctx, "nodes_splits")?.ok_or("`nodes_splits` is required")?;
        let modes = ctx
            .tensor("nodes_modes")?
            .ok_or("`nodes_modes` is required")?
            .to_i64_vec()?;
        let true_ids = index_list(ctx, "nodes_truenodeids", Some(n))?;
        let false_ids = index_list(ctx, "nodes_falsenodeids", Some(n))?;
        let true_leafs = index_list(ctx, "nodes_trueleafs", Some(n))?;
        let false_leafs = index_list(ctx, "nodes_falseleafs", Some(n))?;
        let tracks = ctx
            .ints("nodes_missing_value_tracks_true")
            .unwrap_or_default();
        let membership = attribute_floats(ctx, "membership_values")?.unwrap_or_default();
        let mut sets = membership.split(|v| v.is_nan());
        if splits.len() != n || modes.len() != n {
            return Err("the nodes_* attributes differ in length".to_string());
        }
        let mut nodes = Vec::with_capacity(n);
        for i in 0..n {
            let mode = u8::try_from(modes[i])
                .ok()
                .filter(|&m| m <= 6)
                .ok_or_else(|| format!("unknown node mode {}", modes[i]))?;
            let members = if mode == 6 {
                sets.next()
                    .ok_or("fewer membership sets than BRANCH_MEMBER nodes")?
                    .to_vec()
            } else {
                Vec::new()
            };
            nodes.push(TreeNode {
                feature: features[i],
                mode,
                split: splits[i],
                members,
                nan_goes_true: tracks.get(i).copied().unwrap_or(0) != 0,
                truth: (true_ids[i], true_leafs[i] != 0),
                falsity: (false_ids[i], false_leafs[i] != 0),
            });
        }
        let leaf_targets = index_list(ctx, "leaf_targetids", None)?;
        let leaf_weights =
            attribute_floats(ctx, "leaf_weights")?.ok_or("`leaf_weights` is required")?;
        if leaf_targets.len() != leaf_weights.len() {
            return Err("leaf_targetids and leaf_weights differ in length".to_string());
        }
        let roots = index_list(ctx, "tree_roots", None)?;
        Ok(Ensemble {
            nodes,
            roots,
            leaf_targets,
            leaf_weights,
        })
    }

    /// The leaf a row reaches from `root`; a path longer than the nodes is a cycle.
    fn leaf(&self, root: usize, row: &[f64]) -> KernelResult<usize> {
        let root_node = self
            .nodes
            .get(root)
            .ok_or_else(|| format!("tree root {root} is no node"))?;
        // A tree that is one leaf: both branches the same leaf.
        if root_node.truth.1 && root_node.falsity.1 && root_node.truth.0 == root_node.falsity.0 {
            return Ok(root_node.truth.0);
        }
        let mut current = root;
        for _ in 0..=self.nodes.len() {
            let node = self
                .nodes
                .get(current)
                .ok_or_else(|| format!("node {current} does not exist"))?;
            let x = *row.get(node.feature).ok_or_else(|| {
                format!("feature {} is beyond the row's {}", node.feature, row.len())
            })?;
            let goes_true = if x.is_nan() {
                node.nan_goes_true
            } else {
                match node.mode {
                    0 => x <= node.split,
                    1 => x < node.split,
                    2 => x >= node.split,
                    3 => x > node.split,
                    4 => x == node.split,
                    5 => x != node.split,
                    _ => node.members.contains(&x),
                }
            };
            let (next, is_leaf) = if goes_true { node.truth } else { node.falsity };
            if is_leaf {
                return Ok(next);
            }
            current = next;
        }
        Err("a tree's branches form a cycle".to_string())
    }
}

/// The scores of one row after `post_transform`: 0 none, 1 softmax, 2 logistic, 3 softmax
/// that keeps zeros at zero, 4 probit.
pub(crate) fn post_transform(scores: &mut [f64], transform: i64) -> KernelResult<()> {
    match transform {
        0 => {}
        1 | 3 => {
            let keep_zero = transform == 3;
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
        2 => scores
            .iter_mut()
            .for_each(|s| *s = 1.0 / (1.0 + (-*s).exp())),
        4 => scores
            .iter_mut()
            .for_each(|s| *s = std::f64::consts::SQRT_2 * erf_inv(2.0 * *s - 1.0)),
        other => return Err(format!("unknown post_transform {other}")),
    }
    Ok(())
}

/// The inverse error function, by Winitzki's approximation (as onnxruntime computes PROBIT).
fn erf_inv(x: f64) -> f64 {
    let a = 0.147;
    let sign = if x < 0.0 { -1.0 } else { 1.0 };
    let ln = ((1.0 - x) * (1.0 + x)).ln();
    let v = 2.0 / (std::f64::consts::PI * a) + 0.5 * ln;
    sign * ((v * v - ln / a).sqrt() - v).sqrt()
}

/// TreeEnsemble: every tree's leaf for each row of X [N, F], its weight aggregated into its
/// target by `aggregate_function` (0 average, 1 sum, 2 min, 3 max), then `post_transform`.
fn tree_ensemble(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let [rows, features] = *x.shape() else {
        return Err(format!("TreeEnsemble takes [N, F], got {:?}", x.shape()));
    };
    let targets = usize::try_from(ctx.int("n_targets", 0)).map_err(|_| "n_targets is negative")?;
    let shape = [rows, targets];
    ctx.checked_count(&shape)?;
    let ensemble = Ensemble::read(ctx)?;
    let aggregate = ctx.int("aggregate_function", 1);
    let initial = match aggregate {
        0 | 1 => 0.0,
        2 => f64::MAX,
        3 => f64::MIN,
        other => return Err(format!("unknown aggregate_function {other}")),
    };
    let transform = ctx.int("post_transform", 0);
    let values = x.to_f64_vec()?;
    let mut out = Vec::with_capacity(rows * targets);
    for row in values.chunks(features.max(1)).take(rows) {
        let mut scores = vec![initial; targets];
        for &root in &ensemble.roots {
            let leaf = ensemble.leaf(root, row)?;
            let (&target, &weight) = ensemble
                .leaf_targets
                .get(leaf)
                .zip(ensemble.leaf_weights.get(leaf))
                .ok_or_else(|| format!("leaf {leaf} does not exist"))?;
            let score = scores
                .get_mut(target)
                .ok_or_else(|| format!("target {target} is beyond n_targets {targets}"))?;
            *score = match aggregate {
                0 => *score + weight / ensemble.roots.len() as f64,
                1 => *score + weight,
                2 => score.min(weight),
                _ => score.max(weight),
            };
        }
        post_transform(&mut scores, transform)?;
        out.extend(scores);
    }
    let dtype = match x.dtype {
        DataType::Double | DataType::Float16 => x.dtype,
        _ => DataType::Float,
    };
    one(floats_like(&Tensor::zeros(dtype, &shape)?, out)?)
}

#[cfg(test)]
mod tests {
    use crate::Value;

    fn encode(opset: i64, keys: &str, x: &[f32]) -> Vec<i64> {
        let model = onnx_text::parse_model(&format!(
            "<ir_version: 9, opset_import: [\"ai.onnx.ml\" : {opset}]>
            g (float[{n}] x) => (int64[{n}] y) {{
                y = ai.onnx.ml.LabelEncoder <{keys}, values_int64s: ints = [7, 8]> (x)
            }}",
            n = x.len()
        ))
        .unwrap();
        let x = Value::tensor(x, &[x.len()]).unwrap();
        crate::run(&model, &[x]).unwrap()[0]
            .to_vec::<i64>()
            .unwrap()
    }

    /// By the spec: version 2 compares float keys bit for bit, version 4 lets a NaN key match
    /// any NaN. The key here is NaN with a payload, the input the default NaN.
    #[test]
    fn label_encoder_nan_keys_by_version() {
        let keys = "keys_floats: floats = [1.0, nan]";
        assert_eq!(encode(4, keys, &[f32::NAN, 1.0, 2.0]), [8, 7, -1]);
        let x = f32::from_bits(0x7fc0_0001);
        assert_eq!(encode(2, keys, &[x, 1.0]), [-1, 7]);
    }

    /// By the spec: version 1 maps strings to their class index, the default elsewhere.
    #[test]
    fn label_encoder_1_maps_classes() {
        let model = onnx_text::parse_model(
            "<ir_version: 9, opset_import: [\"ai.onnx.ml\" : 1]>
            g (string[3] x) => (int64[3] y) {
                y = ai.onnx.ml.LabelEncoder <classes_strings: strings = [\"a\", \"b\"], default_int64: int = 9> (x)
            }",
        )
        .unwrap();
        let x = Value::tensor(&["b".to_string(), "z".to_string(), "a".to_string()], &[3]).unwrap();
        let y = crate::run(&model, &[x]).unwrap();
        assert_eq!(y[0].to_vec::<i64>().unwrap(), [1, 9, 0]);
    }
}
