//! Gemm: alpha * A' * B' + beta * C, A' and B' optionally transposed, C broadcast to the
//! product's shape (before version 7, only with `broadcast` set; optional from version 11).

use super::elementwise::{Real, broadcast_positions, broadcast_shape};
use super::{Ctx, Registry, one, tensor, tensor_opt};
use crate::error::KernelResult;
use crate::halves::{bf16, f16};
use crate::tensor::{Data, MapEach, Tensor, row_major};
use crate::value::Val;
use ndarray::{Array2, ArrayD, ArrayView2, Ix2, LinalgScalar};

pub(super) fn register(r: &mut Registry) {
    for since in [1, 6, 7, 9, 11, 13] {
        r.add("", "Gemm", since, gemm);
    }
}

/// A 2-D view of an operand, transposed if asked.
fn matrix<'a, T>(a: &'a ArrayD<T>, transpose: bool, name: &str) -> KernelResult<ArrayView2<'a, T>> {
    let m = a
        .view()
        .into_dimensionality::<Ix2>()
        .map_err(|_| format!("{name} of shape {:?} is not a matrix", a.shape()))?;
    Ok(if transpose { m.reversed_axes() } else { m })
}

/// The product and the bias term of one element type; integers scale in f64 and truncate.
#[allow(clippy::too_many_arguments)]
fn gemm_arrays<T: LinalgScalar + Real>(
    ctx: &Ctx<'_>,
    a: &ArrayD<T>,
    b: &ArrayD<T>,
    c: Option<&ArrayD<T>>,
    trans_a: bool,
    trans_b: bool,
    alpha: f64,
    beta: f64,
    legacy_broadcast: bool,
) -> KernelResult<ArrayD<T>> {
    let a = matrix(a, trans_a, "A")?;
    let b = matrix(b, trans_b, "B")?;
    let (m, k) = a.dim();
    let (k2, n) = b.dim();
    if k != k2 {
        return Err(format!("A' of {m}x{k} and B' of {k2}x{n} do not multiply"));
    }
    ctx.checked_count(&[m, n])?;
    let product: Array2<T> = a.dot(&b);
    let scale = |v: T| {
        if alpha == 1.0 {
            v
        } else {
            T::from_f64(alpha * v.to_f64())
        }
    };
    let mut y = product.map_each(&scale).into_dyn();
    if let Some(c) = c {
        if !legacy_broadcast && c.shape() != [m, n] {
            return Err(format!(
                "C of shape {:?} is not {m}x{n} and `broadcast` is not set",
                c.shape()
            ));
        }
        // C's element for each of Y's, by position (ndarray's `Zip` compiled for each type is
        // the larger part of this function's code).
        if broadcast_shape(c.shape(), &[m, n]).ok().as_deref() != Some(&[m, n][..]) {
            return Err(format!(
                "C of shape {:?} does not broadcast to {m}x{n}",
                c.shape()
            ));
        }
        let from_c = broadcast_positions(c.shape(), &[m, n]);
        let c = row_major(c);
        let ys = y.as_slice_mut().expect("a new array in standard layout");
        for (y, &p) in ys.iter_mut().zip(&from_c) {
            let term = if beta == 1.0 {
                c[p]
            } else {
                T::from_f64(beta * c[p].to_f64())
            };
            *y = Real::add(*y, term);
        }
    }
    Ok(y)
}

