//! Rewrites into what older versions say another way: Shape's `start` and `end` (15) as a
//! Slice of the whole shape, Constant's `value_*` attributes (12) as a `value` tensor, and
//! CastLike (15) as a Cast to its second input's element type; and what opset 1 said otherwise:
//! Concat's default `axis` of 1, which 4 needs written, Cast's `to` as a name (6 takes the
//! number), Pad's `paddings` (renamed `pads` at 2).

use onnx_runtime_types::tensor_proto::DataType;
use onnx_runtime_types::{AttributeProto, NodeProto, TensorProto};

use onnx_text::onnx_function;

use crate::context::{Context, int64_tensor, take_attribute};
use crate::driver::Adapted;
use crate::error::Reason;

/// Shape-15 → 13: `start` and `end` clamp as Slice's bounds do.
pub(super) fn shape_bounds_to_slice(
    context: &mut Context,
    mut shape: NodeProto,
    _: i64,
) -> Result<Adapted, Reason> {
    let start = take_attribute(&mut shape, "start").and_then(|a| a.i);
    let end = take_attribute(&mut shape, "end").and_then(|a| a.i);
    if start.is_none() && end.is_none() {
        return Ok(Adapted::alone(shape));
    }
    let (start, end) = (start.unwrap_or(0), end.unwrap_or(i64::MAX));
    let rule = onnx_function! {
        <domain: "adapted", opset_import: ["" : 13, "adapted" : 1]>
        ShapeBounds (data) => (shape) {
            starts = Constant <value = int64[1] {#start}> ()
            ends = Constant <value = int64[1] {#end}> ()
            whole = adapted.Node (data)
            shape = Slice (whole, starts, ends)
        }
    };
    Ok(super::rewrite(context, shape, &rule))
}

/// Constant-12 → 11: `value_float(s)`, `value_int(s)` and `value_string(s)` as a `value` tensor.
pub(super) fn constant_value_tensor(
    context: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let Some(attribute) = node.attribute.first().cloned() else {
        return Ok(Adapted::alone(node));
    };
    let scalar = |data_type: i32| TensorProto {
        data_type: Some(data_type),
        ..Default::default()
    };
    let list = |data_type: i32, count: usize| TensorProto {
        data_type: Some(data_type),
        dims: vec![count as i64],
        ..Default::default()
    };
    let tensor = match attribute.name.as_deref().unwrap_or_default() {
        "value" => return Ok(Adapted::alone(node)),
        "value_float" => TensorProto {
            float_data: vec![attribute.f.unwrap_or(0.0)],
            ..scalar(1)
        },
        "value_floats" => TensorProto {
            float_data: attribute.floats.clone(),
            ..list(1, attribute.floats.len())
        },
        "value_int" => int64_tensor(&[attribute.i.unwrap_or(0)], &[]),
        "value_ints" => int64_tensor(&attribute.ints, &[attribute.ints.len()]),
        "value_string" => TensorProto {
            string_data: vec![attribute.s.clone().unwrap_or_default()],
            ..scalar(8)
        },
        "value_strings" => TensorProto {
            string_data: attribute.strings.clone(),
            ..list(8, attribute.strings.len())
        },
        other => {
            return Err(Reason::Attribute {
                name: other.to_owned(),
                opset: target,
            });
        }
    };
    node.attribute = vec![AttributeProto {
        name: Some("value".to_owned()),
        t: Some(Box::new(tensor)),
        r#type: Some(onnx_runtime_types::attribute_proto::AttributeType::Tensor as i32),
        ..Default::default()
    }];
    context.record_constant(&node);
    Ok(Adapted::alone(node))
}

/// CastLike before 15 is a Cast to the element type of its second input, written at opset 14.
pub(super) fn cast_like_to_cast(
    context: &mut Context,
    mut node: NodeProto,
    _: i64,
) -> Result<Adapted, Reason> {
    let like = node.input.get(1).cloned().unwrap_or_default();
    let elem = context.elem(&like).ok_or_else(|| Reason::Unknown {
        what: format!("the element type of `{like}`"),
        needed_by: "CastLike before opset 15 (a Cast to it)".to_owned(),
    })?;
    node.op_type = Some("Cast".to_owned());
    node.input.truncate(1);
    node.attribute = vec![crate::context::int_attribute("to", i64::from(elem))];
    Ok(Adapted::alone(node))
}

/// Concat 1 → 4: `axis` became required; version 1 concatenates along 1 without it.
pub(super) fn concat_axis_required(
    _: &mut Context,
    mut node: NodeProto,
    _: i64,
) -> Result<Adapted, Reason> {
    if crate::context::attribute(&node, "axis").is_none() {
        node.attribute
            .push(crate::context::int_attribute("axis", 1));
    }
    Ok(Adapted::alone(node))
}

/// Cast 1 → 6: `to` names the element type (`"FLOAT"`, as TensorProto's enum spells it) before
/// 6, and is its number from 6.
pub(super) fn cast_to_number(
    _: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let Some(to) = take_attribute(&mut node, "to") else {
        return Ok(Adapted::alone(node));
    };
    let name = String::from_utf8_lossy(to.s.as_deref().unwrap_or_default()).into_owned();
    let number = DataType::from_str_name(&name.to_ascii_uppercase()).ok_or_else(|| {
        Reason::AttributeValue {
            name: "to".to_owned(),
            value: name.clone(),
            opset: target,
        }
    })?;
    node.attribute
        .push(crate::context::int_attribute("to", number as i64));
    Ok(Adapted::alone(node))
}

/// Cast 6 → 1: `to` back to the enum's name.
pub(super) fn cast_to_name(
    _: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let Some(to) = take_attribute(&mut node, "to") else {
        return Ok(Adapted::alone(node));
    };
    let number = to.i.unwrap_or_default();
    let name = i32::try_from(number)
        .ok()
        .and_then(|n| DataType::try_from(n).ok())
        .ok_or_else(|| Reason::AttributeValue {
            name: "to".to_owned(),
            value: number.to_string(),
            opset: target,
        })?;
    node.attribute
        .push(crate::context::string_attribute("to", name.as_str_name()));
    Ok(Adapted::alone(node))
}

/// Pad 1 ↔ 2: `paddings` was renamed `pads`, in the same order (every axis's start, then every
/// axis's end).
pub(super) fn paddings_to_pads(
    _: &mut Context,
    node: NodeProto,
    _: i64,
) -> Result<Adapted, Reason> {
    Ok(Adapted::alone(rename_attribute(node, "paddings", "pads")))
}

pub(super) fn pads_to_paddings(
    _: &mut Context,
    node: NodeProto,
    _: i64,
) -> Result<Adapted, Reason> {
    Ok(Adapted::alone(rename_attribute(node, "pads", "paddings")))
}

fn rename_attribute(mut node: NodeProto, from: &str, to: &str) -> NodeProto {
    for attribute in &mut node.attribute {
        if attribute.name.as_deref() == Some(from) {
            attribute.name = Some(to.to_owned());
        }
    }
    node
}
