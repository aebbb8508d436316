//! The Constants a downgrade makes dead (an input moved back to an attribute) are removed, and
//! their element type no longer refuses the model; the Constants something still reads, an
//! `If` branch among them, and the user's unread ones, stay.

mod common;

use common::{check, parse};
use onnx_eval::Value;
use onnx_runtime_types::ModelProto;
use onnx_version_converter::convert_version;

fn ops(model: &ModelProto) -> Vec<String> {
    model
        .graph
        .as_ref()
        .unwrap()
        .node
        .iter()
        .map(|n| n.op_type.clone().unwrap_or_default())
        .collect()
}

fn opset(model: &ModelProto) -> Option<i64> {
    model.opset_import[0].version
}

fn close(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(a, b)| {
            let (a, b) = (a.to_vec::<f32>().unwrap(), b.to_vec::<f32>().unwrap());
            a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| (x - y).abs() <= 1e-6)
        })
}

const CHAIN: &str = r#"<ir_version: 3, opset_import: ["" : 7]>
chain (float[2, 3] x) => (float[2, 3] y) {
    s = Softmax <axis = 1> (x)
    u = Unsqueeze <axes = [0]> (s)
    q = Squeeze <axes = [0]> (u)
    v = Unsqueeze <axes = [2]> (q)
    y = Squeeze <axes = [2]> (v)
}"#;

#[test]
fn a_chain_goes_up_to_21_and_back_down_to_8_and_7() {
    let original = parse(CHAIN);
    check(&original);
    let x = Value::tensor(&[1.0f32, 2.0, 3.0, -1.0, 0.5, 4.0], &[2, 3]).unwrap();
    let expected = onnx_eval::run(&original, std::slice::from_ref(&x)).unwrap();

    let up = convert_version(&original, 21).unwrap();
    check(&up);
    assert_eq!(
        ops(&up).iter().filter(|o| *o == "Constant").count(),
        4,
        "{}",
        onnx_print::to_text(&up)
    );
    assert!(close(
        &onnx_eval::run(&up, std::slice::from_ref(&x)).unwrap(),
        &expected
    ));

    for target in [12, 8, 7] {
        let down = match convert_version(&up, target) {
            Ok(down) => down,
            Err(error) => panic!("21 -> {target}: {error}"),
        };
        assert_eq!(opset(&down), Some(target));
        check(&down);
        // The axes are attributes again: no Constant is left.
        assert_eq!(
            ops(&down),
            ["Softmax", "Unsqueeze", "Squeeze", "Unsqueeze", "Squeeze"],
            "21 -> {target}: {}",
            onnx_print::to_text(&down)
        );
        let outputs = onnx_eval::run(&down, std::slice::from_ref(&x)).unwrap();
        assert!(close(&outputs, &expected), "21 -> {target}");
    }
}

#[test]
fn a_constant_read_only_inside_an_if_branch_is_kept() {
    // `axes` feeds Unsqueeze and, by capture, the then-branch.
    let model = parse(
        r#"<ir_version: 7, opset_import: ["" : 13]>
g (float[2] x, bool c) => (float[1, 2] y, int64[1] z) {
    axes = Constant <value = int64[1] {0}> ()
    y = Unsqueeze (x, axes)
    z = If (c) <then_branch = t () => (int64[1] a) { a = Identity (axes) },
                else_branch = e () => (int64[1] b) { b = Neg (axes) }>
}"#,
    );
    check(&model);
    let down = convert_version(&model, 12).unwrap();
    check(&down);
    assert_eq!(ops(&down), ["Constant", "Unsqueeze", "If"]);
    let x = Value::tensor(&[1.0f32, 2.0], &[2]).unwrap();
    let c = Value::tensor(&[true], &[]).unwrap();
    let outputs = onnx_eval::run(&down, &[x, c]).unwrap();
    assert_eq!(outputs[1], Value::tensor(&[0i64], &[1]).unwrap());
    // Below 9 a Constant holds no int64: the one still read becomes an initializer, which the
    // branch reads as it read the Constant.
    let eight = convert_version(&model, 8).unwrap();
    check(&eight);
    assert_eq!(ops(&eight), ["Unsqueeze", "If"]);
    let graph = eight.graph.as_ref().unwrap();
    assert_eq!(graph.initializer[0].name.as_deref(), Some("axes"));
    let x = Value::tensor(&[1.0f32, 2.0], &[2]).unwrap();
    for (c, z) in [(true, 0i64), (false, 0)] {
        let c = Value::tensor(&[c], &[]).unwrap();
        let outputs = onnx_eval::run(&eight, &[x.clone(), c]).unwrap();
        assert_eq!(outputs[1], Value::tensor(&[z], &[1]).unwrap());
    }
}

#[test]
fn a_constant_the_user_left_unread_is_kept() {
    let model = parse(
        r#"<ir_version: 7, opset_import: ["" : 13]>
g (float[2] x) => (float[1, 2] y) {
    unused = Constant <value = float[1] {5}> ()
    axes = Constant <value = int64[1] {0}> ()
    y = Unsqueeze (x, axes)
}"#,
    );
    let down = convert_version(&model, 11).unwrap();
    check(&down);
    let graph = down.graph.as_ref().unwrap();
    let outputs: Vec<_> = graph.node.iter().map(|n| n.output[0].as_str()).collect();
    assert_eq!(outputs, ["unused", "y"]);
}
