//! LabelEncoder: ml 1 maps strings to their index in `classes_strings` (or an index to its
//! string); ml 2 maps `keys_*` to `values_*`; ml 4 adds tensor forms (`keys_tensor`,
//! `values_tensor`, `default_tensor`) for more element types. Each direction writes the same
//! mapping, or refuses.

use std::collections::HashSet;

use onnx_runtime_types::{AttributeProto, NodeProto, TensorProto};

use super::inexact;
use crate::context::{
    Context, attribute, floats_attribute, ints_attribute, strings_attribute, take_attribute,
    tensor_floats, tensor_ints,
};
use crate::driver::Adapted;
use crate::error::Reason;

const STRING: i32 = 8;
const INT64: i32 = 7;

/// 1 → 2: the classes as keys (string input) or as values (int64 input), indices opposite.
pub(super) fn classes_to_keys(
    context: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let x = node.input.first().cloned().unwrap_or_default();
    let classes = take_attribute(&mut node, "classes_strings")
        .map(|a| a.strings)
        .unwrap_or_default();
    if classes.is_empty() {
        return Err(inexact("a LabelEncoder without classes", target));
    }
    let indices: Vec<i64> = (0..classes.len() as i64).collect();
    match context.elem(&x) {
        Some(STRING) => {
            if classes.iter().collect::<HashSet<_>>().len() != classes.len() {
                return Err(inexact("a class listed twice", target));
            }
            node.attribute
                .push(strings_attribute("keys_strings", classes));
            node.attribute
                .push(ints_attribute("values_int64s", indices));
        }
        Some(INT64) => {
            node.attribute.push(ints_attribute("keys_int64s", indices));
            node.attribute
                .push(strings_attribute("values_strings", classes));
        }
        _ => {
            return Err(Reason::Unknown {
                what: format!("a string or int64 type of `{x}`"),
                needed_by: "LabelEncoder-2's keys".to_owned(),
            });
        }
    }
    Ok(Adapted::alone(node))
}

/// 2 → 1: strings to a permutation of 0..n, or 0..n (in any order) to strings.
pub(super) fn keys_to_classes(
    _: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let take = |node: &mut NodeProto, name: &str| take_attribute(node, name);
    let (keys_strings, keys_ints) = (
        take(&mut node, "keys_strings"),
        take(&mut node, "keys_int64s"),
    );
    let (values_strings, values_ints) = (
        take(&mut node, "values_strings"),
        take(&mut node, "values_int64s"),
    );
    let (strings, indices) = match (keys_strings, keys_ints, values_strings, values_ints) {
        (Some(k), None, None, Some(v)) if k.strings.len() == v.ints.len() => {
            if k.strings.iter().collect::<HashSet<_>>().len() != k.strings.len() {
                return Err(inexact("a key listed twice", target));
            }
            (k.strings, v.ints)
        }
        (None, Some(k), Some(v), None) if k.ints.len() == v.strings.len() => (v.strings, k.ints),
        _ => {
            return Err(inexact(
                "LabelEncoder-1 maps strings to indices and back, and these keys and values are neither",
                target,
            ));
        }
    };
    let n = strings.len();
    let mut classes = vec![None; n];
    for (string, &index) in strings.into_iter().zip(&indices) {
        match usize::try_from(index).ok().and_then(|i| classes.get_mut(i)) {
            Some(slot @ None) => *slot = Some(string),
            _ => {
                return Err(inexact(
                    format!("the indices are not 0 to {} each once", n.saturating_sub(1)),
                    target,
                ));
            }
        }
    }
    let classes = classes.into_iter().flatten().collect();
    node.attribute
        .push(strings_attribute("classes_strings", classes));
    Ok(Adapted::alone(node))
}

/// 4 → 2: the tensor forms as lists, for the element types ml 2 has (string, int64, float).
pub(super) fn tensors_to_lists(
    _: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    for (tensor_name, prefix) in [("keys_tensor", "keys"), ("values_tensor", "values")] {
        if let Some(a) = take_attribute(&mut node, tensor_name) {
            let tensor = a.t.as_deref().cloned().unwrap_or_default();
            node.attribute.push(list(&tensor, prefix, target)?);
        }
    }
    if let Some(a) = take_attribute(&mut node, "default_tensor") {
        let tensor = a.t.as_deref().cloned().unwrap_or_default();
        let mut default = list(&tensor, "default", target)?;
        let one = default.strings.len() + default.ints.len() + default.floats.len() == 1;
        if !one {
            return Err(inexact(
                "a `default_tensor` of other than one value",
                target,
            ));
        }
        // `default_string`, `default_int64`, `default_float`: one value, not a list.
        let name = default.name.clone().unwrap_or_default();
        let single = match name.as_str() {
            "default_strings" => AttributeProto {
                s: default.strings.pop(),
                ..crate::context::string_attribute("default_string", "")
            },
            "default_int64s" => crate::context::int_attribute("default_int64", default.ints[0]),
            _ => crate::context::float_attribute("default_float", default.floats[0]),
        };
        // A default set twice (as a tensor and as a value) is ill-formed.
        let single_name = single.name.clone().unwrap_or_default();
        if attribute(&node, &single_name).is_some() {
            return Err(inexact(
                format!("`default_tensor` beside `{single_name}`"),
                target,
            ));
        }
        node.attribute.push(single);
    }
    Ok(Adapted::alone(node))
}

/// `<prefix>_strings`, `<prefix>_int64s` or `<prefix>_floats` from a tensor.
fn list(tensor: &TensorProto, prefix: &str, target: i64) -> Result<AttributeProto, Reason> {
    let name = |kind: &str| format!("{prefix}_{kind}");
    match tensor.data_type.unwrap_or(0) {
        STRING => Ok(strings_attribute(
            &name("strings"),
            tensor.string_data.clone(),
        )),
        INT64 => tensor_ints(tensor)
            .map(|v| ints_attribute(&name("int64s"), v))
            .ok_or_else(|| inexact(format!("`{prefix}_tensor` is unreadable"), target)),
        1 => tensor_floats(tensor)
            .map(|v| floats_attribute(&name("floats"), v))
            .ok_or_else(|| inexact(format!("`{prefix}_tensor` is unreadable"), target)),
        other => Err(inexact(
            format!(
                "`{prefix}_tensor` of element type {}, which LabelEncoder-2 lacks",
                crate::compat::elem_name(other).unwrap_or("?")
            ),
            target,
        )),
    }
}
