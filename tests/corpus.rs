//! Conformance with the reference parser (onnx 1.23.2) on the committed corpus.
//!
//! `scripts/gen_corpus.py` writes each case as `<stem>.<entry>.onnxtxt`, plus either
//! `<stem>.<entry>.pb` (the reference accepted it: the golden bytes) or `<stem>.<entry>.rejected`
//! (the reference rejected it: its message). Every accepted case must give byte-identical
//! protobuf, and every rejected case must be rejected. `divergent/` holds the cases where we
//! deliberately differ (docs/divergences.md): there we must not give the reference's bytes.
//!
//! `MANIFEST.txt` is the list of cases and their verdicts: every listed case must be on disk with
//! the file of its verdict, every case on disk must be listed, and each folder must keep at least
//! its known number of cases, so that a lost file or an emptied folder fails instead of passing
//! with fewer cases.
//!
//! This is a `harness = false` test so that it always prints its counts.

use std::fmt::Debug;
use std::path::Path;
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
    let direct = entry.parse_proto(text).map(|proto| proto.encode());
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

/// What the reference did with a case, as `MANIFEST.txt` records it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Verdict {
    Accepted,
    Rejected,
}

/// One line of `MANIFEST.txt`: `<dir>/<stem>.<entry> accepted|rejected`.
struct Listed {
    dir: String,
    /// `<stem>.<entry>`, the case's file name without extension.
    case: String,
    verdict: Verdict,
}

/// Fewer cases than this in a folder means the corpus lost files: the counts of
/// `scripts/gen_corpus.py` with onnx 1.23.2, which a regeneration may raise but never lower.
const MINIMUM_CASES: &[(&str, usize)] = &[
    ("backend", 1910),
    ("defs-cc", 60),
    ("divergent", 33),
    ("handwritten", 1346),
    ("printer", 21),
    ("schema-functions", 71),
    ("shipped", 149),
];

/// The cases `MANIFEST.txt` lists, and the failures of the manifest itself: a malformed line, a
/// folder's `# <dir>: accepted=A rejected=R total=T` summary that its lines do not add up to.
fn read_manifest(root: &Path, failures: &mut Vec<String>) -> Vec<Listed> {
    let path = root.join("MANIFEST.txt");
    let manifest = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut listed = Vec::new();
    let mut summaries = Vec::new();
    for line in manifest.lines() {
        if let Some(comment) = line.strip_prefix("# ") {
            if let Some((dir, counts)) = comment.split_once(": accepted=") {
                summaries.push((dir.to_owned(), counts.to_owned()));
            }
            continue;
        }
        let parsed = line.split_once(' ').and_then(|(key, verdict)| {
            let verdict = match verdict {
                "accepted" => Verdict::Accepted,
                "rejected" => Verdict::Rejected,
                _ => return None,
            };
            let (dir, case) = key.split_once('/')?;
            Some(Listed {
                dir: dir.to_owned(),
                case: case.to_owned(),
                verdict,
            })
        });
        match parsed {
            Some(case) => listed.push(case),
            None => failures.push(format!("MANIFEST.txt: malformed line {line:?}")),
        }
    }
    for (dir, counts) in summaries.iter().filter(|(dir, _)| dir != "all") {
        let in_dir = listed.iter().filter(|case| &case.dir == dir);
        let accepted = in_dir
            .clone()
            .filter(|case| case.verdict == Verdict::Accepted)
            .count();
        let total = in_dir.count();
        let rejected = total - accepted;
        let expected = format!("{accepted} rejected={rejected} total={total}");
        if *counts != expected {
            failures.push(format!(
                "MANIFEST.txt: the summary of {dir} says accepted={counts}, its lines accepted={expected}"
            ));
        }
    }
    for (dir, minimum) in MINIMUM_CASES {
        if !summaries.iter().any(|(listed, _)| listed == dir) {
            failures.push(format!("MANIFEST.txt: no summary line for {dir}"));
        }
        let count = listed.iter().filter(|case| case.dir == *dir).count();
        if count < *minimum {
            failures.push(format!(
                "{dir}: {count} cases listed, at least {minimum} expected"
            ));
        }
    }
    listed
}

/// The `.onnxtxt` cases in `dir`, by file name without extension.
fn cases_on_disk(dir: &Path) -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "onnxtxt"))
        .filter_map(|path| Some(path.file_stem()?.to_str()?.to_owned()))
        .collect();
    files.sort();
    files
}

/// Runs one listed case: its files must be those of its verdict (`.pb` for accepted,
/// `.rejected` for rejected, never both), and our verdict must be the reference's.
fn run_case(dir: &Path, listed: &Listed, divergent: bool, tally: &mut Tally) {
    let text_path = dir.join(format!("{}.onnxtxt", listed.case));
    let name = text_path.display();
    let entry = listed
        .case
        .rsplit('.')
        .next()
        .expect("entry point in file name");
    let Ok(bytes) = std::fs::read(&text_path) else {
        tally
            .failures
            .push(format!("{name}: listed in MANIFEST.txt, missing"));
        return;
    };
    let golden = std::fs::read(text_path.with_extension("pb")).ok();
    let rejected_file = text_path.with_extension("rejected").exists();
    match (listed.verdict, &golden, rejected_file) {
        (Verdict::Accepted, Some(_), false) | (Verdict::Rejected, None, true) => {}
        (verdict, _, _) => {
            tally.failures.push(format!(
                "{name}: {verdict:?} in MANIFEST.txt, but {} and {}",
                if golden.is_some() { "a .pb" } else { "no .pb" },
                if rejected_file {
                    "a .rejected"
                } else {
                    "no .rejected"
                },
            ));
            return;
        }
    }
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
    let mut failures = Vec::new();
    let listed = read_manifest(&root, &mut failures);
    let mut dirs: Vec<String> = listed.iter().map(|case| case.dir.clone()).collect();
    dirs.dedup();
    // A folder on disk that the manifest does not know holds cases that nothing checks.
    for dir in std::fs::read_dir(&root).expect("tests/corpus exists") {
        let path = dir.expect("directory entry").path();
        let name = path.file_name().and_then(|s| s.to_str()).unwrap_or("?");
        if path.is_dir() && !dirs.iter().any(|d| d == name) {
            failures.push(format!(
                "{}: a folder MANIFEST.txt does not list",
                path.display()
            ));
        }
    }
    let (mut passed, mut total_accepted, mut total_rejected) = (0, 0, 0);
    for label in &dirs {
        let dir = root.join(label);
        let divergent = label == "divergent";
        let mut tally = Tally::default();
        let in_dir: Vec<&Listed> = listed.iter().filter(|case| &case.dir == label).collect();
        for case in cases_on_disk(&dir) {
            if !in_dir.iter().any(|listed| listed.case == case) {
                tally.failures.push(format!(
                    "{}/{case}.onnxtxt: not listed in MANIFEST.txt",
                    dir.display()
                ));
            }
        }
        for case in in_dir {
            run_case(&dir, case, divergent, &mut tally);
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
