//! The checks of onnx-text, on the syntax tree: structure (SSA, order, scopes, outputs), and
//! more, listed below; the shape checks, which infer on the tree's lowering (`onnx-infer`);
//! function [`library`]s and the inliner; and the driver that runs them on a text or a tree of
//! any form ([`CheckEntry`], [`CheckTree`]).
//!
//! Semantic checks over the syntax tree: structure (SSA, order, scopes, outputs), declarations
//! (domains, local functions, attribute references, duplicate attributes), data (element
//! counts, literal ranges) and operator schemas (operators, arity, attributes, type
//! constraints, calls to local functions).
//!
//! Checks never change what a text parses to: they only look at the tree and report
//! [`Diagnostic`]s with byte spans into the source text. Each check has a stable snake_case
//! [`Check::name`] and can be switched off in [`CheckOptions`]. Every check is linear in the size of the
//! tree (hash maps, no quadratic scans), reports every independent problem, and never panics.
//!
//! The pipeline for a caller that maps spans itself (the proc macros): parse to a [`Tree`] with
//! an [`Entry`], [check](CheckTree::check) it, then [lower](Tree::lower) it.
//!
//! ```
//! use onnx_syntax::Entry;
//! use onnx_check::{Check, CheckOptions, CheckTree};
//!
//! let text = "<opset_import: [\"\" : 21]> g (x) => (y) { t = Abs(x)  t = Neg(t)  y = Relu(u) }";
//! let tree = Entry::Model.parse(text)?;
//! let found = tree.check(text, &CheckOptions::default()).diagnostics;
//! let messages: Vec<_> = found.iter().map(|d| d.message()).collect();
//! assert_eq!(messages, ["`t` is already defined at line 1", "value `u` is used but never defined"]);
//!
//! let relaxed = CheckOptions::default().allow(Check::UndefinedValue);
//! assert_eq!(tree.check(text, &relaxed).diagnostics.len(), 1);
//! let model = tree.lower(); // lowering is unaffected by checks
//! # let _ = model;
//! # Ok::<(), onnx_syntax::ParseError>(())
//! ```
//!
//! # Layout
//!
//! The public API is [`CheckOptions`] (`options`), the driver (`driver`) and [`Report`]; what
//! the checks report, [`Diagnostic`] named by its [`Check`], is the syntax crate's, one model for
//! every layer (re-exported here). The walk over a tree is `walk`; each check keeps its own state in its
//! own module: `structure` (SSA, order, scopes), `imports` (domains), `declarations` (local
//! functions, `@ref`, duplicate attributes), `data` (tensor literals) and `schema` (operator
//! schemas and types). `message` says how messages name things. Binary models are
//! checked by the `onnx-validate` crate, which runs these checks on the tree raised from their
//! messages, beside the rules only protobuf messages can break.
//!
//! # Scopes and contexts
//!
//! - A graph sees its inputs, its initializers, and the outputs of its nodes, each from its
//!   definition on. A subgraph (a graph-valued attribute, also inside a list of graphs) also sees
//!   the values of the enclosing graphs that are defined before the node holding it. A node
//!   output may not redefine a value that is visible there (as onnx's checker requires); a
//!   subgraph input may shadow an outer value.
//! - A function body sees the function's inputs.
//! - A node or node list has no declared inputs: a name that nothing defines is an input of the
//!   unknown enclosing context, so [`Check::UndefinedValue`] and [`Check::UnproducedOutput`] do
//!   not apply there (but SSA and order do). Attribute references are not checked either, as a
//!   node list may be a function body.
//! - Imports: a model's nodes must use domains of the model's `opset_import` (`ai.onnx` and `""`
//!   are the same domain). A model-local function with its own `opset_import` uses exactly that;
//!   one without uses the model's (what such text evidently means; onnx's checker is stricter). A
//!   function on its own, or in a library, uses its own `opset_import`, and is not checked if it
//!   has none; a graph or node on its own has no imports and is not checked.
//! - Local functions: the functions of a model (or of a library, for [`Entry::Functions`]) are
//!   identified by (domain, name, overload). A node whose domain is the domain of one of them
//!   must name one of them, with the same overload (none matches none). The standard domains
//!   (`""`, `ai.onnx`, `ai.onnx.ml`, `ai.onnx.preview`, `ai.onnx.preview.training`) are exempt,
//!   as their nodes may be standard operators, and so are other domains, whose operators may
//!   come from a runtime. A function checked on its own ([`Entry::Function`]) resolves nothing, as
//!   the functions it calls may be defined elsewhere.
//!
//! # Operator schemas
//!
//! Nodes of the standard domains (`ai.onnx` or `""`, `ai.onnx.ml`, `ai.onnx.preview`,
//! `ai.onnx.preview.training`) are checked against the operator schemas of onnx 1.23.2, at the
//! version their domain is imported at (the newest `since_version` at or below it; the last
//! `opset_import` entry of a domain wins, and `""` and `ai.onnx` stand for each other, as in
//! onnx's checker). Where the imports are unknown (a graph or node on its own, a function
//! without `opset_import`) or the domain is not imported, nothing is checked; nor are other
//! domains (custom operators).
//!
//! - [`Check::UnknownOperator`]: the operator exists at that version; otherwise the message says
//!   from which version it exists, that it was removed (deprecated), in which standard domain it
//!   is, or which operator's name is closest (edit distance).
//! - [`Check::OperatorArity`]: input and output counts within the schema's bounds, counting `""`
//!   operands as onnx's checker does; `""` only for an optional operand.
//! - [`Check::MissingAttribute`], [`Check::UnknownAttribute`] (with the closest name, and whether
//!   another version has it), [`Check::AttributeType`] (the type is the one the syntax records:
//!   `alpha = 1` is an int; `alpha: float = 1` is a float). Names starting with `__` are skipped,
//!   and so is the type of an `@ref` without annotation, which the caller of the function
//!   decides.
//! - [`Check::TypeConstraint`]: where operand types are known, from declarations (typed graph
//!   and function inputs and outputs, initializers, value infos) or inferred through earlier
//!   nodes (a type parameter bound by the inputs, a fixed type, `Constant`'s value, `Cast`'s
//!   `to`, `ConstantOfShape`'s value), each must be allowed for its parameter, and the operands
//!   of one parameter must agree (except in a heterogeneous variadic, such as `Loop`'s). A
//!   declared output type is checked the same way. [`Report`] counts what could be checked
//!   ([`Coverage`]).
//! - [`Check::FunctionSignature`]: a call to a model-local (or library) function passes at most
//!   the declared inputs and outputs, only declared attributes (of the declared type, where the
//!   declaration has one), and every attribute declared without a default.
//!
//! ```
//! use onnx_check::{Check, CheckOptions};
//! let text = r#"<opset_import: ["" : 21]> g (float x) => (y) { y = Elu <alpah = 1.0> (x) }"#;
//! let err = CheckOptions::default().check_model(text).unwrap_err();
//! assert_eq!(err[0].check(), Some(Check::UnknownAttribute));
//! assert_eq!(err[0].message(), "`Elu` has no attribute `alpah` in ai.onnx opset 21; did you mean `alpha`?");
//! ```

