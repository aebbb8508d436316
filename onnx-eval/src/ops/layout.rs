//! Operators that move elements into a new layout without computing on them: Slice, Squeeze,
//! Unsqueeze, Flatten, Expand, Tile, Split, Pad, CenterCropPad, DepthToSpace, SpaceToDepth,
//! ReverseSequence, Trilu, EyeLike and Range.
//!
//! Most build their output by picking, for each output element, the flat (row-major) position of
//! the input element it copies ([`pick`]), which every element type shares.

use super::elementwise::{Real, broadcast_positions, broadcast_shape};
use super::{Ctx, Registry, axis, one, tensor, tensor_opt};
use crate::error::KernelResult;
use crate::tensor::{Data, Tensor, array, map_data, map_slice, reshape_array, row_major, zip_data};
use crate::value::Val;
use ndarray::{ArrayD, IxDyn};
use onnx_runtime_types::tensor_proto::DataType;

pub(super) fn register(r: &mut Registry) {
    r.add("", "Slice", 1, slice);
    r.add("", "Slice", 10, slice);
    for since in [1, 11, 13] {
        r.add("", "Squeeze", since, squeeze);
        r.add("", "Unsqueeze", since, unsqueeze);
    }
    r.add("", "Flatten", 1, flatten);
    r.add("", "Flatten", 11, flatten);
    r.add("", "Expand", 8, expand);
    r.add("", "Tile", 1, tile_v1);
    r.add("", "Tile", 6, tile);
    for since in [1, 2, 11, 13, 18] {
        r.add("", "Split", since, split);
    }
    for since in [1, 2, 11, 18, 19] {
        r.add("", "Pad", since, pad);
    }
    r.add("", "CenterCropPad", 18, center_crop_pad);
    r.add("", "DepthToSpace", 1, depth_to_space);
    r.add("", "DepthToSpace", 11, depth_to_space);
    r.add("", "SpaceToDepth", 1, space_to_depth);
    r.add("", "SpaceToDepth", 28, space_to_depth);
    r.add("", "ReverseSequence", 10, reverse_sequence);
    r.add("", "Trilu", 14, trilu);
    r.add("", "EyeLike", 9, eye_like);
    r.add("", "Range", 11, range);
    r.add("", "Range", 27, range);
}

/// The position that stands for "the fill value" in a list of picks.
pub(super) const FILL: usize = usize::MAX;

/// Row-major strides of `shape`.
pub(super) fn strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * shape[i + 1];
    }
    strides
}

/// The flat position of a multi-index under `strides`.
pub(super) fn offset(index: &[usize], strides: &[usize]) -> usize {
    index.iter().zip(strides).map(|(i, s)| i * s).sum()
}

/// Calls `f` with every multi-index of `shape`, in row-major order.
pub(super) fn each_index(
    shape: &[usize],
    f: &mut dyn FnMut(&[usize]) -> KernelResult<()>,
) -> KernelResult<()> {
    if shape.contains(&0) {
        return Ok(());
    }
    let mut index = vec![0; shape.len()];
    loop {
        f(&index)?;
        // The odometer: bump the last digit, carrying leftward.
        let mut i = shape.len();
        loop {
            if i == 0 {
                return Ok(());
            }
            i -= 1;
            index[i] += 1;
            if index[i] < shape[i] {
                break;
            }
            index[i] = 0;
        }
    }
}

/// For every multi-index of `shape` in row-major order, the flat input position `f` gives.
pub(super) fn picks_of(
    shape: &[usize],
    mut f: impl FnMut(&[usize]) -> KernelResult<usize>,
) -> KernelResult<Vec<usize>> {
    let mut picks = Vec::with_capacity(shape.iter().product());
    each_index(shape, &mut |index| {
        picks.push(f(index)?);
        Ok(())
    })?;
    Ok(picks)
}

/// For each row-major position of `shape` with its axes permuted (axis `i` of the result being
/// axis `perm[i]`), the row-major position in `shape` of the element there.
pub(super) fn permuted_positions(shape: &[usize], perm: &[usize]) -> KernelResult<Vec<usize>> {
    let in_strides = strides(shape);
    let out: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
    let permuted_strides: Vec<usize> = perm.iter().map(|&p| in_strides[p]).collect();
    picks_of(&out, |index| Ok(offset(index, &permuted_strides)))
}

/// The tensor with its axes permuted: axis `i` of the result is axis `perm[i]` of `t`.
pub(super) fn permuted(t: &Tensor, perm: &[usize]) -> KernelResult<Tensor> {
    let out: Vec<usize> = perm.iter().map(|&p| t.shape()[p]).collect();
    let picks = permuted_positions(t.shape(), perm)?;
    Ok(t.with_data(pick(&t.data, &out, &picks, None)?))
}

fn pick_array<T: Clone + Default>(
    a: &ArrayD<T>,
    shape: &[usize],
    picks: &[usize],
    fill: Option<&T>,
) -> KernelResult<ArrayD<T>> {
    let flat = row_major(a);
    let fill = fill.cloned().unwrap_or_default();
    let mut values = Vec::with_capacity(picks.len());
    for &p in picks {
        values.push(flat.get(p).unwrap_or(&fill).clone());
    }
    array(shape, values)
}

/// An array of `shape` whose elements are those of `data` at the flat positions `picks`; a
/// position past the end ([`FILL`]) takes `fill`'s first element (of the same variant), or the
/// type's zero.
pub(super) fn pick(
    data: &Data,
    shape: &[usize],
    picks: &[usize],
    fill: Option<&Data>,
) -> KernelResult<Data> {
    match fill {
        None => Ok(map_data!(data, a => pick_array(a, shape, picks, None)?)),
        Some(fill) => zip_data!(data, fill, (a, f) => pick_array(a, shape, picks, f.first())?)
            .ok_or_else(|| "the fill value is of another element type".to_string()),
    }
}

/// The tensor with the same elements in another shape of the same count.
pub(super) fn reshaped(t: &Tensor, shape: &[usize]) -> KernelResult<Tensor> {
    Ok(t.with_data(map_data!(&t.data, a => reshape_array(a, shape)
        .map_err(|e| format!("cannot reshape {:?} to {shape:?}: {e}", a.shape()))?)))
}

/// The elements of `t` from `start` to `end` along axis `at` (the axis kept), picked by position.
pub(super) fn axis_range(t: &Tensor, at: usize, start: usize, end: usize) -> KernelResult<Tensor> {
    let mut out = t.shape().to_vec();
    out[at] = end - start;
    let picks = axis_range_positions(t.shape(), at, start, end - start)?;
    Ok(t.with_data(pick(&t.data, &out, &picks, None)?))
}

