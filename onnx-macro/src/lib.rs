//! Procedural macros of `onnx-text`. Use them through the `onnx-text` crate, which re-exports
//! them with documentation and examples.
//!
//! The crate is thin: each macro hands its input to `onnx-macro-core`, a plain library that
//! does the work (and is unit-tested there, without rustc).

use onnx_syntax::Entry;
use proc_macro::TokenStream;

/// A `ModelProto` from ONNX text: an optional `<header>`, a graph, then model-local functions.
///
/// The text is parsed and checked at compile time; errors point at the offending tokens.
///
/// ```
/// let model = onnx_text::onnx! {
///     <ir_version: 10, opset_import: ["" : 21]>
///     g (float[N] x) => (float[N] y) { y = Relu (x) }
/// };
/// assert_eq!(model.ir_version, Some(10));
/// ```
#[proc_macro]
pub fn onnx(input: TokenStream) -> TokenStream {
    onnx_macro_core::expand(Entry::Model, input.into()).into()
}

/// A `GraphProto` from ONNX text.
///
/// ```
/// let graph = onnx_text::onnx_graph!(g (float[N] x) => (float[N] y) { y = Abs (x) });
/// assert_eq!(graph.name.as_deref(), Some("g"));
/// ```
#[proc_macro]
pub fn onnx_graph(input: TokenStream) -> TokenStream {
    onnx_macro_core::expand(Entry::Graph, input.into()).into()
}

/// A `FunctionProto` from ONNX text, with an optional header.
///
/// ```
/// let f = onnx_text::onnx_function! {
///     <domain: "local", opset_import: ["" : 21]>
///     Square (x) => (y) { y = Mul (x, x) }
/// };
/// assert_eq!(f.name.as_deref(), Some("Square"));
/// ```
#[proc_macro]
pub fn onnx_function(input: TokenStream) -> TokenStream {
    onnx_macro_core::expand(Entry::Function, input.into()).into()
}

/// A `Vec<FunctionProto>` from a sequence of functions (a function library).
///
/// ```
/// let library = onnx_text::onnx_functions! {
///     F (x) => (y) { y = Abs (x) }
///     G (x) => (y) { y = Neg (x) }
/// };
/// assert_eq!(library.len(), 2);
/// ```
#[proc_macro]
pub fn onnx_functions(input: TokenStream) -> TokenStream {
    onnx_macro_core::expand(Entry::Functions, input.into()).into()
}

/// A `NodeProto` from one node.
///
/// ```
/// let node = onnx_text::onnx_node!(y = LeakyRelu <alpha = 0.1> (x));
/// assert_eq!(node.attribute[0].f, Some(0.1));
/// ```
#[proc_macro]
pub fn onnx_node(input: TokenStream) -> TokenStream {
    onnx_macro_core::expand(Entry::Node, input.into()).into()
}

/// A `Vec<NodeProto>` from a sequence of nodes, without braces.
///
/// ```
/// let nodes = onnx_text::onnx_nodes!(t = Abs (x) y = Neg (t));
/// assert_eq!(nodes[1].input, ["t"]);
/// ```
#[proc_macro]
pub fn onnx_nodes(input: TokenStream) -> TokenStream {
    onnx_macro_core::expand(Entry::Nodes, input.into()).into()
}

/// A function library in a static, for opset crates: checked as [`onnx_functions!`] is,
/// documented with every function's signature, and seen at compile time by literals in other
/// crates that name it in `#![library(…)]`, `#![attach(…)]` or `#![inline(…)]`. `///` comments
/// before a function are its `doc_string`, as `doc_string:` in its header would be.
///
/// ```
/// onnx_text::onnx_library! {
///     /// Squares.
///     pub static SQUARES;
///     /// `x * x`, elementwise.
///     <domain: "my.ops", opset_import: ["" : 21]>
///     Square (x) => (y) { y = Mul (x, x) }
/// }
/// assert_eq!(SQUARES.iter().next().unwrap().doc_string.as_deref(), Some("`x * x`, elementwise."));
///
/// let model = onnx_text::onnx! {
///     #![attach(SQUARES)]
///     <ir_version: 10, opset_import: ["" : 21, "my.ops" : 1]>
///     g (float[N] x) => (float[N] y) { y = my.ops.Square (x) }
/// };
/// assert_eq!(SQUARES.len(), 1);
/// assert_eq!(model.functions.len(), 1);
/// ```
#[proc_macro]
pub fn onnx_library(input: TokenStream) -> TokenStream {
    onnx_macro_core::library(input.into()).into()
}

/// A `ModelProto` from a `.onnxtxt` file, relative to `CARGO_MANIFEST_DIR`. Errors name the file,
/// line and column, and editing the file rebuilds the crate.
///
/// ```
/// let model = onnx_text::include_onnx!("tests/data/relu.onnxtxt");
/// assert_eq!(model.graph.unwrap().node[0].op_type.as_deref(), Some("Relu"));
/// ```
///
/// A model whose tensors keep their data in a file beside the text (`float[2] w = ["location":
/// "w.bin", …]`) is an `external_data` error: the value is built into the program, which does
/// not read files at run time on the literal's behalf. Write the data into the text first
/// (`onnx-text convert model.onnxtxt --inline-data -o whole.onnxtxt`), or keep the reference as
/// it is, for a test of a loader, with `#![allow(external_data)]`:
///
/// ```
/// let model = onnx_text::include_onnx!(#![allow(external_data)] "tests/data/external.onnxtxt");
/// let w = &model.graph.unwrap().initializer[0];
/// assert_eq!(w.external_data[0].value.as_deref(), Some("w.bin"));
/// ```
#[proc_macro]
pub fn include_onnx(input: TokenStream) -> TokenStream {
    onnx_macro_core::include(input.into()).into()
}

/// The protobuf encoding of a model read from a `.onnxtxt` file, as a `&'static [u8]`: the file
/// is read, parsed and checked at compile time as by [`include_onnx!`] (the same settings and
/// errors), and the value is the bytes that `include_onnx!`'s expansion decodes. It is a
/// constant expression, for a `static` or a table of many models that are decoded only when
/// needed, and for writing a `.onnx` file as is.
///
/// ```
/// use onnx_text::{ModelProto, prost::Message};
///
/// static RELU: &[u8] = onnx_text::include_onnx_bytes!("tests/data/relu.onnxtxt");
/// let model = ModelProto::decode(RELU).unwrap();
/// assert_eq!(model, onnx_text::include_onnx!("tests/data/relu.onnxtxt"));
/// ```
#[proc_macro]
pub fn include_onnx_bytes(input: TokenStream) -> TokenStream {
    onnx_macro_core::include_bytes(input.into()).into()
}
