//! Reductions over axes: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1,
//! ReduceL2, ReduceLogSum, ReduceLogSumExp, ReduceSumSquare, and the index-giving ArgMax and
//! ArgMin.
//!
//! The axes are an attribute before version 13 (ReduceSum) or 18 (the others), an optional
//! operand from then on, where `noop_with_empty_axes` makes an empty list return the input.
//! A reduction over an empty set gives the operation's identity (0 for sums, 1 for products,
//! -inf or the type's least value for ReduceMax, and so on).

use super::layout::permuted_positions;
use super::wide::{narrow, widen};
use super::{Ctx, Registry, axis, one, tensor, tensor_opt};
use crate::error::KernelResult;
use crate::tensor::{Data, Tensor, array, elements_at, map_slice, row_major};
use crate::value::Val;
use ndarray::{ArrayD, IxDyn};

pub(super) fn register(r: &mut Registry) {
    // One kernel per operator: the versions differ in where the axes come from (read from
    // `ctx.since`) and in the element types they allow.
    r.add("", "ReduceSum", 1, reduce);
    for op in [
        "ReduceMean",
        "ReduceMax",
        "ReduceMin",
        "ReduceProd",
        "ReduceL1",
        "ReduceL2",
        "ReduceLogSum",
        "ReduceLogSumExp",
        "ReduceSumSquare",
    ] {
        r.add("", op, 1, reduce);
    }
    r.add("", "ArgMax", 1, arg_extreme);
    r.add("", "ArgMin", 1, arg_extreme);
}

/// What a reduction computes of each set of elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reduction {
    Sum,
    Mean,
    Max,
    Min,
    Prod,
    L1,
    L2,
    LogSum,
    LogSumExp,
    SumSquare,
}

impl Reduction {
    fn of(op_type: &str) -> KernelResult<Reduction> {
        Ok(match op_type {
            "ReduceSum" => Reduction::Sum,
            "ReduceMean" => Reduction::Mean,
            "ReduceMax" => Reduction::Max,
            "ReduceMin" => Reduction::Min,
            "ReduceProd" => Reduction::Prod,
            "ReduceL1" => Reduction::L1,
            "ReduceL2" => Reduction::L2,
            "ReduceLogSum" => Reduction::LogSum,
            "ReduceLogSumExp" => Reduction::LogSumExp,
            "ReduceSumSquare" => Reduction::SumSquare,
            other => return Err(format!("{other} is no reduction")),
        })
    }

    /// The reduction of a set of reals (NaN propagates through Max and Min, as in numpy).
    fn of_floats(self, values: &[f64]) -> f64 {
        let sum = |f: fn(f64) -> f64| values.iter().map(|&x| f(x)).sum::<f64>();
        match self {
            Reduction::Sum => sum(|x| x),
            Reduction::Mean => sum(|x| x) / values.len() as f64,
            Reduction::Max => values.iter().fold(f64::NEG_INFINITY, |m, &x| {
                if x.is_nan() || m.is_nan() {
                    f64::NAN
                } else {
                    m.max(x)
                }
            }),
            Reduction::Min => values.iter().fold(f64::INFINITY, |m, &x| {
                if x.is_nan() || m.is_nan() {
                    f64::NAN
                } else {
                    m.min(x)
                }
            }),
            Reduction::Prod => values.iter().product(),
            Reduction::L1 => sum(f64::abs),
            Reduction::L2 => sum(|x| x * x).sqrt(),
            Reduction::LogSum => sum(|x| x).ln(),
            Reduction::LogSumExp => log_sum_exp(values),
            Reduction::SumSquare => sum(|x| x * x),
        }
    }

    /// The reduction of a set of integers, exact where it can be (sums and products wrap as
    /// numpy's do); the others go through f64 and truncate back, as numpy's `astype` does.
    fn of_integers<T: super::elementwise::Real>(self, values: &[T]) -> T {
        let zero = T::default();
        let abs = |x: T| if x < zero { zero.sub(x) } else { x };
        match self {
            Reduction::Sum => fold(values, zero, &|s, x| s.add(x)),
            Reduction::Prod => fold(values, T::from_f64(1.0), &|p, x| p.mul(x)),
            Reduction::Max => fold(values, T::from_f64(f64::NEG_INFINITY), &|m, x| {
                if x > m { x } else { m }
            }),
            Reduction::Min => fold(values, T::from_f64(f64::INFINITY), &|m, x| {
                if x < m { x } else { m }
            }),
            Reduction::L1 => fold(values, zero, &|s, x| s.add(abs(x))),
            Reduction::SumSquare => fold(values, zero, &|s, x| s.add(x.mul(x))),
            _ => T::from_f64(self.of_floats(&map_slice(values, &|x: T| x.to_f64()))),
        }
    }
}

