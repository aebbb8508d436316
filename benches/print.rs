//! `to_text` on a node-heavy model (the 10,000-node chain), on a float-heavy one (the 9 MB
//! initializer), and on the models that ship with the onnx wheel. `scripts/bench.py` times
//! `onnx.printer.to_text` on the same models in the same run and prints the ratios.
//!
//! Run: `cargo bench --bench print`.

mod common;

use divan::{Bencher, black_box};
use onnx_text::ModelProto;

/// The wheel's shipped models, by the name of their corpus files.
const SHIPPED: [&str; 9] = [
    "light_bvlc_alexnet",
    "light_densenet121",
    "light_inception_v1",
    "light_inception_v2",
    "light_resnet50",
    "light_shufflenet",
    "light_squeezenet",
    "light_vgg19",
    "light_zfnet512",
];

fn main() {
    common::publish("chain_10000", &common::chain(10_000));
    common::publish(
        "float_initializer_9mb",
        &common::float_initializer(common::FLOAT_INITIALIZER_BYTES),
    );
    divan::main();
}

fn parsed(text: &str) -> ModelProto {
    onnx_text::parse_model(text).unwrap_or_else(|e| panic!("benchmark input does not parse: {e}"))
}

/// A shipped model as the reference printer was given it (`.source.pb`).
fn shipped(name: &str) -> ModelProto {
    use onnx_text::prost::Message;
    let path = format!(
        "{}/tests/corpus/shipped/light-{name}.model.source.pb",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    ModelProto::decode(bytes.as_slice()).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[divan::bench(max_time = 3)]
fn to_text_chain_10000(bencher: Bencher) {
    let model = parsed(&common::chain(10_000));
    bencher.bench(|| onnx_text::to_text(black_box(&model)));
}

#[divan::bench(max_time = 3)]
fn to_text_float_initializer_9mb(bencher: Bencher) {
    let model = parsed(&common::float_initializer(common::FLOAT_INITIALIZER_BYTES));
    bencher.bench(|| onnx_text::to_text(black_box(&model)));
}

#[divan::bench(args = SHIPPED, max_time = 1)]
fn to_text_shipped(bencher: Bencher, name: &str) {
    let model = shipped(name);
    bencher.bench(|| onnx_text::to_text(black_box(&model)));
}
