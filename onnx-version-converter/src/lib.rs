//! Moves ONNX models between opset versions, up and down, and refuses what it cannot convert
//! exactly: a converted model means what the original meant, or there is no converted model.
//!
//! ```
//! use onnx_version_converter::convert_version;
//! let model = onnx_syntax::parse_model(r#"<ir_version: 7, opset_import: ["" : 11]>
//!     g (float[2, 3] x) => (float[2] y) { y = ReduceSum <axes = [1], keepdims = 0> (x) }"#)?;
//! let upgraded = convert_version(&model, 18)?;
//! assert_eq!(upgraded.opset_import[0].version, Some(18));
//! // `axes` is an input from opset 13: a Constant feeds it.
//! let graph = upgraded.graph.as_ref().unwrap();
//! let ops: Vec<_> = graph.node.iter().map(|n| n.op_type.as_deref().unwrap()).collect();
//! assert_eq!(ops, ["Constant", "ReduceSum"]);
//! // And back down, read from that Constant.
//! let back = convert_version(&upgraded, 11)?;
//! assert_eq!(back.graph.unwrap().node.last().unwrap().attribute.len(), 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The pipeline
//!
//! - `steps`: the step table. Each operator's versions come from the schema table; a step
//!   between neighbouring versions is crossed by an adapter, refused as a whole, or derived:
//!   compatible upward when nothing a node can hold changes, else checked per node.
//! - `driver`: walks the main graph, the subgraphs of `If`, `Loop` and `Scan`, and the
//!   model-local functions, and converts each node step by step to the target's version; an
//!   operator that the target lacks is expanded through its function body (`expand`; the
//!   bodies onnx builds per node are written in ONNX text in `expansions/`).
//! - `compat`: the per-node check: actual element types, operand counts, attribute values.
//! - `adapters/`: the rewrites, one file per operator family; those that make several nodes of
//!   one are rules in ONNX text, beside the Rust that decides when they apply.
//! - `fold`: the small computations from constants (`Concat` of Constants, `Shape` of a
//!   value of known dims, …) that feed an input the target needs as an attribute, evaluated
//!   with `onnx-eval` when an adapter asks for their value.
//! - `prune`: the Constants and the nodes computed from constants that the conversion left
//!   unread (an input moved back to an attribute), and the unread nodes it added, removed once
//!   every node is converted.
//! - `refusals`: the steps whose meaning changed and that no adapter handles yet.
//! - `error`: every node that cannot be converted, with a reason from a closed set.

mod adapters;
mod compat;
mod context;
mod driver;
mod error;
mod expand;
mod expansions;
mod fold;
mod prune;
mod refusals;
pub mod steps;

/// The guide's page on the converter: upgrading a model for a runtime that needs a newer opset,
/// in Rust and at the terminal.
#[doc = include_str!("guide.md")]
pub mod guide {}

pub use error::{Error, Reason, Refusal};

use onnx_runtime_types::ModelProto;

/// Converts `model` to opset `target` of the default domain (`ai.onnx`), up or down. The
/// other domains' imports and nodes are kept as they are.
///
/// Every node that cannot be converted exactly is listed in the error; no partial model is
/// returned.
///
/// ```
/// use onnx_version_converter::{Error, convert_version};
/// let model = onnx_syntax::parse_model(r#"<ir_version: 7, opset_import: ["" : 11]>
///     g (float[2] x) => (float[2] y) { y = Relu (x) }"#)?;
/// assert_eq!(convert_version(&model, 21)?.opset_import[0].version, Some(21));
/// assert!(matches!(convert_version(&model, 0), Err(Error::TargetOutOfRange { .. })));
/// assert!(matches!(convert_version(&model, 1000), Err(Error::TargetOutOfRange { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn convert_version(model: &ModelProto, target: i64) -> Result<ModelProto, Error> {
    convert_opsets(model, &[("", target)])
}

