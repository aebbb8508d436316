//! Broadcasting: numpy-style from Add-7 (and the other binary operators) and from Max-8, Min-8,
//! Sum-8 and Mean-8. Before, the binary operators broadcast only with `broadcast = 1`, and then
//! only B onto A: B's shape is a run of A's dimensions starting at `axis` (by default the last
//! ones), or B holds one element. Gemm's C broadcast the same way under its own `broadcast`
//! until 7, and PRelu's slope per channel. The variadic operators took operands of one shape.

use onnx_runtime_types::NodeProto;

use onnx_text::onnx_function;

use crate::context::{Context, attribute, int_attribute, take_attribute};
use crate::driver::Adapted;
use crate::error::Reason;

pub(super) const BINARY_7: &[&str] = &["Add", "Sub", "Mul", "Div"];
pub(super) const LOGICAL_7: &[&str] = &["Pow", "And", "Or", "Xor", "Equal", "Greater", "Less"];
pub(super) const VARIADIC_8: &[&str] = &["Max", "Min", "Sum", "Mean"];

/// The dims of `value`, every one known.
fn known_dims(context: &Context, value: &str) -> Option<Vec<i64>> {
    context.dims.get(value)?.iter().copied().collect()
}

fn unknown(node: &NodeProto, what: &str, needed_by: String) -> Reason {
    Reason::Unknown {
        what: what.to_owned(),
        needed_by: format!("{} {needed_by}", node.op_type()),
    }
}

/// Going down to a version without broadcasting: the operands must be known to have one shape.
pub(super) fn one_shape(
    context: &mut Context,
    node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let mut shapes = node
        .input
        .iter()
        .filter(|i| !i.is_empty())
        .map(|i| known_dims(context, i));
    let first = shapes.next().flatten();
    if first.is_some() && shapes.all(|s| s == first) {
        return Ok(Adapted::alone(node));
    }
    Err(unknown(
        &node,
        "that the operands have one shape",
        format!("without broadcasting (opset {target})"),
    ))
}

/// 7 → 6 (1 for the logical ones): operands of one shape need nothing. Where numpy stretches
/// B alone, B without its outer dimensions of 1 is a run of A's dimensions: those 1s are
/// squeezed, and `broadcast = 1` with `axis` places the run. Anything else numpy broadcasts
/// (A onto B, or a 1 inside B's run) has no older form.
pub(super) fn numpy_to_legacy(
    context: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let (a, b) = operands(&node);
    let (Some(a_dims), Some(b_dims)) = (known_dims(context, &a), known_dims(context, &b)) else {
        return Err(unknown(
            &node,
            "the shapes of both operands",
            format!("with the broadcasting of opset {target}"),
        ));
    };
    if a_dims == b_dims {
        return Ok(Adapted::alone(node));
    }
    let Some(run) = legacy_run(&a_dims, &b_dims) else {
        return Err(super::inexact(
            format!(
                "numpy broadcasting of shapes {a_dims:?} and {b_dims:?} (before opset 7 only B \
                 broadcasts, as a run of A's dimensions)"
            ),
            target,
        ));
    };
    node.attribute.push(int_attribute("broadcast", 1));
    if run.axis + (run.end - run.start) as i64 != a_dims.len() as i64 {
        node.attribute.push(int_attribute("axis", run.axis));
    }
    let squeezed: Vec<i64> = (0..run.start)
        .chain(run.end..b_dims.len())
        .map(|i| i as i64)
        .collect();
    if squeezed.is_empty() {
        return Ok(Adapted::alone(node));
    }
    Ok(squeeze_b(context, node, &squeezed))
}

/// The node reading its second operand with the dimensions `axes` (all 1) squeezed out,
/// written at 6 (1 for the logical operators: Squeeze-1 is in force at both).
fn squeeze_b(context: &mut Context, node: NodeProto, axes: &[i64]) -> Adapted {
    let rule = onnx_function! {
        <domain: "adapted", opset_import: ["" : 6, "adapted" : 1]>
        SqueezeB (A, B) => (C) {
            squeezed = Squeeze <axes = #axes> (B)
            C = adapted.Node (A, squeezed)
        }
    };
    super::rewrite(context, node, &rule)
}

