//! Runs every case of the conformance kit through the evaluator, one after another on one
//! thread, and prints how many pass and the CPU time the evaluations took (decoding the kit's
//! data and comparing are outside the clock). `scripts/bench_eval.py --kit` runs it in release
//! mode beside onnx's own evaluator.

use std::time::Instant;

fn main() {
    let mut passed = 0;
    let mut seconds = 0.0;
    for case in onnx_conformance::cases() {
        let (model, inputs) = (case.model(), case.inputs());
        let start = Instant::now();
        let outputs = onnx_eval::run(&model, &inputs);
        seconds += start.elapsed().as_secs_f64();
        if outputs.is_ok_and(|outputs| case.check(&outputs).is_ok()) {
            passed += 1;
        }
    }
    println!(
        "{passed} of {} cases pass; evaluation took {seconds:.3} s",
        onnx_conformance::cases().len()
    );
}
