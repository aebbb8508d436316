//! Dropout's and BatchNormalization's `is_test` (until 7): from 7 a node in inference is one
//! whose outputs say so (BatchNormalization's Y alone; Dropout always, until 12 asks for
//! training at run time). `is_test = 0`, the older default, is training.

use onnx_runtime_types::NodeProto;

use crate::context::{Context, int_attribute, take_attribute};
use crate::driver::Adapted;
use crate::error::Reason;

pub(super) const FAMILY: &[&str] = &["BatchNormalization", "Dropout"];

/// Whether the node runs in inference from 7 on.
fn infers_from_7(node: &NodeProto) -> bool {
    node.op_type() == "Dropout" || node.output.iter().filter(|o| !o.is_empty()).count() == 1
}

/// 6 → 7: `is_test = 1` goes where the node infers at 7; training (or test mode with the
/// running statistics asked for) has no form there that computes the same.
pub(super) fn test_mode_off(
    _: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let test = take_attribute(&mut node, "is_test")
        .and_then(|a| a.i)
        .unwrap_or(0)
        != 0;
    if test && infers_from_7(&node) {
        return Ok(Adapted::alone(node));
    }
    if !test && node.op_type() == "BatchNormalization" && !infers_from_7(&node) {
        // Training with the statistics as outputs, which 7 does alike.
        return Ok(Adapted::alone(node));
    }
    Err(super::inexact(
        format!(
            "{} with `is_test = {}` and {} outputs",
            node.op_type(),
            i64::from(test),
            node.output.len()
        ),
        target,
    ))
}

/// 7 → 6: a node that infers at 7 says `is_test = 1`.
pub(super) fn test_mode_on(
    _: &mut Context,
    mut node: NodeProto,
    _: i64,
) -> Result<Adapted, Reason> {
    if infers_from_7(&node) {
        take_attribute(&mut node, "is_test");
        node.attribute.push(int_attribute("is_test", 1));
    }
    Ok(Adapted::alone(node))
}
