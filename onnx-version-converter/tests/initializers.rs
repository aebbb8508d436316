//! Below opset 9 a Constant holds float types only: a Constant of another type that a graph
//! still reads after a downgrade (an int64 `shape`, say) becomes an initializer of that graph,
//! and the IR version is raised to 4 where an initializer must otherwise be a graph input. A
//! function has no initializers, so there such a Constant is refused.

mod common;

use common::{check, parse};
use onnx_eval::Value;
use onnx_runtime_types::GraphProto;
use onnx_version_converter::{Error, Reason, convert_version};

fn ops(graph: &GraphProto) -> Vec<&str> {
    graph
        .node
        .iter()
        .map(|n| n.op_type.as_deref().unwrap_or_default())
        .collect()
}

fn initializers(graph: &GraphProto) -> Vec<&str> {
    graph
        .initializer
        .iter()
        .map(|t| t.name.as_deref().unwrap_or_default())
        .collect()
}

#[test]
fn an_int64_shape_read_by_reshape_becomes_an_initializer_below_9() {
    let original = parse(
        r#"<ir_version: 3, opset_import: ["" : 13]>
        g (float[2, 3] x) => (float[3, 2] y) {
            shape = Constant <value = int64[2] {3, 2}> ()
            y = Reshape (x, shape)
        }"#,
    );
    let x = Value::tensor(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    let expected = onnx_eval::run(&original, std::slice::from_ref(&x)).unwrap();
    for target in [7, 8] {
        let converted = convert_version(&original, target).unwrap();
        check(&converted);
        let graph = converted.graph.as_ref().unwrap();
        assert_eq!(ops(graph), ["Reshape"]);
        assert_eq!(initializers(graph), ["shape"]);
        assert_eq!(
            converted.ir_version,
            Some(4),
            "IR 3 would need it as an input too"
        );
        let outputs = onnx_eval::run(&converted, std::slice::from_ref(&x)).unwrap();
        assert_eq!(outputs[0].to_vec::<f32>(), expected[0].to_vec::<f32>());
    }
    // From 9 the Constant holds it.
    let nine = convert_version(&original, 9).unwrap();
    assert_eq!(ops(nine.graph.as_ref().unwrap()), ["Constant", "Reshape"]);
    assert!(nine.graph.as_ref().unwrap().initializer.is_empty());
}

#[test]
fn a_constant_whose_value_moves_to_an_attribute_leaves_no_initializer() {
    let original = parse(
        r#"<ir_version: 8, opset_import: ["" : 13]>
        g (float[2, 3] x) => (float[2, 1, 3] y) {
            axes = Constant <value = int64[1] {1}> ()
            y = Unsqueeze (x, axes)
        }"#,
    );
    let converted = convert_version(&original, 7).unwrap();
    let graph = converted.graph.as_ref().unwrap();
    assert_eq!(ops(graph), ["Unsqueeze"]);
    assert!(graph.initializer.is_empty());
    assert_eq!(converted.ir_version, Some(8));
}

#[test]
fn an_if_branch_takes_the_initializer_into_its_own_graph() {
    let original = parse(
        r#"<ir_version: 8, opset_import: ["" : 13]>
        g (bool c, float[2, 3] x) => (float[3, 2] y) {
            y = If (c) <
                then_branch = t () => (float[3, 2] a) {
                    shape = Constant <value = int64[2] {3, 2}> ()
                    a = Reshape (x, shape)
                },
                else_branch = e () => (float[3, 2] b) {
                    flat = Constant <value = int64[2] {6, 1}> ()
                    r = Reshape (x, flat)
                    s = Constant <value = int64[2] {3, 2}> ()
                    b = Reshape (r, s)
                }
            >
        }"#,
    );
    let converted = convert_version(&original, 8).unwrap();
    check(&converted);
    let graph = converted.graph.as_ref().unwrap();
    assert!(graph.initializer.is_empty());
    let branches = &graph.node[0].attribute;
    let then_branch = branches[0].g.as_deref().unwrap();
    let else_branch = branches[1].g.as_deref().unwrap();
    assert_eq!(initializers(then_branch), ["shape"]);
    assert_eq!(initializers(else_branch), ["flat", "s"]);
    let x = Value::tensor(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    for c in [true, false] {
        let c = Value::tensor(&[c], &[]).unwrap();
        let inputs = [c, x.clone()];
        let expected = onnx_eval::run(&original, &inputs).unwrap();
        let outputs = onnx_eval::run(&converted, &inputs).unwrap();
        assert_eq!(outputs[0].to_vec::<f32>(), expected[0].to_vec::<f32>());
    }
}

#[test]
fn a_function_has_no_initializers_so_its_int64_constant_is_refused() {
    let original = parse(
        r#"<ir_version: 8, opset_import: ["" : 13, "local" : 1]>
        g (float[2, 3] x) => (float[3, 2] y) {
            y = local.F (x)
        }
        <domain: "local", opset_import: ["" : 13]>
        F (x) => (y) {
            shape = Constant <value = int64[2] {3, 2}> ()
            y = Reshape (x, shape)
        }"#,
    );
    let Err(Error::Nodes(refused)) = convert_version(&original, 8) else {
        panic!("an int64 Constant in a function converted to opset 8");
    };
    let constant = refused.iter().find(|r| r.operator == "Constant");
    assert!(
        constant.is_some_and(|r| matches!(r.reason, Reason::ElementType { .. })),
        "{refused:?}"
    );
    // (Reshape is refused too: a function's input types are unknown, and Reshape-5 takes
    // fewer than Reshape-13.) At 9 the Constant holds an int64.
    if let Err(Error::Nodes(refused)) = convert_version(&original, 9) {
        assert!(
            refused.iter().all(|r| r.operator != "Constant"),
            "{refused:?}"
        );
    }
}
