//! Measures the pathological inputs of `tests/it/limits.rs`: time of each stage, for one case per
//! run, so that the peak memory of the process (`/usr/bin/time -v`) is that case's.
//!
//! Run: cargo run --release --example limits -- <case>
//! Cases: long-line, long-string, long-tensor, claimed-shape, attributes, duplicate-attributes,
//! nested-graphs, nested-types, nested-lists, nested-parens.

#[path = "../tests/support/pathological.rs"]
mod pathological;

use std::time::Instant;

use onnx_text::prost::Message;

/// Times `f`, printing the stage name and the duration.
fn stage<T>(name: &str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let value = f();
    println!(
        "{name:>10}: {:>8.1} ms",
        start.elapsed().as_secs_f64() * 1e3
    );
    value
}

fn model(text: &str) {
    let model = stage("parse", || onnx_text::parse_model(text)).expect("parses");
    stage("check", || onnx_text::check_model(text)).expect("checks");
    let printed = stage("print", || onnx_text::to_text(&model));
    let again = stage("reparse", || onnx_text::parse_model(&printed)).expect("reparses");
    assert_eq!(model.encode_to_vec(), again.encode_to_vec());
}

fn node(text: &str, checks: bool) {
    let node = stage("parse", || onnx_text::parse_node(text)).expect("parses");
    let checked = stage("check", || onnx_text::check_node(text));
    assert_eq!(checked.is_ok(), checks, "check verdict");
    if let Err(diagnostics) = checked {
        let shown = stage("display", || diagnostics.to_string());
        println!(
            "{:>10}: {} diagnostics, {} bytes shown",
            "",
            diagnostics.len(),
            shown.len()
        );
    }
    let printed = stage("print", || onnx_text::to_text(&node));
    let again = stage("reparse", || onnx_text::parse_node(&printed)).expect("reparses");
    assert_eq!(node.encode_to_vec(), again.encode_to_vec());
}

fn rejected(text: &str) {
    let err = stage("parse", || onnx_text::parse_node(text)).expect_err("rejected");
    stage("check", || onnx_text::check_node(text)).expect_err("rejected");
    println!(
        "{:>10}: {}:{} {}",
        "error",
        err.line(),
        err.column(),
        err.message()
    );
}

fn main() {
    let case = std::env::args().nth(1).unwrap_or_default();
    let text = match case.as_str() {
        "long-line" => pathological::long_line_model(10 << 20),
        "long-string" => pathological::long_string_node(10 << 20),
        "long-tensor" => pathological::long_tensor_node(10 << 20),
        "claimed-shape" => pathological::claimed_shape_node("float", 1 << 30),
        "attributes" => pathological::many_attributes_node(1_000_000, false),
        "duplicate-attributes" => pathological::many_attributes_node(1_000_000, true),
        "nested-graphs" => pathological::nested_graphs(100_000),
        "nested-types" => pathological::nested_types(100_000),
        "nested-lists" => pathological::nested_in_attribute("[", "]", 100_000),
        "nested-parens" => pathological::nested_in_attribute("(", ")", 100_000),
        other => panic!("unknown case `{other}`"),
    };
    println!("{case}: {} bytes", text.len());
    match case.as_str() {
        "long-line" => model(&text),
        "long-string" | "long-tensor" | "attributes" => node(&text, true),
        "claimed-shape" | "duplicate-attributes" => node(&text, false),
        _ => rejected(&text),
    }
}
