//! The inputs of the benchmarks, generated here once for every benchmark and for the reference:
//! the parse and print benchmarks write the texts they use to the inputs folder
//! (`target/bench-inputs/`, or `$ONNX_TEXT_BENCH_INPUTS`), where `scripts/bench.py` reads them
//! to time onnx 1.23.2 on the same bytes.

// Each benchmark uses only some of these.
#![allow(dead_code)]

use std::fmt::Write;
use std::path::PathBuf;

/// The node counts of the scaling runs.
pub const CHAIN_SIZES: [usize; 3] = [1_000, 10_000, 100_000];

/// The text size of the float-heavy input, `float_initializer_9mb`.
pub const FLOAT_INITIALIZER_BYTES: usize = 9_000_000;

/// A model whose graph is a chain of `nodes` nodes with attributes, cycling through a
/// convolution (int lists), an activation (a float) and an addition of a per-channel bias.
/// Every value is defined before use and every shape agrees, so it checks clean.
pub fn chain(nodes: usize) -> String {
    let mut text = String::with_capacity(nodes * 90);
    text.push_str("<ir_version: 10, opset_import: [\"\" : 21]>\n");
    text.push_str("chain (float[N, 3, 224, 224] x0, float[3, 3, 3, 3] w, float[3, 1, 1] b) => (float[N, 3, 224, 224] y) {\n");
    for i in 0..nodes {
        let (input, output) = (i, i + 1);
        let _ = match i % 3 {
            0 => writeln!(
                text,
                "    x{output} = Conv <kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [1, 1]> (x{input}, w)"
            ),
            1 => writeln!(text, "    x{output} = LeakyRelu <alpha = 0.01> (x{input})"),
            _ => writeln!(text, "    x{output} = Add (x{input}, b)"),
        };
    }
    let _ = writeln!(text, "    y = Identity (x{nodes})\n}}");
    text
}

/// The node count of the attribute-heavy chain, [`chain_attributes`].
pub const ATTRIBUTE_CHAIN_NODES: usize = 100_000;

/// A model whose graph is a chain of `nodes` additions with two attributes each, an int and a
/// string: `x{i+1} = Add <alpha = 1, tag = "t"> (x{i}, b)`. The attribute lists and operand
/// lists of two are where the runtime parser lost speed against its floor after the syntax tree
/// grew (issue 19); this input keeps that visible.
pub fn chain_attributes(nodes: usize) -> String {
    let mut text = String::with_capacity(nodes * 48);
    text.push_str("<ir_version: 10, opset_import: [\"\" : 21]>\n");
    text.push_str("chain_attributes (float[N] x0, float[N] b) => (float[N] y) {\n");
    for i in 0..nodes {
        let _ = writeln!(
            text,
            "    x{} = Add <alpha = 1, tag = \"t\"> (x{i}, b)",
            i + 1
        );
    }
    let _ = writeln!(text, "    y = Identity (x{nodes})\n}}");
    text
}

/// A model with one float initializer of at least `bytes` bytes of text: seven significant
/// digits per value, from a fixed pseudo-random sequence, so every run prints the same.
pub fn float_initializer(bytes: usize) -> String {
    let mut values = String::with_capacity(bytes + 32);
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut count = 0usize;
    while values.len() < bytes {
        // xorshift64: cheap and deterministic.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let value = (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
        if count > 0 {
            values.push_str(", ");
        }
        let _ = write!(values, "{value:.7}");
        count += 1;
    }
    format!(
        "<ir_version: 10, opset_import: [\"\" : 21]>\n\
         weights (float[{count}] x) => (float[{count}] y)\n\
         <float[{count}] w = {{{values}}}>\n\
         {{\n    y = Add (x, w)\n}}\n"
    )
}

/// The conformance corpus: every model text the reference accepts (those with golden bytes),
/// as (path relative to the repository, text), in a fixed order.
pub fn corpus_models() -> Vec<(String, String)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut models = Vec::new();
    let Ok(sets) = std::fs::read_dir(root.join("tests/corpus")) else {
        return models;
    };
    let mut sets: Vec<_> = sets
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    sets.sort();
    for set in sets {
        // divergent/ holds texts where we differ from the reference on purpose.
        if set.ends_with("divergent") {
            continue;
        }
        let Ok(files) = std::fs::read_dir(&set) else {
            continue;
        };
        let mut files: Vec<_> = files.flatten().map(|e| e.path()).collect();
        files.sort();
        for path in files {
            let name = path.to_string_lossy().into_owned();
            let Some(stem) = name.strip_suffix(".model.onnxtxt") else {
                continue;
            };
            if !PathBuf::from(format!("{stem}.model.pb")).exists() {
                continue;
            }
            if let Ok(text) = std::fs::read_to_string(&path) {
                let relative = path.strip_prefix(&root).unwrap_or(&path);
                models.push((relative.to_string_lossy().into_owned(), text));
            }
        }
    }
    models
}

/// The folder the inputs are written to.
pub fn inputs_dir() -> PathBuf {
    std::env::var_os("ONNX_TEXT_BENCH_INPUTS").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-inputs"),
        PathBuf::from,
    )
}

/// Writes `text` as `<name>.onnxtxt` in the inputs folder, for the reference's side of the run.
pub fn publish(name: &str, text: &str) {
    let dir = inputs_dir();
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join(format!("{name}.onnxtxt")), text);
}

/// Writes the list of corpus models (one path per line) to the inputs folder.
pub fn publish_corpus(models: &[(String, String)]) {
    let list: String = models.iter().map(|(path, _)| format!("{path}\n")).collect();
    let dir = inputs_dir();
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join("corpus.txt"), list);
}
