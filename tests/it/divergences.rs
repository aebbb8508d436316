//! One test per quirk of the reference parser (reference §14), each named after its row in
//! docs/divergences.md. "Replicate" rows pin the reference's behaviour, checked against onnx
//! 1.23.2 (the same inputs are in tests/corpus/handwritten); "diverge" rows pin ours.

use onnx_text::attribute_proto::AttributeType;
use onnx_text::{parse_function, parse_graph, parse_model, parse_node};

fn attr_type(node: &onnx_text::NodeProto, i: usize) -> Option<AttributeType> {
    node.attribute[i]
        .r#type
        .map(|t| AttributeType::try_from(t).expect("known attribute type"))
}

#[test]
fn q01_arrow_without_space_replicated() {
    assert!(parse_graph("g () => () {}").is_ok());
    for text in ["g () = > () {}", "g () =\n> () {}", "g () = # c\n> () {}"] {
        let err = parse_graph(text).unwrap_err();
        assert!(err.message().contains("`=>`"), "{err}");
    }
}

#[test]
fn q02_optional_input_list_replicated() {
    let graph = parse_graph("g => (y) { y = Foo() }").unwrap();
    assert!(graph.input.is_empty());
    assert!(
        parse_graph("g (x) => y {}").is_err(),
        "the output list is required"
    );
}

#[test]
fn q03_empty_op_type_and_leading_dot_replicated() {
    let node = parse_node("x = (y)").unwrap();
    assert_eq!(
        (node.op_type.as_deref(), node.domain.as_deref()),
        (Some(""), Some(""))
    );
    let node = parse_node("x = .Foo(y)").unwrap();
    assert_eq!(
        (node.op_type.as_deref(), node.domain.as_deref()),
        (Some("Foo"), Some(""))
    );
    assert!(parse_node("x = a..Foo(y)").is_err());
}

#[test]
fn q04_second_attribute_list_is_an_error() {
    let err = parse_node("x = Foo <a = 1> (y) <b = 2>").unwrap_err();
    assert!(err.message().contains("one attribute list"), "{err}");
    assert_eq!(err.column(), 21);
    // One list, in either place, is fine.
    assert_eq!(
        parse_node("x = Foo (y) <b = 2>").unwrap().attribute.len(),
        1
    );
}

#[test]
fn q05_lists_typed_by_first_element_replicated() {
    let node = parse_node("x = Foo <a = [2.5, 1]> (y)").unwrap();
    assert_eq!(node.attribute[0].floats, [2.5, 1.0]);
    assert!(parse_node("x = Foo <a = [1, 2.5]> (y)").is_err());
    let node = parse_node("x = Foo <a: floats = [1, 2.5]> (y)").unwrap();
    assert_eq!(node.attribute[0].floats, [1.0, 2.5]);
    // A single-value annotation names the element type, as in the reference.
    let node = parse_node("x = Foo <a: int = [1, 2]> (y)").unwrap();
    assert_eq!(
        (attr_type(&node, 0), node.attribute[0].ints.as_slice()),
        (Some(AttributeType::Ints), &[1, 2][..])
    );
}

#[test]
fn q06_lists_of_tensors_graphs_and_types_keep_their_values() {
    // The reference parses these and silently drops every element; we keep them.
    let node = parse_node("x = Foo <a = [float[1] {1}, int64[2] t {2, 3}]> (y)").unwrap();
    assert_eq!(attr_type(&node, 0), Some(AttributeType::Tensors));
    let tensors = &node.attribute[0].tensors;
    assert_eq!(tensors.len(), 2);
    assert_eq!(
        (
            tensors[0].float_data.as_slice(),
            tensors[1].int64_data.as_slice()
        ),
        (&[1.0][..], &[2, 3][..])
    );
    assert_eq!(tensors[1].name.as_deref(), Some("t"));

    let node =
        parse_node("x = Foo <a: graphs = [g1 () => () {}, g2 (x) => (y) { y = Id(x) }]> (y)")
            .unwrap();
    assert_eq!(attr_type(&node, 0), Some(AttributeType::Graphs));
    assert_eq!(node.attribute[0].graphs[1].node.len(), 1);

    let node = parse_node("x = Foo <a = [float[N], seq(int64)]> (y)").unwrap();
    assert_eq!(attr_type(&node, 0), Some(AttributeType::TypeProtos));
    assert_eq!(node.attribute[0].type_protos.len(), 2);

    // `a: tensor = [...]` means a list of tensors, as `a: int = [...]` means INTS.
    let node = parse_node("x = Foo <a: tensor = [float {1}]> (y)").unwrap();
    assert_eq!(
        (attr_type(&node, 0), node.attribute[0].tensors.len()),
        (Some(AttributeType::Tensors), 1)
    );

    // References cannot be list elements: the reference drops them without a word.
    let err = parse_node("x = Foo <a = [@b]> (y)").unwrap_err();
    assert!(err.message().contains("cannot be a list element"), "{err}");
    // Mixed kinds are an error, as for numbers.
    assert!(parse_node("x = Foo <a = [float[1] {1}, float]> (y)").is_err());
}

