//! What the procedural macros of `onnx-text` do, as a plain library: Rust tokens in, Rust tokens
//! out. The proc-macro crate `onnx-macro` only hands its input to these functions, so that the
//! expansion is unit-tested without rustc, and so that this code compiles as an ordinary
//! library, beside the engine it uses, rather than after all of it. Use the macros through the
//! `onnx-text` crate.
//!
//! `tokens` turns the macro input back into ONNX text (taking whole groups' source text where
//! `verbatim` allows, and writing a marker for each Rust value `#x`), the engine
//! (`onnx-syntax`, `onnx-check`) parses, checks and lowers it, `diagnostics` puts errors on the
//! offending tokens, `codegen` emits the expression that decodes the encoded value, and `holes`
//! the patches that put the Rust values into it. `expand` ties them together; `opset` is
//! `onnx_library!`, and `libraries` how a macro asks the libraries of other crates.

mod codegen;
mod diagnostics;
mod expand;
mod holes;
mod libraries;
mod opset;
mod tokens;
mod verbatim;

#[cfg(test)]
mod tests;

pub use expand::{expand, include, include_bytes};
pub use opset::library;
