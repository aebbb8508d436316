//! The property test of the interpolation guide (`src/guide/interpolation.md`): holes vary a
//! model's shape, attribute and data, and the value always equals the runtime parse of the text
//! with the values written in.

use onnx_text::{onnx, parse_model};
use proptest::prelude::*;

proptest! {
    #[test]
    fn leaky_relu_of_any_shape(
        dims in prop::collection::vec(1_i64..5, 0..4),
        alpha in -2.0_f32..2.0,
        bias in prop::collection::vec(-10.0_f32..10.0, 1..4),
    ) {
        let n = bias.len();
        let model = onnx! {
            <ir_version: 10, opset_import: ["" : 21]>
            g (float[..#dims, #n] x) => (float[..#dims, #n] y) <float[#n] b = {..#bias}> {
                t = LeakyRelu <alpha = #alpha> (x)
                y = Add (t, b)
            }
        };
        let shape: Vec<String> = dims.iter().chain([&(n as i64)]).map(|d| d.to_string()).collect();
        let data: Vec<String> = bias.iter().map(|v| format!("{v:?}")).collect();
        let text = format!(
            r#"<ir_version: 10, opset_import: ["" : 21]>
            g (float[{s}] x) => (float[{s}] y) <float[{n}] b = {{{d}}}> {{
                t = LeakyRelu <alpha = {alpha:?}> (x)
                y = Add (t, b)
            }}"#,
            s = shape.join(", "),
            d = data.join(", "),
        );
        prop_assert_eq!(model, parse_model(&text).unwrap());
    }
}
