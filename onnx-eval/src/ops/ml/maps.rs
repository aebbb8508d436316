//! The operators on maps: ZipMap (scores to a sequence of maps), DictVectorizer and CastMap
//! (a map to a tensor).

use super::{DOMAIN, Labels, float_tensor};
use crate::error::KernelResult;
use crate::ops::{Ctx, Registry, input, one, tensor};
use crate::tensor::{Data, Tensor};
use crate::value::Val;
use ndarray::{ArrayD, IxDyn};
use onnx_runtime_types::tensor_proto::DataType;
use onnx_value::{Map, MapKey, Value};
use std::collections::HashMap;

pub(super) fn register(r: &mut Registry) {
    r.add(DOMAIN, "ZipMap", 1, zip_map);
    r.add(DOMAIN, "DictVectorizer", 1, dict_vectorizer);
    r.add(DOMAIN, "CastMap", 1, cast_map);
}

/// ZipMap: each row of X [N, C] as a map from the C class labels to its scores.
fn zip_map(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let labels = Labels::read(ctx, "classlabels_int64s")?;
    let (n, c) = match *x.shape() {
        [c] => (1, c),
        [n, c] => (n, c),
        _ => return Err(format!("X must be [N, C], got {:?}", x.shape())),
    };
    if c != labels.len() {
        return Err(format!("X has {c} columns for {} labels", labels.len()));
    }
    let (key_type, keys): (DataType, Vec<MapKey>) = match &labels {
        Labels::Strings(s) => (
            DataType::String,
            s.iter()
                .map(|s| MapKey::String(s.as_bytes().to_vec()))
                .collect(),
        ),
        Labels::Ints(i) => (DataType::Int64, i.iter().map(|&i| MapKey::Int(i)).collect()),
    };
    let values = x.to_f64_vec()?;
    let mut maps = Vec::with_capacity(n);
    for row in 0..n {
        let mut entries = Vec::with_capacity(c);
        for (k, key) in keys.iter().enumerate() {
            let v = values[row * c + k] as f32;
            entries.push((
                key.clone(),
                Value::tensor(&[v], &[]).map_err(|e| e.to_string())?,
            ));
        }
        maps.push(Val::Map(Map {
            key_type: key_type as i32,
            entries,
        }));
    }
    Ok(vec![Val::Sequence(maps)])
}

/// The input map X.
fn map_input<'v>(inputs: &[Option<&'v Val>]) -> KernelResult<&'v Map> {
    match input(inputs, 0)? {
        Val::Map(m) => Ok(m),
        other => Err(format!("X must be a map, got a {}", other.kind())),
    }
}

/// A map entry's value: a tensor of one element.
fn entry_value(value: &Value) -> KernelResult<Tensor> {
    match value {
        Value::Tensor(proto) => {
            let t = Tensor::from_proto(proto)?;
            if t.len() != 1 {
                return Err(format!("a map value of {} elements, not one", t.len()));
            }
            Ok(t)
        }
        other => Err(format!("a map value is a {}, not a tensor", other.kind())),
    }
}

/// The values of `entries` laid into `len` slots at `slot(key)` (entries without a slot left
/// out), the rest 0 (or "" for strings), shaped [1, len], of element type `dtype` (else the
/// values' own, else float).
fn lay_out(
    ctx: &Ctx<'_>,
    entries: &[(MapKey, Value)],
    len: usize,
    slot: impl Fn(&MapKey) -> KernelResult<Option<usize>>,
    dtype: Option<DataType>,
) -> KernelResult<Tensor> {
    ctx.checked_count(&[1, len])?;
    let mut placed = Vec::with_capacity(entries.len());
    for (key, value) in entries {
        if let Some(i) = slot(key)? {
            placed.push((i, entry_value(value)?));
        }
    }
    let dtype = dtype
        .or_else(|| placed.first().map(|(_, v)| v.dtype))
        .unwrap_or(DataType::Float);
    let shape = IxDyn(&[1, len]);
    let err = |e: ndarray::ShapeError| e.to_string();
    if dtype == DataType::String {
        let mut out = vec![String::new(); len];
        for (i, v) in placed {
            out[i] = match &v.data {
                Data::Str(a) => a.iter().next().cloned().unwrap_or_default(),
                _ => v.to_f64_vec()?[0].to_string(),
            };
        }
        return Ok(Tensor::from_data(Data::Str(
            ArrayD::from_shape_vec(shape, out).map_err(err)?,
        )));
    }
    let mut numbers = vec![0.0; len];
    for (i, v) in placed {
        numbers[i] = match &v.data {
            Data::Str(a) => {
                let s = a.iter().next().cloned().unwrap_or_default();
                s.trim()
                    .parse::<f64>()
                    .map_err(|_| format!("map value {s:?} is no number"))?
            }
            _ => v.to_f64_vec()?[0],
        };
    }
    let data = match dtype {
        DataType::Double => Data::F64(ArrayD::from_shape_vec(shape, numbers).map_err(err)?),
        DataType::Int64 => Data::I64(
            ArrayD::from_shape_vec(shape, numbers.iter().map(|&v| v as i64).collect())
                .map_err(err)?,
        ),
        _ => return float_tensor(numbers, &[1, len]),
    };
    Ok(Tensor::from_data(data))
}

