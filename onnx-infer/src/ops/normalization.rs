//! Normalisation and regularisation: `BatchNormalization`, `LayerNormalization`, `Dropout`.

use crate::node::{Node, Rule, conflict, dtype};
use crate::ty::{Dim, show_shape};

/// `BatchNormalization`: the input's type; in training mode the running statistics have the
/// scale's shape. From opset 14 the scale, bias, mean and variance are vectors with one value
/// per channel (an input of rank 0 or 1 has one channel).
pub fn batch_norm(node: &mut Node) -> Rule {
    node.same_as_input(0, 0);
    if node.opset >= 14 {
        let names = ["scale", "B", "input_mean", "input_var"];
        let mut channels = match node.dims(0) {
            Some(x) if x.len() > 1 => x[1].clone(),
            Some(_) => Dim::Known(1),
            None => Dim::Unknown,
        };
        for (i, name) in (1..).zip(names) {
            let Some(dims) = node.ranked(i, name, &[1])? else {
                continue;
            };
            if !dims[0].compatible(&channels) {
                return Err(conflict(
                    i,
                    format!(
                        "operand {i} ({name}) {} must have one value per channel, {channels}",
                        show_shape(dims)
                    ),
                ));
            }
            if channels.known().is_none() && dims[0].known().is_some() {
                channels = dims[0].clone();
            }
        }
    }
    if node.opset >= 14 {
        // Only training mode has the running statistics as results.
        let training = node.int("training_mode", 0) != 0;
        let wanted = if training { 3 } else { 1 };
        let found = node.proto.output.len();
        if found != wanted {
            let mode = if training {
                "in training mode"
            } else {
                "outside training mode"
            };
            return Err(conflict(
                0,
                format!("{mode} the operator has {wanted} results, found {found}"),
            ));
        }
    }
    let channels = node.dim(0, 1);
    let elem = node.elem(1).or(node.elem(0));
    for i in 1..node.outputs.len().min(5) {
        node.set_tensor(i, elem, Some(vec![channels.clone()]));
    }
    Ok(())
}

/// `LayerNormalization`: the input's type; the mean and inverse deviation keep the dims
/// before `axis` and have 1 after.
pub fn layer_norm(node: &mut Node) -> Rule {
    node.same_as_input(0, 0);
    if node.outputs.len() < 2 {
        return Ok(());
    }
    let elem = if node.opset >= 17 {
        node.attr("stash_type")
            .and_then(|a| a.i)
            .map(|i| i as i32)
            .or(Some(dtype::FLOAT))
    } else {
        node.elem(0)
    };
    let shape = match node.shape_of(0) {
        Some(dims) => {
            let axis = node.axis(node.int("axis", -1), dims.len(), 0)?;
            Some(
                dims.iter()
                    .enumerate()
                    .map(|(i, d)| if i < axis { d.clone() } else { Dim::Known(1) })
                    .collect(),
            )
        }
        None => None,
    };
    for i in 1..node.outputs.len() {
        node.set_tensor(i, elem, shape.clone());
    }
    Ok(())
}

/// `Dropout`: the input's type; the mask is bool of its shape.
pub fn dropout(node: &mut Node) -> Rule {
    node.same_as_input(0, 0);
    if node.outputs.len() > 1 {
        let shape = node.shape_of(0);
        let elem = if node.opset >= 12 || node.opset < 7 {
            dtype::BOOL
        } else {
            node.elem(0).unwrap_or(0)
        };
        if node.input(0).is_some() {
            node.set_tensor(1, Some(elem), shape);
        }
    }
    Ok(())
}
