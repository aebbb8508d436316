//! Slice's `starts`, `ends` and `axes`: attributes before 10, inputs from 10 (with `steps`).

use onnx_runtime_types::NodeProto;

use super::{input_to_ints, ints_to_input, trim_inputs};
use crate::context::Context;
use crate::driver::Adapted;
use crate::error::Reason;

const BOUNDS: [(&str, usize); 3] = [("starts", 1), ("ends", 2), ("axes", 3)];

pub(super) fn bounds_to_inputs(
    context: &mut Context,
    node: NodeProto,
    _: i64,
) -> Result<Adapted, Reason> {
    let mut before = Vec::new();
    let mut node = node;
    for (name, index) in BOUNDS {
        let adapted = ints_to_input(context, node, name, index);
        before.extend(adapted.before);
        node = adapted.node;
    }
    Ok(Adapted::with_before(before, node))
}

pub(super) fn bounds_to_attributes(
    context: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    if let Some(steps) = node.input.get(4).filter(|s| !s.is_empty()) {
        match context.constant_ints(steps) {
            Some(values) if values.iter().all(|&s| s == 1) => node.input[4] = String::new(),
            Some(_) => {
                return Err(Reason::Input {
                    input: "steps".to_owned(),
                    opset: target,
                });
            }
            None => {
                return Err(Reason::RuntimeInput {
                    input: "steps".to_owned(),
                    opset: target,
                });
            }
        }
    }
    for (name, index) in BOUNDS {
        node = input_to_ints(context, node, name, index, target)?;
    }
    trim_inputs(&mut node);
    Ok(Adapted::alone(node))
}
