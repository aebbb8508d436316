//! Operators that move, select or build data: their result shapes, and the values of the
//! small integer tensors that shape computations pass along.

use crate::node::{Conflict, Node, Rule, conflict, dtype, tensor_ints, tensor_type};
use crate::ty::{Dim, Shape, Ty, show_shape};

use super::elementwise::{broadcast, general};

/// `Shape`: the operand's dims as an int64 vector (from opset 15, `start` to `end`).
pub fn shape(node: &mut Node) -> Rule {
    let Some(dims) = node.shape_of(0) else {
        node.set_tensor(0, Some(dtype::INT64), Some(vec![Dim::Unknown]));
        return Ok(());
    };
    let rank = dims.len() as i64;
    let clamp = |v: i64| if v < 0 { (v + rank).max(0) } else { v.min(rank) } as usize;
    let start = clamp(node.int("start", 0));
    let end = clamp(node.int("end", rank));
    let slice = if start < end {
        dims[start..end].to_vec()
    } else {
        Vec::new()
    };
    node.set_tensor(
        0,
        Some(dtype::INT64),
        Some(vec![Dim::Known(slice.len() as i64)]),
    );
    node.set_data(0, slice);
    Ok(())
}

/// `Size`: an int64 scalar, the element count.
pub fn size(node: &mut Node) -> Rule {
    node.set_tensor(0, Some(dtype::INT64), Some(Vec::new()));
    if let Some(count) = node.dims(0).and_then(Dim::product) {
        node.set_data(0, vec![Dim::Known(count)]);
    }
    Ok(())
}

/// `Constant`: the type of its value (a tensor, or a scalar or list attribute).
pub fn constant(node: &mut Node) -> Rule {
    let attr = node.proto.attribute.first();
    let name = attr.and_then(|a| a.name.as_deref()).unwrap_or("");
    let ty = match name {
        "value" => node.tensor("value").map(tensor_type),
        "value_int" => Some(Ty::tensor(dtype::INT64, Some(Vec::new()))),
        "value_float" => Some(Ty::tensor(dtype::FLOAT, Some(Vec::new()))),
        "value_string" => Some(Ty::tensor(dtype::STRING, Some(Vec::new()))),
        "value_ints" => attr.map(|a| list(dtype::INT64, a.ints.len())),
        "value_floats" => attr.map(|a| list(dtype::FLOAT, a.floats.len())),
        "value_strings" => attr.map(|a| list(dtype::STRING, a.strings.len())),
        "sparse_value" => attr
            .and_then(|a| a.sparse_tensor.as_ref())
            .map(|t| Ty::Tensor {
                elem: t.values.as_ref().and_then(|v| v.data_type).unwrap_or(0),
                shape: Some(t.dims.iter().map(|&d| Dim::Known(d)).collect()),
            }),
        _ => None,
    };
    if let Some(ty) = ty {
        node.set(0, ty);
    }
    let values = match name {
        "value" => node.tensor("value").and_then(tensor_ints),
        "value_int" => attr.and_then(|a| a.i).map(|i| vec![i]),
        "value_ints" => attr.map(|a| a.ints.clone()),
        _ => None,
    };
    if let Some(values) = values {
        node.set_data(0, values.into_iter().map(Dim::Known).collect());
    }
    Ok(())
}

/// `rank` unknown dims, where `rank` is the known length of a shape vector (and not so long
/// that it could not be a shape).
fn unknown_dims(rank: &Dim) -> Shape {
    let rank = usize::try_from(rank.known()?).ok()?;
    (rank <= crate::node::MAX_DATA).then(|| vec![Dim::Unknown; rank])
}

fn list(elem: i32, len: usize) -> Ty {
    Ty::tensor(elem, Some(vec![Dim::Known(len as i64)]))
}

