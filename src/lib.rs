//! onnx-text: the ONNX textual model syntax for Rust, checked at compile time.
//!
//! Write a model as a literal instead of hundreds of lines of [`ModelProto`] struct literals or a
//! binary file made by a Python script. [`onnx!`] parses and checks it when the crate compiles,
//! and gives the protobuf message, byte for byte what the reference parser (onnx 1.23.2,
//! `onnx.parser`) gives for the same text:
//!
//! ```
//! use onnx_text::{ModelProto, onnx};
//!
//! let model: ModelProto = onnx! {
//!     <ir_version: 10, opset_import: ["" : 21]>
//!     agraph (float[N, 128] X, float[128, 10] W, float[10] B) => (float[N, 10] C) {
//!         T = MatMul (X, W)
//!         S = Add (T, B)
//!         C = Softmax (S)
//!     }
//! };
//! assert_eq!(model.graph.unwrap().node.len(), 3);
//! ```
//!
//! A model that parses but is malformed does not compile. With `W` of the wrong shape,
//!
//! ```compile_fail
//! use onnx_text::{ModelProto, onnx};
//!
//! fn main() {
//!     let model: ModelProto = onnx! {
//!         <ir_version: 10, opset_import: ["" : 21]>
//!         agraph (float[N, 128] X, float[64, 10] W) => (float[N, 10] C) {
//!             T = MatMul (X, W)
//!             C = Softmax (T)
//!         }
//!     };
//!     print!("{}", onnx_text::to_text(&model));
//! }
//! ```
//!
//! rustc says, on the offending token:
//!
//! ```text
//! error: [incompatible_shapes] MatMul: inner dims differ: [N, 128] by [64, 10] (128 against 64)
//!  --> src/main.rs:7:28
//!   |
//! 7 |             T = MatMul (X, W)
//!   |                            ^
//! ```
//!
//! Every independent problem is reported in one build; [`guide::literals`] has the other macros
//! and [`guide::checks`] every check. Rust values go into literals as `#x` ([`guide::interpolation`]).
//!
//! Functions that models call live in libraries. [`onnx_library!`] defines one as a static,
//! checked as it compiles and documented with every function's signature; literals in any crate
//! see it with `#![library(...)]`, and `#![attach(...)]` or `#![inline(...)]` also carry its
//! functions into the model or replace the calls by their bodies ([`guide::opset_crates`]):
//!
//! ```
//! use onnx_text::{ModelProto, onnx, onnx_library};
//!
//! onnx_library! {
//!     /// Activations of the `com.acme` domain.
//!     pub static ACME;
//!     <domain: "com.acme", opset_import: ["" : 21]>
//!     Swish2 <beta: float = 1.0> (x) => (y) {
//!         b = Constant <value_float: float = @beta> ()
//!         bx = Mul (b, x)
//!         s = Sigmoid (bx)
//!         y = Mul (x, s)
//!     }
//! }
//!
//! fn main() {
//!     // For runtimes that run model-local functions (onnxruntime): the model carries them.
//!     let attached: ModelProto = onnx! {
//!         #![attach(ACME)]
//!         <ir_version: 10, opset_import: ["" : 21, "com.acme" : 1]>
//!         g (float[N, 8] x) => (float[N, 8] y) { y = com.acme.Swish2 <beta = 2.0> (x) }
//!     };
//!     assert_eq!(attached.functions.len(), 1);
//!
//!     // For those that do not (tract, candle, burn): the calls are replaced by their bodies.
//!     let inlined: ModelProto = onnx! {
//!         #![inline(ACME)]
//!         <ir_version: 10, opset_import: ["" : 21, "com.acme" : 1]>
//!         g (float[N, 8] x) => (float[N, 8] y) { y = com.acme.Swish2 <beta = 2.0> (x) }
//!     };
//!     let ops: Vec<_> = inlined.graph.unwrap().node.iter().map(|n| n.op_type().to_owned()).collect();
//!     assert_eq!(ops, ["Constant", "Mul", "Sigmoid", "Mul"]);
//! }
//! ```
//!
//! A call is checked against the library as an operator is against its schema:
//!
//! ```compile_fail
//! # use onnx_text::{ModelProto, onnx, onnx_library};
//! # onnx_library! {
//! #     pub static ACME;
//! #     <domain: "com.acme", opset_import: ["" : 21]>
//! #     Swish2 <beta: float = 1.0> (x) => (y) {
//! #         b = Constant <value_float: float = @beta> ()
//! #         bx = Mul (b, x)
//! #         s = Sigmoid (bx)
//! #         y = Mul (x, s)
//! #     }
//! # }
//! # fn main() {
//! let model: ModelProto = onnx! {
//!     #![inline(ACME)]
//!     <ir_version: 10, opset_import: ["" : 21, "com.acme" : 1]>
//!     g (float[N, 8] x) => (float[N, 8] y) { y = com.acme.Swish2 <bta = 2.0> (x) }
//! };
//! # print!("{}", onnx_text::to_text(&model));
//! # }
//! ```
//!
//! does not compile; rustc says, on `bta`:
//!
//! ```text
//! error: [function_signature] function `com.acme.Swish2` (library `ACME`) has no attribute `bta`; did you mean `beta`?
//! ```
//!
//! The same parser and checks run at runtime, for text read from files ([`parse_model`],
//! [`check_model`], and the printer [`to_text`]), with positioned, rustc-style errors
//! ([`guide::runtime`]):
//!
//! ```
//! let model = onnx_text::check_model(r#"
//!     <ir_version: 10, opset_import: ["" : 21]>
//!     g (float[N] x) => (float[N] y) { y = Relu(x) }
//! "#)?;
//! assert!(onnx_text::to_text(&model).contains("y = Relu (x)"));
//!
//! let err = onnx_text::check_model(r#"<opset_import: ["" : 21]> g (x) => (y) { y = Rleu(x) }"#).unwrap_err();
//! assert!(err.to_string().contains("did you mean `Relu`?"), "{err}");
//! # Ok::<(), onnx_text::Diagnostics>(())
//! ```
//!
//! The `onnx-text` command formats, checks, converts, prints and infers the shapes of models,
//! and serves editors as a language server ([`guide::cli`], [`guide::editors`]). The
//! [`guide`] has the rest: function libraries at runtime, validating untrusted binary models,
//! shape inference, conformance with the reference, and limits.
//!
//! Every ONNX protobuf message is re-exported here (`onnx_text::ModelProto`, …), with the nested
//! modules prost generates (`onnx_text::tensor_proto::DataType`, …) and `onnx_text::prost`.

