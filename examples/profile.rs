//! Runs one stage of the pipeline on a model file, for profilers: instruction counts from
//! valgrind's callgrind are stable on a shared machine where wall times are not.
//!
//! ```sh
//! cargo build --release --example profile
//! valgrind --tool=callgrind target/release/examples/profile parse target/bench-inputs/chain_10000.onnxtxt
//! ```
//!
//! Stages: `parse` (`parse_model`), `check` (`check_model`: parse and every check), `print`
//! (`to_text` of the parsed model) and `clone` (a copy of the parsed model: the allocations
//! that any parser returning prost types must make). The file is parsed once before the stage.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(stage), Some(path)) = (args.first(), args.get(1)) else {
        eprintln!("usage: profile parse|check|print|clone FILE [REPEAT]");
        return ExitCode::FAILURE;
    };
    let repeat: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(1);
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
    for _ in 0..repeat {
        match stage.as_str() {
            "parse" => drop(std::hint::black_box(onnx_text::parse_model(&text))),
            "check" => drop(std::hint::black_box(onnx_text::check_model(&text))),
            "print" => drop(std::hint::black_box(onnx_text::to_text(&model))),
            "clone" => drop(std::hint::black_box(model.clone())),
            other => {
                eprintln!("unknown stage `{other}`: expected parse, check, print or clone");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
