//! CenterCropPad (18), Celu (12) and Bernoulli (15).

use onnx_runtime_types::{FunctionProto, NodeProto};
use onnx_text::onnx_function;

use crate::context::Context;
use crate::error::Reason;

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

/// Bernoulli (15): 1 where a uniform draw in [0, 1) of the input's type is below the input's
/// probability, so that 1 comes with probability p. (onnx's own body compares with Greater,
/// which gives 1 with probability 1 - p, and draws float whatever the input's type.) The output
/// takes `dtype`, else the input's type.
pub(super) fn bernoulli(node: &NodeProto, context: &Context) -> Result<FunctionProto, Reason> {
    let input = node.input.first().map_or("", String::as_str);
    let elem = context.elem(input).ok_or_else(|| Reason::Unknown {
        what: format!("the element type of `{input}`"),
        needed_by: "Bernoulli's draws, of the input's type".to_owned(),
    })?;
    let dtype = crate::context::attribute(node, "dtype")
        .and_then(|a| a.i)
        .unwrap_or(i64::from(elem));
    Ok(onnx_function! {
        <domain: "onnx_text.expansion", opset_import: ["" : 15]>
        Bernoulli <dtype, seed> (input) => (output) {
            draw = RandomUniformLike <low = 0.0, high = 1.0, seed = @seed, dtype = #(i64::from(elem))> (input)
            below = Less (draw, input)
            output = Cast <to = #dtype> (below)
        }
    })
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

    /// Draws are compared by what does not depend on them: a probability of 0 gives 0 and one
    /// of 1 gives 1 whatever the draw, and 2,000 draws at 0.9 give about 90% ones (ten
    /// standard deviations either way).
    #[test]
    fn bernoulli_gives_1_with_the_input_probability() {
        let model = onnx! {
            <ir_version: 8, opset_import: ["" : 15]>
            g (double[4000] p) => (double[4000] y, int32[4000] z) {
                y = Bernoulli (p)
                z = Bernoulli <dtype = 6, seed = 3.0> (p)
            }
        };
        let p: Vec<f64> = (0..4000)
            .map(|i| match i % 4 {
                0 => 0.0,
                1 => 1.0,
                _ => 0.9,
            })
            .collect();
        let inputs = [Value::tensor(&p, &[4000]).unwrap()];
        for target in [7, 13, 14] {
            let converted = crate::convert_version(&model, target).unwrap();
            let outputs = onnx_eval::run(&converted, &inputs).unwrap();
            let y = outputs[0].to_vec::<f64>().unwrap();
            let z: Vec<f64> = (outputs[1].to_vec::<i32>().unwrap().iter())
                .map(|&v| f64::from(v))
                .collect();
            for drawn in [y, z] {
                assert!(drawn.iter().all(|&v| v == 0.0 || v == 1.0));
                assert!(
                    drawn.iter().step_by(4).all(|&v| v == 0.0),
                    "p = 0 at {target}"
                );
                assert!(
                    drawn.iter().skip(1).step_by(4).all(|&v| v == 1.0),
                    "p = 1 at {target}"
                );
                let likely: Vec<f64> = (drawn.iter().enumerate())
                    .filter(|(i, _)| i % 4 >= 2)
                    .map(|(_, &v)| v)
                    .collect();
                let mean = likely.iter().sum::<f64>() / likely.len() as f64;
                assert!((0.84..0.96).contains(&mean), "mean {mean} at {target}");
            }
        }
    }
}
