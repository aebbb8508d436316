//! The syntax layer of onnx-text: the ONNX textual syntax, parsed to a syntax tree with spans
//! and lowered to the ONNX protobuf types, byte for byte as onnx 1.23.2's parser does, and the
//! one diagnostic model every layer reports in.
//!
//! The pipeline is one module per stage: [`lex`] (text to tokens), [`parse`] (tokens to the
//! [`syntax`] tree) and [`lower`] (tree to protobuf). [`Entry`] names the forms a text can take
//! (a model, a graph, a node, …) and runs the stages for any of them. Most users want the
//! `parse_*` functions.
//!
//! The layers above are crates of their own, each depending only on those below, so that cargo
//! refuses an import up the pipeline and the proc macro builds only what it uses:
//! `onnx-schema` (operator schemas), `onnx-infer` (shape inference), `onnx-check` (the checks,
//! function libraries and the inliner), then `onnx-print` (protobuf to text, and the formatter)
//! and `onnx-validate` (binary models).
//!
//! The modules (`tests/layers.rs` keeps each above the ones it uses):
//!
//! | module | what |
//! |---|---|
//! | `lex` | text to tokens, each knowing whether a gap came before it; the comments in the gaps, in a pass of its own (for the formatter) |
//! | `parse` | tokens to the syntax tree, one function per grammar rule, by topic in submodules |
//! | `syntax` | the syntax tree, a span on every node, literal values already typed; the forms a text takes (`Entry`) and the tree of each (`Tree`) |
//! | `diagnostic` | what every layer reports: `Diagnostic` (code, severity, span or place in a binary model, labels, fixes), `Diagnostics`, the codes (`Check`) and their categories, and how messages name things (`message`) |
//! | `lower` | the tree to protobuf, setting exactly the fields the reference sets |
//! | `entry` | the pipeline for any form: `Entry::parse`, `parse_proto`, `Tree::lower`, `Proto::encode` |
//! | `domain` | operator domains: the default domain's two names (`""` and `ai.onnx`), the standard domains, and how a node's domain finds its import (`Imports`, as onnx's checker resolves them) |
//! | `dtype` | tensor element types: names, numbers, and the `TensorProto` field of their data |
//! | `hole` | the places where the macros put Rust values, as markers in the text |
//! | `tensors` | every tensor of a model, wherever it is kept (for moving external data in and out) |
//! | `error` | `ParseError`: a message, a position and a snippet; `named` writes the name/`ALL`/`Display` boilerplate of `Entry`, `ParseErrorKind`, `Check` and `Category` |
//! | `span` | byte spans and their line and column, and the one `LineIndex` (the snippets' and the language server's positions) |
//! | `render` | the rustc-style snippets shared by parse errors and diagnostics |
//! | `hash` | the hash maps of the checks and of inference (FNV, fast unoptimized in the macros) |
//! | `similar` | "did you mean": the nearest name by edit distance (unknown element types here, every unknown name of the checks through `onnx-schema`) |
//!
//! ```
//! let model = onnx_syntax::parse_model(r#"
//!     <ir_version: 10, opset_import: ["" : 21]>
//!     agraph (float[N] x) => (float[N] y) { y = Relu(x) }
//! "#).unwrap();
//! assert_eq!(model.graph.unwrap().node[0].op_type.as_deref(), Some("Relu"));
//! ```

pub mod diagnostic;
pub mod domain;
pub mod dtype;
mod entry;
mod error;
// Shared with the layers above (schemas, inference, checks); not API for users.
#[doc(hidden)]
pub mod hash;
pub mod hole;
pub mod lex;
pub mod lower;
mod named;
pub mod parse;
// Shared with the layers above (schemas, inference, checks); not API for users.
#[doc(hidden)]
pub mod render;
// "Did you mean": the parser's, and the checks' through onnx-schema; not API for users.
#[doc(hidden)]
pub mod similar;
mod span;
pub mod syntax;
pub mod tensors;

pub use entry::Proto;
pub use error::{ParseError, ParseErrorKind};
pub use lex::text_from_bytes;
pub use span::{LineColumn, LineIndex, Span};
pub use syntax::{Entry, Tree, UnknownEntry};

#[doc(hidden)]
pub use entry::{FromProto, typed};
use onnx_runtime_types::{FunctionProto, GraphProto, ModelProto, NodeProto};

/// Parses a model: an optional `<…>` header, a graph, then any number of functions.
///
/// ```
/// let model = onnx_syntax::parse_model("g (float x) => (float y) { y = Neg(x) }").unwrap();
/// assert_eq!(model.ir_version, None); // nothing gets a default
/// ```
pub fn parse_model(text: &str) -> Result<ModelProto, ParseError> {
    parse(Entry::Model, text)
}

/// Parses a graph. Text after the graph is an error.
///
/// ```
/// let graph = onnx_syntax::parse_graph("g => (y) { y = Foo() }").unwrap();
/// assert!(graph.input.is_empty());
/// ```
pub fn parse_graph(text: &str) -> Result<GraphProto, ParseError> {
    parse(Entry::Graph, text)
}

/// Parses a function, with its optional `<…>` header. Text after the function is an error.
///
/// ```
/// let f = onnx_syntax::parse_function(r#"
///     <domain: "local", opset_import: ["" : 21]>
///     Square (x) => (y) { y = Mul(x, x) }
/// "#).unwrap();
/// assert_eq!(f.domain.as_deref(), Some("local"));
/// ```
pub fn parse_function(text: &str) -> Result<FunctionProto, ParseError> {
    parse(Entry::Function, text)
}

/// Parses one node. Text after the node is an error.
///
/// ```
/// let node = onnx_syntax::parse_node("y = com.example.Foo <alpha = 0.5> (x)").unwrap();
/// assert_eq!(node.domain.as_deref(), Some("com.example"));
/// ```
pub fn parse_node(text: &str) -> Result<NodeProto, ParseError> {
    parse(Entry::Node, text)
}

/// Parses a braced node list `{ node* }`, the form of ONNX function bodies.
///
/// ```
/// let nodes = onnx_syntax::parse_node_list("{ t = Abs(x)  y = Neg(t) }").unwrap();
/// assert_eq!(nodes.len(), 2);
/// ```
pub fn parse_node_list(text: &str) -> Result<Vec<NodeProto>, ParseError> {
    parse(Entry::NodeList, text)
}

/// Parses a function library: any number of functions, each with an optional header.
///
/// ```
/// let lib = onnx_syntax::parse_functions("F (x) => (y) { y = Abs(x) } G (x) => (y) { y = F(x) }").unwrap();
/// assert_eq!(lib.len(), 2);
/// ```
pub fn parse_functions(text: &str) -> Result<Vec<FunctionProto>, ParseError> {
    parse(Entry::Functions, text)
}

/// Parses a sequence of nodes without braces.
///
/// ```
/// let nodes = onnx_syntax::parse_nodes("t = Abs(x) y = Neg(t)").unwrap();
/// assert_eq!(nodes[1].input, ["t"]);
/// ```
pub fn parse_nodes(text: &str) -> Result<Vec<NodeProto>, ParseError> {
    parse(Entry::Nodes, text)
}

/// Parses and lowers `text` as `entry` gives it, typed.
fn parse<T: FromProto>(entry: Entry, text: &str) -> Result<T, ParseError> {
    Ok(typed(entry, entry.parse_proto(text)?))
}
