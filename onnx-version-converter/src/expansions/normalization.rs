//! LayerNormalization (17) and RMSNormalization (23): over the axes from `axis` to the last,
//! computed in `stash_type` (X is cast to it, the normalized value cast back to X's type), then
//! scaled (and for LayerNormalization shifted by the optional B). LayerNormalization's Mean and
//! InvStdDev are of the stash type, with the reduced axes kept as 1.

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
        <domain: "onnx_text.expansion", opset_import: ["" : 18]>
        LayerNormalization <axis, epsilon: float = 0.00001, stash_type> (X, Scale, B) => (Y, Mean, InvStdDev) {
            axes = Constant <value_ints = #axes> ()
            epsilon_f = Constant <value_float = @epsilon> ()
            epsilon = Cast <to = #stash> (epsilon_f)
            XU = Cast <to = #stash> (X)
            Mean = ReduceMean (XU, axes)
            Deviation = Sub (XU, Mean)
            Square = Mul (Deviation, Deviation)
            Variance = ReduceMean (Square, axes)
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
        <domain: "onnx_text.expansion", opset_import: ["" : 18]>
        RMSNormalization <axis, epsilon: float = 0.00001, stash_type> (X, scale) => (Y) {
            axes = Constant <value_ints = #axes> ()
            epsilon_f = Constant <value_float = @epsilon> ()
            epsilon = Cast <to = #stash> (epsilon_f)
            XU = Cast <to = #stash> (X)
            Square = Mul (XU, XU)
            MeanSquare = ReduceMean (Square, axes)
            Shifted = Add (MeanSquare, epsilon)
            RMS = Sqrt (Shifted)
            NormalizedU = Div (XU, RMS)
            Normalized = CastLike (NormalizedU, X)
            Y = Mul (Normalized, scale)
        }
    })
}
