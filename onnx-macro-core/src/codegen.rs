//! Code generation: the expansion is the message's protobuf bytes, encoded at compile time and
//! decoded at runtime.
//!
//! This keeps the expansion to one byte-string literal whatever the model's size, so rustc's
//! cost stays close to that of `include_bytes!` (for the 458 KB of a 10,000-node model,
//! proc_macro's escaping and rustc's unescaping add about 0.01 s: see `docs/performance.md`),
//! and getting the value is one `prost` decode.

use onnx_syntax::Entry;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// The message type of an entry point's value, as a path through the facade.
fn message_type(entry: Entry) -> TokenStream {
    match entry {
        Entry::Model => quote!(::onnx_text::ModelProto),
        Entry::Graph => quote!(::onnx_text::GraphProto),
        Entry::Function | Entry::Functions => quote!(::onnx_text::FunctionProto),
        Entry::Node | Entry::Nodes | Entry::NodeList => quote!(::onnx_text::NodeProto),
    }
}

/// True for the entry points whose value is a list of messages.
fn is_list(entry: Entry) -> bool {
    matches!(entry, Entry::Functions | Entry::Nodes | Entry::NodeList)
}

/// The Rust type of an entry point's value, as tokens.
pub fn value_type(entry: Entry) -> TokenStream {
    let message = message_type(entry);
    if is_list(entry) {
        quote!(::std::vec::Vec<#message>)
    } else {
        message
    }
}

/// The expression that builds, at runtime, the value of `entry` whose protobuf bytes are `bytes`.
pub fn decoded(entry: Entry, bytes: &[u8]) -> TokenStream {
    let bytes = Literal::byte_string(bytes);
    let ty = message_type(entry);
    if is_list(entry) {
        quote!(::onnx_text::__private::decode_list::<#ty>(#bytes))
    } else {
        quote!(::onnx_text::__private::decode::<#ty>(#bytes))
    }
}

/// The expansion when there are errors: the errors, then a default value of the right type, so
/// that rustc reports nothing else.
pub fn failed(entry: Entry, fallible: bool, errors: syn::Error) -> TokenStream {
    let errors = errors.to_compile_error();
    let value = placeholder(entry, fallible);
    quote!({ #errors #value })
}

/// A value of the right type for a literal that cannot be built (the default message, `Ok` if
/// `fallible`), so that the code around it still type-checks.
pub fn placeholder(entry: Entry, fallible: bool) -> TokenStream {
    let ty = value_type(entry);
    let value = quote!(<#ty as ::core::default::Default>::default());
    if fallible {
        quote!(::core::result::Result::<#ty, ::onnx_text::Diagnostics>::Ok(#value))
    } else {
        value
    }
}
