//! The macros give exactly what the runtime parser gives for the same text.

use onnx_text::prost::Message;
use onnx_text::{onnx, onnx_function, onnx_functions, onnx_graph, onnx_node, onnx_nodes};

#[test]
fn onnx_matches_parse_model() {
    let model = onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        agraph (float[N, 128] X, float[128, 10] W, float[10] B) => (float[N, 10] C) {
            T = MatMul (X, W)
            S = Add (T, B)
            C = Softmax (S)
        }
    };
    let text = r#"<ir_version: 10, opset_import: ["" : 21]>
        agraph (float[N, 128] X, float[128, 10] W, float[10] B) => (float[N, 10] C) {
            T = MatMul (X, W)
            S = Add (T, B)
            C = Softmax (S)
        }"#;
    assert_eq!(
        model.encode_to_vec(),
        onnx_text::parse_model(text).unwrap().encode_to_vec()
    );
}

/// Every kind of byte in the expansion's byte string reaches the value unchanged: those a byte
/// string must escape (`"`, `\\`, carriage return, non-ASCII) and control bytes (NUL, tab, DEL).
#[test]
fn every_kind_of_byte_reaches_the_value() {
    let node = onnx_node!(
        y = Constant <value_ints = [0, 9, 13, 34, 92, 127, 128, 200, -1], doc: string = "say \"é\" \\ 0.1"> ()
    );
    let text = r#"y = Constant <value_ints = [0, 9, 13, 34, 92, 127, 128, 200, -1], doc: string = "say \"é\" \\ 0.1"> ()"#;
    let bytes = node.encode_to_vec();
    for byte in [0, 9, 13, b'"', b'\\', 127, 200, 0xff, 0xc3] {
        assert!(bytes.contains(&byte), "{byte:#04x} is in the test's bytes");
    }
    assert_eq!(bytes, onnx_text::parse_node(text).unwrap().encode_to_vec());
}

#[test]
fn tokens_that_rust_splits_are_rejoined_by_position() {
    let node = onnx_node!(y = Foo <a = -5, b = 1.e5, c = -inf, d = [2.5, 1], e: float = -0> (x));
    let expected = onnx_text::parse_node(
        "y = Foo <a = -5, b = 1.e5, c = -inf, d = [2.5, 1], e: float = -0> (x)",
    )
    .unwrap();
    assert_eq!(node, expected);
    assert_eq!(node.attribute[1].f, Some(1e5));
}

#[test]
fn every_macro_gives_its_type() {
    let graph: onnx_text::GraphProto = onnx_graph!(g (x) => (y) { y = Relu(x) });
    assert_eq!(graph.node.len(), 1);
    let function: onnx_text::FunctionProto = onnx_function! {
        <domain: "local", opset_import: ["" : 21]>
        Square (x) => (y) { y = Mul(x, x) }
    };
    assert_eq!(function.domain.as_deref(), Some("local"));
    let library: Vec<onnx_text::FunctionProto> = onnx_functions! {
        F (x) => (y) { y = Abs(x) }
        G (x) => (y) { y = Neg(x) }
    };
    assert_eq!(library.len(), 2);
    let nodes: Vec<onnx_text::NodeProto> = onnx_nodes!(t = Abs(x) y = Neg(t));
    assert_eq!(nodes[1].input, ["t"]);
    let empty: Vec<onnx_text::NodeProto> = onnx_nodes!();
    assert!(empty.is_empty());
}

#[test]
fn statics_compose() {
    static LIBRARY: std::sync::LazyLock<Vec<onnx_text::FunctionProto>> =
        std::sync::LazyLock::new(|| onnx_functions! { F (x) => (y) { y = Abs(x) } });
    assert_eq!(LIBRARY[0].name.as_deref(), Some("F"));
}

#[test]
fn include_onnx_reads_a_file() {
    let model = onnx_text::include_onnx!("tests/data/relu.onnxtxt");
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/relu.onnxtxt"
    ))
    .unwrap();
    assert_eq!(model, onnx_text::parse_model(&text).unwrap());
}

