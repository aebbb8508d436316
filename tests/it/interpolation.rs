//! Rust values in macro literals: every position, in every macro where it can stand, gives the
//! bytes that the runtime parser gives for the same text with the values written in; checks
//! that wait for the values fail at evaluation with the check's message and the literal's place.

use onnx_text::prost::Message;
use onnx_text::{
    FunctionProto, GraphProto, ModelProto, NodeProto, onnx, onnx_function, onnx_functions,
    onnx_graph, onnx_node, onnx_nodes, parse_function, parse_functions, parse_graph, parse_model,
    parse_node, parse_nodes,
};

/// Asserts equal bytes, showing both values as text when they differ.
fn same<M: Message + std::fmt::Debug>(from_macro: &M, from_text: &M) {
    assert_eq!(
        from_macro.encode_to_vec(),
        from_text.encode_to_vec(),
        "macro value {from_macro:#?}\ndiffers from the parsed text {from_text:#?}"
    );
}

#[test]
fn dims_one_and_spread_integers_and_strings() {
    let (n, dims, sym) = (8_u32, vec![3_usize, 4], "M");
    let model = onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[#n, ..#dims] x, float[#sym, ..#(["a", "b"])] z) => (float[1, ..#dims, #(2 + 3)] y) {
            y = Relu (x)
        }
    };
    let text = r#"<ir_version: 10, opset_import: ["" : 21]>
        g (float[8, 3, 4] x, float[M, a, b] z) => (float[1, 3, 4, 5] y) { y = Relu (x) }"#;
    same(&model, &parse_model(text).unwrap());
    // Holes borrow: `dims` is still usable.
    assert_eq!(dims.len(), 2);
}

