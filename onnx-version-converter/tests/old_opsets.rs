//! Models from before opset 7, as old exporters wrote them: B broadcast onto A by
//! `broadcast`/`axis`, `is_test` on BatchNormalization and Dropout, Gemm's `broadcast`, and
//! opset 1's `consumed_inputs`, Concat's default axis, Cast's `to` by name and Pad's
//! `paddings`. Each goes up to the opsets runtimes ask for and back down, runs in onnx-eval,
//! and gives the original's outputs; what the older rule cannot say is refused.

mod common;

use common::{check, parse};
use onnx_eval::Value;
use onnx_runtime_types::{ModelProto, ValueInfoProto, tensor_shape_proto, type_proto};
use onnx_version_converter::{Error, convert_version};

/// A small CNN as an opset-6 exporter wrote it.
const CNN_6: &str = r#"<ir_version: 3, opset_import: ["" : 6]>
g (float[1,3,8,8] X, float[4,3,3,3] W, float[4] Wb, float[4] s, float[4] b, float[4] m, float[4] v, float[10,64] G, float[10] Gb) => (float[1,10] Y) {
    c = Conv <kernel_shape: ints = [3,3], pads: ints = [1,1,1,1]> (X, W)
    cb = Add <broadcast: int = 1, axis: int = 1> (c, Wb)
    bn = BatchNormalization <is_test: int = 1, epsilon: float = 0.001> (cb, s, b, m, v)
    r = Relu (bn)
    p = MaxPool <kernel_shape: ints = [2,2], strides: ints = [2,2]> (r)
    d = Dropout <is_test: int = 1, ratio: float = 0.5> (p)
    f = Flatten (d)
    Y = Gemm <transB: int = 1, broadcast: int = 1> (f, G, Gb)
}"#;

/// Opset 1: `consumed_inputs`, Concat without `axis`, the logical operators' `broadcast`.
const OPSET_1: &str = r#"<ir_version: 3, opset_import: ["" : 1]>
g (float[2,3] A, float[3] B, float[2,3] S) => (float[2,3] Y, float[2,6] C, bool[2,3] E) {
    s = Add <broadcast: int = 1, consumed_inputs: ints = [0, 0]> (A, B)
    r = Relu <consumed_inputs: ints = [0]> (s)
    C = Concat (r, S)
    Y = Sub <broadcast: int = 1> (r, B)
    E = Greater <broadcast: int = 1> (r, B)
}"#;

/// Opset 1's other spellings: Pad's `paddings`, Cast's `to` by name, Split's `split` attribute.
const OPSET_1_FORMS: &str = r#"<ir_version: 3, opset_import: ["" : 1]>
g (float[2,3] A) => (float[2,5] P, int32[2,3] C, float[2,1] S1, float[2,2] S2, float[2,3] M) {
    P = Pad <paddings: ints = [0, 1, 0, 1], mode: string = "constant"> (A)
    C = Cast <to: string = "INT32"> (A)
    S1, S2 = Split <axis: int = 1, split: ints = [1, 2]> (A)
    M = Max (A, A)
}"#;

/// PRelu-6's slope per channel, as PyTorch exported it.
const PRELU_6: &str = r#"<ir_version: 3, opset_import: ["" : 6]>
g (float[2,3,4,5] X, float[3] slope, float[2,3] Y2, float[3] slope2) => (float[2,3,4,5] Z, float[2,3] Z2) {
    Z = PRelu (X, slope)
    Z2 = PRelu (Y2, slope2)
}"#;

/// Inputs for every graph input, of its declared shape, with values that vary.
fn inputs(model: &ModelProto) -> Vec<Value> {
    let graph = model.graph.as_ref().unwrap();
    graph
        .input
        .iter()
        .enumerate()
        .map(|(k, input)| {
            let dims = static_dims(input);
            let count = dims.iter().product::<usize>();
            // Positive where BatchNormalization takes a variance.
            let values: Vec<f32> = (0..count)
                .map(|i| {
                    (((i * 7 + k * 13) % 11) as f32 - 4.0) / 8.0 + if k == 7 { 5.0 } else { 0.0 }
                })
                .collect();
            Value::tensor(&values, &dims).unwrap()
        })
        .collect()
}

/// The dimensions a graph input declares, every one a number.
fn static_dims(input: &ValueInfoProto) -> Vec<usize> {
    let Some(type_proto::Value::TensorType(tensor)) =
        input.r#type.as_ref().and_then(|t| t.value.as_ref())
    else {
        panic!("a tensor input");
    };
    let shape = tensor.shape.as_ref().unwrap();
    shape
        .dim
        .iter()
        .map(|d| match d.value {
            Some(tensor_shape_proto::dimension::Value::DimValue(v)) => v as usize,
            _ => panic!("a static dimension"),
        })
        .collect()
}

fn run(model: &ModelProto, inputs: &[Value]) -> Vec<Value> {
    onnx_eval::run(model, inputs).unwrap()
}

fn assert_same(got: &[Value], expected: &[Value]) {
    assert_eq!(got.len(), expected.len());
    for (g, e) in got.iter().zip(expected) {
        assert_eq!(g, e);
    }
}

/// `model` converted to `target`: it passes the checker and gives `expected` on `inputs`.
fn converts_same(
    model: &ModelProto,
    target: i64,
    inputs: &[Value],
    expected: &[Value],
) -> ModelProto {
    let converted = convert_version(model, target).unwrap();
    check(&converted);
    assert_same(&run(&converted, inputs), expected);
    converted
}

