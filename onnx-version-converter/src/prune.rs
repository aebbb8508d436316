//! The nodes a conversion made dead: a `Constant`, or a node computed from constants only
//! (`fold`), whose value an attribute now holds (`axes` of Unsqueeze, Squeeze and the
//! reductions, `split`, `pads`, … moved back from an input on the way down), or a node the
//! converter added whose outputs nothing reads any more.
//!
//! A value is read if a node reads it, in any graph or subgraph (an `If`, `Loop` or `Scan` body
//! can read an outer value by name), in any function, or if it is a graph's or a function's
//! output. The names are taken model-wide, not per scope: a name read anywhere keeps its node,
//! which can only keep more than needed.
//!
//! A `Constant` that nothing read in the model given is the user's and is kept as it is (and
//! converted, or refused, as any node); only one that the conversion left unread is removed.

use std::collections::HashSet;

use onnx_runtime_types::{GraphProto, ModelProto, NodeProto};

/// The names a model reads and the names it defines.
#[derive(Default)]
pub(crate) struct Names {
    pub read: HashSet<String>,
    pub defined: HashSet<String>,
}

impl Names {
    pub fn of(model: &ModelProto) -> Names {
        let mut names = Names::default();
        if let Some(graph) = &model.graph {
            names.graph(graph);
        }
        for function in &model.functions {
            names.defined.extend(function.input.iter().cloned());
            names.read.extend(function.output.iter().cloned());
            for node in &function.node {
                names.node(node);
            }
        }
        names
    }

    fn graph(&mut self, graph: &GraphProto) {
        self.defined
            .extend(graph.input.iter().filter_map(|v| v.name.clone()));
        self.defined
            .extend(graph.initializer.iter().filter_map(|t| t.name.clone()));
        self.read
            .extend(graph.output.iter().filter_map(|v| v.name.clone()));
        for node in &graph.node {
            self.node(node);
        }
    }

    fn node(&mut self, node: &NodeProto) {
        self.defined.extend(node.output.iter().cloned());
        let mut read = Vec::new();
        reads(node, &mut read);
        self.read.extend(read);
    }
}

/// The names `node` reads: its inputs, and what its subgraphs read (their outputs included).
pub(crate) fn reads(node: &NodeProto, into: &mut Vec<String>) {
    into.extend(node.input.iter().filter(|i| !i.is_empty()).cloned());
    for attribute in &node.attribute {
        for graph in attribute.g.iter().map(|g| &**g).chain(&attribute.graphs) {
            into.extend(graph.output.iter().filter_map(|v| v.name.clone()));
            for inner in &graph.node {
                reads(inner, into);
            }
        }
    }
}

fn is_constant(node: &NodeProto) -> bool {
    node.op_type.as_deref() == Some("Constant")
        && matches!(node.domain.as_deref(), None | Some("" | "ai.onnx"))
}

/// Whether a node the conversion left with `outputs` may go: nothing reads them now, and either
/// something read one of them before (a `Constant` made dead) or none existed before (a node the
/// converter added).
pub(crate) fn dead(outputs: &[String], constant: bool, before: &Names, now: &Names) -> bool {
    let outputs: Vec<&String> = outputs.iter().filter(|o| !o.is_empty()).collect();
    if outputs.is_empty() || outputs.iter().any(|o| now.read.contains(*o)) {
        return false;
    }
    let added = outputs.iter().all(|o| !before.defined.contains(*o));
    added || (constant && outputs.iter().any(|o| before.read.contains(*o)))
}

/// Removes the dead nodes of `model` (after [`dead`]) until none is left, and the dead
/// initializers among `moved` (Constants the conversion moved to initializers); `also_read`
/// are names that refused nodes, absent from the model, read. The nodes whose outputs are in
/// `computed` (computed from constants only) go as Constants do. Returns the names of the
/// model left.
pub(crate) fn prune(
    model: &mut ModelProto,
    before: &Names,
    also_read: &[String],
    moved: &HashSet<String>,
    computed: &HashSet<String>,
) -> Names {
    loop {
        let mut now = Names::of(model);
        now.read.extend(also_read.iter().cloned());
        let mut removed = false;
        let mut keep = |outputs: &[String], constant: bool| {
            let pure = constant || outputs.iter().any(|o| computed.contains(o));
            let gone = dead(outputs, pure, before, &now);
            removed |= gone;
            !gone
        };
        if let Some(graph) = model.graph.as_mut() {
            prune_graph(graph, moved, &mut keep);
        }
        for function in &mut model.functions {
            function.node.retain(|n| keep(&n.output, is_constant(n)));
        }
        if !removed {
            return now;
        }
    }
}

fn prune_graph(
    graph: &mut GraphProto,
    moved: &HashSet<String>,
    keep: &mut impl FnMut(&[String], bool) -> bool,
) {
    graph.node.retain(|n| keep(&n.output, is_constant(n)));
    graph.initializer.retain(|t| {
        let name = t.name.clone().unwrap_or_default();
        !moved.contains(&name) || keep(&[name], true)
    });
    for node in &mut graph.node {
        for attribute in &mut node.attribute {
            for inner in attribute.g.iter_mut().map(|g| &mut **g) {
                prune_graph(inner, moved, keep);
            }
            for inner in &mut attribute.graphs {
                prune_graph(inner, moved, keep);
            }
        }
    }
}
