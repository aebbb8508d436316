//! Softmax, LogSoftmax and Hardmax: before 13 the input is coerced to 2-D at `axis` (the
//! dimensions before it flattened into rows, the rest into columns) and the operator runs on
//! the columns; from 13 it runs along `axis` alone. Before 11 `axis` is not negative.

use onnx_runtime_types::NodeProto;

use onnx_text::onnx_function;

use crate::context::{Context, attribute, int_attribute, take_attribute};
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
    let axis = axis(&node, 1);
    take_attribute(&mut node, "axis");
    node.attribute.push(int_attribute("axis", -1));
    let last = context
        .rank(&x)
        .is_some_and(|r| axis == -1 || axis + 1 == r as i64);
    if last {
        return Ok(Adapted::alone(node));
    }
    let rule = onnx_function! {
        <domain: "adapted", opset_import: ["" : 13, "adapted" : 1]>
        Coerced (X) => (Y) {
            shape = Shape (X)
            flat = Flatten <axis = #axis> (X)
            columns = adapted.Node (flat)
            Y = Reshape (columns, shape)
        }
    };
    Ok(super::rewrite(context, node, &rule))
}

/// 13 → 11: along the last axis, the coercion is the identity; along another, Transpose the
/// axis last and back (which needs the rank).
pub(super) fn axis_to_coerced(
    context: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let x = node.input.first().cloned().unwrap_or_default();
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
    let rule = onnx_function! {
        <domain: "adapted", opset_import: ["" : 11, "adapted" : 1]>
        AxisLast (X) => (Y) {
            moved = Transpose <perm = #perm> (X)
            result = adapted.Node (moved)
            Y = Transpose <perm = #perm> (result)
        }
    };
    let adapted = super::rewrite(context, node, &rule);
    // Its rank, for the step before 11 (a non-negative axis).
    if let Some(moved) = adapted.node.input.first() {
        context.types.entry(moved.clone()).or_default().rank = Some(rank as usize);
    }
    Ok(adapted)
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
