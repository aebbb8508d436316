//! Broadcasting: numpy-style from Add-7 (and the other binary operators) and from Max-8, Min-8,
//! Sum-8 and Mean-8; before, operands of one shape (or Add-6's `broadcast` attribute, which this
//! does not write). Going down, the operands' shapes must be known to be one.

use onnx_runtime_types::NodeProto;

use crate::context::Context;
use crate::driver::Adapted;
use crate::error::Reason;

pub(super) const BINARY_7: &[&str] = &["Add", "Sub", "Mul", "Div"];
pub(super) const LOGICAL_7: &[&str] = &["Pow", "And", "Or", "Xor", "Equal", "Greater", "Less"];
pub(super) const VARIADIC_8: &[&str] = &["Max", "Min", "Sum", "Mean"];

pub(super) fn one_shape(
    context: &mut Context,
    node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let shapes: Vec<Option<&Vec<Option<i64>>>> = node
        .input
        .iter()
        .filter(|i| !i.is_empty())
        .map(|i| context.dims.get(i))
        .collect();
    let first = shapes.first().copied().flatten();
    let known = |s: &Option<&Vec<Option<i64>>>| s.is_some_and(|d| d.iter().all(Option::is_some));
    if shapes.iter().all(known) && shapes.iter().all(|s| *s == first) {
        return Ok(Adapted::alone(node));
    }
    Err(Reason::Unknown {
        what: "that the operands have one shape".to_owned(),
        needed_by: format!(
            "{} without broadcasting (opset {target})",
            node.op_type.as_deref().unwrap_or_default()
        ),
    })
}
