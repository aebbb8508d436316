//! The steps whose meaning changed without the signature showing it, rewritten: Scan's batch
//! axis (8 ↔ 9), GroupNormalization's per-group scale (18 → 21, and below 21 expanded), and
//! LabelEncoder's forms (ai.onnx.ml 1 → 2 → 4 and back). Each converted model runs in onnx-eval and gives the
//! original's outputs; what cannot be said exactly is refused.

mod common;

use common::{check, parse};
use onnx_eval::Value;
use onnx_runtime_types::ModelProto;
use onnx_version_converter::{Error, Reason, convert_opsets, convert_version};

fn floats(values: &[Value]) -> Vec<Vec<f32>> {
    values.iter().map(|v| v.to_vec::<f32>().unwrap()).collect()
}

fn ops(model: &ModelProto) -> Vec<&str> {
    let graph = model.graph.as_ref().unwrap();
    graph.node.iter().map(|n| n.op_type()).collect()
}

fn reason(result: Result<ModelProto, Error>) -> Reason {
    match result {
        Err(Error::Nodes(refusals)) => refusals[0].reason.clone(),
        other => panic!("not refused: {other:?}"),
    }
}

const SCAN_8: &str = r#"<ir_version: 4, opset_import: ["" : 8]>
g (float[1, 2] init, float[1, 3, 2] xs) => (float[1, 2] total, float[1, 3, 2] partial) {
    total, partial = Scan <num_scan_inputs: int = 1, body = b (float[2] s, float[2] x) => (float[2] t, float[2] p) {
        t = Add (s, x)
        p = Identity (t)
    }> (, init, xs)
}"#;

#[test]
fn scan_8_with_a_batch_of_one_goes_up_and_comes_back() {
    let model = parse(SCAN_8);
    let inputs = [
        Value::tensor(&[1.0f32, 2.0], &[1, 2]).unwrap(),
        Value::tensor(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[1, 3, 2]).unwrap(),
    ];
    let expected = floats(&onnx_eval::run(&model, &inputs).unwrap());
    assert_eq!(expected[0], [10.0, 14.0]);
    for target in [9, 11, 16, 21] {
        let up = convert_version(&model, target).unwrap();
        check(&up);
        assert!(ops(&up).contains(&"Squeeze") && ops(&up).contains(&"Unsqueeze"));
        assert_eq!(floats(&onnx_eval::run(&up, &inputs).unwrap()), expected);
        let back = convert_version(&up, 8).unwrap();
        check(&back);
        assert_eq!(floats(&onnx_eval::run(&back, &inputs).unwrap()), expected);
    }
}

#[test]
fn scan_8_with_a_larger_or_unknown_batch_or_sequence_lens_is_refused() {
    let two = SCAN_8
        .replace(
            "float[1, 2] init, float[1, 3, 2] xs",
            "float[2, 2] init, float[2, 3, 2] xs",
        )
        .replace(
            "float[1, 2] total, float[1, 3, 2] partial",
            "float[2, 2] total, float[2, 3, 2] partial",
        );
    assert_eq!(reason(convert_version(&parse(&two), 9)).kind(), "inexact");
    let unknown = two.replace(
        "float[2, 2] init, float[2, 3, 2] xs",
        "float[N, 2] init, float[N, 3, 2] xs",
    );
    assert_eq!(
        reason(convert_version(&parse(&unknown), 9)).kind(),
        "unknown_fact"
    );
    let lens = SCAN_8
        .replace("float[1, 2] init,", "int64[1] lens, float[1, 2] init,")
        .replace("(, init, xs)", "(lens, init, xs)");
    assert_eq!(
        reason(convert_version(&parse(&lens), 9)),
        Reason::Input {
            input: "sequence_lens".into(),
            opset: 9
        }
    );
}

#[test]
fn scan_9_along_another_axis_is_refused_below_9() {
    let model = parse(
        r#"<ir_version: 4, opset_import: ["" : 9]>
g (float[2] init, float[2, 3] xs) => (float[2] total) {
    total = Scan <num_scan_inputs: int = 1, scan_input_axes: ints = [1], body = b (float[2] s, float[2] x) => (float[2] t) {
        t = Add (s, x)
    }> (init, xs)
}"#,
    );
    assert!(matches!(
        reason(convert_version(&model, 8)),
        Reason::Attribute { name, .. } if name == "scan_input_axes"
    ));
}

const GROUP_NORM_18: &str = r#"<ir_version: 8, opset_import: ["" : 18]>
g (float[1, 4, 2] x, float[2] runtime_scale) => (float[1, 4, 2] y, float[1, 4, 2] z) {
    scale = Constant <value = float[2] {2.0, -1.0}> ()
    bias = Constant <value = float[2] {0.5, 1.0}> ()
    y = GroupNormalization <num_groups: int = 2> (x, scale, bias)
    z = GroupNormalization <num_groups: int = 2> (x, runtime_scale, bias)
}"#;

