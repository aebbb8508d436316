//! LayerNormalization (17), RMSNormalization (23) and GroupNormalization (21). The first two
//! normalize over the axes from `axis` to the last,
//! computed in `stash_type` (X is cast to it, the normalized value cast back to X's type), then
//! scaled (and for LayerNormalization shifted by the optional B). LayerNormalization's Mean and
//! InvStdDev are of the stash type, with the reduced axes kept as 1. The bodies are written at
//! opset 17, where ReduceMean's `axes` is an attribute: an `axes` Constant would be int64, which
//! Constant lacks before 9 (from 18 on, the driver moves the attribute to an input).

use onnx_runtime_types::{FunctionProto, NodeProto};
use onnx_text::{onnx_function, onnx_nodes};

use crate::context::Context;
use crate::error::Reason;

pub(super) fn layer_normalization(
    node: &NodeProto,
    context: &Context,
    target: i64,
) -> Result<FunctionProto, Reason> {
    let axes = super::trailing_axes(node, context, target)?;
    let stash = super::int_or(node, "stash_type", 1);
    let shift = if super::has_input(node, 2) {
        onnx_nodes!(Y = Add(Scaled, B))
    } else {
        onnx_nodes!(Y = Identity(Scaled))
    };
    Ok(onnx_function! {
        <domain: "onnx_text.expansion", opset_import: ["" : 17]>
        LayerNormalization <axis, epsilon: float = 0.00001, stash_type> (X, Scale, B) => (Y, Mean, InvStdDev) {
            epsilon_f = Constant <value_float = @epsilon> ()
            epsilon = Cast <to = #stash> (epsilon_f)
            XU = Cast <to = #stash> (X)
            Mean = ReduceMean <axes = #axes> (XU)
            Deviation = Sub (XU, Mean)
            Square = Mul (Deviation, Deviation)
            Variance = ReduceMean <axes = #axes> (Square)
            Shifted = Add (Variance, epsilon)
            StdDev = Sqrt (Shifted)
            InvStdDev = Reciprocal (StdDev)
            NormalizedU = Mul (Deviation, InvStdDev)
            Normalized = CastLike (NormalizedU, X)
            Scaled = Mul (Normalized, Scale)
            ..#shift
        }
    })
}

pub(super) fn rms_normalization(
    node: &NodeProto,
    context: &Context,
    target: i64,
) -> Result<FunctionProto, Reason> {
    let axes = super::trailing_axes(node, context, target)?;
    let stash = super::int_or(node, "stash_type", 1);
    Ok(onnx_function! {
        <domain: "onnx_text.expansion", opset_import: ["" : 17]>
        RMSNormalization <axis, epsilon: float = 0.00001, stash_type> (X, scale) => (Y) {
            epsilon_f = Constant <value_float = @epsilon> ()
            epsilon = Cast <to = #stash> (epsilon_f)
            XU = Cast <to = #stash> (X)
            Square = Mul (XU, XU)
            MeanSquare = ReduceMean <axes = #axes> (Square)
            Shifted = Add (MeanSquare, epsilon)
            RMS = Sqrt (Shifted)
            NormalizedU = Div (XU, RMS)
            Normalized = CastLike (NormalizedU, X)
            Y = Mul (Normalized, scale)
        }
    })
}

