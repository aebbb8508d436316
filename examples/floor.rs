//! Times `parse_model` on a model file against its floor, side by side in one process: the
//! clone and drop of the same `ModelProto`, which any parser returning prost types must at least
//! do. Runs alternate (parse, clone, parse, …) so that both sides see the same machine load, and
//! the best run of each is kept.
//!
//! ```sh
//! cargo run --release --example floor -- target/bench-inputs/chain_attributes_100000.onnxtxt 9
//! ```
//!
//! Prints the best parse, the best clone and drop, and their ratio. It uses only
//! `onnx_text::parse_model`, so the same file can be dropped into an older checkout to compare
//! commits.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::{Duration, Instant};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: floor FILE [RUNS]");
        return ExitCode::FAILURE;
    };
    let runs: usize = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(9);
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let model = match onnx_text::parse_model(&text) {
        Ok(model) => model,
        Err(e) => {
            eprintln!("{}", e.with_origin(path.as_str()));
            return ExitCode::FAILURE;
        }
    };
    let (mut parse, mut floor) = (Duration::MAX, Duration::MAX);
    for _ in 0..runs {
        let start = Instant::now();
        drop(black_box(onnx_text::parse_model(black_box(&text))));
        parse = parse.min(start.elapsed());
        let start = Instant::now();
        drop(black_box(black_box(&model).clone()));
        floor = floor.min(start.elapsed());
    }
    println!(
        "parse {:.2} ms, floor (clone + drop) {:.2} ms, ratio {:.2}x (best of {runs})",
        parse.as_secs_f64() * 1e3,
        floor.as_secs_f64() * 1e3,
        parse.as_secs_f64() / floor.as_secs_f64()
    );
    ExitCode::SUCCESS
}