#[test]
fn q07_unannotated_reference_has_no_type_replicated() {
    let node = parse_node("x = Foo <a = @b> (y)").unwrap();
    assert_eq!(
        (
            node.attribute[0].r#type,
            node.attribute[0].ref_attr_name.as_deref()
        ),
        (None, Some("b"))
    );
    let node = parse_node("x = Foo <a: ints = @b> (y)").unwrap();
    assert_eq!(attr_type(&node, 0), Some(AttributeType::Ints));
}

#[test]
fn q08_function_attribute_errors_are_reported() {
    // Kept as a feature: a typed attribute without a default.
    let f = parse_function("F <a: float> (x) => (y) {}").unwrap();
    assert_eq!(
        f.attribute_proto[0].r#type,
        Some(AttributeType::Float as i32)
    );
    assert_eq!(f.attribute_proto[0].f, None);
    // The reference swallows these errors and keeps a mangled attribute.
    for text in [
        "F <a: float = \"s\"> (x) => (y) {}",
        "F <a: float = zz> (x) => (y) {}",
        "F <a: bogus> (x) => (y) {}",
    ] {
        assert!(parse_function(text).is_err(), "{text}");
    }
}

#[test]
fn q09_trailing_text_is_an_error() {
    for (result, column) in [
        (parse_node("x = Foo(y) trailing garbage").map(drop), 12),
        (parse_node("x = Foo(y)\n z = Bar(x)").map(drop), 2),
        (parse_graph("g () => () {} }").map(drop), 15),
        (parse_function("F () => () {} G").map(drop), 15),
    ] {
        let err = result.unwrap_err();
        assert!(err.message().starts_with("expected end of input"), "{err}");
        assert_eq!(err.column(), column);
    }
    // parse_model always required the end of input; more functions are fine.
    assert_eq!(
        parse_model("g () => () {} F () => () {} G () => () {}")
            .unwrap()
            .functions
            .len(),
        2
    );
}

#[test]
fn q10_conversion_failures_are_positioned_errors() {
    // (text, the offending literal, what the message says)
    for (text, literal, message) in [
        ("x = Foo <a = - 5> (y)", "- 5", "directly after `-`"),
        (
            "x = Foo <a = 9223372036854775808> (y)",
            "9223372036854775808",
            "does not fit in 64 bits",
        ),
        (
            "x = Foo <a = int64[1] {-9223372036854775809}> (y)",
            "-9223372036854775809",
            "does not fit in 64 bits",
        ),
        (
            "x = Foo <a = uint64[1] {18446744073709551616}> (y)",
            "18446744073709551616",
            "does not fit in 64 bits",
        ),
        ("x = Foo <a = 1e39> (y)", "1e39", "out of range for float"),
        (
            "x = Foo <a = double[1] {1e309}> (y)",
            "1e309",
            "out of range for double",
        ),
        ("x = Foo <a = 1e> (y)", "1e", "exponent"),
        ("x = Foo <a = 1e+> (y)", "1e+", "exponent"),
        ("x = Foo <a = - inf> (y)", "- inf", "directly after `-`"),
    ] {
        let err = parse_node(text).unwrap_err();
        assert!(err.message().contains(message), "{text}: {err}");
        let start = text.find(literal).unwrap();
        assert_eq!(
            err.span().range(),
            start..start + literal.len(),
            "{text}: {err}"
        );
    }
    // Underflow is not an error: it rounds, keeping the sign.
    let node = parse_node("x = Foo <a = -1e-50, b = 1e-45> (y)").unwrap();
    assert_eq!(
        node.attribute[0].f.map(f32::to_bits),
        Some((-0.0f32).to_bits())
    );
    assert_eq!(node.attribute[1].f, Some(f32::from_bits(1)));
}

