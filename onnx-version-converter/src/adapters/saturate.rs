//! Cast's and CastLike's `saturate` (19): it only applies to the float8 types, which older
//! versions do not have (the type check refuses those), so it goes on the way down.

use onnx_runtime_types::NodeProto;

use crate::context::{Context, take_attribute};
use crate::driver::Adapted;
use crate::error::Reason;

pub(super) fn drop_saturate(
    _: &mut Context,
    mut node: NodeProto,
    _: i64,
) -> Result<Adapted, Reason> {
    take_attribute(&mut node, "saturate");
    Ok(Adapted::alone(node))
}
