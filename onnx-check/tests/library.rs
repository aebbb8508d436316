//! Tests of function libraries, inlining and attaching. Every inlined model is also
//! printed and put through every check, so a test that gets the expected nodes also gets a
//! model whose names are defined once and before use.

use onnx_check::CheckOptions;
use onnx_check::library::*;
use onnx_print::to_text;
use onnx_runtime_types::*;
use onnx_syntax::{parse_functions, parse_model};

fn model(text: &str) -> ModelProto {
    parse_model(text).unwrap_or_else(|e| panic!("{e}"))
}

fn library(text: &str) -> FunctionLibrary {
    FunctionLibrary::from_functions(parse_functions(text).unwrap()).unwrap()
}

/// Inlines with `inliner`, checks the result and returns its graph's text.
fn inlined(inliner: &Inliner, text: &str) -> (String, InlineReport, ModelProto) {
    let mut m = model(text);
    let report = inliner.model(&mut m).unwrap_or_else(|e| panic!("{e}"));
    let printed = to_text(&m);
    if let Err(d) = CheckOptions::default().check_model(&printed) {
        panic!("inlined model fails its checks:\n{d}\n{printed}");
    }
    (to_text(m.graph.as_ref().unwrap()), report, m)
}

#[test]
fn two_calls_with_clashing_names_get_fresh_names() {
    let (graph, report, m) = inlined(
        &Inliner::new(),
        r#"<ir_version: 10, opset_import: ["" : 21, "local" : 1]>
        g (float[N] x) => (float[N] y) {
            t = local.F(x)
            F__t = Abs(t)
            y = local.F(F__t)
        }
        <domain: "local", opset_import: ["" : 21]>
        F (a) => (b) { t = Neg(a)  b = Abs(t) }"#,
    );
    assert_eq!(
        graph,
        "g (float[N] x) => (float[N] y) {
   F__t_1 = Neg (x)
   t = Abs (F__t_1)
   F__t = Abs (t)
   F__t_2 = Neg (F__t)
   y = Abs (F__t_2)
}"
    );
    assert_eq!(report.calls(&FunctionKey::new("local", "F", "")), 2);
    assert!(m.functions.is_empty());
}

#[test]
fn omitted_inputs_bind_to_empty_and_omitted_outputs_get_fresh_names() {
    let (graph, ..) = inlined(
        &Inliner::new(),
        r#"<ir_version: 10, opset_import: ["" : 21, "local" : 1]>
        g (float[N] x) => (float[N] y) { y = local.F(x) }
        <domain: "local", opset_import: ["" : 21]>
        F (a, min) => (b, c) { b = Clip(a, min)  c = Abs(a) }"#,
    );
    assert_eq!(
        graph,
        "g (float[N] x) => (float[N] y) {
   y = Clip (x, \"\")
   F__c = Abs (x)
}"
    );
}

#[test]
fn calls_in_subgraphs_and_subgraphs_in_bodies_are_inlined() {
    let (graph, report, _) = inlined(
        &Inliner::new(),
        r#"<ir_version: 10, opset_import: ["" : 21, "local" : 1]>
        g (bool c, float[N] x) => (float[N] y) {
            y = If (c) <
                then_branch = t () => (float[N] r) { r = local.Outer(x) },
                else_branch = e () => (float[N] r2) { r2 = Identity(x) }
            >
        }
        <domain: "local", opset_import: ["" : 21, "local" : 1]>
        Outer (a) => (b) {
            k = Constant <value = bool {1}> ()
            b = If (k) <
                then_branch = t2 () => (r) { r = local.Inner(a) },
                else_branch = e2 () => (r) { r = Identity(a) }
            >
        }
        <domain: "local", opset_import: ["" : 21]>
        Inner (a) => (b) { b = Neg(a) }"#,
    );
    assert_eq!(report.total(), 2);
    assert!(!graph.contains("local."), "{graph}");
    // The subgraph of Outer's body refers to Outer's own value through its renamed name.
    assert!(graph.contains("Outer__r = Neg (x)"), "{graph}");
    assert!(graph.contains("Outer__k = Constant"), "{graph}");
    assert!(graph.contains("If (Outer__k)"), "{graph}");
}