#[test]
fn q11_int32_storage_range_replicated() {
    let node = parse_node("x = Foo <a = uint8[2] {-1, 256}, b = bool[1] {2}> (y)").unwrap();
    assert_eq!(node.attribute[0].t.as_ref().unwrap().int32_data, [-1, 256]);
    assert!(parse_node("x = Foo <a = int8[1] {2147483648}> (y)").is_err());
}

#[test]
fn q12_uint64_minus_wraps_replicated() {
    let node = parse_node("x = Foo <a = uint64[2] {18446744073709551615, -1}> ()").unwrap();
    assert_eq!(
        node.attribute[0].t.as_ref().unwrap().uint64_data,
        [u64::MAX, u64::MAX]
    );
}

#[test]
fn q13_initializer_without_data_replicated() {
    let graph = parse_graph("g (float[2] w =) => (y) { }").unwrap();
    assert_eq!(graph.initializer[0].dims, [2]);
    assert!(graph.initializer[0].float_data.is_empty());
}

#[test]
fn q14_element_count_not_checked_by_the_parser() {
    let graph = parse_graph("g (float[2,3] w = {1, 2, 3}) => (y) { }").unwrap();
    assert_eq!(graph.initializer[0].float_data.len(), 3);
}

#[test]
fn q15_type_valued_attribute_replicated() {
    let node = parse_node("y = Cast <to = float> (x)").unwrap();
    assert_eq!(attr_type(&node, 0), Some(AttributeType::TypeProto));
}

#[test]
fn q16_quoted_attribute_tensor_name_replicated() {
    assert!(parse_node("x = Foo <a = float[2] \"q t\" {1, 2}> (y)").is_err());
    assert!(parse_node("x = Foo <a = float[2] qt {1, 2}> (y)").is_ok());
}

#[test]
fn q17_messages_are_our_own() {
    let err = parse_node("x = Foo <a = int32[1] {2147483648}> (y)").unwrap_err();
    assert!(!err.message().contains("%d"), "{err}");
    assert!(
        err.message()
            .contains("2147483648 does not fit in the int32 storage"),
        "{err}"
    );
}

#[test]
fn q18_nul_bytes_are_rejected() {
    for text in [
        "g () => () {}\0",
        "g () => () {} # \0",
        "g () => () { y = Foo <s = \"a\0\"> () }",
    ] {
        let err = parse_graph(text).unwrap_err();
        assert_eq!(err.message(), "NUL byte in input");
        assert_eq!(err.span().len(), 1);
    }
}

#[test]
fn q19_keyword_named_values_need_quotes_replicated() {
    assert!(parse_graph("g () => (float) {}").is_err());
    assert!(parse_graph("g () => (\"float\") {}").is_ok());
    assert!(parse_graph("g () => (float float) {}").is_ok());
    assert!(parse_node("float = Identity(seq)").is_ok());
}

#[test]
fn q20_double_slash_comments() {
    // An onnx-mlir lit test as it is, `//` lines included.
    let lit_test = r#"// RUN: onnx-mlir --EmitONNXBasic --printIR %s | FileCheck %s
<
   ir_version: 8,
   opset_import: ["" : 16]
>
test_add (float[2] x, float[2] y) => (float[2] z) {
   z = Add (x, y) // the sum
}
// CHECK-LABEL: func.func @main_graph
"#;
    let without = r#"<ir_version: 8, opset_import: ["" : 16]>
test_add (float[2] x, float[2] y) => (float[2] z) { z = Add (x, y) }"#;
    assert_eq!(
        parse_model(lit_test).unwrap(),
        parse_model(without).unwrap()
    );
    // `//` inside a string is text; a lone `/` is still an error, at the `/`.
    let node = parse_node(r#"y = Foo <s = "a//b"> (x)"#).unwrap();
    assert_eq!(node.attribute[0].s.as_deref(), Some(&b"a//b"[..]));
    let err = parse_node("y = Foo (x) / z").unwrap_err();
    assert_eq!(err.span().start, 12);
    // `=>` still cannot hold a comment.
    assert!(parse_graph("g () =// x\n> () {}").is_err());
}