fn ops(model: &ModelProto) -> Vec<&str> {
    let graph = model.graph.as_ref().unwrap();
    graph.node.iter().map(|n| n.op_type()).collect()
}

fn refusal(text: &str, target: i64) -> String {
    match convert_version(&parse(text), target) {
        Err(Error::Nodes(refusals)) => refusals[0].reason.kind().to_owned(),
        other => panic!("not refused: {other:?}"),
    }
}

#[test]
fn an_opset_6_cnn_goes_up_and_back_with_its_outputs() {
    let model = parse(CNN_6);
    let inputs = inputs(&model);
    let expected = run(&model, &inputs);
    for target in [7, 9, 13, 21] {
        let up = converts_same(&model, target, &inputs, &expected);
        // Wb aligned at the end, as numpy aligns it.
        assert!(ops(&up).contains(&"Unsqueeze"), "{target}: {:?}", ops(&up));
        let back = converts_same(&up, 6, &inputs, &expected);
        let text = onnx_print::to_text(&back);
        assert!(text.contains("is_test: int = 1"), "{text}");
        assert!(text.contains("broadcast: int = 1, axis: int = 1"), "{text}");
    }
}

#[test]
fn opset_1_hints_and_defaults_carry_over() {
    let model = parse(OPSET_1);
    let inputs = inputs(&model);
    let expected = run(&model, &inputs);
    for target in [6, 7, 13, 21] {
        let up = converts_same(&model, target, &inputs, &expected);
        assert!(!onnx_print::to_text(&up).contains("consumed_inputs"));
    }
}

#[test]
fn opset_1_spellings_go_up_and_back() {
    let model = parse(OPSET_1_FORMS);
    let inputs = inputs(&model);
    let expected = run(&model, &inputs);
    for target in [6, 7, 13, 21] {
        let up = converts_same(&model, target, &inputs, &expected);
        let back = converts_same(&up, 1, &inputs, &expected);
        let text = onnx_print::to_text(&back);
        assert!(text.contains(r#"to: string = "INT32""#), "{text}");
        assert!(text.contains("paddings: ints = [0, 1, 0, 1]"), "{text}");
    }
}

#[test]
fn prelu_slopes_per_channel_go_up_and_back() {
    let model = parse(PRELU_6);
    let inputs = inputs(&model);
    let expected = run(&model, &inputs);
    for target in [7, 9, 16, 21] {
        let up = converts_same(&model, target, &inputs, &expected);
        // The 4-D input's slope gets its trailing 1s; the 2-D one's needs none.
        assert_eq!(ops(&up).iter().filter(|&&op| op == "Unsqueeze").count(), 1);
        converts_same(&up, 6, &inputs, &expected);
    }
    // A slope numpy stretches along another axis than the channels has no older form.
    let other_axis = r#"<ir_version: 7, opset_import: ["" : 13]>
g (float[2,3,4,5] X, float[5] slope) => (float[2,3,4,5] Z) { Z = PRelu (X, slope) }"#;
    assert_eq!(refusal(other_axis, 6), "inexact");
}

#[test]
fn numpy_broadcasting_the_older_rule_cannot_say_is_refused() {
    // A onto B, and a 1 inside B's run.
    for (a, b) in [("float[3]", "float[2,3]"), ("float[2,3,4]", "float[3,1,4]")] {
        let text = format!(
            "<ir_version: 7, opset_import: [\"\" : 13]>\ng ({a} A, {b} B) => (float[2,3,4] C) {{\n    C = Add (A, B)\n}}"
        );
        assert_eq!(refusal(&text, 6), "inexact", "{a} {b}");
    }
    // Unknown dimensions: nothing tells whether numpy stretches.
    let unknown = r#"<ir_version: 7, opset_import: ["" : 13]>
g (float[N,3] A, float[M] B) => (float[N,3] C) { C = Add (A, B) }"#;
    assert_eq!(refusal(unknown, 6), "unknown_fact");
}

#[test]
fn training_and_unknown_ranks_before_7_are_refused() {
    // BatchNormalization-6 without `is_test` trains on the batch; 7 with one output infers.
    let training = CNN_6.replace("is_test: int = 1, epsilon", "epsilon");
    assert_eq!(refusal(&training, 7), "inexact");
    let dropout = CNN_6.replace("is_test: int = 1, ratio", "ratio");
    assert_eq!(refusal(&dropout, 13), "inexact");
    // `broadcast = 1` with B's rank unknown: where numpy would align it is unknown.
    let rank = r#"<ir_version: 3, opset_import: ["" : 6]>
g (float[2,3,4] A, float[3] Bin, int64[K] shape) => (float[2,3,4] C) {
    B = Reshape (Bin, shape)
    C = Add <broadcast: int = 1, axis: int = 1> (A, B)
}"#;
    assert_eq!(refusal(rank, 7), "unknown_fact");
    // One element of more dimensions than A: the older result keeps A's rank.
    let wider = r#"<ir_version: 3, opset_import: ["" : 6]>
g (float[3] A, float[1,1] B) => (float[3] C) { C = Add <broadcast: int = 1> (A, B) }"#;
    assert_eq!(refusal(wider, 7), "inexact");
}
