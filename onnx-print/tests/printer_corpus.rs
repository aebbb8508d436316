//! The printer on the conformance corpus (`tests/corpus/`, generated from onnx 1.23.2).
//!
//! * Printer goldens: for every `<stem>.<entry>.source.pb` (the proto the reference printer was
//!   given), `to_text_with(source, Style::Reference)` must equal `<stem>.<entry>.onnxtxt`, which
//!   is exactly `onnx.printer.to_text(source)`. The lossless style must give the same text unless
//!   the source has something the reference printer drops (see docs/divergences.md, "Printer"),
//!   and even then its text must parse back to a message that the reference style prints as the
//!   golden, and keep what the reference dropped.
//! * Round trips: for every `<stem>.<entry>.pb` (a message the reference parser produced, so the
//!   syntax can express it), `parse(to_text(m))` must encode to the same bytes.
//!
//! Run with `--nocapture` to see the counts.

use std::fmt::Debug;
use std::path::{Path, PathBuf};

use onnx_print::{Style, ToText, to_text, to_text_with};
use onnx_runtime_types::prost::Message;
use onnx_runtime_types::{FunctionProto, GraphProto, ModelProto, NodeProto};
use onnx_syntax::ParseError;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus");

/// The corpus files of `dir` whose names end with `suffix`, sorted.
fn files(dir: &str, suffix: &str) -> Vec<PathBuf> {
    let dir = Path::new(CORPUS).join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.to_string_lossy().ends_with(suffix))
        .collect();
    files.sort();
    files
}

/// `<dir>/<stem>.<entry>` from a corpus file path, and the entry.
fn case_of(path: &Path, suffix: &str) -> (String, String) {
    let name = path.file_name().unwrap().to_string_lossy();
    let key = name.strip_suffix(suffix).unwrap().to_owned();
    let entry = key.rsplit('.').next().unwrap().to_owned();
    let dir = path
        .parent()
        .unwrap()
        .file_name()
        .unwrap()
        .to_string_lossy();
    (format!("{dir}/{key}"), entry)
}

/// A message type the corpus holds, with its parser.
trait Entry: Message + Default + ToText + PartialEq + Debug + Sized {
    fn parse(text: &str) -> Result<Self, ParseError>;
}

impl Entry for ModelProto {
    fn parse(text: &str) -> Result<Self, ParseError> {
        onnx_syntax::parse_model(text)
    }
}
impl Entry for GraphProto {
    fn parse(text: &str) -> Result<Self, ParseError> {
        onnx_syntax::parse_graph(text)
    }
}
impl Entry for FunctionProto {
    fn parse(text: &str) -> Result<Self, ParseError> {
        onnx_syntax::parse_function(text)
    }
}
impl Entry for NodeProto {
    fn parse(text: &str) -> Result<Self, ParseError> {
        onnx_syntax::parse_node(text)
    }
}

