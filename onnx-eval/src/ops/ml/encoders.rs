//! The encoders: LabelEncoder (classes in version 1, key and value lists from 2, tensors from
//! 4) and CategoryMapper.

use super::DOMAIN;
use crate::error::KernelResult;
use crate::ops::training::floats_like;
use crate::ops::{Ctx, Registry, one, tensor};
use crate::tensor::{Data, Tensor, array, row_major, zip_data};
use crate::value::Val;
use ndarray::{ArrayD, IxDyn};
use onnx_runtime_types::tensor_proto::DataType;
use std::collections::HashMap;

pub(super) fn register(r: &mut Registry) {
    r.add(DOMAIN, "LabelEncoder", 1, label_encoder_v1);
    r.add(DOMAIN, "LabelEncoder", 2, label_encoder);
    r.add(DOMAIN, "LabelEncoder", 4, label_encoder);
    r.add(DOMAIN, "CategoryMapper", 1, category_mapper);
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
    let flat = row_major(values);
    let mut out = Vec::with_capacity(picks.len());
    for p in picks {
        out.push(p.and_then(|i| flat.get(i)).unwrap_or(fallback).clone());
    }
    array(shape, out)
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

/// CategoryMapper: strings to their integer in the parallel `cats_strings`/`cats_int64s`
/// (else `default_int64`), or integers to their string (else `default_string`).
fn category_mapper(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let strings = ctx.strings("cats_strings").unwrap_or_default();
    let ints = ctx.ints("cats_int64s").unwrap_or_default();
    if strings.len() != ints.len() {
        return Err(format!(
            "cats_strings has {} entries and cats_int64s {}",
            strings.len(),
            ints.len()
        ));
    }
    let data = match &x.data {
        Data::Str(a) => {
            let map: HashMap<&str, i64> = strings
                .iter()
                .map(String::as_str)
                .zip(ints.iter().copied())
                .collect();
            let default = ctx.int("default_int64", -1);
            Data::I64(a.map(|s| map.get(s.as_str()).copied().unwrap_or(default)))
        }
        Data::I64(a) => {
            let map: HashMap<i64, &str> = ints
                .iter()
                .copied()
                .zip(strings.iter().map(String::as_str))
                .collect();
            let default = ctx
                .string("default_string")
                .unwrap_or_else(|| "_Unused".to_string());
            Data::Str(a.map(|i| map.get(i).copied().unwrap_or(&default).to_string()))
        }
        _ => {
            return Err(format!(
                "CategoryMapper takes strings or int64, got {}",
                x.type_name()
            ));
        }
    };
    one(Tensor::from_data(data))
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
