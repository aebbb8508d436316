//! The rules of operators' shape and type inference, each with a model that breaks it
//! (`NAME.bad.onnxtxt`) and its valid neighbour (`NAME.ok.onnxtxt`), in tests/operator_rules.
//! onnx 1.23.2's verdict on each (`check_model(full_check=True)`) is in
//! tests/operator_rules/verdicts.txt, from `scripts/gen_operator_rules.py`; ours must be the
//! same, through the text checks and through the checks of the binary model.
//!
//! `NAME.stricter.onnxtxt` is a model that onnx accepts and we reject, on purpose: it breaks
//! the operator's definition where onnx's inference does not look (docs/divergences.md).

use std::collections::BTreeMap;
use std::path::Path;

use onnx_check::CheckOptions;
use onnx_runtime_types::prost::Message;
use onnx_validate::ModelCheck;

const CASES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/operator_rules");

/// onnx's verdicts: file name to `None` (accepted) or onnx's message.
fn verdicts() -> BTreeMap<String, Option<String>> {
    let text = std::fs::read_to_string(Path::new(CASES).join("verdicts.txt")).unwrap();
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| {
            let (name, verdict) = line.split_once(' ').unwrap();
            let message = verdict.strip_prefix("- ").map(str::to_owned);
            assert!(message.is_some() || verdict == "+", "bad line `{line}`");
            (name.to_owned(), message)
        })
        .collect()
}

#[test]
fn every_case_has_onnx_verdict_and_a_neighbour() {
    let verdicts = verdicts();
    let mut files: Vec<String> = std::fs::read_dir(CASES)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".onnxtxt"))
        .collect();
    files.sort();
    let recorded: Vec<&String> = verdicts.keys().collect();
    assert_eq!(
        files.iter().collect::<Vec<_>>(),
        recorded,
        "run scripts/gen_operator_rules.py"
    );
    for name in &files {
        let (stem, kind) = name
            .strip_suffix(".onnxtxt")
            .and_then(|n| n.rsplit_once('.'))
            .unwrap_or_else(|| panic!("{name}: not NAME.bad, NAME.ok or NAME.stricter"));
        let other = match kind {
            "bad" => "ok",
            "ok" => "bad",
            "stricter" => {
                assert!(verdicts[name].is_none(), "{name}: onnx rejects it");
                continue;
            }
            _ => panic!("{name}: not NAME.bad, NAME.ok or NAME.stricter"),
        };
        assert!(
            verdicts.contains_key(&format!("{stem}.{other}.onnxtxt")),
            "{name} has no {other} neighbour"
        );
        // A case shows a rule: onnx rejects the bad one and accepts its neighbour.
        assert_eq!(
            verdicts[name].is_none(),
            kind == "ok",
            "{name}: onnx's verdict"
        );
    }
}

#[test]
fn our_verdicts_are_onnx_verdicts() {
    let mut wrong = Vec::new();
    for (name, reference) in verdicts() {
        let text = std::fs::read_to_string(Path::new(CASES).join(&name)).unwrap();
        let ours = CheckOptions::default().check_model(&text);
        let binary = onnx_syntax::parse_model(&text)
            .map(|model| ModelCheck::default().check_bytes(&model.encode_to_vec()));
        let binary_ok = matches!(binary, Ok(Ok(_)));
        // Ours rejects a stricter case where onnx accepts it.
        let reference = match name.ends_with(".stricter.onnxtxt") {
            true => reference.or(Some("accepted by onnx, rejected by design".to_owned())),
            false => reference,
        };
        match (&ours, reference) {
            (Ok(_), None) if binary_ok => {}
            (Err(found), Some(_)) if !binary_ok => {
                println!("{name}: {}", found[0].message());
            }
            (_, reference) => wrong.push(format!(
                "{name}: onnx {}, ours: text {}, binary {}",
                reference.map_or("accepts".to_owned(), |m| format!("rejects ({m})")),
                ours.as_ref().map_or_else(
                    |e| format!("rejects ({})", e[0].message()),
                    |_| "accepts".to_owned()
                ),
                if binary_ok { "accepts" } else { "rejects" },
            )),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
