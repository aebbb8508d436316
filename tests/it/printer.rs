//! The printer's deliberate differences from `onnx.printer.to_text`: one test per row of the
//! "Printer" section of docs/divergences.md (`pNN_…`). Each test shows what the reference style
//! prints (the reference's exact text, also pinned by the goldens in tests/corpus/printer/) and
//! what the lossless style prints instead, and that the lossless text parses back to the same
//! message.

use onnx_text::prost::Message;
use onnx_text::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, StringStringEntryProto,
    Style, TensorProto, ValueInfoProto, to_text, to_text_with,
};

/// Parses `text` as the type of `original` and checks it encodes to the same bytes.
fn assert_round_trip<M: Message + Default + std::fmt::Debug + PartialEq>(
    original: &M,
    text: &str,
    parse: impl Fn(&str) -> Result<M, onnx_text::ParseError>,
) {
    let parsed = parse(text).unwrap_or_else(|e| panic!("{e}\nin:\n{text}"));
    assert_eq!(parsed.encode_to_vec(), original.encode_to_vec(), "{text}");
}

fn function_header(domain: &str) -> String {
    format!("<\n  domain: \"{domain}\",\n  opset_import: [\"\" : 21]\n>\n")
}

#[test]
fn p01_function_doc_strings_are_printed() {
    let f = onnx_text::parse_function(
        "<domain: \"local\", opset_import: [\"\" : 21], doc_string: \"Says \\\"y = x\\\".\"> \
         F (x) => (y) { y = Identity(x) }",
    )
    .unwrap();
    let body = "F (x) => (y)\n{\n   y = Identity (x)\n}";
    assert_eq!(
        to_text_with(&f, Style::Reference),
        format!("{}{body}", function_header("local"))
    );
    let text = to_text(&f);
    assert_eq!(
        text,
        format!(
            "<\n  domain: \"local\",\n  doc_string: \"Says \\\"y = x\\\".\",\n  opset_import: [\"\" : 21]\n>\n{body}"
        )
    );
    assert_round_trip(&f, &text, onnx_text::parse_function);
}

#[test]
fn p02_function_attribute_defaults_are_printed() {
    let f = onnx_text::parse_function(
        "<domain: \"local\", opset_import: [\"\" : 21]> \
         F <gamma, alpha: float = 1.5, ks: ints = [1, 2], typed_only: int> (x) => (y) { y = Identity(x) }",
    )
    .unwrap();
    assert_eq!(f.attribute_proto.len(), 3);
    let body = "(x) => (y)\n{\n   y = Identity (x)\n}";
    assert_eq!(
        to_text_with(&f, Style::Reference),
        format!("{}F <gamma>{body}", function_header("local"))
    );
    let text = to_text(&f);
    assert_eq!(
        text,
        format!(
            "{}F <gamma,alpha: float = 1.5,ks: ints = [1, 2],typed_only: int>{body}",
            function_header("local")
        )
    );
    assert_round_trip(&f, &text, onnx_text::parse_function);
}

#[test]
fn p03_typed_function_inputs_outputs_and_value_infos_are_printed() {
    let f = onnx_text::parse_function(
        "<domain: \"local\", opset_import: [\"\" : 21]> \
         F (float[N] x, z) => (float[N] y) <float t, u> { t = Abs(x) y = Identity(t) }",
    )
    .unwrap();
    assert_eq!(f.value_info.len(), 4);
    let nodes = "{\n   t = Abs (x)\n   y = Identity (t)\n}";
    assert_eq!(
        to_text_with(&f, Style::Reference),
        format!("{}F (x, z) => (y)\n{nodes}", function_header("local"))
    );
    let text = to_text(&f);
    assert_eq!(
        text,
        format!(
            "{}F (float[N] x, z) => (float[N] y) <float t,  u>\n{nodes}",
            function_header("local")
        )
    );
    assert_round_trip(&f, &text, onnx_text::parse_function);
}

