//! Limits: deep nesting is a positioned error at a documented depth, never a stack overflow, and
//! huge inputs (a 10 MB line, a billion-element shape, a million attributes) go through every
//! stage (parse, check, print, parse again) with the right result. The tests assert results, not
//! times; `examples/limits.rs` measures time and memory of the same inputs.
//!
//! They run on the default test thread stack, in debug builds too.

use crate::pathological;

use onnx_text::ParseError;
use onnx_text::prost::Message;

const DEEP: usize = 100_000;

/// A parse entry point, its result dropped.
type Parse = fn(&str) -> Result<(), ParseError>;

/// Every parse entry point and every check on `text`: all reject it, the parsers with a
/// positioned error; `expected` (one of those errors) shows a snippet of bounded size.
fn rejected_everywhere(text: &str, expected: &ParseError) {
    let parsers: [(&str, Parse); 7] = [
        ("model", |t| onnx_text::parse_model(t).map(drop)),
        ("graph", |t| onnx_text::parse_graph(t).map(drop)),
        ("function", |t| onnx_text::parse_function(t).map(drop)),
        ("functions", |t| onnx_text::parse_functions(t).map(drop)),
        ("node", |t| onnx_text::parse_node(t).map(drop)),
        ("node list", |t| onnx_text::parse_node_list(t).map(drop)),
        ("nodes", |t| onnx_text::parse_nodes(t).map(drop)),
    ];
    for (name, parse) in parsers {
        let err = parse(text).expect_err(name);
        assert!(err.line() >= 1 && err.column() >= 1, "{name}: {err:?}");
    }
    let checks: [fn(&str) -> bool; 7] = [
        |t| onnx_text::check_model(t).is_err(),
        |t| onnx_text::check_graph(t).is_err(),
        |t| onnx_text::check_function(t).is_err(),
        |t| onnx_text::check_functions(t).is_err(),
        |t| onnx_text::check_node(t).is_err(),
        |t| onnx_text::check_node_list(t).is_err(),
        |t| onnx_text::check_nodes(t).is_err(),
    ];
    assert!(checks.iter().all(|check| check(text)));
    // The snippet of an error on a long line is a window of it.
    assert!(expected.to_string().len() < 600, "{expected}");
}

/// The error of `parse_node` on `text`, checked for its message and column (line 1).
fn node_error(text: &str, message: &str, column: usize) -> ParseError {
    let err = onnx_text::parse_node(text).unwrap_err();
    assert_eq!(
        (err.message(), err.line(), err.column()),
        (message, 1, column)
    );
    err
}

