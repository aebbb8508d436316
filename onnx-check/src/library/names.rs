//! The value names of graphs and nodes, visited in one place for collecting and for renaming,
//! and the generator of fresh names.

use std::collections::{HashMap, HashSet};

use onnx_runtime_types::{GraphProto, NodeProto, SparseTensorProto};

/// Calls `f` on every value name of `graph`: inputs, outputs, initializers, value infos,
/// quantization annotations, and the names of its nodes (with their subgraphs).
pub(super) fn graph_names(graph: &mut GraphProto, f: &mut impl FnMut(&mut String)) {
    for info in graph
        .input
        .iter_mut()
        .chain(&mut graph.output)
        .chain(&mut graph.value_info)
    {
        option_name(&mut info.name, f);
    }
    for tensor in &mut graph.initializer {
        option_name(&mut tensor.name, f);
    }
    for sparse in &mut graph.sparse_initializer {
        sparse_names(sparse, f);
    }
    for annotation in &mut graph.quantization_annotation {
        option_name(&mut annotation.tensor_name, f);
    }
    for node in &mut graph.node {
        node_names(node, f);
    }
}

/// Calls `f` on every input and output name of `node`, and on the names of its subgraphs.
pub(super) fn node_names(node: &mut NodeProto, f: &mut impl FnMut(&mut String)) {
    for name in node.input.iter_mut().chain(&mut node.output) {
        if !name.is_empty() {
            f(name);
        }
    }
    for attribute in &mut node.attribute {
        for graph in attribute
            .g
            .iter_mut()
            .map(|g| &mut **g)
            .chain(&mut attribute.graphs)
        {
            graph_names(graph, f);
        }
    }
}

fn sparse_names(sparse: &mut SparseTensorProto, f: &mut impl FnMut(&mut String)) {
    for tensor in sparse.values.iter_mut().chain(&mut sparse.indices) {
        option_name(&mut tensor.name, f);
    }
}

fn option_name(name: &mut Option<String>, f: &mut impl FnMut(&mut String)) {
    if let Some(name) = name
        && !name.is_empty()
    {
        f(name);
    }
}

/// Makes names unique against a set of names taken: `prefix__base`, then `prefix__base_1`,
/// `prefix__base_2`, … (the next suffix tried is remembered per stem, so many calls of one
/// function take time in proportion to their number).
#[derive(Default)]
pub(super) struct NameGenerator {
    taken: HashSet<String>,
    next_suffix: HashMap<String, usize>,
}

impl NameGenerator {
    /// Marks `name` as taken.
    pub(super) fn take(&mut self, name: &str) {
        if !self.taken.contains(name) {
            self.taken.insert(name.to_owned());
        }
    }

    /// A name not taken yet, made from `prefix` and `base`, and now taken.
    pub(super) fn fresh(&mut self, prefix: &str, base: &str) -> String {
        let stem = format!("{prefix}__{base}");
        let suffix = self.next_suffix.entry(stem.clone()).or_insert(0);
        loop {
            let candidate = if *suffix == 0 {
                stem.clone()
            } else {
                format!("{stem}_{suffix}")
            };
            *suffix += 1;
            if !self.taken.contains(&candidate) {
                self.taken.insert(candidate.clone());
                return candidate;
            }
        }
    }
}

/// The names in force while renaming a body: the function's scope (formals bound to the
/// call's names, the body's own names to fresh ones), then one scope per subgraph entered.
pub(super) struct Scopes<'a> {
    scopes: Vec<HashMap<String, String>>,
    fresh: &'a mut dyn FnMut(&str) -> String,
}

impl<'a> Scopes<'a> {
    /// Scopes with `binding` as the function's; `fresh` makes a new name from a body's name.
    pub(super) fn new(
        binding: HashMap<String, String>,
        fresh: &'a mut dyn FnMut(&str) -> String,
    ) -> Scopes<'a> {
        Scopes {
            scopes: vec![binding],
            fresh,
        }
    }

    /// Renames `name`: what the innermost scope that knows it says, or else a fresh name,
    /// which the innermost scope now knows.
    pub(super) fn rename(&mut self, name: &mut String) {
        if name.is_empty() {
            return;
        }
        if let Some(renamed) = self.scopes.iter().rev().find_map(|s| s.get(name.as_str())) {
            name.clone_from(renamed);
            return;
        }
        let renamed = (self.fresh)(name);
        let innermost = self
            .scopes
            .last_mut()
            .expect("the function's scope is never left");
        innermost.insert(std::mem::replace(name, renamed.clone()), renamed);
    }

    /// Renames the names of a body node and of its subgraphs, in the order they come into
    /// scope: inputs, subgraphs, outputs.
    pub(super) fn rename_node(&mut self, node: &mut NodeProto) {
        for input in &mut node.input {
            self.rename(input);
        }
        for attribute in &mut node.attribute {
            for graph in attribute
                .g
                .iter_mut()
                .map(|g| &mut **g)
                .chain(&mut attribute.graphs)
            {
                self.rename_graph(graph);
            }
        }
        for output in &mut node.output {
            self.rename(output);
        }
    }

    /// Renames a subgraph in a scope of its own: a name it defines that no enclosing scope
    /// knows gets a fresh name here, so sibling subgraphs that reuse a name get two names.
    fn rename_graph(&mut self, graph: &mut GraphProto) {
        self.scopes.push(HashMap::new());
        for info in &mut graph.input {
            option_name(&mut info.name, &mut |n| self.rename(n));
        }
        for tensor in &mut graph.initializer {
            option_name(&mut tensor.name, &mut |n| self.rename(n));
        }
        for sparse in &mut graph.sparse_initializer {
            sparse_names(sparse, &mut |n| self.rename(n));
        }
        for node in &mut graph.node {
            self.rename_node(node);
        }
        for info in graph.output.iter_mut().chain(&mut graph.value_info) {
            option_name(&mut info.name, &mut |n| self.rename(n));
        }
        for annotation in &mut graph.quantization_annotation {
            option_name(&mut annotation.tensor_name, &mut |n| self.rename(n));
        }
        self.scopes.pop();
    }
}
