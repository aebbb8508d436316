//! onnx-text: the ONNX textual model syntax for Rust.
//!
//! Parse ONNX text into the protobuf types at runtime, byte for byte as the reference parser
//! (onnx 1.23.2, `onnx.parser`) does, with positioned, rustc-style errors:
//!
//! ```
//! use onnx_text::prost::Message;
//!
//! let model = onnx_text::parse_model(r#"
//!     <ir_version: 10, opset_import: ["" : 21]>
//!     agraph (float[N, 128] X, float[128, 10] W, float[10] B) => (float[N, 10] C) {
//!         T = MatMul (X, W)
//!         S = Add (T, B)
//!         C = Softmax (S)
//!     }
//! "#)?;
//! let graph = model.graph.as_ref().unwrap();
//! assert_eq!(graph.node.len(), 3);
//! let bytes = model.encode_to_vec(); // what `onnx.parser.parse_model(...).SerializeToString()` gives
//! # let _ = bytes;
//! # Ok::<(), onnx_text::ParseError>(())
//! ```
//!
//! Every ONNX protobuf message is re-exported here (`onnx_text::ModelProto`, …), with the nested
//! modules prost generates (`onnx_text::tensor_proto::DataType`, …) and `onnx_text::prost`.

pub use onnx_runtime_types::*;
pub use onnx_syntax::print::{Style, ToText, to_text, to_text_with};
pub use onnx_syntax::{
    LineColumn, ParseError, Span, parse_function, parse_functions, parse_graph, parse_model,
    parse_node, parse_node_list, parse_nodes,
};

pub use onnx_macro::{include_onnx, onnx, onnx_function, onnx_functions, onnx_graph, onnx_node, onnx_nodes};

/// What the macros' expansions call. Not public API: it may change in any release.
#[doc(hidden)]
pub mod __private {
    use prost::Message;

    /// Decodes bytes that a macro encoded at compile time from a message of the same type.
    pub fn decode<M: Message + Default>(bytes: &[u8]) -> M {
        M::decode(bytes).unwrap_or_else(|e| unreachable!("onnx-text macro output does not decode: {e}"))
    }

    /// Decodes a list of length-delimited messages that a macro encoded at compile time.
    pub fn decode_list<M: Message + Default>(mut bytes: &[u8]) -> Vec<M> {
        let mut messages = Vec::new();
        while !bytes.is_empty() {
            match M::decode_length_delimited(&mut bytes) {
                Ok(message) => messages.push(message),
                Err(e) => unreachable!("onnx-text macro output does not decode: {e}"),
            }
        }
        messages
    }
}
