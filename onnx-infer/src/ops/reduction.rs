//! Reductions and selections along axes: the `Reduce*` operators, `Softmax` and its kin,
//! `ArgMax`/`ArgMin`, `TopK`, `Unique`.

use crate::node::{Node, Rule, conflict, dtype};
use crate::ty::{Dim, show_shape};

/// `ReduceSum`, `ReduceMean`, ...: the reduced axes become 1 (`keepdims` 1) or go (any other
/// value: the definition keeps them only where `keepdims` equals 1).
pub fn reduce(node: &mut Node) -> Rule {
    let op = node.proto.op_type.as_deref().unwrap_or("");
    // The axes became an operand in opset 13 for ReduceSum, in 18 for the others.
    let since = if op == "ReduceSum" { 13 } else { 18 };
    let from_input = node.opset >= since;
    let elem = node.elem(0);
    let keep = node.int("keepdims", 1) == 1;
    let Some(dims) = node.shape_of(0) else {
        node.set_tensor(0, elem, None);
        return Ok(());
    };
    // No axes (`None` here) reduce every axis.
    let axes = match super::shape::axes(node, since, 1) {
        Some(a) => Some(a).filter(|a| !a.is_empty()),
        None => {
            let shape = keep.then(|| vec![Dim::Unknown; dims.len()]);
            node.set_tensor(0, elem, shape);
            return Ok(());
        }
    };
    if axes.is_none() && from_input && node.int("noop_with_empty_axes", 0) != 0 {
        node.set_tensor(0, elem, Some(dims));
        return Ok(());
    }
    let mut reduced = vec![axes.is_none(); dims.len()];
    for &a in axes.iter().flatten() {
        reduced[node.axis(a, dims.len(), 1)?] = true;
    }
    let out = dims
        .iter()
        .zip(&reduced)
        .filter_map(|(d, &r)| match (r, keep) {
            (true, true) => Some(Dim::Known(1)),
            (true, false) => None,
            (false, _) => Some(d.clone()),
        })
        .collect();
    node.set_tensor(0, elem, Some(out));
    Ok(())
}

/// `Softmax`, `LogSoftmax`, `Hardmax`: the operand's type; from opset 11 the operand has a
/// rank and `axis` is one of its axes.
pub fn softmax(node: &mut Node) -> Rule {
    node.same_as_input(0, 0);
    if node.opset < 11 {
        return Ok(());
    }
    let default = if node.opset < 13 { 1 } else { -1 };
    if let Some(dims) = node.dims(0) {
        node.rank_at_least(0, "input", 1)?;
        node.axis(node.int("axis", default), dims.len(), 0)?;
    }
    Ok(())
}

/// `ArgMax`, `ArgMin`: int64, the axis kept as 1 (`keepdims` 1) or dropped (any other
/// value, as onnx reads it).
pub fn arg(node: &mut Node) -> Rule {
    let keep = node.int("keepdims", 1) == 1;
    let Some(dims) = node.shape_of(0) else {
        node.set_tensor(0, Some(dtype::INT64), None);
        return Ok(());
    };
    let axis = node.axis(node.int("axis", 0), dims.len(), 0)?;
    let mut out = dims;
    if keep {
        out[axis] = Dim::Known(1);
    } else {
        out.remove(axis);
    }
    node.set_tensor(0, Some(dtype::INT64), Some(out));
    Ok(())
}

/// `TopK`: values and int64 indices, `k` along `axis`.
pub fn top_k(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let Some(dims) = node.shape_of(0) else {
        node.set_tensor(0, elem, None);
        node.set_tensor(1, Some(dtype::INT64), None);
        return Ok(());
    };
    let axis = node.axis(node.int("axis", -1), dims.len(), 0)?;
    let k = if node.opset < 10 {
        Some(node.int("k", 0))
    } else {
        node.ints(1).and_then(|k| k.first().copied())
    };
    let mut out = dims.clone();
    out[axis] = k.map_or(Dim::Unknown, Dim::Known);
    if let (Some(k), Some(n)) = (k, dims[axis].known())
        && k > n
    {
        return Err(conflict(
            1,
            format!("k = {k} is more than dim {axis} of {}", show_shape(&dims)),
        ));
    }
    node.set_tensor(0, elem, Some(out.clone()));
    node.set_tensor(1, Some(dtype::INT64), Some(out));
    Ok(())
}

/// `Unique`: the values (flattened, or along `axis`) and int64 index vectors, all of unknown
/// length.
pub fn unique(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let values = match (node.attr("axis").and_then(|a| a.i), node.shape_of(0)) {
        (None, _) => Some(vec![Dim::Unknown]),
        (Some(axis), Some(mut dims)) => {
            let k = node.axis(axis, dims.len(), 0)?;
            dims[k] = Dim::Unknown;
            Some(dims)
        }
        _ => None,
    };
    node.set_tensor(0, elem, values);
    let inverse = match (node.attr("axis").and_then(|a| a.i), node.dims(0)) {
        (None, Some(dims)) => Dim::product(dims).map_or(Dim::Unknown, Dim::Known),
        (Some(axis), Some(dims)) => match node.axis(axis, dims.len(), 0) {
            Ok(k) => dims[k].clone(),
            Err(_) => Dim::Unknown,
        },
        _ => Dim::Unknown,
    };
    for i in 1..node.outputs.len() {
        let len = if i == 2 {
            inverse.clone()
        } else {
            Dim::Unknown
        };
        node.set_tensor(i, Some(dtype::INT64), Some(vec![len]));
    }
    Ok(())
}
