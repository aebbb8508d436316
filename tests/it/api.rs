//! The runtime API as a user sees it: entry points, errors and their positions.

use onnx_text::prost::Message;
use onnx_text::{
    ParseError, parse_function, parse_functions, parse_graph, parse_model, parse_node,
    parse_node_list, parse_nodes,
};

const MODEL: &str = r#"<ir_version: 10, opset_import: ["" : 21, "local" : 1]>
agraph (float[N, 128] X, float[128, 10] W = {1, 2}, float[10] B) => (float[N, 10] C) {
    T = MatMul (X, W)
    S = local.AddBias (T, B)
    C = Softmax <axis = -1> (S)
}
<domain: "local", opset_import: ["" : 21]>
AddBias (x, b) => (y) {
    y = Add (x, b)
}
"#;

#[test]
fn parse_model_reads_header_graph_and_functions() {
    let model = parse_model(MODEL).unwrap();
    assert_eq!(model.ir_version, Some(10));
    assert_eq!(model.opset_import.len(), 2);
    let graph = model.graph.as_ref().unwrap();
    assert_eq!(graph.input.len(), 3);
    assert_eq!(graph.initializer.len(), 1);
    assert_eq!(graph.node[1].domain.as_deref(), Some("local"));
    assert_eq!(graph.node[2].attribute[0].i, Some(-1));
    assert_eq!(model.functions[0].name.as_deref(), Some("AddBias"));
    // Encoding and decoding are lossless.
    let bytes = model.encode_to_vec();
    assert_eq!(
        onnx_text::ModelProto::decode(bytes.as_slice()).unwrap(),
        model
    );
}

#[test]
fn every_entry_point_parses_its_form() {
    assert_eq!(
        parse_graph("g (x) => (y) { y = Relu(x) }")
            .unwrap()
            .node
            .len(),
        1
    );
    assert_eq!(
        parse_function("F <a> (x) => (y) { y = Relu(x) }")
            .unwrap()
            .attribute,
        ["a"]
    );
    assert_eq!(
        parse_node("y = Relu(x)").unwrap().op_type.as_deref(),
        Some("Relu")
    );
    assert_eq!(
        parse_node_list("{ t = Abs(x) y = Neg(t) }").unwrap().len(),
        2
    );
    assert_eq!(parse_node_list("{}").unwrap().len(), 0);
    assert_eq!(parse_nodes("t = Abs(x) y = Neg(t)").unwrap().len(), 2);
    assert_eq!(parse_nodes("  # nothing\n").unwrap().len(), 0);
    assert_eq!(
        parse_functions("F () => () {} <domain: \"d\"> G () => () {}")
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn node_list_needs_its_braces_and_nothing_after() {
    assert!(parse_node_list("t = Abs(x)").is_err());
    let err = parse_node_list("{ t = Abs(x) } y").unwrap_err();
    assert_eq!((err.line(), err.column(), err.span().len()), (1, 16, 1));
}

#[test]
fn error_has_message_position_and_span() {
    let text = "g (x) => (y) {\n   y = Relu(x)\n   z = Foo(y]\n}";
    let err = parse_graph(text).unwrap_err();
    assert_eq!(err.message(), "expected `)`, found `]`");
    assert_eq!((err.line(), err.column()), (3, 13));
    assert_eq!(&text[err.span().range()], "]");
}

#[test]
fn error_display_is_a_rustc_style_snippet() {
    let text = "g (x) => (y) {\n   y = Relu(x)\n   z = Foo(y]\n}";
    let err = parse_graph(text).unwrap_err();
    let expected =
        "error: expected `)`, found `]`\n --> 3:13\n  |\n3 |    z = Foo(y]\n  |             ^\n";
    assert_eq!(err.to_string(), expected);
    let err = err.with_origin("model.onnxtxt");
    assert!(err.to_string().contains(" --> model.onnxtxt:3:13\n"));
    assert_eq!(err.origin(), Some("model.onnxtxt"));
}

#[test]
fn caret_underlines_the_whole_token() {
    let err = parse_node("y = Foo <a = 1e39> (x)").unwrap_err();
    assert!(
        err.to_string()
            .ends_with("1 | y = Foo <a = 1e39> (x)\n  |              ^^^^\n"),
        "{err}"
    );
}

#[test]
fn wide_line_numbers_widen_the_gutter() {
    let text = format!("{}g () => () {{ y = }}", "\n".repeat(120));
    let err = parse_graph(&text).unwrap_err();
    assert_eq!(err.line(), 121);
    assert!(
        err.to_string().starts_with("error: expected an operator"),
        "{err}"
    );
    assert!(
        err.to_string().contains(
            "\n   --> 121:18\n    |\n121 | g () => () { y = }\n    |                  ^\n"
        ),
        "{err}"
    );
}

#[test]
fn errors_at_end_of_input_point_past_the_text() {
    let err = parse_graph("g (x) => (y) {\n  y = Relu(x)\n").unwrap_err();
    assert_eq!(err.message(), "expected a node or `}`, found end of input");
    assert_eq!((err.line(), err.column()), (3, 1));
    let err = parse_model("").unwrap_err();
    assert_eq!((err.line(), err.column()), (1, 1));
    assert_eq!(err.message(), "expected a graph name, found end of input");
}

#[test]
fn columns_count_bytes_and_tabs_are_kept_in_the_snippet() {
    let err = parse_node("\t\"é\" = Foo(y) ;").unwrap_err();
    // The tab is one column and `é` is two bytes.
    assert_eq!((err.line(), err.column()), (1, 16));
    assert!(
        err.to_string()
            .ends_with("1 | \t\"é\" = Foo(y) ;\n  | \t             ^\n"),
        "{err}"
    );
}

#[test]
fn crlf_input_parses_and_reports_lines() {
    let text = "g (x) => (y) {\r\n  y = Relu(x)\r\n  z = ;\r\n}\r\n";
    let err = parse_graph(text).unwrap_err();
    assert_eq!((err.line(), err.column()), (3, 7));
    assert!(
        err.to_string().contains("3 |   z = ;\n"),
        "the snippet drops the \\r: {err:?}"
    );
    assert!(parse_graph(&text.replace("z = ;", "z = Neg(y)")).is_ok());
}

#[test]
fn non_ascii_outside_strings_is_an_error_naming_the_character() {
    let err = parse_node("xé = Foo(y)").unwrap_err();
    assert_eq!(
        err.message(),
        "unexpected character `é`: names with non-ASCII characters must be quoted"
    );
    assert_eq!(err.span().len(), 2);
    assert_eq!(parse_node("\"xé\" = Foo(y)").unwrap().output, ["xé"]);
}

#[test]
fn parse_error_is_a_std_error() {
    fn takes_error(_: &dyn std::error::Error) {}
    let err: ParseError = parse_node("").unwrap_err();
    takes_error(&err);
    let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(err);
    assert!(boxed.to_string().starts_with("error: "));
}

#[test]
fn long_tokens_are_shortened_in_messages() {
    let name = "a".repeat(200);
    let err = parse_node(&format!("y = Foo(x) {name}")).unwrap_err();
    assert!(err.message().len() < 100, "{}", err.message());
    assert_eq!(err.span().len(), 200);
}
