//! AveragePool's `dilations` (19): dilations of 1 are what older versions do. And `ceil_mode`
//! before MaxPool-22 and AveragePool-22: those drop a last window that starts in the padding,
//! which older versions keep, so `ceil_mode = 1` stays at 22.

use onnx_runtime_types::NodeProto;

use crate::context::{Context, attribute, take_attribute};
use crate::driver::Adapted;
use crate::error::Reason;

pub(super) fn drop_unit_dilations(
    _: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    if attribute(&node, "dilations").is_some_and(|a| a.ints.iter().any(|&d| d != 1)) {
        return Err(Reason::Attribute {
            name: "dilations".to_owned(),
            opset: target,
        });
    }
    take_attribute(&mut node, "dilations");
    Ok(Adapted::alone(node))
}

pub(super) fn floor_mode_only(
    _: &mut Context,
    node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    if attribute(&node, "ceil_mode").and_then(|a| a.i).unwrap_or(0) != 0 {
        return Err(Reason::Attribute {
            name: "ceil_mode".to_owned(),
            opset: target,
        });
    }
    Ok(Adapted::alone(node))
}
