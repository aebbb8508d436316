//! The bodies onnx builds per node ("context-dependent" function bodies: Gelu,
//! LayerNormalization, the losses, Attention, …), written here in ONNX text and checked at
//! compile time by the project's macros, one file per operator family.
//!
//! A builder reads what the body depends on (the node's attributes, which optional inputs and
//! outputs it has, the element types the context knows) and picks or fills in a body. The body
//! is a function of domain [`DOMAIN`] named as the operator, with the operator's attributes
//! declared (and referenced inside with `@name`), so that `expand` inlines the node through it
//! as through a static body.

mod attention;
mod causal_conv;
mod gelu;
mod linear_attention;
mod losses;
mod misc;
mod normalization;
mod quantization;
mod rotary;

use onnx_runtime_types::{FunctionProto, NodeProto};
use onnx_text::onnx_nodes;

use crate::context::Context;
use crate::error::Reason;

/// The private domain of the built bodies; nothing outside the converter sees it.
pub(crate) const DOMAIN: &str = "onnx_text.expansion";

/// The body of `node` (an operator of the default domain whose schema is the one since
/// `since`), to be converted to opset `target`, or `None` where no builder exists.
pub(crate) fn body(
    node: &NodeProto,
    since: i64,
    context: &Context,
    target: i64,
) -> Option<Result<FunctionProto, Reason>> {
    match (node.op_type.as_deref()?, since) {
        ("Attention", 23..=25) => Some(attention::attention(node, context, target)),
        ("RotaryEmbedding", 23) => Some(rotary::rotary_embedding(node, context)),
        ("LinearAttention", 27) => Some(linear_attention::linear_attention(node, context, target)),
        ("CausalConvWithState", 27) => {
            Some(causal_conv::causal_conv_with_state(node, context, target))
        }
        ("Gelu", 20) => Some(gelu::gelu(node, target)),
        ("NegativeLogLikelihoodLoss", 12 | 13 | 22) => {
            Some(losses::negative_log_likelihood_loss(node, context, target))
        }
        ("SoftmaxCrossEntropyLoss", 12 | 13) => Some(losses::softmax_cross_entropy_loss(node)),
        ("CenterCropPad", 18) => Some(Ok(misc::center_crop_pad(node))),
        ("Celu", 12) => Some(Ok(misc::celu())),
        ("Bernoulli", 15) => Some(misc::bernoulli(node, context)),
        ("LayerNormalization", 17) => {
            Some(normalization::layer_normalization(node, context, target))
        }
        ("RMSNormalization", 23) => Some(normalization::rms_normalization(node, context, target)),
        ("DequantizeLinear", _) => Some(quantization::dequantize_linear(node, context, target)),
        ("GroupNormalization", 21) => {
            Some(normalization::group_normalization(node, context, target))
        }
        _ => None,
    }
}

/// Each of the heads of `input` (batch, heads, sequence, `size`) `group` times in a row, as
/// `q_heads` heads.
pub(crate) fn repeat_heads(
    input: &str,
    group: i64,
    q_heads: i64,
    size: i64,
    output: &str,
) -> Vec<NodeProto> {
    let names =
        ["unsqueezed", "axis", "repeats", "tiled", "shape"].map(|n| format!("{output}_{n}"));
    let [unsqueezed, axis, repeats, tiled, shape] = &names;
    onnx_nodes! {
        #axis = Constant <value = int64[1] {2}> ()
        #unsqueezed = Unsqueeze (#input, #axis)
        #repeats = Constant <value = int64[5] {1, 1, #group, 1, 1}> ()
        #tiled = Tile (#unsqueezed, #repeats)
        #shape = Constant <value = int64[4] {0, #q_heads, -1, #size}> ()
        #output = Reshape (#tiled, #shape)
    }
}

/// `(batch, sequence, heads · size)` → `(batch, heads, sequence, size)`.
pub(crate) fn split_heads(input: &str, heads: i64, output: &str) -> Vec<NodeProto> {
    let (shape, split) = (format!("{output}_shape"), format!("{output}_split"));
    onnx_nodes! {
        #shape = Constant <value = int64[4] {0, 0, #heads, -1}> ()
        #split = Reshape (#input, #shape)
        #output = Transpose <perm = [0, 2, 1, 3]> (#split)
    }
}

/// The string value of `node`'s attribute `name`, or `default`.
pub(crate) fn string_or<'a>(node: &'a NodeProto, name: &str, default: &'a str) -> &'a str {
    crate::context::attribute(node, name)
        .and_then(|a| a.s.as_deref())
        .and_then(|s| std::str::from_utf8(s).ok())
        .unwrap_or(default)
}

