//! Softmax, LogSoftmax and Hardmax: before 13 the input is coerced to 2-D at `axis` (the
//! dimensions before it flattened into rows, the rest into columns) and the operator runs on
//! the columns; from 13 it runs along `axis` alone. Before 11 `axis` is not negative.

use onnx_runtime_types::NodeProto;

use crate::context::{Context, attribute, int_attribute, ints_attribute, node, take_attribute};
use crate::driver::Adapted;
use crate::error::Reason;

pub(super) const FAMILY: &[&str] = &["Softmax", "LogSoftmax", "Hardmax"];

/// The node's `axis`, or the default of its version.
fn axis(node: &NodeProto, default: i64) -> i64 {
    attribute(node, "axis").and_then(|a| a.i).unwrap_or(default)
}

fn rank_unknown(node: &NodeProto, needed_by: &str) -> Reason {
    Reason::Unknown {
        what: format!(
            "the rank of `{}`",
            node.input.first().map_or("", String::as_str)
        ),
        needed_by: format!(
            "{} {needed_by}",
            node.op_type.as_deref().unwrap_or_default()
        ),
    }
}

/// 11 → 13: the coercion written out, Flatten at `axis`, the operator along the columns, and
/// Reshape back; the node alone when `axis` is known to be the last.
pub(super) fn coerced_to_axis(
    context: &mut Context,
    mut node: NodeProto,
    _: i64,
) -> Result<Adapted, Reason> {
    let x = node.input.first().cloned().unwrap_or_default();
    let y = node.output.first().cloned().unwrap_or_default();
    let axis = axis(&node, 1);
    take_attribute(&mut node, "axis");
    node.attribute.push(int_attribute("axis", -1));
    let last = context
        .rank(&x)
        .is_some_and(|r| axis == -1 || axis + 1 == r as i64);
    if last {
        return Ok(Adapted::alone(node));
    }
    let (shape, flat, columns) = (
        context.fresh("shape"),
        context.fresh("flat"),
        context.fresh(&y),
    );
    let before = vec![
        node_of("Shape", &x, &shape, vec![]),
        node_of("Flatten", &x, &flat, vec![int_attribute("axis", axis)]),
    ];
    node.input[0] = flat;
    node.output[0] = columns.clone();
    let after = vec![crate::context::node(
        "Reshape",
        vec![columns, shape],
        vec![y],
        vec![],
    )];
    Ok(Adapted {
        before,
        node,
        after,
    })
}

/// 13 → 11: along the last axis, the coercion is the identity; along another, Transpose the
/// axis last and back (which needs the rank).
pub(super) fn axis_to_coerced(
    context: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let x = node.input.first().cloned().unwrap_or_default();
    let y = node.output.first().cloned().unwrap_or_default();
    let axis = axis(&node, -1);
    take_attribute(&mut node, "axis");
    node.attribute.push(int_attribute("axis", -1));
    if axis == -1 {
        return Ok(Adapted::alone(node));
    }
    let rank = context
        .rank(&x)
        .ok_or_else(|| rank_unknown(&node, "before opset 13 (its 2-D coercion)"))?
        as i64;
    let axis = if axis < 0 { axis + rank } else { axis };
    if !(0..rank).contains(&axis) {
        return Err(out_of_range(axis, rank, target));
    }
    if axis == rank - 1 {
        return Ok(Adapted::alone(node));
    }
    // The permutation that swaps `axis` and the last is its own inverse.
    let mut perm: Vec<i64> = (0..rank).collect();
    perm.swap(axis as usize, (rank - 1) as usize);
    let (moved, result) = (context.fresh(&x), context.fresh(&y));
    // Its rank, for the step before 11 (a non-negative axis).
    context.types.entry(moved.clone()).or_default().rank = Some(rank as usize);
    let before = vec![node_of(
        "Transpose",
        &x,
        &moved,
        vec![ints_attribute("perm", perm.clone())],
    )];
    node.input[0] = moved;
    node.output[0] = result.clone();
    let after = vec![node_of(
        "Transpose",
        &result,
        &y,
        vec![ints_attribute("perm", perm)],
    )];
    Ok(Adapted {
        before,
        node,
        after,
    })
}

/// 11 → 1: a negative `axis` counted from the front.
pub(super) fn axis_nonnegative(
    context: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let axis = axis(&node, 1);
    if axis >= 0 {
        return Ok(Adapted::alone(node));
    }
    let x = node.input.first().cloned().unwrap_or_default();
    let rank = context
        .rank(&x)
        .ok_or_else(|| rank_unknown(&node, "before opset 11 (a negative axis)"))?;
    if axis + (rank as i64) < 0 {
        return Err(out_of_range(axis, rank as i64, target));
    }
    take_attribute(&mut node, "axis");
    node.attribute
        .push(int_attribute("axis", axis + rank as i64));
    Ok(Adapted::alone(node))
}

/// An `axis` outside the input's rank: an ill-formed node, which no rewrite can keep.
fn out_of_range(axis: i64, rank: i64, target: i64) -> Reason {
    super::inexact(format!("`axis` {axis} is outside a rank of {rank}"), target)
}

fn node_of(
    op: &str,
    input: &str,
    output: &str,
    attributes: Vec<onnx_runtime_types::AttributeProto>,
) -> NodeProto {
    node(
        op,
        vec![input.to_owned()],
        vec![output.to_owned()],
        attributes,
    )
}
