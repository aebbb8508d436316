//! `incompatible_shapes` and `shape_mismatch`: shape inference ([`crate::infer`]) over a model
//! or a function library whose other checks passed, with its findings put on the tree's tokens.

use crate::infer::Inference;
use crate::lower;
use crate::span::Span;
use crate::syntax::{Function, Graph, Model, Node, ValueInfo};

use super::walk::Checker;
use super::{Check, Diagnostic};

impl Checker<'_> {
    /// Whether the shape checks run: one of them is on, and nothing else was found, since
    /// inference over a malformed graph would report what those problems cause.
    fn shapes_run(&self) -> bool {
        (self.on(Check::IncompatibleShapes) || self.on(Check::ShapeMismatch))
            && self.found_nothing()
    }

    /// The shape checks of a model: its graph, then each function with a typed signature.
    pub(super) fn model_shapes(&mut self, model: &Model) {
        if !self.shapes_run() {
            return;
        }
        let lowered = lower::model(model.clone());
        let inferred = Inference::of_model(&lowered);
        self.report_shapes(&inferred, "the graph", &model.graph.nodes, |name| {
            graph_declared(&model.graph, name)
        });
        // Spliced functions (`..#library`) have no tree of their own: then nothing lines up.
        if model.functions.len() == lowered.functions.len() {
            for (function, proto) in model.functions.iter().zip(&lowered.functions) {
                let inferred =
                    Inference::of_function(proto, &lowered.opset_import, &lowered.functions);
                self.report_shapes(&inferred, "the function body", &function.nodes, |name| {
                    function_declared(function, name)
                });
            }
        }
    }

    /// The shape checks of functions on their own, each under its own imports.
    pub(super) fn function_shapes(&mut self, functions: &[Function]) {
        if !self.shapes_run() {
            return;
        }
        let lowered: Vec<_> = functions.iter().cloned().map(lower::function).collect();
        for (function, proto) in functions.iter().zip(&lowered) {
            let inferred = Inference::of_function(proto, &[], &lowered);
            self.report_shapes(&inferred, "the function body", &function.nodes, |name| {
                function_declared(function, name)
            });
        }
    }

    /// Puts what inference found on the nodes and declarations it concerns.
    fn report_shapes(
        &mut self,
        inferred: &Inference,
        body: &str,
        nodes: &[Node],
        declared_at: impl Fn(&str) -> Option<Span>,
    ) {
        if self.on(Check::IncompatibleShapes) {
            for error in &inferred.errors {
                let Some(node) = nodes.get(error.node) else {
                    continue;
                };
                let span = error
                    .input
                    .and_then(|i| node.inputs.get(i))
                    .map_or(node.op_span, |input| input.span);
                let check = Check::IncompatibleShapes;
                self.report(Diagnostic::new(check, span, error.message.clone()));
            }
        }
        if self.on(Check::ShapeMismatch) {
            for found in &inferred.mismatches {
                let (Some(declared), Some(node)) =
                    (declared_at(&found.name), nodes.get(found.node))
                else {
                    continue;
                };
                let line = self.line(node.op_span);
                let message = format!(
                    "`{}` is declared {} but {body} computes {} (`{}` at line {line})",
                    found.name, found.declared, found.inferred, node.op_type
                );
                let diagnostic = Diagnostic::new(Check::ShapeMismatch, declared, message)
                    .with_label(node.op_span, format!("computed as {} here", found.inferred));
                self.report(diagnostic);
            }
        }
    }
}

/// The span of the first type among `infos` declared for `name`.
fn type_of<'a>(infos: impl IntoIterator<Item = &'a ValueInfo>, name: &str) -> Option<Span> {
    infos
        .into_iter()
        .filter(|info| info.name.text == name)
        .find_map(|info| info.ty.as_ref().map(|t| t.span))
}

/// The span of the type a graph declares for `name`: an output's, or a value info's.
fn graph_declared(graph: &Graph, name: &str) -> Option<Span> {
    let locals = graph.locals.iter().filter(|l| l.initializer.is_none());
    type_of(graph.outputs.iter().chain(locals.map(|l| &l.info)), name)
}

/// The span of the type a function declares for `name`: a typed output's, or a value info's.
fn function_declared(function: &Function, name: &str) -> Option<Span> {
    type_of(function.outputs.iter().chain(&function.value_infos), name)
}
