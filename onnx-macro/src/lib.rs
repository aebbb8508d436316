//! Procedural macros of `onnx-text`. Use them through the `onnx-text` crate, which re-exports
//! them with documentation and examples.
//!
//! The crate is thin: [`tokens`] turns the macro input back into ONNX text, the `onnx-syntax`
//! engine parses, checks and lowers it, [`diagnostics`] puts errors on the offending tokens, and
//! [`codegen`] emits the expression. [`expand`] ties them together.

mod codegen;
mod diagnostics;
mod expand;
mod tokens;

use codegen::Output;
use proc_macro::TokenStream;

/// A `ModelProto` from ONNX text: `onnx! { <header> graph functions }`.
#[proc_macro]
pub fn onnx(input: TokenStream) -> TokenStream {
    expand::expand(Output::Model, input.into()).into()
}

/// A `GraphProto` from ONNX text.
#[proc_macro]
pub fn onnx_graph(input: TokenStream) -> TokenStream {
    expand::expand(Output::Graph, input.into()).into()
}

/// A `FunctionProto` from ONNX text, with an optional header.
#[proc_macro]
pub fn onnx_function(input: TokenStream) -> TokenStream {
    expand::expand(Output::Function, input.into()).into()
}

/// A `Vec<FunctionProto>` from a sequence of functions.
#[proc_macro]
pub fn onnx_functions(input: TokenStream) -> TokenStream {
    expand::expand(Output::Functions, input.into()).into()
}

/// A `NodeProto` from one node.
#[proc_macro]
pub fn onnx_node(input: TokenStream) -> TokenStream {
    expand::expand(Output::Node, input.into()).into()
}

/// A `Vec<NodeProto>` from a sequence of nodes.
#[proc_macro]
pub fn onnx_nodes(input: TokenStream) -> TokenStream {
    expand::expand(Output::Nodes, input.into()).into()
}

/// A `ModelProto` from a `.onnxtxt` file, relative to `CARGO_MANIFEST_DIR`.
#[proc_macro]
pub fn include_onnx(input: TokenStream) -> TokenStream {
    expand::include(input.into()).into()
}