/// For each row-major position of `shape` with axis `at` cut to `len` elements from `start`, the
/// row-major position in `shape` of the element there.
pub(super) fn axis_range_positions(
    shape: &[usize],
    at: usize,
    start: usize,
    len: usize,
) -> KernelResult<Vec<usize>> {
    let mut out = shape.to_vec();
    out[at] = len;
    let in_strides = strides(shape);
    picks_of(&out, |index| {
        Ok(offset(index, &in_strides) + start * in_strides[at])
    })
}

/// The tensor with a new axis of one element at `at`.
pub(super) fn with_new_axis(t: &Tensor, at: usize) -> KernelResult<Tensor> {
    let mut shape = t.shape().to_vec();
    shape.insert(at, 1);
    reshaped(t, &shape)
}

/// The tensor without its axis `at` (of one element).
pub(super) fn without_axis(t: &Tensor, at: usize) -> KernelResult<Tensor> {
    let mut shape = t.shape().to_vec();
    shape.remove(at);
    reshaped(t, &shape)
}

/// Dims from integers that must not be negative.
pub(super) fn dims_of(values: &[i64], what: &str) -> KernelResult<Vec<usize>> {
    values
        .iter()
        .map(|&d| usize::try_from(d).map_err(|_| format!("{what} {values:?} has a negative dim")))
        .collect()
}

/// Resolves axes against `rank`, refusing repeats.
pub(super) fn distinct_axes(axes: &[i64], rank: usize) -> KernelResult<Vec<usize>> {
    let mut resolved = Vec::with_capacity(axes.len());
    for &a in axes {
        let a = axis(a, rank)?;
        if resolved.contains(&a) {
            return Err(format!("axes {axes:?} repeat an axis"));
        }
        resolved.push(a);
    }
    Ok(resolved)
}

/// An integer list that comes as an attribute before version `operand_since` and as the operand
/// `index` from it on (optional in both forms).
fn ints_attr_or_operand(
    ctx: &Ctx<'_>,
    inputs: &[Option<&Val>],
    name: &str,
    index: usize,
    operand_since: i64,
) -> KernelResult<Option<Vec<i64>>> {
    if ctx.since < operand_since {
        Ok(ctx.ints(name).map(<[i64]>::to_vec))
    } else {
        tensor_opt(inputs, index)?
            .map(Tensor::to_i64_vec)
            .transpose()
    }
}

/// One axis of a slice: where it starts, its step and how many elements it takes.
#[derive(Clone, Copy)]
struct Stride {
    start: i64,
    step: i64,
    len: usize,
}

/// Resolves `start`, `end` and `step` on a dim of `dim` elements: negatives count from the end,
/// then both are clamped to [0, dim] for a positive step and [-1, dim - 1] (start to [0, dim - 1])
/// for a negative one.
fn resolve_slice(start: i64, end: i64, step: i64, dim: usize) -> Stride {
    let dim = dim as i64;
    // So that -step cannot overflow.
    let step = step.max(-i64::MAX);
    let from_end = |v: i64| if v < 0 { v.saturating_add(dim) } else { v };
    let (start, end) = (from_end(start), from_end(end));
    let (start, len) = if step > 0 {
        let start = start.clamp(0, dim);
        let end = end.clamp(0, dim);
        (start, ceil_div((end - start).max(0), step))
    } else {
        let start = start.clamp(0, (dim - 1).max(0));
        let end = end.clamp(-1, dim - 1);
        let len = if dim == 0 {
            0
        } else {
            ceil_div((start - end).max(0), -step)
        };
        (start, len)
    };
    Stride {
        start,
        step,
        len: len as usize,
    }
}

/// `n / d` rounded up, for `n >= 0` and `d > 0`.
fn ceil_div(n: i64, d: i64) -> i64 {
    n / d + i64::from(n % d != 0)
}

/// Slice: starts, ends and axes as attributes before version 10; from it, as operands with
/// steps.
fn slice(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let data = tensor(inputs, 0)?;
    let shape = data.shape();
    let (starts, ends, axes, steps) = if ctx.since < 10 {
        let starts = ctx.ints("starts").ok_or("Slice-1 needs `starts`")?.to_vec();
        let ends = ctx.ints("ends").ok_or("Slice-1 needs `ends`")?.to_vec();
        (starts, ends, ctx.ints("axes").map(<[i64]>::to_vec), None)
    } else {
        let operand = |i: usize| tensor_opt(inputs, i)?.map(Tensor::to_i64_vec).transpose();
        (
            tensor(inputs, 1)?.to_i64_vec()?,
            tensor(inputs, 2)?.to_i64_vec()?,
            operand(3)?,
            operand(4)?,
        )
    };
    let axes = axes.unwrap_or_else(|| (0..starts.len() as i64).collect());
    let steps = steps.unwrap_or_else(|| vec![1; starts.len()]);
    if ends.len() != starts.len() || axes.len() != starts.len() || steps.len() != starts.len() {
        return Err(format!(
            "starts, ends, axes and steps have different lengths ({}, {}, {}, {})",
            starts.len(),
            ends.len(),
            axes.len(),
            steps.len()
        ));
    }
    let axes = distinct_axes(&axes, shape.len())?;
    let mut strides_by_axis: Vec<Stride> = shape
        .iter()
        .map(|&d| Stride {
            start: 0,
            step: 1,
            len: d,
        })
        .collect();
    for (i, &a) in axes.iter().enumerate() {
        if steps[i] == 0 {
            return Err("a step of 0".to_string());
        }
        strides_by_axis[a] = resolve_slice(starts[i], ends[i], steps[i], shape[a]);
    }
    let out_shape: Vec<usize> = strides_by_axis.iter().map(|s| s.len).collect();
    let in_strides = strides(shape);
    let picks = picks_of(&out_shape, |index| {
        Ok(index
            .iter()
            .zip(&strides_by_axis)
            .zip(&in_strides)
            .map(|((&i, s), &stride)| (s.start + i as i64 * s.step) as usize * stride)
            .sum())
    })?;
    one(data.with_data(pick(&data.data, &out_shape, &picks, None)?))
}

/// Squeeze: the axes as an attribute before version 13, as an operand from it; without them,
/// every dim of 1 goes.
fn squeeze(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let data = tensor(inputs, 0)?;
    let shape = data.shape();
    let axes = match ints_attr_or_operand(ctx, inputs, "axes", 1, 13)? {
        Some(axes) => distinct_axes(&axes, shape.len())?,
        None => (0..shape.len()).filter(|&a| shape[a] == 1).collect(),
    };
    if let Some(&a) = axes.iter().find(|&&a| shape[a] != 1) {
        return Err(format!("cannot squeeze axis {a} of shape {shape:?}"));
    }
    let out: Vec<usize> = (0..shape.len())
        .filter(|a| !axes.contains(a))
        .map(|a| shape[a])
        .collect();
    one(reshaped(data, &out)?)
}

