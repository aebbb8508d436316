//! Operator schemas: each node of a standard domain (`ai.onnx`/`""`, `ai.onnx.ml`,
//! `ai.onnx.preview`, `ai.onnx.preview.training`) against its operator's schema at the version
//! the model or function imports, and each call to a model-local function against the
//! function's signature.
//!
//! - [`lookup`]: the schema in effect (the newest `since_version` at or below the import), or
//!   `unknown_operator` with what went wrong (misspelled, not yet added, removed).
//! - [`operator`]: input and output counts, required, unknown and mistyped attributes.
//! - [`signature`]: calls to local functions.
//! - [`types`]: declared and inferred operand types against the type constraints, and what could
//!   be checked ([`Coverage`]).
//! - [`table`]: the generated data; [`similar`]: "did you mean".
//!
//! Nodes are checked only where the imports are known and name the node's domain (see
//! `undeclared_domain`); other domains (custom operators) are never checked.

mod lookup;
mod operator;
mod signature;
#[cfg(test)]
mod tests;
mod types;

pub use types::Coverage;
pub(super) use types::Types;

use super::declarations::Callee;
use super::imports::Import;
use super::{Category, Checker};
use onnx_syntax::syntax::Node;

impl<'t> Checker<'t> {
    /// The schema checks of one node, once its subgraphs are checked.
    /// `import` is that of the node's domain, if it is imported; `called` the local function
    /// the node calls, if it calls one.
    pub(super) fn schema(
        &mut self,
        node: &'t Node,
        import: Option<Import>,
        called: Option<Callee<'t>>,
    ) {
        // When every check of this module is off, nothing is looked up.
        if !self.any_on(Category::Schema) {
            return;
        }
        if let Some(function) = called {
            self.signature(node, function);
            self.untyped_outputs(node);
            return;
        }
        match self.lookup(node, import) {
            Some(schema) => {
                self.arity(node, schema);
                self.attributes(node, schema);
                self.node_types(node, schema);
            }
            None => self.untyped_outputs(node),
        }
    }
}