/// `Reshape`: to the shape its second operand (or, before opset 5, `shape`) gives, with `0`
/// copying the input's dim (unless `allowzero`) and one `-1` making up the element count.
pub fn reshape(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let target: Option<Vec<Dim>> = if node.opset < 5 {
        node.int_list("shape")
            .map(|v| v.into_iter().map(Dim::Known).collect())
    } else {
        node.values(1)
    };
    let Some(target) = target else {
        let shape = node.dims(1).and_then(|d| unknown_dims(d.first()?));
        node.set_tensor(0, elem, shape);
        return Ok(());
    };
    let input = node.shape_of(0);
    let allow_zero = node.int("allowzero", 0) != 0;
    let mut out = Vec::with_capacity(target.len());
    let mut infer_at = None;
    for (i, d) in target.iter().enumerate() {
        out.push(match d {
            Dim::Known(0) if !allow_zero => match &input {
                Some(dims) if i < dims.len() => dims[i].clone(),
                Some(dims) => {
                    let message = format!(
                        "shape {} copies dim {i} of {}, which has no such dim",
                        show_shape(&target),
                        show_shape(dims)
                    );
                    return Err(conflict(1, message));
                }
                None => Dim::Unknown,
            },
            Dim::Known(-1) => {
                if infer_at.replace(i).is_some() {
                    return Err(conflict(
                        1,
                        format!("shape {} has two -1", show_shape(&target)),
                    ));
                }
                Dim::Unknown
            }
            Dim::Known(n) if *n < -1 => {
                return Err(conflict(
                    1,
                    format!("shape {} has dim {n}", show_shape(&target)),
                ));
            }
            d => d.clone(),
        });
    }
    if let Some(input) = &input {
        let total = Dim::product(input);
        let known = Dim::product(
            out.iter()
                .enumerate()
                .filter(|(i, _)| Some(*i) != infer_at)
                .map(|p| p.1),
        );
        match (total, known, infer_at) {
            (Some(t), Some(k), Some(at)) => {
                if k == 0 || t % k != 0 {
                    return Err(conflict(1, count_message(input, &target)));
                }
                out[at] = Dim::Known(t / k);
            }
            (Some(t), Some(k), None) if t != k => {
                return Err(conflict(1, count_message(input, &target)));
            }
            (None, _, Some(at)) => {
                // A single symbol left over on both sides: `[N, 4] -> [-1, 4]` gives `N`.
                out[at] = leftover_symbol(input, &out, at).unwrap_or(Dim::Unknown);
            }
            _ => {}
        }
    }
    node.set_tensor(0, elem, Some(out));
    node.pass_data();
    Ok(())
}

fn count_message(input: &[Dim], target: &[Dim]) -> String {
    format!(
        "cannot reshape {} ({} elements) to {}",
        show_shape(input),
        Dim::product(input).map_or("?".into(), |n| n.to_string()),
        show_shape(target)
    )
}

/// The dim that `-1` stands for when the input and the other target dims differ by exactly
/// one symbol and their known parts are equal.
fn leftover_symbol(input: &[Dim], out: &[Dim], at: usize) -> Option<Dim> {
    let mut symbols: Vec<&Dim> = input
        .iter()
        .filter(|d| matches!(d, Dim::Symbol(_)))
        .collect();
    let mut known_in = 1_i64;
    for d in input {
        match d {
            Dim::Known(n) => known_in = known_in.checked_mul(*n)?,
            Dim::Unknown => return None,
            Dim::Symbol(_) => {}
        }
    }
    let mut known_out = 1_i64;
    for (i, d) in out.iter().enumerate() {
        if i == at {
            continue;
        }
        match d {
            Dim::Known(n) => known_out = known_out.checked_mul(*n)?,
            Dim::Symbol(_) => {
                let k = symbols.iter().position(|s| *s == d)?;
                symbols.remove(k);
            }
            Dim::Unknown => return None,
        }
    }
    (symbols.len() == 1 && known_in == known_out).then(|| symbols[0].clone())
}

/// `Flatten`: two dims, split at `axis`.
pub fn flatten(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let Some(dims) = node.shape_of(0) else {
        node.set_tensor(0, elem, Some(vec![Dim::Unknown, Dim::Unknown]));
        return Ok(());
    };
    let axis = node.int("axis", 1);
    let axis = if axis == dims.len() as i64 {
        dims.len()
    } else {
        node.axis(axis, dims.len(), 0)?
    };
    let halves = vec![Dim::times_all(&dims[..axis]), Dim::times_all(&dims[axis..])];
    node.set_tensor(0, elem, Some(halves));
    Ok(())
}

/// `Transpose`: the dims in the order `perm` gives, reversed without it.
pub fn transpose(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let Some(dims) = node.shape_of(0) else {
        let rank = node.int_list("perm").map(|p| vec![Dim::Unknown; p.len()]);
        node.set_tensor(0, elem, rank);
        return Ok(());
    };
    let perm: Vec<i64> = node
        .int_list("perm")
        .unwrap_or_else(|| (0..dims.len() as i64).rev().collect());
    // Each entry an axis, no negative one (as onnx), none twice, one per axis: onnx's
    // inference gives a shorter `perm` a shorter result; the operator's definition permutes
    // every axis.
    if perm.len() != dims.len() {
        let message = format!(
            "perm has {} entries for rank {} ({})",
            perm.len(),
            dims.len(),
            show_shape(&dims)
        );
        return Err(conflict(0, message));
    }
    let mut out = Vec::with_capacity(perm.len());
    let mut seen = vec![false; dims.len()];
    for &p in &perm {
        let Some(axis) = usize::try_from(p).ok().filter(|&a| a < dims.len()) else {
            let message = format!("perm {perm:?} has {p}, no axis of {}", show_shape(&dims));
            return Err(conflict(0, message));
        };
        if std::mem::replace(&mut seen[axis], true) {
            return Err(conflict(0, format!("perm {perm:?} has {p} twice")));
        }
        out.push(dims[axis].clone());
    }
    node.set_tensor(0, elem, Some(out));
    Ok(())
}