/// Unsqueeze: the axes (of the output) as an attribute before version 13, as an operand from it.
fn unsqueeze(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let data = tensor(inputs, 0)?;
    let axes = ints_attr_or_operand(ctx, inputs, "axes", 1, 13)?.ok_or("no axes")?;
    let rank = data.rank() + axes.len();
    let axes = distinct_axes(&axes, rank)?;
    let mut dims = data.shape().iter();
    let out: Vec<usize> = (0..rank)
        .map(|a| {
            if axes.contains(&a) {
                1
            } else {
                dims.next().copied().unwrap_or(1)
            }
        })
        .collect();
    one(reshaped(data, &out)?)
}

/// Flatten: a matrix of the dims before `axis` by those from it (`axis` in [-r, r]; negative
/// from version 11).
fn flatten(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let data = tensor(inputs, 0)?;
    let shape = data.shape();
    let rank = shape.len() as i64;
    let requested = ctx.int("axis", 1);
    let at = if requested < 0 && ctx.since >= 11 {
        requested + rank
    } else {
        requested
    };
    if !(0..=rank).contains(&at) {
        return Err(format!("axis {requested} is out of range for rank {rank}"));
    }
    let (outer, inner) = shape.split_at(at as usize);
    one(reshaped(
        data,
        &[outer.iter().product(), inner.iter().product()],
    )?)
}

/// Expand: broadcasts the input and the shape operand both ways.
fn expand(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let data = tensor(inputs, 0)?;
    let requested = dims_of(&tensor(inputs, 1)?.to_i64_vec()?, "shape")?;
    let shape = broadcast_shape(data.shape(), &requested)?;
    ctx.checked_count(&shape)?;
    let picks = broadcast_positions(data.shape(), &shape);
    one(data.with_data(pick(&data.data, &shape, &picks, None)?))
}

/// The tensor repeated `repeats[i]` times along each axis i.
fn tile_by(ctx: &Ctx<'_>, data: &Tensor, repeats: &[i64]) -> KernelResult<Tensor> {
    let shape = data.shape();
    if repeats.len() != shape.len() {
        return Err(format!(
            "{} repeats for a rank-{} input",
            repeats.len(),
            shape.len()
        ));
    }
    let repeats = dims_of(repeats, "repeats")?;
    let out: Vec<usize> = shape
        .iter()
        .zip(&repeats)
        .map(|(&d, &r)| d.saturating_mul(r))
        .collect();
    ctx.checked_count(&out)?;
    let in_strides = strides(shape);
    let picks = picks_of(&out, |index| {
        Ok(index
            .iter()
            .zip(shape)
            .zip(&in_strides)
            .map(|((&i, &d), &s)| (i % d) * s)
            .sum())
    })?;
    Ok(data.with_data(pick(&data.data, &out, &picks, None)?))
}

/// Tile-1: `tiles` copies along `axis`, both scalar operands.
fn tile_v1(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let data = tensor(inputs, 0)?;
    // Both are of the input's type T, which may be a float.
    let scalar = |i: usize| match whole_numbers(tensor(inputs, i)?)?.as_slice() {
        [v] => Ok(*v),
        _ => Err(format!("input {i} is not one number")),
    };
    let (tiles, at) = (scalar(1)?, axis(scalar(2)?, data.rank())?);
    let mut repeats = vec![1; data.rank()];
    repeats[at] = tiles;
    one(tile_by(ctx, data, &repeats)?)
}

/// Tile: the repeats operand, one per axis.
fn tile(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let repeats = tensor(inputs, 1)?.to_i64_vec()?;
    one(tile_by(ctx, tensor(inputs, 0)?, &repeats)?)
}

/// The sizes of Split's parts: given (attribute before 13, operand 1 in versions 1 and 13 on),
/// from `num_outputs` (version 18, the last part smaller), or equal parts, one per output.
fn split_sizes(ctx: &Ctx<'_>, inputs: &[Option<&Val>], dim: usize) -> KernelResult<Vec<usize>> {
    let given = match ctx.since {
        // Split-1's sizes operand is of the input's type T, which may be a float.
        1 => match tensor_opt(inputs, 1)? {
            Some(t) => Some(whole_numbers(t)?),
            None => ctx.ints("split").map(<[i64]>::to_vec),
        },
        2 | 11 => ctx.ints("split").map(<[i64]>::to_vec),
        _ => tensor_opt(inputs, 1)?.map(Tensor::to_i64_vec).transpose()?,
    };
    if let Some(sizes) = given {
        let sizes = dims_of(&sizes, "split")?;
        let total = sizes.iter().try_fold(0usize, |sum, &s| sum.checked_add(s));
        if total != Some(dim) || sizes.len() != ctx.outputs {
            return Err(format!(
                "split {sizes:?} does not cut a dim of {dim} into {} outputs",
                ctx.outputs
            ));
        }
        return Ok(sizes);
    }
    if ctx.since >= 18
        && let Some(n) = ctx.int_opt("num_outputs")
    {
        if n < 1 || n as usize != ctx.outputs {
            return Err(format!(
                "num_outputs {n} with {} outputs named",
                ctx.outputs
            ));
        }
        let n = n as usize;
        let part = dim.div_ceil(n);
        if part * (n - 1) > dim {
            return Err(format!("a dim of {dim} does not split into {n} parts"));
        }
        let mut sizes = vec![part; n];
        sizes[n - 1] = dim - part * (n - 1);
        return Ok(sizes);
    }
    let n = ctx.outputs.max(1);
    if !dim.is_multiple_of(n) {
        return Err(format!(
            "a dim of {dim} does not split into {n} equal parts"
        ));
    }
    Ok(vec![dim / n; n])
}

/// The elements of a tensor of any real type that hold whole numbers, as integers.
fn whole_numbers(t: &Tensor) -> KernelResult<Vec<i64>> {
    t.to_f64_vec()?
        .into_iter()
        .map(|v| {
            if v.fract() == 0.0 && v.abs() < 9e15 {
                Ok(v as i64)
            } else {
                Err(format!("{v} is not a whole number"))
            }
        })
        .collect()
}

