//! Every input that made a fuzz target fail, kept in `tests/fuzz_regressions/` and replayed on
//! the stable toolchain through every target's assertions, with every entry point: the code is
//! the fuzz targets' own (`fuzz/src/lib.rs`), so a replay asserts exactly what caught the input.
//!
//! To add one: copy `fuzz/artifacts/<target>/crash-…` here under a name that says what it was.

use crate::harness;

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

/// The `infer` target on the corpus models' bytes with random bytes changed, on stable (the
/// fuzzer needs nightly): a short, deterministic stand-in for a fuzzing run.
#[test]
fn mutated_corpus_models_pass_the_infer_target() {
    mutated_corpus_models(&[0], harness::infer_target);
}

/// The same for the `check_model` target, which reads raw bytes (no selector).
#[test]
fn mutated_corpus_models_pass_the_check_model_target() {
    mutated_corpus_models(&[], harness::check_model_target);
}

/// Runs `target` on each backend corpus model's bytes, after `prefix`, with one or two random
/// bytes changed, four times per model.
fn mutated_corpus_models(prefix: &[u8], target: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/backend");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.to_string_lossy().ends_with(".model.pb"))
        .collect();
    paths.sort();
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut decoded = 0;
    let start = prefix.len();
    for path in &paths {
        let model = std::fs::read(path).unwrap();
        for _ in 0..4 {
            let mut data = prefix.to_vec();
            data.extend_from_slice(&model);
            for _ in 0..1 + next() % 2 {
                let at = start + (next() as usize) % (data.len() - start).max(1);
                if at < data.len() {
                    data[at] = next() as u8;
                }
            }
            decoded += usize::from(
                <onnx_text::ModelProto as onnx_text::prost::Message>::decode(&data[start..])
                    .is_ok(),
            );
            let outcome = std::panic::catch_unwind(|| target(&data));
            assert!(outcome.is_ok(), "{} mutated fails", path.display());
        }
    }
    assert!(decoded > 1000, "only {decoded} mutants decode");
}