#[test]
fn group_normalization_18_scales_per_channel_at_21() {
    let model = parse(GROUP_NORM_18);
    let inputs = [
        Value::tensor(&[1.0f32, 2.0, 4.0, 8.0, -1.0, 0.5, 3.0, 3.5], &[1, 4, 2]).unwrap(),
        Value::tensor(&[0.25f32, 3.0], &[2]).unwrap(),
    ];
    let expected = floats(&onnx_eval::run(&model, &inputs).unwrap());
    // GroupNormalization-18 is deprecated: it goes to 21's form, and below 21 through 21's
    // expansion.
    for target in [21, 24, 20, 19, 17, 13, 8] {
        let converted = convert_version(&model, target).unwrap();
        check(&converted);
        let actual = floats(&onnx_eval::run(&converted, &inputs).unwrap());
        for (a, e) in actual.iter().flatten().zip(expected.iter().flatten()) {
            assert!((a - e).abs() <= 1e-6, "{actual:?} against {expected:?}");
        }
        // The constant scale is repeated per channel; the one given at run time expanded.
        assert!(ops(&converted).contains(&"Expand"));
        let expanded = !ops(&converted).contains(&"GroupNormalization");
        assert_eq!(expanded, target < 21, "at {target}");
    }
    // Expand is from 8: below, the scale given at run time cannot be repeated per channel.
    assert_eq!(reason(convert_version(&model, 7)).kind(), "not_at_target");
}

#[test]
fn label_encoder_goes_1_to_2_to_4_and_back() {
    let strings_to_ints = parse(
        r#"<ir_version: 8, opset_import: ["" : 17, "ai.onnx.ml" : 1]>
g (string[3] s) => (int64[3] i) {
    i = ai.onnx.ml.LabelEncoder <classes_strings = ["a", "b", "c"], default_int64 = 7> (s)
}"#,
    );
    let words = Value::tensor(&["c".to_owned(), "x".to_owned(), "a".to_owned()], &[3]).unwrap();
    let expected = onnx_eval::run(&strings_to_ints, std::slice::from_ref(&words)).unwrap();
    assert_eq!(expected[0].to_vec::<i64>().unwrap(), [2, 7, 0]);
    for ml in [2, 3, 4] {
        let up = convert_opsets(&strings_to_ints, &[("ai.onnx.ml", ml)]).unwrap();
        check(&up);
        assert_eq!(
            onnx_eval::run(&up, std::slice::from_ref(&words)).unwrap(),
            expected
        );
        let back = convert_opsets(&up, &[("ai.onnx.ml", 1)]).unwrap();
        check(&back);
        assert_eq!(
            onnx_eval::run(&back, std::slice::from_ref(&words)).unwrap(),
            expected
        );
    }
    let ints_to_strings = parse(
        r#"<ir_version: 8, opset_import: ["" : 17, "ai.onnx.ml" : 1]>
g (int64[3] i) => (string[3] s) {
    s = ai.onnx.ml.LabelEncoder <classes_strings = ["a", "b", "c"]> (i)
}"#,
    );
    let indices = Value::tensor(&[2i64, 5, 0], &[3]).unwrap();
    let expected = onnx_eval::run(&ints_to_strings, std::slice::from_ref(&indices)).unwrap();
    let up = convert_opsets(&ints_to_strings, &[("ai.onnx.ml", 2)]).unwrap();
    assert_eq!(
        onnx_eval::run(&up, std::slice::from_ref(&indices)).unwrap(),
        expected
    );
    // LabelEncoder-4's tensor forms back to lists.
    let tensors = parse(
        r#"<ir_version: 9, opset_import: ["" : 20, "ai.onnx.ml" : 4]>
g (string[3] s) => (int64[3] i) {
    i = ai.onnx.ml.LabelEncoder <keys_tensor = string[2] {"b", "a"}, values_tensor = int64[2] {1, 0}, default_tensor = int64[1] {9}> (s)
}"#,
    );
    let expected = onnx_eval::run(&tensors, std::slice::from_ref(&words)).unwrap();
    assert_eq!(expected[0].to_vec::<i64>().unwrap(), [9, 9, 0]);
    for ml in [1, 2] {
        let down = convert_opsets(&tensors, &[("ai.onnx.ml", ml)]).unwrap();
        check(&down);
        assert_eq!(
            onnx_eval::run(&down, std::slice::from_ref(&words)).unwrap(),
            expected
        );
    }
    // Keys to floats have no form at 1.
    let to_floats = parse(
        r#"<ir_version: 8, opset_import: ["" : 17, "ai.onnx.ml" : 2]>
g (string[3] s) => (float[3] f) {
    f = ai.onnx.ml.LabelEncoder <keys_strings = ["a"], values_floats = [0.5]> (s)
}"#,
    );
    let refused = reason(convert_opsets(&to_floats, &[("ai.onnx.ml", 1)]));
    assert_eq!(refused.kind(), "inexact");
}