fn split(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let data = tensor(inputs, 0)?;
    let at = axis(ctx.int("axis", 0), data.rank())?;
    let dim = *data.shape().get(at).ok_or("Split of a scalar")?;
    let sizes = split_sizes(ctx, inputs, dim)?;
    let mut start = 0;
    let mut parts = Vec::with_capacity(sizes.len());
    for size in sizes {
        parts.push(Val::Tensor(axis_range(data, at, start, start + size)?));
        start += size;
    }
    Ok(parts)
}

/// How Pad fills the positions outside the input.
#[derive(Clone, Copy, PartialEq)]
enum PadMode {
    Constant,
    Reflect,
    Edge,
    Wrap,
}

/// The input position a padded position `p` (which may lie outside [0, dim)) copies, or
/// `None` for the constant.
fn padded_source(p: i64, dim: usize, mode: PadMode) -> KernelResult<Option<usize>> {
    let d = dim as i64;
    if (0..d).contains(&p) {
        return Ok(Some(p as usize));
    }
    if mode == PadMode::Constant {
        return Ok(None);
    }
    if dim == 0 {
        return Err("cannot pad an empty axis but with a constant".to_string());
    }
    Ok(Some(match mode {
        PadMode::Edge => p.clamp(0, d - 1) as usize,
        PadMode::Wrap => p.rem_euclid(d) as usize,
        // Reflection about the edges without repeating them, numpy's `reflect`: a period of
        // 2 (dim - 1).
        _ if dim == 1 => 0,
        _ => {
            let period = 2 * (d - 1);
            let q = p.rem_euclid(period);
            (if q < d { q } else { period - q }) as usize
        }
    }))
}

/// Pads (or, with negative pads, crops) `data` by `begins` and `ends` per axis.
fn pad_tensor(
    ctx: &Ctx<'_>,
    data: &Tensor,
    begins: &[i64],
    ends: &[i64],
    mode: PadMode,
    fill: Option<&Data>,
) -> KernelResult<Tensor> {
    let shape = data.shape();
    let out = shape
        .iter()
        .zip(begins.iter().zip(ends))
        .map(|(&d, (&b, &e))| {
            let n = (d as i64).saturating_add(b).saturating_add(e);
            usize::try_from(n).map_err(|_| format!("pads {begins:?} {ends:?} crop past {shape:?}"))
        })
        .collect::<KernelResult<Vec<usize>>>()?;
    ctx.checked_count(&out)?;
    let in_strides = strides(shape);
    let picks = picks_of(&out, |index| {
        let mut flat = 0;
        for (a, &i) in index.iter().enumerate() {
            match padded_source((i as i64).saturating_sub(begins[a]), shape[a], mode)? {
                Some(p) => flat += p * in_strides[a],
                None => return Ok(FILL),
            }
        }
        Ok(flat)
    })?;
    Ok(data.with_data(pick(&data.data, &out, &picks, fill)?))
}

/// A one-element array of `data`'s variant holding `value` (for Pad's float `value` attribute).
fn scalar_like(data: &Data, value: f64) -> KernelResult<Data> {
    fn real<T: Real>(value: f64) -> ArrayD<T> {
        ArrayD::from_elem(IxDyn(&[]), T::from_f64(value))
    }
    Ok(match data {
        Data::F32(_) => Data::F32(real(value)),
        Data::F64(_) => Data::F64(real(value)),
        Data::F16(_) => Data::F16(real(value)),
        Data::BF16(_) => Data::BF16(real(value)),
        Data::I8(_) => Data::I8(real(value)),
        Data::I16(_) => Data::I16(real(value)),
        Data::I32(_) => Data::I32(real(value)),
        Data::I64(_) => Data::I64(real(value)),
        Data::U8(_) => Data::U8(real(value)),
        Data::U16(_) => Data::U16(real(value)),
        Data::U32(_) => Data::U32(real(value)),
        Data::U64(_) => Data::U64(real(value)),
        Data::Bool(_) => Data::Bool(ArrayD::from_elem(IxDyn(&[]), value != 0.0)),
        _ => return Err("a numeric fill value for a tensor of no numbers".to_string()),
    })
}

/// Pad: `paddings` (version 1) or `pads` (2) and `value` as attributes; from version 11 pads and
/// the constant as operands, from 18 the axes the pads are for, from 19 the `wrap` mode.
fn pad(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let data = tensor(inputs, 0)?;
    let rank = data.rank();
    let mode = match ctx.string("mode").as_deref().unwrap_or("constant") {
        "constant" => PadMode::Constant,
        "reflect" => PadMode::Reflect,
        "edge" => PadMode::Edge,
        "wrap" if ctx.since >= 19 => PadMode::Wrap,
        other => return Err(format!("unknown mode `{other}`")),
    };
    let (pads, fill, axes) = if ctx.since < 11 {
        let name = if ctx.since == 1 { "paddings" } else { "pads" };
        let pads = ctx.ints(name).ok_or(format!("no `{name}`"))?.to_vec();
        let value = f64::from(ctx.float("value", 0.0));
        let fill = (mode == PadMode::Constant)
            .then(|| scalar_like(&data.data, value))
            .transpose()?;
        (pads, fill, None)
    } else {
        let pads = tensor(inputs, 1)?.to_i64_vec()?;
        let fill = match tensor_opt(inputs, 2)? {
            Some(t) if t.len() != 1 => {
                return Err(format!("constant_value holds {} elements", t.len()));
            }
            Some(t) if t.dtype != data.dtype => {
                return Err(format!(
                    "constant_value is {}, data {}",
                    t.type_name(),
                    data.type_name()
                ));
            }
            Some(t) => Some(t.data.clone()),
            None => None,
        };
        let axes = if ctx.since >= 18 {
            tensor_opt(inputs, 3)?.map(Tensor::to_i64_vec).transpose()?
        } else {
            None
        };
        (pads, fill, axes)
    };
    let axes = match axes {
        Some(axes) => distinct_axes(&axes, rank)?,
        None => (0..rank).collect(),
    };
    if pads.len() != 2 * axes.len() {
        return Err(format!(
            "{} pads for {} axes (two per axis)",
            pads.len(),
            axes.len()
        ));
    }
    let (mut begins, mut ends) = (vec![0; rank], vec![0; rank]);
    for (i, &a) in axes.iter().enumerate() {
        begins[a] = pads[i];
        ends[a] = pads[axes.len() + i];
    }
    one(pad_tensor(ctx, data, &begins, &ends, mode, fill.as_ref())?)
}

