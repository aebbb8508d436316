//! What the converter refuses, and why: every node it cannot convert, or the model-level problem
//! that stops it before any node (a target out of range, an unknown domain).

use std::fmt;

/// Why a conversion failed. A model-level problem stops everything; otherwise every node that
/// cannot be converted is listed, and no model is returned.
///
/// ```
/// use onnx_version_converter::{Error, convert_version};
/// let model = onnx_syntax::parse_model(r#"<ir_version: 8, opset_import: ["" : 13]>
///     g (bfloat16[2] x) => (bfloat16[2] y) { y = Abs (x) }"#)?;
/// let Err(Error::Nodes(refusals)) = convert_version(&model, 12) else { panic!() };
/// assert_eq!(refusals[0].to_string(),
///     "graph `g`, node 0 (Abs, outputs `y`): the element type bfloat16 does not exist for Abs before opset 13");
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    /// The target is below 1 or above the newest opset of its domain.
    TargetOutOfRange {
        /// The domain (`""` for the default one).
        domain: String,
        /// The target asked for.
        target: i64,
        /// The newest opset of the domain.
        newest: i64,
    },
    /// A target names a domain that is not a standard one the converter knows.
    UnknownDomain(String),
    /// The model does not import the domain that a target names (for the default domain: a
    /// model without a default-domain import).
    NotImported(String),
    /// The nodes that cannot be converted, each with its reason.
    Nodes(Vec<Refusal>),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::TargetOutOfRange {
                domain,
                target,
                newest,
            } => write!(
                f,
                "opset {target} of {} does not exist: opsets go from 1 to {newest}",
                domain_name(domain)
            ),
            Error::UnknownDomain(domain) => write!(
                f,
                "the converter knows the domains ai.onnx and ai.onnx.ml, not `{domain}`"
            ),
            Error::NotImported(domain) => {
                write!(f, "the model does not import {}", domain_name(domain))
            }
            Error::Nodes(refusals) => {
                let noun = if refusals.len() == 1 { "node" } else { "nodes" };
                write!(f, "{} {noun} cannot be converted:", refusals.len())?;
                for refusal in refusals {
                    write!(f, "\n  {refusal}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for Error {}

fn domain_name(domain: &str) -> &str {
    if domain.is_empty() { "ai.onnx" } else { domain }
}

/// One node that cannot be converted: where it is and why.
///
/// ```
/// use onnx_version_converter::{Error, Reason, convert_version};
/// let model = onnx_syntax::parse_model(r#"<ir_version: 8, opset_import: ["" : 13]>
///     g (float[2, 3] x, int64[1] axes) => (float[2] y) { y = Squeeze (x, axes) }"#)?;
/// let Err(Error::Nodes(refusals)) = convert_version(&model, 12) else { panic!() };
/// assert_eq!((refusals[0].node, refusals[0].operator.as_str()), (0, "Squeeze"));
/// assert!(matches!(refusals[0].reason, Reason::RuntimeInput { .. }));
/// assert_eq!(refusals[0].reason.to_string(),
///     "`axes` is computed at run time and opset 12 needs it as an attribute");
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal {
    /// The graph (its name; subgraphs as `outer/node/attribute`) or function (`domain.Name`).
    pub graph: String,
    /// The index of the node in that graph's or function's node list.
    pub node: usize,
    /// The node's operator.
    pub operator: String,
    /// The node's outputs.
    pub outputs: Vec<String>,
    /// Why it cannot be converted.
    pub reason: Reason,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let outputs: Vec<String> = self.outputs.iter().map(|o| format!("`{o}`")).collect();
        write!(
            f,
            "graph `{}`, node {} ({}, outputs {}): {}",
            self.graph,
            self.node,
            self.operator,
            outputs.join(", "),
            self.reason
        )
    }
}

/// Why one node cannot be converted: a closed set of kinds, each with its message.
///
/// ```
/// use onnx_version_converter::Reason;
/// let reason = Reason::ElementType { ty: "bfloat16".into(), operator: "Abs".into(), since: Some(13), opset: 12 };
/// assert_eq!(reason.to_string(), "the element type bfloat16 does not exist for Abs before opset 13");
/// assert_eq!(reason.kind(), "element_type");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Reason {
    /// An operand's element type that the target's schema does not allow.
    ElementType {
        /// The element type (`bfloat16`).
        ty: String,
        /// The operator.
        operator: String,
        /// The first opset after the target whose schema allows it, if any does.
        since: Option<i64>,
        /// The target.
        opset: i64,
    },
    /// An operand's element type is unknown, and the target's schema does not take every type
    /// the source's does.
    UnknownType {
        /// The operand.
        value: String,
        /// The target.
        opset: i64,
    },
    /// An attribute that the target's schema lacks, set to a value other than the one the
    /// target's behaviour amounts to.
    Attribute {
        /// The attribute.
        name: String,
        /// The target.
        opset: i64,
    },
    /// A string attribute value that the target's version does not know (Resize's modes).
    AttributeValue {
        /// The attribute.
        name: String,
        /// The value.
        value: String,
        /// The target.
        opset: i64,
    },
    /// An input that the target needs as an attribute, computed at run time.
    RuntimeInput {
        /// The formal input (`axes`).
        input: String,
        /// The opset that needs it as an attribute.
        opset: i64,
    },
    /// An input that the target's schema does not have, given.
    Input {
        /// The formal input, or its position.
        input: String,
        /// The target.
        opset: i64,
    },
    /// A static fact (a rank) the rewrite needs is unknown.
    Unknown {
        /// What is unknown (`the rank of `x``).
        what: String,
        /// What needs it.
        needed_by: String,
    },
    /// The operator does not exist at the target, and cannot be expanded.
    NotAtTarget {
        /// The operator.
        operator: String,
        /// The target.
        opset: i64,
        /// Its first version, if after the target.
        since: Option<i64>,
    },
    /// The operator exists at neither the source nor in the schema table.
    UnknownOperator {
        /// The operator.
        operator: String,
        /// The source opset.
        opset: i64,
    },
    /// The node's meaning has no exact form at the target, or its attributes are not
    /// well-formed enough to rewrite (a tree ensemble's node arrays, a set-membership branch
    /// before ai.onnx.ml 5, doubles that floats cannot hold).
    Inexact {
        /// What cannot be said exactly, and why.
        what: String,
        /// The target.
        opset: i64,
    },
    /// A version step whose meaning changed and that has no adapter yet (a stated refusal).
    NoAdapter {
        /// The operator.
        operator: String,
        /// From this version.
        from: i64,
        /// To this one.
        to: i64,
        /// What changed.
        why: &'static str,
    },
}

impl Reason {
    /// The kind's stable name, as the release test's expectation file lists it.
    ///
    /// ```
    /// use onnx_version_converter::Reason;
    /// let reason = Reason::RuntimeInput { input: "axes".into(), opset: 12 };
    /// assert_eq!(reason.kind(), "runtime_input");
    /// ```
    pub fn kind(&self) -> &'static str {
        match self {
            Reason::ElementType { .. } => "element_type",
            Reason::UnknownType { .. } => "unknown_type",
            Reason::Attribute { .. } => "attribute",
            Reason::AttributeValue { .. } => "attribute_value",
            Reason::RuntimeInput { .. } => "runtime_input",
            Reason::Input { .. } => "input",
            Reason::Unknown { .. } => "unknown_fact",
            Reason::NotAtTarget { .. } => "not_at_target",
            Reason::UnknownOperator { .. } => "unknown_operator",
            Reason::Inexact { .. } => "inexact",
            Reason::NoAdapter { .. } => "no_adapter",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::ElementType {
                ty,
                operator,
                since: Some(since),
                ..
            } => write!(
                f,
                "the element type {ty} does not exist for {operator} before opset {since}"
            ),
            Reason::ElementType {
                ty,
                operator,
                since: None,
                opset,
            } => write!(
                f,
                "the element type {ty} does not exist for {operator} at opset {opset}"
            ),
            Reason::UnknownType { value, opset } => write!(
                f,
                "the element type of `{value}` is unknown, and opset {opset} does not take every type"
            ),
            Reason::Attribute { name, opset } => write!(
                f,
                "`{name}` has no equivalent at opset {opset}: its value is not the default"
            ),
            Reason::AttributeValue { name, value, opset } => {
                write!(f, "`{name}` = \"{value}\" does not exist at opset {opset}")
            }
            Reason::RuntimeInput { input, opset } => write!(
                f,
                "`{input}` is computed at run time and opset {opset} needs it as an attribute"
            ),
            Reason::Input { input, opset } => {
                write!(f, "the input `{input}` does not exist at opset {opset}")
            }
            Reason::Unknown { what, needed_by } => {
                write!(f, "{what} is unknown, and {needed_by} needs it")
            }
            Reason::NotAtTarget {
                operator,
                opset,
                since,
            } => match since {
                Some(since) => write!(
                    f,
                    "{operator} does not exist before opset {since}, and has no function body that opset {opset} can run"
                ),
                None => write!(
                    f,
                    "{operator} was removed before opset {opset}, and nothing replaces it"
                ),
            },
            Reason::UnknownOperator { operator, opset } => {
                write!(f, "{operator} is not an operator of opset {opset}")
            }
            Reason::Inexact { what, opset } => {
                write!(f, "opset {opset} cannot say this exactly: {what}")
            }
            Reason::NoAdapter {
                operator,
                from,
                to,
                why,
            } => write!(f, "{operator} {from} → {to} has no adapter yet: {why}"),
        }
    }
}
