//! Runtime parsing: `parse_model` on node-heavy chains (1k to 100k nodes, for scaling), on a
//! 100k-node chain with two attributes per node, on the whole conformance corpus, and on a model with a 9 MB float initializer; `check_model` (parse
//! and every check) on the same chains; and the floor of any parser that returns a prost
//! `ModelProto`: building (cloning) and dropping the chain's model with no parsing at all.
//! `scripts/bench.py` times onnx's C++ parser on the same
//! texts in the same run and prints the ratios.
//!
//! Run: `cargo bench --bench parse`.

mod common;

use divan::{Bencher, black_box};

fn main() {
    for nodes in common::CHAIN_SIZES {
        common::publish(&format!("chain_{nodes}"), &common::chain(nodes));
    }
    let nodes = common::ATTRIBUTE_CHAIN_NODES;
    common::publish(
        &format!("chain_attributes_{nodes}"),
        &common::chain_attributes(nodes),
    );
    common::publish(
        "float_initializer_9mb",
        &common::float_initializer(common::FLOAT_INITIALIZER_BYTES),
    );
    common::publish_corpus(&common::corpus_models());
    divan::main();
}

#[divan::bench(args = common::CHAIN_SIZES, max_time = 3)]
fn parse_model_chain(bencher: Bencher, nodes: usize) {
    let text = common::chain(nodes);
    bencher.bench(|| onnx_text::parse_model(black_box(&text)).map(|m| m.graph.is_some()));
}

/// What the output alone costs: every `String` and `Vec` of the model allocated, filled and
/// freed, as a parse must do. No parser producing prost types can be faster than this.
#[divan::bench(args = common::CHAIN_SIZES, max_time = 3)]
fn clone_model_chain(bencher: Bencher, nodes: usize) {
    let model = onnx_text::parse_model(&common::chain(nodes)).expect("the chain parses");
    bencher.bench(|| black_box(&model).clone().graph.is_some());
}

/// The chain of two-attribute nodes, and its floor (as `clone_model_chain`).
#[divan::bench(max_time = 5)]
fn parse_model_chain_attributes(bencher: Bencher) {
    let text = common::chain_attributes(common::ATTRIBUTE_CHAIN_NODES);
    bencher.bench(|| onnx_text::parse_model(black_box(&text)).map(|m| m.graph.is_some()));
}

#[divan::bench(max_time = 5)]
fn clone_model_chain_attributes(bencher: Bencher) {
    let text = common::chain_attributes(common::ATTRIBUTE_CHAIN_NODES);
    let model = onnx_text::parse_model(&text).expect("the chain parses");
    bencher.bench(|| black_box(&model).clone().graph.is_some());
}

#[divan::bench(args = common::CHAIN_SIZES, max_time = 3)]
fn check_model_chain(bencher: Bencher, nodes: usize) {
    let text = common::chain(nodes);
    // The chain is valid: the timing is of a clean pass through every check.
    if let Err(problems) = onnx_text::check_model(&text) {
        panic!("the benchmark chain does not check clean:\n{problems}");
    }
    bencher.bench(|| onnx_text::check_model(black_box(&text)).is_ok());
}

#[divan::bench(max_time = 5)]
fn parse_model_corpus(bencher: Bencher) {
    let models = common::corpus_models();
    bencher.bench(|| {
        models
            .iter()
            .filter(|(_, text)| onnx_text::parse_model(black_box(text)).is_ok())
            .count()
    });
}

#[divan::bench(max_time = 5)]
fn parse_model_float_initializer_9mb(bencher: Bencher) {
    let text = common::float_initializer(common::FLOAT_INITIALIZER_BYTES);
    bencher.bench(|| onnx_text::parse_model(black_box(&text)).map(|m| m.graph.is_some()));
}