// Re-exported by name, not by glob, so that nothing lands in this API by accident.
pub use onnx_print::{Style, ToText, to_text, to_text_with};
pub use onnx_runtime_types::{
    AttributeProto, DeviceConfigurationProto, FILE_DESCRIPTOR_SET, FunctionProto, GraphProto,
    IntIntListEntryProto, ModelProto, NodeDeviceConfigurationProto, NodeProto, OperatorSetIdProto,
    OperatorStatus, ShardedDimProto, ShardingSpecProto, SimpleShardedDimProto, SparseTensorProto,
    StringStringEntryProto, TensorAnnotation, TensorProto, TensorShapeProto, TrainingInfoProto,
    TypeProto, ValueInfoProto, Version, attribute_proto, prost, simple_sharded_dim_proto,
    tensor_proto, tensor_shape_proto, type_proto,
};
// `Entry`, `Tree` and `Proto` stay in onnx-syntax: the names of their variants (`Function`,
// `Node`, …) would make rustc print our traits of the same names with their full paths.
pub use onnx_syntax::{
    LineColumn, ParseError, ParseErrorKind, Span, parse_function, parse_functions, parse_graph,
    parse_model, parse_node, parse_node_list, parse_nodes, text_from_bytes,
};

pub use onnx_check::library::{
    FunctionKey, FunctionLibrary, InlineReport, Inliner, LibraryError, Operands,
    STANDARD_FUNCTION_OPERATORS, attach, inline, standard_function,
};
pub use onnx_infer::{Against, Dim, Inference, Mismatch, Shape, ShapeError, Ty, infer_shapes};

pub use onnx_macro::{
    include_onnx, include_onnx_bytes, onnx, onnx_function, onnx_functions, onnx_graph,
    onnx_library, onnx_node, onnx_nodes,
};

pub mod guide;
pub mod interpolate;

