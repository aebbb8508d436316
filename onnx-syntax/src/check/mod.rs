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
//! The pipeline for a caller that maps spans itself (the proc macros): parse to a tree with
//! [`Parser`], run a check function of this module, then [`lower`](crate::lower) the tree.
//!
//! ```
//! use onnx_syntax::check::{self, Check, CheckOptions};
//! use onnx_syntax::parse::Parser;
//!
//! let text = "<opset_import: [\"\" : 21]> g (x) => (y) { t = Abs(x)  t = Neg(t)  y = Relu(u) }";
//! let tree = Parser::new(text)?.model()?;
//! let found = check::model(&tree, text, &CheckOptions::default());
//! let messages: Vec<_> = found.iter().map(|d| d.message()).collect();
//! assert_eq!(messages, ["`t` is already defined at line 1", "value `u` is used but never defined"]);
//!
//! let relaxed = CheckOptions::default().allow(Check::UndefinedValue);
//! assert_eq!(check::model(&tree, text, &relaxed).len(), 1);
//! let model = onnx_syntax::lower::model(tree); // lowering is unaffected by checks
//! # let _ = model;
//! # Ok::<(), onnx_syntax::ParseError>(())
//! ```
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
//! - Local functions: the functions of a model (or of a library, for [`functions`]) are
//!   identified by (domain, name, overload). A node whose domain is the domain of one of them
//!   must name one of them, with the same overload (none matches none). The standard domains
//!   (`""`, `ai.onnx`, `ai.onnx.ml`, `ai.onnx.preview`, `ai.onnx.preview.training`) are exempt,
//!   as their nodes may be standard operators, and so are other domains, whose operators may
//!   come from a runtime. A function checked on its own ([`function`]) resolves nothing, as
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
//!   declared output type is checked the same way. [`report`] counts what could be checked
//!   ([`Coverage`]).
//! - [`Check::FunctionSignature`]: a call to a model-local (or library) function passes at most
//!   the declared inputs and outputs, only declared attributes (of the declared type, where the
//!   declaration has one), and every attribute declared without a default.
//!
//! ```
//! use onnx_syntax::check::{Check, CheckOptions};
//! let text = r#"<opset_import: ["" : 21]> g (float x) => (y) { y = Elu <alpah = 1.0> (x) }"#;
//! let err = CheckOptions::default().check_model(text).unwrap_err();
//! assert_eq!(err[0].check(), Some(Check::UnknownAttribute));
//! assert_eq!(err[0].message(), "`Elu` has no attribute `alpah` in ai.onnx opset 21; did you mean `alpha`?");
//! ```

mod data;
mod declarations;
mod diagnostic;
mod hash;
mod schema;
mod structure;
#[cfg(test)]
mod tests;

use crate::hole::is_marker;
use std::collections::hash_map::Entry;

pub use diagnostic::{Diagnostic, DiagnosticKind, Diagnostics, Label};
pub use schema::{Coverage, schema_attribute_type};

use onnx_runtime_types::{FunctionProto, GraphProto, ModelProto, NodeProto};

use crate::error::ParseError;
use crate::lower;
use crate::parse::Parser;
use crate::render::LineIndex;
use crate::span::Span;
use crate::syntax::{
    AttrValue, Attribute, Function, FunctionAttribute, FunctionHeaderValue, Graph, Model,
    ModelHeaderValue, Name, Node, OpsetImport,
};
use declarations::{Imports, LocalFunctions, RefContext};
use hash::{HashMap, HashSet, RandomKey};
use schema::TypeScopes;
use structure::Frame;