#[test]
fn p04_untyped_attribute_references_print_without_a_type() {
    let node = onnx_text::parse_node("y = Foo <a = @b> (x)").unwrap();
    assert_eq!(node.attribute[0].r#type, None);
    // `undefined` is not an attribute type: the reference's text does not parse.
    assert_eq!(
        to_text_with(&node, Style::Reference),
        "   y = Foo <a: undefined = @b> (x)\n"
    );
    assert!(onnx_text::parse_node("y = Foo <a: undefined = @b> (x)").is_err());
    let text = to_text(&node);
    assert_eq!(text, "   y = Foo <a = @b> (x)\n");
    assert_round_trip(&node, &text, onnx_text::parse_node);
}

#[test]
fn p05_reference_targets_and_function_attribute_names_are_quoted_when_needed() {
    let node = onnx_text::parse_node("y = Foo <c: ints = @\"d e\"> (x)").unwrap();
    assert_eq!(
        to_text_with(&node, Style::Reference),
        "   y = Foo <c: ints = @d e> (x)\n"
    );
    let text = to_text(&node);
    assert_eq!(text, "   y = Foo <c: ints = @\"d e\"> (x)\n");
    assert_round_trip(&node, &text, onnx_text::parse_node);

    let f = onnx_text::parse_function(
        "<domain: \"\", opset_import: [\"\" : 21]> F <\"a b\", \"c.d\": int = 2> (x) => (y) { y = Identity(x) }",
    )
    .unwrap();
    let text = to_text(&f);
    assert!(
        text.contains("F <\"a b\",\"c.d\": int = 2>(x) => (y)"),
        "{text}"
    );
    assert!(to_text_with(&f, Style::Reference).contains("F <a b>(x) => (y)"));
    assert_round_trip(&f, &text, onnx_text::parse_function);
}

#[test]
fn p06_keyword_named_untyped_values_are_quoted() {
    let g = onnx_text::parse_graph(
        "kw (\"float\") => (\"seq\") <\"map\", int64 int64> { seq = Identity(float) }",
    )
    .unwrap();
    assert_eq!(
        to_text_with(&g, Style::Reference),
        "kw ( float) => ( seq) \n   < map, int64 int64>\n{\n   seq = Identity (float)\n}"
    );
    assert!(onnx_text::parse_graph("kw ( float) => ( seq) {}").is_err());
    let text = to_text(&g);
    assert_eq!(
        text,
        "kw ( \"float\") => ( \"seq\") \n   < \"map\", int64 int64>\n{\n   seq = Identity (float)\n}"
    );
    assert_round_trip(&g, &text, onnx_text::parse_graph);

    let f =
        onnx_text::parse_function("<domain: \"\"> F (\"opaque\") => (y) { y = Identity(opaque) }")
            .unwrap();
    let text = to_text(&f);
    assert!(text.contains("F (\"opaque\") => (y)"), "{text}");
    assert_round_trip(&f, &text, onnx_text::parse_function);
}

/// A graph with one initializer, printed as `<…>` after the header.
fn graph_with(init: TensorProto) -> GraphProto {
    GraphProto {
        name: Some("g".into()),
        initializer: vec![init],
        ..GraphProto::default()
    }
}

fn tensor(name: &str, data_type: i32, dims: &[i64]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        data_type: Some(data_type),
        dims: dims.to_vec(),
        ..TensorProto::default()
    }
}

#[test]
fn p07_sub_byte_and_complex_data_are_printed_not_elided() {
    // int4: two elements per int32_data entry; complex64: interleaved float_data.
    let int4 = TensorProto {
        int32_data: vec![0x21, 0x43],
        ..tensor("q", 22, &[4])
    };
    let complex = TensorProto {
        float_data: vec![1.0, 2.0, -0.5, 3.25],
        ..tensor("c", 14, &[2])
    };
    for (t, reference, lossless) in [
        (int4, "int4[4] q = ...", "int4[4] q =  {33,67}"),
        (
            complex,
            "complex64[2] c = ...",
            "complex64[2] c =  {1,2,-0.5,3.25}",
        ),
    ] {
        let g = graph_with(t);
        assert_eq!(
            to_text_with(&g, Style::Reference),
            format!("g () => () \n   <{reference}>\n{{\n}}")
        );
        let text = to_text(&g);
        assert_eq!(text, format!("g () => () \n   <{lossless}>\n{{\n}}"));
        assert_round_trip(&g, &text, onnx_text::parse_graph);
    }
    // raw_data has no syntax; its values print in the form of the typed field, which the
    // parser fills: the same tensor, stored the parser's way.
    let raw = TensorProto {
        raw_data: Some(vec![0x21, 0x43]),
        ..tensor("r", 21, &[4])
    };
    let g = graph_with(raw);
    assert!(to_text_with(&g, Style::Reference).contains("uint4[4] r = ..."));
    let parsed = onnx_text::parse_graph(&to_text(&g)).unwrap();
    assert_eq!(parsed.initializer[0].int32_data, [0x21, 0x43]);
    let six_bit = TensorProto {
        raw_data: Some(vec![0x81, 0x30, 0x10, 0x3f]),
        ..tensor("s", 27, &[5])
    };
    let parsed = onnx_text::parse_graph(&to_text(&graph_with(six_bit))).unwrap();
    assert_eq!(parsed.initializer[0].int32_data, [1, 2, 3, 4, 63]);
}

