//! Bad input gets an error, never a panic: every entry point on mutated and truncated corpus
//! texts, through the assertions of the fuzz targets (`fuzz/src/lib.rs`): parse, check, print
//! then parse again to the same bytes, and format keeping the comments.
//!
//! The mutations are deterministic (a fixed-seed xorshift), so a failure reproduces exactly.

use crate::harness;

use std::path::Path;

/// Runs every entry point, the checks and the round trip on `text`; a panic fails the test with
/// the input that caused it.
fn parse_everything(text: &str) {
    let outcome = std::panic::catch_unwind(|| {
        let mut data = vec![0];
        data.extend_from_slice(text.as_bytes());
        let entries = onnx_syntax::Entry::ALL.len() as u8;
        // Selectors past the entry points run the checks switched off.
        for selector in 0..2 * entries {
            data[0] = selector;
            harness::check_target(&data);
            if selector < entries {
                harness::parse_target(&data);
                harness::roundtrip_target(&data);
                harness::format_target(&data);
            }
        }
    });
    assert!(outcome.is_ok(), "panicked on input {text:?}");
}

use crate::xorshift;
use xorshift::XorShift;

/// Fragments that steer mutants into the grammar's corners.
const FRAGMENTS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "<",
    ">",
    ",",
    ":",
    "=",
    "=>",
    ".",
    "@",
    "?",
    "-",
    "\"",
    "\\",
    "#",
    " ",
    "\n",
    "0",
    "1.5",
    "1e",
    "-inf",
    "nan",
    "float",
    "int4",
    "seq(",
    "map(",
    "opaque(",
    "sparse_tensor(",
    "ints",
    "[]",
    "{}",
    "<>",
    "é",
    "\r\n",
    "x",
    "_",
    "9223372036854775808",
];

fn mutate(text: &str, rng: &mut XorShift) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(bytes.len() + 1);
        match rng.below(3) {
            0 if !bytes.is_empty() => {
                let end = (at + 1 + rng.below(8)).min(bytes.len());
                bytes.drain(at.min(end)..end);
            }
            1 => {
                let fragment = FRAGMENTS[rng.below(FRAGMENTS.len())].as_bytes();
                bytes.splice(at..at, fragment.iter().copied());
            }
            _ => {
                let end = (at + 1 + rng.below(16)).min(bytes.len());
                let copy = bytes[at.min(end)..end].to_vec();
                let to = rng.below(bytes.len() + 1);
                bytes.splice(to..to, copy);
            }
        }
    }
    // Cutting inside a multi-byte character gives invalid UTF-8, which `&str` cannot hold.
    String::from_utf8_lossy(&bytes).into_owned()
}

fn corpus_texts() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut texts = Vec::new();
    for dir in ["handwritten", "divergent", "defs-cc", "schema-functions"] {
        let mut paths: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap_or_else(|e| panic!("cannot read tests/corpus/{dir}: {e}"))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "onnxtxt"))
            .collect();
        paths.sort();
        // An emptied or missing folder would leave nothing to mutate, and the test would pass.
        assert!(
            paths.len() >= 20,
            "tests/corpus/{dir} holds {} texts: the corpus is incomplete",
            paths.len()
        );
        texts.extend(
            paths
                .iter()
                .map(|p| String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned()),
        );
    }
    texts
}

#[test]
fn mutated_corpus_texts_never_panic() {
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let texts = corpus_texts();
    // handwritten/, divergent/, defs-cc/ and schema-functions/ hold 1,510 texts (MANIFEST.txt).
    assert!(texts.len() >= 1500, "only {} corpus texts", texts.len());
    for text in texts {
        for _ in 0..8 {
            parse_everything(&mutate(&text, &mut rng));
        }
    }
}

#[test]
fn every_prefix_of_a_rich_model_is_handled() {
    let text = r#"<ir_version: 10, opset_import: ["" : 21, "local" : 1], metadata_props: ["k" : "v"]>
g (float[N, "M + 1", ?] x, float[2] w = {1.5, -inf}, seq(map(int64, optional(float[])))  s) => (float[N] y)
   <int4[3] p = {33, 3}, string[1] q = {"a\"b"}, float[2] e = ["location": "f.bin"], opaque(a.b, T) o, u>
{
   [n1] y, , z = local.F:ov <a: floats = [1, 2.5], t = float[1] t {1}, b = g2 (c) => (d) { d = Id(c) }, r = @q> (x, "", w) # c
}
<domain: "local", opset_import: ["" : 21]>
F <a: float = 1.0, b> (float[N] X, Y) => (Z) <float t> { Z = Mul (X, Y) }
"#;
    assert!(
        onnx_text::parse_model(text).is_ok(),
        "the whole text is valid"
    );
    let graph_end = text.find("# c\n}").unwrap() + 4;
    for end in (0..text.len()).filter(|&i| text.is_char_boundary(i)) {
        parse_everything(&text[..end]);
        // Any cut inside the graph leaves an incomplete model.
        if end < graph_end {
            assert!(
                onnx_text::parse_model(&text[..end]).is_err(),
                "cut at {end}"
            );
        }
    }
}
