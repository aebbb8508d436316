//! The integration tests of the facade, as one test binary: one link instead of one per file.
//! Each file is a module; the generated token-mode tests (`tests/token_mode*.rs`) and the corpus
//! and validator runners (their own harness) stay binaries of their own.

mod api;
mod checks;
mod divergences;
mod editors;
mod error_kinds;
mod format;
mod fuzz_regressions;
mod inline;
mod inline_mutations;
mod interpolation;
mod interpolation_proptest;
mod limits;
mod literals;
mod macros;
mod no_panic;
mod printer;
mod readme;
mod ui;

/// The fuzz targets' own assertions (`fuzz/src/lib.rs`), which `fuzz_regressions`, `no_panic`
/// and `inline_mutations` replay.
#[path = "../../fuzz/src/lib.rs"]
mod harness;
#[path = "../support/pathological.rs"]
mod pathological;
#[path = "../support/xorshift.rs"]
mod xorshift;
