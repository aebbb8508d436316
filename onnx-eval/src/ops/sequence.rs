//! Sequences and optionals: SequenceEmpty, SequenceConstruct, SequenceInsert, SequenceAt,
//! SequenceErase, SequenceLength, SplitToSequence, ConcatFromSequence, SequenceMap, Optional,
//! OptionalHasElement, OptionalGetElement.

use super::layout::{axis_range, with_new_axis, without_axis};
use super::{Ctx, Registry, axis, input, one, tensor, tensor_opt};
use crate::error::KernelResult;
use crate::tensor::{Data, Tensor};
use crate::value::Val;

pub(super) fn register(r: &mut Registry) {
    r.add("", "SequenceEmpty", 11, sequence_empty);
    r.add("", "SequenceConstruct", 11, sequence_construct);
    r.add("", "SequenceInsert", 11, sequence_insert);
    r.add("", "SequenceAt", 11, sequence_at);
    r.add("", "SequenceErase", 11, sequence_erase);
    r.add("", "SequenceLength", 11, sequence_length);
    r.add("", "SplitToSequence", 11, split_to_sequence);
    r.add("", "ConcatFromSequence", 11, concat_from_sequence);
    r.add("", "SequenceMap", 17, sequence_map);
    r.add("", "Optional", 15, optional);
    // Version 18 accepts tensors and sequences too, and a missing input.
    r.add("", "OptionalHasElement", 15, optional_has_element);
    r.add("", "OptionalHasElement", 18, optional_has_element);
    r.add("", "OptionalGetElement", 15, optional_get_element);
    r.add("", "OptionalGetElement", 18, optional_get_element);
}

/// The `index`-th input as a sequence.
fn sequence<'v>(inputs: &[Option<&'v Val>], index: usize) -> KernelResult<&'v [Val]> {
    match input(inputs, index)? {
        Val::Sequence(items) => Ok(items),
        other => Err(format!(
            "input {index}: expected a sequence, got a {}",
            other.kind()
        )),
    }
}

/// A position operand (a scalar integer) resolved against a sequence of `len` items: from
/// `-len` to `len - 1`, or to `len` where inserting at the end is allowed.
fn position(t: &Tensor, len: usize, end_allowed: bool) -> KernelResult<usize> {
    let [p] = t.to_i64_vec()?[..] else {
        return Err(format!(
            "the position must be one integer, got shape {:?}",
            t.shape()
        ));
    };
    let n = len as i64;
    let high = if end_allowed { n } else { n - 1 };
    if p < -n || p > high {
        return Err(format!(
            "position {p} is out of range for a sequence of {len} items"
        ));
    }
    Ok(if p < 0 { p + n } else { p } as usize)
}

/// SequenceEmpty: no items (the `dtype` attribute types them, which a value needs not carry).
fn sequence_empty(_: &Ctx<'_>, _: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    Ok(vec![Val::Sequence(Vec::new())])
}

fn sequence_construct(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let items: Vec<Val> = (0..inputs.len())
        .map(|i| tensor(inputs, i).cloned().map(Val::Tensor))
        .collect::<KernelResult<_>>()?;
    check_one_type(&items)?;
    Ok(vec![Val::Sequence(items)])
}

