//! `If`, `Loop` and `Scan`: their results come from their bodies.

use onnx_runtime_types::GraphProto;

use crate::node::{Conflict, Node, Rule, conflict, dtype};
use crate::ty::{Dim, Ty};

/// The type both `a` and `b` fit: equal dims stay, others become unknown; a rank that differs
/// becomes unknown.
pub fn unify(a: &Ty, b: &Ty) -> Option<Ty> {
    Some(match (a, b) {
        (
            Ty::Tensor {
                elem: ea,
                shape: sa,
            },
            Ty::Tensor {
                elem: eb,
                shape: sb,
            },
        ) if ea == eb => Ty::Tensor {
            elem: *ea,
            shape: match (sa, sb) {
                (Some(x), Some(y)) if x.len() == y.len() => Some(
                    x.iter()
                        .zip(y)
                        .map(|(p, q)| if p == q { p.clone() } else { Dim::Unknown })
                        .collect(),
                ),
                _ => None,
            },
        },
        (Ty::Sequence(x), Ty::Sequence(y)) => Ty::Sequence(Box::new(unify(x, y)?)),
        (Ty::Optional(x), Ty::Optional(y)) => Ty::Optional(Box::new(unify(x, y)?)),
        _ if a == b => a.clone(),
        _ => return None,
    })
}

/// `If`: each result is what both branches give.
pub fn if_(node: &mut Node) -> Rule {
    let (Some(then), Some(other)) = (node.graph("then_branch"), node.graph("else_branch")) else {
        return Ok(());
    };
    let a = node.subgraph(then, &[]);
    let b = node.subgraph(other, &[]);
    // Each branch gives every result of the node.
    let results = node.outputs.len();
    for (branch, count) in [("then_branch", a.len()), ("else_branch", b.len())] {
        body_results(branch, count, results)?;
    }
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        let ty = match (x, y) {
            (Some(x), Some(y)) => unify(x, y),
            _ => None,
        };
        if let Some(ty) = ty {
            node.set(i, ty);
        }
    }
    Ok(())
}

/// A conflict where the subgraph `name` gives `count` results and the node takes `expected`.
pub(super) fn body_results(name: &str, count: usize, expected: usize) -> Rule {
    if count == expected {
        return Ok(());
    }
    Err(Conflict {
        input: None,
        message: format!(
            "{name} gives {count} result{}, but the node takes {expected}",
            if count == 1 { "" } else { "s" }
        ),
    })
}

/// The type of a value whose shape is not passed on: a loop-carried value may change it from
/// one iteration to the next.
fn without_shape(ty: &Ty) -> Ty {
    match ty {
        Ty::Tensor { elem, .. } => Ty::tensor(*elem, None),
        Ty::Sequence(inner) => Ty::Sequence(Box::new(without_shape(inner))),
        Ty::Optional(inner) => Ty::Optional(Box::new(without_shape(inner))),
        other => other.clone(),
    }
}

/// `Loop`: the carried values as the body leaves them, and each scan output stacked along a
/// new first axis of unknown length.
pub fn loop_(node: &mut Node) -> Rule {
    let Some(body) = node.graph("body") else {
        return Ok(());
    };
    let carried = node.inputs.len().saturating_sub(2);
    // The loop-carried values start from their operands.
    node.written(2..node.inputs.len())?;
    if body.input.len() != carried + 2 {
        return Err(Conflict {
            input: None,
            message: format!(
                "the body takes {} inputs, but the iteration number, the condition and {carried} \
                 loop-carried value{} make {}",
                body.input.len(),
                if carried == 1 { "" } else { "s" },
                carried + 2
            ),
        });
    }
    // The body sees the iteration number, the condition as passed, and the loop-carried
    // values without their shapes, which may change from one iteration to the next.
    let mut inputs = vec![Some(Ty::tensor(dtype::INT64, None)), node.input(1).cloned()];
    inputs.extend((0..carried).map(|i| node.input(i + 2).map(without_shape)));
    let outputs = node.subgraph(body, &inputs);
    // The body gives the condition, then every result of the node.
    body_results("the body", outputs.len(), node.outputs.len() + 1)?;
    for i in 0..node.outputs.len() {
        let Some(Some(ty)) = outputs.get(i + 1) else {
            continue;
        };
        let ty = if i < carried {
            match node.input(i + 2) {
                Some(initial) => unify(initial, ty),
                None => Some(ty.clone()),
            }
        } else {
            match ty {
                Ty::Tensor { elem, shape } => Some(Ty::Tensor {
                    elem: *elem,
                    shape: shape.as_ref().map(|s| {
                        std::iter::once(Dim::Unknown)
                            .chain(s.iter().cloned())
                            .collect()
                    }),
                }),
                _ => None,
            }
        };
        if let Some(ty) = ty {
            node.set(i, ty);
        }
    }
    Ok(())
}

