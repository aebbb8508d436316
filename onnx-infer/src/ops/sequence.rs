//! Operators of sequences and optionals.

use crate::node::{Node, Rule, conflict, dtype};
use crate::ty::{Dim, Ty};

use super::control::{body_results, unify};
use super::elementwise::general;

/// `SequenceEmpty`: a sequence of `dtype` (float without it) tensors.
pub fn empty(node: &mut Node) -> Rule {
    let elem = node.int("dtype", i64::from(dtype::FLOAT)) as i32;
    node.set(0, Ty::Sequence(Box::new(Ty::tensor(elem, None))));
    Ok(())
}

/// `SequenceConstruct`: a sequence of the type every operand fits.
pub fn construct(node: &mut Node) -> Rule {
    // Every element's type goes into the sequence's.
    node.written(0..node.inputs.len())?;
    let mut types = node.inputs.iter().map(Option::as_deref);
    let Some(Some(first)) = types.next() else {
        return Ok(());
    };
    let mut ty = Some(first.clone());
    for other in types {
        ty = match (ty, other) {
            (Some(a), Some(b)) => {
                unify(&a, b).or_else(|| Some(Ty::tensor(a.elem().unwrap_or(0), None)))
            }
            _ => None,
        };
    }
    if let Some(ty) = ty {
        node.set(0, Ty::Sequence(Box::new(ty)));
    }
    Ok(())
}

/// `SequenceAt`: the sequence's element type.
pub fn at(node: &mut Node) -> Rule {
    if let Some(Ty::Sequence(inner)) = node.input(0).cloned() {
        node.set(0, *inner);
    }
    Ok(())
}

/// `SequenceInsert`: the sequence, its element type widened to fit the inserted tensor, which
/// must have the element type of the sequence's tensors.
pub fn insert(node: &mut Node) -> Rule {
    if let (Some(Ty::Sequence(inner)), Some(tensor)) =
        (node.input(0).cloned(), node.input(1).cloned())
    {
        if let (Some(held), Some(given)) = (inner.elem(), tensor.elem())
            && held != given
        {
            let message = format!("operand 1 (tensor) is {tensor}, but the sequence holds {inner}");
            return Err(conflict(1, message));
        }
        let ty = unify(&inner, &tensor).unwrap_or(Ty::tensor(inner.elem().unwrap_or(0), None));
        node.set(0, Ty::Sequence(Box::new(ty)));
    }
    Ok(())
}

/// `SequenceLength`: an int64 scalar.
pub fn length(node: &mut Node) -> Rule {
    node.set_tensor(0, Some(dtype::INT64), Some(Vec::new()));
    Ok(())
}

/// `SplitToSequence`: a sequence of parts along `axis` (dropped when the split is one
/// scalar size and `keepdims` is 0).
pub fn split_to_sequence(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let Some(dims) = node.shape_of(0) else {
        node.set(
            0,
            Ty::Sequence(Box::new(Ty::tensor(elem.unwrap_or(0), None))),
        );
        return Ok(());
    };
    let axis = node.axis(node.int("axis", 0), dims.len(), 0)?;
    let mut part = dims;
    if !node.has_input(1) {
        if node.int("keepdims", 1) == 0 {
            part.remove(axis);
        } else {
            part[axis] = Dim::Known(1);
        }
    } else {
        match node.ints(1) {
            Some(sizes) if node.dims(1).is_some_and(<[Dim]>::is_empty) => {
                part[axis] = Dim::Known(sizes[0]);
                if let Some(n) = node
                    .input(0)
                    .and_then(Ty::dims)
                    .and_then(|d| d[axis].known())
                    && sizes[0] > 0
                    && n % sizes[0] != 0
                {
                    part[axis] = Dim::Unknown;
                }
            }
            _ => part[axis] = Dim::Unknown,
        }
    }
    node.set(
        0,
        Ty::Sequence(Box::new(Ty::tensor(elem.unwrap_or(0), Some(part)))),
    );
    Ok(())
}

/// `ConcatFromSequence`: the elements joined along `axis` (a new one with `new_axis`).
pub fn concat_from_sequence(node: &mut Node) -> Rule {
    let Some(Ty::Sequence(inner)) = node.input(0).cloned() else {
        return Ok(());
    };
    let elem = inner.elem();
    let Some(dims) = inner.dims() else {
        node.set_tensor(0, elem, None);
        return Ok(());
    };
    // The elements' other dims stay; the number of elements is not known, so neither is the
    // dim they are joined along (a new one with `new_axis`).
    let new_axis = node.int("new_axis", 0) != 0;
    let rank = dims.len() + usize::from(new_axis);
    let axis = node.axis(node.int("axis", 0), rank, 0)?;
    let mut shape = dims.to_vec();
    match new_axis {
        true => shape.insert(axis, Dim::Unknown),
        false => shape[axis] = Dim::Unknown,
    }
    node.set_tensor(0, elem, Some(shape));
    Ok(())
}

/// `Optional`: an optional of the operand's type, or of `type`; with neither, the operator
/// has no type to give.
pub fn optional(node: &mut Node) -> Rule {
    let attribute = node.attr("type");
    if !node.has_input(0) && attribute.is_none() {
        return Err(general(
            "`Optional` needs an operand or a `type` attribute: without either, the optional's \
             type is unknown",
        ));
    }
    let ty = node.input(0).cloned().or_else(|| {
        attribute
            .and_then(|a| a.tp.as_deref())
            .and_then(Ty::from_proto)
    });
    if let Some(ty) = ty {
        node.set(0, Ty::Optional(Box::new(ty)));
    }
    Ok(())
}

/// `OptionalHasElement`: a bool scalar.
pub fn has_element(node: &mut Node) -> Rule {
    node.set_tensor(0, Some(dtype::BOOL), Some(Vec::new()));
    Ok(())
}

/// `OptionalGetElement`: the optional's element type (a non-optional operand passes).
pub fn get_element(node: &mut Node) -> Rule {
    match node.input(0).cloned() {
        Some(Ty::Optional(inner)) => node.set(0, *inner),
        Some(other) => node.set(0, other),
        None => {}
    }
    Ok(())
}

/// `SequenceMap`: the body runs on one element of each sequence operand (other operands as
/// they are); each result is a sequence of what the body gives.
pub fn sequence_map(node: &mut Node) -> Rule {
    // Every operand's type is a body input's.
    node.written(0..node.inputs.len())?;
    let Some(body) = node.graph("body") else {
        return Ok(());
    };
    // The body takes one element (or operand) of each operand, and gives one result for each
    // of the node's.
    if body.input.len() != node.inputs.len() {
        let count = body.input.len();
        return Err(general(format!(
            "the body takes {count} input{}, but the node gives it {}",
            if count == 1 { "" } else { "s" },
            node.inputs.len()
        )));
    }
    let inputs: Vec<Option<Ty>> = (0..node.inputs.len())
        .map(|i| match node.input(i)? {
            Ty::Sequence(inner) => Some((**inner).clone()),
            other => Some(other.clone()),
        })
        .collect();
    let outputs = node.subgraph(body, &inputs);
    body_results("the body", outputs.len(), node.outputs.len())?;
    for (i, ty) in outputs.into_iter().enumerate() {
        if let Some(ty) = ty {
            node.set(i, Ty::Sequence(Box::new(ty)));
        }
    }
    Ok(())
}
