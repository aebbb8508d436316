//! An input the target needs as an attribute, computed from constants (`Concat` of Constants,
//! `Cast` of one, `Mul`, `Shape` of a value of known dims), is folded with onnx-eval: the
//! converted model holds the folded attribute, the computation is gone, and the outputs are the
//! original's. A computation that reads a graph input, one larger than the bound, and one whose
//! kernel fails are refused as `runtime_input`.

mod common;

use common::{check, parse};
use onnx_eval::Value;
use onnx_runtime_types::{ModelProto, NodeProto};
use onnx_version_converter::{Error, convert_version};

fn nodes(model: &ModelProto) -> &[NodeProto] {
    &model.graph.as_ref().unwrap().node
}

fn ops(model: &ModelProto) -> Vec<&str> {
    nodes(model).iter().map(NodeProto::op_type).collect()
}

/// The integer-list attribute `name` of the node `op` of `model`.
fn ints(model: &ModelProto, op: &str, name: &str) -> Vec<i64> {
    let node = nodes(model).iter().find(|n| n.op_type() == op).unwrap();
    let attribute = node.attribute.iter().find(|a| a.name() == name);
    attribute
        .unwrap_or_else(|| panic!("no `{name}` on {op}"))
        .ints
        .clone()
}

/// Converts `text` to `target`, checks the result, and compares its outputs on `inputs` with
/// the original's.
fn converts(text: &str, target: i64, inputs: &[Value]) -> ModelProto {
    let original = valid(text);
    let converted = convert_version(&original, target).unwrap_or_else(|e| panic!("{e}"));
    check(&converted);
    let expected = onnx_eval::run(&original, inputs).unwrap();
    let actual = onnx_eval::run(&converted, inputs).unwrap();
    assert_eq!(actual, expected, "{}", onnx_print::to_text(&converted));
    converted
}

/// The model of `text`, which the checker accepts.
fn valid(text: &str) -> ModelProto {
    let model = parse(text);
    check(&model);
    model
}

/// The reason kinds of the refusals of `model` converted to `target`.
fn refused(model: &ModelProto, target: i64) -> Vec<&'static str> {
    match convert_version(model, target) {
        Err(Error::Nodes(refusals)) => refusals.iter().map(|r| r.reason.kind()).collect(),
        other => panic!("expected refusals, got {other:?}"),
    }
}

fn floats(count: usize) -> Vec<f32> {
    (0..count).map(|i| i as f32 * 0.5 - 3.0).collect()
}

#[test]
fn reduce_sum_axes_from_a_concat_of_constants() {
    let text = r#"<ir_version: 7, opset_import: ["" : 13]>
    g (float[2, 3, 4] x) => (float[3] y) {
        a = Constant <value: tensor = int64[1] {0}> ()
        b = Constant <value: tensor = int64[1] {2}> ()
        axes = Concat <axis = 0> (a, b)
        y = ReduceSum <keepdims = 0> (x, axes)
    }"#;
    let x = Value::tensor(&floats(24), &[2, 3, 4]).unwrap();
    let converted = converts(text, 11, &[x]);
    assert_eq!(ints(&converted, "ReduceSum", "axes"), [0, 2]);
    // The Concat and its Constants, unread now, are gone.
    assert_eq!(ops(&converted), ["ReduceSum"]);
}

#[test]
fn squeeze_axes_from_a_cast_constant() {
    let text = r#"<ir_version: 7, opset_import: ["" : 13]>
    g (float[1, 3, 1] x) => (float[3] y) {
        c = Constant <value: tensor = int32[2] {0, -1}> ()
        axes = Cast <to = 7> (c)
        y = Squeeze (x, axes)
    }"#;
    let x = Value::tensor(&floats(3), &[1, 3, 1]).unwrap();
    let converted = converts(text, 12, &[x]);
    assert_eq!(ints(&converted, "Squeeze", "axes"), [0, -1]);
    assert_eq!(ops(&converted), ["Squeeze"]);
}

