//! Random tensors: `RandomNormal`, `RandomUniform` and their `*Like` forms, `Bernoulli`,
//! `Multinomial`.

use crate::node::{Node, Rule, dtype};
use crate::ty::Dim;

/// `RandomUniformLike`, `RandomNormalLike`, `Bernoulli`, `EyeLike`: the operand's shape, the element
/// type `dtype` or the operand's.
pub fn like(node: &mut Node) -> Rule {
    let elem = node
        .attr("dtype")
        .and_then(|a| a.i)
        .map(|i| i as i32)
        .or(node.elem(0));
    let shape = node.shape_of(0);
    node.set_tensor(0, elem, shape);
    Ok(())
}

/// `RandomUniform`, `RandomNormal`: the shape `shape`, the element type `dtype` (float).
pub fn random(node: &mut Node) -> Rule {
    let elem = node.int("dtype", i64::from(dtype::FLOAT)) as i32;
    let shape = node
        .int_list("shape")
        .map(|s| s.into_iter().map(Dim::Known).collect());
    node.set_tensor(0, Some(elem), shape);
    Ok(())
}

/// `Multinomial`: `[batch, sample_size]` of `dtype` (int32 without it).
pub fn multinomial(node: &mut Node) -> Rule {
    let elem = node.int("dtype", i64::from(dtype::INT32)) as i32;
    let batch = node.dim(0, 0);
    let samples = Dim::Known(node.int("sample_size", 1));
    node.set_tensor(0, Some(elem), Some(vec![batch, samples]));
    Ok(())
}
