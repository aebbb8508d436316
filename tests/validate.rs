//! `check` of binary models against onnx.checker.check_model(full_check=True), on the corpus's
//! binary models and mutants of them, from the verdicts that `scripts/validate_differential.py`
//! recorded (tests/validate/verdicts.txt).
//!
//! Each mutant is rebuilt here from its corpus file by the same wire-format edit as in the
//! script, and its hash compared with the script's. Every disagreement must be listed in
//! tests/validate/divergent.txt with its reason, which says which side rejects it and why
//! (docs/divergences.md explains each reason); `VALIDATE_BLESS=1` rewrites that list. The
//! agreement must not fall below [`FLOOR`].
//!
//! This is a `harness = false` test so that it always prints its counts.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use onnx_text::ModelCheck;

/// The least share of verdicts that must agree with onnx's: the measured agreement, rounded
/// down (docs/divergences.md; the goal is 99.5%, and the gap is where ours is stricter, with
/// the IR or the operator's definition on its side).
const FLOOR: f64 = 0.98;

fn main() -> ExitCode {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let verdicts = std::fs::read_to_string(root.join("validate/verdicts.txt")).unwrap();
    let listed = divergent(&root.join("validate/divergent.txt"));
    // External data of an in-memory model resolves against onnx's working directory, which
    // the script makes an empty folder: so is this.
    let empty = empty_dir();
    let mut options = onnx_text::CheckOptions::default();
    if let Ok(names) = std::env::var("VALIDATE_ALLOW") {
        for name in names.split(',') {
            options = options.allow(name.parse().unwrap());
        }
    }
    let check = ModelCheck::new(options).model_dir(&empty);

    let mut file: Option<(String, Vec<u8>)> = None;
    let (mut cases, mut agree, mut files, mut mutants) = (0usize, 0usize, 0usize, 0usize);
    let mut found: BTreeMap<String, String> = BTreeMap::new();
    let mut failures = Vec::new();
    for line in verdicts.lines().filter(|l| !l.starts_with('#')) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let (key, bytes, hash, reference): (String, Vec<u8>, &str, &str) = if line.starts_with(' ')
        {
            let [path, edit, hash, verdict] = fields[..] else {
                panic!("bad line `{line}`")
            };
            let (name, data) = file.as_ref().expect("a mutant before any file");
            let bytes = apply(data, &steps(path), edit);
            mutants += 1;
            (format!("{name} {path} {edit}"), bytes, hash, verdict)
        } else {
            let [name, hash, verdict] = fields[..] else {
                panic!("bad line `{line}`")
            };
            let data = std::fs::read(root.join("corpus").join(name)).unwrap();
            file = Some((name.to_owned(), data.clone()));
            files += 1;
            (name.to_owned(), data, hash, verdict)
        };
        if format!("{:08x}", fnv1a32(&bytes)) != hash {
            failures.push(format!("{key}: the bytes differ from the script's"));
            continue;
        }
        cases += 1;
        let ours = check.check_bytes(&bytes);
        if ours.is_ok() == (reference == "+") {
            agree += 1;
            if let Some(reason) = listed.get(&key) {
                failures.push(format!("{key}: listed as divergent ({reason}) but agrees"));
            }
            continue;
        }
        let reason = match ours {
            Err(err) => {
                let first = err.first().and_then(|d| d.check());
                let name = first.map_or("decoding", |c| c.name());
                format!("stricter: {name}")
            }
            Ok(_) => match reference {
                "-s" => "lenient: onnx's shape inference".to_owned(),
                "-d" => "lenient: onnx cannot decode it".to_owned(),
                _ => "lenient: onnx's checker".to_owned(),
            },
        };
        if std::env::var_os("VALIDATE_EXPLAIN").is_some() {
            let why = check.check_bytes(&bytes).err().map(|e| e.to_string());
            let why = why.unwrap_or_default().replace('\n', " | ");
            eprintln!("EXPLAIN {key}\t{}", why.get(..300).unwrap_or(&why));
        }
        match listed.get(&key) {
            Some(listed_reason) if *listed_reason == reason => {}
            Some(listed_reason) => failures.push(format!(
                "{key}: listed as `{listed_reason}`, found `{reason}`"
            )),
            None => failures.push(format!("{key}: unlisted divergence `{reason}`")),
        }
        found.insert(key, reason);
    }
    let _ = std::fs::remove_dir(&empty);
    let share = agree as f64 / cases.max(1) as f64;
    println!(
        "validate: {files} corpus models and {mutants} mutants: {agree} of {cases} verdicts agree \
         with onnx ({:.2}%), {} divergences, each listed",
        share * 100.0,
        found.len()
    );
    let mut by_reason: BTreeMap<&str, usize> = BTreeMap::new();
    for reason in found.values() {
        *by_reason.entry(reason).or_default() += 1;
    }
    for (reason, count) in by_reason {
        println!("  {count:5} {reason}");
    }
    if std::env::var_os("VALIDATE_BLESS").is_some() {
        let mut text = String::from(
            "# The cases where our verdict differs from onnx.checker.check_model(full_check=True):\n\
             # `<case> # <reason>`. Written by `VALIDATE_BLESS=1 cargo test --test validate`;\n\
             # docs/divergences.md explains each reason.\n",
        );
        for (key, reason) in &found {
            text.push_str(&format!("{key} # {reason}\n"));
        }
        std::fs::write(root.join("validate/divergent.txt"), text).unwrap();
        failures.retain(|f| f.starts_with("agreement") || f.contains("bytes differ"));
    }
    if share < FLOOR {
        failures.push(format!(
            "agreement {:.2}% is below {:.1}%",
            share * 100.0,
            FLOOR * 100.0
        ));
    }
    if failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        for failure in &failures {
            eprintln!("FAIL {failure}");
        }
        ExitCode::FAILURE
    }
}