/// `step` folded over `values` from `init`: a loop over a function behind a reference, one small
/// copy per element type where each `Iterator::fold` closure compiles its own chain.
fn fold<T: Copy>(values: &[T], init: T, step: &dyn Fn(T, T) -> T) -> T {
    let mut acc = init;
    for &x in values {
        acc = step(acc, x);
    }
    acc
}

/// log(sum(exp(x))), shifted by the largest element so that exp does not overflow.
fn log_sum_exp(values: &[f64]) -> f64 {
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !max.is_finite() {
        // Empty or all -inf gives -inf; an inf gives inf; NaN stays NaN.
        return values.iter().sum::<f64>().ln().max(max);
    }
    max + values.iter().map(|&x| (x - max).exp()).sum::<f64>().ln()
}

/// Which axes of a rank-`rank` tensor a list of axes names (negative ones count from the end);
/// a repeated axis is an error.
pub(crate) fn reduced_axes(axes: &[i64], rank: usize) -> KernelResult<Vec<bool>> {
    let mut reduced = vec![false; rank];
    for &a in axes {
        let resolved = axis(a, rank)?;
        if rank == 0 {
            // A scalar has no axis to reduce; axis 0 (or -1) names the empty set of them.
            continue;
        }
        if std::mem::replace(&mut reduced[resolved], true) {
            return Err(format!("axes {axes:?} name axis {resolved} twice"));
        }
    }
    Ok(reduced)
}

