//! Scatter, deprecated at 11, is ScatterElements-11 under another name.

use onnx_runtime_types::NodeProto;

use crate::context::Context;
use crate::driver::Adapted;
use crate::error::Reason;

pub(super) fn to_scatter_elements(
    _: &mut Context,
    mut node: NodeProto,
    _: i64,
) -> Result<Adapted, Reason> {
    node.op_type = Some("ScatterElements".to_owned());
    Ok(Adapted::alone(node))
}

/// Written at opset 10, where Scatter-9 is in force.
pub(super) fn to_scatter(_: &mut Context, mut node: NodeProto, _: i64) -> Result<Adapted, Reason> {
    node.op_type = Some("Scatter".to_owned());
    Ok(Adapted::alone(node))
}
