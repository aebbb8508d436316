//! LayerNormalization (17) and RMSNormalization (23): over the axes from `axis` to the last,
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
