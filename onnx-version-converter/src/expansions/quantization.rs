//! DequantizeLinear (10 to 25) below its first version: `(x - x_zero_point) * x_scale`, in
//! float32 as onnx's reference computes it, then in the scale's type. A 1-D scale (from 13) is
//! one per slice along `axis`: it is reshaped to lie along that axis, which needs x's rank.
//! Blocked scales (`block_size`) and an `output_dtype` other than the scale's are refused.

use onnx_runtime_types::{FunctionProto, NodeProto};
use onnx_text::{onnx_function, onnx_nodes};

use crate::context::Context;
use crate::error::Reason;

pub(super) fn dequantize_linear(
    node: &NodeProto,
    context: &Context,
    target: i64,
) -> Result<FunctionProto, Reason> {
    let refuse = |name: &str| Reason::Attribute {
        name: name.to_owned(),
        opset: target,
    };
    if super::int_or(node, "block_size", 0) != 0 {
        return Err(refuse("block_size"));
    }
    let input = |i: usize| node.input.get(i).map_or("", String::as_str);
    let output_dtype = super::int_or(node, "output_dtype", 0);
    if output_dtype != 0 && context.elem(input(1)) != Some(output_dtype as i32) {
        return Err(refuse("output_dtype"));
    }
    let unknown_rank = |value: &str| Reason::Unknown {
        what: format!("the rank of `{value}`"),
        needed_by: "DequantizeLinear's scale along its axis".to_owned(),
    };
    let scale_rank = context
        .rank(input(1))
        .ok_or_else(|| unknown_rank(input(1)))?;
    let zero_point = super::has_input(node, 2);
    // The scale and zero point as they broadcast against x: along `axis` where they are 1-D.
    let mut aligned = if scale_rank == 1 {
        let rank = context
            .rank(input(0))
            .ok_or_else(|| unknown_rank(input(0)))? as i64;
        let axis = super::axis_of_rank(super::int_or(node, "axis", 1), rank, target)?;
        let along: Vec<i64> = std::iter::once(-1)
            .chain(std::iter::repeat_n(1, (rank - axis - 1) as usize))
            .collect();
        let mut nodes = onnx_nodes! {
            along = Constant <value = int64[#(along.len())] {..#along}> ()
            scale = Reshape (scale32, along)
        };
        if zero_point {
            nodes.extend(onnx_nodes!(zero = Reshape(zero32, along)));
        }
        nodes
    } else {
        let mut nodes = onnx_nodes!(scale = Identity(scale32));
        if zero_point {
            nodes.extend(onnx_nodes!(zero = Identity(zero32)));
        }
        nodes
    };
    if zero_point {
        aligned.splice(0..0, onnx_nodes!(zero32 = Cast < to = 1 > (x_zero_point)));
        aligned.extend(onnx_nodes!(deviation = Sub(x32, zero)));
    } else {
        aligned.extend(onnx_nodes!(deviation = Identity(x32)));
    }
    Ok(onnx_function! {
        <domain: "onnx_text.expansion", opset_import: ["" : 19]>
        DequantizeLinear <axis, block_size, output_dtype> (x, x_scale, x_zero_point) => (y) {
            x32 = Cast <to = 1> (x)
            scale32 = Cast <to = 1> (x_scale)
            ..#aligned
            y32 = Mul (deviation, scale)
            y = CastLike (y32, x_scale)
        }
    })
}

#[cfg(test)]
mod tests {
    use onnx_eval::Value;
    use onnx_text::onnx;

    #[test]
    fn dequantize_per_tensor_and_per_axis() {
        let model = onnx! {
            <ir_version: 8, opset_import: ["" : 13]>
            g (uint8[2, 3, 2] x, float s, uint8 z, float[3] sa, uint8[3] za)
                => (float[2, 3, 2] y, float[2, 3, 2] ya, float[2, 3, 2] yn) {
                y = DequantizeLinear (x, s, z)
                ya = DequantizeLinear <axis = 1> (x, sa, za)
                yn = DequantizeLinear <axis = -2> (x, sa)
            }
        };
        let x: Vec<u8> = (0..12).map(|i| (i * 23 % 256) as u8).collect();
        let inputs = [
            Value::tensor(&x, &[2, 3, 2]).unwrap(),
            Value::tensor(&[0.5f32], &[]).unwrap(),
            Value::tensor(&[7u8], &[]).unwrap(),
            Value::tensor(&[0.5f32, 2.0, -0.25], &[3]).unwrap(),
            Value::tensor(&[1u8, 128, 255], &[3]).unwrap(),
        ];
        for target in [7, 8, 9] {
            super::super::assert_converts_same(&model, target, &inputs);
        }
    }
}
