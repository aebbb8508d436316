//! Conformance with the reference parser (onnx 1.23.2) on the committed corpus.
//!
//! `scripts/gen_corpus.py` writes each case as `<stem>.<entry>.onnxtxt`, plus either
//! `<stem>.<entry>.pb` (the reference accepted it: the golden bytes) or `<stem>.<entry>.rejected`
//! (the reference rejected it: its message). Every accepted case must give byte-identical
//! protobuf, and every rejected case must be rejected. `divergent/` holds the cases where we
//! deliberately differ (docs/divergences.md): there we must not give the reference's bytes.
//!
//! This is a `harness = false` test so that it always prints its counts.

use std::fmt::Debug;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use onnx_text::prost::Message;
use onnx_text::{FunctionProto, GraphProto, ModelProto, NodeProto, ParseError};

/// Parses `text` as `entry` and encodes the result.
fn parse(entry: &str, text: &str) -> Result<Vec<u8>, ParseError> {
    Ok(match entry {
        "model" => onnx_text::parse_model(text)?.encode_to_vec(),
        "graph" => onnx_text::parse_graph(text)?.encode_to_vec(),
        "function" => onnx_text::parse_function(text)?.encode_to_vec(),
        "node" => onnx_text::parse_node(text)?.encode_to_vec(),
        other => panic!("unknown corpus entry point `{other}`"),
    })
}

/// Where the tree's lowering differs from what `parse_*` give, if anywhere. The `parse_*`
/// functions lower each node as soon as it is read (`Entry::parse_proto`); the checks and the
/// macros parse the whole tree and lower it after (`Entry::parse` then `Tree::lower`). Both must
/// give the same messages, or the same error.
fn tree_difference(entry: &str, text: &str) -> Option<String> {
    let entry: onnx_syntax::Entry = entry.parse().expect("a corpus entry point");
    // Bytes, not messages: a NaN is not equal to itself.
    let direct = entry.parse_proto(text).map(onnx_syntax::Proto::encode);
    let through_tree = entry.parse(text).map(|tree| tree.lower().encode());
    (direct != through_tree).then(|| match (direct, through_tree) {
        (Err(direct), Err(through_tree)) => {
            format!("parse_proto fails with\n{direct}\nwhere parse fails with\n{through_tree}")
        }
        (Ok(_), Ok(_)) => "parse_proto and parse then lower give different bytes".to_owned(),
        _ => "parse_proto and parse then lower do not both accept it".to_owned(),
    })
}

/// A readable account of how `ours` differs from `golden`: the decoded messages side by side.
fn explain(entry: &str, ours: &[u8], golden: &[u8]) -> String {
    fn show<M: Message + Default + Debug>(bytes: &[u8]) -> String {
        match M::decode(bytes) {
            Ok(m) => format!("{m:#?}"),
            Err(e) => format!("<undecodable: {e}>"),
        }
    }
    let (a, b) = match entry {
        "model" => (show::<ModelProto>(ours), show::<ModelProto>(golden)),
        "graph" => (show::<GraphProto>(ours), show::<GraphProto>(golden)),
        "function" => (show::<FunctionProto>(ours), show::<FunctionProto>(golden)),
        _ => (show::<NodeProto>(ours), show::<NodeProto>(golden)),
    };
    let first = a
        .lines()
        .zip(b.lines())
        .position(|(x, y)| x != y)
        .unwrap_or(0);
    let context = |s: &str| {
        s.lines()
            .skip(first.saturating_sub(3))
            .take(8)
            .collect::<Vec<_>>()
            .join("\n")
    };
    format!(
        "first difference at decoded line {first}\n--- ours\n{}\n--- reference\n{}",
        context(&a),
        context(&b)
    )
}

#[derive(Default)]
struct Tally {
    accepted: usize,
    rejected: usize,
    failures: Vec<String>,
}

fn cases(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "onnxtxt"))
        .collect();
    files.sort();
    files
}

fn run_case(text_path: &Path, divergent: bool, tally: &mut Tally) {
    let stem = text_path
        .file_stem()
        .and_then(|s| s.to_str())
        .expect("utf-8 file name");
    let entry = stem.rsplit('.').next().expect("entry point in file name");
    let bytes = std::fs::read(text_path).expect("readable case");
    let golden = std::fs::read(text_path.with_extension("pb")).ok();
    let name = text_path.display();
    // A text that is not UTF-8 cannot reach the `&str` API; it counts as rejected.
    let result = String::from_utf8(bytes.clone())
        .map_err(|_| "invalid UTF-8".to_owned())
        .and_then(|text| parse(entry, &text).map_err(|e| e.to_string()));
    if let Some(difference) = std::str::from_utf8(&bytes)
        .ok()
        .and_then(|text| tree_difference(entry, text))
    {
        tally.failures.push(format!("{name}: {difference}"));
    }
    match (golden, result, divergent) {
        (Some(golden), Ok(ours), false) if ours == golden => tally.accepted += 1,
        (Some(golden), Ok(ours), false) => tally.failures.push(format!(
            "{name}: bytes differ from the reference\n{}",
            explain(entry, &ours, &golden)
        )),
        (Some(_), Err(e), false) => tally
            .failures
            .push(format!("{name}: the reference accepts it, we reject:\n{e}")),
        (None, Err(_), _) => tally.rejected += 1,
        (None, Ok(_), _) => tally
            .failures
            .push(format!("{name}: the reference rejects it, we accept it")),
        (Some(golden), Ok(ours), true) if ours == golden => tally.failures.push(format!(
            "{name}: a divergent case gives the reference's bytes; move it out of divergent/"
        )),
        (Some(_), Ok(_), true) => tally.accepted += 1,
        (Some(_), Err(_), true) => tally.rejected += 1,
    }
}

fn main() -> ExitCode {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("tests/corpus exists")
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    let mut failures = Vec::new();
    let (mut passed, mut total_accepted, mut total_rejected) = (0, 0, 0);
    for dir in dirs {
        let label = dir
            .file_name()
            .and_then(|s| s.to_str())
            .unwrap_or("?")
            .to_owned();
        let divergent = label == "divergent";
        let mut tally = Tally::default();
        for case in cases(&dir) {
            run_case(&case, divergent, &mut tally);
        }
        let (accepted, rejected) = if divergent {
            (
                "accepted, differing from the reference by design",
                "rejected",
            )
        } else {
            ("accepted byte-identical", "rejected as by the reference")
        };
        println!(
            "corpus {label:>16}: {} {accepted}, {} {rejected}, {} failed",
            tally.accepted,
            tally.rejected,
            tally.failures.len()
        );
        passed += tally.accepted + tally.rejected;
        if !divergent {
            total_accepted += tally.accepted;
            total_rejected += tally.rejected;
        }
        failures.extend(tally.failures);
    }
    for failure in failures.iter().take(20) {
        println!("\nFAILED {failure}");
    }
    if failures.len() > 20 {
        println!("\n… and {} more failures", failures.len() - 20);
    }
    println!(
        "corpus total: {total_accepted} accepted byte-identical, {total_rejected} rejected as by the \
         reference (divergent/ not included)"
    );
    println!("corpus: {passed} passed, {} failed", failures.len());
    if failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