/// A TreeEnsemble of one branch on feature 0 (mode `mode`, split 0.5, set {1, 2} for
/// BRANCH_MEMBER) over two leaves weighing 1 and 2, on X of element type `ty`.
fn tree_ensemble(mode: u8, ty: &str) -> ModelProto {
    parse(&format!(
        r#"<ir_version: 10, opset_import: ["" : 21, "ai.onnx.ml" : 5]>
g ({ty}[N, 2] x) => ({ty}[N, 1] y) {{
    y = ai.onnx.ml.TreeEnsemble <n_targets = 1, tree_roots = [0], nodes_featureids = [0],
        nodes_modes = uint8[1] {{{mode}}}, nodes_splits = {ty}[1] {{0.5}},
        nodes_truenodeids = [0], nodes_trueleafs = [1], nodes_falsenodeids = [1], nodes_falseleafs = [1],
        leaf_targetids = [0, 0], leaf_weights = {ty}[2] {{1.0, 2.0}},
        membership_values = {ty}[2] {{1.0, 2.0}}> (x)
}}"#
    ))
}

#[test]
fn tree_ensemble_goes_down_as_a_regressor_or_is_refused() {
    let x = Value::tensor(&[0.25f32, 9.0, 0.75, 9.0, f32::NAN, 1.0], &[3, 2]).unwrap();
    let model = tree_ensemble(0, "float");
    let expected = floats(&onnx_eval::run(&model, std::slice::from_ref(&x)).unwrap());
    assert_eq!(expected[0][..2], [1.0, 2.0]);
    for ml in 1..5 {
        let down = convert_opsets(&model, &[("ai.onnx.ml", ml)]).unwrap();
        check(&down);
        assert_eq!(ops(&down), ["TreeEnsembleRegressor"]);
        let actual = floats(&onnx_eval::run(&down, std::slice::from_ref(&x)).unwrap());
        assert_eq!(actual, expected);
    }
    // Set membership exists from ml 5; a double X would have its scores rounded to float.
    for refused in [tree_ensemble(6, "float"), tree_ensemble(0, "double")] {
        assert_eq!(
            reason(convert_opsets(&refused, &[("ai.onnx.ml", 3)])).kind(),
            "inexact"
        );
    }
}

#[test]
fn ill_formed_legacy_ensembles_are_refused_not_guessed_at() {
    let regressor = |arrays: &str| {
        parse(&format!(
            r#"<ir_version: 8, opset_import: ["" : 17, "ai.onnx.ml" : 3]>
g (float[N, 2] x) => (float[N, 1] y) {{
    y = ai.onnx.ml.TreeEnsembleRegressor <n_targets = 1, {arrays}> (x)
}}"#
        ))
    };
    let ill_formed = [
        // nodes_values shorter than the nodes.
        r#"nodes_treeids = [0, 0, 0], nodes_nodeids = [0, 1, 2], nodes_featureids = [0, 0, 0], nodes_modes = ["BRANCH_LEQ", "LEAF", "LEAF"], nodes_values = [0.5], nodes_truenodeids = [1, 0, 0], nodes_falsenodeids = [2, 0, 0], target_treeids = [0], target_nodeids = [1], target_ids = [0], target_weights = [1.0]"#,
        // A child that is no node.
        r#"nodes_treeids = [0, 0, 0], nodes_nodeids = [0, 1, 2], nodes_featureids = [0, 0, 0], nodes_modes = ["BRANCH_LEQ", "LEAF", "LEAF"], nodes_values = [0.5, 0.0, 0.0], nodes_truenodeids = [7, 0, 0], nodes_falsenodeids = [2, 0, 0], target_treeids = [0], target_nodeids = [1], target_ids = [0], target_weights = [1.0]"#,
        // A weight on a branch, and a target beyond n_targets.
        r#"nodes_treeids = [0, 0, 0], nodes_nodeids = [0, 1, 2], nodes_featureids = [0, 0, 0], nodes_modes = ["BRANCH_LEQ", "LEAF", "LEAF"], nodes_values = [0.5, 0.0, 0.0], nodes_truenodeids = [1, 0, 0], nodes_falsenodeids = [2, 0, 0], target_treeids = [0], target_nodeids = [0], target_ids = [0], target_weights = [1.0]"#,
        r#"nodes_treeids = [0, 0, 0], nodes_nodeids = [0, 1, 2], nodes_featureids = [0, 0, 0], nodes_modes = ["BRANCH_LEQ", "LEAF", "LEAF"], nodes_values = [0.5, 0.0, 0.0], nodes_truenodeids = [1, 0, 0], nodes_falsenodeids = [2, 0, 0], target_treeids = [0], target_nodeids = [1], target_ids = [3], target_weights = [1.0]"#,
    ];
    for arrays in ill_formed {
        let refused = reason(convert_opsets(&regressor(arrays), &[("ai.onnx.ml", 5)]));
        assert_eq!(refused.kind(), "inexact", "{arrays}: {refused}");
    }
}

/// Found by the `convert` fuzz target: an `axis` beyond the rank panicked the 2-D coercion.
#[test]
fn an_axis_beyond_the_rank_is_refused_not_a_panic() {
    let model = parse(
        r#"<ir_version: 10, opset_import: ["" : 13]>
g (float[3, 4, 5] x) => (float[3, 4, 5] y) {
    y = Softmax <axis: int = 3> (x)
}"#,
    );
    for target in [5, 11, 12] {
        assert_eq!(reason(convert_version(&model, target)).kind(), "inexact");
    }
}