/// The node reading its second operand with dimensions of 1 inserted at `axes`, written at 7.
fn unsqueeze_b(context: &mut Context, node: NodeProto, axes: &[i64]) -> Adapted {
    let rule = onnx_function! {
        <domain: "adapted", opset_import: ["" : 7, "adapted" : 1]>
        UnsqueezeB (A, B) => (C) {
            unsqueezed = Unsqueeze <axes = #axes> (B)
            C = adapted.Node (A, unsqueezed)
        }
    };
    super::rewrite(context, node, &rule)
}

/// Where B's dimensions other than its outer 1s (`start..end`) lie in A, from `axis`.
struct Run {
    start: usize,
    end: usize,
    axis: i64,
}

/// B's run by the older rule, if numpy's broadcast of `b` onto `a` is one: B's outer 1s
/// squeezed, the rest equal to A's dimensions where numpy aligns them. A B of one element
/// needs no squeeze.
fn legacy_run(a: &[i64], b: &[i64]) -> Option<Run> {
    if b.len() > a.len() {
        return None;
    }
    if b.iter().all(|&d| d == 1) {
        return Some(Run {
            start: 0,
            end: b.len(),
            axis: (a.len() - b.len()) as i64,
        });
    }
    let start = b.iter().position(|&d| d != 1)?;
    let end = b.iter().rposition(|&d| d != 1)? + 1;
    let offset = a.len() - b.len();
    (a[offset + start..offset + end] == b[start..end]).then_some(Run {
        start,
        end,
        axis: (offset + start) as i64,
    })
}

/// 6 (1) → 7: `broadcast = 1` aligns B's dimensions with A's from `axis`; numpy aligns them at
/// the end, so B gets trailing dimensions of 1 (an Unsqueeze) when `axis` is not the default.
pub(super) fn legacy_to_numpy(
    context: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let broadcast = take_attribute(&mut node, "broadcast").and_then(|a| a.i);
    let axis = take_attribute(&mut node, "axis").and_then(|a| a.i);
    if broadcast.unwrap_or(0) == 0 {
        // Operands of one shape, which numpy leaves as they are.
        return Ok(Adapted::alone(node));
    }
    let (a, b) = operands(&node);
    let (Some(rank_a), Some(rank_b)) = (context.rank(&a), context.rank(&b)) else {
        return Err(unknown(
            &node,
            "the ranks of both operands",
            "with `broadcast = 1` (to align B as numpy does)".to_owned(),
        ));
    };
    let (rank_a, rank_b) = (rank_a as i64, rank_b as i64);
    if rank_b > rank_a {
        // One element of more dimensions than A: the older result has A's rank, numpy's B's.
        return Err(super::inexact(
            format!("B of rank {rank_b} broadcast onto A of rank {rank_a}"),
            target,
        ));
    }
    let axis = axis.map_or(
        rank_a - rank_b,
        |axis| {
            if axis < 0 { axis + rank_a } else { axis }
        },
    );
    let trailing = rank_a - axis - rank_b;
    if axis < 0 || trailing < 0 {
        return Err(Reason::AttributeValue {
            name: "axis".to_owned(),
            value: axis.to_string(),
            opset: target,
        });
    }
    if trailing == 0 {
        return Ok(Adapted::alone(node));
    }
    let trailing_axes: Vec<i64> = (rank_b..rank_b + trailing).collect();
    Ok(unsqueeze_b(context, node, &trailing_axes))
}

/// Gemm 6 → 7: C broadcasts whenever it can, so `broadcast` goes.
pub(super) fn gemm_broadcast_off(
    _: &mut Context,
    mut node: NodeProto,
    _: i64,
) -> Result<Adapted, Reason> {
    take_attribute(&mut node, "broadcast");
    Ok(Adapted::alone(node))
}