/// The listed divergences: `<file> <path> <edit>` to the reason.
fn divergent(path: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (key, reason) = l.split_once(" # ").expect("`<case> # <reason>`");
            (key.trim().to_owned(), reason.trim().to_owned())
        })
        .collect()
}

fn empty_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("onnx-text-validate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `7.0/1.3` as [(7, 0), (1, 3)].
fn steps(path: &str) -> Vec<(u64, usize)> {
    path.split('/')
        .map(|step| {
            let (number, occurrence) = step.split_once('.').unwrap();
            (number.parse().unwrap(), occurrence.parse().unwrap())
        })
        .collect()
}

// --- the wire format, as the script edits it ----------------------------------------------

fn read_varint(data: &[u8], pos: &mut usize) -> u64 {
    let mut value = 0u64;
    let mut shift = 0;
    loop {
        let byte = data[*pos];
        *pos += 1;
        value |= u64::from(byte & 0x7f) << shift;
        shift += 7;
        if byte < 0x80 {
            return value;
        }
    }
}

fn varint(mut value: u64, out: &mut Vec<u8>) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// The fields of a message: (number, wire type, key bytes, payload).
fn fields(data: &[u8]) -> Vec<(u64, u64, &[u8], &[u8])> {
    let mut pos = 0;
    let mut out = Vec::new();
    while pos < data.len() {
        let start = pos;
        let key = read_varint(data, &mut pos);
        let key_bytes = &data[start..pos];
        let payload = match key & 7 {
            0 => {
                let begin = pos;
                read_varint(data, &mut pos);
                &data[begin..pos]
            }
            1 => {
                pos += 8;
                &data[pos - 8..pos]
            }
            5 => {
                pos += 4;
                &data[pos - 4..pos]
            }
            2 => {
                let len = read_varint(data, &mut pos) as usize;
                pos += len;
                &data[pos - len..pos]
            }
            wire => panic!("wire type {wire}"),
        };
        out.push((key >> 3, key & 7, key_bytes, payload));
    }
    out
}

fn encode_field(wire: u64, key: &[u8], payload: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(key);
    if wire == 2 {
        varint(payload.len() as u64, out);
    }
    out.extend_from_slice(payload);
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

/// `data` with `edit` applied to the field at `path`.
fn apply(data: &[u8], path: &[(u64, usize)], edit: &str) -> Vec<u8> {
    let (number, occurrence) = path[0];
    let mut out = Vec::with_capacity(data.len() + 16);
    let mut seen = 0;
    for (num, wire, key, payload) in fields(data) {
        if num == number {
            let hit = seen == occurrence;
            seen += 1;
            if hit {
                if path.len() > 1 {
                    encode_field(wire, key, &apply(payload, &path[1..], edit), &mut out);
                } else if let Some(value) = edit.strip_prefix("v:") {
                    out.extend_from_slice(key);
                    varint(value.parse::<u128>().unwrap() as u64, &mut out);
                } else if let Some(bytes) = edit.strip_prefix("b:") {
                    encode_field(wire, key, &hex(bytes), &mut out);
                } else if let Some(len) = edit.strip_prefix("t:") {
                    encode_field(wire, key, &payload[..len.parse().unwrap()], &mut out);
                } else if let Some(bytes) = edit.strip_prefix("a:") {
                    let longer = [payload, &hex(bytes)].concat();
                    encode_field(wire, key, &longer, &mut out);
                } else {
                    assert_eq!(edit, "d", "unknown edit");
                }
                continue;
            }
        }
        encode_field(wire, key, payload, &mut out);
    }
    out
}

fn fnv1a32(data: &[u8]) -> u32 {
    data.iter().fold(0x811c_9dc5, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}