#[test]
fn attribute_references_take_the_callers_value_the_default_or_are_dropped() {
    let (graph, ..) = inlined(
        &Inliner::new(),
        r#"<ir_version: 10, opset_import: ["" : 21, "local" : 1]>
        g (float[N] x) => (float[N] y, float[N] z) {
            y = local.F <alpha: float = 3.0, axis = 0> (x)
            z = local.F (x)
        }
        <domain: "local", opset_import: ["" : 21]>
        F <alpha: float = 0.5, axis> (a) => (b) {
            s = Constant <value_float: float = @alpha> ()
            c = Softmax <axis = @axis> (a)
            b = Mul(c, s)
        }"#,
    );
    assert_eq!(
        graph,
        "g (float[N] x) => (float[N] y, float[N] z) {
   F__s = Constant <value_float: float = 3> ()
   F__c = Softmax <axis: int = 0> (x)
   y = Mul (F__c, F__s)
   F__s_1 = Constant <value_float: float = 0.5> ()
   F__c_1 = Softmax (x)
   z = Mul (F__c_1, F__s_1)
}"
    );
}

#[test]
fn opset_imports_are_merged_and_conflicts_name_both_versions() {
    let text = r#"<ir_version: 10, opset_import: ["" : 21, "local" : 1]>
        g (float[N] x) => (float[N] y) { y = local.F(x) }
        <domain: "local", opset_import: ["" : 21, "ai.onnx.ml" : 5]>
        F (a) => (b) { b = ai.onnx.ml.Binarizer(a) }"#;
    let (.., m) = inlined(&Inliner::new(), text);
    let imports: Vec<_> = m
        .opset_import
        .iter()
        .map(|o| (o.domain.clone().unwrap(), o.version.unwrap()))
        .collect();
    assert_eq!(
        imports,
        [
            ("".to_owned(), 21),
            ("local".to_owned(), 1),
            ("ai.onnx.ml".to_owned(), 5)
        ]
    );

    let mut conflicting = model(&text.replace("\"\" : 21, \"ai", "\"\" : 18, \"ai"));
    let before = conflicting.clone();
    let err = Inliner::new().model(&mut conflicting).unwrap_err();
    assert_eq!(
        err.to_string(),
        "opset conflict for domain \"\": version 21 is imported, but function `local.F` \
         (called at graph \"g\" > node 0 (y = local.F)) imports version 18"
    );
    assert_eq!(conflicting, before, "a failed inlining changes nothing");
}

#[test]
fn value_infos_of_the_body_come_along_renamed() {
    let text = r#"<ir_version: 10, opset_import: ["" : 21, "local" : 1]>
        g (float[N] x) => (float[N] y) { y = local.F(x) }
        <domain: "local", opset_import: ["" : 21]>
        F (a) => (b) { t = Neg(a)  b = Abs(t) }"#;
    let mut m = model(text);
    m.functions[0].value_info = parse_model(
        "g (float[N] t, float[N] a) => () {}", // value infos written as graph inputs
    )
    .unwrap()
    .graph
    .unwrap()
    .input;
    Inliner::new().model(&mut m).unwrap();
    let infos: Vec<_> = m.graph.unwrap().value_info;
    assert_eq!(
        infos.len(),
        1,
        "the formal `a` is the caller's, not carried"
    );
    assert_eq!(infos[0].name.as_deref(), Some("F__t"));
}

#[test]
fn arity_overflow_is_an_error() {
    for (call, what) in [
        ("y = local.F(x, x)", "inputs"),
        ("y, z = local.F(x)", "outputs"),
    ] {
        let mut m = model(&format!(
            r#"<opset_import: ["" : 21, "local" : 1]> g (x) => (y) {{ {call} }}
            <domain: "local", opset_import: ["" : 21]> F (a) => (b) {{ b = Neg(a) }}"#
        ));
        let err = Inliner::new().model(&mut m).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "call of `local.F` at graph \"g\" > node 0 (y = local.F) has 2 {what}, but the function declares 1"
            )
        );
    }
}

#[test]
fn direct_recursion_is_an_error() {
    let mut m = model(
        r#"<opset_import: ["" : 21, "local" : 1]> g (x) => (y) { y = local.F(x) }
        <domain: "local", opset_import: ["" : 21, "local" : 1]> F (a) => (b) { b = local.F(a) }"#,
    );
    let err = Inliner::new().model(&mut m).unwrap_err();
    let LibraryError::Recursion { chain, .. } = err else {
        panic!("{err}")
    };
    assert_eq!(chain.len(), 2);
}