/// Gemm 7 → 6: a C of the output's shape needs nothing; one that broadcasts onto it by the older
/// rule gets `broadcast = 1`.
pub(super) fn gemm_broadcast_on(
    context: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let Some(c) = node.input.get(2).filter(|c| !c.is_empty()) else {
        return Ok(Adapted::alone(node));
    };
    let output = node.output.first().cloned().unwrap_or_default();
    let (Some(c), Some(y)) = (known_dims(context, c), known_dims(context, &output)) else {
        return Err(unknown(
            &node,
            "the shapes of C and of the output",
            format!("at opset {target}, where C broadcasts only by the older rule"),
        ));
    };
    if c == y {
        return Ok(Adapted::alone(node));
    }
    // Gemm-6 has no `axis`: C must be Y's last dimensions, as they are, or one element.
    let suffix = legacy_run(&y, &c).is_some_and(|run| {
        run.start == 0 && run.end == c.len() && run.axis == (y.len() - c.len()) as i64
    });
    if !suffix {
        return Err(super::inexact(
            format!("C of shape {c:?} broadcast onto {y:?}"),
            target,
        ));
    }
    if attribute(&node, "broadcast").is_none() {
        node.attribute.push(int_attribute("broadcast", 1));
    }
    Ok(Adapted::alone(node))
}

fn operands(node: &NodeProto) -> (String, String) {
    let input = |i: usize| node.input.get(i).cloned().unwrap_or_default();
    (input(0), input(1))
}

/// PRelu 6 → 7: before 7 a slope of one value per channel (`[C]`) applies along X's axis 1;
/// from 7 it broadcasts numpy's way, so it gets the trailing 1s that put C at axis 1. A slope
/// of X's shape, or of one element, means the same in both.
pub(super) fn slope_per_channel_to_numpy(
    context: &mut Context,
    node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let (x, slope) = operands(&node);
    let (Some(x_dims), Some(slope_dims)) = (context.dims.get(&x), known_dims(context, &slope))
    else {
        return Err(unknown(
            &node,
            "the shapes of X and of the slope",
            format!("(the slope broadcasts otherwise from opset {target})"),
        ));
    };
    let rank = x_dims.len();
    let one_element = slope_dims.iter().all(|&d| d == 1) && slope_dims.len() <= rank;
    let whole = x_dims
        .iter()
        .copied()
        .eq(slope_dims.iter().map(|&d| Some(d)));
    if one_element || whole {
        return Ok(Adapted::alone(node));
    }
    let per_channel = slope_dims.len() == 1 && rank >= 2 && x_dims[1] == Some(slope_dims[0]);
    if !per_channel {
        return Err(super::inexact(
            format!("a slope of shape {slope_dims:?} for X of shape {x_dims:?}"),
            target,
        ));
    }
    if rank == 2 {
        return Ok(Adapted::alone(node));
    }
    let trailing_axes: Vec<i64> = (1..rank as i64 - 1).collect();
    Ok(unsqueeze_b(context, node, &trailing_axes))
}

/// PRelu 7 → 6: a slope numpy stretches along every axis of X but 1 becomes the older
/// per-channel `[C]` (a Squeeze of its other axes); one of X's shape or of one element stays.
pub(super) fn numpy_slope_to_per_channel(
    context: &mut Context,
    node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let (x, slope) = operands(&node);
    let (Some(x_dims), Some(slope_dims)) = (known_dims(context, &x), known_dims(context, &slope))
    else {
        return Err(unknown(
            &node,
            "the shapes of X and of the slope",
            format!("(the slope broadcasts only per channel at opset {target})"),
        ));
    };
    if slope_dims == x_dims || slope_dims.iter().all(|&d| d == 1) {
        return Ok(Adapted::alone(node));
    }
    // Where X's axis 1 falls in the slope, aligned at the end.
    let channel = (1 + slope_dims.len()).checked_sub(x_dims.len());
    let per_channel = x_dims.len() >= 2
        && channel.is_some_and(|c| {
            slope_dims[c] == x_dims[1]
                && slope_dims
                    .iter()
                    .enumerate()
                    .all(|(i, &d)| i == c || d == 1)
        });
    let Some(channel) = channel.filter(|_| per_channel) else {
        return Err(super::inexact(
            format!("a slope of shape {slope_dims:?} for X of shape {x_dims:?}"),
            target,
        ));
    };
    let squeezed: Vec<i64> = (0..slope_dims.len() as i64)
        .filter(|&i| i != channel as i64)
        .collect();
    if squeezed.is_empty() {
        return Ok(Adapted::alone(node));
    }
    Ok(squeeze_b(context, node, &squeezed))
}
