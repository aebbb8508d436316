//! Graphs: `name (inputs)? => (outputs) <locals>? { nodes }`.

use super::Parser;
use crate::error::ParseError;
use crate::syntax::{Graph, Name, NodeForm, ValueDecl, ValueInfo};

impl Parser<'_> {
    /// graph ::= name input-list? '=>' output-list local-list? node-list
    pub(super) fn parse_graph<N: NodeForm>(&mut self) -> Result<Graph<N>, ParseError> {
        let name = self.quotable_name("a graph name")?;
        self.graph_after_name(name)
    }

    /// The rest of a graph after its name. Graph-valued attributes come here directly, as their
    /// name must be a plain identifier.
    pub(super) fn graph_after_name<N: NodeForm>(
        &mut self,
        name: Name,
    ) -> Result<Graph<N>, ParseError> {
        self.enter()?;
        let result = self.graph_body(name);
        self.leave();
        result
    }

    fn graph_body<N: NodeForm>(&mut self, name: Name) -> Result<Graph<N>, ParseError> {
        // The input list is optional: `g => (y) {…}` has no inputs.
        let inputs = if self.at_punct(b'(') {
            self.decl_list(b'(', b')', true)?
        } else {
            Vec::new()
        };
        self.expect_arrow()?;
        let outputs = self.value_info_list(b'(', b')')?;
        let locals = if self.at_punct(b'<') {
            self.decl_list(b'<', b'>', true)?
        } else {
            Vec::new()
        };
        let nodes = self.parse_node_list()?;
        let span = self.since(name.span);
        Ok(Graph {
            name,
            inputs,
            outputs,
            locals,
            nodes,
            span,
        })
    }

    /// `open (value-info ('=' data?)? (',' …)*)? close`
    fn decl_list(
        &mut self,
        open: u8,
        close: u8,
        allow_initializer: bool,
    ) -> Result<Vec<ValueDecl>, ParseError> {
        self.expect_punct(open)?;
        let decls = self.comma_list(close, true, |p| p.value_decl(allow_initializer))?;
        self.expect_punct(close)?;
        Ok(decls)
    }

    /// `open (value-info (',' value-info)*)? close`, without initializers.
    pub(super) fn value_info_list(
        &mut self,
        open: u8,
        close: u8,
    ) -> Result<Vec<ValueInfo>, ParseError> {
        let decls = self.decl_list(open, close, false)?;
        Ok(decls.into_iter().map(|decl| decl.info).collect())
    }
}
