//! Attributes whose values were renamed or whose meaning depends on a version: GridSample's
//! modes (`bilinear` and `bicubic` are `linear` and `cubic` from 20), RoiAlign's coordinate
//! mode (RoiAlign-10 samples as `output_half_pixel`, 16's default is `half_pixel`), Split's
//! `num_outputs` (needed from 18 when no sizes are given), Mod's `fmod` on integers (from 28).

use onnx_runtime_types::NodeProto;

use super::string;
use crate::context::{Context, attribute, int_attribute, string_attribute, take_attribute};
use crate::driver::Adapted;
use crate::error::Reason;

const GRID_SAMPLE_MODES: [(&str, &str); 3] = [
    ("bilinear", "linear"),
    ("bicubic", "cubic"),
    ("nearest", "nearest"),
];

fn rename_mode(mut node: NodeProto, up: bool, target: i64) -> Result<Adapted, Reason> {
    let default = if up { "bilinear" } else { "linear" };
    let mode = string(&node, "mode").unwrap_or_else(|| default.to_owned());
    let renamed = GRID_SAMPLE_MODES
        .iter()
        .find(|(old, new)| if up { *old == mode } else { *new == mode })
        .map(|(old, new)| if up { *new } else { *old })
        .ok_or_else(|| Reason::AttributeValue {
            name: "mode".to_owned(),
            value: mode.clone(),
            opset: target,
        })?;
    take_attribute(&mut node, "mode");
    node.attribute.push(string_attribute("mode", renamed));
    Ok(Adapted::alone(node))
}

pub(super) fn grid_sample_up(
    _: &mut Context,
    node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    rename_mode(node, true, target)
}

pub(super) fn roi_align_up(
    _: &mut Context,
    mut node: NodeProto,
    _: i64,
) -> Result<Adapted, Reason> {
    node.attribute.push(string_attribute(
        "coordinate_transformation_mode",
        "output_half_pixel",
    ));
    Ok(Adapted::alone(node))
}

pub(super) fn roi_align_down(
    _: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let mode =
        string(&node, "coordinate_transformation_mode").unwrap_or_else(|| "half_pixel".to_owned());
    if mode != "output_half_pixel" {
        return Err(Reason::AttributeValue {
            name: "coordinate_transformation_mode".to_owned(),
            value: mode,
            opset: target,
        });
    }
    take_attribute(&mut node, "coordinate_transformation_mode");
    Ok(Adapted::alone(node))
}

/// Split-13 without sizes splits equally into its outputs; 18 says how many.
pub(super) fn split_count_up(
    _: &mut Context,
    mut node: NodeProto,
    _: i64,
) -> Result<Adapted, Reason> {
    if node.input.get(1).is_none_or(String::is_empty) {
        node.attribute
            .push(int_attribute("num_outputs", node.output.len() as i64));
    }
    Ok(Adapted::alone(node))
}

/// Split-18's `num_outputs` is the count of outputs Split-13 splits into equally, where the
/// dimension is known to divide (18 makes the last part smaller otherwise).
pub(super) fn split_count_down(
    context: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let Some(count) = take_attribute(&mut node, "num_outputs").and_then(|a| a.i) else {
        return Ok(Adapted::alone(node));
    };
    let axis = attribute(&node, "axis").and_then(|a| a.i).unwrap_or(0);
    let input = node.input.first().cloned().unwrap_or_default();
    let dims = context.dims.get(&input);
    let axis = if axis < 0 {
        dims.map_or(axis, |d| axis + d.len() as i64)
    } else {
        axis
    };
    let size = dims.and_then(|d| {
        usize::try_from(axis)
            .ok()
            .and_then(|a| d.get(a).copied().flatten())
    });
    match size {
        Some(size) if count == node.output.len() as i64 && count > 0 && size % count == 0 => {
            Ok(Adapted::alone(node))
        }
        _ => Err(Reason::Unknown {
            what: format!("that `num_outputs` = {count} divides the split dimension of `{input}`"),
            needed_by: format!("Split before opset 18 (opset {target}), which splits equally"),
        }),
    }
}

/// Mod-28 takes `fmod = 1` on integers and `fmod = 0` on floats; before, floats needed
/// `fmod = 1` and integers `fmod = 0`.
pub(super) fn fmod_down(
    context: &mut Context,
    node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let fmod = attribute(&node, "fmod").and_then(|a| a.i).unwrap_or(0);
    let elem = node.input.first().and_then(|a| context.elem(a));
    let floating = elem.map(|e| matches!(e, 1 | 10 | 11 | 16));
    if floating != Some(fmod == 1) {
        return Err(Reason::Attribute {
            name: "fmod".to_owned(),
            opset: target,
        });
    }
    Ok(Adapted::alone(node))
}

/// GridSample-16 samples 4-D inputs only; 20 also 5-D.
pub(super) fn grid_sample_down_4d(
    context: &mut Context,
    node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let input = node.input.first().cloned().unwrap_or_default();
    match context.rank(&input) {
        Some(4) => rename_mode(node, false, target),
        _ => Err(Reason::Unknown {
            what: format!("that `{input}` is 4-D"),
            needed_by: format!("GridSample before opset 20 (opset {target})"),
        }),
    }
}
