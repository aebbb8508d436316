//! Operators that make or move elements without computing on them: Concat, ConstantOfShape,
//! Reshape, Shape, Size, Transpose, Where.

use super::elementwise::{broadcast_positions, broadcast_shape};
use super::layout::{permuted, reshaped};
use super::{Ctx, Registry, axis, one, tensor};
use crate::error::KernelResult;
use crate::tensor::{Data, Tensor, array, map_data, row_major, zip_data};
use crate::value::Val;
use ndarray::{ArrayD, IxDyn};

pub(super) fn register(r: &mut Registry) {
    r.add("", "Concat", 1, concat_kernel);
    r.add("", "Concat", 4, concat_kernel);
    r.add("", "Reshape", 1, reshape);
    r.add("", "Reshape", 5, reshape);
    r.add("", "Reshape", 14, reshape);
    r.add("", "Shape", 1, shape);
    r.add("", "Shape", 15, shape);
    r.add("", "Transpose", 1, transpose);
    r.add("", "ConstantOfShape", 9, constant_of_shape);
    r.add("", "Size", 1, size);
    r.add("", "Where", 9, where_);
}

/// ConstantOfShape: the shape operand, every element the `value` attribute's one element
/// (a float 0 by default).
fn constant_of_shape(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let dims = tensor(inputs, 0)?.to_i64_vec()?;
    if let Some(d) = dims.iter().find(|&&d| d < 0) {
        return Err(format!("shape {dims:?} has a negative dim {d}"));
    }
    let shape: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
    ctx.checked_count(&shape)?;
    let value = match ctx.tensor("value")? {
        Some(value) if value.len() == 1 => value,
        Some(value) => return Err(format!("`value` holds {} elements, not one", value.len())),
        None => Tensor::from_data(Data::F32(ArrayD::zeros(IxDyn(&[])))),
    };
    one(value.with_data(map_data!(&value.data, a => {
        let element = a.first().cloned().expect("one element");
        ArrayD::from_elem(IxDyn(&shape), element)
    })))
}

fn size(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(Tensor::scalar_i64(tensor(inputs, 0)?.len() as i64))
}

/// Where: X where the condition holds, else Y, all three broadcast.
fn where_(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (condition, x, y) = (tensor(inputs, 0)?, tensor(inputs, 1)?, tensor(inputs, 2)?);
    let Data::Bool(condition) = &condition.data else {
        return Err(format!(
            "the condition is {}, not bool",
            condition.type_name()
        ));
    };
    let data = zip_data!(&x.data, &y.data, (a, b) => select(condition, a, b)?)
        .ok_or_else(|| format!("X is {} and Y is {}", x.type_name(), y.type_name()))?;
    one(x.with_data(data))
}

fn select<T: Clone>(
    condition: &ArrayD<bool>,
    x: &ArrayD<T>,
    y: &ArrayD<T>,
) -> KernelResult<ArrayD<T>> {
    let (shape, [from_c, from_x, from_y]) =
        select_positions(condition.shape(), x.shape(), y.shape())?;
    let (c, x, y) = (row_major(condition), row_major(x), row_major(y));
    let mut values = Vec::with_capacity(from_c.len());
    for ((&i, &j), &k) in from_c.iter().zip(&from_x).zip(&from_y) {
        values.push(if c[i] { x[j].clone() } else { y[k].clone() });
    }
    array(&shape, values)
}

/// Where's broadcast, on the shapes alone: X's and Y's broadcast shape broadcast with the
/// condition's, and for each of its row-major positions the positions in the condition, X and Y.
fn select_positions(
    condition: &[usize],
    x: &[usize],
    y: &[usize],
) -> KernelResult<(Vec<usize>, [Vec<usize>; 3])> {
    let shape = broadcast_shape(condition, &broadcast_shape(x, y)?)?;
    let positions = [
        broadcast_positions(condition, &shape),
        broadcast_positions(x, &shape),
        broadcast_positions(y, &shape),
    ];
    Ok((shape, positions))
}

/// The shape of `shapes` joined along `axis`: one rank, the axis within it, the other dims
/// equal (what a model may break).
fn joined_shape(shapes: &[&[usize]], axis: usize) -> KernelResult<Vec<usize>> {
    let first = shapes.first().ok_or("nothing to concatenate")?;
    let fits = |s: &&[usize]| {
        s.len() == first.len()
            && axis < s.len()
            && (0..s.len()).all(|i| i == axis || s[i] == first[i])
    };
    if !shapes.iter().all(fits) {
        return Err(format!(
            "cannot concatenate shapes {shapes:?} on axis {axis}"
        ));
    }
    let mut shape = first.to_vec();
    shape[axis] = shapes.iter().map(|s| s[axis]).sum();
    Ok(shape)
}

