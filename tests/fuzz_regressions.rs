//! Every input that made a fuzz target fail, kept in `tests/fuzz_regressions/` and replayed on
//! the stable toolchain through every target's assertions, with every entry point: the code is
//! the fuzz targets' own (`fuzz/src/lib.rs`), so a replay asserts exactly what caught the input.
//!
//! To add one: copy `fuzz/artifacts/<target>/crash-…` here under a name that says what it was.

#[path = "../fuzz/src/lib.rs"]
mod harness;

use std::path::Path;

#[test]
fn every_kept_input_passes_every_target() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_none_or(|ext| ext != "md"))
        .collect();
    paths.sort();
    for path in paths {
        let data = std::fs::read(&path).unwrap();
        let outcome = std::panic::catch_unwind(|| harness::every_target(&data));
        assert!(outcome.is_ok(), "{} fails", path.display());
    }
}

#[test]
fn valid_text_and_bad_bytes_pass_every_target() {
    harness::every_target(
        b"\0<ir_version: 10, opset_import: [\"\" : 21]> g (float[N] x) => (float[N] y) { y = Relu(x) }",
    );
    harness::every_target(b"\0g (x) => (y) { y = \xff(x) }");
}
