//! `inline` never panics or hangs: mutants of every model with functions (the goldens of
//! tests/inline/) go through the assertions of the `inline` fuzz target (`fuzz/src/lib.rs`),
//! with every selector. The mutations aim at what inlining must survive: calls turned into
//! self-calls and cycles, calls with too many operands, missing bodies and functions, two
//! functions with one key, opset conflicts, attribute references to nothing, calls of
//! standard operators with bodies.
//!
//! The mutations are deterministic (a fixed-seed xorshift), so a failure reproduces exactly.

use crate::harness;

use std::path::Path;
use std::time::{Duration, Instant};

use onnx_text::prost::Message;
use onnx_text::{AttributeProto, ModelProto, NodeProto};

use crate::xorshift::XorShift;

/// Calls `f` on the `n`th node of the model (graph and function bodies, subgraphs included,
/// depth first), if there is one; returns how many nodes there are.
fn nth_node(model: &mut ModelProto, n: usize, f: &mut dyn FnMut(&mut NodeProto)) -> usize {
    fn walk(
        nodes: &mut [NodeProto],
        n: usize,
        seen: &mut usize,
        f: &mut dyn FnMut(&mut NodeProto),
    ) {
        for node in nodes {
            if *seen == n {
                f(node);
            }
            *seen += 1;
            for attribute in &mut node.attribute {
                for graph in attribute
                    .g
                    .iter_mut()
                    .map(|g| &mut **g)
                    .chain(&mut attribute.graphs)
                {
                    walk(&mut graph.node, n, seen, f);
                }
            }
        }
    }
    let mut seen = 0;
    if let Some(graph) = &mut model.graph {
        walk(&mut graph.node, n, &mut seen, f);
    }
    for function in &mut model.functions {
        walk(&mut function.node, n, &mut seen, f);
    }
    seen
}

/// Calls `f` on a random node of the model.
fn random_node(model: &mut ModelProto, rng: &mut XorShift, f: &mut dyn FnMut(&mut NodeProto)) {
    let count = nth_node(model, usize::MAX, &mut |_| {});
    nth_node(model, rng.below(count), f);
}

/// One mutation of `model`.
fn mutate(model: &mut ModelProto, rng: &mut XorShift) {
    let keys: Vec<(Option<String>, Option<String>, Option<String>)> = model
        .functions
        .iter()
        .map(|f| (f.domain.clone(), f.name.clone(), f.overload.clone()))
        .collect();
    let function_count = model.functions.len();
    match rng.below(9) {
        // A node (anywhere, function bodies too) calls a function: self-calls and cycles.
        0 if !keys.is_empty() => {
            let (domain, name, overload) = keys[rng.below(keys.len())].clone();
            random_node(model, rng, &mut |node| {
                (node.domain, node.op_type, node.overload) =
                    (domain.clone(), name.clone(), overload.clone());
            });
        }
        // A call with one more input or output.
        1 => {
            let input = rng.below(2) == 0;
            random_node(model, rng, &mut |node| {
                if input {
                    node.input.push("x".to_owned());
                } else {
                    node.output.push("extra".to_owned());
                }
            });
        }
        // A missing body.
        2 if function_count > 0 => {
            let f = rng.below(function_count);
            model.functions[f].node.clear();
        }
        // A missing function.
        3 if function_count > 0 => {
            model.functions.remove(rng.below(function_count));
        }
        // Two functions with one key.
        4 if function_count > 0 => {
            let f = model.functions[rng.below(function_count)].clone();
            model.functions.push(f);
        }
        // An opset conflict.
        5 if function_count > 0 => {
            let f = rng.below(function_count);
            if let Some(import) = model.functions[f].opset_import.first_mut() {
                import.version = Some(import.version.unwrap_or(1) + 1);
            }
        }
        // An attribute reference to an attribute nobody declares, or a dropped attribute.
        6 => {
            let add = rng.below(2) == 0;
            random_node(model, rng, &mut |node| {
                if node.attribute.is_empty() || add {
                    node.attribute.push(AttributeProto {
                        name: Some("alpha".to_owned()),
                        ref_attr_name: Some("nobody".to_owned()),
                        ..Default::default()
                    });
                } else {
                    node.attribute.clear();
                }
            });
        }
        // A standard operator with a body.
        7 => {
            let op = onnx_text::STANDARD_FUNCTION_OPERATORS
                [rng.below(onnx_text::STANDARD_FUNCTION_OPERATORS.len())];
            random_node(model, rng, &mut |node| {
                node.op_type = Some(op.to_owned());
                node.domain = Some(String::new());
            });
        }
        // A name clash: a node output renamed to another node's.
        _ => {
            let mut taken = None;
            random_node(model, rng, &mut |node| taken = node.output.first().cloned());
            if let Some(name) = taken {
                random_node(model, rng, &mut |node| {
                    if let Some(output) = node.output.first_mut() {
                        output.clone_from(&name);
                    }
                });
            }
        }
    }
}