/// GroupNormalization (21): the channels of X (N, C, ...) in `num_groups` groups, each group
/// normalized over its channels and the spatial axes in `stash_type`, then scaled and shifted
/// per channel. Scale and bias become (C, 1, ...) for numpy's broadcasting, which needs X's rank.
pub(super) fn group_normalization(
    node: &NodeProto,
    context: &Context,
    target: i64,
) -> Result<FunctionProto, Reason> {
    let x = node.input.first().map_or("", String::as_str);
    let rank = context.rank(x).ok_or_else(|| Reason::Unknown {
        what: format!("the rank of `{x}`"),
        needed_by: "GroupNormalization's scale and bias along axis 1".to_owned(),
    })?;
    if rank < 2 {
        return Err(crate::adapters::inexact(
            format!("GroupNormalization of a rank-{rank} input"),
            target,
        ));
    }
    let groups = super::int_or(node, "num_groups", 0);
    let stash = super::int_or(node, "stash_type", 1);
    let per_channel: Vec<i64> = std::iter::once(-1).chain(vec![1; rank - 2]).collect();
    Ok(onnx_function! {
        <domain: "onnx_text.expansion", opset_import: ["" : 17]>
        GroupNormalization <num_groups, epsilon: float = 0.00001, stash_type> (X, scale, bias) => (Y) {
            epsilon_f = Constant <value_float = @epsilon> ()
            epsilon = Cast <to = #stash> (epsilon_f)
            XU = Cast <to = #stash> (X)
            XShape = Shape (X)
            GroupShape = Constant <value = int64[3] {0, #groups, -1}> ()
            Grouped = Reshape (XU, GroupShape)
            Mean = ReduceMean <axes = [2]> (Grouped)
            Deviation = Sub (Grouped, Mean)
            Square = Mul (Deviation, Deviation)
            Variance = ReduceMean <axes = [2]> (Square)
            Shifted = Add (Variance, epsilon)
            StdDev = Sqrt (Shifted)
            NormalizedU = Div (Deviation, StdDev)
            NormalizedGroups = CastLike (NormalizedU, X)
            Normalized = Reshape (NormalizedGroups, XShape)
            ChannelShape = Constant <value = int64[#(rank - 1)] {..#per_channel}> ()
            ScaleC = Reshape (scale, ChannelShape)
            BiasC = Reshape (bias, ChannelShape)
            Scaled = Mul (Normalized, ScaleC)
            Y = Add (Scaled, BiasC)
        }
    })
}

#[cfg(test)]
mod tests {
    use onnx_eval::Value;
    use onnx_text::onnx;

    fn ramp(n: usize) -> Vec<f32> {
        (0..n).map(|i| ((i * 7 % 11) as f32 - 5.0) / 3.0).collect()
    }

    #[test]
    fn layer_normalization_negative_axis_bias_and_statistics() {
        let model = onnx! {
            <ir_version: 8, opset_import: ["" : 17]>
            g (float[2, 3, 4] x, float[3, 4] s, float[3, 4] b)
                => (float[2, 3, 4] y, float[2, 1, 1] mean, float[2, 1, 1] inv) {
                y, mean, inv = LayerNormalization <axis = -2, epsilon = 0.01> (x, s, b)
            }
        };
        let inputs = [
            Value::tensor(&ramp(24), &[2, 3, 4]).unwrap(),
            Value::tensor(&ramp(12), &[3, 4]).unwrap(),
            Value::tensor(&ramp(13)[1..], &[3, 4]).unwrap(),
        ];
        for target in [7, 12, 16] {
            super::super::assert_converts_same(&model, target, &inputs);
        }
    }

    #[test]
    fn group_normalization_in_groups_of_channels() {
        let model = onnx! {
            <ir_version: 10, opset_import: ["" : 21]>
            g (float[2, 4, 3, 2] x, float[4] s, float[4] b) => (float[2, 4, 3, 2] y) {
                y = GroupNormalization <num_groups = 2, epsilon = 0.01> (x, s, b)
            }
        };
        let inputs = [
            Value::tensor(&ramp(48), &[2, 4, 3, 2]).unwrap(),
            Value::tensor(&ramp(4), &[4]).unwrap(),
            Value::tensor(&ramp(5)[1..], &[4]).unwrap(),
        ];
        for target in [7, 9, 13, 17, 18, 20] {
            super::super::assert_converts_same(&model, target, &inputs);
        }
    }

    #[test]
    fn rms_normalization_positive_axis() {
        let model = onnx! {
            <ir_version: 10, opset_import: ["" : 23]>
            g (float[2, 3, 4] x, float[3, 4] s) => (float[2, 3, 4] y) {
                y = RMSNormalization <axis = 1> (x, s)
            }
        };
        let inputs = [
            Value::tensor(&ramp(24), &[2, 3, 4]).unwrap(),
            Value::tensor(&ramp(12), &[3, 4]).unwrap(),
        ];
        for target in [7, 17, 18, 22] {
            super::super::assert_converts_same(&model, target, &inputs);
        }
    }
}