#[test]
fn p08_empty_string_lists_print_with_both_brackets() {
    let node = onnx_text::parse_node("y = Foo <s: strings = []> ()").unwrap();
    assert_eq!(
        to_text_with(&node, Style::Reference),
        "   y = Foo <s: strings = ]> ()\n"
    );
    let text = to_text(&node);
    assert_eq!(text, "   y = Foo <s: strings = []> ()\n");
    assert_round_trip(&node, &text, onnx_text::parse_node);

    let g = onnx_text::parse_graph("g () => () <string[0] s = {}> {}").unwrap();
    assert_eq!(
        to_text_with(&g, Style::Reference),
        "g () => () \n   <string[0] s = }>\n{\n}"
    );
    let text = to_text(&g);
    assert_eq!(text, "g () => () \n   <string[0] s = {}>\n{\n}");
    assert_round_trip(&g, &text, onnx_text::parse_graph);
}

#[test]
fn p09_absent_ir_version_function_domain_and_empty_overload_stay_as_they_are() {
    let model = onnx_text::parse_model("g () => () {}").unwrap();
    assert_eq!(model.ir_version, None);
    assert_eq!(
        to_text_with(&model, Style::Reference),
        "<\n   ir_version: 0,\n   opset_import: []\n>\ng () => () {\n}"
    );
    let text = to_text(&model);
    assert_eq!(text, "<\n   opset_import: []\n>\ng () => () {\n}");
    assert_round_trip(&model, &text, onnx_text::parse_model);

    let f = onnx_text::parse_function("<overload: \"\"> F () => () {}").unwrap();
    assert_eq!(
        (f.domain.as_deref(), f.overload.as_deref()),
        (None, Some(""))
    );
    assert_eq!(
        to_text_with(&f, Style::Reference),
        "<\n  domain: \"\",\n  opset_import: []\n>\nF () => ()\n{\n}"
    );
    let text = to_text(&f);
    assert_eq!(
        text,
        "<\n  overload: \"\",\n  opset_import: []\n>\nF () => ()\n{\n}"
    );
    assert_round_trip(&f, &text, onnx_text::parse_function);
}

#[test]
fn p10_initializers_without_a_name_print_an_empty_name() {
    let g = onnx_text::parse_graph("g () => () <float[1] \"\" = {1}> {}").unwrap();
    assert_eq!(
        to_text_with(&g, Style::Reference),
        "g () => () \n   <float[1] =  {1}>\n{\n}"
    );
    let text = to_text(&g);
    assert_eq!(text, "g () => () \n   <float[1] \"\" =  {1}>\n{\n}");
    assert_round_trip(&g, &text, onnx_text::parse_graph);
}

#[test]
fn p11_unnamed_external_attribute_tensors_print_an_equals_sign() {
    let node =
        onnx_text::parse_node("y = Constant <value = float[2] = [\"location\": \"w.bin\"]> ()")
            .unwrap();
    assert_eq!(
        to_text_with(&node, Style::Reference),
        "   y = Constant <value: tensor = float[2][\"location\": \"w.bin\"]> ()\n"
    );
    let text = to_text(&node);
    assert_eq!(
        text,
        "   y = Constant <value: tensor = float[2] = [\"location\": \"w.bin\"]> ()\n"
    );
    assert_round_trip(&node, &text, onnx_text::parse_node);
}