/// The checks, each with a stable snake_case name for `#![allow(name, ...)]`.
///
/// ```
/// use onnx_syntax::check::Check;
/// assert_eq!(Check::UndefinedValue.name(), "undefined_value");
/// assert_eq!(Check::from_name("undefined_value"), Some(Check::UndefinedValue));
/// assert_eq!(Check::ALL.len(), 18);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Check {
    /// `duplicate_definition`: a value is defined twice (SSA): by two node outputs, or by a node
    /// output and an input, initializer or visible outer value.
    DuplicateDefinition,
    /// `use_before_definition`: a value is used before the node that defines it (the nodes are
    /// not in topological order).
    UseBeforeDefinition,
    /// `undefined_value`: a value is used that nothing defines, in this graph or the enclosing
    /// ones.
    UndefinedValue,
    /// `unproduced_output`: a graph or function output that no input, initializer or node
    /// defines.
    UnproducedOutput,
    /// `duplicate_input`: a graph input, initializer or function input named twice. An
    /// initializer named as an input is its default value, not a duplicate.
    DuplicateInput,
    /// `undeclared_domain`: a node's operator domain is not in the `opset_import` that applies.
    UndeclaredDomain,
    /// `unresolved_function`: a node in the domain of a model-local function names no such
    /// function (or not with its overload).
    UnresolvedFunction,
    /// `invalid_attribute_ref`: `@name` outside a function body, or naming no attribute of the
    /// function.
    InvalidAttributeRef,
    /// `duplicate_attribute`: a node sets the same attribute twice, or a function declares the
    /// same attribute twice.
    DuplicateAttribute,
    /// `element_count_mismatch`: a tensor's data has more or fewer values than its dims need
    /// (two 4-bit or four 2-bit elements per value; complex numbers take two).
    ElementCountMismatch,
    /// `literal_out_of_range`: a tensor literal does not fit its element type (`uint8 {256}`,
    /// `uint64 {-1}`).
    LiteralOutOfRange,
    /// `unknown_operator`: a node of a standard domain names an operator that does not exist at
    /// the imported version: misspelled, not introduced yet, or removed (deprecated).
    UnknownOperator,
    /// `operator_arity`: a standard operator gets too few or too many inputs or outputs, or `""`
    /// for an operand that is not optional.
    OperatorArity,
    /// `missing_attribute`: a standard operator lacks a required attribute.
    MissingAttribute,
    /// `unknown_attribute`: a standard operator gets an attribute it does not have at the
    /// imported version.
    UnknownAttribute,
    /// `attribute_type`: a standard operator's attribute has the wrong type (`alpha = 1` is an
    /// int; a float attribute needs `1.0` or `alpha: float = 1`).
    AttributeType,
    /// `type_constraint`: where the types of a node's operands are known (declared, or inferred
    /// from earlier nodes), they break the operator's type constraints.
    TypeConstraint,
    /// `function_signature`: a call to a model-local function passes more inputs or outputs than
    /// the function declares, or attributes it does not declare, or leaves out one without a
    /// default.
    FunctionSignature,
}

impl Check {
    /// Every check, in the order of the README.
    ///
    /// ```
    /// use onnx_syntax::check::Check;
    /// let names: Vec<&str> = Check::ALL.iter().map(|c| c.name()).collect();
    /// assert_eq!(names[..3], ["duplicate_definition", "use_before_definition", "undefined_value"]);
    /// ```
    pub const ALL: [Check; 18] = [
        Check::DuplicateDefinition,
        Check::UseBeforeDefinition,
        Check::UndefinedValue,
        Check::UnproducedOutput,
        Check::DuplicateInput,
        Check::UndeclaredDomain,
        Check::UnresolvedFunction,
        Check::InvalidAttributeRef,
        Check::DuplicateAttribute,
        Check::ElementCountMismatch,
        Check::LiteralOutOfRange,
        Check::UnknownOperator,
        Check::OperatorArity,
        Check::MissingAttribute,
        Check::UnknownAttribute,
        Check::AttributeType,
        Check::TypeConstraint,
        Check::FunctionSignature,
    ];

    /// The stable snake_case name, as `#![allow(...)]` takes it.
    ///
    /// ```
    /// assert_eq!(onnx_syntax::check::Check::LiteralOutOfRange.name(), "literal_out_of_range");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Check::DuplicateDefinition => "duplicate_definition",
            Check::UseBeforeDefinition => "use_before_definition",
            Check::UndefinedValue => "undefined_value",
            Check::UnproducedOutput => "unproduced_output",
            Check::DuplicateInput => "duplicate_input",
            Check::UndeclaredDomain => "undeclared_domain",
            Check::UnresolvedFunction => "unresolved_function",
            Check::InvalidAttributeRef => "invalid_attribute_ref",
            Check::DuplicateAttribute => "duplicate_attribute",
            Check::ElementCountMismatch => "element_count_mismatch",
            Check::LiteralOutOfRange => "literal_out_of_range",
            Check::UnknownOperator => "unknown_operator",
            Check::OperatorArity => "operator_arity",
            Check::MissingAttribute => "missing_attribute",
            Check::UnknownAttribute => "unknown_attribute",
            Check::AttributeType => "attribute_type",
            Check::TypeConstraint => "type_constraint",
            Check::FunctionSignature => "function_signature",
        }
    }

    /// The check named `name`, if there is one.
    ///
    /// ```
    /// use onnx_syntax::check::Check;
    /// assert_eq!(Check::from_name("duplicate_attribute"), Some(Check::DuplicateAttribute));
    /// assert_eq!(Check::from_name("Duplicate_Attribute"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Check> {
        Check::ALL.into_iter().find(|check| check.name() == name)
    }

    /// What the check catches, in one line.
    ///
    /// ```
    /// assert!(onnx_syntax::check::Check::UndefinedValue.description().contains("never defined"));
    /// ```
    pub const fn description(self) -> &'static str {
        match self {
            Check::DuplicateDefinition => "a value defined twice (SSA)",
            Check::UseBeforeDefinition => "a value used before the node that defines it",
            Check::UndefinedValue => "a value used but never defined",
            Check::UnproducedOutput => "a graph or function output that nothing produces",
            Check::DuplicateInput => "a graph input, initializer or function input named twice",
            Check::UndeclaredDomain => "a node domain missing from the opset_import",
            Check::UnresolvedFunction => {
                "a call in a local function's domain that names no local function"
            }
            Check::InvalidAttributeRef => {
                "`@ref` outside a function, or naming no attribute of the function"
            }
            Check::DuplicateAttribute => "an attribute given twice on one node or function",
            Check::ElementCountMismatch => "tensor data whose length does not match the dims",
            Check::LiteralOutOfRange => "a tensor literal that does not fit its element type",
            Check::UnknownOperator => "an operator that does not exist at the imported version",
            Check::OperatorArity => "too few or too many inputs or outputs for the operator",
            Check::MissingAttribute => "a required attribute of the operator left out",
            Check::UnknownAttribute => "an attribute the operator does not have",
            Check::AttributeType => "an attribute of the wrong type for the operator",
            Check::TypeConstraint => "operand types that break the operator's type constraints",
            Check::FunctionSignature => {
                "a call to a local function that does not match its signature"
            }
        }
    }

    const fn bit(self) -> u32 {
        1 << self as u32
    }
}

