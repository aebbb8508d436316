//! Times a binary model on inputs from `.pb` files: `time_model MODEL.onnx RUNS IN.pb... -o DIR`
//! resolves the model once (`Evaluator::new`), runs it once untimed (as onnxruntime's side of
//! `scripts/bench_eval.py` warms up its session: what a node prepares on its first run, such as
//! a tree ensemble's forest, onnxruntime prepares when the session is made), then RUNS timed
//! times; it prints the median time of one run and writes the outputs of the last run to DIR as
//! `output_N.pb`. `scripts/bench_eval.py` runs it in release mode beside onnxruntime.

use onnx_eval::{Evaluator, Value};
use onnx_text::prost::Message;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (model_path, runs) = match &args[..] {
        [model, runs, ..] => (model, runs.parse::<usize>()?),
        _ => return Err("usage: time_model MODEL.onnx RUNS IN.pb... -o DIR".into()),
    };
    let out_at = args.iter().position(|a| a == "-o").ok_or("no -o DIR")?;
    let out_dir = std::path::Path::new(&args[out_at + 1]);
    let model = onnx_text::ModelProto::decode(&std::fs::read(model_path)?[..])?;
    let graph = model.graph.as_ref().ok_or("no graph")?;
    let inputs = args[2..out_at]
        .iter()
        .zip(&graph.input)
        .map(|(path, info)| {
            Value::decode(info.r#type.as_ref(), &std::fs::read(path)?).map_err(Into::into)
        })
        .collect::<Result<Vec<Value>, Box<dyn std::error::Error>>>()?;
    let evaluator = Evaluator::new(&model)?;
    let mut outputs = evaluator.run(&inputs)?;
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        outputs = evaluator.run(&inputs)?;
        times.push(start.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    println!(
        "median {:.4} s over {} runs",
        times[times.len() / 2],
        times.len()
    );
    std::fs::create_dir_all(out_dir)?;
    for (i, output) in outputs.iter().enumerate() {
        std::fs::write(out_dir.join(format!("output_{i}.pb")), output.encode())?;
    }
    Ok(())
}
