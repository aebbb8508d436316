//! LinearAttention (27): a state `S` (batch, kv heads, d_k, d_v), from `past_state` or zeros,
//! updated token by token, each query head reading its key head's state:
//! - gated rules first decay it: `S ← exp(g_t) · S` (`decay`, one per head or per key element);
//! - the delta rules add `k_t ⊗ β_t (v_t − Sᵀ k_t)`, the others `k_t ⊗ v_t`;
//! - `o_t = scale · q_tᵀ S` (`scale` 0: `1/√d_k`).
//!
//! The recurrence is unrolled over the tokens, so their count must be static; the operands are
//! split into heads as (batch, heads, tokens, size) and each step slices its token (axis 2).

use onnx_runtime_types::{FunctionProto, NodeProto};
use onnx_text::{onnx_function, onnx_nodes};

use crate::context::{Context, attribute};
use crate::error::Reason;

pub(super) fn linear_attention(
    node: &NodeProto,
    context: &Context,
    target: i64,
) -> Result<FunctionProto, Reason> {
    let unknown = |what: String| Reason::Unknown {
        what,
        needed_by: "LinearAttention's expansion".to_owned(),
    };
    let input = |index: usize| {
        node.input
            .get(index)
            .map(String::as_str)
            .filter(|i| !i.is_empty())
    };
    let dim = |index: usize, axis: usize| {
        let name = input(index).unwrap_or_default();
        context
            .dims
            .get(name)
            .and_then(|dims| dims.get(axis).copied().flatten())
            .ok_or_else(|| unknown(format!("dimension {axis} of `{name}`")))
    };
    let heads = |name: &str| {
        attribute(node, name)
            .and_then(|a| a.i)
            .filter(|&h| h > 0)
            .ok_or_else(|| unknown(format!("`{name}`")))
    };
    let (q_heads, kv_heads) = (heads("q_num_heads")?, heads("kv_num_heads")?);
    if q_heads % kv_heads != 0 {
        return Err(unknown(format!(
            "a count of key heads dividing {q_heads} query heads"
        )));
    }
    let (gated, delta) = match super::string_or(node, "update_rule", "gated_delta") {
        "linear" => (false, false),
        "gated" => (true, false),
        "delta" => (false, true),
        "gated_delta" => (true, true),
        other => {
            return Err(Reason::AttributeValue {
                name: "update_rule".to_owned(),
                value: other.to_owned(),
                opset: target,
            });
        }
    };
    // The rule's operands, given exactly when it reads them (else the node is not valid).
    for (index, name, needed) in [(4, "decay", gated), (5, "beta", delta)] {
        if input(index).is_some() != needed {
            return Err(unknown(format!("`{name}` as update_rule reads it")));
        }
    }
    let tokens = dim(0, 1)?;
    let dk = dim(0, 2)? / q_heads;
    let dv = dim(2, 2)? / kv_heads;
    let scale = match attribute(node, "scale").and_then(|a| a.f) {
        Some(scale) if scale != 0.0 => scale,
        _ => (1.0 / (dk as f64).sqrt()) as f32,
    };

    let mut nodes = Vec::new();
    // float16 and bfloat16 recur in float: rounding each token's state would drift.
    let narrow = matches!(input(0).and_then(|q| context.elem(q)), Some(10 | 16));
    let mut operand = |(index, name): (usize, &str)| {
        if !narrow || input(index).is_none() {
            return name.to_owned();
        }
        let wide = format!("{name}_float");
        nodes.extend(onnx_nodes!(#wide = Cast <to = 1> (#name)));
        wide
    };
    let [query, key, value, decay, beta] = [
        (0, "query"),
        (1, "key"),
        (2, "value"),
        (4, "decay"),
        (5, "beta"),
    ]
    .map(&mut operand);
    for (operand, heads, split) in [
        (&query, q_heads, "Q4"),
        (&key, kv_heads, "K4"),
        (&value, kv_heads, "V4"),
    ] {
        nodes.extend(super::split_heads(operand, heads, split));
    }
    // The rates, as (batch, heads, tokens, 1 or d_k) for the decay and (batch, heads, tokens, 1)
    // for β, so that a token's slice, transposed, scales the rows of S.
    if gated {
        let per_element = if dim(4, 2)? == kv_heads { 1 } else { dk };
        nodes.extend(onnx_nodes! {
            decay_shape = Constant <value = int64[4] {0, 0, #kv_heads, #per_element}> ()
            decay_split = Reshape (#decay, decay_shape)
            decay_heads = Transpose <perm = [0, 2, 1, 3]> (decay_split)
            decay_factor = Exp (decay_heads)
        });
    }
    if delta {
        nodes.extend(onnx_nodes! {
            beta_shape = Constant <value = int64[4] {0, 0, -1, 1}> ()
            beta_split = Reshape (#beta, beta_shape)
            beta_heads = Transpose <perm = [0, 2, 1, 3]> (beta_split)
        });
    }
    nodes.extend(match input(3) {
        Some(_) => onnx_nodes!(S_0 = CastLike(past_state, Q4)),
        // Zeros of one batch, broadcast by the first update.
        None => {
            let zeros = vec![0.0_f32; (kv_heads * dk * dv) as usize];
            onnx_nodes! {
                zeros = Constant <value = float[1, #kv_heads, #dk, #dv] {..#zeros}> ()
                S_0 = CastLike (zeros, Q4)
            }
        }
    });
    nodes.extend(onnx_nodes! {
        token_axis = Constant <value = int64[1] {2}> ()
        scale_f = Constant <value_float = #scale> ()
        scale = CastLike (scale_f, Q4)
    });
    let mut outputs = Vec::new();
    for t in 0..tokens {
        let n = |name: &str| format!("{name}_{t}");
        let [from, to, q, k, v, k_col, decayed, update, read, out] = [
            "from", "to", "q", "k", "v", "k_col", "decayed", "update", "read", "o",
        ]
        .map(n);
        let previous = format!("S_{t}");
        let next = format!("S_{}", t + 1);
        nodes.extend(onnx_nodes! {
            #from = Constant <value = int64[1] {#t}> ()
            #to = Constant <value = int64[1] {#(t + 1)}> ()
            #q = Slice (Q4, #from, #to, token_axis)
            #k = Slice (K4, #from, #to, token_axis)
            #v = Slice (V4, #from, #to, token_axis)
            #k_col = Transpose <perm = [0, 1, 3, 2]> (#k)
        });
        // S decayed, as (batch, kv heads, d_k, d_v).
        if gated {
            let [g, g_col] = ["g", "g_col"].map(n);
            nodes.extend(onnx_nodes! {
                #g = Slice (decay_factor, #from, #to, token_axis)
                #g_col = Transpose <perm = [0, 1, 3, 2]> (#g)
                #decayed = Mul (#previous, #g_col)
            });
        } else {
            nodes.extend(onnx_nodes!(#decayed = Identity (#previous)));
        }
        // What the token writes: its value, or β (value − what S recalls for its key).
        if delta {
            let [recalled, error, rate] = ["recalled", "error", "rate"].map(n);
            nodes.extend(onnx_nodes! {
                #recalled = MatMul (#k, #decayed)
                #error = Sub (#v, #recalled)
                #rate = Slice (beta_heads, #from, #to, token_axis)
                #update = Mul (#rate, #error)
            });
        } else {
            nodes.extend(onnx_nodes!(#update = Identity (#v)));
        }
        let outer = n("outer");
        nodes.extend(onnx_nodes! {
            #outer = MatMul (#k_col, #update)
            #next = Add (#decayed, #outer)
        });
        // Each query head reads its key head's state.
        let shared = if q_heads == kv_heads {
            next.clone()
        } else {
            let repeated = n("S_repeated");
            nodes.extend(super::repeat_heads(
                &next,
                q_heads / kv_heads,
                q_heads,
                dv,
                &repeated,
            ));
            repeated
        };
        nodes.extend(onnx_nodes! {
            #read = MatMul (#q, #shared)
            #out = Mul (#read, scale)
        });
        outputs.push(out);
    }
    let last = format!("S_{tokens}");
    nodes.extend(onnx_nodes! {
        O4 = Concat <axis = 2> (..#outputs)
        O_t = Transpose <perm = [0, 2, 1, 3]> (O4)
        merged_shape = Constant <value = int64[3] {0, 0, -1}> ()
        output_computed = Reshape (O_t, merged_shape)
        output = CastLike (output_computed, query)
    });
    nodes.extend(match input(3) {
        Some(_) => onnx_nodes!(present_state = CastLike (#last, past_state)),
        None => onnx_nodes!(present_state = CastLike (#last, query)),
    });
    Ok(onnx_function! {
        <domain: "onnx_text.expansion", opset_import: ["" : 18]>
        LinearAttention <chunk_size, kv_num_heads, q_num_heads, scale, update_rule>
            (query, key, value, past_state, decay, beta) => (output, present_state) {
            ..#nodes
        }
    })
}
