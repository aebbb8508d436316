//! Procedural macros of `onnx-text`. Use them through the `onnx-text` crate, which re-exports them.
//!
//! The macros themselves arrive with the macro issue; this crate is deliberately empty until then.