/// `Concat`: equal dims except on `axis`, which adds up.
pub fn concat(node: &mut Node) -> Rule {
    // The result's element type is the first operand's.
    node.written([0])?;
    let elem = (0..node.inputs.len()).find_map(|i| node.elem(i));
    let shapes: Option<Vec<&[Dim]>> = (0..node.inputs.len()).map(|i| node.dims(i)).collect();
    let Some(shapes) = shapes.filter(|s| !s.is_empty()) else {
        let rank = (0..node.inputs.len()).find_map(|i| node.dims(i).map(<[Dim]>::len));
        node.set_tensor(0, elem, rank.map(|r| vec![Dim::Unknown; r]));
        return Ok(());
    };
    let rank = shapes[0].len();
    let axis = node.axis(node.int("axis", 0), rank.max(1), 0)?;
    let mut out = shapes[0].to_vec();
    for (i, shape) in shapes.iter().enumerate().skip(1) {
        if shape.len() != rank {
            let message = format!(
                "operands of ranks {} and {} cannot be joined: {} and {}",
                rank,
                shape.len(),
                show_shape(shapes[0]),
                show_shape(shape)
            );
            return Err(conflict(i, message));
        }
        for (k, d) in shape.iter().enumerate() {
            if k == axis {
                out[k] = match (out[k].known(), d.known()) {
                    (Some(a), Some(b)) => a.checked_add(b).map_or(Dim::Unknown, Dim::Known),
                    _ => Dim::Unknown,
                };
            } else if !out[k].compatible(d) {
                let message = format!(
                    "dim {k} differs, off the axis {axis}: {} and {}",
                    show_shape(shapes[0]),
                    show_shape(shape)
                );
                return Err(conflict(i, message));
            } else if out[k].known().is_none() && d.known().is_some() {
                out[k] = d.clone();
            }
        }
    }
    node.set_tensor(0, elem, Some(out));
    let values: Option<Vec<Dim>> = (0..node.inputs.len())
        .map(|i| node.values(i))
        .collect::<Option<Vec<_>>>()
        .map(|parts| parts.concat());
    if let Some(values) = values.filter(|_| rank == 1) {
        node.set_data(0, values);
    }
    Ok(())
}

/// The axes an operator takes: from opset `from` an operand, before it an attribute; empty
/// when none are given, `None` when the operand's value is not known.
pub(super) fn axes(node: &Node, from: i64, input: usize) -> Option<Vec<i64>> {
    if node.opset >= from {
        if node.has_input(input) {
            node.ints(input)
        } else {
            Some(Vec::new())
        }
    } else {
        Some(node.int_list("axes").unwrap_or_default())
    }
}

/// `Squeeze`: drops the given axes (each must be 1), or every dim of size 1.
pub fn squeeze(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let (Some(dims), Some(axes)) = (node.shape_of(0), axes(node, 13, 1)) else {
        node.set_tensor(0, elem, None);
        return Ok(());
    };
    let mut drop = vec![false; dims.len()];
    if axes.is_empty() {
        for (k, d) in dims.iter().enumerate() {
            match d {
                Dim::Known(1) => drop[k] = true,
                Dim::Known(_) => {}
                _ => {
                    node.set_tensor(0, elem, None);
                    return Ok(());
                }
            }
        }
    }
    for &a in &axes {
        let k = node.axis(a, dims.len(), 0)?;
        if let Dim::Known(n) = dims[k]
            && n != 1
        {
            let message = format!("axis {a} of {} is {n}, not 1", show_shape(&dims));
            return Err(conflict(0, message));
        }
        drop[k] = true;
    }
    let out: Vec<Dim> = dims
        .iter()
        .zip(&drop)
        .filter(|(_, d)| !**d)
        .map(|(d, _)| d.clone())
        .collect();
    node.set_tensor(0, elem, Some(out));
    node.pass_data();
    Ok(())
}

/// `Unsqueeze`: inserts dims of size 1 at the given axes of the result.
pub fn unsqueeze(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let (Some(dims), Some(axes)) = (node.shape_of(0), axes(node, 13, 1)) else {
        node.set_tensor(0, elem, None);
        return Ok(());
    };
    let rank = dims.len() + axes.len();
    let mut ones = vec![false; rank];
    for &a in &axes {
        let k = node.axis(a, rank, 1)?;
        if std::mem::replace(&mut ones[k], true) {
            return Err(conflict(1, format!("axis {a} is given twice")));
        }
    }
    let mut rest = dims.iter();
    let out: Vec<Dim> = ones
        .iter()
        .map(|&one| {
            if one {
                Dim::Known(1)
            } else {
                rest.next().cloned().unwrap_or(Dim::Unknown)
            }
        })
        .collect();
    node.set_tensor(0, elem, Some(out));
    node.pass_data();
    Ok(())
}