#[test]
fn p12_empty_sparse_tensor_lists_print_as_empty_lists() {
    let node = onnx_text::parse_node("y = Foo <s: sparse_tensors = []> ()").unwrap();
    assert_eq!(
        to_text_with(&node, Style::Reference),
        "   y = Foo <s: sparse_tensors = > ()\n"
    );
    let text = to_text(&node);
    assert_eq!(text, "   y = Foo <s: sparse_tensors = []> ()\n");
    assert_round_trip(&node, &text, onnx_text::parse_node);
}

#[test]
fn p13_what_the_syntax_cannot_express_prints_as_the_reference_does() {
    // Doc strings outside models and functions have no syntax; a sparse tensor value neither;
    // an attribute name that is not an identifier cannot be quoted; a string tensor in raw_data
    // prints `...`; bytes that are not UTF-8 become U+FFFD.
    let node = NodeProto {
        output: vec!["y".into()],
        op_type: Some("Foo".into()),
        domain: Some(String::new()),
        doc_string: Some("dropped".into()),
        attribute: vec![
            AttributeProto {
                name: Some("a b".into()),
                r#type: Some(2),
                i: Some(1),
                ..AttributeProto::default()
            },
            AttributeProto {
                name: Some("sp".into()),
                r#type: Some(11),
                ..AttributeProto::default()
            },
            AttributeProto {
                name: Some("s".into()),
                r#type: Some(3),
                s: Some(vec![b'a', 0xff]),
                ..AttributeProto::default()
            },
        ],
        ..NodeProto::default()
    };
    let expected =
        "   y = Foo <a b: int = 1, sp: sparse_tensor = , s: string = \"a\u{fffd}\"> ()\n";
    assert_eq!(to_text_with(&node, Style::Reference), expected);
    assert_eq!(to_text(&node), expected);

    let g = graph_with(TensorProto {
        raw_data: Some(b"abc".to_vec()),
        ..tensor("s", 8, &[1])
    });
    assert_eq!(to_text(&g), "g () => () \n   <string[1] s = ...>\n{\n}");
}

#[test]
fn lossless_is_the_reference_where_the_reference_loses_nothing() {
    let model = onnx_text::parse_model(
        r#"<ir_version: 10, opset_import: ["" : 21, "local" : 1], producer_name: "p",
            metadata_props: ["k" : "v"]>
        "my g" (float[N, "a+b", ?] "x/1", float[2] w = {1.5, -0}) => (float[] y)
            <float[3] ext = ["location" : "f.bin"], float[N] vi>
        {
            [n1] y = local.F:ov <alpha: float = 2, ii = [1, 2], t = float[1] tn {1}> ("x/1", "", w)
            z = If (c) <then_branch = t () => (float a) { a = Identity (w) },
                        else_branch = e () => (float a) { a = Identity (w) }>
        }
        <domain: "local", overload: "ov", opset_import: ["" : 21]>
        F <beta> (X, Y) => (Z) { Z = Identity (X) }"#,
    )
    .unwrap();
    assert_eq!(to_text(&model), to_text_with(&model, Style::Reference));
    assert_round_trip(&model, &to_text(&model), onnx_text::parse_model);
}

#[test]
fn every_entry_point_prints() {
    let function = FunctionProto::default();
    let text = to_text(&function);
    assert_eq!(text, "<\n  opset_import: []\n>\n\"\" () => ()\n{\n}");
    let graph = GraphProto::default();
    assert_eq!(to_text(&graph), "\"\" () => () {\n}");
    let model = ModelProto {
        metadata_props: vec![StringStringEntryProto {
            key: Some("k".into()),
            value: Some("v".into()),
        }],
        ..ModelProto::default()
    };
    assert_eq!(
        to_text(&model),
        "<\n   opset_import: [],\n   metadata_props: [\"k\": \"v\"]\n>\n\"\" () => () {\n}"
    );
    let value_info_only = GraphProto {
        value_info: vec![ValueInfoProto::default()],
        ..GraphProto::default()
    };
    assert_eq!(
        to_text(&value_info_only),
        "\"\" () => () \n   < \"\">\n{\n}"
    );
    let library = onnx_text::parse_functions("F () => () {} G () => () {}").unwrap();
    assert_eq!(
        onnx_text::parse_functions(&to_text(&library)).unwrap(),
        library
    );
}
