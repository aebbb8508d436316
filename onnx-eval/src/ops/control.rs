//! Values in and out, and control flow: Identity, Constant, If, Loop.

use super::{Ctx, Registry, input, one, tensor, tensor_opt};
use crate::error::KernelResult;
use crate::tensor::{Data, Tensor};
use crate::value::Val;
use ndarray::{ArrayD, IxDyn};

pub(super) fn register(r: &mut Registry) {
    r.add("", "Identity", 1, identity);
    r.add("", "Constant", 1, constant);
    r.add("", "If", 1, if_);
    r.add("", "Loop", 1, loop_);
}

fn identity(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    Ok(vec![input(inputs, 0)?.clone()])
}

/// The one value attribute given: a tensor, or a scalar or list of ints, floats or strings.
fn constant(ctx: &Ctx<'_>, _: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    if let Some(t) = ctx.tensor("value")? {
        return one(t);
    }
    let shaped = |values: Data| Tensor::from_data(values);
    if let Some(a) = ctx.attribute("value_int") {
        return one(Tensor::scalar_i64(a.i.unwrap_or(0)));
    }
    if let Some(a) = ctx.attribute("value_float") {
        return one(shaped(Data::F32(ArrayD::from_elem(
            IxDyn(&[]),
            a.f.unwrap_or(0.0),
        ))));
    }
    if let Some(s) = ctx.string("value_string") {
        return one(shaped(Data::Str(ArrayD::from_elem(IxDyn(&[]), s))));
    }
    if let Some(v) = ctx.ints("value_ints") {
        return one(Tensor::from_i64s(v.to_vec()));
    }
    if let Some(v) = ctx.floats("value_floats") {
        return one(shaped(Data::F32(
            ArrayD::from_shape_vec(IxDyn(&[v.len()]), v.to_vec()).expect("1-D"),
        )));
    }
    if let Some(v) = ctx.strings("value_strings") {
        return one(shaped(Data::Str(
            ArrayD::from_shape_vec(IxDyn(&[v.len()]), v).expect("1-D"),
        )));
    }
    Err("Constant has no value attribute (sparse_value is not supported)".to_string())
}

/// A bool scalar (or one-element tensor) condition.
fn condition(t: &Tensor, what: &str) -> KernelResult<bool> {
    match &t.data {
        Data::Bool(a) if a.len() == 1 => Ok(*a.iter().next().expect("one element")),
        _ => Err(format!(
            "{what} must be one bool, got {} of shape {:?}",
            t.type_name(),
            t.shape()
        )),
    }
}

fn if_(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let branch = if condition(tensor(inputs, 0)?, "the condition")? {
        "then_branch"
    } else {
        "else_branch"
    };
    ctx.run_graph(branch, Vec::new())
}

/// Loop: `M` (max trip count) and `cond` optional, then the loop-carried values; the body takes
/// (iteration, cond, carried...) and gives (cond, carried..., scan outputs...). Scan outputs are
/// stacked along a new first axis.
fn loop_(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let max_trips = match tensor_opt(inputs, 0)? {
        Some(t) => Some(*t.to_i64_vec()?.first().ok_or("M is empty")?),
        None => None,
    };
    let mut keep_going = match tensor_opt(inputs, 1)? {
        Some(t) => condition(t, "cond")?,
        None => true,
    };
    let mut carried: Vec<Val> = inputs
        .iter()
        .skip(2)
        .map(|v| v.cloned().ok_or("a loop-carried value is missing"))
        .collect::<Result<_, _>>()?;
    let carried_count = carried.len();
    let limit = ctx.model.limits.max_loop_iterations;
    let mut scans: Vec<Vec<Val>> = Vec::new();
    let mut trip: i64 = 0;
    while keep_going && max_trips.is_none_or(|m| trip < m) {
        if trip as u64 >= limit {
            return Err(format!(
                "the loop ran {trip} iterations, the limit (Limits::max_loop_iterations)"
            ));
        }
        let mut body_inputs = vec![
            Val::Tensor(Tensor::scalar_i64(trip)),
            Val::Tensor(Tensor::scalar_bool(keep_going)),
        ];
        body_inputs.append(&mut carried);
        let mut outputs = ctx.run_graph("body", body_inputs)?.into_iter();
        let cond = outputs.next().ok_or("the body gives no condition")?;
        keep_going = condition(cond.as_tensor()?, "the body's condition")?;
        carried = outputs.by_ref().take(carried_count).collect();
        if carried.len() != carried_count {
            return Err("the body gives fewer loop-carried values than it takes".to_string());
        }
        for (i, scan) in outputs.enumerate() {
            if scans.len() <= i {
                scans.push(Vec::new());
            }
            scans[i].push(scan);
        }
        trip += 1;
    }
    let scan_count = ctx.outputs.saturating_sub(carried_count);
    let mut results = carried;
    for i in 0..scan_count {
        let items = scans.get(i).map(Vec::as_slice).unwrap_or_default();
        results.push(Val::Tensor(stack(items, ctx, 1 + carried_count + i)?));
    }
    Ok(results)
}

