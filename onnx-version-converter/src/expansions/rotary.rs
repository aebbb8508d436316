//! RotaryEmbedding (23): rotates the first `rotary_embedding_dim` elements of each head's
//! vector (all of them by default) by the angles whose cosines and sines the caches hold, taken
//! at `position_ids` where given. A pair is `(x1, x2)` → `(c·x1 − s·x2, s·x1 + c·x2)`, its
//! elements the two halves of the rotated part, or neighbours (`interleaved`).
//!
//! The body works on `(batch, sequence, heads, size)`: a 4-D input `(batch, heads, sequence,
//! size)` is transposed there and back, a 3-D one `(batch, sequence, heads · size)` split into
//! `num_heads` heads and merged back.

use onnx_runtime_types::{FunctionProto, NodeProto};
use onnx_text::{onnx_function, onnx_nodes};

use crate::context::{Context, attribute};
use crate::error::Reason;

pub(super) fn rotary_embedding(
    node: &NodeProto,
    context: &Context,
) -> Result<FunctionProto, Reason> {
    let unknown = |what: String| Reason::Unknown {
        what,
        needed_by: "RotaryEmbedding's expansion".to_owned(),
    };
    let int = |name: &str| attribute(node, name).and_then(|a| a.i);
    let x = node.input.first().map(String::as_str).unwrap_or_default();
    let dims = context.dims.get(x);
    let rank = context
        .rank(x)
        .ok_or_else(|| unknown(format!("the rank of `{x}`")))?;
    let last = |axis: usize| dims.and_then(|d| d.get(axis).copied().flatten());
    let (mut nodes, head_size) = match rank {
        4 => (
            onnx_nodes!(X4 = Transpose < perm = [0, 2, 1, 3] > (X)),
            last(3),
        ),
        3 => {
            let heads = int("num_heads")
                .filter(|&h| h > 0)
                .ok_or_else(|| unknown("`num_heads` of a 3-D RotaryEmbedding".to_owned()))?;
            (
                onnx_nodes! {
                    split_shape = Constant <value = int64[4] {0, 0, #heads, -1}> ()
                    X4 = Reshape (X, split_shape)
                },
                last(2).map(|hidden| hidden / heads),
            )
        }
        _ => return Err(unknown(format!("a 3-D or 4-D `{x}`"))),
    };
    let rotated = match int("rotary_embedding_dim").unwrap_or(0) {
        0 => head_size.ok_or_else(|| unknown(format!("the head size of `{x}`")))?,
        dim => dim,
    };
    let half = rotated / 2;
    // The caches hold one angle a pair (1.18.0's cases gave more, which the spec now rejects):
    // the body would broadcast other ones.
    let cos_cache = node.input.get(1).map(String::as_str).unwrap_or_default();
    let angles = context
        .dims
        .get(cos_cache)
        .and_then(|dims| dims.last().copied().flatten());
    if angles != Some(half) {
        return Err(unknown(format!(
            "a `{cos_cache}` of {half} angles a row (rotary_embedding_dim / 2)"
        )));
    }
    // The angles of each (batch, sequence), one per pair, broadcast over the heads.
    nodes.extend(if node.input.get(3).is_some_and(|p| !p.is_empty()) {
        onnx_nodes! {
            cos_at = Gather (cos_cache, position_ids)
            sin_at = Gather (sin_cache, position_ids)
        }
    } else {
        onnx_nodes! {
            cos_at = Identity (cos_cache)
            sin_at = Identity (sin_cache)
        }
    });
    let interleaved = int("interleaved").unwrap_or(0) != 0;
    // The axis of a pair's two elements: the last (positive: below opset 11 a negative axis
    // needs the rank).
    let pair_axis: i64 = if interleaved { 4 } else { 3 };
    // Pairs of neighbours get an axis of two: the angles broadcast over it, and the heads.
    let angle_axes: &[i64] = if interleaved { &[2, 4] } else { &[2] };
    nodes.extend(onnx_nodes! {
        angle_axes = Constant <value = int64[#(angle_axes.len())] {..#angle_axes}> ()
        cos = Unsqueeze (cos_at, angle_axes)
        sin = Unsqueeze (sin_at, angle_axes)
        zero = Constant <value = int64[1] {0}> ()
        rotated_end = Constant <value = int64[1] {#rotated}> ()
        last_axis = Constant <value = int64[1] {3}> ()
        X_rotated = Slice (X4, zero, rotated_end, last_axis)
    });
    nodes.extend(if interleaved {
        onnx_nodes! {
            pairs_shape = Constant <value = int64[5] {0, 0, 0, #half, 2}> ()
            pairs = Reshape (X_rotated, pairs_shape)
            one = Constant <value = int64[1] {1}> ()
            two = Constant <value = int64[1] {2}> ()
            pair_axis = Constant <value = int64[1] {4}> ()
            x1 = Slice (pairs, zero, one, pair_axis)
            x2 = Slice (pairs, one, two, pair_axis)
        }
    } else {
        onnx_nodes! {
            half_end = Constant <value = int64[1] {#half}> ()
            x1 = Slice (X_rotated, zero, half_end, last_axis)
            x2 = Slice (X_rotated, half_end, rotated_end, last_axis)
        }
    });
    nodes.extend(onnx_nodes! {
        c_x1 = Mul (cos, x1)
        s_x2 = Mul (sin, x2)
        s_x1 = Mul (sin, x1)
        c_x2 = Mul (cos, x2)
        y1 = Sub (c_x1, s_x2)
        y2 = Add (s_x1, c_x2)
        y_pairs = Concat <axis = #pair_axis> (y1, y2)
    });
    nodes.extend(if interleaved {
        onnx_nodes! {
            rotated_shape = Constant <value = int64[4] {0, 0, 0, #rotated}> ()
            Y_rotated = Reshape (y_pairs, rotated_shape)
        }
    } else {
        onnx_nodes!(Y_rotated = Identity(y_pairs))
    });
    // The rest of each head's vector passes as it is.
    nodes.extend(if head_size == Some(rotated) {
        onnx_nodes!(Y4 = Identity(Y_rotated))
    } else {
        onnx_nodes! {
            end = Constant <value = int64[1] {9223372036854775807}> ()
            X_passed = Slice (X4, rotated_end, end, last_axis)
            Y4 = Concat <axis = 3> (Y_rotated, X_passed)
        }
    });
    nodes.extend(if rank == 4 {
        onnx_nodes!(Y = Transpose < perm = [0, 2, 1, 3] > (Y4))
    } else {
        onnx_nodes! {
            merged_shape = Constant <value = int64[3] {0, 0, -1}> ()
            Y = Reshape (Y4, merged_shape)
        }
    });
    Ok(onnx_function! {
        <domain: "onnx_text.expansion", opset_import: ["" : 18]>
        RotaryEmbedding <num_heads, rotary_embedding_dim, interleaved>
            (X, cos_cache, sin_cache, position_ids) => (Y) {
            ..#nodes
        }
    })
}
