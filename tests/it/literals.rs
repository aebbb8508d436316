//! Literal edge cases: the boundaries of every element type, `-0`, subnormals, signed `nan` and
//! `inf`, and the bytes of hostile text (NUL, a BOM, CRLF, unterminated strings and comments).
//!
//! The boundary cases are the `lit-*` cases of the conformance corpus
//! (`scripts/corpus_cases.py`), whose verdicts and bytes come from onnx 1.23.2 and are checked by
//! `tests/corpus.rs`. Here they are held to what the reference cannot say: where the error is,
//! and what the data check reports on the values the reference accepts out of range.

use std::path::Path;

use onnx_text::{Check, ParseError};

const HANDWRITTEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/handwritten");

/// A `lit-*` corpus case: its stem, its text, and whether the reference accepted it.
struct Case {
    stem: String,
    text: String,
    accepted: bool,
}

fn boundary_cases() -> Vec<Case> {
    let mut cases: Vec<Case> = std::fs::read_dir(HANDWRITTEN)
        .unwrap()
        .filter_map(|entry| {
            let name = entry.unwrap().file_name().into_string().unwrap();
            let stem = name.strip_prefix("lit-")?.strip_suffix(".node.onnxtxt")?;
            let path = |ext: &str| Path::new(HANDWRITTEN).join(format!("lit-{stem}.node.{ext}"));
            let accepted = path("pb").exists();
            assert!(accepted != path("rejected").exists(), "{stem}: one verdict");
            Some(Case {
                stem: stem.to_owned(),
                text: std::fs::read_to_string(path("onnxtxt")).unwrap(),
                accepted,
            })
        })
        .collect();
    cases.sort_by(|a, b| a.stem.cmp(&b.stem));
    cases
}

/// The byte range of the last literal in the `{…}` of a case: the value the case is about.
fn last_literal(text: &str) -> (usize, usize) {
    let close = text.rfind('}').unwrap();
    let start = text[..close].rfind(['{', ',']).unwrap() + 1;
    let start = start + text[start..close].len() - text[start..close].trim_start().len();
    (start, close)
}

#[test]
fn every_element_type_has_its_boundaries_pinned() {
    let cases = boundary_cases();
    for elem_type in onnx_syntax::dtype::ELEM_TYPES.iter().map(|t| t.name) {
        if elem_type == "string" {
            continue;
        }
        let prefix = format!("{elem_type}-");
        let labels: Vec<&str> = cases
            .iter()
            .filter_map(|c| c.stem.strip_prefix(&prefix))
            .collect();
        assert!(
            labels.iter().any(|l| l.starts_with("max")),
            "{elem_type}: {labels:?}"
        );
        assert!(
            labels.iter().any(|l| l.starts_with("above")),
            "{elem_type}: {labels:?}"
        );
    }
    assert!(cases.len() > 200, "{}", cases.len());
}

#[test]
fn values_out_of_range_are_positioned_errors_and_the_others_pass_the_checks() {
    for case in boundary_cases() {
        let (start, end) = last_literal(&case.text);
        // Stems are `<type>-<label>`; the labels of values out of range start so.
        let label = case.stem.split_once('-').unwrap().1;
        let out_of_range = label.starts_with("above") || label.starts_with("below");
        let context = format!("{}: {}", case.stem, case.text);
        if !case.accepted {
            // The reference rejects it (int32 storage, int64, uint64 or float overflow): a
            // parse error on the literal.
            assert!(out_of_range, "{context}");
            let err = onnx_text::parse_node(&case.text).unwrap_err();
            assert_eq!(err.span().range(), start..end, "{context}: {err}");
            assert_eq!((err.line(), err.column()), (1, start + 1), "{context}");
            continue;
        }
        let checked = onnx_text::check_node(&case.text);
        if !out_of_range {
            assert!(checked.is_ok(), "{context}: {}", checked.unwrap_err());
            continue;
        }
        // The reference stores it as written; the data check reports it, on the literal.
        let err = checked.unwrap_err();
        assert_eq!(err.len(), 1, "{context}: {err}");
        let diagnostic = &err[0];
        assert_eq!(
            diagnostic.check(),
            Some(Check::LiteralOutOfRange),
            "{context}"
        );
        assert_eq!(diagnostic.span().range(), start..end, "{context}: {err}");
        assert!(
            diagnostic.message().contains("is out of range for"),
            "{context}: {err}"
        );
    }
}