/// `Expand`: the operand broadcast with the shape its second operand gives.
pub fn expand(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    node.ranked(1, "shape", &[1])?;
    let (Some(dims), Some(target)) = (node.shape_of(0), node.values(1)) else {
        let rank = node.dims(1).and_then(|d| unknown_dims(d.first()?));
        let shape = match (rank, node.dims(0)) {
            (Some(r), Some(d)) => Some(vec![Dim::Unknown; r.len().max(d.len())]),
            _ => None,
        };
        node.set_tensor(0, elem, shape);
        return Ok(());
    };
    let out = broadcast(&[&dims, &target]).map_err(|(_, m)| conflict(1, m))?;
    node.set_tensor(0, elem, Some(out));
    Ok(())
}

/// `Tile`: each dim times its repeat count.
pub fn tile(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let Some(dims) = node.shape_of(0) else {
        node.set_tensor(0, elem, None);
        return Ok(());
    };
    let Some(repeats) = node.values(1) else {
        node.set_tensor(0, elem, Some(vec![Dim::Unknown; dims.len()]));
        return Ok(());
    };
    if repeats.len() != dims.len() {
        let message = format!("{} repeats for rank {}", repeats.len(), dims.len());
        return Err(conflict(1, message));
    }
    let out = dims
        .iter()
        .zip(&repeats)
        .map(|(d, r)| match (d.known(), r.known()) {
            (Some(a), Some(b)) => a.checked_mul(b).map_or(Dim::Unknown, Dim::Known),
            (_, Some(1)) => d.clone(),
            _ => Dim::Unknown,
        })
        .collect();
    node.set_tensor(0, elem, Some(out));
    Ok(())
}

/// `Gather`: the data's dims with `axis` replaced by the indices' dims.
pub fn gather(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let (Some(data), Some(indices)) = (node.shape_of(0), node.shape_of(1)) else {
        node.set_tensor(0, elem, None);
        return Ok(());
    };
    if data.is_empty() {
        return Err(conflict(0, "cannot gather from a scalar"));
    }
    let axis = node.axis(node.int("axis", 0), data.len(), 0)?;
    if let (Some(size), Some(values)) = (data[axis].known(), node.ints(1))
        && let Some(&bad) = values.iter().find(|&&i| i < -size || i >= size)
    {
        let message = format!(
            "index {bad} is out of range for dim {axis} of {}",
            show_shape(&data)
        );
        return Err(conflict(1, message));
    }
    let mut out = data[..axis].to_vec();
    out.extend(indices.iter().cloned());
    out.extend(data[axis + 1..].iter().cloned());
    node.set_tensor(0, elem, Some(out));
    if data.len() == 1
        && let (Some(values), Some(picks)) = (node.values(0), node.ints(1))
    {
        let n = values.len() as i64;
        let picked: Option<Vec<Dim>> = picks
            .iter()
            .map(|&i| values.get(if i < 0 { i + n } else { i } as usize).cloned())
            .collect();
        if let Some(picked) = picked {
            node.set_data(0, picked);
        }
    }
    Ok(())
}

/// `GatherElements`, `GatherND`-like results shaped as their indices.
pub fn gather_elements(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let shape = node.shape_of(1);
    node.set_tensor(0, elem, shape);
    Ok(())
}

/// `GatherND`: the indices' dims but the last, then the data's dims past the batch and the
/// indexed ones.
pub fn gather_nd(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let batch = node.int("batch_dims", 0).max(0) as usize;
    let (Some(data), Some(indices)) = (node.shape_of(0), node.shape_of(1)) else {
        node.set_tensor(0, elem, None);
        return Ok(());
    };
    let Some(last) = indices.last().and_then(Dim::known) else {
        node.set_tensor(0, elem, None);
        return Ok(());
    };
    let from = batch + last.max(0) as usize;
    if from > data.len() {
        return Err(conflict(
            1,
            format!("indices of depth {last} for data {}", show_shape(&data)),
        ));
    }
    let mut out = indices[..indices.len() - 1].to_vec();
    out.extend(data[from..].iter().cloned());
    node.set_tensor(0, elem, Some(out));
    Ok(())
}