/// DictVectorizer: the map's values at their keys' positions in the vocabulary
/// (`string_vocabulary` or `int64_vocabulary`), [1, vocabulary]; keys not in it are left out.
fn dict_vectorizer(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let map = map_input(inputs)?;
    let strings = ctx.strings("string_vocabulary").unwrap_or_default();
    let ints = ctx.ints("int64_vocabulary").unwrap_or_default();
    // Keys as (integer, bytes): MapKey is not hashable.
    let index: HashMap<(i64, &[u8]), usize> = if strings.is_empty() {
        ints.iter()
            .enumerate()
            .map(|(i, &k)| ((k, &[][..]), i))
            .collect()
    } else {
        strings
            .iter()
            .enumerate()
            .map(|(i, s)| ((0, s.as_bytes()), i))
            .collect()
    };
    let len = strings.len().max(ints.len());
    let slot = |k: &MapKey| {
        Ok(match k {
            MapKey::Int(i) => index.get(&(*i, &[][..])).copied(),
            MapKey::String(s) => index.get(&(0, s.as_slice())).copied(),
        })
    };
    one(lay_out(ctx, &map.entries, len, slot, None)?)
}

/// CastMap: an int64-keyed map's values in ascending key order (DENSE), or at their keys in
/// `max_map` slots (SPARSE), as `cast_to` says (TO_FLOAT, TO_STRING, TO_INT64); [1, len].
fn cast_map(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let map = map_input(inputs)?;
    let dtype = match ctx.string("cast_to").as_deref().unwrap_or("TO_FLOAT") {
        "TO_FLOAT" => DataType::Float,
        "TO_STRING" => DataType::String,
        "TO_INT64" => DataType::Int64,
        other => return Err(format!("unknown cast_to {other:?}")),
    };
    let key = |k: &MapKey| match k {
        MapKey::Int(i) => Ok(*i),
        MapKey::String(_) => Err("CastMap takes a map of int64 keys".to_string()),
    };
    let mut entries = map.entries.clone();
    entries.sort_by_key(|(k, _)| match k {
        MapKey::Int(i) => *i,
        MapKey::String(_) => i64::MAX,
    });
    match ctx.string("map_form").as_deref().unwrap_or("DENSE") {
        "DENSE" => {
            let order: HashMap<i64, usize> = entries
                .iter()
                .enumerate()
                .map(|(i, (k, _))| Ok((key(k)?, i)))
                .collect::<KernelResult<_>>()?;
            let len = entries.len();
            one(lay_out(
                ctx,
                &entries,
                len,
                |k| Ok(order.get(&key(k)?).copied()),
                Some(dtype),
            )?)
        }
        "SPARSE" => {
            let max = usize::try_from(ctx.int("max_map", 1))
                .map_err(|_| "max_map is negative".to_string())?;
            let slot = |k: &MapKey| -> KernelResult<Option<usize>> {
                let k = key(k)?;
                match usize::try_from(k).ok().filter(|&i| i < max) {
                    Some(i) => Ok(Some(i)),
                    None => Err(format!("key {k} is beyond max_map {max}")),
                }
            };
            one(lay_out(ctx, &entries, max, slot, Some(dtype))?)
        }
        other => Err(format!("unknown map_form {other:?}")),
    }
}