fn gemm(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (a, b) = (tensor(inputs, 0)?, tensor(inputs, 1)?);
    let c = tensor_opt(inputs, 2)?;
    if ctx.since < 11 && c.is_none() {
        return Err("C is required before version 11".to_string());
    }
    let trans_a = ctx.int("transA", 0) != 0;
    let trans_b = ctx.int("transB", 0) != 0;
    let alpha = f64::from(ctx.float("alpha", 1.0));
    let beta = f64::from(ctx.float("beta", 1.0));
    // Before version 7, C broadcasts only when `broadcast` says so.
    let legacy_broadcast = ctx.since >= 7 || ctx.int("broadcast", 0) != 0;
    for (name, t) in [("B", Some(b)), ("C", c)] {
        if let Some(t) = t
            && t.dtype != a.dtype
        {
            return Err(format!(
                "A is {} and {name} is {}",
                a.type_name(),
                t.type_name()
            ));
        }
    }
    macro_rules! run {
        ($x:expr, $y:expr, $z:expr) => {
            gemm_arrays(
                ctx,
                $x,
                $y,
                $z,
                trans_a,
                trans_b,
                alpha,
                beta,
                legacy_broadcast,
            )?
        };
    }
    let c_data = c.map(|c| &c.data);
    let data = match (&a.data, &b.data, c_data) {
        (Data::F32(x), Data::F32(y), None) => Data::F32(run!(x, y, None)),
        (Data::F32(x), Data::F32(y), Some(Data::F32(z))) => Data::F32(run!(x, y, Some(z))),
        (Data::F64(x), Data::F64(y), None) => Data::F64(run!(x, y, None)),
        (Data::F64(x), Data::F64(y), Some(Data::F64(z))) => Data::F64(run!(x, y, Some(z))),
        (Data::I32(x), Data::I32(y), None) => Data::I32(run!(x, y, None)),
        (Data::I32(x), Data::I32(y), Some(Data::I32(z))) => Data::I32(run!(x, y, Some(z))),
        (Data::I64(x), Data::I64(y), None) => Data::I64(run!(x, y, None)),
        (Data::I64(x), Data::I64(y), Some(Data::I64(z))) => Data::I64(run!(x, y, Some(z))),
        (Data::U32(x), Data::U32(y), None) => Data::U32(run!(x, y, None)),
        (Data::U32(x), Data::U32(y), Some(Data::U32(z))) => Data::U32(run!(x, y, Some(z))),
        (Data::U64(x), Data::U64(y), None) => Data::U64(run!(x, y, None)),
        (Data::U64(x), Data::U64(y), Some(Data::U64(z))) => Data::U64(run!(x, y, Some(z))),
        // The half types accumulate in f32 and round once.
        (Data::F16(_) | Data::BF16(_), _, _) => {
            let wide = |t: &Tensor| super::floats::widen(t);
            let (x, y) = (wide(a)?, wide(b)?);
            let z = c.map(wide).transpose()?;
            let result = match (x, y, z) {
                (super::floats::Wide::F32(x), super::floats::Wide::F32(y), None) => {
                    run!(&x, &y, None)
                }
                (
                    super::floats::Wide::F32(x),
                    super::floats::Wide::F32(y),
                    Some(super::floats::Wide::F32(z)),
                ) => {
                    run!(&x, &y, Some(&z))
                }
                _ => return Err("operands of different element types".to_string()),
            };
            match a.data {
                Data::F16(_) => Data::F16(result.map_each(&f16::from_f32)),
                _ => Data::BF16(result.map_each(&bf16::from_f32)),
            }
        }
        _ => return Err(format!("Gemm of {}", a.type_name())),
    };
    one(a.with_data(data))
}

#[cfg(test)]
mod tests {
    use onnx_value::Value;

    fn gemm(opset: i64, attributes: &str, with_c: bool) -> Result<Vec<f32>, crate::Error> {
        let (c_decl, c_arg) = if with_c {
            (", float[2] c", ", c")
        } else {
            ("", "")
        };
        let text = format!(
            r#"<ir_version: 3, opset_import: ["" : {opset}]>
            g (float[2, 2] a, float[2, 2] b{c_decl}) => (float[2, 2] y) {{
                y = Gemm <{attributes}> (a, b{c_arg})
            }}"#
        );
        let model = onnx_text::parse_model(&text).unwrap();
        let mut inputs = vec![
            Value::tensor(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap(),
            Value::tensor(&[1.0f32, 0.0, 0.0, 1.0], &[2, 2]).unwrap(),
        ];
        if with_c {
            inputs.push(Value::tensor(&[10.0f32, 20.0], &[2]).unwrap());
        }
        crate::run(&model, &inputs).map(|y| y[0].to_vec::<f32>().unwrap())
    }

    /// Gemm-6 broadcasts C only with `broadcast` set; Gemm before 11 requires C. Expected
    /// values by hand: 2 * A * I + 0.5 * [10, 20] per row.
    #[test]
    fn gemm_before_7_broadcasts_c_only_when_asked() {
        assert_eq!(
            gemm(6, "alpha = 2.0, beta = 0.5, broadcast = 1", true).unwrap(),
            [7.0, 14.0, 11.0, 18.0]
        );
        assert!(gemm(6, "alpha = 2.0, beta = 0.5", true).is_err());
        assert_eq!(
            gemm(7, "alpha = 2.0, beta = 0.5", true).unwrap(),
            [7.0, 14.0, 11.0, 18.0]
        );
    }

    #[test]
    fn gemm_c_is_optional_from_11() {
        assert!(gemm(9, "transB = 1", false).is_err());
        assert_eq!(gemm(11, "transA = 1", false).unwrap(), [1.0, 3.0, 2.0, 4.0]);
    }
}
