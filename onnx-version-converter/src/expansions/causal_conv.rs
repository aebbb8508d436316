//! CausalConvWithState (27): a depthwise 1-D convolution of `input` (batch, channels, length)
//! by `weight` (channels, 1, k), over the input after its past (`past_state`, else k − 1
//! zeros); the bias is added, then `activation` = silu (or swish) applies `x · sigmoid(x)`.
//! `present_state` is the last k − 1 positions of the padded input.
//!
//! Conv's `group` is the channel count, and the zeros' length is k − 1: both static facts of
//! `weight`.

use onnx_runtime_types::{FunctionProto, NodeProto};
use onnx_text::{onnx_function, onnx_nodes};

use crate::context::Context;
use crate::error::Reason;

pub(super) fn causal_conv_with_state(
    node: &NodeProto,
    context: &Context,
    target: i64,
) -> Result<FunctionProto, Reason> {
    let given = |index: usize| node.input.get(index).is_some_and(|i| !i.is_empty());
    let weight = node.input.get(1).map(String::as_str).unwrap_or_default();
    let dim = |axis: usize| {
        context
            .dims
            .get(weight)
            .and_then(|dims| dims.get(axis).copied().flatten())
            .ok_or_else(|| Reason::Unknown {
                what: format!("dimension {axis} of `{weight}`"),
                needed_by: "CausalConvWithState's expansion".to_owned(),
            })
    };
    let (channels, k) = (dim(0)?, dim(2)?);
    let mut nodes = if given(3) {
        onnx_nodes!(padded = Concat < axis = 2 > (past_state, input))
    } else {
        onnx_nodes! {
            pads = Constant <value = int64[6] {0, 0, #(k - 1), 0, 0, 0}> ()
            padded = Pad (input, pads)
        }
    };
    // The last k - 1 positions; none where k is 1 (a start past the end).
    let kept = if k > 1 { -(k - 1) } else { i64::MAX };
    nodes.extend(onnx_nodes! {
        kept = Constant <value = int64[1] {#kept}> ()
        end = Constant <value = int64[1] {9223372036854775807}> ()
        time_axis = Constant <value = int64[1] {2}> ()
        present_state = Slice (padded, kept, end, time_axis)
        convolved = Conv <group = #channels> (padded, weight)
    });
    nodes.extend(if given(2) {
        onnx_nodes! {
            channel_axis = Constant <value = int64[1] {1}> ()
            bias_per_channel = Unsqueeze (bias, channel_axis)
            biased = Add (convolved, bias_per_channel)
        }
    } else {
        onnx_nodes!(biased = Identity(convolved))
    });
    nodes.extend(match super::string_or(node, "activation", "none") {
        "none" => onnx_nodes!(output = Identity(biased)),
        "silu" | "swish" => onnx_nodes! {
            gate = Sigmoid (biased)
            output = Mul (biased, gate)
        },
        other => {
            return Err(Reason::AttributeValue {
                name: "activation".to_owned(),
                value: other.to_owned(),
                opset: target,
            });
        }
    });
    Ok(onnx_function! {
        <domain: "onnx_text.expansion", opset_import: ["" : 18]>
        CausalConvWithState <activation> (input, weight, bias, past_state) => (output, present_state) {
            ..#nodes
        }
    })
}
