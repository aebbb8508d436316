//! Derived compatibility, per node: a node crosses a step between neighbouring versions as is
//! when the target's schema takes its operands' actual types, its operand counts and its
//! attribute values. An attribute the target lacks is dropped when it holds its default (the
//! behaviour the target has); a default that changed is written out, so the node keeps its
//! meaning.

use onnx_runtime_types::NodeProto;
use onnx_runtime_types::attribute_proto::AttributeType;
use onnx_schema::table::{Arity, Formal, Schema};

use crate::context::{Context, formal_at};
use crate::error::Reason;
use crate::steps::{default_value, versions};

/// String attribute values that exist only from a version on: (operator, attribute, value,
/// since). Checked on the way down; older versions do not list them among their modes.
const STRING_VALUES: &[(&str, &str, &str, i64)] = &[
    (
        "Resize",
        "coordinate_transformation_mode",
        "half_pixel_symmetric",
        19,
    ),
    ("Resize", "mode", "cubic", 11),
    ("Pad", "mode", "wrap", 19),
    ("ScatterElements", "reduction", "min", 18),
    ("ScatterElements", "reduction", "max", 18),
    ("ScatterND", "reduction", "min", 18),
    ("ScatterND", "reduction", "max", 18),
];

/// Negative `axis` and `axes` values exist from opset 11; below, they count from the front,
/// which needs the rank (of the data, or of the output for OneHot and Unsqueeze).
fn nonnegative_axes(context: &Context, node: &mut NodeProto, target: i64) -> Result<(), Reason> {
    let operator = node.op_type.clone().unwrap_or_default();
    let first = node.input.first().cloned().unwrap_or_default();
    let input_rank = context.rank(&first);
    for attribute in &mut node.attribute {
        let name = attribute.name.clone().unwrap_or_default();
        let values: &mut [i64] = match name.as_str() {
            "axis" => attribute
                .i
                .as_mut()
                .map(std::slice::from_mut)
                .unwrap_or_default(),
            "axes" => &mut attribute.ints,
            _ => continue,
        };
        if values.iter().all(|&v| v >= 0) {
            continue;
        }
        let added = match operator.as_str() {
            "Unsqueeze" => values.len(),
            "OneHot" => 1,
            _ => 0,
        };
        let rank = input_rank.ok_or_else(|| Reason::Unknown {
            what: format!("the rank of `{first}`"),
            needed_by: format!("a negative `{name}` before opset 11 (opset {target})"),
        })? + added;
        for value in values.iter_mut().filter(|v| **v < 0) {
            *value += rank as i64;
        }
    }
    Ok(())
}

/// `node` (at `from`) as a node of `to`, the neighbouring version; `target` is the opset the
/// conversion goes to, which the messages name.
pub(crate) fn cross(
    context: &Context,
    mut node: NodeProto,
    from: &Schema,
    to: &Schema,
    target: i64,
) -> Result<NodeProto, Reason> {
    cross_attributes(&mut node, from, to, target)?;
    if to.since < 11 && from.since >= 11 {
        nonnegative_axes(context, &mut node, target)?;
    }
    check_arity(&node, to, target)?;
    check_types(context, &node, from, to, target)?;
    Ok(node)
}

fn cross_attributes(
    node: &mut NodeProto,
    from: &Schema,
    to: &Schema,
    target: i64,
) -> Result<(), Reason> {
    let mut kept = Vec::with_capacity(node.attribute.len());
    for attribute in std::mem::take(&mut node.attribute) {
        let name = attribute.name.clone().unwrap_or_default();
        // A reference to a function's attribute: its value is the caller's.
        if attribute.ref_attr_name.is_some() {
            kept.push(attribute);
            continue;
        }
        match to.attribute(&name) {
            Some(spec) => {
                let ty = attribute.r#type.unwrap_or(0);
                if ty != 0 && ty != attribute_type_number(spec.ty) {
                    return Err(Reason::Attribute {
                        name,
                        opset: target,
                    });
                }
                if let Some(value) = String::from_utf8(attribute.s.clone().unwrap_or_default())
                    .ok()
                    .filter(|_| attribute.s.is_some())
                {
                    let newer = STRING_VALUES
                        .iter()
                        .find(|(op, attr, v, _)| *op == to.name && *attr == name && *v == value);
                    if newer.is_some_and(|(.., since)| *since > to.since) {
                        return Err(Reason::AttributeValue {
                            name,
                            value,
                            opset: target,
                        });
                    }
                }
                kept.push(attribute);
            }
            None => match default_value(from, &name) {
                // The target behaves as the default does.
                Some(default) if default.is_held_by(&attribute) => {}
                // Opset 1's hint of which inputs an operator may overwrite: no result depends
                // on it.
                _ if name == "consumed_inputs" => {}
                _ => {
                    return Err(Reason::Attribute {
                        name,
                        opset: target,
                    });
                }
            },
        }
    }
    node.attribute = kept;
    // A default that changed: the node keeps the value it had.
    for spec in &from.attributes {
        let set = node
            .attribute
            .iter()
            .any(|a| a.name.as_deref() == Some(spec.name));
        if set || to.attribute(spec.name).is_none() {
            continue;
        }
        let (old, new) = (default_value(from, spec.name), default_value(to, spec.name));
        if old != new {
            match old {
                Some(old) => node.attribute.push(old.to_attribute(spec.name)),
                None => {
                    return Err(Reason::Attribute {
                        name: spec.name.to_owned(),
                        opset: target,
                    });
                }
            }
        }
    }
    for spec in to.attributes.iter().filter(|s| s.required) {
        if !node
            .attribute
            .iter()
            .any(|a| a.name.as_deref() == Some(spec.name))
        {
            match default_value(from, spec.name) {
                Some(old) => node.attribute.push(old.to_attribute(spec.name)),
                None => {
                    return Err(Reason::Attribute {
                        name: spec.name.to_owned(),
                        opset: target,
                    });
                }
            }
        }
    }
    Ok(())
}

