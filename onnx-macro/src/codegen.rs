//! Code generation: the expansion is the message's protobuf bytes, encoded at compile time and
//! decoded at runtime.
//!
//! This keeps the expansion to one byte-string literal whatever the model's size, so rustc's
//! cost is that of `include_bytes!`, and getting the value is one `prost` decode.

use proc_macro2::{Literal, TokenStream};
use prost::Message;
use quote::quote;

/// The Rust type of a macro's value, as a path through the facade.
#[derive(Clone, Copy)]
pub enum Output {
    /// `ModelProto`
    Model,
    /// `GraphProto`
    Graph,
    /// `FunctionProto`
    Function,
    /// `Vec<FunctionProto>`
    Functions,
    /// `NodeProto`
    Node,
    /// `Vec<NodeProto>`
    Nodes,
}

impl Output {
    /// The message type, as tokens.
    fn message_type(self) -> TokenStream {
        match self {
            Output::Model => quote!(::onnx_text::ModelProto),
            Output::Graph => quote!(::onnx_text::GraphProto),
            Output::Function | Output::Functions => quote!(::onnx_text::FunctionProto),
            Output::Node | Output::Nodes => quote!(::onnx_text::NodeProto),
        }
    }

    fn is_list(self) -> bool {
        matches!(self, Output::Functions | Output::Nodes)
    }

    /// The value type, as tokens.
    pub fn value_type(self) -> TokenStream {
        let message = self.message_type();
        if self.is_list() {
            quote!(::std::vec::Vec<#message>)
        } else {
            message
        }
    }
}

/// The expression that builds the message encoded as `bytes` at runtime.
pub fn single(output: Output, bytes: &[u8]) -> TokenStream {
    let bytes = Literal::byte_string(bytes);
    let ty = output.message_type();
    quote!(::onnx_text::__private::decode::<#ty>(#bytes))
}

/// The expression that builds the list `messages` at runtime.
pub fn list<M: Message>(output: Output, messages: &[M]) -> TokenStream {
    let mut buffer = Vec::new();
    for message in messages {
        buffer.extend(message.encode_length_delimited_to_vec());
    }
    let bytes = Literal::byte_string(&buffer);
    let ty = output.message_type();
    quote!(::onnx_text::__private::decode_list::<#ty>(#bytes))
}

/// The expansion when there are errors: the errors, then a default value of the right type, so
/// that rustc reports nothing else.
pub fn failed(output: Output, fallible: bool, errors: syn::Error) -> TokenStream {
    let errors = errors.to_compile_error();
    let ty = output.value_type();
    let value = quote!(<#ty as ::core::default::Default>::default());
    if fallible {
        quote!({ #errors ::core::result::Result::<#ty, ::onnx_text::Diagnostics>::Ok(#value) })
    } else {
        quote!({ #errors #value })
    }
}
