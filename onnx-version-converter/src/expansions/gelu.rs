//! Gelu (20): `0.5 x (1 + erf(x / √2))`, or with `approximate = "tanh"`
//! `0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³)))`. The constants take the input's type through
//! CastLike.

use onnx_runtime_types::{FunctionProto, NodeProto};
use onnx_text::onnx_function;

use crate::error::Reason;

pub(super) fn gelu(node: &NodeProto, target: i64) -> Result<FunctionProto, Reason> {
    match super::string_or(node, "approximate", "none") {
        "none" => Ok(onnx_function! {
            <domain: "onnx_text.expansion", opset_import: ["" : 18]>
            Gelu <approximate> (X) => (Y) {
                half_f = Constant <value_float = 0.5> ()
                one_f = Constant <value_float = 1.0> ()
                sqrt2_f = Constant <value_float = 1.4142135623730951> ()
                half = CastLike (half_f, X)
                one = CastLike (one_f, X)
                sqrt2 = CastLike (sqrt2_f, X)
                scaled = Div (X, sqrt2)
                erf = Erf (scaled)
                shifted = Add (one, erf)
                halved = Mul (half, X)
                Y = Mul (halved, shifted)
            }
        }),
        "tanh" => Ok(onnx_function! {
            <domain: "onnx_text.expansion", opset_import: ["" : 18]>
            Gelu <approximate> (X) => (Y) {
                half_f = Constant <value_float = 0.5> ()
                one_f = Constant <value_float = 1.0> ()
                alpha_f = Constant <value_float = 0.7978845608028654> ()
                beta_f = Constant <value_float = 0.044715> ()
                half = CastLike (half_f, X)
                one = CastLike (one_f, X)
                alpha = CastLike (alpha_f, X)
                beta = CastLike (beta_f, X)
                square = Mul (X, X)
                cube = Mul (square, X)
                scaled_cube = Mul (beta, cube)
                inner = Add (X, scaled_cube)
                scaled_inner = Mul (alpha, inner)
                tanh = Tanh (scaled_inner)
                shifted = Add (one, tanh)
                halved = Mul (half, X)
                Y = Mul (halved, shifted)
            }
        }),
        other => Err(Reason::AttributeValue {
            name: "approximate".to_owned(),
            value: other.to_owned(),
            opset: target,
        }),
    }
}
