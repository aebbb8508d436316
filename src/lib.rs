//! onnx-text: the ONNX textual model syntax for Rust.