/// Shows the check's name.
///
/// ```
/// assert_eq!(onnx_syntax::check::Check::DuplicateInput.to_string(), "duplicate_input");
/// ```
impl std::fmt::Display for Check {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Reads a check's name, as [`Check::from_name`] does, with an error that lists the checks.
///
/// ```
/// use onnx_syntax::check::Check;
/// assert_eq!("undefined_value".parse::<Check>(), Ok(Check::UndefinedValue));
/// let err = "ssa".parse::<Check>().unwrap_err();
/// assert!(err.to_string().starts_with("unknown check `ssa`; the checks are duplicate_definition, "));
/// ```
impl std::str::FromStr for Check {
    type Err = UnknownCheck;

    fn from_str(name: &str) -> Result<Check, UnknownCheck> {
        Check::from_name(name).ok_or_else(|| UnknownCheck {
            name: name.to_owned(),
        })
    }
}

/// A name that is no check's name, from parsing a [`Check`].
///
/// ```
/// let err = "sssa".parse::<onnx_syntax::check::Check>().unwrap_err();
/// assert_eq!(err.name(), "sssa");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownCheck {
    name: String,
}

impl UnknownCheck {
    /// The name that was given.
    ///
    /// ```
    /// assert_eq!("x".parse::<onnx_syntax::check::Check>().unwrap_err().name(), "x");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// "unknown check `name`; the checks are …", listing every check.
impl std::fmt::Display for UnknownCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown check `{}`; the checks are ", self.name)?;
        for (i, check) in Check::ALL.iter().enumerate() {
            let separator = if i == 0 { "" } else { ", " };
            write!(f, "{separator}{check}")?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownCheck {}

/// Which checks run, and how line numbers in messages are counted. The default runs them all.
///
/// Besides the tree-level functions of this module, it has text-level methods that parse, check
/// and lower in one call, giving every problem (a syntax error included) as [`Diagnostics`].
///
/// ```
/// use onnx_syntax::check::{Check, CheckOptions};
/// let options = CheckOptions::default().allow(Check::UndefinedValue);
/// assert!(!options.is_enabled(Check::UndefinedValue));
/// assert!(options.is_enabled(Check::DuplicateDefinition));
/// assert!(options.check_graph("g (x) => (y) { y = Add(x, q) }").is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckOptions {
    enabled: u32,
    first_line: usize,
}

impl Default for CheckOptions {
    fn default() -> CheckOptions {
        CheckOptions::all()
    }
}

impl CheckOptions {
    /// Every check on.
    ///
    /// ```
    /// use onnx_syntax::check::{Check, CheckOptions};
    /// assert!(Check::ALL.iter().all(|&c| CheckOptions::all().is_enabled(c)));
    /// ```
    pub const fn all() -> CheckOptions {
        CheckOptions {
            enabled: (1 << Check::ALL.len()) - 1,
            first_line: 1,
        }
    }

    /// Every check off (the macros' `#![unchecked]`): only syntax errors remain.
    ///
    /// ```
    /// use onnx_syntax::check::CheckOptions;
    /// assert!(CheckOptions::none().check_graph("g () => (y) {}").is_ok());
    /// ```
    pub const fn none() -> CheckOptions {
        CheckOptions {
            enabled: 0,
            first_line: 1,
        }
    }

    /// The same options with `check` off.
    ///
    /// ```
    /// use onnx_syntax::check::{Check, CheckOptions};
    /// assert!(!CheckOptions::all().allow(Check::UnproducedOutput).is_enabled(Check::UnproducedOutput));
    /// ```
    pub const fn allow(self, check: Check) -> CheckOptions {
        CheckOptions {
            enabled: self.enabled & !check.bit(),
            ..self
        }
    }

