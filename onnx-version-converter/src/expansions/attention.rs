//! Attention (23, 24, 25): `softmax(Q Kᵀ · scale + bias) V`, per head.
//!
//! The body is assembled from a few rules, each a short node list:
//! - 3-D operands `(batch, sequence, heads · size)` are split into heads, `(batch, heads,
//!   sequence, size)`, and `Y` merged back;
//! - `past_key`/`past_value` are joined before `K`/`V` along the sequence (`present_*`);
//! - fewer key/value heads than query heads (grouped-query attention): each is repeated;
//! - `Q` and `K` are each scaled by `√scale` (default `1/√head_size`), as onnx's body does;
//! - `softcap` caps the scores at `softcap · tanh(scores / softcap)`;
//! - the bias: a boolean `attn_mask` gives -inf where false, a float one is added, both padded
//!   with -inf to every key; `is_causal`, the sliding window (25) and `nonpad_kv_seqlen` (24)
//!   hide keys by their position, aligned at the bottom right (the offset is the past length,
//!   or `nonpad_kv_seqlen - q_sequence_length`);
//! - the softmax runs in `softmax_precision`; a row with every key hidden gives zeros, not NaN;
//! - `qk_matmul_output` is the scores before the cap (mode 0), after it (1), after the bias (2),
//!   or the probabilities (3).
//!
//! The positions are float constants of the static lengths (Less takes floats from opset 7, and
//! the body needs no Range or Trilu), so the rules that need them refuse unknown lengths.

use onnx_runtime_types::{FunctionProto, NodeProto};
use onnx_text::{onnx_function, onnx_nodes};

use crate::context::{Context, attribute};
use crate::error::Reason;

/// What the body is built from: the operands' static facts.
struct Facts<'a> {
    node: &'a NodeProto,
    context: &'a Context,
}

impl Facts<'_> {
    fn input(&self, index: usize) -> Option<&str> {
        self.node
            .input
            .get(index)
            .map(String::as_str)
            .filter(|i| !i.is_empty())
    }

    fn int(&self, name: &str) -> Option<i64> {
        attribute(self.node, name).and_then(|a| a.i)
    }

    fn float(&self, name: &str) -> Option<f32> {
        attribute(self.node, name).and_then(|a| a.f)
    }

    fn unknown(&self, what: String) -> Reason {
        Reason::Unknown {
            what,
            needed_by: "Attention's expansion".to_owned(),
        }
    }

    /// Dimension `axis` of input `index`.
    fn dim(&self, index: usize, axis: usize) -> Result<i64, Reason> {
        let name = self.input(index).unwrap_or_default();
        self.context
            .dims
            .get(name)
            .and_then(|dims| dims.get(axis).copied().flatten())
            .ok_or_else(|| self.unknown(format!("dimension {axis} of `{name}`")))
    }
}

