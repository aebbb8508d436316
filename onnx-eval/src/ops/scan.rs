//! Scan: a body run over slices of its scan inputs, carrying state from one slice to the next
//! and stacking what it gives per slice. Version 8 scans a batch (axis 0) along axis 1, with
//! per-batch lengths; version 9 on has no batch and chooses each input's and output's axis and
//! direction.

use super::layout::{axis_range, with_new_axis, without_axis};
use super::{Ctx, Registry, axis, input, tensor_opt};
use crate::error::KernelResult;
use crate::tensor::{Data, Tensor};
use crate::value::Val;
use onnx_runtime_types::tensor_proto::DataType;
use std::borrow::Borrow;

pub(super) fn register(r: &mut Registry) {
    r.add("", "Scan", 8, scan_v8);
    r.add("", "Scan", 9, scan_v9);
}

/// The `i`-th slice of `t` along `axis`, that axis removed.
fn slice(t: &Tensor, axis: usize, i: usize) -> KernelResult<Tensor> {
    let len = t.shape().get(axis).copied().unwrap_or(0);
    if i >= len {
        return Err(format!(
            "slice {i} along axis {axis} of shape {:?}",
            t.shape()
        ));
    }
    without_axis(&axis_range(t, axis, i, i + 1)?, axis)
}

/// Tensors of one shape and type stacked along a new `axis` (owned or borrowed, as the caller
/// holds them).
pub(crate) fn stack<T: Borrow<Tensor>>(tensors: &[T], axis: usize) -> KernelResult<Tensor> {
    let first = tensors.first().ok_or("nothing to stack")?.borrow();
    if axis > first.rank() {
        return Err(format!("axis {axis} is beyond rank {}", first.rank()));
    }
    let parts: Vec<Data> = tensors
        .iter()
        .map(|t| {
            let t = t.borrow();
            if t.shape() != first.shape() || t.dtype != first.dtype {
                return Err(format!(
                    "cannot stack a {} {:?} with a {} {:?}: a scan output changes between iterations",
                    first.type_name(),
                    first.shape(),
                    t.type_name(),
                    t.shape()
                ));
            }
            Ok(with_new_axis(t, axis)?.data)
        })
        .collect::<KernelResult<_>>()?;
    Ok(first.with_data(super::shape::concat(&parts, axis)?))
}

