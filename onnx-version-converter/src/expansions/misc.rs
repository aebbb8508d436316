//! CenterCropPad (18) and Celu (12).

use onnx_runtime_types::{FunctionProto, NodeProto};
use onnx_text::onnx_function;

/// CenterCropPad (18): every axis goes to its target size (`shape` on `axes`, else the input's
/// own), cropped around the centre where it is larger (the extra element at the end) and
/// zero-padded where it is smaller (the extra element at the end). Written on full-rank vectors
/// (ScatterElements puts `shape` on `axes`, negative ones included), so that Slice and Pad need
/// no `axes` input, which Pad lacks before 18.
pub(super) fn center_crop_pad(node: &NodeProto) -> FunctionProto {
    let sizes = match crate::context::attribute(node, "axes") {
        Some(axes) => {
            let axes = &axes.ints;
            onnx_text::onnx_nodes! {
                axes = Constant <value_ints = #axes> ()
                sizes = ScatterElements (input_shape, axes, shape64)
            }
        }
        None => onnx_text::onnx_nodes!(sizes = Identity(shape64)),
    };
    onnx_function! {
        <domain: "onnx_text.expansion", opset_import: ["" : 18]>
        CenterCropPad <axes> (input_data, shape) => (output_data) {
            input_shape = Shape (input_data)
            shape64 = Cast <to = 7> (shape)
            ..#sizes
            zero = Constant <value_int = 0> ()
            two = Constant <value_int = 2> ()
            excess = Sub (input_shape, sizes)
            crop = Max (excess, zero)
            crop_start = Div (crop, two)
            kept = Min (input_shape, sizes)
            crop_end = Add (crop_start, kept)
            cropped = Slice (input_data, crop_start, crop_end)
            missing = Sub (sizes, input_shape)
            pad = Max (missing, zero)
            pad_start = Div (pad, two)
            pad_end = Sub (pad, pad_start)
            pads = Concat <axis = 0> (pad_start, pad_end)
            output_data = Pad (cropped, pads)
        }
    }
}

/// Celu (12): `α · Elu(x / α)`, which is `max(0, x) + min(0, α (exp(x / α) - 1))`. Celu-12 takes
/// float only, so α needs no CastLike.
pub(super) fn celu() -> FunctionProto {
    onnx_function! {
        <domain: "onnx_text.expansion", opset_import: ["" : 18]>
        Celu <alpha: float = 1.0> (X) => (Y) {
            alpha = Constant <value_float = @alpha> ()
            scaled = Div (X, alpha)
            elu = Elu <alpha = 1.0> (scaled)
            Y = Mul (alpha, elu)
        }
    }
}

#[cfg(test)]
mod tests {
    use onnx_eval::Value;
    use onnx_text::onnx;

    #[test]
    fn center_crop_pad_negative_axes_crops_and_pads() {
        let model = onnx! {
            <ir_version: 8, opset_import: ["" : 18]>
            g (float[5, 2, 3] x, int64[2] shape) => (float[5, 5, 2] y) {
                y = CenterCropPad <axes = [-2, -1]> (x, shape)
            }
        };
        let data: Vec<f32> = (0..30).map(|i| i as f32).collect();
        let inputs = [
            Value::tensor(&data, &[5, 2, 3]).unwrap(),
            Value::tensor(&[5_i64, 2], &[2]).unwrap(),
        ];
        for target in [12, 17] {
            super::super::assert_converts_same(&model, target, &inputs);
        }
    }

    #[test]
    fn celu() {
        let model = onnx! {
            <ir_version: 8, opset_import: ["" : 12]>
            g (float[5] x) => (float[5] y) {
                y = Celu <alpha = 2.0> (x)
            }
        };
        let inputs = [Value::tensor(&[-3.0_f32, -0.5, 0.0, 0.5, 3.0], &[5]).unwrap()];
        super::super::assert_converts_same(&model, 11, &inputs);
    }
}
