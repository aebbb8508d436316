//! Downgrade by expansion: an operator that the target does not have yet, with a function
//! body, is replaced by its body (onnx-schema's static bodies, or the ones `expansions/` builds
//! per node; onnx-check's inliner); the driver then converts the body's nodes down in turn.

use std::collections::HashMap;

use onnx_check::library::{FunctionLibrary, Inliner};
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
    // The operator's first version, not the one expanded: the target is below it.
    let first = crate::steps::versions(schema.domain, &operator)
        .and_then(|all| all.iter().find(|s| !s.deprecated))
        .map_or(schema.since, |s| s.since);
    let not_at_target = || Reason::NotAtTarget {
        operator: operator.clone(),
        opset: target,
        since: Some(first),
    };
    let built;
    let body = match onnx_schema::standard_function(&operator, schema.since) {
        Some(body) => body,
        None => {
            built = crate::expansions::body(&node, schema.since, context, target)
                .ok_or_else(not_at_target)??;
            &built
        }
    };
    let is_built = body.domain.as_deref() == Some(crate::expansions::DOMAIN);
    let body_opset = crate::driver::imported(&body.opset_import, "").ok_or_else(not_at_target)?;
    let mut call = node.clone();
    if is_built {
        call.domain = Some(crate::expansions::DOMAIN.to_owned());
    }
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
        node: vec![call],
        ..Default::default()
    };
    // A built body is called from its own domain, in a graph at the body's opset; a static
    // one is expanded from the operator's.
    let mut imports = vec![OperatorSetIdProto {
        domain: Some(String::new()),
        version: Some(if is_built { body_opset } else { schema.since }),
    }];
    let library;
    let inliner = if is_built {
        imports.push(OperatorSetIdProto {
            domain: Some(crate::expansions::DOMAIN.to_owned()),
            version: Some(1),
        });
        library = FunctionLibrary::from_functions([body.clone()]).map_err(|_| not_at_target())?;
        Inliner::new().library(&library)
    } else {
        Inliner::new().expand(&operator)
    };
    inliner
        .graph(&mut graph, &mut imports)
        .map_err(|_| not_at_target())?;
    // The inliner's names are fresh within this small graph only: the model's own are given.
    let outer: HashMap<&str, &str> = (node.input.iter().chain(&node.output))
        .map(|name| (name.as_str(), name.as_str()))
        .collect();
    let mut nodes = graph.node;
    rename(context, &mut nodes, &outer);
    Ok((nodes, body_opset))
}

/// Renames the values of `nodes`, a body or a rule written as text, for the graph they go
/// into: a name of `given` to the name it maps to, every other value a node computes to a
/// fresh name made from its own, so that no two bodies or rules clash with each other or with
/// the model. The converter's one renamer: expansions and the adapters' rules
/// (`adapters::instantiate`) both go through it.
pub(crate) fn rename(context: &mut Context, nodes: &mut [NodeProto], given: &HashMap<&str, &str>) {
    let mut names: HashMap<String, String> = given
        .iter()
        .map(|(&from, &to)| (from.to_owned(), to.to_owned()))
        .collect();
    for body_node in nodes.iter() {
        for output in &body_node.output {
            if !output.is_empty() && !names.contains_key(output) {
                let fresh = context.fresh(output);
                names.insert(output.clone(), fresh);
            }
        }
    }
    for body_node in nodes.iter_mut() {
        for name in body_node
            .input
            .iter_mut()
            .chain(body_node.output.iter_mut())
        {
            if let Some(renamed) = names.get(name.as_str()) {
                name.clone_from(renamed);
            }
        }
    }
}