fn attribute_type_number(ty: onnx_syntax::syntax::AttributeType) -> i32 {
    use onnx_syntax::syntax::AttributeType as Syntax;
    (match ty {
        Syntax::Undefined => AttributeType::Undefined,
        Syntax::Float => AttributeType::Float,
        Syntax::Int => AttributeType::Int,
        Syntax::String => AttributeType::String,
        Syntax::Tensor => AttributeType::Tensor,
        Syntax::Graph => AttributeType::Graph,
        Syntax::Floats => AttributeType::Floats,
        Syntax::Ints => AttributeType::Ints,
        Syntax::Strings => AttributeType::Strings,
        Syntax::Tensors => AttributeType::Tensors,
        Syntax::Graphs => AttributeType::Graphs,
        Syntax::SparseTensor => AttributeType::SparseTensor,
        Syntax::SparseTensors => AttributeType::SparseTensors,
        Syntax::TypeProto => AttributeType::TypeProto,
        Syntax::TypeProtos => AttributeType::TypeProtos,
    }) as i32
}

/// How many operands count: trailing `""` are left off.
fn used(operands: &[String]) -> usize {
    operands
        .iter()
        .rposition(|o| !o.is_empty())
        .map_or(0, |i| i + 1)
}

fn check_arity(node: &NodeProto, to: &Schema, target: i64) -> Result<(), Reason> {
    let inputs = used(&node.input);
    if inputs > to.max_inputs {
        let name = formal_name(&to.inputs, inputs - 1, &node.input[inputs - 1]);
        return Err(Reason::Input {
            input: name,
            opset: target,
        });
    }
    for (index, operand) in node.input.iter().enumerate().take(inputs) {
        let single = formal_at(&to.inputs, index).is_some_and(|f| f.arity == Arity::Single);
        if operand.is_empty() && single || index >= to.inputs.len() && to.inputs.is_empty() {
            return Err(Reason::Input {
                input: formal_name(&to.inputs, index, operand),
                opset: target,
            });
        }
    }
    if inputs < to.min_inputs {
        let missing = to.inputs.get(inputs).map_or("?", |f| f.name);
        return Err(Reason::Input {
            input: missing.to_owned(),
            opset: target,
        });
    }
    let outputs = used(&node.output);
    if outputs > to.max_outputs {
        return Err(Reason::Input {
            input: format!("output {}", outputs - 1),
            opset: target,
        });
    }
    Ok(())
}

fn formal_name(formals: &[Formal], index: usize, operand: &str) -> String {
    formals
        .get(index)
        .map_or_else(|| operand.to_owned(), |f| f.name.to_owned())
}

fn check_types(
    context: &Context,
    node: &NodeProto,
    from: &Schema,
    to: &Schema,
    target: i64,
) -> Result<(), Reason> {
    let sides = [
        (&node.input, &from.inputs, &to.inputs, true),
        (&node.output, &from.outputs, &to.outputs, false),
    ];
    for (operands, from_formals, to_formals, is_input) in sides {
        for (index, operand) in operands.iter().enumerate() {
            if operand.is_empty() {
                continue;
            }
            let (Some(old), Some(new)) =
                (formal_at(from_formals, index), formal_at(to_formals, index))
            else {
                continue;
            };
            let allowed = |formal: &Formal, ty: &str| match &formal.allowed {
                Some(types) => types.contains(&ty),
                None => formal.type_str == ty,
            };
            let elem = match is_input {
                true => context.elem(operand),
                false => context
                    .elem(operand)
                    .or_else(|| crate::context::declared_output_type(node)),
            };
            match elem.and_then(elem_name) {
                Some(elem) => {
                    // Known types are tensors' (the context records no others).
                    let ty = format!("tensor({elem})");
                    if !allowed(new, &ty) {
                        return Err(Reason::ElementType {
                            since: first_allowing(to, index, is_input, &ty),
                            ty: elem.to_owned(),
                            operator: to.name.to_owned(),
                            opset: target,
                        });
                    }
                }
                // An output's type follows from the inputs' when they share its parameter.
                None if !is_input && from.inputs.iter().any(|f| f.type_str == old.type_str) => {}
                None => {
                    let narrower = match (&old.allowed, &new.allowed) {
                        (Some(olds), Some(news)) => olds.iter().any(|t| !news.contains(t)),
                        _ => old.type_str != new.type_str,
                    };
                    if narrower {
                        return Err(Reason::UnknownType {
                            value: operand.clone(),
                            opset: target,
                        });
                    }
                }
            }
        }
    }
    Ok(())
}

/// The name of an element type number (`bfloat16`).
pub(crate) fn elem_name(number: i32) -> Option<&'static str> {
    onnx_syntax::dtype::elem_type_by_number(number).map(|info| info.name)
}

/// The first version after `to` whose schema allows `ty` at the operand.
fn first_allowing(to: &Schema, index: usize, is_input: bool, ty: &str) -> Option<i64> {
    versions(to.domain, to.name)?
        .iter()
        .filter(|s| s.since > to.since && !s.deprecated)
        .find(|s| {
            let formals = if is_input { &s.inputs } else { &s.outputs };
            formal_at(formals, index).is_some_and(|f| match &f.allowed {
                Some(types) => types.contains(&ty),
                None => f.type_str == ty,
            })
        })
        .map(|s| s.since)
}
