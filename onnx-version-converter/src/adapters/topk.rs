//! TopK's `k`: an attribute before 10, a one-element input from 10.

use onnx_runtime_types::NodeProto;

use super::{set_input, trim_inputs};
use crate::context::{Context, constant, int_attribute, int64_tensor, take_attribute};
use crate::driver::Adapted;
use crate::error::Reason;

pub(super) fn k_to_input(
    context: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let k = take_attribute(&mut node, "k")
        .and_then(|a| a.i)
        .ok_or(Reason::Attribute {
            name: "k".to_owned(),
            opset: target,
        })?;
    let value = context.fresh("k");
    set_input(&mut node, 1, value.clone());
    Ok(Adapted::with_before(
        vec![constant(value, int64_tensor(&[k], &[1]))],
        node,
    ))
}

pub(super) fn k_to_attribute(
    context: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let input = node.input.get(1).cloned().unwrap_or_default();
    let k = match context.constant_ints(&input).as_deref() {
        Some(&[k]) => k,
        _ => {
            return Err(Reason::RuntimeInput {
                input: "K".to_owned(),
                opset: target,
            });
        }
    };
    node.input[1] = String::new();
    trim_inputs(&mut node);
    node.attribute.push(int_attribute("k", k));
    Ok(Adapted::alone(node))
}