/// CenterCropPad: each named axis cropped (the window's start rounded down) or padded with zeros
/// (the odd one on the right) to the shape operand's dim.
fn center_crop_pad(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let data = tensor(inputs, 0)?;
    let rank = data.rank();
    let target = dims_of(&tensor(inputs, 1)?.to_i64_vec()?, "shape")?;
    let axes = match ctx.ints("axes") {
        Some(axes) => distinct_axes(axes, rank)?,
        None => (0..rank).collect(),
    };
    if target.len() != axes.len() {
        return Err(format!("{} dims for {} axes", target.len(), axes.len()));
    }
    let (mut begins, mut ends) = (vec![0i64; rank], vec![0i64; rank]);
    for (&a, &t) in axes.iter().zip(&target) {
        let d = data.shape()[a] as i64;
        let t = t as i64;
        // Cropping removes floor(diff / 2) at the start; padding adds floor(diff / 2) there.
        let (b, e) = if t <= d {
            let before = (d - t) / 2;
            (-before, -(d - t - before))
        } else {
            let before = (t - d) / 2;
            (before, t - d - before)
        };
        begins[a] = b;
        ends[a] = e;
    }
    one(pad_tensor(
        ctx,
        data,
        &begins,
        &ends,
        PadMode::Constant,
        None,
    )?)
}

/// The tensor reshaped to `split`, its axes permuted by `perm`, then reshaped to `out`.
fn permute_blocks(
    data: &Tensor,
    split: &[usize],
    perm: &[usize],
    out: &[usize],
) -> KernelResult<Tensor> {
    reshaped(&permuted(&reshaped(data, split)?, perm)?, out)
}

/// The (b, c, h, w) dims of a rank-4 input and the block size.
fn blocks(ctx: &Ctx<'_>, data: &Tensor) -> KernelResult<([usize; 4], usize)> {
    let &[b, c, h, w] = data.shape() else {
        return Err(format!("input of shape {:?}, not rank 4", data.shape()));
    };
    let block = ctx.int_opt("blocksize").ok_or("no `blocksize`")?;
    // A block no larger than every dim it divides or multiplies keeps the products in range.
    if block < 1 || block as u128 * block as u128 > (c.max(1) as u128) * (h.max(w).max(1) as u128) {
        return Err(format!("blocksize {block} for shape {:?}", data.shape()));
    }
    Ok(([b, c, h, w], block as usize))
}

/// DepthToSpace: mode DCR (the only one before version 11) or CRD.
fn depth_to_space(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let data = tensor(inputs, 0)?;
    let ([b, c, h, w], k) = blocks(ctx, data)?;
    if !c.is_multiple_of(k * k) {
        return Err(format!("{c} channels for blocks of {k}x{k}"));
    }
    let out = [b, c / (k * k), h * k, w * k];
    let mode = ctx.string("mode").unwrap_or_else(|| "DCR".to_string());
    one(match mode.as_str() {
        "DCR" => permute_blocks(
            data,
            &[b, k, k, c / (k * k), h, w],
            &[0, 3, 4, 1, 5, 2],
            &out,
        )?,
        "CRD" if ctx.since >= 11 => permute_blocks(
            data,
            &[b, c / (k * k), k, k, h, w],
            &[0, 1, 4, 2, 5, 3],
            &out,
        )?,
        other => return Err(format!("unknown mode `{other}`")),
    })
}

/// SpaceToDepth: mode DCR (the only one before version 28) or CRD, the inverses of
/// DepthToSpace's.
fn space_to_depth(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let data = tensor(inputs, 0)?;
    let ([b, c, h, w], k) = blocks(ctx, data)?;
    if !h.is_multiple_of(k) || !w.is_multiple_of(k) {
        return Err(format!("{h}x{w} is not in blocks of {k}x{k}"));
    }
    let split = [b, c, h / k, k, w / k, k];
    let out = [b, c * k * k, h / k, w / k];
    let mode = ctx.string("mode").unwrap_or_else(|| "DCR".to_string());
    one(match mode.as_str() {
        "DCR" => permute_blocks(data, &split, &[0, 3, 5, 1, 2, 4], &out)?,
        "CRD" if ctx.since >= 28 => permute_blocks(data, &split, &[0, 1, 3, 5, 2, 4], &out)?,
        other => return Err(format!("unknown mode `{other}`")),
    })
}

/// ReverseSequence: along the time axis, the first `sequence_lens[i]` elements of batch i
/// reversed.
fn reverse_sequence(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let data = tensor(inputs, 0)?;
    let lens = tensor(inputs, 1)?.to_i64_vec()?;
    let shape = data.shape();
    let (batch, time) = (ctx.int("batch_axis", 1), ctx.int("time_axis", 0));
    if shape.len() < 2 || !matches!((batch, time), (0, 1) | (1, 0)) {
        return Err(format!(
            "batch_axis {batch} and time_axis {time} for shape {shape:?}"
        ));
    }
    let (batch, time) = (batch as usize, time as usize);
    if lens.len() != shape[batch] {
        return Err(format!(
            "{} lengths for a batch of {}",
            lens.len(),
            shape[batch]
        ));
    }
    if let Some(l) = lens.iter().find(|&&l| l < 0 || l as usize > shape[time]) {
        return Err(format!(
            "a sequence length {l} beyond the {} steps",
            shape[time]
        ));
    }
    let in_strides = strides(shape);
    let picks = picks_of(shape, |index| {
        let len = lens[index[batch]] as usize;
        Ok(index
            .iter()
            .enumerate()
            .map(|(a, &i)| {
                let i = if a == time && i < len { len - 1 - i } else { i };
                i * in_strides[a]
            })
            .sum())
    })?;
    one(data.with_data(pick(&data.data, shape, &picks, None)?))
}

/// Trilu: the upper (default) or lower triangle of the last two dims from diagonal `k`, the rest
/// zero.
fn trilu(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let data = tensor(inputs, 0)?;
    let k = match tensor_opt(inputs, 1)? {
        Some(t) => match t.to_i64_vec()?.as_slice() {
            [k] => *k,
            _ => return Err("k is not one integer".to_string()),
        },
        None => 0,
    };
    let upper = ctx.int("upper", 1) != 0;
    let shape = data.shape();
    if shape.len() < 2 {
        return Err(format!("input of shape {shape:?}, not rank 2 or more"));
    }
    let rank = shape.len();
    let mut flat = 0;
    let picks = picks_of(shape, |index| {
        let (row, col) = (index[rank - 2] as i64, index[rank - 1] as i64);
        let keep = if upper {
            col - row >= k
        } else {
            col - row <= k
        };
        flat += 1;
        Ok(if keep { flat - 1 } else { FILL })
    })?;
    one(data.with_data(pick(&data.data, shape, &picks, None)?))
}

