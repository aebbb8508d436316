//! Every syntax error has a kind that callers can match on: one input per kind, through the
//! runtime parse functions and through the checks' diagnostics.

use onnx_syntax::ParseErrorKind;
use onnx_syntax::check::{CheckOptions, DiagnosticKind};

#[test]
fn each_kind_of_syntax_error_is_reported_as_that_kind() {
    let deep = format!("y = F <g = {}", "g () => () { y = F <g = ".repeat(200));
    let cases: [(&str, ParseErrorKind); 11] = [
        ("y = F(x)\0", ParseErrorKind::InvalidInput),
        ("y = F(x) \u{1}", ParseErrorKind::InvalidCharacter),
        (
            r#"y = F <s = "abc> (x)"#,
            ParseErrorKind::UnterminatedString,
        ),
        ("y = F <a = 1e> (x)", ParseErrorKind::MalformedNumber),
        (
            "y = F <a = 99999999999999999999> (x)",
            ParseErrorKind::OutOfRange,
        ),
        ("y = F(x", ParseErrorKind::Unexpected),
        (
            "y = F <a: strung = 1> (x)",
            ParseErrorKind::UnknownAttributeType,
        ),
        (
            "y = F <a: int = 1.5> (x)",
            ParseErrorKind::InvalidAttributeValue,
        ),
        ("y = F <a = []> (x)", ParseErrorKind::InvalidAttributeValue),
        (
            "y = Constant <value = float[N] {1, 2}> ()",
            ParseErrorKind::TensorType,
        ),
        (&deep, ParseErrorKind::TooDeep),
    ];
    for (text, kind) in cases {
        let err = onnx_syntax::parse_node(text).unwrap_err();
        assert_eq!(err.kind(), kind, "{text:?}: {err}");
        let diagnostics = CheckOptions::default().check_node(text).unwrap_err();
        assert_eq!(
            diagnostics[0].kind(),
            DiagnosticKind::Syntax(kind),
            "{text:?}"
        );
        assert_eq!(diagnostics[0].check(), None);
    }
    let header = onnx_syntax::parse_model("<ir_versoin: 8> g () => () {}").unwrap_err();
    assert_eq!(header.kind(), ParseErrorKind::UnknownHeaderKey);
    let utf8 = onnx_syntax::text_from_bytes(b"g () => () {\xff}").unwrap_err();
    assert_eq!(utf8.kind(), ParseErrorKind::InvalidUtf8);
}

#[test]
fn kinds_have_distinct_stable_names() {
    let mut names: Vec<&str> = ParseErrorKind::ALL.iter().map(|k| k.name()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), ParseErrorKind::ALL.len());
    assert_eq!(ParseErrorKind::InvalidUtf8.to_string(), "invalid_utf8");
}
