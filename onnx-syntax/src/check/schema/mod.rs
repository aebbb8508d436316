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

mod describe;
mod lookup;
mod operator;
mod signature;
mod similar;
mod table;
#[cfg(test)]
mod tests;
mod types;

pub use describe::{
    AttributeDoc, FormalDoc, OperatorDoc, describe_operator, operators_at, standard_domains,
};
pub(super) use similar::{closest, edit_distance};
pub use types::Coverage;
pub(super) use types::Types;
pub(crate) use types::body_input_types;

use super::declarations::Callee;
use super::imports::Import;
use super::{Category, Checker};
use crate::syntax::{AttributeType, Node};

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

/// The type that the schema of `op_type` in the standard domain `domain`, at opset `version`,
/// gives its attribute `name`; `None` if no standard schema in effect there has that attribute.
///
/// ```
/// use onnx_syntax::check::schema_attribute_type;
/// use onnx_syntax::syntax::AttributeType;
/// assert_eq!(schema_attribute_type("", "LeakyRelu", 21, "alpha"), Some(AttributeType::Float));
/// assert_eq!(schema_attribute_type("ai.onnx", "Transpose", 21, "perm"), Some(AttributeType::Ints));
/// assert_eq!(schema_attribute_type("", "LeakyRelu", 21, "beta"), None);
/// assert_eq!(schema_attribute_type("com.example", "Foo", 1, "a"), None);
/// ```
pub fn schema_attribute_type(
    domain: &str,
    op_type: &str,
    version: i64,
    name: &str,
) -> Option<AttributeType> {
    let versions = table::table()?.versions(domain, op_type)?;
    match lookup::at_version(versions, version)? {
        lookup::AtVersion::Found(schema) => schema.attribute(name).map(|spec| spec.ty),
        _ => None,
    }
}

/// The newest opset version of the standard domain `domain` (either name of the default one):
/// the newest `since_version` of its schemas. `None` for other domains.
///
/// ```
/// use onnx_syntax::check::newest_opset;
/// assert!(newest_opset("").unwrap() >= 21);
/// assert_eq!(newest_opset("ai.onnx"), newest_opset(""));
/// assert_eq!(newest_opset("com.example"), None);
/// ```
pub fn newest_opset(domain: &str) -> Option<i64> {
    let table = table::table()?;
    let operators = table.sorted_operators(domain);
    let newest = operators.iter().flat_map(|(_, versions)| versions.iter());
    newest.map(|schema| schema.since).max()
}

/// The `since_version` of the schema of `op_type` in effect at opset `version` of the standard
/// domain `domain`; `None` for other domains, unknown operators, and versions before the first.
/// Two imports give one operator when this agrees (onnx's checker compares a function's
/// imports with its model's this way).
///
/// ```
/// use onnx_syntax::check::since_version;
/// assert_eq!(since_version("", "Relu", 21), Some(14));
/// assert_eq!(since_version("ai.onnx", "Relu", 13), Some(13));
/// assert_eq!(since_version("com.example", "Relu", 21), None);
/// ```
pub fn since_version(domain: &str, op_type: &str, version: i64) -> Option<i64> {
    let versions = table::table()?.versions(domain, op_type)?;
    match lookup::at_version(versions, version)? {
        lookup::AtVersion::Found(schema) | lookup::AtVersion::Removed(schema) => Some(schema.since),
        lookup::AtVersion::NotYet(_) => None,
    }
}