pub(super) fn attention(
    node: &NodeProto,
    context: &Context,
    target: i64,
) -> Result<FunctionProto, Reason> {
    let facts = Facts { node, context };
    let q = facts.input(0).unwrap_or_default();
    let rank = context
        .rank(q)
        .ok_or_else(|| facts.unknown(format!("the rank of `{q}`")))?;
    let three_d = match rank {
        3 => true,
        4 => false,
        _ => return Err(facts.unknown(format!("a 3-D or 4-D `{q}`"))),
    };
    // (batch, heads, sequence, size) after the split.
    let (seq_axis, head_count) = if three_d { (1, None) } else { (2, Some(1)) };
    let heads = |index: usize, attribute: &str| -> Result<i64, Reason> {
        match head_count {
            Some(axis) => facts.dim(index, axis),
            None => facts
                .int(attribute)
                .filter(|&h| h > 0)
                .ok_or_else(|| facts.unknown(format!("`{attribute}` of a 3-D Attention"))),
        }
    };
    let head_size = |index: usize, heads: i64| -> Result<i64, Reason> {
        if three_d {
            Ok(facts.dim(index, 2)? / heads)
        } else {
            facts.dim(index, 3)
        }
    };
    let (q_heads, kv_heads) = (heads(0, "q_num_heads")?, heads(1, "kv_num_heads")?);

    let mut nodes = Vec::new();
    // The operands as (batch, heads, sequence, size).
    for (input, heads, split) in [
        ("Q", q_heads, "Q4"),
        ("K", kv_heads, "K4"),
        ("V", kv_heads, "V4"),
    ] {
        nodes.extend(if three_d {
            super::split_heads(input, heads, split)
        } else {
            onnx_nodes!(#split = Identity (#input))
        });
    }
    let past = facts.input(4).is_some();
    nodes.extend(if past {
        onnx_nodes! {
            present_key = Concat <axis = 2> (past_key, K4)
            present_value = Concat <axis = 2> (past_value, V4)
        }
    } else {
        onnx_nodes! {
            present_key = Identity (K4)
            present_value = Identity (V4)
        }
    });
    if q_heads == kv_heads {
        nodes.extend(onnx_nodes! {
            K_all = Identity (present_key)
            V_all = Identity (present_value)
        });
    } else {
        if kv_heads == 0 || q_heads % kv_heads != 0 {
            return Err(facts.unknown(format!(
                "a count of key heads dividing {q_heads} query heads"
            )));
        }
        let group = q_heads / kv_heads;
        nodes.extend(super::repeat_heads(
            "present_key",
            group,
            q_heads,
            head_size(1, kv_heads)?,
            "K_all",
        ));
        nodes.extend(super::repeat_heads(
            "present_value",
            group,
            q_heads,
            head_size(2, kv_heads)?,
            "V_all",
        ));
    }

    let scale = match facts.float("scale") {
        Some(scale) => f64::from(scale),
        None => 1.0 / (head_size(0, q_heads)? as f64).sqrt(),
    };
    let root = scale.sqrt() as f32;
    nodes.extend(onnx_nodes! {
        root_f = Constant <value_float = #root> ()
        root = CastLike (root_f, Q4)
        Q_scaled = Mul (Q4, root)
        K_scaled = Mul (K_all, root)
        K_t = Transpose <perm = [0, 1, 3, 2]> (K_scaled)
        scores = MatMul (Q_scaled, K_t)
    });
    let softcap = facts.float("softcap").unwrap_or(0.0);
    nodes.extend(if softcap > 0.0 {
        onnx_nodes! {
            cap_f = Constant <value_float = #softcap> ()
            cap = CastLike (cap_f, Q4)
            scores_over_cap = Div (scores, cap)
            scores_tanh = Tanh (scores_over_cap)
            capped = Mul (cap, scores_tanh)
        }
    } else {
        onnx_nodes!(capped = Identity(scores))
    });

    // The bias, if any: the mask's and the positions'.
    let mask = bias_of_mask(&facts, past, seq_axis)?;
    let hidden = hidden_keys(&facts, past, seq_axis)?;
    let bias = match (mask.is_empty(), hidden.is_empty()) {
        (true, true) => None,
        (false, true) => Some("mask_bias"),
        (true, false) => Some("hidden_bias"),
        (false, false) => Some("bias"),
    };
    if bias.is_some() {
        nodes.extend(onnx_nodes! {
            zero_f = Constant <value_float = 0.0> ()
            neg_inf_f = Constant <value_float = -inf> ()
            zero = CastLike (zero_f, Q4)
            neg_inf = CastLike (neg_inf_f, Q4)
        });
    }
    nodes.extend(mask);
    if !hidden.is_empty() {
        nodes.extend(hidden);
        nodes.extend(onnx_nodes!(hidden_bias = Where(hidden, neg_inf, zero)));
    }
    if bias == Some("bias") {
        nodes.extend(onnx_nodes!(bias = Add(mask_bias, hidden_bias)));
    }
    nodes.extend(match bias {
        Some(bias) => onnx_nodes!(biased = Add (capped, #bias)),
        None => onnx_nodes!(biased = Identity(capped)),
    });

    // The softmax, along the keys; in `softmax_precision` where that is another type.
    let (softmax_in, softmax_out) = match facts.int("softmax_precision") {
        Some(precision) if Some(precision as i32) != context.elem(q) => {
            nodes.extend(onnx_nodes!(biased_wide = Cast <to = #precision> (biased)));
            ("biased_wide", "probabilities_wide")
        }
        _ => ("biased", "probabilities"),
    };
    nodes.extend(if target >= 11 {
        onnx_nodes!(#softmax_out = Softmax <axis = -1> (#softmax_in))
    } else {
        // Before 11 a Softmax needs its input's rank, which the converter does not follow
        // through the body: written out.
        onnx_nodes! {
            key_axis = Constant <value = int64[1] {3}> ()
            softmax_max = ReduceMax <keepdims = 1> (#softmax_in, key_axis)
            softmax_shifted = Sub (#softmax_in, softmax_max)
            softmax_exp = Exp (softmax_shifted)
            softmax_sum = ReduceSum <keepdims = 1> (softmax_exp, key_axis)
            #softmax_out = Div (softmax_exp, softmax_sum)
        }
    });
    if softmax_out != "probabilities" {
        nodes.extend(onnx_nodes!(probabilities = CastLike (#softmax_out, Q4)));
    }
    // A row whose every key is hidden has no softmax (NaN): its probabilities are zeros. (Its
    // biased scores are all -inf; they are 4-D, where the bias may broadcast.)
    nodes.extend(match bias {
        Some(_) => onnx_nodes! {
            last_axis = Constant <value = int64[1] {3}> ()
            row_max = ReduceMax <keepdims = 1> (biased, last_axis)
            row_sees = Greater (row_max, neg_inf)
            weights = Where (row_sees, probabilities, zero)
        },
        None => onnx_nodes!(weights = Identity(probabilities)),
    });
    let qk_output = match facts.int("qk_matmul_output_mode").unwrap_or(0) {
        0 => "scores",
        1 => "capped",
        2 => "biased",
        3 => "weights",
        other => {
            return Err(Reason::AttributeValue {
                name: "qk_matmul_output_mode".to_owned(),
                value: other.to_string(),
                opset: target,
            });
        }
    };
    nodes.extend(onnx_nodes!(Y4 = MatMul(weights, V_all)));
    nodes.extend(if three_d {
        onnx_nodes! {
            Y_t = Transpose <perm = [0, 2, 1, 3]> (Y4)
            merged_shape = Constant <value = int64[3] {0, 0, -1}> ()
            Y = Reshape (Y_t, merged_shape)
        }
    } else {
        onnx_nodes!(Y = Identity(Y4))
    });
    nodes.extend(onnx_nodes!(qk_matmul_output = Identity (#qk_output)));

    Ok(onnx_function! {
        <domain: "onnx_text.expansion", opset_import: ["" : 18]>
        Attention <qk_matmul_output_mode, softcap, softmax_precision, kv_num_heads, q_num_heads,
                   scale, is_causal, left_window_size, right_window_size>
            (Q, K, V, attn_mask, past_key, past_value, nonpad_kv_seqlen)
            => (Y, present_key, present_value, qk_matmul_output) {
            ..#nodes
        }
    })
}

/// The nodes that give `mask_bias` from `attn_mask` (none without one): -inf where a boolean
/// mask is false, a float mask as it is; padded with -inf to every key.
fn bias_of_mask(facts: &Facts, past: bool, seq_axis: usize) -> Result<Vec<NodeProto>, Reason> {
    let Some(mask) = facts.input(3) else {
        return Ok(Vec::new());
    };
    let elem = facts
        .context
        .elem(mask)
        .ok_or_else(|| facts.unknown(format!("the element type of `{mask}`")))?;
    let mut nodes = if elem == 9 {
        onnx_nodes!(mask_given = Where(attn_mask, zero, neg_inf))
    } else {
        onnx_nodes!(mask_given = CastLike(attn_mask, Q4))
    };
    let rank = facts
        .context
        .rank(mask)
        .ok_or_else(|| facts.unknown(format!("the rank of `{mask}`")))?;
    let keys = facts.dim(3, rank - 1)?;
    let total = total_keys(facts, past, seq_axis)?;
    if keys < total {
        let mut pads = vec![0; 2 * rank];
        pads[2 * rank - 1] = total - keys;
        // A float bias pads with the float Constant itself: Pad before 11 takes the value as an
        // attribute, read from a Constant.
        let value = if facts.context.elem(facts.input(0).unwrap_or_default()) == Some(1) {
            "neg_inf_f"
        } else {
            "neg_inf"
        };
        nodes.extend(onnx_nodes! {
            mask_pads = Constant <value = int64[#(2 * rank)] {..#pads}> ()
            mask_bias = Pad <mode = "constant"> (mask_given, mask_pads, #value)
        });
    } else {
        nodes.extend(onnx_nodes!(mask_bias = Identity(mask_given)));
    }
    Ok(nodes)
}

/// The number of keys: the past's and `K`'s.
fn total_keys(facts: &Facts, past: bool, seq_axis: usize) -> Result<i64, Reason> {
    let past_length = if past { facts.dim(4, 2)? } else { 0 };
    Ok(past_length + facts.dim(1, seq_axis)?)
}

/// The nodes that give the boolean `hidden` (true where a query may not see a key by their
/// positions: `is_causal`, the sliding window, `nonpad_kv_seqlen`), none where every key is
/// seen. Query `i` stands at `i + offset` among the keys.
fn hidden_keys(facts: &Facts, past: bool, seq_axis: usize) -> Result<Vec<NodeProto>, Reason> {
    let causal = facts.int("is_causal").unwrap_or(0) != 0;
    let left = facts.int("left_window_size").unwrap_or(-1);
    let right = facts.int("right_window_size").unwrap_or(-1);
    let nonpad = facts.input(6).is_some();
    if !causal && left < 0 && right < 0 && !nonpad {
        return Ok(Vec::new());
    }
    let queries = facts.dim(0, seq_axis)?;
    let total = total_keys(facts, past, seq_axis)?;
    let keys: Vec<f32> = (0..total).map(|j| j as f32).collect();
    let mut nodes = onnx_nodes!(keys = Constant <value = float[#total] {..#keys}> ());
    let mut conditions = Vec::new();
    if nonpad {
        // Per batch: the offset is the valid keys less the queries, and later keys are padding.
        let rows: Vec<f32> = (0..queries).map(|i| (i - queries) as f32).collect();
        nodes.extend(onnx_nodes! {
            rows_given = Constant <value = float[#queries, 1] {..#rows}> ()
            valid_f = Cast <to = 1> (nonpad_kv_seqlen)
            valid_shape = Constant <value = int64[4] {-1, 1, 1, 1}> ()
            valid = Reshape (valid_f, valid_shape)
            positions = Add (rows_given, valid)
            seen_valid = Less (keys, valid)
            padding = Not (seen_valid)
        });
        conditions.push("padding");
    } else {
        let offset = total - facts.dim(1, seq_axis)?;
        let rows: Vec<f32> = (0..queries).map(|i| (i + offset) as f32).collect();
        nodes.extend(onnx_nodes!(positions = Constant <value = float[#queries, 1] {..#rows}> ()));
    }
    if causal {
        nodes.extend(onnx_nodes!(future = Less(positions, keys)));
        conditions.push("future");
    }
    if left >= 0 {
        let left = left as f32;
        nodes.extend(onnx_nodes! {
            left_f = Constant <value_float = #left> ()
            first_seen = Sub (positions, left_f)
            too_early = Less (keys, first_seen)
        });
        conditions.push("too_early");
    }
    if right >= 0 {
        let right = right as f32;
        nodes.extend(onnx_nodes! {
            right_f = Constant <value_float = #right> ()
            last_seen = Add (positions, right_f)
            too_late = Less (last_seen, keys)
        });
        conditions.push("too_late");
    }
    // `hidden` = any of the conditions.
    let mut acc = conditions[0].to_owned();
    for (index, condition) in conditions.iter().enumerate().skip(1) {
        let next = format!("hidden_{index}");
        nodes.extend(onnx_nodes!(#next = Or (#acc, #condition)));
        acc = next;
    }
    nodes.extend(onnx_nodes!(hidden = Identity (#acc)));
    Ok(nodes)
}