/// The one float of `x = Constant <value = float[1] {…}> ()`.
fn float_value(literal: &str) -> f32 {
    let text = format!("x = Constant <value = float[1] {{{literal}}}> ()");
    let node = onnx_text::parse_node(&text).unwrap();
    node.attribute[0].t.as_ref().unwrap().float_data[0]
}

fn double_value(literal: &str) -> f64 {
    let text = format!("x = Constant <value = double[1] {{{literal}}}> ()");
    let node = onnx_text::parse_node(&text).unwrap();
    node.attribute[0].t.as_ref().unwrap().double_data[0]
}

#[test]
fn negative_zero_keeps_its_sign_in_floats_and_is_zero_in_integers() {
    for literal in ["-0", "-0.0", "-0e5", "-1e-400"] {
        assert_eq!(
            float_value(literal).to_bits(),
            (-0.0f32).to_bits(),
            "{literal}"
        );
        assert_eq!(
            double_value(literal).to_bits(),
            (-0.0f64).to_bits(),
            "{literal}"
        );
    }
    let node = onnx_text::parse_node("x = Foo <i = -0, f: float = -0> ()").unwrap();
    assert_eq!(node.attribute[0].i, Some(0));
    assert_eq!(
        node.attribute[1].f.map(f32::to_bits),
        Some((-0.0f32).to_bits())
    );
    for elem_type in ["int64", "uint64", "int8", "uint8"] {
        let text = format!("x = Constant <value = {elem_type}[1] {{-0}}> ()");
        assert!(onnx_text::check_node(&text).is_ok(), "{text}");
    }
}

#[test]
fn subnormals_are_kept_and_round_to_nearest_even() {
    assert_eq!(float_value("1.401298464324817e-45"), f32::from_bits(1));
    assert_eq!(float_value("1.1754942e-38"), f32::from_bits(0x007f_ffff));
    // Exactly half the smallest subnormal ties to even (zero); a little more rounds up.
    assert_eq!(float_value("7.006492321624085e-46").to_bits(), 0);
    assert_eq!(float_value("7.1e-46"), f32::from_bits(1));
    assert_eq!(double_value("4.9406564584124654e-324"), f64::from_bits(1));
    assert_eq!(double_value("2.4703282292062327e-324").to_bits(), 0);
    assert_eq!(double_value("2.48e-324"), f64::from_bits(1));
}

#[test]
fn nan_and_infinity_keep_their_sign() {
    for (literal, negative) in [
        ("nan", false),
        ("NaN", false),
        ("-nan", true),
        ("-NAN", true),
    ] {
        let (f, d) = (float_value(literal), double_value(literal));
        assert!(f.is_nan() && d.is_nan(), "{literal}");
        assert_eq!(
            (f.is_sign_negative(), d.is_sign_negative()),
            (negative, negative)
        );
        // The quiet NaN of the reference, with the sign written.
        assert_eq!(f.to_bits() & 0x7fff_ffff, 0x7fc0_0000, "{literal}");
    }
    for (literal, value) in [("inf", f32::INFINITY), ("-Infinity", f32::NEG_INFINITY)] {
        assert_eq!(float_value(literal), value);
        assert_eq!(double_value(literal), f64::from(value));
    }
    // `+` is no sign, and a float word cannot run into digits.
    // (The error is on the offending token: the word after a `-`.)
    for (literal, column) in [
        ("+nan", 33),
        ("+inf", 33),
        ("nan0", 33),
        ("-inf1", 34),
        ("- nan", 33),
    ] {
        let text = format!("x = Constant <value = float[1] {{{literal}}}> ()");
        let err = onnx_text::parse_node(&text).unwrap_err();
        assert_eq!((err.line(), err.column()), (1, column), "{literal}: {err}");
    }
}

/// The line and column of the error of `parse_model` on `text`.
fn model_error(text: &str) -> ParseError {
    onnx_text::parse_model(text).unwrap_err()
}

const MODEL: &str =
    "<ir_version: 10, opset_import: [\"\" : 21]>\ng (float x) => (float y) {\n  y = Relu(x)\n}\n";

#[test]
fn nul_bytes_are_errors_where_they_are() {
    for (text, line, column) in [
        ("\0g () => () {}".to_owned(), 1, 1),
        (MODEL.replace("Relu", "Re\0lu"), 3, 9),
        (
            MODEL.replace("(float x)", "(float x) # a \0 comment"),
            2,
            17,
        ),
        (MODEL.replace("10,", "10, doc_string: \"a\0b\","), 1, 32),
        (format!("{MODEL}\0"), 5, 1),
    ] {
        let err = model_error(&text);
        assert_eq!(err.message(), "NUL byte in input");
        assert_eq!(
            (err.line(), err.column(), err.span().len()),
            (line, column, 1),
            "{text:?}"
        );
    }
}

