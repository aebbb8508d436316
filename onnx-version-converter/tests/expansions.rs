//! The context-dependent bodies of `src/expansions/` (Attention, RotaryEmbedding,
//! LinearAttention, CausalConvWithState) on the edge cases the release cases do not reach:
//! each conversion must give the original's outputs in onnx-eval, or refuse with the reason.

use onnx_eval::Value;
use onnx_runtime_types::ModelProto;
use onnx_version_converter::{Error, Reason, convert_version};

/// Deterministic inputs in [-1, 1).
fn values(count: usize, seed: u32) -> Vec<f32> {
    let mut state = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    (0..count)
        .map(|_| {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            ((state >> 8) % 2000) as f32 / 1000.0 - 1.0
        })
        .collect()
}

/// Converts `text` to `target` and compares its outputs with the original's on `inputs`.
fn same_outputs(text: &str, inputs: &[Value], target: i64) {
    let original = onnx_syntax::parse_model(text).unwrap();
    let expected = onnx_eval::run(&original, inputs).unwrap();
    let converted = match convert_version(&original, target) {
        Ok(converted) => converted,
        Err(error) => panic!("to {target}: {error}"),
    };
    if let Err(problems) = onnx_validate::ModelCheck::default().check(&converted) {
        panic!(
            "the checker rejects {}: {:?}",
            onnx_print::to_text(&converted),
            problems.iter().map(|d| d.message()).collect::<Vec<_>>()
        );
    }
    let got = onnx_eval::run(&converted, inputs).unwrap();
    assert_eq!(got.len(), expected.len());
    for (got, expected) in got.iter().zip(&expected) {
        let (got, expected) = (
            got.to_vec::<f32>().unwrap(),
            expected.to_vec::<f32>().unwrap(),
        );
        assert_eq!(got.len(), expected.len());
        for (g, e) in got.iter().zip(&expected) {
            assert!(
                (g - e).abs() <= 1e-5 || g == e,
                "to {target}: {got:?} against {expected:?}"
            );
        }
    }
}

fn refusal(model: &ModelProto, target: i64) -> Reason {
    match convert_version(model, target) {
        Err(Error::Nodes(refusals)) => refusals[0].reason.clone(),
        other => panic!("{other:?}"),
    }
}

fn tensor(shape: &[usize], seed: u32) -> Value {
    Value::tensor(&values(shape.iter().product(), seed), shape).unwrap()
}

#[test]
fn attention_4d_causal_with_past() {
    let text = r#"<ir_version: 10, opset_import: ["" : 23]>
    g (float[1, 2, 3, 4] q, float[1, 2, 3, 4] k, float[1, 2, 3, 4] v,
       float[1, 2, 2, 4] pk, float[1, 2, 2, 4] pv)
      => (float[1, 2, 3, 4] y, float[1, 2, 5, 4] kp, float[1, 2, 5, 4] vp) {
        y, kp, vp = Attention <is_causal = 1> (q, k, v, , pk, pv)
    }"#;
    let inputs = [
        tensor(&[1, 2, 3, 4], 1),
        tensor(&[1, 2, 3, 4], 2),
        tensor(&[1, 2, 3, 4], 3),
        tensor(&[1, 2, 2, 4], 4),
        tensor(&[1, 2, 2, 4], 5),
    ];
    for target in [22, 14, 13, 12, 9] {
        same_outputs(text, &inputs, target);
    }
}

#[test]
fn attention_3d_gqa_with_masks_and_softcap() {
    let text = r#"<ir_version: 10, opset_import: ["" : 23]>
    g (float[2, 3, 8] q, float[2, 4, 4] k, float[2, 4, 6] v, bool[3, 4] m)
      => (float[2, 3, 12] y, float[2, 2, 4, 2] kp, float[2, 2, 4, 3] vp, float[2, 4, 3, 4] qk) {
        y, kp, vp, qk = Attention <q_num_heads = 4, kv_num_heads = 2, softcap = 2.0,
                                   qk_matmul_output_mode = 2, is_causal = 1> (q, k, v, m)
    }"#;
    let mask = Value::tensor(
        &[
            true, false, true, true, false, false, false, false, true, true, false, true,
        ],
        &[3, 4],
    )
    .unwrap();
    let inputs = [
        tensor(&[2, 3, 8], 1),
        tensor(&[2, 4, 4], 2),
        tensor(&[2, 4, 6], 3),
        mask,
    ];
    for target in [22, 13, 11, 9] {
        same_outputs(text, &inputs, target);
    }
    // Below 9 there is no Where for the masks (the body's int64 shapes and axes would become
    // initializers).
    let model = onnx_syntax::parse_model(text).unwrap();
    assert_eq!(refusal(&model, 8).kind(), "not_at_target");
}

#[test]
fn attention_bool_mask_hiding_a_whole_row_gives_zeros() {
    let text = r#"<ir_version: 10, opset_import: ["" : 23]>
    g (float[1, 1, 2, 2] q, float[1, 1, 3, 2] k, float[1, 1, 3, 2] v, bool[2, 3] m)
      => (float[1, 1, 2, 2] y) {
        y = Attention (q, k, v, m)
    }"#;
    let mask = Value::tensor(&[false, false, false, true, false, true], &[2, 3]).unwrap();
    let inputs = [
        tensor(&[1, 1, 2, 2], 7),
        tensor(&[1, 1, 3, 2], 8),
        tensor(&[1, 1, 3, 2], 9),
        mask,
    ];
    for target in [22, 10] {
        same_outputs(text, &inputs, target);
    }
}

