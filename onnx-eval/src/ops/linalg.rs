//! Products of matrices, on ndarray's GEMM: MatMul.

use super::elementwise::broadcast_shape;
use super::{Ctx, Registry, one, tensor};
use crate::error::KernelResult;
use crate::tensor::MapEach;
use crate::tensor::{Data, Tensor};
use crate::value::Val;
use ndarray::{Array2, ArrayD, ArrayView2, Axis, IxDyn, LinalgScalar};
use std::num::Wrapping;

pub(super) fn register(r: &mut Registry) {
    r.add("", "MatMul", 1, matmul);
}

/// numpy's matmul: 1-D operands gain an axis (then lose it), leading axes broadcast, and each
/// pair of matrices is multiplied by ndarray's GEMM.
pub(crate) fn matmul_arrays<T: LinalgScalar>(
    ctx: &Ctx<'_>,
    a: &ArrayD<T>,
    b: &ArrayD<T>,
) -> KernelResult<ArrayD<T>> {
    let (a_vector, b_vector) = (a.ndim() == 1, b.ndim() == 1);
    let a = if a_vector {
        a.view().insert_axis(Axis(0))
    } else {
        a.view()
    };
    let b = if b_vector {
        b.view().insert_axis(Axis(1))
    } else {
        b.view()
    };
    if a.ndim() < 2 || b.ndim() < 2 {
        return Err("MatMul of a scalar".to_string());
    }
    let (m, k) = (a.shape()[a.ndim() - 2], a.shape()[a.ndim() - 1]);
    let (k2, n) = (b.shape()[b.ndim() - 2], b.shape()[b.ndim() - 1]);
    if k != k2 {
        return Err(format!(
            "shapes {:?} and {:?} do not multiply: {k} columns against {k2} rows",
            a.shape(),
            b.shape()
        ));
    }
    let batch = broadcast_shape(&a.shape()[..a.ndim() - 2], &b.shape()[..b.ndim() - 2])?;
    let mut full = batch.clone();
    full.extend([m, n]);
    ctx.checked_count(&full)?;
    let a = a
        .broadcast(IxDyn(&[&batch[..], &[m, k]].concat()))
        .ok_or("cannot broadcast A")?;
    let b = b
        .broadcast(IxDyn(&[&batch[..], &[k, n]].concat()))
        .ok_or("cannot broadcast B")?;
    let count: usize = batch.iter().product();
    let a = a
        .to_shape(IxDyn(&[count, m, k]))
        .map_err(|e| e.to_string())?;
    let b = b
        .to_shape(IxDyn(&[count, k, n]))
        .map_err(|e| e.to_string())?;
    let mut out = Vec::with_capacity(count * m * n);
    for i in 0..count {
        let x: ArrayView2<T> = a.index_axis(Axis(0), i).into_dimensionality().expect("2-D");
        let y: ArrayView2<T> = b.index_axis(Axis(0), i).into_dimensionality().expect("2-D");
        let product: Array2<T> = x.dot(&y);
        out.extend(product.iter().copied());
    }
    let mut shape = batch;
    if !a_vector {
        shape.push(m);
    }
    if !b_vector {
        shape.push(n);
    }
    ArrayD::from_shape_vec(IxDyn(&shape), out).map_err(|e| e.to_string())
}

/// The product of integer arrays in wrapping 64-bit arithmetic (no overflow panics; the
/// low bits are those of the exact product).
pub(crate) fn integer_matmul<T: Copy + Into<i128>>(
    ctx: &Ctx<'_>,
    a: &ArrayD<T>,
    b: &ArrayD<T>,
) -> KernelResult<ArrayD<i64>> {
    let wrap = |v: T| Wrapping(v.into() as i64);
    let product = matmul_arrays(ctx, &a.map_each(&wrap), &b.map_each(&wrap))?;
    Ok(product.map_each(&|Wrapping(v)| v))
}

fn matmul(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (a, b) = (tensor(inputs, 0)?, tensor(inputs, 1)?);
    let data = match (&a.data, &b.data) {
        (Data::F32(x), Data::F32(y)) => Data::F32(matmul_arrays(ctx, x, y)?),
        (Data::F64(x), Data::F64(y)) => Data::F64(matmul_arrays(ctx, x, y)?),
        // Integers wrap, as numpy's do: the product is computed modulo 2^64 and truncated.
        (Data::I8(x), Data::I8(y)) => Data::I8(integer_matmul(ctx, x, y)?.map_each(&|v| v as i8)),
        (Data::I16(x), Data::I16(y)) => {
            Data::I16(integer_matmul(ctx, x, y)?.map_each(&|v| v as i16))
        }
        (Data::I32(x), Data::I32(y)) => {
            Data::I32(integer_matmul(ctx, x, y)?.map_each(&|v| v as i32))
        }
        (Data::I64(x), Data::I64(y)) => Data::I64(integer_matmul(ctx, x, y)?),
        (Data::U8(x), Data::U8(y)) => Data::U8(integer_matmul(ctx, x, y)?.map_each(&|v| v as u8)),
        (Data::U16(x), Data::U16(y)) => {
            Data::U16(integer_matmul(ctx, x, y)?.map_each(&|v| v as u16))
        }
        (Data::U32(x), Data::U32(y)) => {
            Data::U32(integer_matmul(ctx, x, y)?.map_each(&|v| v as u32))
        }
        (Data::U64(x), Data::U64(y)) => {
            Data::U64(integer_matmul(ctx, x, y)?.map_each(&|v| v as u64))
        }
        (Data::F16(x), Data::F16(y)) => {
            let wide = matmul_arrays(
                ctx,
                &x.map_each(&|v| v.to_f32()),
                &y.map_each(&|v| v.to_f32()),
            )?;
            Data::F16(wide.map_each(&crate::halves::f16::from_f32))
        }
        (Data::BF16(x), Data::BF16(y)) => {
            let wide = matmul_arrays(
                ctx,
                &x.map_each(&|v| v.to_f32()),
                &y.map_each(&|v| v.to_f32()),
            )?;
            Data::BF16(wide.map_each(&crate::halves::bf16::from_f32))
        }
        _ => {
            return Err(format!("MatMul of {} and {}", a.type_name(), b.type_name()));
        }
    };
    one(Tensor::from_data(data))
}