/// Converts `model` to a target per domain: the default domain (`""` or `ai.onnx`) and
/// `ai.onnx.ml`. A domain the model does not import is an error, as is a target out of range.
///
/// ```
/// use onnx_version_converter::{Error, convert_opsets};
/// let model = onnx_syntax::parse_model(r#"<ir_version: 8, opset_import: ["" : 13, "ai.onnx.ml" : 2]>
///     g (float[2] x) => (float[2] y) { y = ai.onnx.ml.Binarizer <threshold = 0.5> (x) }"#)?;
/// let converted = convert_opsets(&model, &[("", 17), ("ai.onnx.ml", 3)])?;
/// assert_eq!(converted.opset_import[1].version, Some(3));
/// assert_eq!(convert_opsets(&model, &[("com.acme", 1)]), Err(Error::UnknownDomain("com.acme".into())));
///
/// // The tree ensembles of ml 1 and 3 become TreeEnsemble at 5 (and back, as a regressor).
/// let trees = onnx_syntax::parse_model(r#"<ir_version: 8, opset_import: ["" : 17, "ai.onnx.ml" : 3]>
///     g (float[N, 2] x) => (float[N, 1] y) {
///         y = ai.onnx.ml.TreeEnsembleRegressor <n_targets = 1, nodes_treeids = [0, 0, 0],
///             nodes_nodeids = [0, 1, 2], nodes_featureids = [0, 0, 0],
///             nodes_modes = ["BRANCH_LEQ", "LEAF", "LEAF"], nodes_values = [0.5, 0.0, 0.0],
///             nodes_truenodeids = [1, 0, 0], nodes_falsenodeids = [2, 0, 0], target_treeids = [0, 0],
///             target_nodeids = [1, 2], target_ids = [0, 0], target_weights = [1.0, 2.0]> (x)
///     }"#)?;
/// let five = convert_opsets(&trees, &[("ai.onnx.ml", 5)])?;
/// assert_eq!(five.graph.as_ref().unwrap().node[0].op_type(), "TreeEnsemble");
/// let back = convert_opsets(&five, &[("ai.onnx.ml", 1)])?;
/// assert_eq!(back.graph.as_ref().unwrap().node[0].op_type(), "TreeEnsembleRegressor");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn convert_opsets(model: &ModelProto, targets: &[(&str, i64)]) -> Result<ModelProto, Error> {
    let moves = moves(model, targets)?;
    driver::convert_model(model.clone(), &moves)
}

/// [`convert_opsets`] of a model the caller gives up: its nodes and tensors move into the
/// converted model instead of being copied, which spares a copy of the weights (100 MB for
/// ResNet-50) and the memory it takes (the CLI's path).
///
/// ```
/// use onnx_version_converter::convert_opsets_owned;
/// let model = onnx_syntax::parse_model(r#"<ir_version: 7, opset_import: ["" : 11]>
///     g (float[2] x) => (float[2] y) { y = Relu (x) }"#)?;
/// assert_eq!(convert_opsets_owned(model, &[("", 21)])?.opset_import[0].version, Some(21));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn convert_opsets_owned(
    model: ModelProto,
    targets: &[(&str, i64)],
) -> Result<ModelProto, Error> {
    let moves = moves(&model, targets)?;
    driver::convert_model(model, &moves)
}

/// The moves `targets` ask of `model`, each checked: a known domain, that the model imports, to a
/// target in range.
fn moves(model: &ModelProto, targets: &[(&str, i64)]) -> Result<Vec<driver::Move>, Error> {
    let mut moves = Vec::with_capacity(targets.len());
    for &(domain, target) in targets {
        let domain: &'static str = match domain {
            "" | "ai.onnx" => "",
            "ai.onnx.ml" => "ai.onnx.ml",
            other => return Err(Error::UnknownDomain(other.to_owned())),
        };
        let newest = onnx_schema::newest_opset(domain).unwrap_or(1);
        if target < 1 || target > newest {
            return Err(Error::TargetOutOfRange {
                domain: domain.to_owned(),
                target,
                newest,
            });
        }
        let from = driver::imported(&model.opset_import, domain)
            .ok_or_else(|| Error::NotImported(domain.to_owned()))?;
        moves.push(driver::Move {
            domain,
            from,
            to: target,
        });
    }
    Ok(moves)
}