/// Stacks tensors of one shape along a new first axis (a loop's scan output, the body's output
/// `index`); no items give an empty tensor of the body's declared type.
fn stack(items: &[Val], ctx: &Ctx<'_>, index: usize) -> KernelResult<Tensor> {
    let tensors: Vec<&Tensor> = items.iter().map(Val::as_tensor).collect::<Result<_, _>>()?;
    if tensors.is_empty() {
        return Tensor::zeros(super::scan::declared_type(ctx, index), &[0]);
    }
    super::scan::stack(&tensors, 0)
}

#[cfg(test)]
mod tests {
    use super::super::math::testing::*;
    use onnx_value::Value;

    /// A Loop whose body takes `optional(seq(float))` and gives back `seq(float)`: from the
    /// second iteration on the carried sequence is the body's optional input, present. By hand:
    /// [0.5] with each iteration number appended.
    #[test]
    fn loop_carries_a_plain_value_into_an_optional_input() {
        let text = r#"<ir_version: 8, opset_import: ["" : 16]>
            g (int64 m, bool cond, optional(seq(float)) start) => (seq(float) out) {
                out = Loop (m, cond, start) <body: graph = body (int64 i, bool c, optional(seq(float)) acc) => (bool c_out, seq(float) acc_out) {
                    c_out = Identity (c)
                    items = OptionalGetElement (acc)
                    item = Cast <to: int = 1> (i)
                    acc_out = SequenceInsert (items, item)
                }>
            }"#;
        let start = Value::Optional(Some(Box::new(Value::Sequence(vec![value(&[0.5f32], &[])]))));
        let out = run(text, &[value(&[3i64], &[]), value(&[true], &[]), start]).unwrap();
        let Value::Sequence(items) = &out[0] else {
            panic!("not a sequence: {:?}", out[0])
        };
        let items: Vec<f32> = items
            .iter()
            .map(|t| t.to_vec::<f32>().unwrap()[0])
            .collect();
        assert_eq!(items, [0.5, 0.0, 1.0, 2.0]);
    }

    /// The other way: a body input declared `seq(float)` given a present optional holds its
    /// sequence, which SequenceLength reads. By hand: 2 items, then 2 again.
    #[test]
    fn loop_carries_a_present_optional_into_a_plain_input() {
        let text = r#"<ir_version: 8, opset_import: ["" : 16]>
            g (int64 m, optional(seq(float)) start) => (seq(float) out, int64[2] lengths) {
                out, lengths = Loop (m, , start) <body: graph = body (int64 i, bool c, seq(float) acc) => (bool c_out, seq(float) acc_out, int64 length) {
                    c_out = Identity (c)
                    acc_out = Identity (acc)
                    length = SequenceLength (acc)
                }>
            }"#;
        let items = vec![value(&[1.0f32], &[]), value(&[2.0f32], &[])];
        let start = Value::Optional(Some(Box::new(Value::Sequence(items))));
        let out = run(text, &[value(&[2i64], &[]), start]).unwrap();
        assert_eq!(out[1].to_vec::<i64>().unwrap(), [2, 2]);
    }

    /// A graph input of `optional(T)` given a `T` holds it: OptionalHasElement-15, which takes
    /// optionals only, says so (by the spec's type of the input).
    #[test]
    fn an_optional_input_given_its_value_holds_it() {
        let text = r#"<ir_version: 8, opset_import: ["" : 15]>
            g (optional(float[1]) x) => (bool y) { y = OptionalHasElement (x) }"#;
        let out = run(text, &[floats(&[1.0], &[1])]).unwrap();
        assert_eq!(out[0].to_vec::<bool>().unwrap(), [true]);
    }
}
