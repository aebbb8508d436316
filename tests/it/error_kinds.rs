//! Every syntax error has a kind that callers can match on: one input per kind of
//! `ParseErrorKind::ALL`, through the runtime parse functions, the checks' diagnostics and, for
//! the kinds that only holes can cause, the macros.

use onnx_check::{CheckOptions, DiagnosticKind};
use onnx_syntax::ParseErrorKind;
use onnx_syntax::parse::Parser;
use onnx_text::onnx_graph;

/// The kind of the error that parsing `text` as a node gives, through `parse_node` and through
/// the checks, which must agree.
fn node_error(text: &str) -> ParseErrorKind {
    let err = onnx_syntax::parse_node(text).unwrap_err();
    let diagnostics = CheckOptions::default().check_node(text).unwrap_err();
    assert_eq!(
        diagnostics[0].kind(),
        DiagnosticKind::Syntax(err.kind()),
        "{text:?}"
    );
    assert_eq!(diagnostics[0].check(), None, "{text:?}");
    err.kind()
}

#[test]
fn each_kind_of_syntax_error_is_reported_as_that_kind() {
    let deep = format!("y = F <g = {}", "g () => () { y = F <g = ".repeat(200));
    let huge = u64::MAX;
    let hole_value =
        onnx_graph!(#![fallible] g (float[#huge] x) => (y) { y = Relu (x) }).unwrap_err()[0].kind();
    // The macros write a hole as a quoted marker; a spread (U+E001) cannot stand for one
    // attribute value.
    let misplaced = Parser::with_holes("y = F <a = \"\u{E001}0\"> (x)")
        .and_then(|parser| parser.node())
        .unwrap_err()
        .kind();
    let cases: Vec<(ParseErrorKind, ParseErrorKind)> = vec![
        (
            onnx_syntax::text_from_bytes(b"g () => () {\xff}")
                .unwrap_err()
                .kind(),
            ParseErrorKind::InvalidUtf8,
        ),
        (node_error("y = F(x)\0"), ParseErrorKind::InvalidInput),
        (
            node_error("y = F(x) \u{1}"),
            ParseErrorKind::InvalidCharacter,
        ),
        (
            node_error(r#"y = F <s = "abc> (x)"#),
            ParseErrorKind::UnterminatedString,
        ),
        (
            node_error("y = F <a = 1e> (x)"),
            ParseErrorKind::MalformedNumber,
        ),
        (
            node_error("y = F <a = 99999999999999999999> (x)"),
            ParseErrorKind::OutOfRange,
        ),
        (node_error("y = F(x"), ParseErrorKind::Unexpected),
        (
            onnx_syntax::parse_model("<ir_versoin: 8> g () => () {}")
                .unwrap_err()
                .kind(),
            ParseErrorKind::UnknownHeaderKey,
        ),
        (
            node_error("y = F <a: strung = 1> (x)"),
            ParseErrorKind::UnknownAttributeType,
        ),
        (
            node_error("y = F <a: int = 1.5> (x)"),
            ParseErrorKind::InvalidAttributeValue,
        ),
        (
            node_error("y = F <a = []> (x)"),
            ParseErrorKind::InvalidAttributeValue,
        ),
        (
            node_error("y = Constant <value = float[N] {1, 2}> ()"),
            ParseErrorKind::TensorType,
        ),
        (node_error(&deep), ParseErrorKind::TooDeep),
        (misplaced, ParseErrorKind::MisplacedHole),
        (
            match hole_value {
                DiagnosticKind::Syntax(kind) => kind,
                other => panic!("a hole's value that does not fit gave {other:?}"),
            },
            ParseErrorKind::HoleValue,
        ),
    ];
    for (found, expected) in &cases {
        assert_eq!(found, expected);
    }
    // Every kind has its input: a kind added to `ALL` without one fails here.
    for kind in ParseErrorKind::ALL {
        assert!(
            cases.iter().any(|(_, expected)| *expected == kind),
            "no input gives {kind}"
        );
    }
}

#[test]
fn kinds_have_distinct_stable_names() {
    let mut names: Vec<&str> = ParseErrorKind::ALL.iter().map(|k| k.name()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), ParseErrorKind::ALL.len());
    assert_eq!(ParseErrorKind::InvalidUtf8.to_string(), "invalid_utf8");
}