#[test]
fn attention_needs_the_heads_of_a_3d_input() {
    let model = onnx_syntax::parse_model(
        r#"<ir_version: 10, opset_import: ["" : 23]>
        g (float[2, 3, 8] q, float[2, 4, 8] k, float[2, 4, 8] v) => (float[2, 3, 8] y) {
            y = Attention (q, k, v)
        }"#,
    )
    .unwrap();
    assert_eq!(refusal(&model, 22).kind(), "unknown_fact");
}

#[test]
fn rotary_embedding_halves_and_neighbours() {
    for (interleaved, dim) in [(0, 0), (1, 0), (0, 2), (1, 2)] {
        let text = format!(
            r#"<ir_version: 10, opset_import: ["" : 23]>
            g (float[2, 3, 8] x, float[4, {half}] c, float[4, {half}] s, int64[2, 3] p)
              => (float[2, 3, 8] y) {{
                y = RotaryEmbedding <num_heads = 2, interleaved = {interleaved},
                                     rotary_embedding_dim = {dim}> (x, c, s, p)
            }}"#,
            half = if dim == 0 { 2 } else { dim / 2 }
        );
        let half = if dim == 0 { 2 } else { dim / 2 };
        let positions = Value::tensor(&[0_i64, 1, 2, 3, 2, 1], &[2, 3]).unwrap();
        let inputs = [
            tensor(&[2, 3, 8], 1),
            tensor(&[4, half], 2),
            tensor(&[4, half], 3),
            positions,
        ];
        for target in [22, 13, 11] {
            same_outputs(&text, &inputs, target);
        }
    }
}

#[test]
fn causal_conv_with_and_without_state() {
    for (inputs_text, activation) in [("x, w", "none"), ("x, w, b, p", "silu")] {
        let text = format!(
            r#"<ir_version: 10, opset_import: ["" : 27]>
            g (float[2, 3, 4] x, float[3, 1, 3] w, float[3] b, float[2, 3, 2] p)
              => (float[2, 3, 4] y, float[2, 3, 2] state) {{
                y, state = CausalConvWithState <activation = "{activation}"> ({inputs_text})
            }}"#
        );
        let inputs = [
            tensor(&[2, 3, 4], 1),
            tensor(&[3, 1, 3], 2),
            tensor(&[3], 3),
            tensor(&[2, 3, 2], 4),
        ];
        for target in [26, 13] {
            same_outputs(&text, &inputs, target);
        }
    }
}

#[test]
fn linear_attention_rules_with_grouped_heads() {
    for (rule, extra) in [
        ("linear", ""),
        ("gated", ", d"),
        ("delta", ", , b"),
        ("gated_delta", ", d, b"),
    ] {
        let text = format!(
            r#"<ir_version: 10, opset_import: ["" : 27]>
            g (float[1, 3, 8] q, float[1, 3, 4] k, float[1, 3, 6] v, float[1, 2, 2, 3] s,
               float[1, 3, 2] d, float[1, 3, 2] b)
              => (float[1, 3, 12] y, float[1, 2, 2, 3] state) {{
                y, state = LinearAttention <q_num_heads = 4, kv_num_heads = 2,
                                            update_rule = "{rule}"> (q, k, v, s{extra})
            }}"#
        );
        let inputs = [
            tensor(&[1, 3, 8], 1),
            tensor(&[1, 3, 4], 2),
            tensor(&[1, 3, 6], 3),
            tensor(&[1, 2, 2, 3], 4),
            tensor(&[1, 3, 2], 5),
            tensor(&[1, 3, 2], 6),
        ];
        for target in [26, 13] {
            same_outputs(&text, &inputs, target);
        }
    }
}

#[test]
fn linear_attention_in_float16_recurs_in_float() {
    let text = r#"<ir_version: 10, opset_import: ["" : 27]>
    g (float16[1, 4, 4] q, float16[1, 4, 4] k, float16[1, 4, 4] v)
      => (float16[1, 4, 4] y, float16[1, 1, 4, 4] state) {
        y, state = LinearAttention <q_num_heads = 1, kv_num_heads = 1, update_rule = "linear"> (q, k, v)
    }"#;
    let model = onnx_syntax::parse_model(text).unwrap();
    let converted = convert_version(&model, 22).unwrap();
    let graph = converted.graph.unwrap();
    let to_float = graph.node.iter().filter(|n| {
        n.op_type.as_deref() == Some("Cast") && n.attribute.first().and_then(|a| a.i) == Some(1)
    });
    // query, key and value.
    assert_eq!(to_float.count(), 3);
}

#[test]
fn rotary_embedding_refuses_caches_of_other_widths() {
    let model = onnx_syntax::parse_model(
        r#"<ir_version: 10, opset_import: ["" : 23]>
        g (float[2, 2, 3, 8] x, float[2, 3, 4] c, float[2, 3, 4] s) => (float[2, 2, 3, 8] y) {
            y = RotaryEmbedding <rotary_embedding_dim = 4> (x, c, s)
        }"#,
    )
    .unwrap();
    assert_eq!(refusal(&model, 22).kind(), "unknown_fact");
}

#[test]
fn attention_mask_of_fewer_keys_is_padded_with_neg_inf() {
    let text = r#"<ir_version: 10, opset_import: ["" : 23]>
    g (float[1, 2, 2, 4] q, float[1, 2, 3, 4] k, float[1, 2, 3, 4] v, float[1, 2, 2, 2] m)
      => (float[1, 2, 2, 4] y) {
        y = Attention (q, k, v, m)
    }"#;
    let inputs = [
        tensor(&[1, 2, 2, 4], 1),
        tensor(&[1, 2, 3, 4], 2),
        tensor(&[1, 2, 3, 4], 3),
        tensor(&[1, 2, 2, 2], 4),
    ];
    for target in [22, 12, 10, 9] {
        same_outputs(text, &inputs, target);
    }
}
