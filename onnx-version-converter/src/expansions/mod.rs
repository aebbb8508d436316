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
        ("Gelu", 20) => Some(gelu::gelu(node, target)),
        ("Attention", 23..=25) => Some(attention::attention(node, context, target)),
        ("RotaryEmbedding", 23) => Some(rotary::rotary_embedding(node, context)),
        ("LinearAttention", 27) => Some(linear_attention::linear_attention(node, context, target)),
        ("CausalConvWithState", 27) => {
            Some(causal_conv::causal_conv_with_state(node, context, target))
        }
        _ => None,
    }
}

/// The string value of `node`'s attribute `name`, or `default`.
pub(crate) fn string_or<'a>(node: &'a NodeProto, name: &str, default: &'a str) -> &'a str {
    crate::context::attribute(node, name)
        .and_then(|a| a.s.as_deref())
        .and_then(|s| std::str::from_utf8(s).ok())
        .unwrap_or(default)
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
