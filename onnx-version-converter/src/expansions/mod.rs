//! The bodies onnx builds per node ("context-dependent" function bodies: Gelu,
//! LayerNormalization, the losses, Attention, …), written here in ONNX text and checked at
//! compile time by the project's macros, one file per operator family.
//!
//! A builder reads what the body depends on (the node's attributes, which optional inputs and
//! outputs it has, the element types the context knows) and picks or fills in a body. The body
//! is a function of domain [`DOMAIN`] named as the operator, with the operator's attributes
//! declared (and referenced inside with `@name`), so that `expand` inlines the node through it
//! as through a static body.

mod gelu;

use onnx_runtime_types::{FunctionProto, NodeProto};

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
    let _ = context;
    match (node.op_type.as_deref()?, since) {
        ("Gelu", 20) => Some(gelu::gelu(node, target)),
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
