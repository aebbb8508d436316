//! Our shape inference against onnx 1.23.2's, on every backend and shipped corpus model that
//! onnx's strict mode accepts (`tests/data/shape_inference.txt`, from
//! `scripts/gen_shape_goldens.py`). The models' value_info and output types are taken away
//! first, on both sides, so what is compared is inferred.
//!
//! A value *agrees* when element type, rank, every known dim and every symbol the model wrote
//! are the same (onnx's invented `unk__N` symbols match anything). It *disagrees* when any of
//! these differ where both sides know them, and it *drops a symbol* where onnx keeps one the
//! model wrote and we leave the dim unknown: both fail the test. Otherwise we know less than
//! onnx (a dim onnx computes that we leave unknown).

use std::collections::BTreeMap;

use onnx_infer::{Dim, Inference, Ty};

const GOLDENS: &str = include_str!("../../tests/data/shape_inference.txt");
const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus");

/// A type as the goldens spell it (see the script).
fn golden_type(text: &str) -> Option<Ty> {
    fn dims(text: &str) -> Option<(Option<Vec<Dim>>, &str)> {
        let Some(rest) = text.strip_prefix('[') else {
            return Some((None, text));
        };
        let end = rest.find(']')?;
        let dims = rest[..end]
            .split(',')
            .filter(|d| !d.is_empty())
            .map(|d| match d.parse() {
                Ok(n) => Dim::Known(n),
                Err(_) if d == "?" || d.starts_with("unk__") => Dim::Unknown,
                Err(_) => Dim::Symbol(d.to_owned()),
            })
            .collect();
        Some((Some(dims), &rest[end + 1..]))
    }
    fn ty(text: &str) -> Option<(Ty, &str)> {
        let kind = text.chars().next()?;
        let rest = &text[1..];
        match kind {
            'T' | 'P' => {
                let digits = rest
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(rest.len());
                let elem = rest[..digits].parse().ok()?;
                let (shape, rest) = dims(&rest[digits..])?;
                let t = if kind == 'T' {
                    Ty::Tensor { elem, shape }
                } else {
                    Ty::Sparse { elem, shape }
                };
                Some((t, rest))
            }
            'S' | 'O' => {
                let (inner, rest) = ty(rest.strip_prefix('(')?)?;
                let rest = rest.strip_prefix(')')?;
                let inner = Box::new(inner);
                Some((
                    if kind == 'S' {
                        Ty::Sequence(inner)
                    } else {
                        Ty::Optional(inner)
                    },
                    rest,
                ))
            }
            'M' => {
                let open = rest.find('(')?;
                let key = rest[..open].parse().ok()?;
                let (value, rest) = ty(&rest[open + 1..])?;
                Some((
                    Ty::Map {
                        key,
                        value: Box::new(value),
                    },
                    rest.strip_prefix(')')?,
                ))
            }
            _ => None,
        }
    }
    ty(text).map(|(t, _)| t)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Verdict {
    Agrees,
    KnowsLess,
    /// onnx keeps a symbol of the model (`N`) where we have `?`.
    DropsSymbol,
    Disagrees,
}

fn compare(ours: &Ty, theirs: &Ty) -> Verdict {
    match (ours, theirs) {
        (Ty::Tensor { elem: a, shape: sa }, Ty::Tensor { elem: b, shape: sb })
        | (Ty::Sparse { elem: a, shape: sa }, Ty::Sparse { elem: b, shape: sb }) => {
            let mut verdict = Verdict::Agrees;
            if *a == 0 {
                verdict = Verdict::KnowsLess;
            } else if a != b {
                return Verdict::Disagrees;
            }
            match (sa, sb) {
                (Some(x), Some(y)) if x.len() != y.len() => Verdict::Disagrees,
                (Some(x), Some(y)) => {
                    for (p, q) in x.iter().zip(y) {
                        match (p, q) {
                            (_, Dim::Unknown) => {}
                            (Dim::Unknown, Dim::Symbol(_)) => {
                                verdict = verdict.max(Verdict::DropsSymbol)
                            }
                            (Dim::Unknown, _) => verdict = verdict.max(Verdict::KnowsLess),
                            (p, q) if p == q => {}
                            _ => return Verdict::Disagrees,
                        }
                    }
                    verdict
                }
                (None, Some(_)) => Verdict::KnowsLess,
                (_, None) => verdict,
            }
        }
        (Ty::Sequence(a), Ty::Sequence(b)) | (Ty::Optional(a), Ty::Optional(b)) => compare(a, b),
        (Ty::Map { key: ka, value: a }, Ty::Map { key: kb, value: b }) if ka == kb => compare(a, b),
        _ => Verdict::Disagrees,
    }
}

/// Whether we know something onnx does not: a dim or a shape it leaves unknown.
fn knows_more(ours: &Ty, theirs: &Ty) -> bool {
    match (ours.dims(), theirs.dims()) {
        (Some(_), None) => matches!(theirs, Ty::Tensor { .. }),
        (Some(a), Some(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .any(|(p, q)| *q == Dim::Unknown && *p != Dim::Unknown),
        _ => false,
    }
}

#[derive(Default)]
struct Tally {
    agrees: usize,
    knows_less: usize,
    missing: usize,
    disagrees: usize,
}

#[test]
fn inferred_types_agree_with_onnx_and_no_model_onnx_accepts_has_shape_errors() {
    let mut per_op: BTreeMap<String, Tally> = BTreeMap::new();
    let mut disagreements = Vec::new();
    let mut dropped = Vec::new();
    let mut errors = Vec::new();
    let mut lines = GOLDENS.lines().filter(|l| !l.starts_with('#')).peekable();
    let mut models = 0;
    let mut more = Vec::new();
    // SHAPE_INFERENCE_SHOW=Op lists the values of operator Op that we know less of than onnx.
    let show = std::env::var("SHAPE_INFERENCE_SHOW").ok();
    while let Some(line) = lines.next() {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields[0], "model", "{line}");
        // A synthetic model's text is in the goldens; the others' is in the corpus.
        let source = lines.next_if(|l| l.starts_with("source\t")).map(|l| {
            l["source\t".len()..]
                .replace("\\n", "\n")
                .replace("\\\\", "\\")
        });
        let mut values = Vec::new();
        while let Some(next) = lines.peek().filter(|l| l.starts_with("value\t")) {
            let f: Vec<&str> = next.split('\t').collect();
            values.push((f[1].to_owned(), f[2].to_owned()));
            lines.next();
        }
        if fields[2] != "accepted" {
            continue;
        }
        models += 1;
        let text = source.unwrap_or_else(|| {
            let path = format!("{CORPUS}/{}.model.onnxtxt", fields[1]);
            std::fs::read_to_string(&path).unwrap()
        });
        let mut model = onnx_syntax::parse_model(&text).unwrap();
        // As written, with its declared types, the model has no shape errors and no declared
        // type that differs from the inferred one.
        let as_written = Inference::of_model(&model);
        if !as_written.errors.is_empty() || !as_written.mismatches.is_empty() {
            errors.push(format!(
                "{}: {:?} {:?}",
                fields[1], as_written.errors, as_written.mismatches
            ));
        }
        let graph = model.graph.as_mut().unwrap();
        graph.value_info.clear();
        for output in &mut graph.output {
            output.r#type = None;
        }
        let inferred = Inference::of_model(&model);
        if !inferred.errors.is_empty() {
            errors.push(format!("{}: {:?}", fields[1], inferred.errors));
        }
        let graph = model.graph.as_ref().unwrap();
        let producer = |name: &str| {
            graph
                .node
                .iter()
                .find(|n| n.output.iter().any(|o| o == name))
                .and_then(|n| n.op_type.clone())
                .unwrap_or_else(|| "(graph input)".into())
        };
        let declared = |name: &str| {
            graph
                .input
                .iter()
                .find(|v| v.name.as_deref() == Some(name))
                .and_then(|v| Ty::from_proto(v.r#type.as_ref()?))
        };
        for (name, spelled) in values {
            let theirs = golden_type(&spelled).unwrap_or_else(|| panic!("bad golden {spelled}"));
            let tally = per_op.entry(producer(&name)).or_default();
            let ours = inferred.ty(&name).cloned().or_else(|| declared(&name));
            match ours.as_ref().map(|ours| compare(ours, &theirs)) {
                None => tally.missing += 1,
                Some(Verdict::Agrees) => {
                    tally.agrees += 1;
                    if knows_more(ours.as_ref().unwrap(), &theirs) {
                        more.push(format!(
                            "{} {name}: ours {} onnx {spelled}",
                            fields[1],
                            ours.as_ref().unwrap()
                        ));
                    }
                }
                Some(Verdict::KnowsLess) => {
                    tally.knows_less += 1;
                    if show.as_deref() == Some(producer(&name).as_str()) {
                        println!(
                            "knows less: {} {name}: ours {} onnx {spelled}",
                            fields[1],
                            ours.as_ref().unwrap()
                        );
                    }
                }
                Some(Verdict::DropsSymbol) => {
                    tally.knows_less += 1;
                    dropped.push(format!(
                        "{} {name}: ours {} onnx {spelled}",
                        fields[1],
                        ours.unwrap()
                    ));
                }
                Some(Verdict::Disagrees) => {
                    tally.disagrees += 1;
                    disagreements.push(format!(
                        "{} {name}: ours {} onnx {spelled}",
                        fields[1],
                        ours.unwrap()
                    ));
                }
            }
        }
    }
    let total: Tally = per_op.values().fold(Tally::default(), |mut t, x| {
        t.agrees += x.agrees;
        t.knows_less += x.knows_less;
        t.missing += x.missing;
        t.disagrees += x.disagrees;
        t
    });
    let values = total.agrees + total.knows_less + total.missing + total.disagrees;
    println!("operator: agree / know less / missing / disagree");
    for (op, t) in &per_op {
        if t.agrees < t.agrees + t.knows_less + t.missing + t.disagrees {
            println!(
                "  {op}: {} / {} / {} / {}",
                t.agrees, t.knows_less, t.missing, t.disagrees
            );
        }
    }
    println!(
        "{models} models, {values} values onnx infers: {} agree ({:.1}%), {} we know less of, {} we do not infer, {} disagree",
        total.agrees,
        100.0 * total.agrees as f64 / values as f64,
        total.knows_less,
        total.missing,
        total.disagrees
    );
    // Where onnx leaves a dim or the rank unknown that we infer (mostly ranks through
    // Expand, ConstantOfShape and Reshape of partly known shapes); SHAPE_INFERENCE_SHOW=more
    // lists them all.
    let all = show.as_deref() == Some("more");
    println!(
        "we know more than onnx of {} values, for example:",
        more.len()
    );
    for line in more.iter().take(if all { usize::MAX } else { 10 }) {
        println!("  {line}");
    }
    assert!(
        errors.is_empty(),
        "false shape errors:\n{}",
        errors.join("\n")
    );
    assert!(
        disagreements.is_empty(),
        "{} disagreements:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
    assert!(
        dropped.is_empty(),
        "{} symbols onnx keeps and we drop:\n{}",
        dropped.len(),
        dropped.join("\n")
    );
    assert!(models > 2000, "only {models} models");
}