    /// The same options with `check` on.
    ///
    /// ```
    /// use onnx_syntax::check::{Check, CheckOptions};
    /// assert!(CheckOptions::none().deny(Check::UnproducedOutput).is_enabled(Check::UnproducedOutput));
    /// ```
    pub const fn deny(self, check: Check) -> CheckOptions {
        CheckOptions {
            enabled: self.enabled | check.bit(),
            ..self
        }
    }

    /// True if `check` runs.
    ///
    /// ```
    /// use onnx_syntax::check::{Check, CheckOptions};
    /// assert!(CheckOptions::default().is_enabled(Check::LiteralOutOfRange));
    /// ```
    pub const fn is_enabled(&self, check: Check) -> bool {
        self.enabled & check.bit() != 0
    }

    /// The same options, counting the first line of the source text as line `line` in messages
    /// such as "`t` is already defined at line 3" (default 1). Spans are unaffected.
    ///
    /// ```
    /// use onnx_syntax::check::CheckOptions;
    /// let err = CheckOptions::default().first_line(10).check_graph("g (x) => (x) {\n x = Abs(x) }").unwrap_err();
    /// assert_eq!(err[0].message(), "`x` is already defined at line 10");
    /// ```
    pub const fn first_line(self, line: usize) -> CheckOptions {
        CheckOptions {
            first_line: line,
            ..self
        }
    }

    /// Parses a model, checks it, and lowers it if there is no problem.
    ///
    /// ```
    /// let options = onnx_syntax::check::CheckOptions::default();
    /// let model = options.check_model(r#"<opset_import: ["" : 21]> g (x) => (y) { y = Relu(x) }"#).unwrap();
    /// assert_eq!(model.graph.unwrap().node.len(), 1);
    /// assert!(options.check_model("g (x) => (y) { y = Relu(x) }").is_err()); // no import for ""
    /// ```
    pub fn check_model(&self, text: &str) -> Result<ModelProto, Diagnostics> {
        run(
            text,
            Parser::model,
            |tree| model(tree, text, self),
            lower::model,
        )
    }

    /// Parses a graph, checks it, and lowers it if there is no problem.
    ///
    /// ```
    /// let options = onnx_syntax::check::CheckOptions::default();
    /// assert!(options.check_graph("g (x) => (y) { y = Relu(x) }").is_ok());
    /// assert!(options.check_graph("g (x) => (y) { y = Relu(z) }").is_err());
    /// ```
    pub fn check_graph(&self, text: &str) -> Result<GraphProto, Diagnostics> {
        run(
            text,
            Parser::graph,
            |tree| graph(tree, text, self),
            lower::graph,
        )
    }

    /// Parses a function, checks it, and lowers it if there is no problem.
    ///
    /// ```
    /// let options = onnx_syntax::check::CheckOptions::default();
    /// assert!(options.check_function("F <a> (x) => (y) { y = Foo <b = @a> (x) }").is_ok());
    /// assert!(options.check_function("F <a> (x) => (y) { y = Foo <b = @c> (x) }").is_err());
    /// ```
    pub fn check_function(&self, text: &str) -> Result<FunctionProto, Diagnostics> {
        run(
            text,
            Parser::function,
            |tree| function(tree, text, self),
            lower::function,
        )
    }

    /// Parses a function library, checks it, and lowers it if there is no problem.
    ///
    /// ```
    /// let options = onnx_syntax::check::CheckOptions::default();
    /// let lib = r#"<domain: "my"> F (x) => (y) { y = Abs(x) }  G (x) => (y) { y = my.F(x) }"#;
    /// assert_eq!(options.check_functions(lib).unwrap().len(), 2);
    /// let typo = r#"<domain: "my"> F (x) => (y) { y = Abs(x) }  G (x) => (y) { y = my.E(x) }"#;
    /// assert!(options.check_functions(typo).is_err());
    /// ```
    pub fn check_functions(&self, text: &str) -> Result<Vec<FunctionProto>, Diagnostics> {
        run(
            text,
            Parser::functions,
            |tree| functions(tree, text, self),
            |tree| tree.into_iter().map(lower::function).collect(),
        )
    }

    /// Parses a node, checks it, and lowers it if there is no problem.
    ///
    /// ```
    /// let options = onnx_syntax::check::CheckOptions::default();
    /// assert!(options.check_node("y = Foo <a = 1> (x)").is_ok());
    /// assert!(options.check_node("y = Foo <a = 1, a = 2> (x)").is_err());
    /// ```
    pub fn check_node(&self, text: &str) -> Result<NodeProto, Diagnostics> {
        run(
            text,
            Parser::node,
            |tree| node(tree, text, self),
            lower::node,
        )
    }

