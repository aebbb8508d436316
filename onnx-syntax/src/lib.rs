//! The onnx-text engine.
