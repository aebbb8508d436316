//! Runs one stage of the pipeline on a model file, for profilers: instruction counts from
//! valgrind's callgrind are stable on a shared machine where wall times are not.
//!
//! ```sh
//! cargo build --release --example profile
//! valgrind --tool=callgrind target/release/examples/profile parse target/bench-inputs/chain_10000.onnxtxt
//! ```
//!
//! Stages: `parse` (`parse_model`), `check` (`check_model`: parse and every check), `print`
//! (`to_text`) and `clone` (a copy of the model: the allocations that any parser returning prost
//! types must make). Only `print` and `clone` parse the file first, untimed by the stage itself.

use std::hint::black_box;
use std::process::ExitCode;

const STAGES: [&str; 4] = ["parse", "check", "print", "clone"];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(stage), Some(path)) = (args.first(), args.get(1)) else {
        eprintln!("usage: profile parse|check|print|clone FILE [REPEAT]");
        return ExitCode::FAILURE;
    };
    let stage = stage.as_str();
    if !STAGES.contains(&stage) {
        eprintln!("unknown stage `{stage}`: expected parse, check, print or clone");
        return ExitCode::FAILURE;
    }
    let repeat: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(1);
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let model = if matches!(stage, "print" | "clone") {
        match onnx_text::parse_model(&text) {
            Ok(model) => model,
            Err(e) => {
                eprintln!("{}", e.with_origin(path.as_str()));
                return ExitCode::FAILURE;
            }
        }
    } else {
        onnx_text::ModelProto::default()
    };
    for _ in 0..repeat {
        let accepted = match stage {
            "parse" => black_box(onnx_text::parse_model(&text)).is_ok(),
            "check" => black_box(onnx_text::check_model(&text)).is_ok(),
            "print" => !black_box(onnx_text::to_text(&model)).is_empty(),
            _ => black_box(model.clone()).graph.is_some(),
        };
        if !accepted {
            eprintln!("{path}: the {stage} stage failed on this file");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
