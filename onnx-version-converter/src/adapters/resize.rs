//! Resize and Upsample. Resize-10 and Upsample sample as `asymmetric` (the source coordinate
//! of output `i` is `i / scale`) and take the nearest pixel by `floor`; Resize-11 says so with
//! `coordinate_transformation_mode` and `nearest_mode`, whose defaults differ. Upsample's
//! `scales` became an input at 9, and Upsample became Resize-10 at 10.

use onnx_runtime_types::NodeProto;

use super::{set_input, trim_inputs};
use crate::context::{
    Context, attribute, constant, float_tensor, string_attribute, take_attribute,
};
use crate::driver::Adapted;
use crate::error::Reason;

fn string(node: &NodeProto, name: &str) -> Option<String> {
    attribute(node, name)
        .and_then(|a| a.s.clone())
        .and_then(|s| String::from_utf8(s).ok())
}

/// Resize-10 → 11: the coordinate mode and nearest mode written out, an empty `roi`.
pub(super) fn asymmetric_up(
    context: &mut Context,
    mut node: NodeProto,
    _: i64,
) -> Result<Adapted, Reason> {
    let scales = node.input.get(1).cloned().unwrap_or_default();
    let roi = context.fresh("roi");
    node.input = vec![node.input[0].clone(), roi.clone(), scales];
    node.attribute.push(string_attribute(
        "coordinate_transformation_mode",
        "asymmetric",
    ));
    if string(&node, "mode").as_deref().unwrap_or("nearest") == "nearest" {
        node.attribute
            .push(string_attribute("nearest_mode", "floor"));
    }
    Ok(Adapted {
        before: vec![constant(roi, float_tensor(&[], &[0]))],
        node,
        after: Vec::new(),
    })
}

/// Resize-11 → 10: only what Resize-10 can say: `asymmetric`, `floor` for nearest, no cubic,
/// `scales` rather than `sizes`.
pub(super) fn asymmetric_down(
    _: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let refuse = |name: &str, value: String| Reason::AttributeValue {
        name: name.to_owned(),
        value,
        opset: target,
    };
    let mode = string(&node, "mode").unwrap_or_else(|| "nearest".to_owned());
    let coordinates =
        string(&node, "coordinate_transformation_mode").unwrap_or_else(|| "half_pixel".to_owned());
    if coordinates != "asymmetric" {
        return Err(refuse("coordinate_transformation_mode", coordinates));
    }
    if mode == "nearest" {
        let nearest =
            string(&node, "nearest_mode").unwrap_or_else(|| "round_prefer_floor".to_owned());
        if nearest != "floor" {
            return Err(refuse("nearest_mode", nearest));
        }
    } else if mode != "linear" {
        return Err(refuse("mode", mode));
    }
    if node.input.get(3).is_some_and(|s| !s.is_empty()) {
        return Err(Reason::Input {
            input: "sizes".to_owned(),
            opset: target,
        });
    }
    let scales = node
        .input
        .get(2)
        .filter(|s| !s.is_empty())
        .cloned()
        .ok_or_else(|| Reason::Input {
            input: "sizes".to_owned(),
            opset: target,
        })?;
    take_attribute(&mut node, "coordinate_transformation_mode");
    take_attribute(&mut node, "nearest_mode");
    node.input = vec![node.input[0].clone(), scales];
    Ok(Adapted::alone(node))
}

/// Upsample-7 → 9: `scales` as an input.
pub(super) fn upsample_scales_to_input(
    context: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let scales = take_attribute(&mut node, "scales")
        .ok_or(Reason::Attribute {
            name: "scales".to_owned(),
            opset: target,
        })?
        .floats;
    let input = context.fresh("scales");
    set_input(&mut node, 1, input.clone());
    let tensor = float_tensor(&scales, &[scales.len()]);
    Ok(Adapted {
        before: vec![constant(input, tensor)],
        node,
        after: Vec::new(),
    })
}

/// Upsample-9 → 7: constant `scales` as the attribute.
pub(super) fn upsample_scales_to_attribute(
    context: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let input = node.input.get(1).cloned().unwrap_or_default();
    let scales = context
        .constant_floats(&input)
        .ok_or_else(|| Reason::RuntimeInput {
            input: "scales".to_owned(),
            opset: target,
        })?;
    node.input[1] = String::new();
    trim_inputs(&mut node);
    node.attribute.push(onnx_runtime_types::AttributeProto {
        name: Some("scales".to_owned()),
        floats: scales,
        r#type: Some(onnx_runtime_types::attribute_proto::AttributeType::Floats as i32),
        ..Default::default()
    });
    Ok(Adapted::alone(node))
}

/// Upsample-9, removed at 10, is Resize-10.
pub(super) fn upsample_to_resize(
    _: &mut Context,
    mut node: NodeProto,
    _: i64,
) -> Result<Adapted, Reason> {
    node.op_type = Some("Resize".to_owned());
    Ok(Adapted::alone(node))
}

/// Resize-10 before 10 is Upsample-9, written at opset 9, whose scales are at least 1.
pub(super) fn resize_to_upsample(
    context: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let scales = node.input.get(1).cloned().unwrap_or_default();
    match context.constant_floats(&scales) {
        Some(values) if values.iter().all(|&s| s >= 1.0) => {}
        Some(_) => {
            return Err(Reason::Unknown {
                what: "an upsampling (scales of at least 1)".to_owned(),
                needed_by: format!(
                    "Upsample, which stands for Resize before opset 10 (opset {target})"
                ),
            });
        }
        None => {
            return Err(Reason::RuntimeInput {
                input: "scales".to_owned(),
                opset: target,
            });
        }
    }
    node.op_type = Some("Upsample".to_owned());
    Ok(Adapted::alone(node))
}

/// Resize-11 → 13: with `sizes`, 11's required `scales` is empty, and 13 wants it left out.
pub(super) fn scales_or_sizes(
    _: &mut Context,
    mut node: NodeProto,
    _: i64,
) -> Result<Adapted, Reason> {
    if node.input.get(3).is_some_and(|s| !s.is_empty()) {
        node.input[2] = String::new();
    }
    Ok(Adapted::alone(node))
}

/// Resize-13 → 11: `roi` and `scales` are required at 11; left out, they are empty tensors.
pub(super) fn required_roi_and_scales(
    context: &mut Context,
    mut node: NodeProto,
    _: i64,
) -> Result<Adapted, Reason> {
    let mut before = Vec::new();
    for (index, name) in [(1, "roi"), (2, "scales")] {
        if node.input.get(index).is_none_or(String::is_empty) {
            let input = context.fresh(name);
            before.push(constant(input.clone(), float_tensor(&[], &[0])));
            set_input(&mut node, index, input);
        }
    }
    Ok(Adapted {
        before,
        node,
        after: Vec::new(),
    })
}
