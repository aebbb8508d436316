//! `to_text` timings, for `scripts/bench_print.py`, which runs `onnx.printer.to_text` on the same
//! models and reports the ratios.
//!
//! Usage: `cargo bench -p onnx-syntax --bench print -- [MODEL.pb ...]`. For each model (a
//! serialized `ModelProto`; by default a few from `tests/corpus/`), prints one line:
//! `<path> <text bytes> <best nanoseconds per to_text>`, the best of several rounds.

use std::time::{Duration, Instant};

use onnx_runtime_types::ModelProto;
use prost::Message;

const DEFAULT_MODELS: [&str; 4] = [
    "tests/corpus/shipped/light-light_densenet121.model.source.pb",
    "tests/corpus/shipped/light-light_inception_v2.model.source.pb",
    "tests/corpus/printer/floats.model.source.pb",
    "tests/corpus/backend/test_loop11.model.source.pb",
];

/// The best time of one call of `f`, over rounds of at least 50 ms each.
fn best_of(mut f: impl FnMut()) -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..7 {
        let start = Instant::now();
        let mut calls = 0u32;
        while start.elapsed() < Duration::from_millis(50) || calls == 0 {
            f();
            calls += 1;
        }
        best = best.min(start.elapsed() / calls);
    }
    best
}

fn main() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--")) // cargo bench passes --bench
        .collect();
    let paths: Vec<String> = if args.is_empty() {
        DEFAULT_MODELS
            .iter()
            .map(|p| format!("{root}/{p}"))
            .collect()
    } else {
        args
    };
    for path in paths {
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let model = ModelProto::decode(bytes.as_slice()).unwrap_or_else(|e| panic!("{path}: {e}"));
        let len = onnx_syntax::to_text(&model).len();
        let time = best_of(|| {
            std::hint::black_box(onnx_syntax::to_text(std::hint::black_box(&model)));
        });
        println!("{path} {len} {}", time.as_nanos());
    }
}