/// The shape a reduction gives: the reduced axes become 1 (`keep_dims`) or go.
pub(crate) fn reduced_shape(shape: &[usize], reduced: &[bool], keep_dims: bool) -> Vec<usize> {
    shape
        .iter()
        .zip(reduced)
        .filter_map(|(&d, &r)| match (r, keep_dims) {
            (false, _) => Some(d),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect()
}

/// `f` of each set of elements that share their coordinates on the kept axes, in the order of
/// those coordinates, shaped as [`reduced_shape`] says; the sets are in row-major order of the
/// reduced axes.
pub(crate) fn reduce_sets<T: Clone, U>(
    ctx: &Ctx<'_>,
    a: &ArrayD<T>,
    reduced: &[bool],
    keep_dims: bool,
    f: &dyn Fn(&[T]) -> U,
) -> KernelResult<ArrayD<U>> {
    let out_shape = reduced_shape(a.shape(), reduced, keep_dims);
    let sets = ctx.checked_count(&out_shape)?;
    let (positions, set_size) = sets_layout(a.shape(), reduced)?;
    let values = elements_at(&row_major(a), &positions);
    let mut results = Vec::with_capacity(sets);
    if set_size == 0 {
        for _ in 0..sets {
            results.push(f(&[]));
        }
    } else {
        for set in values.chunks_exact(set_size) {
            results.push(f(set));
        }
    }
    array(&out_shape, results)
}

/// [`reduce_sets`]'s reading of the input: the row-major positions of its elements with the
/// kept axes first and the reduced ones last (each set is then a contiguous run), and the count
/// of elements in a set.
fn sets_layout(shape: &[usize], reduced: &[bool]) -> KernelResult<(Vec<usize>, usize)> {
    let order: Vec<usize> = (0..shape.len())
        .filter(|&i| !reduced[i])
        .chain((0..shape.len()).filter(|&i| reduced[i]))
        .collect();
    let set_size: usize = (0..shape.len())
        .filter(|&i| reduced[i])
        .map(|i| shape[i])
        .product();
    Ok((permuted_positions(shape, &order)?, set_size))
}

/// The axes of a reduction node: `None` when the input is to be returned unchanged
/// (`noop_with_empty_axes` and no axes), else the list (empty for all axes).
fn reduction_axes(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Option<Vec<i64>>> {
    let operand_version = if ctx.op_type == "ReduceSum" { 13 } else { 18 };
    if ctx.since < operand_version {
        return Ok(Some(ctx.ints("axes").unwrap_or_default().to_vec()));
    }
    let axes = match tensor_opt(inputs, 1)? {
        Some(t) => t.to_i64_vec()?,
        None => Vec::new(),
    };
    if axes.is_empty() && ctx.int("noop_with_empty_axes", 0) != 0 {
        return Ok(None);
    }
    Ok(Some(axes))
}

/// Every Reduce* operator, told apart by `ctx.op_type`.
fn reduce(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let reduction = Reduction::of(ctx.op_type)?;
    let data = tensor(inputs, 0)?;
    let Some(axes) = reduction_axes(ctx, inputs)? else {
        return one(data.clone());
    };
    let reduced = if axes.is_empty() {
        vec![true; data.rank()]
    } else {
        reduced_axes(&axes, data.rank())?
    };
    let keep_dims = ctx.int("keepdims", 1) != 0;
    // The integer variants, each reduced exactly in its own type.
    macro_rules! integers {
        ($($variant:ident),*) => {
            match &data.data {
                $(Data::$variant(a) => Some(Data::$variant(reduce_sets(ctx, a, &reduced, keep_dims, &|v| {
                    reduction.of_integers(v)
                })?)),)*
                _ => None,
            }
        };
    }
    if let Some(out) = integers!(I8, I16, I32, I64, U8, U16, U32, U64) {
        return one(data.with_data(out));
    }
    let data_out = match &data.data {
        Data::F32(_) | Data::F64(_) | Data::F16(_) | Data::BF16(_) => {
            let wide = widen(data)?;
            let out = reduce_sets(ctx, &wide, &reduced, keep_dims, &|v| reduction.of_floats(v))?;
            return one(narrow(data.dtype, out)?);
        }
        Data::Bool(a) if matches!(reduction, Reduction::Max | Reduction::Min) => {
            // False < True: the max is "any", the min is "all" (true over the empty set).
            let max = reduction == Reduction::Max;
            Data::Bool(reduce_sets(ctx, a, &reduced, keep_dims, &|v| {
                if max {
                    v.iter().any(|&b| b)
                } else {
                    v.iter().all(|&b| b)
                }
            })?)
        }
        _ => {
            return Err(format!(
                "{} of a tensor of {}",
                ctx.op_type,
                data.type_name()
            ));
        }
    };
    one(data.with_data(data_out))
}

/// The index of the greatest (`want_max`) or least element, the first of equals unless `last`;
/// NaN counts as the extreme either way, as in numpy.
pub(crate) fn extreme_index<T: PartialOrd>(values: &[T], want_max: bool, last: bool) -> i64 {
    let is_nan = |x: &T| x.partial_cmp(x).is_none();
    let mut best = 0;
    for (i, candidate) in values.iter().enumerate().skip(1) {
        let current = &values[best];
        let better = if is_nan(current) {
            last && is_nan(candidate)
        } else if is_nan(candidate) {
            true
        } else if want_max {
            candidate > current || (last && candidate == current)
        } else {
            candidate < current || (last && candidate == current)
        };
        if better {
            best = i;
        }
    }
    best as i64
}

/// ArgMax and ArgMin: int64 indices along `axis`, `select_last_index` from version 12.
fn arg_extreme(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let data = tensor(inputs, 0)?;
    let want_max = ctx.op_type == "ArgMax";
    let last = ctx.int("select_last_index", 0) != 0;
    let keep_dims = ctx.int("keepdims", 1) != 0;
    let rank = data.rank();
    let along = axis(ctx.int("axis", 0), rank)?;
    if rank == 0 || data.shape()[along] == 0 {
        return Err(format!(
            "{} along an empty axis of shape {:?}",
            ctx.op_type,
            data.shape()
        ));
    }
    let mut reduced = vec![false; rank];
    reduced[along] = true;
    let index = |values: &[f64]| extreme_index(values, want_max, last);
    let out = match &data.data {
        Data::F32(_) | Data::F64(_) | Data::F16(_) | Data::BF16(_) => {
            reduce_sets(ctx, &widen(data)?, &reduced, keep_dims, &index)?
        }
        Data::I64(a) => reduce_sets(ctx, a, &reduced, keep_dims, &|v| {
            extreme_index(v, want_max, last)
        })?,
        Data::U64(a) => reduce_sets(ctx, a, &reduced, keep_dims, &|v| {
            extreme_index(v, want_max, last)
        })?,
        _ => {
            // The narrower integers are exact in f64.
            let wide = ArrayD::from_shape_vec(IxDyn(data.shape()), data.to_f64_vec()?)
                .map_err(|e| e.to_string())?;
            reduce_sets(ctx, &wide, &reduced, keep_dims, &index)?
        }
    };
    one(Tensor::from_data(Data::I64(out)))
}

#[cfg(test)]
mod tests {
    use crate::Value;

    /// Runs a one-input model on `x` and gives its first output's elements.
    fn run(model: &str, inputs: &[Value]) -> Vec<f32> {
        let model = onnx_text::parse_model(model).unwrap();
        crate::run(&model, inputs).unwrap()[0]
            .to_vec::<f32>()
            .unwrap()
    }

    /// Before version 13 (ReduceSum) or 18 (the others) the axes are an attribute: every
    /// reduction of [[1, 2], [3, 4]] along axis 1, expected values by hand.
    #[test]
    fn reductions_read_their_axes_attribute_before_the_operand_versions() {
        let e = std::f32::consts::E;
        let cases: [(&str, [f32; 2]); 10] = [
            ("ReduceSum", [3.0, 7.0]),
            ("ReduceMean", [1.5, 3.5]),
            ("ReduceMax", [2.0, 4.0]),
            ("ReduceMin", [1.0, 3.0]),
            ("ReduceProd", [2.0, 12.0]),
            ("ReduceL1", [3.0, 7.0]),
            ("ReduceL2", [5.0f32.sqrt(), 5.0]),
            ("ReduceLogSum", [3.0f32.ln(), 7.0f32.ln()]),
            (
                "ReduceLogSumExp",
                [(e + e * e).ln(), (e.powi(3) + e.powi(4)).ln()],
            ),
            ("ReduceSumSquare", [5.0, 25.0]),
        ];
        for (op, want) in cases {
            let model = format!(
                r#"<ir_version: 7, opset_import: ["" : 11]>
                g (float[2, 2] x) => (float[2] y) {{ y = {op} <axes = [1], keepdims = 0> (x) }}"#
            );
            let x = Value::tensor(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
            let got = run(&model, &[x]);
            assert!(
                got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-5),
                "{op}: {got:?} against {want:?}"
            );
        }
    }

    /// ReduceMean-13 still takes its axes as an attribute, and keeps the reduced axis by
    /// default; ReduceSum-13 takes them as an operand (by hand).
    #[test]
    fn reduce_mean_13_and_reduce_sum_13_take_their_axes_differently() {
        let x = || Value::tensor(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
        let mean = r#"<ir_version: 7, opset_import: ["" : 13]>
            g (float[2, 2] x) => (float[1, 2] y) { y = ReduceMean <axes = [0]> (x) }"#;
        assert_eq!(run(mean, &[x()]), [2.0, 3.0]);
        let sum = r#"<ir_version: 7, opset_import: ["" : 13]>
            g (float[2, 2] x, int64[1] axes) => (float[1, 2] y) { y = ReduceSum (x, axes) }"#;
        let axes = Value::tensor(&[0i64], &[1]).unwrap();
        assert_eq!(run(sum, &[x(), axes]), [4.0, 6.0]);
    }

    /// Bad operands are errors, not panics: a repeated axis, an ArgMax along an empty axis.
    #[test]
    fn bad_axes_are_errors() {
        let repeated = onnx_text::parse_model(
            r#"<ir_version: 7, opset_import: ["" : 18]>
            g (float[2, 2] x, int64[2] axes) => (float[?] y) { y = ReduceMax (x, axes) }"#,
        )
        .unwrap();
        let x = Value::tensor(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
        let axes = Value::tensor(&[0i64, -2], &[2]).unwrap();
        let error = crate::run(&repeated, &[x, axes]).unwrap_err().to_string();
        assert!(error.contains("twice"), "{error}");
        let empty = onnx_text::parse_model(
            r#"<ir_version: 7, opset_import: ["" : 13]>
            g (float[2, 0] x) => (int64[?] y) { y = ArgMax <axis = 1> (x) }"#,
        )
        .unwrap();
        let x = Value::tensor::<f32>(&[], &[2, 0]).unwrap();
        let error = crate::run(&empty, &[x]).unwrap_err().to_string();
        assert!(error.contains("empty axis"), "{error}");
    }
}
