//! Holes in the engine: what the parser records for each position, and which checks still fire
//! around holes (and which wait for their values). The macros write the markers; here they are
//! written by hand with `marker`.

use onnx_check::{Check, CheckOptions, CheckTree};
use onnx_syntax::Tree;
use onnx_syntax::hole::{Hole, ListHole, ListHoles, Site};
use onnx_syntax::lower;
use onnx_syntax::parse::Parser;
use onnx_syntax::syntax::{AttrValue, ModelHeaderValue};

/// The quoted marker of hole `index`.
fn marker(index: u32, spread: bool) -> String {
    format!("\"{}\"", Hole { index, spread }.marker())
}

/// The checks that fire on a literal's text, but `missing_type`: these graphs leave their
/// outputs untyped for brevity.
fn checks(text: &str) -> Vec<Option<Check>> {
    let model = Parser::with_holes(text).unwrap().model().unwrap();
    Tree::Model(model)
        .check(text, &CheckOptions::all().allow(Check::MissingType))
        .diagnostics
        .iter()
        .map(|d| d.check())
        .collect()
}

const HEADER: &str = r#"<ir_version: 10, opset_import: ["" : 21]>"#;

#[test]
fn list_and_tensor_holes_count_the_written_values_before_them() {
    let text = format!(
        "y = Foo <a = [1, {}, 2, {}], t = float[2, {}] {{{}, 1.5}}> (x)",
        marker(0, false),
        marker(1, true),
        marker(2, false),
        marker(3, true)
    );
    let node = Parser::with_holes(&text).unwrap().node().unwrap();
    let list = &node.attributes[0];
    assert_eq!(list.value, Some(AttrValue::Ints(vec![1, 2])));
    assert_eq!(
        list.holes.iter().map(|h| h.index).collect::<Vec<_>>(),
        [1, 2]
    );
    let Some(AttrValue::Tensor(tensor)) = &node.attributes[1].value else {
        panic!("{:?}", node.attributes[1]);
    };
    assert_eq!(tensor.dims, [2]);
    let sites: Vec<(Site, usize)> = tensor.holes.iter().map(|h| (h.site, h.index)).collect();
    assert_eq!(sites, [(Site::Dims, 1), (Site::Values, 0)]);
    // Lowering leaves the holes in a note for the code generator.
    let lowered = lower::node(node.clone());
    let note = lowered.attribute[0].doc_string.as_deref().unwrap();
    assert_eq!(ListHoles::from_note(note), Some(list.holes.clone()));
}

#[test]
fn header_integers_and_opset_versions_take_holes() {
    let text = format!(
        r#"<ir_version: {}, opset_import: ["" : {}]> g () => () {{}}"#,
        marker(0, false),
        marker(1, false)
    );
    let model = Parser::with_holes(&text).unwrap().model().unwrap();
    assert!(matches!(
        model.header[0].value,
        ModelHeaderValue::IrVersionHole(Hole { index: 0, .. })
    ));
    let ModelHeaderValue::OpsetImport(imports) = &model.header[1].value else {
        panic!()
    };
    assert_eq!(
        imports[0].version_hole,
        Some(Hole {
            index: 1,
            spread: false
        })
    );
}

#[test]
fn a_spread_cannot_stand_for_one_value() {
    let text = format!("y = Foo <a = {}> (x)", marker(0, true));
    let error = Parser::with_holes(&text).unwrap().node().unwrap_err();
    assert!(error.message().contains("cannot stand here"), "{error}");
}

#[test]
fn without_holes_enabled_a_marker_is_a_string() {
    let text = format!("y = Foo <a = {}> (x)", marker(0, false));
    let node = Parser::new(&text).unwrap().node().unwrap();
    assert!(matches!(
        node.attributes[0].value,
        Some(AttrValue::String(_))
    ));
}