    /// Parses a braced node list `{ node* }`, checks it, and lowers it if there is no problem.
    ///
    /// ```
    /// let options = onnx_syntax::check::CheckOptions::default();
    /// assert!(options.check_node_list("{ t = Abs(x)  y = Neg(t) }").is_ok());
    /// assert!(options.check_node_list("{ y = Neg(t)  t = Abs(x) }").is_err());
    /// ```
    pub fn check_node_list(&self, text: &str) -> Result<Vec<NodeProto>, Diagnostics> {
        run(
            text,
            Parser::node_list,
            |tree| nodes(tree, text, self),
            |tree| tree.into_iter().map(lower::node).collect(),
        )
    }

    /// Parses a sequence of nodes without braces, checks it, and lowers it if there is no
    /// problem.
    ///
    /// ```
    /// let options = onnx_syntax::check::CheckOptions::default();
    /// assert!(options.check_nodes("t = Abs(x)  y = Neg(t)").is_ok());
    /// assert!(options.check_nodes("t = Abs(x)  t = Neg(x)").is_err());
    /// ```
    pub fn check_nodes(&self, text: &str) -> Result<Vec<NodeProto>, Diagnostics> {
        run(
            text,
            Parser::nodes,
            |tree| nodes(tree, text, self),
            |tree| tree.into_iter().map(lower::node).collect(),
        )
    }
}

impl CheckOptions {
    /// Parses a model and checks it, giving every problem and what the type checks covered.
    /// Only a syntax error is an `Err`.
    ///
    /// ```
    /// let text = r#"<opset_import: ["" : 21]> g (float x, y) => (z) { t = Relu(x)  z = Add(t, y) }"#;
    /// let report = onnx_syntax::check::CheckOptions::default().report_model(text).unwrap();
    /// assert!(report.diagnostics.is_empty());
    /// assert_eq!((report.coverage.typed, report.coverage.partially_typed), (1, 1));
    /// ```
    pub fn report_model(&self, text: &str) -> Result<Report, Diagnostics> {
        let tree = Parser::new(text)
            .and_then(Parser::model)
            .map_err(|err| Diagnostics::new(text, vec![Diagnostic::from(&err)]))?;
        Ok(report(Tree::Model(&tree), text, self))
    }
}

/// Parse, check, lower: the text-level pipeline.
fn run<'a, T, P>(
    text: &'a str,
    parse: impl FnOnce(Parser<'a>) -> Result<T, ParseError>,
    check: impl FnOnce(&T) -> Vec<Diagnostic>,
    lower: impl FnOnce(T) -> P,
) -> Result<P, Diagnostics> {
    let tree = Parser::new(text)
        .and_then(parse)
        .map_err(|err| Diagnostics::new(text, vec![Diagnostic::from(&err)]))?;
    let found = check(&tree);
    if found.is_empty() {
        Ok(lower(tree))
    } else {
        Err(Diagnostics::new(text, found))
    }
}

/// Checks a model: its graph against the model's imports and functions, then each function.
///
/// ```
/// use onnx_syntax::check::{self, CheckOptions};
/// let text = r#"<opset_import: ["" : 21, "local" : 1]>
/// g (x) => (y) { y = local.Sqaure(x) }
/// <domain: "local", opset_import: ["" : 21]> Square (x) => (y) { y = Mul(x, x) }"#;
/// let tree = onnx_syntax::parse::Parser::new(text)?.model()?;
/// let found = check::model(&tree, text, &CheckOptions::default());
/// assert_eq!(found[0].message(), "no function `local.Sqaure` is defined in domain \"local\"; the functions there are `Square`");
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
pub fn model(model: &Model, source: &str, options: &CheckOptions) -> Vec<Diagnostic> {
    report(Tree::Model(model), source, options).diagnostics
}

/// A tree to check, from any entry point of the parser.
///
/// ```
/// use onnx_syntax::check::Tree;
/// let node = onnx_syntax::parse::Parser::new("y = Relu(x)")?.node()?;
/// assert!(matches!(Tree::Node(&node), Tree::Node(_)));
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub enum Tree<'a> {
    /// A model: [`model`].
    Model(&'a Model),
    /// A graph on its own: [`graph`].
    Graph(&'a Graph),
    /// A function on its own: [`function`].
    Function(&'a Function),
    /// A function library: [`functions`].
    Functions(&'a [Function]),
    /// A node on its own: [`node`].
    Node(&'a Node),
    /// A node list: [`nodes`].
    Nodes(&'a [Node]),
}

/// What checking a tree found, and how much of it the type checks covered.
///
/// ```
/// use onnx_syntax::check::{self, CheckOptions, Tree};
/// let text = r#"<opset_import: ["" : 21]> g (float x, int64 n) => (y) { y = Add(x, n) }"#;
/// let tree = onnx_syntax::parse::Parser::new(text)?.model()?;
/// let report = check::report(Tree::Model(&tree), text, &CheckOptions::default());
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

/// Checks a tree of any kind, as the function for its kind does, and also counts what the type
/// checks covered.
///
/// ```
/// use onnx_syntax::check::{self, CheckOptions, Tree};
/// let text = "<opset_import: [\"\" : 21]> F (float x) => (y) { t = Shape(x)  y = Neg(t) }";
/// let tree = onnx_syntax::parse::Parser::new(text)?.function()?;
/// let report = check::report(Tree::Function(&tree), text, &CheckOptions::default());
/// assert!(report.diagnostics.is_empty());
/// assert_eq!(report.coverage.typed, 2); // `t` is int64, inferred from Shape
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
pub fn report(tree: Tree<'_>, source: &str, options: &CheckOptions) -> Report {
    match tree {
        Tree::Model(model) => model_report(model, source, options),
        Tree::Graph(graph) => graph_report(graph, source, options),
        Tree::Function(function) => library(std::slice::from_ref(function), false, source, options),
        Tree::Functions(functions) => library(functions, true, source, options),
        Tree::Node(node) => nodes_report(std::slice::from_ref(node), source, options),
        Tree::Nodes(nodes) => nodes_report(nodes, source, options),
    }
}

fn model_report(model: &Model, source: &str, options: &CheckOptions) -> Report {
    let mut checker = Checker::new(source, options);
    let imported = model_imports(model);
    checker.locals = Some(LocalFunctions::new(&model.functions));
    checker.imports = Some(Imports::new(imported.clone(), "the model".to_owned()));
    checker.refs = RefContext::Forbidden;
    checker.graph(&model.graph);
    checker.finish_imports();
    for function in spelled_out(&model.functions) {
        let owner = match function_imports(function) {
            Some(own) => (own, format!("function `{}`", function.name.text)),
            None => (
                imported.clone(),
                format!(
                    "the model (whose opset_import function `{}` inherits, having none)",
                    function.name.text
                ),
            ),
        };
        checker.imports = Some(Imports::new(owner.0, owner.1));
        checker.function(function);
        checker.finish_imports();
    }
    checker.finish()
}

/// Checks a graph on its own: no imports or local functions are known, and `@ref` is invalid.
///
/// ```
/// use onnx_syntax::check::{self, Check, CheckOptions};
/// let text = "g (x) => (y) { y = Relu(t) t = Abs(x) }";
/// let tree = onnx_syntax::parse::Parser::new(text)?.graph()?;
/// let found = check::graph(&tree, text, &CheckOptions::default());
/// assert_eq!(found[0].check(), Some(Check::UseBeforeDefinition));
/// assert_eq!(found[0].message(), "value `t` is used before its definition at line 1");
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
pub fn graph(graph: &Graph, source: &str, options: &CheckOptions) -> Vec<Diagnostic> {
    report(Tree::Graph(graph), source, options).diagnostics
}

fn graph_report(graph: &Graph, source: &str, options: &CheckOptions) -> Report {
    let mut checker = Checker::new(source, options);
    checker.refs = RefContext::Forbidden;
    checker.graph(graph);
    checker.finish()
}

/// Checks a function on its own: its imports are its own `opset_import`, if it has one, and
/// its calls to other functions are not resolved (they may be defined elsewhere).
///
/// ```
/// use onnx_syntax::check::{self, CheckOptions};
/// let text = "<opset_import: [\"\" : 21]> F (x) => (y) { y = com.x.Foo(x) }";
/// let tree = onnx_syntax::parse::Parser::new(text)?.function()?;
/// let found = check::function(&tree, text, &CheckOptions::default());
/// assert_eq!(found[0].message(), "operator `com.x.Foo` is in domain \"com.x\", which function `F` does not import: its opset_import has \"\"");
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
pub fn function(function: &Function, source: &str, options: &CheckOptions) -> Vec<Diagnostic> {
    report(Tree::Function(function), source, options).diagnostics
}

/// Checks a function library: each function against its own `opset_import` (if it has one), and
/// calls into the library's own domains against the library's functions.
///
/// ```
/// use onnx_syntax::check::{self, CheckOptions};
/// let text = "F (x) => (y) { y = Abs(x) }  F (x) => (y) { y = Neg(x) }";
/// let tree = onnx_syntax::parse::Parser::new(text)?.functions()?;
/// assert!(check::functions(&tree, text, &CheckOptions::default()).is_empty());
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
pub fn functions(functions: &[Function], source: &str, options: &CheckOptions) -> Vec<Diagnostic> {
    report(Tree::Functions(functions), source, options).diagnostics
}

/// Checks functions, each against its own imports; with `resolve`, calls into the domains of
/// `functions` must name one of them.
fn library(functions: &[Function], resolve: bool, source: &str, options: &CheckOptions) -> Report {
    let mut checker = Checker::new(source, options);
    if resolve {
        checker.locals = Some(LocalFunctions::new(functions));
    }
    for function in spelled_out(functions) {
        checker.imports = function_imports(function)
            .map(|own| Imports::new(own, format!("function `{}`", function.name.text)));
        checker.function(function);
        checker.finish_imports();
    }
    checker.finish()
}

/// Checks a node on its own: duplicate attributes, data, and that it does not use its own
/// outputs or define one twice.
///
/// ```
/// use onnx_syntax::check::{self, CheckOptions};
/// let text = "a, a = Split(x)";
/// let tree = onnx_syntax::parse::Parser::new(text)?.node()?;
/// assert_eq!(check::node(&tree, text, &CheckOptions::default())[0].message(), "`a` is already defined at line 1");
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
pub fn node(node: &Node, source: &str, options: &CheckOptions) -> Vec<Diagnostic> {
    report(Tree::Node(node), source, options).diagnostics
}

/// Checks a node list on its own: names that no node defines are inputs of the unknown
/// enclosing context, but SSA and order are checked.
///
/// ```
/// use onnx_syntax::check::{self, CheckOptions};
/// let text = "{ y = Neg(t)  t = Abs(x) }";
/// let tree = onnx_syntax::parse::Parser::new(text)?.node_list()?;
/// assert_eq!(check::nodes(&tree, text, &CheckOptions::default())[0].message(), "value `t` is used before its definition at line 1");
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
pub fn nodes(nodes: &[Node], source: &str, options: &CheckOptions) -> Vec<Diagnostic> {
    report(Tree::Nodes(nodes), source, options).diagnostics
}

fn nodes_report(nodes: &[Node], source: &str, options: &CheckOptions) -> Report {
    let mut checker = Checker::new(source, options);
    checker.free = true;
    checker.refs = RefContext::Unknown;
    checker.push_frame(Frame::for_nodes(nodes));
    checker.types.push(nodes.len());
    checker.body(nodes);
    checker.types.pop();
    checker.frames.pop();
    checker.finish()
}

/// The functions written out, without those spliced in from Rust (`#f`, `..#library`).
fn spelled_out(functions: &[Function]) -> impl Iterator<Item = &Function> {
    functions.iter().filter(|f| !is_marker(&f.name.text))
}

/// The entries of a model's `opset_import`, in order.
fn model_imports(model: &Model) -> Vec<&OpsetImport> {
    model
        .header
        .iter()
        .filter_map(|entry| match &entry.value {
            ModelHeaderValue::OpsetImport(list) => Some(list),
            _ => None,
        })
        .flatten()
        .collect()
}

/// The entries of a function's own `opset_import`, or `None` if it has no such header entry.
fn function_imports(function: &Function) -> Option<Vec<&OpsetImport>> {
    let mut found = None;
    for entry in &function.header {
        if let FunctionHeaderValue::OpsetImport(list) = &entry.value {
            found.get_or_insert_with(Vec::new).extend(list);
        }
    }
    found
}

/// How deep the checks follow nested graphs. The parser never nests deeper than
/// [`MAX_NESTING`](crate::parse::MAX_NESTING); deeper hand-built trees are checked to this depth.
const MAX_DEPTH: u32 = 64;

/// The walk over a tree, with the state of every check.
struct Checker<'t> {
    source: &'t str,
    options: CheckOptions,
    found: Vec<Diagnostic>,
    lines: Option<LineIndex>,
    /// Structure: one frame per enclosing graph or body, innermost last.
    frames: Vec<Frame<'t>>,
    /// Structure: names that nothing defines are inputs of an unknown context.
    free: bool,
    /// Declarations: the imports that apply, if known.
    imports: Option<Imports<'t>>,
    /// Declarations: the local functions, if known.
    locals: Option<LocalFunctions<'t>>,
    /// Declarations: where `@ref` may appear and what it may name.
    refs: RefContext<'t>,
    /// Schemas: the known types of values, per scope.
    types: TypeScopes<'t>,
    /// Schemas: what the type checks covered.
    coverage: Coverage,
    depth: u32,
}

impl<'t> Checker<'t> {
    fn new(source: &'t str, options: &CheckOptions) -> Checker<'t> {
        Checker {
            source,
            options: *options,
            found: Vec::new(),
            lines: None,
            frames: Vec::new(),
            free: false,
            imports: None,
            locals: None,
            refs: RefContext::Unknown,
            types: TypeScopes::default(),
            coverage: Coverage::default(),
            depth: 0,
        }
    }

    fn on(&self, check: Check) -> bool {
        self.options.is_enabled(check)
    }

    fn report(&mut self, diagnostic: Diagnostic) {
        self.found.push(diagnostic);
    }

    /// The line number of a span's start, as messages show it.
    fn line(&mut self, span: Span) -> usize {
        let source = self.source;
        let index = self.lines.get_or_insert_with(|| LineIndex::new(source));
        let line = index.line_column(span.start as usize).line;
        line.saturating_add(self.options.first_line)
            .saturating_sub(1)
    }

    /// The source text of a span, if the span is valid for it.
    fn text(&self, span: Span) -> Option<&'t str> {
        self.source.get(span.range())
    }

    /// All diagnostics, in source order, and the coverage.
    fn finish(mut self) -> Report {
        self.found.sort_by_key(|d| (d.span().start, d.span().end));
        Report {
            diagnostics: self.found,
            coverage: self.coverage,
        }
    }

    fn graph(&mut self, graph: &'t Graph) {
        if self.depth >= MAX_DEPTH {
            return;
        }
        self.depth += 1;
        let frame = self.graph_frame(graph);
        self.push_frame(frame);
        self.enter_graph_types(graph);
        for decl in graph.inputs.iter().chain(&graph.locals) {
            if let Some(tensor) = &decl.initializer {
                self.tensor(tensor);
            }
        }
        self.body(&graph.nodes);
        self.produced(graph.outputs.iter().map(|o| &o.name), "graph");
        self.types.pop();
        self.frames.pop();
        self.depth -= 1;
    }

    fn function(&mut self, function: &'t Function) {
        let mut attributes =
            HashSet::with_capacity_and_hasher(function.attributes.len(), RandomKey::default());
        let names = function.attributes.iter().map(|entry| match entry {
            FunctionAttribute::Name(name) => name,
            FunctionAttribute::Proto(attr) => &attr.name,
        });
        attributes.extend(names.clone().map(|name| name.text.as_str()));
        if self.on(Check::DuplicateAttribute) {
            let owner = format!("by function `{}`", function.name.text);
            self.duplicate_names(names, &owner, "declared");
        }
        // Attribute defaults are values of their own: no scope, and no `@ref`.
        let saved = std::mem::take(&mut self.frames);
        self.refs = RefContext::Default;
        for entry in &function.attributes {
            if let FunctionAttribute::Proto(Attribute {
                value: Some(value), ..
            }) = entry
            {
                self.value(value);
            }
        }
        self.frames = saved;
        self.refs = RefContext::Function {
            function,
            attributes,
        };
        let frame = self.function_frame(function);
        self.push_frame(frame);
        self.enter_function_types(function);
        self.body(&function.nodes);
        self.produced(function.outputs.iter().map(|o| &o.name), "function");
        self.types.pop();
        self.frames.pop();
    }

    fn body(&mut self, nodes: &'t [Node]) {
        for (index, node) in nodes.iter().enumerate() {
            if let Some(frame) = self.frames.last_mut() {
                frame.current = index;
            }
            self.node(node, index);
        }
    }

    fn node(&mut self, node: &'t Node, index: usize) {
        // Nodes spliced in from Rust (`#node`, `..#nodes`): nothing is known of them; the frame
        // knows they may define names.
        if is_marker(&node.op_type) {
            return;
        }
        for input in &node.inputs {
            self.use_value(input);
        }
        let import = self.domain(node);
        self.local_call(node);
        if self.on(Check::DuplicateAttribute) {
            self.duplicate_names(
                node.attributes.iter().map(|a| &a.name),
                "on this node",
                "set",
            );
        }
        for attribute in &node.attributes {
            if let Some(value) = &attribute.value {
                self.value(value);
            }
        }
        self.schema(node, import);
        self.define_outputs(node, index);
    }

    /// An attribute value: tensors, graphs and references.
    fn value(&mut self, value: &'t AttrValue) {
        match value {
            AttrValue::Tensor(tensor) => self.tensor(tensor),
            AttrValue::Tensors(tensors) => tensors.iter().for_each(|t| self.tensor(t)),
            AttrValue::Graph(graph) => self.graph(graph),
            AttrValue::Graphs(graphs) => graphs.iter().for_each(|g| self.graph(g)),
            AttrValue::Ref(name) => self.attribute_ref(name),
            _ => {}
        }
    }

    /// Reports each name that repeats an earlier one of `names`, e.g. the attributes of a node.
    /// Short lists (the usual case) are compared pairwise, without allocating.
    fn duplicate_names(
        &mut self,
        names: impl Iterator<Item = &'t Name> + Clone,
        owner: &str,
        verb: &str,
    ) {
        const SHORT: usize = 8;
        let count = names.clone().count();
        if count < 2 {
            return;
        }
        let mut seen: HashMap<&str, Span> = HashMap::default();
        for (index, name) in names.clone().enumerate() {
            let first = if count <= SHORT {
                names
                    .clone()
                    .take(index)
                    .find(|earlier| earlier.text == name.text)
                    .map(|earlier| earlier.span)
            } else {
                match seen.entry(name.text.as_str()) {
                    Entry::Occupied(entry) => Some(*entry.get()),
                    Entry::Vacant(entry) => {
                        entry.insert(name.span);
                        None
                    }
                }
            };
            if let Some(first) = first {
                let diagnostic = Diagnostic::new(
                    Check::DuplicateAttribute,
                    name.span,
                    format!("attribute `{}` is already {verb} {owner}", name.text),
                )
                .with_label(first, format!("first {verb} here"));
                self.report(diagnostic);
            }
        }
    }
}
