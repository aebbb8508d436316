//! Softmax, LogSoftmax and Hardmax.
//!
//! Before version 13 each of them coerces its input to 2-D at `axis` (default 1): the rows are
//! the elements of `shape[axis..]` together, whatever the rank. From version 13 they normalize
//! along the one axis `axis` (default -1). onnx's own evaluator applies the version-13 meaning
//! to every version; this follows the spec.

use super::reduce::extreme_index;
use super::wide::{narrow, widen};
use super::{Ctx, Registry, axis, one, tensor};
use crate::error::KernelResult;
use crate::halves::f16;
use crate::value::Val;
use onnx_runtime_types::tensor_proto::DataType;

pub(super) fn register(r: &mut Registry) {
    for op in ["Softmax", "LogSoftmax", "Hardmax"] {
        r.add("", op, 1, normalize);
        r.add("", op, 13, normalize);
    }
}

/// How the elements of a tensor in row-major order fall into rows: `outer` blocks of `len`
/// row positions, each row's elements `inner` apart.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rows {
    pub outer: usize,
    pub len: usize,
    pub inner: usize,
}

impl Rows {
    /// The rows along one axis.
    pub fn along(shape: &[usize], axis: usize) -> Rows {
        Rows {
            outer: shape[..axis].iter().product(),
            len: shape[axis],
            inner: shape[axis + 1..].iter().product(),
        }
    }

    /// The rows of the 2-D coercion at `axis`: `shape[axis..]` flattened.
    pub fn flattened(shape: &[usize], axis: usize) -> Rows {
        Rows {
            outer: shape[..axis].iter().product(),
            len: shape[axis..].iter().product(),
            inner: 1,
        }
    }

    /// Applies `f` to every row of `values` in place.
    pub fn apply(self, values: &mut [f64], f: impl Fn(&mut [f64])) {
        let mut row = vec![0.0; self.len];
        for o in 0..self.outer {
            for i in 0..self.inner {
                let at = |k: usize| (o * self.len + k) * self.inner + i;
                for (k, x) in row.iter_mut().enumerate() {
                    *x = values[at(k)];
                }
                f(&mut row);
                for (k, x) in row.iter().enumerate() {
                    values[at(k)] = *x;
                }
            }
        }
    }
}

/// exp(x - max) / sum, in place.
pub(crate) fn softmax_row(row: &mut [f64]) {
    let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    row.iter_mut().for_each(|x| *x = (*x - max).exp());
    let sum: f64 = row.iter().sum();
    row.iter_mut().for_each(|x| *x /= sum);
}

/// Softmax of float16 values as onnx's evaluator computes it (numpy, one operation at a time
/// in float16): x - max, its exponential and the quotient each rounded to float16, the sum
/// accumulated in f32 and rounded (numpy's sum along the last axis, the default; along another
/// it adds in float16, which this does not copy). Rounding once at the end instead moves elements by a unit in
/// the last place, which function bodies built on Softmax (such as Attention's) carry out of
/// the tolerance. bfloat16 keeps the one rounding: onnx's evaluator (ml_dtypes) sums it in
/// bfloat16 one element at a time, which is off by several percent on long rows.
fn softmax_row_float16(row: &mut [f64]) {
    let round = |v: f32| f16::from_f32(v).to_f32();
    let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max) as f32;
    for x in row.iter_mut() {
        *x = f64::from(round(round(*x as f32 - max).exp()));
    }
    let sum = round(row.iter().map(|&e| e as f32).sum::<f32>());
    for x in row.iter_mut() {
        *x = f64::from(round(*x as f32 / sum));
    }
}

/// x - max - log(sum(exp(x - max))), in place.
pub(crate) fn log_softmax_row(row: &mut [f64]) {
    let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = row.iter().map(|&x| (x - max).exp()).sum();
    let log_sum = sum.ln();
    row.iter_mut().for_each(|x| *x = *x - max - log_sum);
}

/// 1 at the row's first greatest element, 0 elsewhere.
fn hardmax_row(row: &mut [f64]) {
    let at = extreme_index(row, true, false) as usize;
    for (k, x) in row.iter_mut().enumerate() {
        *x = if k == at { 1.0 } else { 0.0 };
    }
}

fn normalize(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let shape = x.shape().to_vec();
    let rows = if ctx.since < 13 {
        let at = axis(ctx.int("axis", 1), shape.len())?;
        Rows::flattened(&shape, at.min(shape.len()))
    } else {
        if shape.is_empty() {
            return Err(format!("{} of a scalar", ctx.op_type));
        }
        Rows::along(&shape, axis(ctx.int("axis", -1), shape.len())?)
    };
    let row_function: fn(&mut [f64]) = match (ctx.op_type, x.dtype) {
        ("Softmax", DataType::Float16) => softmax_row_float16,
        ("Softmax", _) => softmax_row,
        ("LogSoftmax", _) => log_softmax_row,
        _ => hardmax_row,
    };
    let wide = widen(x)?;
    let mut values: Vec<f64> = wide.iter().copied().collect();
    rows.apply(&mut values, row_function);
    let out = ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&shape), values)
        .map_err(|e| e.to_string())?;
    one(narrow(x.dtype, out)?)
}