#[test]
fn types_nest_32_levels_deep() {
    // 32 levels: 31 `seq` around the element type.
    let limit = onnx_text::parse_node(&pathological::nested_types(31)).unwrap();
    assert_eq!(limit.attribute[0].r#type, Some(13)); // TYPE_PROTO
    assert!(onnx_text::parse_node(&pathological::nested_types(32)).is_err());
    // `y = Foo <t = ` is 13 bytes; the 33rd `seq` is the first too deep.
    let text = pathological::nested_types(DEEP);
    let err = node_error(&text, "graphs and types nest more than 32 levels deep", 142);
    rejected_everywhere(&text, &err);
    let graph = format!(
        "g ({}float{} x) => () {{}}",
        "seq(".repeat(DEEP),
        ")".repeat(DEEP)
    );
    // The graph is a level too: its input's 32nd `seq` (after `g (`) is the first too deep.
    let err = onnx_text::parse_graph(&graph).unwrap_err();
    assert_eq!((err.line(), err.column()), (1, 4 + 31 * 4));
}

#[test]
fn graphs_nest_32_levels_deep() {
    assert!(onnx_text::parse_node(&pathological::nested_graphs(32)).is_ok());
    let text = pathological::nested_graphs(DEEP);
    // Each level is 30 bytes; the 33rd graph fails at its `(`, after `y = If (c) <g = b `.
    let err = node_error(
        &text,
        "graphs and types nest more than 32 levels deep",
        32 * 30 + 19,
    );
    rejected_everywhere(&text, &err);
}

#[test]
fn lists_do_not_nest() {
    let text = pathological::nested_in_attribute("[", "]", DEEP);
    let err = node_error(&text, "lists of attribute values do not nest", 15);
    rejected_everywhere(&text, &err);
}

#[test]
fn parentheses_nest_only_in_types() {
    let value = pathological::nested_in_attribute("(", ")", DEEP);
    let err = node_error(&value, "expected an attribute value, found `(`", 14);
    rejected_everywhere(&value, &err);
    let inputs = format!("y = Foo{}x{}", "(".repeat(DEEP), ")".repeat(DEEP));
    let err = node_error(&inputs, "expected a value name, `,` or `)`, found `(`", 9);
    rejected_everywhere(&inputs, &err);
    let ty = format!(
        "y = Foo <t = seq{}float{}> ()",
        "(".repeat(DEEP),
        ")".repeat(DEEP)
    );
    let err = node_error(&ty, "expected a type, found `(`", 18);
    rejected_everywhere(&ty, &err);
}

#[test]
fn braces_and_angle_brackets_do_not_nest() {
    let braces = format!("g () => () {}{}", "{".repeat(DEEP), "}".repeat(DEEP));
    let err = onnx_text::parse_graph(&braces).unwrap_err();
    assert_eq!(err.message(), "expected a node or `}`, found `{`");
    rejected_everywhere(&braces, &err);
    let data = format!(
        "y = Foo <t = float[1] {}1{}> ()",
        "{".repeat(DEEP),
        "}".repeat(DEEP)
    );
    let err = node_error(&data, "expected a tensor element, found `{`", 24);
    rejected_everywhere(&data, &err);
    let angles = format!("y = Foo {}a = 1{} (x)", "<".repeat(DEEP), ">".repeat(DEEP));
    let err = node_error(&angles, "expected an attribute name, found `<`", 10);
    rejected_everywhere(&angles, &err);
}

/// A graph whose node's attribute holds a graph … `depth` graphs below the outermost.
fn nested_graph_proto(depth: usize) -> onnx_text::GraphProto {
    let mut graph = onnx_text::GraphProto {
        name: Some("g".into()),
        ..Default::default()
    };
    for _ in 0..depth {
        let attribute = onnx_text::AttributeProto {
            name: Some("body".into()),
            r#type: Some(5), // GRAPH
            g: Some(Box::new(graph)),
            ..Default::default()
        };
        let node = onnx_text::NodeProto {
            op_type: Some("Loop".into()),
            domain: Some(String::new()),
            attribute: vec![attribute],
            ..Default::default()
        };
        graph = onnx_text::GraphProto {
            name: Some("g".into()),
            node: vec![node],
            ..Default::default()
        };
    }
    graph
}

#[test]
fn the_printer_handles_the_deepest_graphs_that_protobuf_decodes() {
    // prost decodes messages nested up to 100 levels; each graph level is three (node,
    // attribute, graph), so 33 graphs below the outermost are the most a binary model holds.
    let too_deep = nested_graph_proto(34).encode_to_vec();
    assert!(onnx_text::GraphProto::decode(too_deep.as_slice()).is_err());
    let bytes = nested_graph_proto(33).encode_to_vec();
    let decoded = onnx_text::GraphProto::decode(bytes.as_slice()).unwrap();
    let text = onnx_text::to_text(&decoded);
    assert_eq!(text.matches("Loop").count(), 33);
    // 34 graphs in all, more than the 32 levels the parser allows: refused, not overflowed.
    let err = onnx_text::parse_graph(&text).unwrap_err();
    assert!(err.message().contains("nest more than 32"), "{err}");
}

/// Parse, check, print and parse again: the same bytes.
fn round_trip_model(text: &str) {
    let model = onnx_text::parse_model(text).unwrap();
    let checked = onnx_text::check_model(text).unwrap();
    assert_eq!(checked, model);
    drop(checked);
    let printed = onnx_text::to_text(&model);
    let bytes = model.encode_to_vec();
    drop(model);
    let again = onnx_text::parse_model(&printed).unwrap();
    assert!(again.encode_to_vec() == bytes);
}

/// Parse, print and parse again: the same bytes. Returns the node's attributes.
fn round_trip_node(text: &str) -> Vec<onnx_text::AttributeProto> {
    let node = onnx_text::parse_node(text).unwrap();
    let printed = onnx_text::to_text(&node);
    let bytes = node.encode_to_vec();
    // One node at a time: a million attributes take 1.6 GB as protos.
    drop(node);
    let again = onnx_text::parse_node(&printed).unwrap();
    assert!(again.encode_to_vec() == bytes);
    again.attribute
}

#[test]
fn a_ten_megabyte_line_of_nodes() {
    let text = pathological::long_line_model(10 << 20);
    assert!(!text.contains('\n') && text.len() >= 10 << 20);
    round_trip_model(&text);
    // An error at its end: positioned, with a snippet of bounded size.
    let broken = format!("{text} ;");
    let err = onnx_text::parse_model(&broken).unwrap_err();
    assert_eq!((err.line(), err.column()), (1, text.len() + 2));
    assert!(err.to_string().len() < 600, "{err}");
}

#[test]
fn a_ten_megabyte_string_and_a_ten_megabyte_tensor() {
    let attributes = round_trip_node(&pathological::long_string_node(10 << 20));
    assert!(attributes[0].s.as_ref().unwrap().len() >= 8 << 20);
    let text = pathological::long_tensor_node(10 << 20);
    let attributes = round_trip_node(&text);
    let tensor = attributes[0].t.as_ref().unwrap();
    assert_eq!(tensor.float_data.len() as i64, tensor.dims[0]);
    assert!(onnx_text::check_node(&text).is_ok());
}

#[test]
fn a_billion_element_shape_with_three_values_allocates_nothing_for_the_claim() {
    for (elem_type, per_value) in [("float", 1), ("int4", 2), ("uint2", 4), ("complex128", 1)] {
        let text = pathological::claimed_shape_node(elem_type, 1 << 30);
        let attributes = round_trip_node(&text);
        assert_eq!(attributes[0].t.as_ref().unwrap().dims, [1 << 30]);
        let err = onnx_text::check_node(&text).unwrap_err();
        let expected: u64 = if elem_type == "complex128" {
            2 << 30
        } else {
            (1 << 30) / per_value
        };
        assert_eq!(err.len(), 1);
        assert!(
            err[0].message().starts_with(&format!(
                "expected {expected} values for `{elem_type}[1073741824]`"
            )),
            "{err}"
        );
    }
    // A claim past 2^64 elements.
    let text = "y = Constant <value = float[4294967296, 4294967296, 2] {1}> ()";
    let err = onnx_text::check_node(text).unwrap_err();
    assert!(
        err[0].message().ends_with("has more than 2^64 elements"),
        "{err}"
    );
    // An initializer, through the graph checks.
    let graph = pathological::claimed_shape_graph();
    let err = onnx_text::check_graph(&graph).unwrap_err();
    assert!(
        err[0].message().starts_with("expected 1000000000 values"),
        "{err}"
    );
    let parsed = onnx_text::parse_graph(&graph).unwrap();
    assert_eq!(
        onnx_text::parse_graph(&onnx_text::to_text(&parsed)).unwrap(),
        parsed
    );
}

#[test]
fn a_million_attributes_on_one_node() {
    let text = pathological::many_attributes_node(1_000_000, false);
    let attributes = round_trip_node(&text);
    assert_eq!(attributes.len(), 1_000_000);
    assert_eq!(attributes[999_999].i, Some(999_999));
    drop(attributes);
    assert!(onnx_text::check_node(&text).is_ok());
}

#[test]
fn a_million_duplicate_attributes_are_each_reported() {
    let text = pathological::many_attributes_node(1_000_000, true);
    let err = onnx_text::check_node(&text).unwrap_err();
    assert_eq!(err.len(), 999_999);
    let last = &err[999_998];
    assert_eq!(last.message(), "attribute `a` is already set on this node");
    assert_eq!(last.span().start as usize, text.len() - 5 - 5);
    assert_eq!(err.line_column(999_998).unwrap().column, text.len() - 9);
}
