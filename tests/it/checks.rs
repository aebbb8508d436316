//! The runtime checks through the facade: `check_*` functions, `Diagnostics` as an error, and
//! options.

use onnx_text::{Check, CheckOptions, Diagnostics};

const MODEL: &str = r#"<ir_version: 10, opset_import: ["" : 21]>
g (float[N] x) => (float[N] y, float[N] z) {
    t = Abs(x)
    t = Neg(x)
    y = Relu(q)
}"#;

#[test]
fn check_model_reports_every_problem_with_its_position() {
    let err = onnx_text::check_model(MODEL).unwrap_err();
    let summary: Vec<(Option<Check>, &str, usize, usize)> = err
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let at = err.line_column(i).unwrap();
            (d.check(), d.message(), at.line, at.column)
        })
        .collect();
    assert_eq!(
        summary,
        [
            (
                Some(Check::UnproducedOutput),
                "graph output `z` is never produced: no input, initializer or node defines it",
                2,
                41
            ),
            (
                Some(Check::DuplicateDefinition),
                "`t` is already defined at line 3",
                4,
                5
            ),
            (
                Some(Check::UndefinedValue),
                "value `q` is used but never defined",
                5,
                14
            ),
        ]
    );
}

#[test]
fn diagnostics_are_a_displayable_std_error() {
    let err: Box<dyn std::error::Error> = Box::new(onnx_text::check_model(MODEL).unwrap_err());
    let shown = err.to_string();
    assert_eq!(shown.matches("error[").count(), 3);
    assert!(shown.contains(
        "\
error[duplicate_definition]: `t` is already defined at line 3
 --> 4:5
  |
3 |     t = Abs(x)
  |     - first defined here
4 |     t = Neg(x)
  |     ^
"
    ));
}

#[test]
fn a_syntax_error_is_one_diagnostic_drawn_like_a_parse_error() {
    let err = onnx_text::check_graph("g (x) => (y) { y = Relu(x); }").unwrap_err();
    let parse = onnx_text::parse_graph("g (x) => (y) { y = Relu(x); }").unwrap_err();
    assert_eq!(err.len(), 1);
    assert_eq!(err[0].check(), None);
    assert_eq!(err[0].span(), parse.span());
    assert_eq!(err.to_string(), parse.to_string());
    let named = err.with_origin("g.onnxtxt").to_string();
    assert!(named.contains(" --> g.onnxtxt:1:27"), "{named}");
}

#[test]
fn options_switch_checks_off_and_valid_text_lowers_as_parse_does() {
    let relaxed = CheckOptions::default()
        .allow(Check::UnproducedOutput)
        .allow(Check::DuplicateDefinition)
        .allow(Check::UndefinedValue);
    assert_eq!(
        relaxed.check_model(MODEL).unwrap(),
        onnx_text::parse_model(MODEL).unwrap()
    );
    assert!(CheckOptions::none().check_model(MODEL).is_ok());
    let text = r#"<domain: "local", opset_import: ["" : 21]> F <a> (x) => (y) { y = Elu <alpha = @a> (x) }"#;
    assert_eq!(
        onnx_text::check_function(text).unwrap(),
        onnx_text::parse_function(text).unwrap()
    );
}

#[test]
fn every_entry_point_checks() {
    let failing: [(&str, Result<(), Diagnostics>); 6] = [
        ("graph", onnx_text::check_graph("g () => (y) {}").map(drop)),
        (
            "function",
            onnx_text::check_function("F () => (y) {}").map(drop),
        ),
        (
            "functions",
            onnx_text::check_functions("F (x, x) => (x) {}").map(drop),
        ),
        (
            "node",
            onnx_text::check_node("y = F <a = 1, a = 1> ()").map(drop),
        ),
        (
            "nodes",
            onnx_text::check_nodes("y = F (t)  t = G ()").map(drop),
        ),
        (
            "node list",
            onnx_text::check_node_list("{ t = F ()  t = G () }").map(drop),
        ),
    ];
    for (what, result) in failing {
        let err = result.expect_err(what);
        assert_eq!(err.len(), 1, "{what}: {err}");
        assert!(err[0].check().is_some(), "{what}");
    }
}

#[test]
fn operator_schemas_are_checked_at_the_imported_version() {
    let text = r#"<ir_version: 10, opset_import: ["" : 13]>
g (float[N] x, int64[N] n) => (float[N] y) {
    a = Rleu(x)
    b = Gelu(x)
    c = Elu <alpha = 1> (x)
    y = Add(x, n)
}"#;
    let err = onnx_text::check_model(text).unwrap_err();
    let found: Vec<(Option<Check>, &str)> = err.iter().map(|d| (d.check(), d.message())).collect();
    assert_eq!(
        found,
        [
            (
                Some(Check::UnknownOperator),
                "`Rleu` is not an operator of ai.onnx; did you mean `Relu`?"
            ),
            (
                Some(Check::UnknownOperator),
                "`Gelu` does not exist in ai.onnx opset 13, which the model imports: it was added in opset 20"
            ),
            (
                Some(Check::AttributeType),
                "attribute `alpha` of `Elu` is a float, found an int: an integer literal is an int; \
                 write `alpha = 1.0` or `alpha: float = 1`"
            ),
            (
                Some(Check::TypeConstraint),
                "input `n` of `Add` is tensor(int64), but `T` is already tensor(float) from input `x`"
            ),
        ]
    );
    let report = CheckOptions::default().report_model(text).unwrap();
    assert_eq!(report.diagnostics.len(), 4);
    let coverage: onnx_text::Coverage = report.coverage;
    assert_eq!(
        (
            coverage.schema_nodes,
            coverage.typed,
            coverage.unchecked_nodes
        ),
        (2, 2, 2)
    );
    assert!(CheckOptions::default().report_model("g (").is_err());
}