/// Whether `node` gives its optional input at `index`.
pub(crate) fn has_input(node: &NodeProto, index: usize) -> bool {
    node.input.get(index).is_some_and(|i| !i.is_empty())
}

/// The integer value of `node`'s attribute `name`, or `default`.
pub(crate) fn int_or(node: &NodeProto, name: &str, default: i64) -> i64 {
    crate::context::attribute(node, name)
        .and_then(|a| a.i)
        .unwrap_or(default)
}

/// The axes from `node`'s `axis` (default -1) to the last of its first input: counted from the
/// front where the rank is known; else a negative `axis` gives them counted from the back, and a
/// non-negative one needs the rank.
pub(crate) fn trailing_axes(
    node: &NodeProto,
    context: &Context,
    target: i64,
) -> Result<Vec<i64>, Reason> {
    let axis = int_or(node, "axis", -1);
    let x = node.input.first().map_or("", String::as_str);
    match context.rank(x).map(|r| r as i64) {
        Some(rank) => Ok((axis_of_rank(axis, rank, target)?..rank).collect()),
        None if axis < 0 => Ok((axis..0).collect()),
        None => Err(Reason::Unknown {
            what: format!("the rank of `{x}`"),
            needed_by: format!(
                "{} with axis {axis}",
                node.op_type.as_deref().unwrap_or_default()
            ),
        }),
    }
}

/// `axis` counted from the front of a rank-`rank` input; one outside the rank is refused.
pub(crate) fn axis_of_rank(axis: i64, rank: i64, target: i64) -> Result<i64, Reason> {
    let from_front = if axis < 0 { axis + rank } else { axis };
    if (0..rank).contains(&from_front) {
        Ok(from_front)
    } else {
        Err(Reason::AttributeValue {
            name: "axis".to_owned(),
            value: axis.to_string(),
            opset: target,
        })
    }
}

/// Converts `model` to `target` and checks that onnx-eval gives the converted model the
/// original's outputs on `inputs` (float outputs, to a relative 1e-5).
#[cfg(test)]
pub(crate) fn assert_converts_same(
    model: &onnx_runtime_types::ModelProto,
    target: i64,
    inputs: &[onnx_eval::Value],
) {
    let converted = crate::convert_version(model, target)
        .unwrap_or_else(|e| panic!("not converted to {target}: {e}"));
    let expected = onnx_eval::run(model, inputs).expect("the original runs");
    let actual = onnx_eval::run(&converted, inputs).expect("the converted model runs");
    assert_eq!(expected.len(), actual.len());
    for (e, a) in expected.iter().zip(&actual) {
        assert_eq!(e.dims(), a.dims(), "at {target}");
        let (e, a) = (e.to_vec::<f32>().unwrap(), a.to_vec::<f32>().unwrap());
        for (x, y) in e.iter().zip(&a) {
            assert!(
                (x - y).abs() <= 1e-5 * x.abs().max(1.0),
                "at {target}: {e:?} vs {a:?}"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(op: &str, attributes: Vec<onnx_runtime_types::AttributeProto>) -> NodeProto {
        NodeProto {
            op_type: Some(op.to_owned()),
            input: vec!["x".to_owned()],
            attribute: attributes,
            ..Default::default()
        }
    }

    #[test]
    fn trailing_axes_from_the_rank_or_from_the_back() {
        let axis = |a| vec![crate::context::int_attribute("axis", a)];
        let mut context = Context::default();
        // Unknown rank: a negative axis counts from the back; a non-negative one needs the rank.
        assert_eq!(
            trailing_axes(&node("LayerNormalization", axis(-2)), &context, 16),
            Ok(vec![-2, -1])
        );
        assert!(matches!(
            trailing_axes(&node("LayerNormalization", axis(1)), &context, 16),
            Err(Reason::Unknown { .. })
        ));
        context.types.entry("x".to_owned()).or_default().rank = Some(4);
        assert_eq!(
            trailing_axes(&node("RMSNormalization", vec![]), &context, 16),
            Ok(vec![3])
        );
        assert_eq!(
            trailing_axes(&node("RMSNormalization", axis(-3)), &context, 16),
            Ok(vec![1, 2, 3])
        );
        assert_eq!(
            trailing_axes(&node("RMSNormalization", axis(2)), &context, 16),
            Ok(vec![2, 3])
        );
        assert!(matches!(
            trailing_axes(&node("RMSNormalization", axis(4)), &context, 16),
            Err(Reason::AttributeValue { .. })
        ));
    }
}
