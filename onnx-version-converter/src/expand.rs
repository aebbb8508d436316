//! Downgrade by expansion: an operator that the target does not have yet, with a standard
//! function body, is replaced by its body (onnx-schema's bodies, onnx-check's inliner); the
//! driver then converts the body's nodes down in turn.

use onnx_check::library::Inliner;
use onnx_runtime_types::{GraphProto, NodeProto, OperatorSetIdProto, ValueInfoProto};
use onnx_schema::table::Schema;

use crate::context::Context;
use crate::error::Reason;

/// The nodes of `node`'s function body, with fresh names for its inner values, and the opset
/// of the default domain they are written at.
pub(crate) fn expand(
    context: &mut Context,
    node: NodeProto,
    schema: &Schema,
    target: i64,
) -> Result<(Vec<NodeProto>, i64), Reason> {
    let operator = node.op_type.clone().unwrap_or_default();
    let not_at_target = || Reason::NotAtTarget {
        operator: operator.clone(),
        opset: target,
        since: Some(schema.since),
    };
    let body = onnx_schema::standard_function(&operator, schema.since).ok_or_else(not_at_target)?;
    let body_opset = crate::driver::imported(&body.opset_import, "").ok_or_else(not_at_target)?;
    let value = |name: &String| ValueInfoProto {
        name: Some(name.clone()),
        ..Default::default()
    };
    let mut graph = GraphProto {
        name: Some("expansion".to_owned()),
        input: node
            .input
            .iter()
            .filter(|i| !i.is_empty())
            .map(value)
            .collect(),
        output: node
            .output
            .iter()
            .filter(|o| !o.is_empty())
            .map(value)
            .collect(),
        node: vec![node.clone()],
        ..Default::default()
    };
    let mut imports = vec![OperatorSetIdProto {
        domain: Some(String::new()),
        version: Some(schema.since),
    }];
    Inliner::new()
        .expand(&operator)
        .graph(&mut graph, &mut imports)
        .map_err(|_| not_at_target())?;
    // The inliner's names are fresh within this small graph only: the model's own are given.
    let outer: std::collections::HashSet<&String> = node.input.iter().chain(&node.output).collect();
    let mut renamed = std::collections::HashMap::new();
    for body_node in &graph.node {
        for output in &body_node.output {
            if !output.is_empty() && !outer.contains(output) {
                let fresh = context.fresh(output);
                renamed.insert(output.clone(), fresh);
            }
        }
    }
    let mut nodes = graph.node;
    for body_node in &mut nodes {
        for name in body_node
            .input
            .iter_mut()
            .chain(body_node.output.iter_mut())
        {
            if let Some(fresh) = renamed.get(name) {
                *name = fresh.clone();
            }
        }
    }
    Ok((nodes, body_opset))
}