#[test]
fn recursion_in_a_function_that_stays_is_an_error() {
    let mut m = model(
        r#"<opset_import: ["" : 21, "local" : 1]> g (x) => (y) { y = local.F(x) }
        <domain: "local", opset_import: ["" : 21, "local" : 1]> F (a) => (b) { b = local.G(a) }
        <domain: "local", opset_import: ["" : 21, "local" : 1]> G (a) => (b) { b = local.H(a) }
        <domain: "local", opset_import: ["" : 21, "local" : 1]> H (a) => (b) { b = local.G(a) }"#,
    );
    let err = Inliner::new()
        .except("local", "F")
        .model(&mut m)
        .unwrap_err();
    assert!(matches!(err, LibraryError::Recursion { .. }), "{err}");
}

#[test]
fn overloads_are_told_apart() {
    let (graph, report, _) = inlined(
        &Inliner::new(),
        r#"<ir_version: 10, opset_import: ["" : 21, "local" : 1]>
        g (float[N] x) => (float[N] y) { t = local.F:neg(x)  y = local.F:abs(t) }
        <domain: "local", overload: "neg", opset_import: ["" : 21]> F (a) => (b) { b = Neg(a) }
        <domain: "local", overload: "abs", opset_import: ["" : 21]> F (a) => (b) { b = Abs(a) }"#,
    );
    assert_eq!(
        graph,
        "g (float[N] x) => (float[N] y) {
   t = Neg (x)
   y = Abs (t)
}"
    );
    assert_eq!(report.calls(&FunctionKey::new("local", "F", "neg")), 1);
}

#[test]
fn functions_still_called_stay_and_others_go() {
    let (_, report, m) = inlined(
        &Inliner::new().except("local", "Kept"),
        r#"<ir_version: 10, opset_import: ["" : 21, "local" : 1]>
        g (float[N] x) => (float[N] y) { y = local.Kept(x) }
        <domain: "local", opset_import: ["" : 21, "local" : 1]> Kept (a) => (b) { b = local.Gone(a) }
        <domain: "local", opset_import: ["" : 21]> Gone (a) => (b) { b = Neg(a) }"#,
    );
    assert_eq!(m.functions.len(), 1);
    assert_eq!(m.functions[0].node[0].op_type.as_deref(), Some("Neg"));
    assert_eq!(report.removed(), [FunctionKey::new("local", "Gone", "")]);
}

#[test]
fn an_output_that_is_an_input_is_copied_and_an_unproduced_one_is_an_error() {
    let (graph, ..) = inlined(
        &Inliner::new(),
        r#"<ir_version: 10, opset_import: ["" : 21, "local" : 1]>
        g (float[N] x) => (float[N] y) { y = local.F(x) }
        <domain: "local", opset_import: ["" : 21]> F (a) => (a) { }"#,
    );
    assert_eq!(
        graph,
        "g (float[N] x) => (float[N] y) {\n   y = Identity (x)\n}"
    );
    let mut m = model(
        r#"<opset_import: ["" : 21, "local" : 1]> g (x) => (y) { y = local.F(x) }
        <domain: "local", opset_import: ["" : 21]> F (a) => (b) { }"#,
    );
    let err = Inliner::new().model(&mut m).unwrap_err();
    assert_eq!(
        err.to_string(),
        "no node of function `local.F` produces its output `b` (called at graph \"g\" > node 0 (y = local.F))"
    );
}

#[test]
fn calls_that_multiply_stop_at_the_node_limit() {
    let mut text = String::from(
        r#"<opset_import: ["" : 21, "local" : 1]> g (x) => (y) { y = local.F30(x) }
        <domain: "local", opset_import: ["" : 21]> F0 (a) => (b) { b = Neg(a) }"#,
    );
    for i in 1..=30 {
        let p = i - 1;
        text.push_str(&format!(
            r#" <domain: "local", opset_import: ["" : 21, "local" : 1]> F{i} (a) => (b) {{ t = local.F{p}(a)  b = local.F{p}(t) }}"#
        ));
    }
    let mut m = model(&text);
    let err = Inliner::new().max_nodes(100_000).model(&mut m).unwrap_err();
    assert!(
        matches!(err, LibraryError::TooLarge { limit: 100_000, .. }),
        "{err}"
    );
}

