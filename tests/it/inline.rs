//! `inline` against onnx's inliner, on the goldens of `scripts/inline_differential.py`
//! (tests/inline/): every corpus model with local functions and generated models for each
//! feature. Where onnx is right, our result, normalised as the script normalises, prints
//! (reference style) to exactly what onnx.inliner's result prints to with onnx.printer. Where it
//! is not (docs/divergences.md, "Inliner"), ours is the result the script checked with
//! onnx.checker, and differs from onnx's. Models that onnx's inliner rejects we reject too.

use std::collections::HashMap;
use std::path::Path;

use onnx_text::prost::Message;
use onnx_text::{GraphProto, Inliner, ModelProto, Style, to_text_with};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/inline");

/// The model with comparable names, as `normalise` in scripts/inline_differential.py: every
/// value name other than the main graph's inputs and outputs becomes `v<n>` in order of first
/// appearance (depth first, a subgraph at its node, between the node's inputs and outputs),
/// node names are cleared, value infos sorted by name, opset imports by domain, functions by
/// (domain, name, overload).
fn normalise(mut model: ModelProto) -> ModelProto {
    let mut graph = model.graph.take().unwrap_or_default();
    let keep: Vec<String> = graph
        .input
        .iter()
        .chain(&graph.output)
        .filter_map(|v| v.name.clone())
        .collect();
    let mut renamer = Renamer {
        keep,
        mapping: HashMap::new(),
    };
    renamer.graph(&mut graph);
    model.graph = Some(graph);
    model.opset_import.sort_by(|a, b| a.domain.cmp(&b.domain));
    model
        .functions
        .sort_by(|a, b| (&a.domain, &a.name, &a.overload).cmp(&(&b.domain, &b.name, &b.overload)));
    model
}

struct Renamer {
    keep: Vec<String>,
    mapping: HashMap<String, String>,
}

impl Renamer {
    fn name(&mut self, name: &mut String) {
        if name.is_empty() || self.keep.contains(name) {
            return;
        }
        let next = format!("v{}", self.mapping.len());
        name.clone_from(self.mapping.entry(name.clone()).or_insert(next));
    }

    fn option(&mut self, name: &mut Option<String>) {
        if let Some(name) = name {
            self.name(name);
        }
    }

    fn graph(&mut self, graph: &mut GraphProto) {
        for v in &mut graph.input {
            self.option(&mut v.name);
        }
        for t in &mut graph.initializer {
            self.option(&mut t.name);
        }
        for node in &mut graph.node {
            node.name = None;
            for input in &mut node.input {
                self.name(input);
            }
            for attribute in &mut node.attribute {
                for g in attribute
                    .g
                    .iter_mut()
                    .map(|g| &mut **g)
                    .chain(&mut attribute.graphs)
                {
                    self.graph(g);
                }
            }
            for output in &mut node.output {
                self.name(output);
            }
        }
        for v in graph.output.iter_mut().chain(&mut graph.value_info) {
            self.option(&mut v.name);
        }
        graph.value_info.sort_by(|a, b| a.name.cmp(&b.name));
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn inline_agrees_with_onnx_inliner_where_it_is_right() {
    let manifest = read(&Path::new(DIR).join("MANIFEST.txt"));
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for line in manifest.lines().filter(|l| !l.starts_with('#')) {
        let mut fields = line.split(' ');
        let (case, verdict) = (fields.next().unwrap(), fields.next().unwrap());
        let bytes = std::fs::read(Path::new(DIR).join(format!("{case}.input.pb"))).unwrap();
        let mut model = ModelProto::decode(bytes.as_slice()).unwrap();
        let result = Inliner::new().model(&mut model);
        let kind = verdict.split(':').next().unwrap();
        *counts.entry(kind).or_default() += 1;
        if kind == "rejected" {
            assert!(result.is_err(), "{case}: onnx rejects it, we inlined it");
            continue;
        }
        result.unwrap_or_else(|e| panic!("{case}: {e}"));
        let ours = to_text_with(&normalise(model), Style::Reference) + "\n";
        let reference = read(&Path::new(DIR).join(format!("{case}.reference.onnxtxt")));
        if kind == "equal" {
            assert_eq!(ours, reference, "{case}: differs from onnx.inliner");
        } else {
            let expected = read(&Path::new(DIR).join(format!("{case}.ours.onnxtxt")));
            assert_eq!(ours, expected, "{case}: differs from the checked result");
            assert_ne!(ours, reference, "{case}: listed as a divergence");
        }
    }
    eprintln!("inline against onnx.inliner: {counts:?}");
    // The figures of the last run of the script (docs/divergences.md).
    assert_eq!(counts.get("equal"), Some(&25));
    assert_eq!(counts.get("differs"), Some(&5));
    assert_eq!(counts.get("rejected"), Some(&1));
}