#[test]
fn a_byte_order_mark_is_an_error_but_is_kept_inside_strings() {
    let err = model_error(&format!("\u{feff}{MODEL}"));
    assert_eq!((err.line(), err.column(), err.span().len()), (1, 1, 3));
    assert_eq!(
        err.message(),
        "unexpected byte order mark (U+FEFF): ONNX text is UTF-8 without a BOM"
    );
    let err = model_error(&MODEL.replace("\n  y", "\n \u{feff} y"));
    assert_eq!((err.line(), err.column()), (3, 2));
    let model =
        onnx_text::parse_model(&MODEL.replace("10,", "10, doc_string: \"\u{feff}\",")).unwrap();
    assert_eq!(model.doc_string.as_deref(), Some("\u{feff}"));
}

#[test]
fn crlf_line_ends_are_white_space_and_positions_count_lines_as_lf_does() {
    let crlf = MODEL.replace('\n', "\r\n");
    assert_eq!(onnx_text::parse_model(&crlf), onnx_text::parse_model(MODEL));
    let err = model_error(&crlf.replace("Relu(x)", "Relu(x);"));
    assert_eq!((err.line(), err.column()), (3, 14));
    // The snippet shows the line without its `\r`.
    assert!(err.to_string().contains("3 |   y = Relu(x);\n"), "{err}");
    // Inside a string, CRLF is kept as written, as the reference keeps it.
    let model =
        onnx_text::parse_model(&crlf.replace("10,", "10, doc_string: \"a\r\nb\",")).unwrap();
    assert_eq!(model.doc_string.as_deref(), Some("a\r\nb"));
    // A lone `\r` is white space too.
    assert!(onnx_text::parse_model(&MODEL.replace('\n', "\r")).is_ok());
}

#[test]
fn unterminated_strings_and_comments_at_the_end_of_input() {
    let message = "unterminated string literal: no closing `\"` before the end of input";
    for (text, column) in [
        ("y = Foo <s = \"abc> (x)", 14),
        ("y = Foo <s = \"abc\\\"> (x)", 14),
        ("y = Foo <s = \"abc\\", 14),
        ("\"", 1),
        ("y = \"", 5),
    ] {
        let err = onnx_text::parse_node(text).unwrap_err();
        assert_eq!(
            (err.message(), err.line(), err.column()),
            (message, 1, column),
            "{text:?}"
        );
    }
    // A string may span lines; the error is at its opening quote.
    let err = model_error(&format!("{MODEL}<doc_string: \"a\nb\nc"));
    assert_eq!((err.line(), err.column()), (5, 14));
    // A comment runs to the end of the line or of the input.
    assert!(onnx_text::parse_model(&format!("{MODEL}# the end")).is_ok());
    assert!(onnx_text::parse_node("y = Relu(x) #").is_ok());
    let err = onnx_text::parse_node("y = Relu(x # )").unwrap_err();
    assert_eq!(err.message(), "expected `)`, found end of input");
    assert_eq!((err.line(), err.column()), (1, 15));
}

#[test]
fn text_from_bytes_positions_the_first_byte_that_is_not_utf8() {
    for (bytes, line, column, message) in [
        (
            &b"g () => () {\n  y = \xff(x)\n}"[..],
            2,
            7,
            "invalid UTF-8: 0xff is not a character",
        ),
        (b"\xc3\x28", 1, 1, "invalid UTF-8: 0xc3 is not a character"),
        (
            b"ok\n\xe2\x82",
            2,
            1,
            "invalid UTF-8: the input ends inside a character (0xe2 0x82)",
        ),
        (
            b"\"caf\xe9\"",
            1,
            5,
            "invalid UTF-8: 0xe9 is not a character",
        ),
        (
            b"a\r\n\xed\xa0\x80",
            2,
            1,
            "invalid UTF-8: 0xed is not a character",
        ),
    ] {
        let err = onnx_text::text_from_bytes(bytes).unwrap_err();
        assert_eq!(
            (err.line(), err.column(), err.message()),
            (line, column, message),
            "{bytes:?}"
        );
        assert!(err.to_string().contains('^'));
    }
    assert_eq!(onnx_text::text_from_bytes("é ✓".as_bytes()).unwrap(), "é ✓");
}