/// `Slice`: each sliced axis's new size, where starts, ends and steps are known.
pub fn slice(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let Some(dims) = node.shape_of(0) else {
        node.set_tensor(0, elem, None);
        return Ok(());
    };
    let params = if node.opset < 10 {
        let starts = node.int_list("starts");
        let ends = node.int_list("ends");
        let axes = node.int_list("axes");
        starts.zip(ends).map(|(s, e)| {
            let n = s.len();
            (
                s,
                e,
                axes.unwrap_or_else(|| (0..n as i64).collect()),
                vec![1; n],
            )
        })
    } else {
        let starts = node.ints(1);
        let ends = node.ints(2);
        let axes = if node.has_input(3) {
            node.ints(3)
        } else {
            starts.as_ref().map(|s| (0..s.len() as i64).collect())
        };
        let steps = if node.has_input(4) {
            node.ints(4)
        } else {
            starts.as_ref().map(|s| vec![1; s.len()])
        };
        match (starts, ends, axes, steps) {
            (Some(s), Some(e), Some(a), Some(t)) => Some((s, e, a, t)),
            _ => None,
        }
    };
    let Some((starts, ends, axes, steps)) = params else {
        // Without known bounds, only the rank is known; axes not sliced keep their dims
        // when the axes are known.
        let mut out = vec![Dim::Unknown; dims.len()];
        if node.opset >= 10
            && node.has_input(3)
            && let Some(axes) = node.ints(3)
        {
            out = dims.clone();
            for a in axes {
                let k = node.axis(a, dims.len(), 3)?;
                out[k] = Dim::Unknown;
            }
        }
        node.set_tensor(0, elem, Some(out));
        return Ok(());
    };
    if starts.len() != ends.len() || axes.len() != starts.len() || steps.len() != starts.len() {
        return Err(general("starts, ends, axes and steps differ in length"));
    }
    let mut out = dims.clone();
    for (((&start, &end), &axis), &step) in starts.iter().zip(&ends).zip(&axes).zip(&steps) {
        let k = node.axis(axis, dims.len(), if node.opset < 10 { 0 } else { 3 })?;
        if step == 0 {
            return Err(conflict(4, "a step of 0"));
        }
        out[k] = match dims[k].known() {
            Some(size) => Dim::Known(slice_len(start, end, step, size)),
            None => Dim::Unknown,
        };
    }
    node.set_tensor(0, elem, Some(out));
    if dims.len() == 1
        && steps.len() == 1
        && let Some(values) = node.values(0)
    {
        let n = values.len() as i64;
        let (s, e, t) = (starts[0], ends[0], steps[0]);
        let (s, e) = bounds(s, e, t, n);
        let mut picked = Vec::new();
        let mut i = s;
        while (t > 0 && i < e) || (t < 0 && i > e) {
            picked.push(values[i as usize].clone());
            i += t;
        }
        node.set_data(0, picked);
    }
    Ok(())
}

/// The clamped start and end of a slice of a dim of `size`.
fn bounds(start: i64, end: i64, step: i64, size: i64) -> (i64, i64) {
    let norm = |v: i64| if v < 0 { v.saturating_add(size) } else { v };
    if step > 0 {
        (norm(start).clamp(0, size), norm(end).clamp(0, size))
    } else {
        let last = size.saturating_sub(1);
        (norm(start).clamp(-1, last), norm(end).clamp(-1, last))
    }
}

fn slice_len(start: i64, end: i64, step: i64, size: i64) -> i64 {
    let (s, e) = bounds(start, end, step, size);
    let (s, e, step) = (i128::from(s), i128::from(e), i128::from(step));
    let len = if step > 0 {
        if e > s { (e - s - 1) / step + 1 } else { 0 }
    } else if s > e {
        (s - e - 1) / (-step) + 1
    } else {
        0
    };
    len as i64 // at most `size`
}

/// `ReverseSequence`: the operand's type; the input has rank 2 or more and the sequence
/// lengths are a vector.
pub fn reverse_sequence(node: &mut Node) -> Rule {
    node.same_as_input(0, 0);
    node.rank_at_least(0, "input", 2)?;
    node.ranked(1, "sequence_lens", &[1])?;
    Ok(())
}