mod data;
mod declarations;
mod driver;
mod imports;
pub mod library;
mod options;
pub(crate) mod schema;
pub(crate) mod shapes;
mod structure;
#[cfg(test)]
mod tests;
pub(crate) mod walk;

pub use data::negative_dim;
pub use driver::{BIG_TEXT, CheckEntry, CheckTree, check_and_lower_split};
pub use onnx_schema::{
    AttributeDoc, FormalDoc, OperatorDoc, describe_operator, newest_opset, operators_at,
    schema_attribute_type, since_version, standard_domains,
};
pub use onnx_syntax::diagnostic::{
    Category, Check, Diagnostic, DiagnosticKind, Diagnostics, Edit, Fix, Label, Severity,
    UnknownCheck,
};
pub use options::CheckOptions;
pub use schema::Coverage;

use walk::Checker;

use crate::library::FunctionLibrary;

/// Function libraries in view of the checks, each with the name messages give it: calls into
/// them are checked as calls of the text's own functions are (see
/// [`CheckOptions::check_model_with`]).
pub type Libraries<'a> = [(&'a str, &'a FunctionLibrary)];

#[cfg(doc)]
use onnx_syntax::{Entry, Tree};

/// What checking a tree found, and how much of it the type checks covered.
///
/// ```
/// use onnx_check::CheckTree;
/// use onnx_syntax::Entry;
/// use onnx_check::CheckOptions;
/// let text = r#"<opset_import: ["" : 21]> g (float x, int64 n) => (y) { y = Add(x, n) }"#;
/// let report = Entry::Model.parse(text)?.check(text, &CheckOptions::default());
/// assert_eq!(report.diagnostics[0].message(), "input `n` of `Add` is tensor(int64), but `T` is already tensor(float) from input `x`");
/// assert_eq!(report.coverage.typed, 1);
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Every problem, in source order.
    pub diagnostics: Vec<Diagnostic>,
    /// What the type checks could check.
    pub coverage: Coverage,
}
