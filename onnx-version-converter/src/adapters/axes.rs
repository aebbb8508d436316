//! `axes` of ReduceSum, Squeeze and Unsqueeze (an input from 13) and of the other Reduce
//! operators (from 18); `split` of Split (from 13).

use onnx_runtime_types::NodeProto;

use super::{input_to_ints, ints_to_input};
use crate::context::Context;
use crate::driver::Adapted;
use crate::error::Reason;

pub(super) fn axes_to_input(
    context: &mut Context,
    node: NodeProto,
    _: i64,
) -> Result<Adapted, Reason> {
    Ok(ints_to_input(context, node, "axes", 1))
}

pub(super) fn axes_to_attribute(
    context: &mut Context,
    node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    input_to_ints(context, node, "axes", 1, target).map(Adapted::alone)
}

pub(super) fn split_to_input(
    context: &mut Context,
    node: NodeProto,
    _: i64,
) -> Result<Adapted, Reason> {
    Ok(ints_to_input(context, node, "split", 1))
}

pub(super) fn split_to_attribute(
    context: &mut Context,
    node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    input_to_ints(context, node, "split", 1, target).map(Adapted::alone)
}
