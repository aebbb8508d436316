//! Clip's bounds: attributes `min` and `max` before 11, optional inputs of the data's type
//! from 11.

use onnx_runtime_types::NodeProto;

use super::{set_input, trim_inputs};
use crate::context::{Context, constant, float_attribute, take_attribute};
use crate::driver::Adapted;
use crate::error::Reason;

const BOUNDS: [(&str, usize); 2] = [("min", 1), ("max", 2)];

pub(super) fn bounds_to_inputs(
    context: &mut Context,
    mut node: NodeProto,
    _: i64,
) -> Result<Adapted, Reason> {
    let data = node.input.first().cloned().unwrap_or_default();
    let mut before = Vec::new();
    for (name, index) in BOUNDS {
        let Some(bound) = take_attribute(&mut node, name) else {
            continue;
        };
        let value = bound.f.unwrap_or(0.0);
        // The bound takes the data's type: float and double hold an f32 exactly.
        let tensor = match context.elem(&data) {
            Some(1) => crate::context::float_tensor(&[value], &[]),
            Some(11) => onnx_runtime_types::TensorProto {
                data_type: Some(11),
                double_data: vec![f64::from(value)],
                ..Default::default()
            },
            _ => {
                return Err(Reason::Unknown {
                    what: format!("a float or double type for `{data}`"),
                    needed_by: format!("Clip-11's `{name}` input"),
                });
            }
        };
        let input = context.fresh(name);
        before.push(constant(input.clone(), tensor));
        set_input(&mut node, index, input);
    }
    Ok(Adapted::with_before(before, node))
}

pub(super) fn bounds_to_attributes(
    context: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    for (name, index) in BOUNDS {
        let Some(input) = node.input.get(index).filter(|i| !i.is_empty()).cloned() else {
            continue;
        };
        let value = match context.constants.get(&input) {
            None => {
                return Err(Reason::RuntimeInput {
                    input: name.to_owned(),
                    opset: target,
                });
            }
            Some(tensor) => match crate::context::tensor_floats(tensor).as_deref() {
                Some(&[value]) => value,
                _ => match (tensor.data_type, tensor.double_data.as_slice()) {
                    // A double bound that an f32 holds exactly.
                    (Some(11), &[value]) if f64::from(value as f32) == value => value as f32,
                    _ => {
                        return Err(Reason::Unknown {
                            what: format!("a float value of `{name}` that an f32 holds"),
                            needed_by: "Clip before opset 11".to_owned(),
                        });
                    }
                },
            },
        };
        node.input[index] = String::new();
        node.attribute.push(float_attribute(name, value));
    }
    trim_inputs(&mut node);
    Ok(Adapted::alone(node))
}
