//! Reshape's `shape` (an input from 5) and DFT's `axis` (an input from 20).

use onnx_runtime_types::NodeProto;

use super::{input_to_ints, ints_to_input, set_input, trim_inputs};
use crate::context::{Context, constant, int_attribute, int64_tensor, take_attribute};
use crate::driver::Adapted;
use crate::error::Reason;

pub(super) fn shape_to_input(
    context: &mut Context,
    node: NodeProto,
    _: i64,
) -> Result<Adapted, Reason> {
    Ok(ints_to_input(context, node, "shape", 1))
}

pub(super) fn shape_to_attribute(
    context: &mut Context,
    node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    input_to_ints(context, node, "shape", 1, target).map(Adapted::alone)
}

/// DFT-17's `axis` (default 1) as DFT-20's scalar input `axis` (default -2: written out).
pub(super) fn dft_axis_to_input(
    context: &mut Context,
    mut node: NodeProto,
    _: i64,
) -> Result<Adapted, Reason> {
    let axis = take_attribute(&mut node, "axis")
        .and_then(|a| a.i)
        .unwrap_or(1);
    let input = context.fresh("axis");
    set_input(&mut node, 2, input.clone());
    Ok(Adapted::with_before(
        vec![constant(input, int64_tensor(&[axis], &[]))],
        node,
    ))
}

pub(super) fn dft_axis_to_attribute(
    context: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    // DFT-20 without `axis` means -2, which DFT-17 cannot say without the rank.
    let input = node.input.get(2).filter(|a| !a.is_empty()).cloned();
    let axis = match input.as_deref().map(|a| context.constant_ints(a)) {
        Some(Some(values)) if values.len() == 1 => values[0],
        Some(_) => {
            return Err(Reason::RuntimeInput {
                input: "axis".to_owned(),
                opset: target,
            });
        }
        None => -2,
    };
    let axis = if axis < 0 {
        let rank = node
            .input
            .first()
            .and_then(|x| context.rank(x))
            .ok_or_else(|| Reason::Unknown {
                what: "the rank of the signal".to_owned(),
                needed_by: "DFT before opset 20 (a non-negative `axis`)".to_owned(),
            })?;
        axis + rank as i64
    } else {
        axis
    };
    if node.input.len() > 2 {
        node.input[2] = String::new();
    }
    trim_inputs(&mut node);
    node.attribute.push(int_attribute("axis", axis));
    Ok(Adapted::alone(node))
}