#[test]
fn arity_is_checked_around_one_value_holes_and_not_around_spreads() {
    let one = format!(
        "{HEADER} g (x) => (y) {{ y = Relu ({}, {}) }}",
        marker(0, false),
        marker(1, false)
    );
    assert_eq!(checks(&one), [Some(Check::OperatorArity)]);
    let spread = format!(
        "{HEADER} g (x) => (y) {{ y = Relu ({}, x) }}",
        marker(0, true)
    );
    assert_eq!(checks(&spread), []);
}

#[test]
fn names_that_holes_may_define_are_not_undefined_but_others_are() {
    // A node spliced in may define `t`.
    let spliced = format!(
        "{HEADER} g (x) => (y) {{ {} y = Relu (t) }}",
        marker(0, false)
    );
    assert_eq!(checks(&spliced), []);
    // An output that is a hole may be `t`.
    let named = format!(
        "{HEADER} g (x) => (y) {{ {} = Abs (x) y = Relu (t) }}",
        marker(0, false)
    );
    assert_eq!(checks(&named), []);
    // A hole that is only used defines nothing: `q` is undefined.
    let used = format!(
        "{HEADER} g (x) => (y) {{ y = Add ({}, q) }}",
        marker(0, false)
    );
    assert_eq!(checks(&used), [Some(Check::UndefinedValue)]);
}

#[test]
fn a_version_hole_defers_schema_checks_but_not_misspellings() {
    let header = format!(
        r#"<ir_version: 10, opset_import: ["" : {}]>"#,
        marker(0, false)
    );
    // Gelu needs opset 20: whether it exists waits for the version.
    assert_eq!(
        checks(&format!("{header} g (x) => (y) {{ y = Gelu (x) }}")),
        []
    );
    assert_eq!(
        checks(&format!("{header} g (x) => (y) {{ y = Reluu (x) }}")),
        [Some(Check::UnknownOperator)]
    );
}

#[test]
fn calls_may_resolve_to_a_spliced_library() {
    let text = format!(
        r#"<ir_version: 10, opset_import: ["" : 21, "local" : 1]> g (x) => (y) {{ y = local.Sq (x) }}
        <domain: "local", opset_import: ["" : 21]> Id (x) => (y) {{ y = Identity (x) }}
        {}"#,
        marker(0, true)
    );
    assert_eq!(checks(&text), []);
}

#[test]
fn element_counts_wait_for_spreads_and_dim_holes_but_not_single_holes() {
    let graph = |data: &str, dims: &str| {
        format!("{HEADER} g () => (w) <float[{dims}] w = {{{data}}}> {{}}")
    };
    let one = marker(0, false);
    let spread = marker(0, true);
    assert_eq!(checks(&graph(&format!("1, {one}"), "2")), []);
    assert_eq!(
        checks(&graph(&format!("1, 2, {one}"), "2")),
        [Some(Check::ElementCountMismatch)]
    );
    assert_eq!(checks(&graph(&format!("1, 2, {spread}"), "2")), []);
    assert_eq!(checks(&graph("1, 2, 3", &one)), []);
}

#[test]
fn literal_ranges_are_checked_on_the_written_values_beside_holes() {
    let text = format!(
        "{HEADER} g () => (w) <uint8[3] w = {{{}, 256, 1}}> {{}}",
        marker(0, false)
    );
    assert_eq!(checks(&text), [Some(Check::LiteralOutOfRange)]);
    let model = Parser::with_holes(&text).unwrap().model().unwrap();
    let report = Tree::Model(model).check(&text, &CheckOptions::all());
    let span = report.diagnostics[0].span();
    assert_eq!(&text[span.range()], "256");
}

#[test]
fn list_hole_notes_are_not_doc_strings() {
    let holes = [ListHole {
        hole: Hole {
            index: 7,
            spread: true,
        },
        site: Site::Values,
        index: 0,
    }];
    assert!(ListHoles::from_note("v0:7*;").is_none());
    assert_eq!(
        ListHoles::from_note(&ListHoles::note(&holes)).unwrap(),
        holes
    );
}