fn seeds() -> Vec<ModelProto> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inline");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".input.pb"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| ModelProto::decode(std::fs::read(p).unwrap().as_slice()).unwrap())
        .collect()
}

#[test]
fn mutated_models_with_functions_never_panic_or_hang() {
    let seeds = seeds();
    assert!(seeds.len() >= 31, "the differential's models are the seeds");
    let mut rng = XorShift(0x2545_f491_4f6c_dd1d);
    let mut mutants = 0;
    let (mut inlined, mut errors) = (0, 0);
    let mut slowest = Duration::ZERO;
    for seed in &seeds {
        for _ in 0..40 {
            let mut model = seed.clone();
            for _ in 0..1 + rng.below(3) {
                mutate(&mut model, &mut rng);
            }
            for selector in 0..8 {
                let start = Instant::now();
                let outcome =
                    std::panic::catch_unwind(|| harness::inline_model(model.clone(), selector));
                slowest = slowest.max(start.elapsed());
                match outcome {
                    Ok(Some(calls)) => inlined += usize::from(calls > 0),
                    Ok(None) => errors += 1,
                    Err(_) => panic!(
                        "selector {selector} panicked on\n{}",
                        onnx_text::to_text(&model)
                    ),
                }
            }
            mutants += 1;
        }
    }
    eprintln!(
        "{mutants} mutants, 8 selectors each: {inlined} runs inlined calls, {errors} gave errors; \
         slowest {slowest:?}"
    );
    // The mutations reach both outcomes often (these are the counts of this seed).
    assert_eq!((mutants, inlined, errors), (1240, 2184, 4936));
    // No timed assertion: the node limit is what stops calls that multiply; the slowest run is
    // printed above for whoever wants to look.
}

#[test]
fn self_calls_cycles_overflow_and_missing_bodies_are_errors() {
    let cases = [
        r#"<opset_import: ["" : 21, "l" : 1]> g (x) => (y) { y = l.F(x) }
           <domain: "l", opset_import: ["" : 21, "l" : 1]> F (a) => (b) { b = l.F(a) }"#,
        r#"<opset_import: ["" : 21, "l" : 1]> g (x) => (y) { y = l.F(x) }
           <domain: "l", opset_import: ["" : 21, "l" : 1]> F (a) => (b) { b = l.G(a) }
           <domain: "l", opset_import: ["" : 21, "l" : 1]> G (a) => (b) { b = If (a) <then_branch = t () => (r) { r = l.F(a) }, else_branch = e () => (r) { r = Identity(a) }> }"#,
        r#"<opset_import: ["" : 21, "l" : 1]> g (x) => (y) { y = l.F(x, x) }
           <domain: "l", opset_import: ["" : 21]> F (a) => (b) { b = Neg(a) }"#,
        r#"<opset_import: ["" : 21, "l" : 1]> g (x) => (y) { y = l.F(x) }
           <domain: "l", opset_import: ["" : 21]> F (a) => (b) { }"#,
    ];
    for text in cases {
        let model = onnx_text::parse_model(text).unwrap();
        for selector in 0..8 {
            let _ = harness::inline_model(model.clone(), selector);
        }
        let mut inlined = model.clone();
        let err = onnx_text::inline(&mut inlined, &[]).unwrap_err();
        assert!(!err.to_string().is_empty());
        assert_eq!(inlined, model);
    }
}
