//! The node and model tests of the 16 onnx releases tract's own suite runs, through the runner
//! of ../../tests/tract (the same one as 1.23.2's run): `cargo test --manifest-path
//! examples/conformance-tract/Cargo.toml -p conformance-tract-releases` (`-- 1.9.0::` runs one
//! release).

#[path = "../../tests/tract/mod.rs"]
mod tract;

/// The releases tract-onnx 0.23.9's suite runs (test-rt/suite-onnx, features `onnx_1_4_1` …
/// `onnx_1_19_1`).
const TRACT_RELEASES: [&str; 16] = [
    "1.4.1", "1.5.0", "1.6.0", "1.7.0", "1.8.1", "1.9.0", "1.10.2", "1.11.0", "1.12.0", "1.13.0",
    "1.14.1", "1.15.0", "1.16.2", "1.17.0", "1.18.0", "1.19.1",
];

fn main() {
    onnx_conformance::harness_releases(&TRACT_RELEASES, |case, inputs| {
        tract::run(case, inputs).map_err(|e| format!("{e:#}"))
    })
}