/// `Split`: along `axis`, by the given sizes or into equal parts.
pub fn split(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let count = node.outputs.len();
    if node.opset >= 18 {
        // From opset 18 the parts come from exactly one of the sizes and `num_outputs`.
        let num_outputs = node.attr("num_outputs").map(|a| a.i.unwrap_or(0));
        match (node.has_input(1), num_outputs) {
            (true, Some(_)) => {
                return Err(conflict(
                    1,
                    "the split sizes and num_outputs cannot both be given",
                ));
            }
            (false, None) => {
                return Err(conflict(
                    0,
                    "the split sizes (operand 1) or the attribute num_outputs is needed",
                ));
            }
            (_, Some(n)) if n < 1 => {
                return Err(conflict(
                    0,
                    format!("num_outputs must be 1 or more, found {n}"),
                ));
            }
            // The node's results are the parts.
            (_, Some(n)) if usize::try_from(n) != Ok(count) => {
                return Err(conflict(
                    0,
                    format!("num_outputs is {n}, but the node has {count} results"),
                ));
            }
            _ => {}
        }
    }
    let Some(dims) = node.shape_of(0) else {
        for i in 0..count {
            node.set_tensor(i, elem, None);
        }
        return Ok(());
    };
    let axis = node.axis(node.int("axis", 0), dims.len(), 0)?;
    let sizes = if node.opset >= 13 {
        if node.has_input(1) {
            node.ints(1).map(Some)
        } else {
            Some(None)
        }
    } else {
        Some(node.int_list("split").filter(|s| !s.is_empty()))
    };
    let parts: Vec<Dim> = match sizes {
        None => vec![Dim::Unknown; count],
        Some(Some(sizes)) => {
            if let Some(bad) = sizes.iter().find(|&&s| s < 0) {
                return Err(conflict(1, format!("a split size of {bad}")));
            }
            if sizes.len() != count {
                return Err(conflict(
                    1,
                    format!("{} sizes for {count} outputs", sizes.len()),
                ));
            }
            let total = sizes.iter().try_fold(0_i64, |t, &s| t.checked_add(s));
            if let (Some(n), Some(total)) = (dims[axis].known(), total)
                && n != total
            {
                let message = format!(
                    "sizes adding up to {total} split dim {axis} of {}",
                    show_shape(&dims)
                );
                return Err(conflict(1, message));
            }
            sizes.into_iter().map(Dim::Known).collect()
        }
        Some(None) => match dims[axis].known() {
            Some(n) if count > 0 => {
                let parts = count as i64;
                let chunk = if node.opset >= 18 {
                    n / parts + i64::from(n % parts != 0)
                } else {
                    n / parts
                };
                if node.opset < 18 && n % count as i64 != 0 {
                    let message = format!(
                        "dim {axis} of {} does not split into {count} equal parts",
                        show_shape(&dims)
                    );
                    return Err(conflict(0, message));
                }
                (0..parts)
                    .map(|i| {
                        Dim::Known(chunk.min(n.saturating_sub(chunk.saturating_mul(i))).max(0))
                    })
                    .collect()
            }
            _ => vec![Dim::Unknown; count],
        },
    };
    for (i, part) in parts.into_iter().enumerate() {
        let mut out = dims.clone();
        out[axis] = part;
        node.set_tensor(i, elem, Some(out));
    }
    Ok(())
}

/// `Pad`: each dim grows by its two pads, where they are known.
pub fn pad(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let Some(dims) = node.shape_of(0) else {
        node.set_tensor(0, elem, None);
        return Ok(());
    };
    let pads = if node.opset < 11 {
        node.int_list("pads")
    } else {
        node.ints(1)
    };
    let axes: Option<Vec<usize>> = if node.opset >= 18 && node.has_input(3) {
        match node.ints(3) {
            Some(given) => Some(distinct_axes(node, &given, dims.len(), 3)?),
            None => None,
        }
    } else {
        Some((0..dims.len()).collect())
    };
    let (Some(pads), Some(axes)) = (pads, axes) else {
        node.set_tensor(0, elem, Some(vec![Dim::Unknown; dims.len()]));
        return Ok(());
    };
    if pads.len() != 2 * axes.len() {
        return Err(conflict(
            1,
            format!("{} pads for {} axes", pads.len(), axes.len()),
        ));
    }
    let mut out = dims.clone();
    for (j, &k) in axes.iter().enumerate() {
        out[k] = match dims[k].known() {
            Some(n) => n
                .checked_add(pads[j])
                .and_then(|n| n.checked_add(pads[j + axes.len()]))
                .filter(|&n| n >= 0)
                .map_or(Dim::Unknown, Dim::Known),
            None if pads[j] == 0 && pads[j + axes.len()] == 0 => dims[k].clone(),
            None => Dim::Unknown,
        };
    }
    node.set_tensor(0, elem, Some(out));
    Ok(())
}

/// The axes `given` (for operand `input`) made non-negative for rank `rank`; a conflict when
/// one is out of range or two name the same axis.
fn distinct_axes(
    node: &Node,
    given: &[i64],
    rank: usize,
    input: usize,
) -> Result<Vec<usize>, Conflict> {
    let mut axes = Vec::with_capacity(given.len());
    for &a in given {
        let k = node.axis(a, rank, input)?;
        if axes.contains(&k) {
            return Err(conflict(input, format!("axis {a} is in axes twice")));
        }
        axes.push(k);
    }
    Ok(axes)
}