#[test]
fn selections_must_name_functions() {
    let mut m = model(r#"<opset_import: ["" : 21]> g (x) => (y) { y = Neg(x) }"#);
    let err = Inliner::new().only("local", "F").model(&mut m).unwrap_err();
    assert_eq!(
        err.to_string(),
        "no library defines a function named `local.F`"
    );
    let err = Inliner::new().expand("Gelu").model(&mut m).unwrap_err();
    assert_eq!(
        err.to_string(),
        "`Gelu` is not one of the standard operators with a static function body"
    );
}

#[test]
fn libraries_reject_duplicates_and_extend_all_or_nothing() {
    let mut lib = library(r#"<domain: "ai.onnx"> F (x) => (y) { y = Abs(x) }"#);
    let err = lib
        .extend(
            parse_functions(
                r#"<domain: "b"> G (x) => (y) { y = Abs(x) } F (x) => (y) { y = Neg(x) }"#,
            )
            .unwrap(),
        )
        .unwrap_err();
    assert_eq!(err, LibraryError::Duplicate(FunctionKey::new("", "F", "")));
    assert_eq!(lib.len(), 1);
    assert!(lib.get(&FunctionKey::new("b", "G", "")).is_none());
}

#[test]
fn library_imports_conflict() {
    let lib = library(
        r#"<domain: "a", opset_import: ["" : 21]> F (x) => (y) { y = Abs(x) }
        <domain: "a", opset_import: ["" : 18]> G (x) => (y) { y = Abs(x) }"#,
    );
    assert_eq!(
        lib.opset_imports().unwrap_err().to_string(),
        "opset conflict for domain \"\": version 21 is imported, but function `a.G` imports version 18"
    );
}

#[test]
fn attach_follows_cycles_without_hanging() {
    let lib = library(
        r#"<domain: "my", opset_import: ["" : 21, "my" : 1]> A (x) => (y) { y = my.B(x) }
        <domain: "my", opset_import: ["" : 21, "my" : 1, "ai.onnx.ml" : 5]> B (x) => (y) { y = my.A(x) }"#,
    );
    let mut m = model(r#"<opset_import: ["" : 21, "my" : 1]> g (x) => (y) { y = my.A(x) }"#);
    let attached = attach(&mut m, &lib).unwrap();
    assert_eq!(attached.len(), 2);
    assert_eq!(m.opset_import.len(), 3);
    // A second attach has nothing to add.
    assert!(attach(&mut m, &lib).unwrap().is_empty());
    // Inlining the cycle is an error.
    assert!(matches!(
        Inliner::new().model(&mut m),
        Err(LibraryError::Recursion { .. })
    ));
}

/// Every body a model can get, at every opset, printed, passes the checks (the unit test of
/// `library::standard` checks every body's text as generated).
#[test]
fn standard_bodies_print_and_pass_the_checks() {
    let mut bodies = 0;
    for name in STANDARD_FUNCTION_OPERATORS {
        let mut previous: Option<&FunctionProto> = None;
        for opset in 1..=28 {
            let Some(function) = standard_function(name, opset) else {
                continue;
            };
            if previous.is_some_and(|p| std::ptr::eq(p, function)) {
                continue;
            }
            previous = Some(function);
            bodies += 1;
            let text = to_text(function);
            if let Err(d) = CheckOptions::default().check_function(&text) {
                panic!("{name} at opset {opset}:\n{d}");
            }
        }
    }
    assert!(
        bodies >= STANDARD_FUNCTION_OPERATORS.len(),
        "{bodies} bodies"
    );
}

#[test]
fn standard_bodies_are_selected_by_the_models_opset() {
    // Celu has a body only from schema 28 on; HardSwish-22 keeps the body of opset 22.
    assert!(standard_function("Celu", 27).is_none());
    assert_eq!(
        standard_function("Celu", 28).unwrap().opset_import[0].version,
        Some(28)
    );
    // MeanVarianceNormalization-13 has bodies for opsets 13 and 18.
    let mvn = |v| {
        standard_function("MeanVarianceNormalization", v)
            .unwrap()
            .opset_import[0]
            .version
    };
    assert_eq!(
        (mvn(13), mvn(17), mvn(18), mvn(21)),
        (Some(13), Some(13), Some(18), Some(18))
    );
    assert!(
        standard_function("Softplus", 17).is_none(),
        "its only body is for opset 18"
    );
    assert!(standard_function("Gelu", 21).is_none());
}

#[test]
fn expanding_without_attributes_uses_the_schema_defaults() {
    for (op, opset) in [("Celu", 28), ("HardSigmoid", 22), ("LeakyRelu", 21)] {
        let (graph, report, _) = inlined(
            &Inliner::new().expand(op),
            &format!(
                r#"<ir_version: 10, opset_import: ["" : {opset}]>
                g (float[N] x) => (float[N] y) {{ y = {op}(x) }}"#
            ),
        );
        assert_eq!(report.calls(&FunctionKey::new("", op, "")), 1);
        assert!(!graph.contains("Constant ()"), "{graph}");
        assert!(!graph.contains(&format!(" {op} ")), "{graph}");
    }
    let mut m = model(r#"<opset_import: ["" : 27]> g (x) => (y) { y = Celu(x) }"#);
    let err = Inliner::new().expand("Celu").model(&mut m).unwrap_err();
    assert_eq!(
        err.to_string(),
        "`Celu` at graph \"g\" > node 0 (y = Celu) has no standard function body at opset 27"
    );
}

#[test]
fn inlining_into_a_graph_and_a_function() {
    let lib = library(
        r#"<domain: "my", opset_import: ["" : 21]> Sq (x) => (y) { y = Mul(x, x) }
        <domain: "my", opset_import: ["" : 21, "my" : 1]> Quad (x) => (y) { s = my.Sq(x)  y = my.Sq(s) }"#,
    );
    let mut quad = lib
        .get(&FunctionKey::new("my", "Quad", ""))
        .unwrap()
        .clone();
    assert_eq!(
        Inliner::new()
            .library(&lib)
            .function(&mut quad)
            .unwrap()
            .total(),
        2
    );
    let mut graph = onnx_syntax::parse_graph("g (x) => (y) { y = my.Quad(x) }").unwrap();
    let mut imports = Vec::new();
    let report = Inliner::new()
        .library(&lib)
        .graph(&mut graph, &mut imports)
        .unwrap();
    assert_eq!(report.total(), 3);
    assert_eq!(graph.node.len(), 2);
    let mut own = lib
        .get(&FunctionKey::new("my", "Quad", ""))
        .unwrap()
        .clone();
    own.node[0].op_type = Some("Quad".to_owned());
    let err = Inliner::new().library(&lib).function(&mut own).unwrap_err();
    assert!(matches!(err, LibraryError::Recursion { .. }), "{err}");
}

#[test]
fn named_body_nodes_get_node_names_unique_in_the_model() {
    let mut m = model(
        r#"<opset_import: ["" : 21, "local" : 1]> g (x) => (y) { t = local.F(x)  y = Abs(t) }
        <domain: "local", opset_import: ["" : 21]> F (a) => (b) { b = Neg(a) }"#,
    );
    m.graph.as_mut().unwrap().node[1].name = Some("F__n".to_owned());
    m.functions[0].node[0].name = Some("n".to_owned());
    let mut twice = m.clone();
    twice.graph.as_mut().unwrap().node[1] = twice.graph.as_ref().unwrap().node[0].clone();
    twice.graph.as_mut().unwrap().node[1].output = vec!["y".to_owned()];
    Inliner::new().model(&mut m).unwrap();
    let names: Vec<_> = m.graph.unwrap().node.into_iter().map(|n| n.name).collect();
    assert_eq!(names, [Some("F__n_1".to_owned()), Some("F__n".to_owned())]);
    Inliner::new().model(&mut twice).unwrap();
    let names: Vec<_> = twice
        .graph
        .unwrap()
        .node
        .into_iter()
        .map(|n| n.name)
        .collect();
    assert_eq!(names, [Some("F__n".to_owned()), Some("F__n_1".to_owned())]);
}

/// The standard functions' bodies, as the generator wrote them from the wheel, pass every check.
#[test]
fn every_standard_function_body_passes_the_checks() {
    let texts = onnx_schema::standard_function_texts();
    assert!(texts.len() >= 28, "{} bodies", texts.len());
    for (name, since, opset, text) in texts {
        if let Err(d) = onnx_check::CheckOptions::default().check_function(text) {
            panic!("{name} (schema {since}, opset {opset}):\n{d}");
        }
    }
}