/// What the macros' expansions call. Not public API: it may change in any release.
#[doc(hidden)]
pub mod __private {
    use prost::Message;

    pub use crate::interpolate::*;
    pub use holes::{Holes, Literal, attribute, dimension, inner_type, shape_dims, splice};
    pub use spread::{ByIterator, ByList, SpreadSource, ViaIterator, ViaList};

    mod holes;
    mod spread;

    /// Decodes bytes that a macro encoded at compile time from a message of the same type.
    pub fn decode<M: Message + Default>(bytes: &[u8]) -> M {
        M::decode(bytes)
            .unwrap_or_else(|e| unreachable!("onnx-text macro output does not decode: {e}"))
    }

    /// The library of functions that `onnx_library!` encoded at compile time, where it checked
    /// that no two share a key.
    pub fn library(bytes: &[u8]) -> crate::FunctionLibrary {
        crate::FunctionLibrary::from_functions(decode_list(bytes))
            .unwrap_or_else(|e| unreachable!("onnx_library! output is not a library: {e}"))
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

pub use onnx_check::{
    Check, CheckOptions, Coverage, Diagnostic, DiagnosticKind, Diagnostics, Label, Libraries,
    Report, UnknownCheck,
};
pub use onnx_syntax::diagnostic::Place;
pub use onnx_validate::{DecodeLimits, ModelCheck};

/// Formats the text of a model in the printer's layout (that of `onnx.printer.to_text`), keeping
/// its comments (`#` and `//`) in their places: a comment after a node stays at the end of its
/// line, comment lines before a node, a header entry or a function stay before it, and comments
/// inside lists stay between the same neighbours. The model is unchanged, and formatting the
/// result again changes nothing. This is what `onnx-text fmt` does; for texts that hold a
/// graph, functions or nodes, see `onnx_print::format_text_as`.
///
/// ```
/// let text = "<ir_version: 10, opset_import: [\"\" : 21]>\n\
///             // RUN: onnx-mlir %s\n\
///             g (float[N] x) => (float[N] y) {\n  y = Relu(x) # the only node\n}";
/// assert_eq!(onnx_text::format_text(text)?, "\
/// <
///    ir_version: 10,
///    opset_import: [\"\" : 21]
/// >
/// // RUN: onnx-mlir %s
/// g (float[N] x) => (float[N] y) {
///    y = Relu (x) # the only node
/// }
/// ");
/// # Ok::<(), onnx_text::ParseError>(())
/// ```
pub fn format_text(text: &str) -> Result<String, ParseError> {
    onnx_print::format_text(text)
}

/// Decodes an untrusted binary model and runs every check on it, as
/// `onnx.checker.check_model(full_check=True)` does: the IR's rules on its messages, within
/// [`DecodeLimits`], its external data looked for only inside `model_dir` (the folder of the
/// model file), and the checks of the syntax. Gives the model, or every problem, each named by
/// its place in the model. [`ModelCheck`] takes other options.
///
/// ```
/// use onnx_text::prost::Message;
/// let model = onnx_text::parse_model(r#"
///     <ir_version: 10, opset_import: ["" : 21]>
///     g (float[N] x) => (float[N] y) { y = Relu(x) }
/// "#)?;
/// let bytes = model.encode_to_vec();
/// assert!(onnx_text::check_binary_model(&bytes, ".").is_ok());
///
/// let err = onnx_text::check_binary_model(&bytes[..bytes.len() - 3], ".").unwrap_err();
/// assert!(err.to_string().starts_with("error: the bytes cannot be decoded"), "{err}");
/// # Ok::<(), onnx_text::ParseError>(())
/// ```
pub fn check_binary_model(
    bytes: &[u8],
    model_dir: impl AsRef<std::path::Path>,
) -> Result<ModelProto, Diagnostics> {
    ModelCheck::default()
        .model_dir(model_dir.as_ref())
        .check_bytes(bytes)
}

/// Parses a model and runs every check on it (see [`Check`]); a syntax error also comes back as a
/// [`Diagnostic`]. To switch checks off, use [`CheckOptions::check_model`].
///
/// ```
/// let model = onnx_text::check_model(r#"
///     <ir_version: 10, opset_import: ["" : 21]>
///     g (float[N] x) => (float[N] y) { y = Relu(x) }
/// "#)?;
/// assert_eq!(model.graph.unwrap().node.len(), 1);
///
/// let err = onnx_text::check_model(r#"<opset_import: ["" : 21]> g (x) => (y) { y = Add(x, q) }"#).unwrap_err();
/// assert_eq!(err[0].message(), "value `q` is used but never defined");
/// assert_eq!(err[0].check(), Some(onnx_text::Check::UndefinedValue));
/// # Ok::<(), onnx_text::Diagnostics>(())
/// ```
pub fn check_model(text: &str) -> Result<ModelProto, Diagnostics> {
    CheckOptions::default().check_model(text)
}

/// Parses a graph and runs every check on it. A graph on its own has no imports, so domains are
/// not checked.
///
/// ```
/// let err = onnx_text::check_graph("g (x) => (y) {\n  t = Abs(x)\n  t = Neg(x)\n  y = Relu(t)\n}").unwrap_err();
/// assert_eq!(err.to_string(), "\
/// error[duplicate_definition]: `t` is already defined at line 2
///  --> 3:3
///   |
/// 2 |   t = Abs(x)
///   |   - first defined here
/// 3 |   t = Neg(x)
///   |   ^
/// ");
/// ```
pub fn check_graph(text: &str) -> Result<GraphProto, Diagnostics> {
    CheckOptions::default().check_graph(text)
}

/// Parses a function and runs every check on it; its body sees its inputs and attributes.
///
/// ```
/// let f = onnx_text::check_function(r#"
///     <domain: "local", opset_import: ["" : 21]>
///     Scale <alpha> (x) => (y) { a = Constant <value_float = @alpha> ()  y = Mul(x, a) }
/// "#)?;
/// assert_eq!(f.node.len(), 2);
/// # Ok::<(), onnx_text::Diagnostics>(())
/// ```
pub fn check_function(text: &str) -> Result<FunctionProto, Diagnostics> {
    CheckOptions::default().check_function(text)
}

/// Parses a function library and runs every check on it; calls into the library's own domains
/// must resolve to its functions.
///
/// ```
/// let lib = onnx_text::check_functions(r#"
///     <domain: "my", opset_import: ["" : 21]> Square (x) => (y) { y = Mul(x, x) }
///     <domain: "my", opset_import: ["" : 21, "my" : 1]> Quad (x) => (y) { s = my.Square(x)  y = my.Square(s) }
/// "#)?;
/// assert_eq!(lib.len(), 2);
/// # Ok::<(), onnx_text::Diagnostics>(())
/// ```
pub fn check_functions(text: &str) -> Result<Vec<FunctionProto>, Diagnostics> {
    CheckOptions::default().check_functions(text)
}

/// Parses a node and runs the checks that apply to a node on its own (duplicate attributes,
/// tensor data, its own outputs).
///
/// ```
/// let err = onnx_text::check_node("y = Constant <value = uint8[2] {1, 256}> ()").unwrap_err();
/// assert_eq!(err[0].message(), "`256` is out of range for uint8: expected 0..=255");
/// ```
pub fn check_node(text: &str) -> Result<NodeProto, Diagnostics> {
    CheckOptions::default().check_node(text)
}

/// Parses a sequence of nodes without braces and runs the checks that apply: names no node
/// defines are inputs of the enclosing context, but SSA and order are checked.
///
/// ```
/// assert!(onnx_text::check_nodes("t = Abs(x)  y = Neg(t)").is_ok());
/// let err = onnx_text::check_nodes("y = Neg(t)  t = Abs(x)").unwrap_err();
/// assert_eq!(err[0].message(), "value `t` is used before its definition at line 1");
/// ```
pub fn check_nodes(text: &str) -> Result<Vec<NodeProto>, Diagnostics> {
    CheckOptions::default().check_nodes(text)
}

/// Parses a braced node list `{ node* }` and runs the checks that apply, as [`check_nodes`].
///
/// ```
/// assert!(onnx_text::check_node_list("{ t = Abs(x)  y = Neg(t) }").is_ok());
/// ```
pub fn check_node_list(text: &str) -> Result<Vec<NodeProto>, Diagnostics> {
    CheckOptions::default().check_node_list(text)
}

/// Every Rust code block of README.md, compiled and run by `cargo test --doc`: a newcomer copies
/// those first.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
