//! The evaluator on every onnx release's node and model tests (since 1.4.1, and 1.23.2's
//! generated node cases), through the conformance kit's harness. The cases it is known to fail
//! are in `onnx-conformance.toml` beside this crate's `Cargo.toml`, each under its test name
//! (`1.9.0::test_abs`), and each wrong by its own spec (a row in docs/divergences.md) or a
//! random draw; a listed case that passes fails the run, so the list only shrinks.
//!
//! One harness test holds every release, 1.23.2's node cases among them: the harness reads one
//! expectation file per crate, and the newest cases would otherwise run twice.

fn main() {
    onnx_conformance::harness_releases(onnx_conformance::releases(), |case, inputs| {
        onnx_eval::run(&case.model(), &inputs)
    })
}