fn decode<M: Entry>(path: &Path) -> M {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    M::decode(bytes.as_slice()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Parses `text` and re-encodes it; the error as text.
fn reparse<M: Entry>(text: &str) -> Result<M, String> {
    M::parse(text).map_err(|e| format!("does not parse: {e}"))
}

#[derive(Default)]
struct GoldenTally {
    cases: usize,
    reference_identical: usize,
    lossless_identical: usize,
    /// Cases where the lossless text differs, because the reference's text loses something.
    lossless_differs: Vec<String>,
    /// Cases the syntax cannot express (`printer/unexpressible-*`).
    unexpressible: Vec<String>,
    failures: Vec<String>,
}

/// The doc strings of a message's functions: the reference printer drops them.
trait FunctionDocs {
    fn function_docs(&self) -> Vec<Option<String>>;
}
impl FunctionDocs for ModelProto {
    fn function_docs(&self) -> Vec<Option<String>> {
        self.functions
            .iter()
            .map(|f| f.doc_string.clone())
            .collect()
    }
}
impl FunctionDocs for FunctionProto {
    fn function_docs(&self) -> Vec<Option<String>> {
        vec![self.doc_string.clone()]
    }
}
impl FunctionDocs for GraphProto {
    fn function_docs(&self) -> Vec<Option<String>> {
        Vec::new()
    }
}
impl FunctionDocs for NodeProto {
    fn function_docs(&self) -> Vec<Option<String>> {
        Vec::new()
    }
}

/// One printer golden: `source` printed in the reference style must be the golden text; in the
/// lossless style it must be the same text, or else text that keeps more than the golden does.
fn golden_case<M: Entry + FunctionDocs>(path: &Path, key: &str, tally: &mut GoldenTally) {
    let stem = path.to_string_lossy().replace(".source.pb", "");
    let golden = std::fs::read_to_string(format!("{stem}.onnxtxt")).expect("golden text");
    // What the reference parser made of the golden text, if it could parse it.
    let golden_parsed = std::fs::read(format!("{stem}.pb")).ok();
    let source: M = decode(path);
    tally.cases += 1;

    let reference = to_text_with(&source, Style::Reference);
    if reference == golden {
        tally.reference_identical += 1;
    } else {
        tally.failures.push(format!(
            "{key}: reference style differs from onnx.printer.to_text\n{}",
            first_difference(&reference, &golden)
        ));
    }

    let lossless = to_text(&source);
    if key.starts_with("printer/unexpressible-") {
        // Nothing the syntax can express: the lossless style prints what it can, like the
        // reference (`...` for data, names without quotes where quotes are not allowed).
        tally.unexpressible.push(key.to_owned());
        if lossless == golden {
            tally.lossless_identical += 1;
        } else {
            tally.failures.push(format!(
                "{key}: unexpressible, yet the lossless text differs\n{}",
                first_difference(&lossless, &golden)
            ));
        }
        return;
    }
    let reparsed: M = match reparse(&lossless) {
        Ok(m) => m,
        Err(e) => {
            tally.failures.push(format!("{key}: lossless text {e}"));
            return;
        }
    };
    if lossless == golden {
        tally.lossless_identical += 1;
    } else if golden_parsed.as_deref() == Some(reparsed.encode_to_vec().as_slice()) {
        tally.failures.push(format!(
            "{key}: the lossless text differs from the reference's but keeps nothing more\n{}",
            first_difference(&lossless, &golden)
        ));
    } else {
        let why = if golden_parsed.is_none() {
            "the reference's text does not parse"
        } else {
            "the reference's text drops data"
        };
        tally.lossless_differs.push(format!("{key}: {why}"));
    }
    // The lossless text holds at least what the reference printed …
    if to_text_with(&reparsed, Style::Reference) != golden {
        tally.failures.push(format!(
            "{key}: the lossless text parses to a message the reference prints differently"
        ));
    }
    // … is stable …
    if to_text(&reparsed) != lossless {
        tally
            .failures
            .push(format!("{key}: print → parse → print is not a fixed point"));
    }
    // … and keeps the function doc strings that the reference drops.
    if reparsed.function_docs() != source.function_docs() {
        tally
            .failures
            .push(format!("{key}: function doc_string lost"));
    }
}

/// Where two texts first differ, with some context.
fn first_difference(ours: &str, golden: &str) -> String {
    let at = ours
        .bytes()
        .zip(golden.bytes())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| ours.len().min(golden.len()));
    let line = golden[..at.min(golden.len())].matches('\n').count() + 1;
    let window = |s: &str| -> String {
        let bytes = &s.as_bytes()[at.saturating_sub(60)..(at + 60).min(s.len())];
        String::from_utf8_lossy(bytes).into_owned()
    };
    format!(
        "  line {line}, byte {at}:\n  ours:      {:?}\n  reference: {:?}",
        window(ours),
        window(golden)
    )
}

#[test]
fn printer_matches_the_reference_goldens() {
    let mut tally = GoldenTally::default();
    for dir in ["backend", "shipped", "schema-functions", "printer"] {
        for path in files(dir, ".source.pb") {
            let (key, entry) = case_of(&path, ".source.pb");
            match entry.as_str() {
                "model" => golden_case::<ModelProto>(&path, &key, &mut tally),
                "graph" => golden_case::<GraphProto>(&path, &key, &mut tally),
                "function" => golden_case::<FunctionProto>(&path, &key, &mut tally),
                "node" => golden_case::<NodeProto>(&path, &key, &mut tally),
                other => panic!("{key}: unexpected entry {other}"),
            }
        }
    }
    println!(
        "printer goldens: {} cases; reference style identical {}/{}; lossless identical {}/{}, \
         differing only where the reference drops data: {}",
        tally.cases,
        tally.reference_identical,
        tally.cases,
        tally.lossless_identical,
        tally.cases,
        tally.lossless_differs.len()
    );
    for line in &tally.lossless_differs {
        println!("  lossless differs: {line}");
    }
    for key in &tally.unexpressible {
        println!("  not expressible in the syntax: {key}");
    }
    assert!(tally.cases >= 2000, "the corpus is missing printer goldens");
    assert!(
        tally.failures.is_empty(),
        "{} failures:\n{}",
        tally.failures.len(),
        tally.failures[..tally.failures.len().min(20)].join("\n")
    );
}

fn round_trip_case<M: Entry>(path: &Path, key: &str, failures: &mut Vec<String>) {
    let bytes = std::fs::read(path).expect("golden bytes");
    let message: M = decode(path);
    let text = to_text(&message);
    match reparse::<M>(&text) {
        Ok(m) if m.encode_to_vec() == bytes => {}
        Ok(m) => failures.push(format!(
            "{key}: round trip changes the message\n--- printed\n{text}\n--- reparsed\n{m:#?}"
        )),
        Err(e) => failures.push(format!("{key}: printed text {e}\n{text}")),
    }
}

#[test]
fn printed_corpus_messages_round_trip_byte_for_byte() {
    let mut failures = Vec::new();
    let mut count = 0;
    // `divergent/` holds the reference's bytes for texts where we deliberately differ, often
    // messages the syntax cannot express (attributes whose list values the reference dropped).
    for dir in [
        "backend",
        "shipped",
        "schema-functions",
        "defs-cc",
        "handwritten",
        "printer",
    ] {
        for path in files(dir, ".pb") {
            let name = path.to_string_lossy();
            if name.ends_with(".source.pb") {
                continue;
            }
            let (key, entry) = case_of(&path, ".pb");
            count += 1;
            match entry.as_str() {
                "model" => round_trip_case::<ModelProto>(&path, &key, &mut failures),
                "graph" => round_trip_case::<GraphProto>(&path, &key, &mut failures),
                "function" => round_trip_case::<FunctionProto>(&path, &key, &mut failures),
                "node" => round_trip_case::<NodeProto>(&path, &key, &mut failures),
                other => panic!("{key}: unexpected entry {other}"),
            }
        }
    }
    println!(
        "round trips: {}/{count} corpus messages print and parse back byte for byte",
        count - failures.len()
    );
    assert!(count >= 2800, "the corpus is missing cases");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures[..failures.len().min(10)].join("\n")
    );
}