#[test]
fn empty_spread_of_dims_gives_a_scalar_shape() {
    let none: Vec<i64> = Vec::new();
    let graph = onnx_graph!(g (float[..#none] x) => (y) { y = Relu (x) });
    same(
        &graph,
        &parse_graph("g (float x) => (y) { y = Relu (x) }").unwrap(),
    );
}

#[test]
fn value_names_in_every_list() {
    let (input, output, hidden) = ("X", String::from("Y"), "T");
    let xs = ["a", "b", "c"];
    let model = onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[N] #input, float[N] a, float[N] b, float[N] c) => (float[N] #output)
          <float[N] #hidden> {
            #hidden = Relu (#input)
            s = Sum (..#xs, #hidden)
            #output = Identity (s)
        }
    };
    let text = r#"<ir_version: 10, opset_import: ["" : 21]>
        g (float[N] X, float[N] a, float[N] b, float[N] c) => (float[N] Y) <float[N] T> {
            T = Relu (X)
            s = Sum (a, b, c, T)
            Y = Identity (s)
        }"#;
    same(&model, &parse_model(text).unwrap());
}

#[test]
fn initializer_names_dims_and_data() {
    let (name, n, w, last) = ("W", 3_i64, [1.5_f32, 2.0], 4.0_f32);
    let graph = onnx_graph! {
        g (float[3] x) => (float[3] y) <float[#n] #name = {..#w, #last}, int64[2] k = {#(7_i64), -1}> {
            y = Add (x, #name)
        }
    };
    let text =
        "g (float[3] x) => (float[3] y) <float[3] W = {1.5, 2.0, 4.0}, int64[2] k = {7, -1}> {
        y = Add (x, W)
    }";
    same(&graph, &parse_graph(text).unwrap());
}

#[test]
fn tensor_data_of_each_element_type() {
    let bytes = vec![1_u8, 2];
    let node = onnx_node! {
        y = Foo <
            a = int8[2] {#(-1_i8), #(2_i8)},
            b = uint8[2] {..#bytes},
            c = int16[1] {#(300_i16)},
            d = uint16[1] {#(60000_u16)},
            e = int32[1] {#(-5_i32)},
            f = uint32[1] {#(4000000000_u32)},
            g = uint64[1] {#(u64::MAX)},
            h = bool[2] {#true, #false},
            i = double[2] {#(0.1_f64), #(0.5_f32)},
            j = string[2] {#("s"), "t"}
        > (x)
    };
    let text = r#"y = Foo <
            a = int8[2] {-1, 2},
            b = uint8[2] {1, 2},
            c = int16[1] {300},
            d = uint16[1] {60000},
            e = int32[1] {-5},
            f = uint32[1] {4000000000},
            g = uint64[1] {18446744073709551615},
            h = bool[2] {1, 0},
            i = double[2] {0.1, 0.5},
            j = string[2] {"s", "t"}
        > (x)"#;
    same(&node, &parse_node(text).unwrap());
}

#[test]
fn attributes_typed_by_the_schema() {
    let (alpha, axis, perm, mode) = (0.25_f64, 1_u8, vec![1_i64, 0], "constant");
    let (rest, pads) = (vec![3_i64], [0_i32, 0, 1, 1]);
    let model = onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[2, 3] x, int64[4] p) => (float[2, 3] y, float[3, 2] z, float[?, ?] w, float[?, ?, ?, ?] v) {
            y = LeakyRelu <alpha = #alpha> (x)
            z = Transpose <perm = #perm> (x)
            w = Pad <mode = #mode> (x, p)
            c = Concat <axis = #axis> (x, x)
            v = Transpose <perm = [1, ..#rest, 0, 2]> (c)
            k = Constant <value_ints = #pads> ()
        }
    };
    let text = r#"<ir_version: 10, opset_import: ["" : 21]>
        g (float[2, 3] x, int64[4] p) => (float[2, 3] y, float[3, 2] z, float[?, ?] w, float[?, ?, ?, ?] v) {
            y = LeakyRelu <alpha = 0.25> (x)
            z = Transpose <perm = [1, 0]> (x)
            w = Pad <mode = "constant"> (x, p)
            c = Concat <axis = 1> (x, x)
            v = Transpose <perm = [1, 3, 0, 2]> (c)
            k = Constant <value_ints = [0, 0, 1, 1]> ()
        }"#;
    same(&model, &parse_model(text).unwrap());
}

#[test]
fn attributes_typed_by_annotation_and_by_rust() {
    let (f, i, s, fs, is) = (1.5_f32, -3_i64, "on", vec![0.5_f32, 2.0], [4_u16, 5]);
    let node = onnx_node! {
        y = com.example.Foo <
            a: float = #f, b = #i, c = #s, d = #fs, e = #is,
            g: ints = [..#is], h = [..#fs], k = ["x", #s]
        > (x)
    };
    let text = r#"y = com.example.Foo <
            a: float = 1.5, b = -3, c = "on", d = [0.5, 2.0], e = [4, 5],
            g: ints = [4, 5], h = [0.5, 2.0], k = ["x", "on"]
        > (x)"#;
    same(&node, &parse_node(text).unwrap());
}

#[test]
fn attributes_holding_messages() {
    let body = onnx_graph!(body () => (out) { out = Constant <value_float = 1.0> () });
    let tensor = onnx_text::TensorProto {
        dims: vec![1],
        data_type: Some(1),
        float_data: vec![2.0],
        name: Some(String::new()),
        ..Default::default()
    };
    let node = onnx_node!(y = If <then_branch = #body, else_branch = #body> (c));
    let constant = onnx_node!(k = Constant <value = #tensor> ());
    let mut expected = parse_node(
        "y = If <then_branch = body () => (out) { out = Constant <value_float = 1.0> () },
                 else_branch = body () => (out) { out = Constant <value_float = 1.0> () }> (c)",
    )
    .unwrap();
    same(&node, &expected);
    expected = parse_node("k = Constant <value = float[1] {2.0}> ()").unwrap();
    same(&constant, &expected);
}

#[test]
fn header_values() {
    let (ir, version, producer, opset, doc) = (9_i64, 4_u8, String::from("tests"), 18_i64, "d");
    let model = onnx! {
        <ir_version: #ir, model_version: #version, producer_name: #producer, doc_string: #doc,
         opset_import: ["" : #opset, "com.example" : 1]>
        g (float[2] x) => (float[2] y) { y = Relu (x) }
    };
    let text = r#"<ir_version: 9, model_version: 4, producer_name: "tests", doc_string: "d",
         opset_import: ["" : 18, "com.example" : 1]>
        g (float[2] x) => (float[2] y) { y = Relu (x) }"#;
    same(&model, &parse_model(text).unwrap());
    let function = onnx_function! {
        <domain: #producer, opset_import: ["" : #opset]>
        F (x) => (y) { y = Relu (x) }
    };
    let text = r#"<domain: "tests", opset_import: ["" : 18]> F (x) => (y) { y = Relu (x) }"#;
    same(&function, &parse_function(text).unwrap());
}

#[test]
fn nodes_spliced_into_node_lists() {
    let first = onnx_node!(a = Abs(x));
    let more: Vec<NodeProto> = onnx_nodes!(b = Neg (a) c = Relu (b));
    let graph: GraphProto = onnx_graph! {
        g (float[2] x) => (y) { #first ..#more y = Identity (c) }
    };
    let text = "g (float[2] x) => (y) { a = Abs (x) b = Neg (a) c = Relu (b) y = Identity (c) }";
    same(&graph, &parse_graph(text).unwrap());
    let nodes = onnx_nodes!(#first ..#more);
    same(
        &GraphProto {
            node: nodes,
            ..Default::default()
        },
        &GraphProto {
            node: parse_nodes("a = Abs (x) b = Neg (a) c = Relu (b)").unwrap(),
            ..Default::default()
        },
    );
    // A spliced node list inside a function body.
    let function = onnx_function!(F (a) => (c) { ..#more });
    same(
        &function,
        &parse_function("F (a) => (c) { b = Neg (a) c = Relu (b) }").unwrap(),
    );
}

#[test]
fn functions_after_a_model_and_in_a_library() {
    let library: Vec<FunctionProto> = onnx_functions! {
        <domain: "local", opset_import: ["" : 21]> Sq (x) => (y) { y = Mul (x, x) }
    };
    let model: ModelProto = onnx! {
        <ir_version: 10, opset_import: ["" : 21, "local" : 1]>
        g (float[2] x) => (float[2] y) { y = local.Sq (x) }
        ..#library
    };
    let text = r#"<ir_version: 10, opset_import: ["" : 21, "local" : 1]>
        g (float[2] x) => (float[2] y) { y = local.Sq (x) }
        <domain: "local", opset_import: ["" : 21]> Sq (x) => (y) { y = Mul (x, x) }"#;
    same(&model, &parse_model(text).unwrap());
    let one = library[0].clone();
    let more = onnx_functions!(#one <domain: "local"> Id (x) => (y) { y = Identity (x) });
    let text = r#"<domain: "local", opset_import: ["" : 21]> Sq (x) => (y) { y = Mul (x, x) }
        <domain: "local"> Id (x) => (y) { y = Identity (x) }"#;
    assert_eq!(more, parse_functions(text).unwrap());
}

/// A `macro_rules!` body can pass its parameters in: `#($n)`.
macro_rules! relu_of_width {
    ($n:expr, $name:expr) => {
        onnx_graph!(g (float[#($n)] #($name)) => (y) { y = Relu (#($name)) })
    };
}

#[test]
fn holes_inside_macro_rules() {
    let graph = relu_of_width!(2 * 8, "input");
    same(
        &graph,
        &parse_graph("g (float[16] input) => (y) { y = Relu (input) }").unwrap(),
    );
}

#[test]
fn a_literal_without_holes_is_unchanged_by_fallible() {
    let result: Result<NodeProto, onnx_text::Diagnostics> = onnx_node!(#![fallible] y = Relu (x));
    same(&result.unwrap(), &parse_node("y = Relu (x)").unwrap());
}

#[test]
fn a_name_hole_that_breaks_ssa_is_reported_at_evaluation() {
    let name = "t";
    let result =
        onnx_graph!(#![fallible] g (x) => (y) { t = Abs (x)  #name = Neg (x)  y = Relu (t) });
    let problems = result.unwrap_err();
    assert_eq!(
        problems[0].check(),
        Some(onnx_text::Check::DuplicateDefinition)
    );
    let shown = problems.to_string();
    assert!(shown.contains("tests/it/interpolation.rs:"), "{shown}");
    let fine =
        onnx_graph!(#![fallible] g (x) => (y) { t = Abs (x)  #("u") = Neg (x)  y = Relu (t) });
    assert!(fine.is_ok());
}

#[test]
fn an_element_count_that_depends_on_a_spread_is_checked_at_evaluation() {
    let values = vec![1.0_f32, 2.0];
    let ok = onnx_graph!(#![fallible] g () => (w) <float[2] w = {..#values}> {});
    assert!(ok.is_ok());
    let short = vec![1.0_f32];
    let problems = onnx_graph!(#![fallible] g () => (w) <float[2] w = {..#short}> {}).unwrap_err();
    assert_eq!(
        problems[0].check(),
        Some(onnx_text::Check::ElementCountMismatch)
    );
}

#[test]
fn schema_checks_under_a_version_hole_wait_for_its_value() {
    let (old, new) = (9_i64, 21_i64);
    let fine = onnx!(#![fallible] <ir_version: 10, opset_import: ["" : #new]> g (float x) => (float y) { y = Gelu (x) });
    assert!(fine.is_ok());
    // Gelu came in opset 20.
    let problems = onnx!(#![fallible] <ir_version: 10, opset_import: ["" : #old]> g (float x) => (float y) { y = Gelu (x) })
        .unwrap_err();
    assert_eq!(problems[0].check(), Some(onnx_text::Check::UnknownOperator));
}

#[test]
#[should_panic(expected = "is invalid with the values of its holes")]
fn without_fallible_a_failing_check_panics() {
    let name = "x";
    let _ = onnx_graph!(g (x) => (y) { #name = Abs (x)  y = Relu (x) });
}

#[test]
fn a_value_that_does_not_fit_is_reported_at_evaluation() {
    let huge = u64::MAX;
    let problems =
        onnx_graph!(#![fallible] g (float[#huge] x) => (y) { y = Relu (x) }).unwrap_err();
    let shown = problems.to_string();
    assert!(
        shown.contains("#huge") && shown.contains("does not fit a dimension"),
        "{shown}"
    );
}

#[test]
fn unchecked_literals_are_not_checked_at_evaluation_either() {
    let name = "x";
    let graph = onnx_graph!(#![unchecked] g (x) => (y) { #name = Abs (x)  y = Relu (x) });
    assert_eq!(graph.node[0].output, ["x"]);
}

#[test]
fn allowed_checks_stay_off_at_evaluation() {
    let name = "x";
    let graph =
        onnx_graph!(#![allow(duplicate_definition)] g (x) => (y) { #name = Abs (x)  y = Relu (x) });
    assert_eq!(graph.node[0].output, ["x"]);
}

#[test]
fn unchecked_literals_type_attribute_holes_by_rust_not_by_the_schema() {
    let alpha = 1_i64;
    let model = onnx!(#![unchecked] <ir_version: 10, opset_import: ["" : 21]>
        g (float[N] x) => (y) { y = LeakyRelu <alpha = #alpha> (x) });
    let text = r#"<ir_version: 10, opset_import: ["" : 21]>
        g (float[N] x) => (y) { y = LeakyRelu <alpha = 1> (x) }"#;
    same(&model, &parse_model(text).unwrap());
}

/// Spreads take what a helper function is naturally passed: slice parameters, `&Vec`, arrays and
/// references to them, `&[&str]` and `&[String]`, and iterators; in every position with a spread.
/// Before issue 19, `..#dims` with `dims: &[i64]` was `&&[i64]`, which is not an iterator.
#[test]
fn spreads_of_slices_references_arrays_and_iterators() {
    fn build(
        dims: &[i64],
        data: &[f32],
        names: &[&str],
        owned: &[String],
        perm: &[i64; 2],
        nodes: &[NodeProto],
        functions: &Vec<FunctionProto>,
    ) -> ModelProto {
        onnx! {
            <ir_version: 10, opset_import: ["" : 21, "local" : 1]>
            g (float[..#dims] a, float[..#perm] b, float[..#(dims.iter().rev())] c)
              => (float[..#dims] y)
              <float[..#(data.iter().map(|_| 1))] w = {..#data}, int64[2] p = {..#perm}> {
                ..#nodes
                s = Sum (..#names, ..#owned)
                t = Transpose <perm = [..#perm]> (s)
                y = local.Id (t)
            }
            ..#functions
        }
    }
    let nodes = onnx_nodes!(x = Abs (a) z = Neg (b));
    let functions: Vec<FunctionProto> = onnx_functions!(<domain: "local", opset_import: ["" : 21]> Id (x) => (y) { y = Identity (x) });
    let owned = vec![String::from("c")];
    let model = build(&[2, 2], &[0.5], &["x"], &owned, &[1, 0], &nodes, &functions);
    let text = r#"<ir_version: 10, opset_import: ["" : 21, "local" : 1]>
        g (float[2, 2] a, float[1, 0] b, float[2, 2] c) => (float[2, 2] y)
          <float[1] w = {0.5}, int64[2] p = {1, 0}> {
            x = Abs (a)
            z = Neg (b)
            s = Sum (x, c)
            t = Transpose <perm = [1, 0]> (s)
            y = local.Id (t)
        }
        <domain: "local", opset_import: ["" : 21]> Id (x) => (y) { y = Identity (x) }"#;
    same(&model, &parse_model(text).unwrap());
    // References to references, and an array by value, in a node list and attribute lists.
    let (array, nested): ([i64; 2], &&[i64]) = ([3, 4], &&[5_i64][..]);
    let node = onnx_node!(y = Foo <ints = [..#array, ..#nested], more = [..#(vec![1_i64])]> (x));
    same(
        &node,
        &parse_node("y = Foo <ints = [3, 4, 5], more = [1]> (x)").unwrap(),
    );
}