#[cfg(test)]
mod tests {
    use crate::Value;

    /// Runs a one-input model on `x` and gives its first output's elements.
    fn run(model: &str, x: &[f32], shape: &[usize]) -> Vec<f32> {
        let model = onnx_text::parse_model(model).unwrap();
        let x = Value::tensor(x, shape).unwrap();
        crate::run(&model, &[x]).unwrap()[0]
            .to_vec::<f32>()
            .unwrap()
    }

    fn close(got: &[f32], want: &[f32]) {
        assert_eq!(got.len(), want.len(), "{got:?} against {want:?}");
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-6, "{got:?} against {want:?}");
        }
    }

    const X: [f32; 4] = [0.0, 0.0, 0.0, 1.0986123]; // ln 3 last

    /// Version 11 coerces [1, 2, 2] to [1, 4] at axis 1: one row of exp values 1, 1, 1, 3
    /// (expected values by hand from the spec; onnx's evaluator normalizes along axis 1 only).
    #[test]
    fn softmax_11_normalizes_the_flattened_rows() {
        let model = r#"<ir_version: 7, opset_import: ["" : 11]>
            g (float[1, 2, 2] x) => (float[1, 2, 2] y) { y = Softmax <axis = 1> (x) }"#;
        close(
            &run(model, &X, &[1, 2, 2]),
            &[1.0 / 6.0, 1.0 / 6.0, 1.0 / 6.0, 0.5],
        );
    }

    /// Version 13 normalizes along axis 1 alone: columns (1, 1) and (1, 3), by hand.
    #[test]
    fn softmax_13_normalizes_along_the_axis() {
        let model = r#"<ir_version: 7, opset_import: ["" : 13]>
            g (float[1, 2, 2] x) => (float[1, 2, 2] y) { y = Softmax <axis = 1> (x) }"#;
        close(&run(model, &X, &[1, 2, 2]), &[0.5, 0.25, 0.5, 0.75]);
    }

    /// LogSoftmax-1's default axis 1 flattens [1, 2, 2] to one row: log(1/6) thrice, log(1/2)
    /// (by hand from the spec).
    #[test]
    fn log_softmax_1_defaults_to_the_flattened_axis_1() {
        let model = r#"<ir_version: 3, opset_import: ["" : 1]>
            g (float[1, 2, 2] x) => (float[1, 2, 2] y) { y = LogSoftmax (x) }"#;
        let l6 = -(6.0f32.ln());
        close(&run(model, &X, &[1, 2, 2]), &[l6, l6, l6, -(2.0f32.ln())]);
    }

    /// Hardmax-11 at axis 1 of [2, 1, 2]: each row of two is its own flattened row here, but at
    /// axis 0 the whole tensor is one row with one 1 (by hand from the spec).
    #[test]
    fn hardmax_11_marks_one_element_of_the_flattened_row() {
        let model = r#"<ir_version: 7, opset_import: ["" : 11]>
            g (float[2, 1, 2] x) => (float[2, 1, 2] y) { y = Hardmax <axis = 0> (x) }"#;
        close(
            &run(model, &[3.0, 1.0, 2.0, 4.0], &[2, 1, 2]),
            &[0.0, 0.0, 0.0, 1.0],
        );
    }

    /// float16 Softmax rounds each step as onnx.reference does (checked with it, and by hand):
    /// exp(-2) is 0.13537598 in float16, the sum 1 + 2 * 0.13537598 rounds to 1.2705078, and
    /// 0.13537598 / 1.2705078 to 0.10656738; one rounding of the exact 0.10650698 gives
    /// 0.10650635.
    #[test]
    fn softmax_of_float16_rounds_each_step() {
        let model = onnx_text::parse_model(
            r#"<ir_version: 8, opset_import: ["" : 13]>
            g (float16[3] x) => (float16[3] y) { y = Softmax (x) }"#,
        )
        .unwrap();
        let h = |v: f32| half::f16::from_f32(v);
        let x = Value::tensor(&[h(0.0), h(-2.0), h(-2.0)], &[3]).unwrap();
        let y = crate::run(&model, &[x]).unwrap()[0]
            .to_vec::<half::f16>()
            .unwrap();
        let y: Vec<f32> = y.iter().map(|v| v.to_f32()).collect();
        assert_eq!(y, [0.787_109_4, 0.106_567_38, 0.106_567_38]);
    }
}