#[test]
fn resize_scales_from_a_mul_of_constants() {
    let text = r#"<ir_version: 5, opset_import: ["" : 10]>
    g (float[1, 1, 2, 2] x) => (float[1, 1, 4, 6] y) {
        a = Constant <value: tensor = float[4] {1.0, 1.0, 1.0, 1.5}> ()
        b = Constant <value: tensor = float[4] {1.0, 1.0, 2.0, 2.0}> ()
        scales = Mul (a, b)
        y = Resize <mode = "nearest"> (x, scales)
    }"#;
    let x = Value::tensor(&floats(4), &[1, 1, 2, 2]).unwrap();
    let converted = converts(text, 8, &[x]);
    assert_eq!(ops(&converted), ["Upsample"]);
    let upsample = &nodes(&converted)[0];
    let scales = upsample.attribute.iter().find(|a| a.name() == "scales");
    assert_eq!(scales.unwrap().floats, [1.0, 1.0, 2.0, 3.0]);
}

#[test]
fn pad_pads_from_a_concat_read_twice() {
    // `pads` is also a graph output: the Concat stays for it, and Pad takes the folded value.
    let text = r#"<ir_version: 7, opset_import: ["" : 11]>
    g (float[2, 3] x) => (float[4, 6] y, int64[4] pads) {
        p = Constant <value: tensor = int64[2] {1, 2}> ()
        q = Constant <value: tensor = int64[2] {1, 1}> ()
        pads = Concat <axis = 0> (p, q)
        y = Pad <mode = "constant"> (x, pads)
    }"#;
    let x = Value::tensor(&floats(6), &[2, 3]).unwrap();
    let converted = converts(text, 10, &[x]);
    assert_eq!(ints(&converted, "Pad", "pads"), [1, 2, 1, 1]);
    assert_eq!(ops(&converted), ["Constant", "Constant", "Concat", "Pad"]);
}

#[test]
fn top_k_from_the_shape_of_a_value_of_known_dims() {
    // Shape-15's bounds become a Slice at 13; the Shape of a static value folds all the same.
    let text = r#"<ir_version: 8, opset_import: ["" : 15]>
    g (float[2, 3] x) => (float[2, 3] values, int64[2, 3] indices) {
        k = Shape <start = -1> (x)
        values, indices = TopK (x, k)
    }"#;
    let x = Value::tensor(&floats(6), &[2, 3]).unwrap();
    let converted = converts(text, 9, &[x]);
    assert_eq!(ops(&converted), ["TopK"]);
    let top_k = &nodes(&converted)[0];
    assert_eq!(
        top_k.attribute.iter().find(|a| a.name() == "k").unwrap().i,
        Some(3)
    );
}

/// An If whose branches squeeze `x` by a value both name `axes`: the then branch's an Identity
/// of the outer Constant `a`, the else branch's of `else_axes` (`a`, or the graph input `n`).
fn branches(else_axes: &str) -> String {
    format!(
        r#"<ir_version: 7, opset_import: ["" : 13]>
        g (bool c, float[1, 3] x, int64[1] n) => (float[3] y) {{
            a = Constant <value: tensor = int64[1] {{0}}> ()
            y = If (c) <
                then_branch = t () => (float[3] ty) {{
                    axes = Identity (a)
                    ty = Squeeze (x, axes)
                }},
                else_branch = e () => (float[3] ey) {{
                    axes = Identity ({else_axes})
                    ey = Squeeze (x, axes)
                }}
            >
        }}"#
    )
}

#[test]
fn a_computation_inside_a_branch_reads_the_outer_constants() {
    let x = Value::tensor(&floats(3), &[1, 3]).unwrap();
    let n = Value::tensor(&[0i64], &[1]).unwrap();
    for c in [true, false] {
        let c = Value::tensor(&[c], &[]).unwrap();
        let converted = converts(&branches("a"), 12, &[c, x.clone(), n.clone()]);
        // Both branches' Squeezes hold `axes`; the Identities and the Constant are gone.
        let text = onnx_print::to_text(&converted);
        let squeezes = text.matches("Squeeze <axes: ints = [0]> (x)").count();
        assert_eq!(squeezes, 2, "{text}");
        let gone = !text.contains("Identity") && !text.contains("Constant");
        assert!(gone, "{text}");
    }
}

