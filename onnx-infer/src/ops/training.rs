//! Training: the losses and the preview training domain's optimizers.

use crate::node::{Node, Rule, conflict};
use crate::ty::show_shape;

use super::elementwise::general;

/// `NegativeLogLikelihoodLoss`: the input is `[N, C, d1, ..., dk]`, the target
/// `[N, d1, ..., dk]` and the weight `[C]`; the loss has the target's shape without
/// reduction, else it is a scalar.
pub fn nll_loss(node: &mut Node) -> Rule {
    let (Some(x), Some(target)) = (node.dims(0), node.dims(1)) else {
        return loss(node);
    };
    node.rank_at_least(0, "input", 2)?;
    node.ranked(1, "target", &[x.len() - 1])?;
    // Target dim i is input dim i + 1, but for the batch.
    for (i, t) in target.iter().enumerate() {
        let k = if i == 0 { 0 } else { i + 1 };
        if !t.compatible(&x[k]) {
            return Err(conflict(
                1,
                format!(
                    "dim {i} of the target {} is {t}, but dim {k} of the input {} is {}",
                    show_shape(target),
                    show_shape(x),
                    x[k]
                ),
            ));
        }
    }
    // One weight per class (onnx's inference checks it from opset 22 on; the operator's
    // definition at every version).
    if node.has_input(2)
        && let Some(weight) = node.ranked(2, "weight", &[1])?
        && !weight[0].compatible(&x[1])
    {
        return Err(conflict(
            2,
            format!(
                "the weight {} has one value per class, the input {} has {} classes",
                show_shape(weight),
                show_shape(x),
                x[1]
            ),
        ));
    }
    loss(node)
}

/// A loss's type: the target's shape without reduction, else a scalar.
fn loss(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let none = node.string("reduction").is_some_and(|r| r == b"none");
    let shape = if none {
        node.shape_of(1)
    } else {
        Some(Vec::new())
    };
    node.set_tensor(0, elem, shape);
    Ok(())
}

/// `SoftmaxCrossEntropyLoss`: the loss as [`nll_loss`] types it, and the log-probabilities
/// of the scores' type.
pub fn softmax_cross_entropy(node: &mut Node) -> Rule {
    loss(node)?;
    if node.outputs.len() > 1 {
        node.same_as_input(1, 0);
    }
    Ok(())
}

/// `Adagrad`, `Momentum`, `Adam` (ai.onnx.preview.training): after the rate and the step
/// count come `n` tensors, their `n` gradients, then one or two `n`-long groups of state
/// (`Adagrad`'s accumulated squares; `Momentum`'s velocities; `Adam`'s two moments). The
/// results are the new tensors, then the new state groups, each of its input's type.
pub fn optimizer(node: &mut Node) -> Rule {
    let groups = match node.proto.op_type.as_deref() {
        Some("Adam") => 4,
        _ => 3,
    };
    let operands = node.inputs.len().saturating_sub(2);
    if !operands.is_multiple_of(groups) {
        return Err(general(format!(
            "after the rate and the step count come {groups} groups of one operand per tensor \
             to optimize (the tensors, their gradients, then the state), found {operands} \
             operands"
        )));
    }
    // Each tensor to optimize, gradient and state goes into a result's type.
    node.written(2..node.inputs.len())?;
    let n = operands / groups;
    for out in 0..node.outputs.len() {
        let (group, j) = (out / n.max(1), out % n.max(1));
        // The gradients (group 1 of the inputs) have no result of their own.
        let input_group = if group == 0 { 0 } else { group + 1 };
        node.same_as_input(out, 2 + input_group * n + j);
    }
    Ok(())
}