/// Joins arrays of one variant along `axis`.
pub(crate) fn concat(parts: &[Data], axis: usize) -> KernelResult<Data> {
    fn join<T: Clone>(arrays: Vec<&ArrayD<T>>, axis: usize) -> KernelResult<ArrayD<T>> {
        let mut shapes = Vec::with_capacity(arrays.len());
        let mut parts = Vec::with_capacity(arrays.len());
        for a in &arrays {
            shapes.push(a.shape());
            parts.push(row_major(*a));
        }
        let shape = joined_shape(&shapes, axis)?;
        // Row-major: for each index before the axis, each part's block in turn.
        let outer: usize = shape[..axis].iter().product();
        let mut values = Vec::with_capacity(shape.iter().product());
        for o in 0..outer {
            for flat in &parts {
                let block = flat.len() / outer;
                values.extend_from_slice(&flat[o * block..(o + 1) * block]);
            }
        }
        array(&shape, values)
    }
    let first = parts.first().ok_or("nothing to concatenate")?;
    macro_rules! all {
        ($variant:ident) => {{
            let mut arrays = Vec::with_capacity(parts.len());
            for part in parts {
                match part {
                    Data::$variant(a) => arrays.push(a),
                    _ => return Err("inputs of different element types".to_string()),
                }
            }
            Data::$variant(join(arrays, axis)?)
        }};
    }
    Ok(match first {
        Data::F32(_) => all!(F32),
        Data::F64(_) => all!(F64),
        Data::F16(_) => all!(F16),
        Data::BF16(_) => all!(BF16),
        Data::I8(_) => all!(I8),
        Data::I16(_) => all!(I16),
        Data::I32(_) => all!(I32),
        Data::I64(_) => all!(I64),
        Data::U8(_) => all!(U8),
        Data::U16(_) => all!(U16),
        Data::U32(_) => all!(U32),
        Data::U64(_) => all!(U64),
        Data::Bool(_) => all!(Bool),
        Data::Str(_) => all!(Str),
        Data::C64(_) => all!(C64),
        Data::C128(_) => all!(C128),
    })
}

fn concat_kernel(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let tensors: Vec<&Tensor> = (0..inputs.len())
        .map(|i| tensor(inputs, i))
        .collect::<KernelResult<_>>()?;
    let first = tensors.first().ok_or("Concat takes at least one input")?;
    // Concat-1's axis defaults to 1; from version 4 it is required.
    let requested = match ctx.int_opt("axis") {
        Some(axis) => axis,
        None if ctx.since < 4 => 1,
        None => return Err("Concat needs its `axis` attribute".to_string()),
    };
    let axis = axis(requested, first.rank())?;
    let parts: Vec<Data> = tensors.iter().map(|t| t.data.clone()).collect();
    one(first.with_data(concat(&parts, axis)?))
}

/// Reshape: the shape operand (or, before version 5, the `shape` attribute); 0 copies the input's
/// dim (unless `allowzero`), -1 takes what is left.
fn reshape(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let data = tensor(inputs, 0)?;
    let requested: Vec<i64> = if ctx.since < 5 {
        ctx.ints("shape")
            .ok_or("Reshape-1 needs its `shape` attribute")?
            .to_vec()
    } else {
        tensor(inputs, 1)?.to_i64_vec()?
    };
    // `allowzero` is new in version 14.
    let allow_zero = ctx.since >= 14 && ctx.int("allowzero", 0) != 0;
    let shape = resolve_shape(data.shape(), &requested, allow_zero)?;
    one(reshaped(data, &shape)?)
}

/// The output dims of a Reshape of `input` to `requested`.
pub(crate) fn resolve_shape(
    input: &[usize],
    requested: &[i64],
    allow_zero: bool,
) -> KernelResult<Vec<usize>> {
    let count: usize = input.iter().product();
    let mut unknown = None;
    let mut shape = Vec::with_capacity(requested.len());
    for (i, &d) in requested.iter().enumerate() {
        shape.push(match d {
            -1 if unknown.is_none() => {
                unknown = Some(i);
                1
            }
            -1 => return Err(format!("shape {requested:?} has more than one -1")),
            0 if !allow_zero => *input.get(i).ok_or_else(|| {
                format!(
                    "shape {requested:?} copies dim {i} of a rank-{} input",
                    input.len()
                )
            })?,
            d if d < 0 => return Err(format!("shape {requested:?} has a negative dim {d}")),
            d => d as usize,
        });
    }
    let known = shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or_else(|| format!("shape {requested:?} holds more elements than fit in memory"))?;
    if let Some(i) = unknown {
        if known == 0 || !count.is_multiple_of(known) {
            return Err(format!("cannot reshape {input:?} to {requested:?}"));
        }
        shape[i] = count / known;
    } else if known != count {
        return Err(format!(
            "cannot reshape {input:?} ({count} elements) to {requested:?} ({known} elements)"
        ));
    }
    Ok(shape)
}

/// Shape, with `start` and `end` (from version 15), clamped as the spec says.
fn shape(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let dims: Vec<i64> = tensor(inputs, 0)?
        .shape()
        .iter()
        .map(|&d| d as i64)
        .collect();
    let rank = dims.len() as i64;
    let clamp = |v: i64| (if v < 0 { v + rank } else { v }).clamp(0, rank) as usize;
    // `start` and `end` are new in version 15.
    let (start, end) = if ctx.since >= 15 {
        (ctx.int("start", 0), ctx.int("end", rank))
    } else {
        (0, rank)
    };
    let (start, end) = (clamp(start), clamp(end));
    one(Tensor::from_i64s(dims[start..end.max(start)].to_vec()))
}

fn transpose(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let data = tensor(inputs, 0)?;
    let rank = data.rank();
    let perm: Vec<usize> = match ctx.ints("perm") {
        Some(perm) => perm
            .iter()
            .map(|&p| axis(p, rank))
            .collect::<KernelResult<_>>()?,
        None => (0..rank).rev().collect(),
    };
    let mut seen = vec![false; rank];
    if perm.len() != rank || perm.iter().any(|&p| std::mem::replace(&mut seen[p], true)) {
        return Err(format!("perm {perm:?} is no permutation of {rank} axes"));
    }
    one(permuted(data, &perm)?)
}