/// `ConstantOfShape`: the shape its operand gives, the element type of `value` (float
/// without it). The shape is a vector and `value` a one-dim tensor.
pub fn constant_of_shape(node: &mut Node) -> Rule {
    let value = node.tensor("value");
    if let Some(value) = value
        && value.dims.len() != 1
    {
        let message = format!(
            "the attribute value must be a one-dim tensor, found dims {:?}",
            value.dims
        );
        return Err(conflict(0, message));
    }
    node.ranked(0, "shape", &[1])?;
    let elem = value.and_then(|t| t.data_type).unwrap_or(dtype::FLOAT);
    let shape = match node.values(0) {
        Some(values) => Some(values),
        None => node.dims(0).and_then(|d| unknown_dims(d.first()?)),
    };
    if let Some(dims) = &shape
        && let Some(Dim::Known(n)) = dims.iter().find(|d| d.known().is_some_and(|n| n < 0))
    {
        return Err(conflict(0, format!("a dim of {n}")));
    }
    node.set_tensor(0, Some(elem), shape.clone());
    if let (Some(dims), Some(fill)) = (shape, value.and_then(tensor_ints))
        && let (Some(count), [fill]) = (Dim::product(&dims), fill.as_slice())
        && dims.len() <= 1
        && count <= crate::node::MAX_DATA as i64
    {
        node.set_data(0, vec![Dim::Known(*fill); count as usize]);
    }
    Ok(())
}

/// `Range`: a vector whose length the constant start, limit and delta give.
pub fn range(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let len = match (node.ints(0), node.ints(1), node.ints(2)) {
        (Some(s), Some(l), Some(d))
            if s.len() == 1 && l.len() == 1 && d.len() == 1 && d[0] != 0 =>
        {
            let span = (l[0] as i128 - s[0] as i128) as f64 / d[0] as f64;
            let n = span.ceil().max(0.0) as i64;
            if n as usize <= crate::node::MAX_DATA {
                let values = (0..n).map(|i| s[0].checked_add(i.checked_mul(d[0])?).map(Dim::Known));
                if let Some(values) = values.collect() {
                    node.set_data(0, values);
                }
            }
            Dim::Known(n)
        }
        _ => Dim::Unknown,
    };
    node.set_tensor(0, elem, Some(vec![len]));
    Ok(())
}

/// `NonZero`: int64 `[rank, ?]`.
pub fn non_zero(node: &mut Node) -> Rule {
    let rank = node
        .dims(0)
        .map_or(Dim::Unknown, |d| Dim::Known(d.len() as i64));
    node.set_tensor(0, Some(dtype::INT64), Some(vec![rank, Dim::Unknown]));
    Ok(())
}

/// `Compress`: one axis of unknown length (the whole tensor flattened without `axis`).
pub fn compress(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let shape = match (node.attr("axis").and_then(|a| a.i), node.shape_of(0)) {
        (None, _) => Some(vec![Dim::Unknown]),
        (Some(axis), Some(mut dims)) => {
            let k = node.axis(axis, dims.len(), 0)?;
            dims[k] = Dim::Unknown;
            Some(dims)
        }
        (Some(_), None) => None,
    };
    node.set_tensor(0, elem, shape);
    Ok(())
}

/// `DepthToSpace` and `SpaceToDepth`: NCHW with channels traded for the block.
pub fn depth_space(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let to_space = node.proto.op_type.as_deref() == Some("DepthToSpace");
    let b = node.int("blocksize", 0);
    if b <= 0 {
        return Err(conflict(
            0,
            format!("blocksize must be positive, found {b}"),
        ));
    }
    node.ranked(0, "input", &[4])?;
    let shape = node.shape_of(0).map(|d| {
        // Depth grows by b² as space shrinks by b in each of two dims, or the other way.
        let square = b.checked_mul(b);
        let by = Dim::Known(b);
        let (depth, space) = match (to_space, square) {
            (_, None) => (Dim::Unknown, [Dim::Unknown, Dim::Unknown]),
            (true, Some(square)) => (d[1].divided(square), [d[2].times(&by), d[3].times(&by)]),
            (false, Some(square)) => (
                d[1].times(&Dim::Known(square)),
                [d[2].divided(b), d[3].divided(b)],
            ),
        };
        let [height, width] = space;
        vec![d[0].clone(), depth, height, width]
    });
    node.set_tensor(0, elem, shape);
    Ok(())
}

