//! Getting a `ModelProto` from a literal at runtime, against prost-decoding the same bytes: the
//! macros embed the encoded model and decode it, so the two should cost the same. The model is
//! the wheel's DenseNet-121 (238 KB of text, 910 nodes), through `include_onnx!` (the same code
//! generation as `onnx!`); the bytes are the reference's for that text.
//!
//! Run: `cargo bench --bench materialize`.

use divan::black_box;
use onnx_text::prost::Message;
use onnx_text::{ModelProto, include_onnx};

fn main() {
    divan::main();
}

const REFERENCE_BYTES: &[u8] =
    include_bytes!("../tests/corpus/shipped/light-light_densenet121.model.pb");

#[divan::bench(max_time = 2)]
fn literal() -> ModelProto {
    include_onnx!("tests/corpus/shipped/light-light_densenet121.model.onnxtxt")
}

#[divan::bench(max_time = 2)]
fn decode() -> ModelProto {
    ModelProto::decode(black_box(REFERENCE_BYTES)).unwrap_or_default()
}
