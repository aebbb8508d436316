//! Pad's `pads` and `value`: attributes before 11, inputs from 11 (`value` as
//! `constant_value`, of the data's type).

use onnx_runtime_types::{NodeProto, TensorProto};

use super::{input_to_ints, ints_to_input, set_input, trim_inputs};
use crate::context::{Context, constant, float_attribute, take_attribute, tensor_floats};
use crate::driver::Adapted;
use crate::error::Reason;

pub(super) fn pads_to_inputs(
    context: &mut Context,
    node: NodeProto,
    _: i64,
) -> Result<Adapted, Reason> {
    let data = node.input.first().cloned().unwrap_or_default();
    let mut adapted = ints_to_input(context, node, "pads", 1);
    let value = take_attribute(&mut adapted.node, "value")
        .and_then(|a| a.f)
        .unwrap_or(0.0);
    if value != 0.0 {
        let tensor = scalar_like(context.elem(&data), value).ok_or_else(|| Reason::Unknown {
            what: format!("a float or double type for `{data}`"),
            needed_by: "Pad-11's `constant_value` input".to_owned(),
        })?;
        let input = context.fresh("constant_value");
        adapted.before.push(constant(input.clone(), tensor));
        set_input(&mut adapted.node, 2, input);
    }
    Ok(adapted)
}

pub(super) fn pads_to_attributes(
    context: &mut Context,
    node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let mut node = input_to_ints(context, node, "pads", 1, target)?;
    if let Some(input) = node.input.get(2).filter(|i| !i.is_empty()).cloned() {
        let tensor = context
            .constants
            .get(&input)
            .ok_or_else(|| Reason::RuntimeInput {
                input: "constant_value".to_owned(),
                opset: target,
            })?;
        let value = scalar_value(tensor).ok_or_else(|| Reason::Unknown {
            what: "a float value of `constant_value` that an f32 holds".to_owned(),
            needed_by: "Pad before opset 11".to_owned(),
        })?;
        node.input[2] = String::new();
        node.attribute.push(float_attribute("value", value));
    }
    trim_inputs(&mut node);
    Ok(Adapted::alone(node))
}

/// A scalar of element type `elem` (float or double) holding `value`.
pub(super) fn scalar_like(elem: Option<i32>, value: f32) -> Option<TensorProto> {
    match elem? {
        1 => Some(crate::context::float_tensor(&[value], &[])),
        11 => Some(TensorProto {
            data_type: Some(11),
            double_data: vec![f64::from(value)],
            ..Default::default()
        }),
        _ => None,
    }
}

/// The value of a one-element float or double tensor, if an f32 holds it exactly.
pub(super) fn scalar_value(tensor: &TensorProto) -> Option<f32> {
    if let Some(&[value]) = tensor_floats(tensor).as_deref() {
        return Some(value);
    }
    let double = match (tensor.data_type, &tensor.raw_data) {
        (Some(11), Some(raw)) if raw.len() == 8 => f64::from_le_bytes(raw[..].try_into().ok()?),
        (Some(11), None) if tensor.double_data.len() == 1 => tensor.double_data[0],
        _ => return None,
    };
    (f64::from(double as f32) == double).then_some(double as f32)
}