/// `Scan` (opset 9 and later): the states as the body leaves them, and the scan outputs
/// stacked along their axis, as long as the scanned axis.
pub fn scan(node: &mut Node) -> Rule {
    let Some(body) = node.graph("body") else {
        return Ok(());
    };
    if node.opset < 9 {
        return scan_batched(node, body);
    }
    // Every state and scanned sequence is a body input's.
    node.written(0..node.inputs.len())?;
    let scans = node.int("num_scan_inputs", 0).max(0) as usize;
    let states = node.inputs.len().saturating_sub(scans);
    // Each list, where given, has one value per scanned input, or per scan output.
    let scan_outputs = node.outputs.len().saturating_sub(states);
    for (name, count, what) in [
        ("scan_input_axes", scans, "scanned input"),
        ("scan_input_directions", scans, "scanned input"),
        ("scan_output_axes", scan_outputs, "scan output"),
        ("scan_output_directions", scan_outputs, "scan output"),
    ] {
        if let Some(list) = node.int_list(name)
            && list.len() != count
        {
            return Err(Conflict {
                input: None,
                message: format!(
                    "`{name}` has {} values, but the node has {count} {what}{}",
                    list.len(),
                    if count == 1 { "" } else { "s" }
                ),
            });
        }
    }
    let in_axes = node.int_list("scan_input_axes").unwrap_or_default();
    let out_axes = node.int_list("scan_output_axes").unwrap_or_default();
    let mut length = Dim::Unknown;
    let mut inputs: Vec<Option<Ty>> = (0..states).map(|i| node.input(i).cloned()).collect();
    for j in 0..scans {
        let Some(ty) = node.input(states + j).cloned() else {
            inputs.push(None);
            continue;
        };
        let Some(dims) = ty.dims().map(<[Dim]>::to_vec) else {
            inputs.push(Some(Ty::tensor(ty.elem().unwrap_or(0), None)));
            continue;
        };
        let axis = in_axes.get(j).copied().unwrap_or(0);
        let axis = node.axis(axis, dims.len(), states + j)?;
        if j == 0 {
            length = dims[axis].clone();
        }
        let mut slice = dims;
        slice.remove(axis);
        inputs.push(Some(Ty::tensor(ty.elem().unwrap_or(0), Some(slice))));
    }
    let outputs = node.subgraph(body, &inputs);
    body_results("the body", outputs.len(), node.outputs.len())?;
    for (i, ty) in outputs.into_iter().enumerate() {
        let Some(ty) = ty else {
            continue;
        };
        if i < states {
            node.set(i, ty);
            continue;
        }
        let Some(dims) = ty.dims().map(<[Dim]>::to_vec) else {
            continue;
        };
        let axis = out_axes.get(i - states).copied().unwrap_or(0);
        let Ok(axis) = node.axis(axis, dims.len() + 1, 0) else {
            continue;
        };
        let mut out = dims;
        out.insert(axis, length.clone());
        node.set(i, Ty::tensor(ty.elem().unwrap_or(0), Some(out)));
    }
    Ok(())
}

/// `Scan` before opset 9: operand 0 is the optional sequence lengths, and every state and
/// scanned operand has a batch dim first; the scanned ones are scanned along dim 1. The body
/// sees them without those dims, and its results get them back.
fn scan_batched<'a>(node: &mut Node<'a, '_>, body: &'a GraphProto) -> Rule {
    node.written(1..node.inputs.len())?;
    let operands = node.inputs.len().saturating_sub(1);
    let scans = (node.int("num_scan_inputs", 0).max(0) as usize).min(operands);
    let states = operands - scans;
    let mut batch = Dim::Unknown;
    let mut length = Dim::Unknown;
    let mut inputs = Vec::with_capacity(operands);
    for i in 0..operands {
        let scanned = i >= states;
        let Some(ty) = node.input(1 + i).cloned() else {
            inputs.push(None);
            continue;
        };
        let Some(dims) = ty.dims() else {
            inputs.push(Some(Ty::tensor(ty.elem().unwrap_or(0), None)));
            continue;
        };
        let lead = 1 + usize::from(scanned);
        if dims.len() < lead {
            return Err(conflict(
                1 + i,
                format!(
                    "operand {} needs a batch dim{} before its own, found rank {}",
                    1 + i,
                    if scanned { " and a sequence dim" } else { "" },
                    dims.len()
                ),
            ));
        }
        if batch == Dim::Unknown {
            batch = dims[0].clone();
        }
        if scanned && length == Dim::Unknown {
            length = dims[1].clone();
        }
        inputs.push(Some(Ty::tensor(
            ty.elem().unwrap_or(0),
            Some(dims[lead..].to_vec()),
        )));
    }
    let outputs = node.subgraph(body, &inputs);
    body_results("the body", outputs.len(), node.outputs.len())?;
    for (i, ty) in outputs.into_iter().enumerate() {
        let Some(ty) = ty else {
            continue;
        };
        let Some(dims) = ty.dims() else {
            continue;
        };
        let mut out = vec![batch.clone()];
        if i >= states {
            out.push(length.clone());
        }
        out.extend(dims.iter().cloned());
        node.set(i, Ty::tensor(ty.elem().unwrap_or(0), Some(out)));
    }
    Ok(())
}