#[test]
fn include_onnx_reads_crlf_line_ends_and_a_comment_at_the_very_end() {
    let bytes = include_bytes!("../data/relu-crlf.onnxtxt");
    assert!(bytes.windows(2).any(|w| w == b"\r\n") && !bytes.ends_with(b"\n"));
    let crlf = onnx_text::include_onnx!("tests/data/relu-crlf.onnxtxt");
    assert_eq!(crlf, onnx_text::include_onnx!("tests/data/relu.onnxtxt"));
}

// Groups read from the source file are taken as their source text, comments blanked (the
// `verbatim` fast path of the token adapter). These check that it says what the tokens say.

#[test]
fn comments_inside_groups_are_skipped_and_strings_kept_whole() {
    let graph = onnx_graph! {
        g (float x /* block /* nested */ comment */) => (float y) {
            // a line comment, with "quotes" and # and $
            t = Foo <s = "not // a comment, # nor /* this */"> (x) // trailing
            y = Bar (t /* between */, x)
        }
    };
    let expected = onnx_text::parse_graph(
        r#"g (float x) => (float y) {
            t = Foo <s = "not // a comment, # nor /* this */"> (x)
            y = Bar (t, x)
        }"#,
    )
    .unwrap();
    assert_eq!(graph, expected);
}

#[test]
fn spacing_inside_groups_reads_as_written() {
    // `1.e5` and `-5.5` are joined in the source: they read so inside a group too.
    let node = onnx_node!(y = Foo (x) <a = [-5.5, 1.e5, -0.25]>);
    let expected = onnx_text::parse_node("y = Foo (x) <a = [-5.5, 1.e5, -0.25]>").unwrap();
    assert_eq!(node, expected);
    assert_eq!(node.attribute[0].floats, [-5.5, 1e5, -0.25]);
}

macro_rules! graph_with_op {
    ($op:ident) => {
        onnx_graph! { g (float x) => (float y) { y = $op (x) } }
    };
}

macro_rules! fixed_graph {
    () => {
        onnx_graph! { g (float x) => (float y) { y = Relu (x) } }
    };
}

#[test]
fn groups_written_by_macro_rules_expand_as_their_tokens() {
    // A substituted `$op` inside the braces: the braces' source text is the template's, so the
    // tokens are walked instead.
    let substituted = graph_with_op!(Abs);
    assert_eq!(substituted.node[0].op_type.as_deref(), Some("Abs"));
    // Without substitution the template's text is the tokens' text.
    let fixed = fixed_graph!();
    assert_eq!(
        fixed,
        onnx_text::parse_graph("g (float x) => (float y) { y = Relu (x) }").unwrap()
    );
}

onnx_text::onnx_library! {
    /// Functions with `///` comments.
    pub static DOCUMENTED;
    /// Squares its input.
    ///
    /// Elementwise: "x * x".
    <domain: "doc.test", opset_import: ["" : 21]>
    Square (x) => (y) { y = Mul (x, x) }
    /// Without a header.
    Twice (x) => (y) { y = Add (x, x) }
    <domain: "doc.test", opset_import: ["" : 21], doc_string: "From the header.">
    Neg2 (x) => (y) { y = Neg (x) }
}

#[test]
fn doc_comments_on_library_functions_are_their_doc_strings() {
    let docs: Vec<Option<&str>> = DOCUMENTED.iter().map(|f| f.doc_string.as_deref()).collect();
    assert_eq!(
        docs,
        [
            Some("Squares its input.\n\nElementwise: \"x * x\"."),
            Some("Without a header."),
            Some("From the header."),
        ]
    );
    // A literal that attaches the function gets it from the library's text: the same doc.
    let model = onnx! {
        #![attach(DOCUMENTED)]
        <ir_version: 10, opset_import: ["" : 21, "doc.test" : 1]>
        g (float[2] x) => (float[2] y) { y = doc.test.Square (x) }
    };
    assert_eq!(model.functions[0], *DOCUMENTED.iter().next().unwrap());
}