/// A one-element array of `dtype` holding 1.
fn one_of(dtype: DataType) -> KernelResult<Data> {
    let zero = Tensor::zeros(dtype, &[])?;
    match zero.data {
        Data::Str(_) | Data::C64(_) | Data::C128(_) => {
            Err(format!("EyeLike of {}", dtype.as_str_name()))
        }
        data => scalar_like(&data, 1.0),
    }
}

/// EyeLike: ones on diagonal `k` of a matrix of the input's shape, of `dtype` or the input's
/// type.
fn eye_like(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let data = tensor(inputs, 0)?;
    let &[rows, cols] = data.shape() else {
        return Err(format!("input of shape {:?}, not rank 2", data.shape()));
    };
    let dtype = match ctx.int_opt("dtype") {
        Some(code) => DataType::try_from(code as i32)
            .map_err(|_| format!("unknown dtype {code}"))?
            .to_owned(),
        None => data.dtype,
    };
    let k = ctx.int("k", 0);
    // The diagonal picks the one element of `ones`; the rest fall past it, to the zero.
    let picks = picks_of(&[rows, cols], |index| {
        Ok(if index[1] as i64 - index[0] as i64 == k {
            0
        } else {
            FILL
        })
    })?;
    let ones = one_of(dtype)?;
    one(Tensor {
        dtype,
        data: pick(&ones, &[rows, cols], &picks, None)?,
    })
}

/// Range: `start + i * delta` for the `max(ceil((limit - start) / delta), 0)` values of i;
/// integers in integers, floats in f64 rounded once (float16 and bfloat16 from version 27, in
/// float as `stash_type` 1 says).
fn range(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let scalar = |i: usize| -> KernelResult<&Tensor> {
        let t = tensor(inputs, i)?;
        if t.len() != 1 {
            return Err(format!("input {i} holds {} elements, not one", t.len()));
        }
        Ok(t)
    };
    let (start, limit, delta) = (scalar(0)?, scalar(1)?, scalar(2)?);
    if start.dtype != limit.dtype || start.dtype != delta.dtype {
        return Err("start, limit and delta of different types".to_string());
    }
    let count_of = |n: f64| -> KernelResult<usize> {
        let n = n.ceil().max(0.0);
        if !n.is_finite() {
            return Err("an endless range".to_string());
        }
        ctx.checked_count(&[n.min(u64::MAX as f64) as usize])
    };
    let is_integer = start.to_i64_vec().is_ok();
    if is_integer {
        let (s, l, d) = (
            start.to_i64_vec()?[0],
            limit.to_i64_vec()?[0],
            delta.to_i64_vec()?[0],
        );
        if d == 0 {
            return Err("a delta of 0".to_string());
        }
        let n = count_of((l as f64 - s as f64) / d as f64)?;
        let values: Vec<i64> = (0..n as i64)
            .map(|i| s.wrapping_add(i.wrapping_mul(d)))
            .collect();
        return one(int_like(start, &[n], &values)?);
    }
    let (s, l, d) = (
        start.to_f64_vec()?[0],
        limit.to_f64_vec()?[0],
        delta.to_f64_vec()?[0],
    );
    if d == 0.0 {
        return Err("a delta of 0".to_string());
    }
    let n = count_of((l - s) / d)?;
    let values: Vec<f64> = (0..n).map(|i| s + i as f64 * d).collect();
    one(real_like(start, &[n], &values)?)
}

/// A tensor of `like`'s real element type and `shape` from f64 values, each rounded (or, for
/// integers, cast) to the type.
pub(super) fn real_like(like: &Tensor, shape: &[usize], values: &[f64]) -> KernelResult<Tensor> {
    fn build<T: Real>(shape: &[usize], values: &[f64]) -> KernelResult<ArrayD<T>> {
        array(shape, map_slice(values, &T::from_f64))
    }
    let data = match &like.data {
        Data::F32(_) => Data::F32(build(shape, values)?),
        Data::F64(_) => Data::F64(build(shape, values)?),
        Data::F16(_) => Data::F16(build(shape, values)?),
        Data::BF16(_) => Data::BF16(build(shape, values)?),
        Data::I8(_) => Data::I8(build(shape, values)?),
        Data::I16(_) => Data::I16(build(shape, values)?),
        Data::I32(_) => Data::I32(build(shape, values)?),
        Data::I64(_) => Data::I64(build(shape, values)?),
        Data::U8(_) => Data::U8(build(shape, values)?),
        Data::U16(_) => Data::U16(build(shape, values)?),
        Data::U32(_) => Data::U32(build(shape, values)?),
        Data::U64(_) => Data::U64(build(shape, values)?),
        _ => return Err(format!("expected numbers, got {}", like.type_name())),
    };
    Ok(like.with_data(data))
}

/// A tensor of `like`'s integer element type and `shape` from i64 values, each cast to the type.
fn int_like(like: &Tensor, shape: &[usize], values: &[i64]) -> KernelResult<Tensor> {
    macro_rules! build {
        ($t:ty) => {
            array(shape, map_slice(values, &|v| v as $t))?
        };
    }
    let data = match &like.data {
        Data::I8(_) => Data::I8(build!(i8)),
        Data::I16(_) => Data::I16(build!(i16)),
        Data::I32(_) => Data::I32(build!(i32)),
        Data::I64(_) => Data::I64(build!(i64)),
        Data::U8(_) => Data::U8(build!(u8)),
        Data::U16(_) => Data::U16(build!(u16)),
        Data::U32(_) => Data::U32(build!(u32)),
        Data::U64(_) => Data::U64(build!(u64)),
        _ => return Err(format!("expected integers, got {}", like.type_name())),
    };
    Ok(like.with_data(data))
}

#[cfg(test)]
mod tests {
    //! Older versions that differ from the newest; expected values by hand from each version's
    //! spec.
    use super::super::test_support::{floats, ints, run};

