//! The evaluator on onnx's node cases, through the conformance kit's harness: the cases it is
//! known to fail are in `onnx-conformance.toml` beside this crate's `Cargo.toml`, and a case
//! that passes while listed fails the run, so the list only shrinks.

fn main() {
    onnx_conformance::harness(|case, inputs| onnx_eval::run(&case.model(), &inputs))
}
