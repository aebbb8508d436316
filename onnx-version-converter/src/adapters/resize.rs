//! Resize and Upsample. Resize-10 and Upsample sample as `asymmetric` (the source coordinate
//! of output `i` is `i / scale`) and, for `nearest`, round each axis by its own scale: down on
//! an axis it upsamples, up on one it downsamples (onnx's own Resize-10 data and onnxruntime).
//! Resize-11 says `asymmetric` with `coordinate_transformation_mode`, but has one `nearest_mode`
//! for every axis, so a nearest Resize crosses 10↔11 only where its constant scales all round
//! the same way. Upsample's `scales` became an input at 9, and Upsample became Resize-10 at 10.

use onnx_runtime_types::NodeProto;

use onnx_text::onnx_function;

use super::{set_input, string, trim_inputs};
use crate::context::{Context, constant, float_tensor, string_attribute, take_attribute};
use crate::driver::Adapted;
use crate::error::Reason;

/// How Resize-10 rounds a nearest coordinate on every axis, from its scales: `floor` where none
/// downsamples (as for a node that was Upsample), `ceil` where none upsamples (an axis of scale
/// 1 lands on whole coordinates, so either holds), and no one mode where the scales do both or
/// are not known.
fn legacy_rounding(
    context: &Context,
    node: &NodeProto,
    scales: &str,
    opset: i64,
) -> Result<&'static str, Reason> {
    if node
        .output
        .first()
        .is_some_and(|output| context.upsampling.contains(output))
    {
        return Ok("floor");
    }
    let values = context
        .constant_floats(scales)
        .ok_or_else(|| Reason::Unknown {
            what: "whether the run-time `scales` upsample or downsample".to_owned(),
            needed_by: format!("nearest Resize's one `nearest_mode` at opset {opset}"),
        })?;
    let down = values.iter().any(|&s| s < 1.0);
    let up = values.iter().any(|&s| s > 1.0);
    match (down, up) {
        (true, true) => Err(Reason::Unknown {
            what: "one rounding for scales that both upsample and downsample".to_owned(),
            needed_by: format!("nearest Resize's one `nearest_mode` at opset {opset}"),
        }),
        (true, false) => Ok("ceil"),
        _ => Ok("floor"),
    }
}

/// Resize-10 → 11: the coordinate mode and nearest mode written out, an empty `roi`.
pub(super) fn asymmetric_up(
    context: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let scales = node.input.get(1).cloned().unwrap_or_default();
    let nearest = if string(&node, "mode").as_deref().unwrap_or("nearest") == "nearest" {
        Some(legacy_rounding(context, &node, &scales, target)?)
    } else {
        None
    };
    node.attribute.push(string_attribute(
        "coordinate_transformation_mode",
        "asymmetric",
    ));
    if let Some(nearest) = nearest {
        node.attribute
            .push(string_attribute("nearest_mode", nearest));
    }
    let rule = onnx_function! {
        <domain: "adapted", opset_import: ["" : 11, "adapted" : 1]>
        EmptyRoi (X, scales) => (Y) {
            roi = Constant <value = float[0] {}> ()
            Y = adapted.Node (X, roi, scales)
        }
    };
    Ok(super::rewrite(context, node, &rule))
}

/// Resize-11 → 10: only what Resize-10 can say: `asymmetric`, for nearest the rounding its
/// scales imply, no cubic, `scales` rather than `sizes`.
pub(super) fn asymmetric_down(
    context: &mut Context,
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
    if mode != "nearest" && mode != "linear" {
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
    if mode == "nearest" {
        let nearest =
            string(&node, "nearest_mode").unwrap_or_else(|| "round_prefer_floor".to_owned());
        if legacy_rounding(context, &node, &scales, target)? != nearest {
            return Err(refuse("nearest_mode", nearest));
        }
    }
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
    Ok(Adapted::with_before(vec![constant(input, tensor)], node))
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
    context: &mut Context,
    mut node: NodeProto,
    _: i64,
) -> Result<Adapted, Reason> {
    node.op_type = Some("Resize".to_owned());
    context.upsampling.extend(node.output.first().cloned());
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
/// Resize-13 dropped `tf_half_pixel_for_nn`, which is `half_pixel` moved by half an element:
/// rounding `y + 0.5` half down is `ceil(y)`, and `floor(y + 0.5)` is `y` rounded half up, so
/// the two nearest modes those give are rewritten, and any other is refused.
pub(super) fn scales_or_sizes(
    _: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    if string(&node, "coordinate_transformation_mode").as_deref() == Some("tf_half_pixel_for_nn") {
        let nearest =
            string(&node, "nearest_mode").unwrap_or_else(|| "round_prefer_floor".to_owned());
        let shifted = match nearest.as_str() {
            "round_prefer_floor" => "ceil",
            "floor" => "round_prefer_ceil",
            _ => {
                return Err(Reason::AttributeValue {
                    name: "coordinate_transformation_mode".to_owned(),
                    value: "tf_half_pixel_for_nn".to_owned(),
                    opset: target,
                });
            }
        };
        take_attribute(&mut node, "coordinate_transformation_mode");
        take_attribute(&mut node, "nearest_mode");
        node.attribute.push(string_attribute(
            "coordinate_transformation_mode",
            "half_pixel",
        ));
        node.attribute
            .push(string_attribute("nearest_mode", shifted));
    }
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
    Ok(Adapted::with_before(before, node))
}
