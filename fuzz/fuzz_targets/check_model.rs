//! The `check_model` fuzz target; see `onnx_text_fuzz::check_model_target`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| onnx_text_fuzz::check_model_target(data));