/// `OneHot`: the indices' dims with the depth inserted at `axis`. onnx requires indices of
/// rank 1 or more, a scalar or one-element depth and two values (off, on).
pub fn one_hot(node: &mut Node) -> Rule {
    let elem = node.elem(2);
    node.ranked(1, "depth", &[0, 1])?;
    if let Some(values) = node.ranked(2, "values", &[1])?
        && !values[0].compatible(&Dim::Known(2))
    {
        return Err(conflict(
            2,
            format!(
                "operand 2 (values) must hold 2 values (off, on), found {}",
                show_shape(values)
            ),
        ));
    }
    let Some(dims) = node.shape_of(0) else {
        node.set_tensor(0, elem, None);
        return Ok(());
    };
    node.rank_at_least(0, "indices", 1)?;
    let axis = node.axis(node.int("axis", -1), dims.len() + 1, 0)?;
    let mut out = dims;
    out.insert(axis, Dim::Unknown);
    node.set_tensor(0, elem, Some(out));
    Ok(())
}

/// `Resize` and `Upsample`: each dim by its scale or to its size, where known. `Resize`'s
/// sizes (a vector, one per axis or per entry of `axes`) are adjusted by the
/// `keep_aspect_ratio_policy`; its axes are in range and distinct; from opset 13 it takes
/// sizes or scales, not both.
pub fn resize(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let Some(dims) = node.shape_of(0) else {
        node.set_tensor(0, elem, None);
        return Ok(());
    };
    let rank = dims.len();
    let unknown = vec![Dim::Unknown; rank];
    if node.proto.op_type.as_deref() != Some("Resize") {
        node.set_tensor(0, elem, Some(unknown));
        return Ok(());
    }
    // Which way the sizes keep the input's aspect ratio: the smallest or largest scale.
    let keep = match node.string("keep_aspect_ratio_policy") {
        None | Some(b"stretch") => None,
        Some(b"not_larger") => Some(f64::min as fn(f64, f64) -> f64),
        Some(b"not_smaller") => Some(f64::max as fn(f64, f64) -> f64),
        Some(other) => {
            return Err(conflict(
                0,
                format!(
                    "keep_aspect_ratio_policy must be stretch, not_larger or not_smaller, found {}",
                    String::from_utf8_lossy(other)
                ),
            ));
        }
    };
    let mut axes = distinct_axes(node, &node.int_list("axes").unwrap_or_default(), rank, 0)?;
    // An empty `sizes` counts as left out. A `scales` counts as given where its shape says it
    // holds values (onnx also leaves out an empty constant, whose constness is not known here).
    let sizes_given = node.has_input(3) && node.values(3).is_none_or(|v| !v.is_empty());
    let scales_given =
        node.has_input(2) && node.dims(2).and_then(Dim::product).is_some_and(|n| n > 0);
    if node.opset >= 13 {
        if sizes_given && scales_given {
            return Err(conflict(3, "sizes and scales cannot both be given"));
        }
        if !sizes_given && !node.has_input(2) {
            return Err(conflict(0, "one of sizes and scales is needed"));
        }
    }
    if scales_given && keep.is_some() {
        return Err(conflict(
            2,
            "scales cannot go with a keep_aspect_ratio_policy other than stretch",
        ));
    }
    if !node.has_input(3) {
        node.set_tensor(0, elem, Some(unknown));
        return Ok(());
    }
    if node.data(3).is_none() {
        node.ranked(3, "sizes", &[1])?;
    }
    let Some(mut sizes) = node.values(3).filter(|s| !s.is_empty()) else {
        node.set_tensor(0, elem, Some(unknown));
        return Ok(());
    };
    let wanted = if axes.is_empty() { rank } else { axes.len() };
    if sizes.len() != wanted {
        return Err(conflict(
            3,
            format!(
                "operand 3 (sizes) must have {wanted} values (one per resized axis), found {}",
                sizes.len()
            ),
        ));
    }
    if axes.is_empty() {
        axes = (0..rank).collect();
    }
    if let Some(pick) = keep {
        // One scale for every resized axis, from the sizes asked for.
        let scale = axes.iter().zip(&sizes).try_fold(None, |scale, (&k, size)| {
            let ratio = size.known()? as f64 / dims[k].known()? as f64;
            Some(Some(scale.map_or(ratio, |s| pick(s, ratio))))
        });
        for (&k, size) in axes.iter().zip(sizes.iter_mut()) {
            *size = match (scale.flatten(), dims[k].known()) {
                (Some(scale), Some(d)) => Dim::Known((scale * d as f64).round() as i64),
                _ => Dim::Unknown,
            };
        }
    }
    // A size that is not positive stays unknown, as in onnx; axes not resized keep their size.
    let size = |d: Dim| match d {
        Dim::Known(n) if n <= 0 => Dim::Unknown,
        d => d,
    };
    let mut out: Vec<Dim> = dims.into_iter().map(size).collect();
    for (&k, d) in axes.iter().zip(sizes) {
        out[k] = size(d);
    }
    node.set_tensor(0, elem, Some(out));
    Ok(())
}