/// The element type the body declares for its output `index`, for a scan output of no
/// iterations.
pub(super) fn declared_type(ctx: &Ctx<'_>, index: usize) -> DataType {
    ctx.graph_proto("body")
        .and_then(|g| g.output.get(index))
        .and_then(|o| o.r#type.as_ref())
        .and_then(|t| match &t.value {
            Some(onnx_runtime_types::type_proto::Value::TensorType(t)) => t.elem_type,
            _ => None,
        })
        .and_then(|c| DataType::try_from(c).ok())
        .unwrap_or(DataType::Float)
}

/// One direction flag per scan input or output: 0 forward, 1 reverse.
fn directions(ctx: &Ctx<'_>, name: &str, count: usize) -> KernelResult<Vec<bool>> {
    match ctx.ints(name) {
        None => Ok(vec![false; count]),
        Some(d) if d.len() == count => d
            .iter()
            .map(|&v| match v {
                0 => Ok(false),
                1 => Ok(true),
                v => Err(format!("`{name}` holds {v}, not 0 or 1")),
            })
            .collect(),
        Some(d) => Err(format!("`{name}` has {} entries for {count}", d.len())),
    }
}

/// The given inputs from `start` on, as tensors.
fn tensors_from(inputs: &[Option<&Val>], start: usize) -> KernelResult<Vec<Tensor>> {
    (start..inputs.len())
        .map(|i| {
            input(inputs, i)?
                .as_tensor()
                .cloned()
                .map_err(|e| format!("input {i}: {e}"))
        })
        .collect()
}

/// Runs the body once: the states and slices in, the new states and the per-iteration
/// outputs out.
fn step(
    ctx: &Ctx<'_>,
    states: Vec<Tensor>,
    slices: Vec<Tensor>,
) -> KernelResult<(Vec<Tensor>, Vec<Tensor>)> {
    let state_count = states.len();
    let body_inputs = states.into_iter().chain(slices).map(Val::Tensor).collect();
    let outputs = ctx.run_graph("body", body_inputs)?;
    if outputs.len() < state_count {
        return Err(format!(
            "the body gives {} outputs for {state_count} states",
            outputs.len()
        ));
    }
    let mut tensors: Vec<Tensor> = outputs
        .into_iter()
        .map(|v| v.as_tensor().cloned())
        .collect::<KernelResult<_>>()?;
    let scanned = tensors.split_off(state_count);
    Ok((tensors, scanned))
}

/// The common length of the scan inputs along their axes.
fn scan_length(scans: &[Tensor], axes: &[usize]) -> KernelResult<usize> {
    let mut length = None;
    for (t, &axis) in scans.iter().zip(axes) {
        let n = t.shape()[axis];
        match length {
            None => length = Some(n),
            Some(m) if m != n => {
                return Err(format!("scan inputs of different lengths: {m} and {n}"));
            }
            Some(_) => {}
        }
    }
    length.ok_or_else(|| "Scan has no scan input".to_string())
}

fn num_scan_inputs(ctx: &Ctx<'_>, available: usize) -> KernelResult<usize> {
    let m = ctx
        .int_opt("num_scan_inputs")
        .ok_or("Scan needs `num_scan_inputs`")?;
    if m < 1 || m as usize > available {
        return Err(format!(
            "num_scan_inputs is {m} with {available} state and scan inputs"
        ));
    }
    Ok(m as usize)
}

/// Scan from version 9: states, then scan inputs sliced along `scan_input_axes` in
/// `scan_input_directions`; each scan output stacked along its `scan_output_axes`, in reverse
/// order where `scan_output_directions` says 1.
fn scan_v9(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let all = tensors_from(inputs, 0)?;
    let m = num_scan_inputs(ctx, all.len())?;
    let n = all.len() - m;
    let (states, scans) = all.split_at(n);
    let axes: Vec<usize> = match ctx.ints("scan_input_axes") {
        None => vec![0; m],
        Some(a) if a.len() == m => a
            .iter()
            .zip(scans)
            .map(|(&a, t)| axis(a, t.rank()))
            .collect::<KernelResult<_>>()?,
        Some(a) => return Err(format!("scan_input_axes has {} entries for {m}", a.len())),
    };
    if let Some(t) = scans.iter().find(|t| t.rank() == 0) {
        return Err(format!(
            "a scan input of shape {:?} has no axis to scan",
            t.shape()
        ));
    }
    let input_reverse = directions(ctx, "scan_input_directions", m)?;
    let length = scan_length(scans, &axes)?;
    let mut states = states.to_vec();
    let mut per_output: Vec<Vec<Tensor>> = Vec::new();
    for t in 0..length {
        let slices = scans
            .iter()
            .zip(&axes)
            .zip(&input_reverse)
            .map(|((s, &axis), &reverse)| slice(s, axis, if reverse { length - 1 - t } else { t }))
            .collect::<KernelResult<_>>()?;
        let (next, scanned) = step(ctx, states, slices)?;
        if next.len() != n {
            return Err("the body changes the number of states".to_string());
        }
        states = next;
        per_output.resize_with(scanned.len(), Vec::new);
        for (collected, item) in per_output.iter_mut().zip(scanned) {
            collected.push(item);
        }
    }
    let k = ctx.outputs.saturating_sub(n);
    let output_reverse = directions(ctx, "scan_output_directions", k)?;
    let output_axes = ctx.ints("scan_output_axes");
    let mut results: Vec<Val> = states.into_iter().map(Val::Tensor).collect();
    for (j, &reverse) in output_reverse.iter().enumerate() {
        let mut items = per_output.get(j).cloned().unwrap_or_default();
        if items.is_empty() {
            results.push(Val::Tensor(Tensor::zeros(declared_type(ctx, n + j), &[0])?));
            continue;
        }
        if reverse {
            items.reverse();
        }
        let axis = match output_axes {
            None => 0,
            Some(a) => axis(
                *a.get(j).ok_or("scan_output_axes is too short")?,
                items[0].rank() + 1,
            )?,
        };
        results.push(Val::Tensor(stack(&items, axis)?));
    }
    Ok(results)
}

/// Scan version 8: an optional `sequence_lens` first, then states and scan inputs whose axis
/// 0 is the batch and axis 1 the sequence; each batch item runs alone for its length, and
/// scan outputs are zero-padded to the longest.
fn scan_v8(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let lengths = match tensor_opt(inputs, 0)? {
        Some(t) => Some(t.to_i64_vec()?),
        None => None,
    };
    let all = tensors_from(inputs, 1)?;
    let m = num_scan_inputs(ctx, all.len())?;
    let n = all.len() - m;
    let (states, scans) = all.split_at(n);
    if let Some(t) = all.iter().find(|t| t.rank() < 1) {
        return Err(format!(
            "Scan-8 inputs need a batch axis, got shape {:?}",
            t.shape()
        ));
    }
    if let Some(t) = scans.iter().find(|t| t.rank() < 2) {
        return Err(format!(
            "Scan-8 scan inputs need batch and sequence axes, got shape {:?}",
            t.shape()
        ));
    }
    let batch = scans[0].shape()[0];
    if let Some(t) = all.iter().find(|t| t.shape()[0] != batch) {
        return Err(format!("batch sizes differ: {batch} and {}", t.shape()[0]));
    }
    let max_length = scan_length(scans, &vec![1; m])?;
    let reverse = directions(ctx, "directions", m)?;
    let mut final_states: Vec<Vec<Tensor>> = vec![Vec::new(); n];
    let mut per_batch_outputs: Vec<Vec<Vec<Tensor>>> = Vec::with_capacity(batch);
    for b in 0..batch {
        let length = match &lengths {
            None => max_length,
            Some(l) => match l.get(b) {
                Some(&v) if v >= 0 && v as usize <= max_length => v as usize,
                Some(&v) => {
                    return Err(format!(
                        "sequence length {v} for batch {b} is outside 0..={max_length}"
                    ));
                }
                None => return Err(format!("sequence_lens has no entry for batch {b}")),
            },
        };
        let mut state: Vec<Tensor> = states
            .iter()
            .map(|s| slice(s, 0, b))
            .collect::<KernelResult<_>>()?;
        let items: Vec<Tensor> = scans
            .iter()
            .map(|s| slice(s, 0, b))
            .collect::<KernelResult<_>>()?;
        let mut outputs: Vec<Vec<Tensor>> = Vec::new();
        for t in 0..length {
            let slices = items
                .iter()
                .zip(&reverse)
                .map(|(s, &r)| slice(s, 0, if r { length - 1 - t } else { t }))
                .collect::<KernelResult<_>>()?;
            let (next, scanned) = step(ctx, state, slices)?;
            if next.len() != n {
                return Err("the body changes the number of states".to_string());
            }
            state = next;
            outputs.resize_with(scanned.len(), Vec::new);
            for (collected, item) in outputs.iter_mut().zip(scanned) {
                collected.push(item);
            }
        }
        for (collected, s) in final_states.iter_mut().zip(state) {
            collected.push(s);
        }
        per_batch_outputs.push(outputs);
    }
    let mut results = Vec::with_capacity(ctx.outputs);
    for states in final_states {
        results.push(Val::Tensor(stack(&states, 0)?));
    }
    for j in 0..ctx.outputs.saturating_sub(n) {
        results.push(Val::Tensor(padded_output(
            ctx,
            &per_batch_outputs,
            j,
            max_length,
            n + j,
        )?));
    }
    Ok(results)
}

/// Scan-8's output `j`: each batch item's slices stacked and zero-padded to `max_length`, the
/// batch stacked on top.
fn padded_output(
    ctx: &Ctx<'_>,
    per_batch: &[Vec<Vec<Tensor>>],
    j: usize,
    max_length: usize,
    body_output: usize,
) -> KernelResult<Tensor> {
    let element = per_batch
        .iter()
        .filter_map(|outputs| outputs.get(j).and_then(|items| items.first()))
        .next();
    let Some(element) = element else {
        let dtype = declared_type(ctx, body_output);
        return Tensor::zeros(dtype, &[per_batch.len(), max_length]);
    };
    let padding = Tensor::zeros(element.dtype, element.shape())?;
    let rows = per_batch
        .iter()
        .map(|outputs| {
            let mut items = outputs.get(j).cloned().unwrap_or_default();
            items.resize(max_length, padding.clone());
            stack(&items, 0)
        })
        .collect::<KernelResult<Vec<_>>>()?;
    stack(&rows, 0)
}

#[cfg(test)]
mod tests {
    use crate::Value;

    /// Scan-8 with `sequence_lens` [2, 1] and a reverse direction, by hand from the spec: batch
    /// 0 sums 2 then 1 (the reverse of [1, 2, 3]'s first two), batch 1 sums 10 alone; the scan
    /// output is zero-padded to length 3.
    #[test]
    fn scan_8_batches_with_lengths_and_reverse() {
        let model = onnx_text::parse_model(
            "<ir_version: 3, opset_import: [\"\" : 8]>
            g (int64[2] lens, float[2,1] init, float[2,3,1] x) => (float[2,1] y, float[2,3,1] z) {
                y, z = Scan (lens, init, x) <num_scan_inputs: int = 1, directions: ints = [1],
                    body: graph = body (float[1] s, float[1] v) => (float[1] s2, float[1] o) {
                        s2 = Add (s, v)
                        o = Identity (s2)
                    }>
            }",
        )
        .unwrap();
        let inputs = [
            Value::tensor(&[2i64, 1], &[2]).unwrap(),
            Value::tensor(&[0.0f32, 100.0], &[2, 1]).unwrap(),
            Value::tensor(&[1.0f32, 2.0, 3.0, 10.0, 20.0, 30.0], &[2, 3, 1]).unwrap(),
        ];
        let out = crate::run(&model, &inputs).unwrap();
        assert_eq!(out[0].to_vec::<f32>().unwrap(), [3.0, 110.0]);
        assert_eq!(
            out[1].to_vec::<f32>().unwrap(),
            [2.0, 3.0, 0.0, 110.0, 0.0, 0.0]
        );
    }

    /// Scan-9 with an input axis of 1 and a reversed output along axis 1, by hand from the spec:
    /// the columns of [[1, 2], [3, 4]] are [1, 3] and [2, 4]; their running sums [1, 3] and
    /// [3, 7], reversed and stacked as columns.
    #[test]
    fn scan_9_axes_and_output_direction() {
        let model = onnx_text::parse_model(
            "<ir_version: 4, opset_import: [\"\" : 9]>
            g (float[2] init, float[2,2] x) => (float[2] y, float[2,2] z) {
                y, z = Scan (init, x) <num_scan_inputs: int = 1, scan_input_axes: ints = [1],
                    scan_output_axes: ints = [1], scan_output_directions: ints = [1],
                    body: graph = body (float[2] s, float[2] v) => (float[2] s2, float[2] o) {
                        s2 = Add (s, v)
                        o = Identity (s2)
                    }>
            }",
        )
        .unwrap();
        let inputs = [
            Value::tensor(&[0.0f32, 0.0], &[2]).unwrap(),
            Value::tensor(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap(),
        ];
        let out = crate::run(&model, &inputs).unwrap();
        assert_eq!(out[0].to_vec::<f32>().unwrap(), [3.0, 7.0]);
        assert_eq!(out[1].to_vec::<f32>().unwrap(), [3.0, 1.0, 7.0, 3.0]);
    }
}