    #[test]
    fn slice_v1_reads_attributes() {
        let y = run(
            r#"<ir_version: 4, opset_import: ["" : 9]>
            g (float[5] x) => (float[?] y) { y = Slice <starts = [1], ends = [-1]> (x) }"#,
            &[floats(&[0.0, 1.0, 2.0, 3.0, 4.0], &[5])],
        )
        .unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0]);
    }

    #[test]
    fn slice_v13_steps_backward_and_clamps() {
        // From the last element back by 2, the end clamped to -1: 4, 2, 0.
        let y = run(
            r#"<ir_version: 8, opset_import: ["" : 13]>
            g (float[5] x, int64[1] s, int64[1] e, int64[1] a, int64[1] st) => (float[?] y) {
                y = Slice (x, s, e, a, st)
            }"#,
            &[
                floats(&[0.0, 1.0, 2.0, 3.0, 4.0], &[5]),
                ints(&[-1], &[1]),
                ints(&[-100], &[1]),
                ints(&[0], &[1]),
                ints(&[-2], &[1]),
            ],
        )
        .unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [4.0, 2.0, 0.0]);
    }

    #[test]
    fn squeeze_and_unsqueeze_v11_read_the_axes_attribute() {
        let y = run(
            r#"<ir_version: 6, opset_import: ["" : 11]>
            g (float[1, 2, 1] x) => (float[?] y, float[?, ?, ?, ?] z) {
                y = Squeeze <axes = [0, -1]> (x)
                z = Unsqueeze <axes = [0, -1]> (y)
            }"#,
            &[floats(&[1.0, 2.0], &[1, 2, 1])],
        )
        .unwrap();
        assert_eq!(y[0].dims().unwrap(), [2]);
        assert_eq!(y[1].dims().unwrap(), [1, 2, 1]);
    }

    #[test]
    fn flatten_v9_refuses_a_negative_axis() {
        let text = |opset: i64| {
            format!(
                r#"<ir_version: 6, opset_import: ["" : {opset}]>
                g (float[2, 3, 4] x) => (float[?, ?] y) {{ y = Flatten <axis = -1> (x) }}"#
            )
        };
        let x = floats(&[0.0; 24], &[2, 3, 4]);
        assert!(run(&text(9), std::slice::from_ref(&x)).is_err());
        assert_eq!(run(&text(11), &[x]).unwrap()[0].dims().unwrap(), [6, 4]);
    }

    #[test]
    fn tile_v1_repeats_along_one_axis() {
        // tiles and axis are of the input's type (float) in version 1.
        let y = run(
            r#"<ir_version: 3, opset_import: ["" : 1]>
            g (float[2, 1] x, float t, float a) => (float[?, ?] y) { y = Tile (x, t, a) }"#,
            &[
                floats(&[1.0, 2.0], &[2, 1]),
                floats(&[3.0], &[]),
                floats(&[1.0], &[]),
            ],
        )
        .unwrap();
        assert_eq!(y[0].dims().unwrap(), [2, 3]);
        assert_eq!(
            y[0].to_vec::<f32>().unwrap(),
            [1.0, 1.0, 1.0, 2.0, 2.0, 2.0]
        );
    }

    #[test]
    fn split_reads_sizes_by_version() {
        let x = floats(&[1.0, 2.0, 3.0, 4.0, 5.0], &[5]);
        // Version 2: the `split` attribute.
        let parts = run(
            r#"<ir_version: 3, opset_import: ["" : 2]>
            g (float[5] x) => (float[?] a, float[?] b) { a, b = Split <split = [2, 3]> (x) }"#,
            std::slice::from_ref(&x),
        )
        .unwrap();
        assert_eq!(parts[1].to_vec::<f32>().unwrap(), [3.0, 4.0, 5.0]);
        // Version 1: the sizes as a second operand.
        let parts = run(
            r#"<ir_version: 3, opset_import: ["" : 1]>
            g (float[5] x, float[2] s) => (float[?] a, float[?] b) { a, b = Split (x, s) }"#,
            &[x.clone(), floats(&[4.0, 1.0], &[2])],
        )
        .unwrap();
        assert_eq!(parts[0].to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0, 4.0]);
        // Version 18: num_outputs, the last part smaller (ceil(5 / 3) = 2).
        let parts = run(
            r#"<ir_version: 8, opset_import: ["" : 18]>
            g (float[5] x) => (float[?] a, float[?] b, float[?] c) {
                a, b, c = Split <num_outputs = 3> (x)
            }"#,
            std::slice::from_ref(&x),
        )
        .unwrap();
        assert_eq!(parts[2].to_vec::<f32>().unwrap(), [5.0]);
        // Version 13 without sizes: equal parts or an error.
        let text = r#"<ir_version: 7, opset_import: ["" : 13]>
            g (float[5] x) => (float[?] a, float[?] b) { a, b = Split (x) }"#;
        assert!(run(text, &[x]).is_err());
    }

    #[test]
    fn pad_v1_and_v2_read_attributes() {
        // Version 1: `paddings`, [x1_begin, x2_begin, x1_end, x2_end]; two before each row.
        let y = run(
            r#"<ir_version: 3, opset_import: ["" : 1]>
            g (float[2, 2] x) => (float[?, ?] y) { y = Pad <paddings = [0, 2, 0, 0], value = 1.5> (x) }"#,
            &[floats(&[1.0, 2.0, 3.0, 4.0], &[2, 2])],
        )
        .unwrap();
        assert_eq!(
            y[0].to_vec::<f32>().unwrap(),
            [1.5, 1.5, 1.0, 2.0, 1.5, 1.5, 3.0, 4.0]
        );
        // Version 2: `pads`, reflect mode: [1, 2, 3] by (2, 1) is 3 2 | 1 2 3 | 2.
        let y = run(
            r#"<ir_version: 3, opset_import: ["" : 2]>
            g (float[3] x) => (float[?] y) { y = Pad <pads = [2, 1], mode = "reflect"> (x) }"#,
            &[floats(&[1.0, 2.0, 3.0], &[3])],
        )
        .unwrap();
        assert_eq!(
            y[0].to_vec::<f32>().unwrap(),
            [3.0, 2.0, 1.0, 2.0, 3.0, 2.0]
        );
    }

    #[test]
    fn pad_v11_operands_v18_axes_v19_wrap() {
        let x = floats(&[1.0, 2.0, 3.0], &[1, 3]);
        // Version 11: pads and the constant as operands; edge mode.
        let y = run(
            r#"<ir_version: 6, opset_import: ["" : 11]>
            g (float[1, 3] x, int64[4] p) => (float[?, ?] y) { y = Pad <mode = "edge"> (x, p) }"#,
            &[x.clone(), ints(&[0, 1, 0, 2], &[4])],
        )
        .unwrap();
        assert_eq!(
            y[0].to_vec::<f32>().unwrap(),
            [1.0, 1.0, 2.0, 3.0, 3.0, 3.0]
        );
        // Version 18: pads for axis 1 only, constant 9.
        let y = run(
            r#"<ir_version: 8, opset_import: ["" : 18]>
            g (float[1, 3] x, int64[2] p, float c, int64[1] a) => (float[?, ?] y) {
                y = Pad (x, p, c, a)
            }"#,
            &[
                x.clone(),
                ints(&[1, 0], &[2]),
                floats(&[9.0], &[]),
                ints(&[-1], &[1]),
            ],
        )
        .unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [9.0, 1.0, 2.0, 3.0]);
        // Wrap is new in 19: 2 3 | 1 2 3 | 1 2.
        let wrap = |opset: i64| {
            format!(
                r#"<ir_version: 9, opset_import: ["" : {opset}]>
                g (float[1, 3] x, int64[4] p) => (float[?, ?] y) {{ y = Pad <mode = "wrap"> (x, p) }}"#
            )
        };
        let inputs = [x, ints(&[0, 2, 0, 2], &[4])];
        assert!(run(&wrap(18), &inputs).is_err());
        let y = run(&wrap(19), &inputs).unwrap();
        assert_eq!(
            y[0].to_vec::<f32>().unwrap(),
            [2.0, 3.0, 1.0, 2.0, 3.0, 1.0, 2.0]
        );
    }

    #[test]
    fn depth_to_space_v1_knows_only_dcr() {
        let text = |opset: i64| {
            format!(
                r#"<ir_version: 6, opset_import: ["" : {opset}]>
                g (float[1, 4, 1, 1] x) => (float[?, ?, ?, ?] y) {{
                    y = DepthToSpace <blocksize = 2, mode = "CRD"> (x)
                }}"#
            )
        };
        let x = floats(&[1.0, 2.0, 3.0, 4.0], &[1, 4, 1, 1]);
        assert!(run(&text(1), std::slice::from_ref(&x)).is_err());
        let y = run(&text(11), &[x]).unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0, 4.0]);
    }

    #[test]
    fn concat_v1_defaults_to_axis_1() {
        let y = run(
            r#"<ir_version: 3, opset_import: ["" : 1]>
            g (float[1, 2] a, float[1, 2] b) => (float[?, ?] y) { y = Concat (a, b) }"#,
            &[floats(&[1.0, 2.0], &[1, 2]), floats(&[3.0, 4.0], &[1, 2])],
        )
        .unwrap();
        assert_eq!(y[0].dims().unwrap(), [1, 4]);
    }

    #[test]
    fn range_counts_by_ceiling() {
        // ceil((10 - 1) / 4) = 3 values: 1, 5, 9; and 10 down to 4 by -2: 10, 8, 6.
        let text = r#"<ir_version: 7, opset_import: ["" : 11]>
            g (int64 s, int64 l, int64 d) => (int64[?] y) { y = Range (s, l, d) }"#;
        let y = run(text, &[ints(&[1], &[]), ints(&[10], &[]), ints(&[4], &[])]).unwrap();
        assert_eq!(y[0].to_vec::<i64>().unwrap(), [1, 5, 9]);
        let y = run(text, &[ints(&[10], &[]), ints(&[4], &[]), ints(&[-2], &[])]).unwrap();
        assert_eq!(y[0].to_vec::<i64>().unwrap(), [10, 8, 6]);
    }

    #[test]
    fn space_to_depth_crd_from_v28() {
        // A 2 x 2 image, one channel, blocks of 2: both modes give the four pixels as channels;
        // with two channels they differ: DCR is block-major, CRD channel-major.
        let text = |opset: i64, mode: &str| {
            format!(
                r#"<ir_version: 11, opset_import: ["" : {opset}]>
                g (float[1, 2, 2, 2] x) => (float[?, ?, ?, ?] y) {{
                    y = SpaceToDepth <blocksize = 2, mode = "{mode}"> (x)
                }}"#
            )
        };
        let x = floats(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], &[1, 2, 2, 2]);
        assert!(run(&text(13, "CRD"), std::slice::from_ref(&x)).is_err());
        let y = run(&text(28, "CRD"), std::slice::from_ref(&x)).unwrap();
        assert_eq!(
            y[0].to_vec::<f32>().unwrap(),
            [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
        );
        let y = run(&text(28, "DCR"), &[x]).unwrap();
        assert_eq!(
            y[0].to_vec::<f32>().unwrap(),
            [1.0, 5.0, 2.0, 6.0, 3.0, 7.0, 4.0, 8.0]
        );
    }

    #[test]
    fn reshape_allowzero_from_v14_and_shape_slices_from_v15() {
        let reshape = |opset: i64| {
            format!(
                r#"<ir_version: 8, opset_import: ["" : {opset}]>
                g (float[0, 2] x, int64[2] s) => (float[?, ?] y) {{
                    y = Reshape <allowzero = 1> (x, s)
                }}"#
            )
        };
        // Before 14 a 0 copies the input's dim: [0, 2] from (2, 0) is refused (0 elements
        // into dims (2, 2)); from 14 it is the literal 0.
        let inputs = [floats(&[], &[0, 2]), ints(&[2, 0], &[2])];
        assert!(run(&reshape(13), &inputs).is_err());
        assert_eq!(
            run(&reshape(14), &inputs).unwrap()[0].dims().unwrap(),
            [2, 0]
        );
        let shape = |opset: i64| {
            format!(
                r#"<ir_version: 8, opset_import: ["" : {opset}]>
                g (float[2, 3, 4] x) => (int64[?] y) {{ y = Shape <start = 1> (x) }}"#
            )
        };
        let x = floats(&[0.0; 24], &[2, 3, 4]);
        let y = run(&shape(13), std::slice::from_ref(&x)).unwrap();
        assert_eq!(y[0].to_vec::<i64>().unwrap(), [2, 3, 4]);
        let y = run(&shape(15), &[x]).unwrap();
        assert_eq!(y[0].to_vec::<i64>().unwrap(), [3, 4]);
    }

    #[test]
    fn extreme_operands_give_results_or_errors() {
        // A step of i64::MIN from the end takes the last element only.
        let y = run(
            r#"<ir_version: 8, opset_import: ["" : 13]>
            g (float[3] x, int64[1] s, int64[1] e, int64[1] a, int64[1] st) => (float[?] y) {
                y = Slice (x, s, e, a, st)
            }"#,
            &[
                floats(&[1.0, 2.0, 3.0], &[3]),
                ints(&[i64::MAX], &[1]),
                ints(&[i64::MIN], &[1]),
                ints(&[0], &[1]),
                ints(&[i64::MIN], &[1]),
            ],
        )
        .unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [3.0]);
        // Pads that crop past the input or grow beyond the limit are errors.
        let pad = r#"<ir_version: 8, opset_import: ["" : 13]>
            g (float[3] x, int64[2] p) => (float[?] y) { y = Pad <mode = "reflect"> (x, p) }"#;
        let x = floats(&[1.0, 2.0, 3.0], &[3]);
        assert!(run(pad, &[x.clone(), ints(&[i64::MIN, 0], &[2])]).is_err());
        assert!(run(pad, &[x, ints(&[i64::MAX, i64::MAX], &[2])]).is_err());
    }
}
