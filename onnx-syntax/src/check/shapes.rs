//! `incompatible_shapes` and `shape_mismatch`: shape inference ([`crate::infer`]) over a model
//! whose other checks passed, with its findings put on the tree's tokens.

use crate::infer::Inference;
use crate::lower;
use crate::syntax::{Graph, Model};

use super::{Check, Checker, Diagnostic};

impl Checker<'_> {
    /// The shape checks of a model. They run only on a model without other problems, since
    /// inference over a malformed graph would report what those problems cause.
    pub(super) fn shapes(&mut self, model: &Model) {
        let (incompatible, mismatch) = (
            self.on(Check::IncompatibleShapes),
            self.on(Check::ShapeMismatch),
        );
        if !(incompatible || mismatch) || !self.found.is_empty() {
            return;
        }
        let inferred = Inference::of_model(&lower::model(model.clone()));
        let graph = &model.graph;
        if incompatible {
            for error in &inferred.errors {
                let Some(node) = graph.nodes.get(error.node) else {
                    continue;
                };
                let span = error
                    .input
                    .and_then(|i| node.inputs.get(i))
                    .map_or(node.op_span, |input| input.span);
                self.report(Diagnostic::new(
                    Some(Check::IncompatibleShapes),
                    span,
                    error.message.clone(),
                ));
            }
        }
        if mismatch {
            for found in &inferred.mismatches {
                let Some(declared) = declared_type(graph, &found.name) else {
                    continue;
                };
                let Some(node) = graph.nodes.get(found.node) else {
                    continue;
                };
                let line = self.line(node.op_span);
                let message = format!(
                    "`{}` is declared {} but the graph computes {} (`{}` at line {line})",
                    found.name, found.declared, found.inferred, node.op_type
                );
                let diagnostic = Diagnostic::new(Some(Check::ShapeMismatch), declared, message)
                    .with_label(node.op_span, format!("computed as {} here", found.inferred));
                self.report(diagnostic);
            }
        }
    }
}

/// The span of the type a graph declares for `name`: an output's, or a value info's.
fn declared_type(graph: &Graph, name: &str) -> Option<crate::Span> {
    let locals = graph
        .locals
        .iter()
        .filter(|l| l.initializer.is_none())
        .map(|l| &l.info);
    graph
        .outputs
        .iter()
        .chain(locals)
        .filter(|info| info.name.text == name)
        .find_map(|info| info.ty.as_ref().map(|t| t.span))
}