/// The items of a sequence are tensors of one element type.
fn check_one_type(items: &[Val]) -> KernelResult<()> {
    let mut dtype = None;
    for item in items {
        let t = item.as_tensor()?;
        match dtype {
            None => dtype = Some(t.dtype),
            Some(d) if d != t.dtype => {
                return Err(format!(
                    "a sequence's tensors differ in element type: {} and {}",
                    d.as_str_name(),
                    t.type_name()
                ));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

fn sequence_insert(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let items = sequence(inputs, 0)?;
    let value = tensor(inputs, 1)?;
    let at = match tensor_opt(inputs, 2)? {
        Some(p) => position(p, items.len(), true)?,
        None => items.len(),
    };
    let mut items = items.to_vec();
    items.insert(at, Val::Tensor(value.clone()));
    check_one_type(&items)?;
    Ok(vec![Val::Sequence(items)])
}

fn sequence_at(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let items = sequence(inputs, 0)?;
    let at = position(tensor(inputs, 1)?, items.len(), false)?;
    Ok(vec![items[at].clone()])
}

fn sequence_erase(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let items = sequence(inputs, 0)?;
    let at = match tensor_opt(inputs, 1)? {
        Some(p) => position(p, items.len(), false)?,
        None if items.is_empty() => return Err("erasing from an empty sequence".to_string()),
        None => items.len() - 1,
    };
    let mut items = items.to_vec();
    items.remove(at);
    Ok(vec![Val::Sequence(items)])
}

fn sequence_length(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(Tensor::scalar_i64(sequence(inputs, 0)?.len() as i64))
}

/// The part of `t` from `start` to `end` along `axis`, that axis removed when `squeeze`.
fn part(t: &Tensor, axis: usize, start: usize, end: usize, squeeze: bool) -> KernelResult<Tensor> {
    let part = axis_range(t, axis, start, end)?;
    if squeeze {
        without_axis(&part, axis)
    } else {
        Ok(part)
    }
}

/// SplitToSequence: parts of size 1 (the axis dropped unless `keepdims`), of a scalar `split`'s
/// size (the last may be shorter), or of the sizes a 1-D `split` lists (summing to the dim; a
/// size of 0 makes an empty part).
fn split_to_sequence(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let data = tensor(inputs, 0)?;
    let axis = axis(ctx.int("axis", 0), data.rank())?;
    let dim = *data
        .shape()
        .get(axis)
        .ok_or("cannot split a scalar into a sequence")?;
    let split = tensor_opt(inputs, 1)?;
    let sizes: Vec<usize> = match split {
        None => vec![1; dim],
        Some(s) => {
            let values = s.to_i64_vec()?;
            // The spec takes sizes >= 0: a listed part may be empty; a scalar size of 0
            // would make no parts of a dim over 0, so it must be positive.
            if let Some(v) = values.iter().find(|&&v| v < 0) {
                return Err(format!("split sizes must not be negative, got {v}"));
            }
            if s.rank() == 0 {
                if values[0] == 0 {
                    return Err("a scalar split size must be positive, got 0".to_string());
                }
                let size = values[0] as usize;
                let mut sizes = vec![size; dim / size];
                if dim % size != 0 {
                    sizes.push(dim % size);
                }
                sizes
            } else {
                let sizes: Vec<usize> = values.iter().map(|&v| v as usize).collect();
                if sizes.iter().sum::<usize>() != dim {
                    return Err(format!(
                        "split sizes {values:?} do not sum to the dim {dim} of axis {axis}"
                    ));
                }
                sizes
            }
        }
    };
    // `keepdims` counts only where no `split` is given.
    let squeeze = split.is_none() && ctx.int("keepdims", 1) == 0;
    let mut start = 0;
    let mut items = Vec::with_capacity(sizes.len());
    for size in sizes {
        items.push(Val::Tensor(part(data, axis, start, start + size, squeeze)?));
        start += size;
    }
    Ok(vec![Val::Sequence(items)])
}

/// ConcatFromSequence: the tensors joined along `axis`, or stacked along a new one with
/// `new_axis` (then `axis` may also be the rank, to append it).
fn concat_from_sequence(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let items = sequence(inputs, 0)?;
    let tensors: Vec<&Tensor> = items
        .iter()
        .map(Val::as_tensor)
        .collect::<KernelResult<_>>()?;
    let first = tensors
        .first()
        .ok_or("ConcatFromSequence of an empty sequence")?;
    let new_axis = ctx.int("new_axis", 0) != 0;
    let rank = first.rank() + usize::from(new_axis);
    let axis = axis(ctx.int("axis", 0), rank)?;
    let parts: Vec<Data> = tensors
        .iter()
        .map(|t| {
            if t.dtype != first.dtype {
                return Err("the sequence's tensors differ in element type".to_string());
            }
            if !new_axis {
                return Ok(t.data.clone());
            }
            if t.shape() != first.shape() {
                return Err(format!(
                    "cannot stack tensors of shapes {:?} and {:?}",
                    first.shape(),
                    t.shape()
                ));
            }
            Ok(with_new_axis(t, axis)?.data)
        })
        .collect::<KernelResult<_>>()?;
    one(first.with_data(super::shape::concat(&parts, axis)?))
}

/// SequenceMap: the body on the i-th item of every sequence input (tensor inputs whole), its
/// outputs gathered into sequences.
fn sequence_map(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let count = sequence(inputs, 0)?.len();
    let operands: Vec<&Val> = (0..inputs.len())
        .map(|i| input(inputs, i))
        .collect::<KernelResult<_>>()?;
    for (i, operand) in operands.iter().enumerate() {
        if let Val::Sequence(items) = operand
            && items.len() != count
        {
            return Err(format!(
                "input {i} holds {} items, the first sequence {count}",
                items.len()
            ));
        }
    }
    let mut outputs: Vec<Vec<Val>> = vec![Vec::with_capacity(count); ctx.outputs];
    for i in 0..count {
        let body_inputs = operands
            .iter()
            .map(|operand| match operand {
                Val::Sequence(items) => items[i].clone(),
                other => (*other).clone(),
            })
            .collect();
        let results = ctx.run_graph("body", body_inputs)?;
        if results.len() < ctx.outputs {
            return Err(format!(
                "the body gives {} outputs, the node names {}",
                results.len(),
                ctx.outputs
            ));
        }
        for (output, result) in outputs.iter_mut().zip(results) {
            output.push(result);
        }
    }
    Ok(outputs.into_iter().map(Val::Sequence).collect())
}

/// Optional: the input wrapped, or an empty optional (of the `type` attribute's type) without
/// one.
fn optional(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let inner = inputs.first().copied().flatten().cloned().map(Box::new);
    Ok(vec![Val::Optional(inner)])
}

/// OptionalHasElement: whether an optional holds a value. Version 15 takes an optional only;
/// from 18 a tensor or sequence holds one, and a missing input none.
fn optional_has_element(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let has = match inputs.first().copied().flatten() {
        Some(Val::Optional(inner)) => inner.is_some(),
        Some(other) if ctx.since >= 18 => !matches!(other, Val::Map(_)),
        Some(other) => {
            return Err(format!(
                "OptionalHasElement-15 takes an optional, got a {}",
                other.kind()
            ));
        }
        None if ctx.since >= 18 => false,
        None => return Err("OptionalHasElement-15 needs its input".to_string()),
    };
    one(Tensor::scalar_bool(has))
}

/// OptionalGetElement: the optional's value (an error when empty). Version 15 takes an
/// optional only; from 18 a tensor or sequence is its own value.
fn optional_get_element(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    match input(inputs, 0)? {
        Val::Optional(Some(inner)) => Ok(vec![(**inner).clone()]),
        Val::Optional(None) => Err("the optional holds no value".to_string()),
        other if ctx.since >= 18 => Ok(vec![other.clone()]),
        other => Err(format!(
            "OptionalGetElement-15 takes an optional, got a {}",
            other.kind()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::run;
    use crate::Value;

    fn has_element(opset: i64) -> Result<Vec<Value>, crate::Error> {
        let text = format!(
            "<ir_version: 10, opset_import: [\"\" : {opset}]>
             g (float[1] x) => (bool y) {{ y = OptionalHasElement (x) }}"
        );
        run(&text, &[Value::tensor(&[1.0f32], &[1]).unwrap()])
    }

    fn get_element(opset: i64) -> Result<Vec<Value>, crate::Error> {
        let text = format!(
            "<ir_version: 10, opset_import: [\"\" : {opset}]>
             g (float[1] x) => (float[1] y) {{ y = OptionalGetElement (x) }}"
        );
        run(&text, &[Value::tensor(&[2.5f32], &[1]).unwrap()])
    }

    /// By the spec: version 15 takes an optional only; 18 says a tensor holds an element.
    #[test]
    fn optional_has_element_15_refuses_a_tensor_18_takes_it() {
        let error = has_element(15).unwrap_err();
        assert!(error.to_string().contains("takes an optional"), "{error}");
        let y = has_element(18).unwrap();
        assert_eq!(y[0].to_vec::<bool>().unwrap(), [true]);
    }

    /// By the spec: version 15 takes an optional only; 18 gives a tensor back as it is.
    #[test]
    fn optional_get_element_15_refuses_a_tensor_18_passes_it() {
        let error = get_element(15).unwrap_err();
        assert!(error.to_string().contains("takes an optional"), "{error}");
        let y = get_element(18).unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [2.5]);
    }

    /// By the spec: a scalar split of 2 over a dim of 5 gives parts of 2, 2 and 1; without
    /// `split`, `keepdims: 0` drops the axis.
    #[test]
    fn split_to_sequence_scalar_split_and_keepdims() {
        let text = "<ir_version: 10, opset_import: [\"\" : 11]>
            g (float[5] x, int64 s) => (seq(float) a, seq(float) b) {
                a = SplitToSequence (x, s)
                b = SplitToSequence <keepdims: int = 0> (x)
            }";
        let x = Value::tensor(&[1.0f32, 2.0, 3.0, 4.0, 5.0], &[5]).unwrap();
        let s = Value::tensor(&[2i64], &[]).unwrap();
        let out = run(text, &[x, s]).unwrap();
        let Value::Sequence(a) = &out[0] else {
            panic!("{:?}", out[0])
        };
        let lens: Vec<usize> = a.iter().map(|t| t.to_vec::<f32>().unwrap().len()).collect();
        assert_eq!(lens, [2, 2, 1]);
        let Value::Sequence(b) = &out[1] else {
            panic!("{:?}", out[1])
        };
        assert_eq!(b.len(), 5);
        let Value::Tensor(t) = &b[4] else { panic!() };
        assert!(t.dims.is_empty());
        assert_eq!(b[4].to_vec::<f32>().unwrap(), [5.0]);
    }

    /// By the spec ("all values must be >= 0"): listed sizes of 0 make empty parts, as onnx's
    /// test_sequence_model8 splits an empty X by [0, 0, 0] into 3 parts; a negative size, or a
    /// scalar size of 0, is an error.
    #[test]
    fn split_to_sequence_takes_sizes_of_zero() {
        let text = "<ir_version: 10, opset_import: [\"\" : 12]>
            g (float[n] x, int64[k] s) => (seq(float) a) { a = SplitToSequence (x, s) }";
        let split = |x: &[f32], s: &[i64], dims: &[usize]| {
            run(
                text,
                &[
                    Value::tensor(x, &[x.len()]).unwrap(),
                    Value::tensor(s, dims).unwrap(),
                ],
            )
        };
        let out = split(&[], &[0, 0, 0], &[3]).unwrap();
        let Value::Sequence(a) = &out[0] else {
            panic!("{:?}", out[0])
        };
        assert_eq!(a.len(), 3);
        assert!(a.iter().all(|t| t.to_vec::<f32>().unwrap().is_empty()));
        let out = split(&[1.0, 2.0], &[0, 2], &[2]).unwrap();
        let Value::Sequence(a) = &out[0] else {
            panic!("{:?}", out[0])
        };
        let lens: Vec<usize> = a.iter().map(|t| t.to_vec::<f32>().unwrap().len()).collect();
        assert_eq!(lens, [0, 2]);
        let error = split(&[1.0, 2.0], &[-1, 3], &[2]).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("split sizes must not be negative, got -1"),
            "{error}"
        );
        let text0 = "<ir_version: 10, opset_import: [\"\" : 12]>
            g (float[n] x, int64 s) => (seq(float) a) { a = SplitToSequence (x, s) }";
        let error = run(
            text0,
            &[
                Value::tensor(&[1.0f32], &[1]).unwrap(),
                Value::tensor(&[0i64], &[]).unwrap(),
            ],
        )
        .unwrap_err();
        assert!(
            error
                .to_string()
                .contains("a scalar split size must be positive"),
            "{error}"
        );
    }

    /// Positions out of range are errors, not panics.
    #[test]
    fn sequence_at_out_of_range_is_an_error() {
        let text = "<ir_version: 10, opset_import: [\"\" : 11]>
            g (float[1] x, int64 p) => (float[1] y) {
                s = SequenceConstruct (x, x)
                y = SequenceAt (s, p)
            }";
        let x = Value::tensor(&[1.0f32], &[1]).unwrap();
        for (p, ok) in [(-2i64, true), (1, true), (2, false), (-3, false)] {
            let result = run(text, &[x.clone(), Value::tensor(&[p], &[]).unwrap()]);
            assert_eq!(result.is_ok(), ok, "{p}: {result:?}");
        }
    }
}
