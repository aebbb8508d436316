//! The `eval` fuzz target; see `onnx_text_fuzz::eval_target`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| onnx_text_fuzz::eval_target(data));