#[test]
fn a_name_of_the_other_branch_is_not_its_value() {
    // The then branch's `axes` folds; the else branch's, of the same name, is fed.
    assert_eq!(refused(&valid(&branches("n")), 12), ["runtime_input"]);
}

#[test]
fn a_random_computation_is_refused() {
    // Always 0, but a draw: RandomUniform is not folded.
    let text = r#"<ir_version: 7, opset_import: ["" : 13]>
    g (float[1, 3] x) => (float[3] y) {
        r = RandomUniform <shape = [1], low = 0.0, high = 0.5> ()
        axes = Cast <to = 7> (r)
        y = Squeeze (x, axes)
    }"#;
    assert_eq!(refused(&valid(text), 12), ["runtime_input"]);
}

#[test]
fn a_computation_that_reads_a_graph_input_is_refused() {
    let text = r#"<ir_version: 7, opset_import: ["" : 13]>
    g (float[1, 3, 1] x, int64[1] b) => (float[3] y) {
        a = Constant <value: tensor = int64[1] {0}> ()
        axes = Concat <axis = 0> (a, b)
        y = Squeeze (x, axes)
    }"#;
    assert_eq!(refused(&valid(text), 12), ["runtime_input"]);
}

/// Squeeze's `axes` through a chain of `length` Identity nodes from a Constant.
fn chain(length: usize) -> String {
    let mut body = String::from("c0 = Constant <value: tensor = int64[1] {0}> ()\n");
    for i in 1..=length {
        body.push_str(&format!("c{i} = Identity (c{})\n", i - 1));
    }
    format!(
        r#"<ir_version: 7, opset_import: ["" : 13]>
        g (float[1, 3] x) => (float[3] y) {{
            {body}
            y = Squeeze (x, c{length})
        }}"#
    )
}

#[test]
fn a_computation_of_32_nodes_folds_and_one_of_33_is_refused() {
    let x = Value::tensor(&floats(3), &[1, 3]).unwrap();
    let converted = converts(&chain(32), 12, &[x]);
    assert_eq!(ops(&converted), ["Squeeze"]);
    assert_eq!(refused(&valid(&chain(33)), 12), ["runtime_input"]);
}

#[test]
fn a_computation_that_makes_a_large_tensor_is_refused() {
    // 8192 elements in between are over the bound of 4096; 8 fold.
    let text = |count: usize| {
        format!(
            r#"<ir_version: 7, opset_import: ["" : 13]>
            g (float[1, 3] x) => (float[3] y) {{
                shape = Constant <value: tensor = int64[1] {{{count}}}> ()
                zeros = ConstantOfShape <value: tensor = int64[1] {{0}}> (shape)
                start = Constant <value: tensor = int64[1] {{0}}> ()
                end = Constant <value: tensor = int64[1] {{1}}> ()
                axes = Slice (zeros, start, end)
                y = Squeeze (x, axes)
            }}"#
        )
    };
    let x = Value::tensor(&floats(3), &[1, 3]).unwrap();
    assert_eq!(ops(&converts(&text(8), 12, &[x])), ["Squeeze"]);
    assert_eq!(refused(&valid(&text(8192)), 12), ["runtime_input"]);
}

#[test]
fn a_computation_whose_kernel_fails_is_refused() {
    // Index 5 of two elements: the kernel fails (and the checker rejects the model, which the
    // converter does not ask of its input).
    let model = parse(
        r#"<ir_version: 7, opset_import: ["" : 13]>
        g (float[1, 3, 1] x) => (float[3] y) {
            values = Constant <value: tensor = int64[2] {0, 2}> ()
            index = Constant <value: tensor = int64[1] {5}> ()
            axes = Gather (values, index)
            y = Squeeze (x, axes)
        }"#,
    );
    assert_eq!(refused(&model, 12), ["runtime_input"]);
}
