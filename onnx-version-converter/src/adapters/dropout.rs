//! Dropout's `ratio`: an attribute before 12, an input from 12 (with `training_mode`). Outside
//! training Dropout is the identity whatever the ratio, so the ratio goes either way; training
//! mode, which only 12 can ask for at run time, must be absent or a constant false.

use onnx_runtime_types::NodeProto;

use super::trim_inputs;
use crate::context::{Context, take_attribute};
use crate::driver::Adapted;
use crate::error::Reason;

pub(super) fn ratio_to_input(
    _: &mut Context,
    mut node: NodeProto,
    _: i64,
) -> Result<Adapted, Reason> {
    take_attribute(&mut node, "ratio");
    Ok(Adapted::alone(node))
}

pub(super) fn ratio_to_attribute(
    context: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    if let Some(training) = node.input.get(2).filter(|t| !t.is_empty()) {
        let off = context.constants.get(training).is_some_and(|t| {
            t.int32_data == [0] || t.raw_data.as_deref() == Some(&[0]) && t.data_type == Some(9)
        });
        if !off {
            return Err(Reason::Input {
                input: "training_mode".to_owned(),
                opset: target,
            });
        }
    }
    node.input.truncate(1);
    trim_inputs(&mut node);
    Ok(Adapted::alone(node))
}
