//! Operators that read or write elements at indices: Gather, GatherElements, GatherND, Scatter,
//! ScatterElements, ScatterND, TensorScatter, Compress, NonZero, OneHot, Unique and TopK.

use super::elementwise::Real;
use super::layout::{each_index, permuted_positions, pick, picks_of, strides};
use super::{Ctx, Registry, axis, one, sort_positions, tensor, tensor_opt};
use crate::error::KernelResult;
use crate::tensor::{Data, Tensor, array, elements_at, row_major, with_data, zip_data};
use crate::value::Val;
use ndarray::{ArrayD, IxDyn};
use std::cmp::Ordering;

pub(super) fn register(r: &mut Registry) {
    r.add("", "Gather", 1, gather);
    r.add("", "Gather", 11, gather);
    r.add("", "GatherElements", 11, gather_elements);
    r.add("", "GatherND", 11, gather_nd);
    r.add("", "GatherND", 12, gather_nd);
    r.add("", "Scatter", 9, scatter_elements);
    r.add("", "ScatterElements", 11, scatter_elements);
    r.add("", "ScatterElements", 16, scatter_elements);
    r.add("", "ScatterElements", 18, scatter_elements);
    r.add("", "ScatterND", 11, scatter_nd);
    r.add("", "ScatterND", 16, scatter_nd);
    r.add("", "ScatterND", 18, scatter_nd);
    r.add("", "TensorScatter", 24, tensor_scatter);
    r.add("", "Compress", 9, compress);
    r.add("", "NonZero", 9, non_zero);
    r.add("", "OneHot", 9, one_hot);
    r.add("", "OneHot", 11, one_hot);
    r.add("", "Unique", 11, unique);
    r.add("", "TopK", 1, top_k);
    r.add("", "TopK", 10, top_k);
    r.add("", "TopK", 11, top_k);
}

/// An index into a dim of `dim` elements, negative ones counting from the end.
fn resolve_index(index: i64, dim: usize) -> KernelResult<usize> {
    let d = dim as i64;
    let resolved = if index < 0 { index + d } else { index };
    if !(0..d).contains(&resolved) {
        return Err(format!("index {index} is out of range for a dim of {dim}"));
    }
    Ok(resolved as usize)
}

/// Gather: `data[..., indices[j...], ...]` along `axis`.
fn gather(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (data, indices) = (tensor(inputs, 0)?, tensor(inputs, 1)?);
    let shape = data.shape();
    let at = axis(ctx.int("axis", 0), shape.len())?;
    let dim = *shape.get(at).ok_or("Gather from a scalar")?;
    let index_values = indices
        .to_i64_vec()?
        .into_iter()
        .map(|i| resolve_index(i, dim))
        .collect::<KernelResult<Vec<usize>>>()?;
    let q = indices.rank();
    let out: Vec<usize> = [&shape[..at], indices.shape(), &shape[at + 1..]].concat();
    ctx.checked_count(&out)?;
    let in_strides = strides(shape);
    let index_strides = strides(indices.shape());
    let picks = picks_of(&out, |index| {
        let j: usize = index[at..at + q]
            .iter()
            .zip(&index_strides)
            .map(|(i, s)| i * s)
            .sum();
        let outer: usize = index[..at]
            .iter()
            .zip(&in_strides)
            .map(|(i, s)| i * s)
            .sum();
        let inner: usize = index[at + q..]
            .iter()
            .zip(&in_strides[at + 1..])
            .map(|(i, s)| i * s)
            .sum();
        Ok(outer + index_values[j] * in_strides[at] + inner)
    })?;
    one(data.with_data(pick(&data.data, &out, &picks, None)?))
}

/// GatherElements: the output has the indices' shape; each element is the data's at the same
/// position but for `axis`, where the index says.
fn gather_elements(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (data, indices) = (tensor(inputs, 0)?, tensor(inputs, 1)?);
    let shape = data.shape();
    let at = axis(ctx.int("axis", 0), shape.len())?;
    let out = indices.shape();
    check_elementwise_shapes(shape, out, at)?;
    let index_values = indices.to_i64_vec()?;
    let in_strides = strides(shape);
    let mut flat = 0;
    let picks = picks_of(out, |index| {
        let target = resolve_index(index_values[flat], shape[at])?;
        flat += 1;
        Ok(index
            .iter()
            .enumerate()
            .map(|(a, &i)| if a == at { target } else { i } * in_strides[a])
            .sum())
    })?;
    one(data.with_data(pick(&data.data, out, &picks, None)?))
}

/// Indices of the data's rank whose dims (but along `axis`) fit in the data's.
fn check_elementwise_shapes(data: &[usize], indices: &[usize], at: usize) -> KernelResult<()> {
    let fits = data.len() == indices.len()
        && data
            .iter()
            .zip(indices)
            .enumerate()
            .all(|(a, (&d, &i))| a == at || i <= d);
    if !fits {
        return Err(format!(
            "indices of shape {indices:?} do not fit data of shape {data:?}"
        ));
    }
    Ok(())
}

/// GatherND's and ScatterND's reading of the indices: for each of the indices' positions but the
/// last axis, the flat data position the index tuple (after `batch_dims` shared leading axes)
/// starts a block at; and the block's length.
fn nd_offsets(
    data: &[usize],
    indices: &Tensor,
    batch_dims: usize,
) -> KernelResult<(Vec<usize>, Vec<usize>, usize)> {
    let index_shape = indices.shape();
    let (&depth, tuple_shape) = index_shape
        .split_last()
        .ok_or("indices must have rank 1 or more")?;
    if batch_dims >= index_shape.len()
        || batch_dims + depth > data.len()
        || index_shape[..batch_dims] != data[..batch_dims]
    {
        return Err(format!(
            "indices of shape {index_shape:?} do not index data of shape {data:?} after {batch_dims} batch dims"
        ));
    }
    let values = indices.to_i64_vec()?;
    let data_strides = strides(data);
    let block: usize = data[batch_dims + depth..].iter().product();
    let tuple_strides = strides(tuple_shape);
    let mut offsets = Vec::with_capacity(values.len() / depth.max(1));
    each_index(tuple_shape, &mut |position| {
        let tuple_index: usize = position
            .iter()
            .zip(&tuple_strides)
            .map(|(i, s)| i * s)
            .sum();
        let mut offset: usize = position[..batch_dims]
            .iter()
            .zip(&data_strides)
            .map(|(i, s)| i * s)
            .sum();
        for k in 0..depth {
            let a = batch_dims + k;
            offset += resolve_index(values[tuple_index * depth + k], data[a])? * data_strides[a];
        }
        offsets.push(offset);
        Ok(())
    })?;
    let out: Vec<usize> = [tuple_shape, &data[batch_dims + depth..]].concat();
    Ok((offsets, out, block))
}

/// GatherND, with `batch_dims` from version 12.
fn gather_nd(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (data, indices) = (tensor(inputs, 0)?, tensor(inputs, 1)?);
    let requested = if ctx.since >= 12 {
        ctx.int("batch_dims", 0)
    } else {
        0
    };
    let batch_dims = usize::try_from(requested).map_err(|_| "negative batch_dims")?;
    let (offsets, out, block) = nd_offsets(data.shape(), indices, batch_dims)?;
    ctx.checked_count(&out)?;
    let mut picks = Vec::with_capacity(offsets.len() * block);
    for &o in &offsets {
        picks.extend(o..o + block);
    }
    one(data.with_data(pick(&data.data, &out, &picks, None)?))
}

/// How a scatter combines an existing element with an update.
#[derive(Clone, Copy)]
enum Reduction {
    None,
    Add,
    Mul,
    Max,
    Min,
}

/// The `reduction` attribute: add and mul from version 16, max and min from 18.
fn reduction(ctx: &Ctx<'_>) -> KernelResult<Reduction> {
    let name = ctx
        .string("reduction")
        .unwrap_or_else(|| "none".to_string());
    Ok(match name.as_str() {
        "none" => Reduction::None,
        "add" if ctx.since >= 16 => Reduction::Add,
        "mul" if ctx.since >= 16 => Reduction::Mul,
        "max" if ctx.since >= 18 => Reduction::Max,
        "min" if ctx.since >= 18 => Reduction::Min,
        other => return Err(format!("unknown reduction `{other}`")),
    })
}

/// A copy of `data` with `updates[u]` combined into position `t` for each pair (t, u), in order.
fn scatter_array<T: Clone>(
    data: &ArrayD<T>,
    updates: &ArrayD<T>,
    pairs: &[(usize, usize)],
    combine: &dyn Fn(&T, &T) -> T,
) -> KernelResult<ArrayD<T>> {
    let mut target = row_major(data).into_owned();
    let source = row_major(updates);
    for &(t, u) in pairs {
        let (Some(old), Some(new)) = (target.get(t), source.get(u)) else {
            return Err("a scatter position out of range".to_string());
        };
        target[t] = combine(old, new);
    }
    array(data.shape(), target)
}

/// Reduction `none`: the update replaces the element.
fn replace<T: Clone>(_: &T, new: &T) -> T {
    new.clone()
}

/// The combination of a reduction, for real numbers.
fn combine_real<T: Real>(reduction: Reduction) -> impl Fn(&T, &T) -> T {
    move |&old: &T, &new: &T| match reduction {
        Reduction::None => new,
        Reduction::Add => old.add(new),
        Reduction::Mul => old.mul(new),
        Reduction::Max => {
            if new > old {
                new
            } else {
                old
            }
        }
        Reduction::Min => {
            if new < old {
                new
            } else {
                old
            }
        }
    }
}

/// `data` with the updates scattered at `pairs` (data position, update position).
fn scatter_data(
    data: &Tensor,
    updates: &Tensor,
    pairs: &[(usize, usize)],
    reduction: Reduction,
) -> KernelResult<Tensor> {
    if data.dtype != updates.dtype {
        return Err(format!(
            "data is {} and updates {}",
            data.type_name(),
            updates.type_name()
        ));
    }
    let scattered = match (reduction, &data.data, &updates.data) {
        (Reduction::None, d, u) => {
            zip_data!(d, u, (a, b) => scatter_array(a, b, pairs, &replace)?)
        }
        (r, Data::F32(a), Data::F32(b)) => {
            Some(Data::F32(scatter_array(a, b, pairs, &combine_real(r))?))
        }
        (r, Data::F64(a), Data::F64(b)) => {
            Some(Data::F64(scatter_array(a, b, pairs, &combine_real(r))?))
        }
        (r, Data::F16(a), Data::F16(b)) => {
            Some(Data::F16(scatter_array(a, b, pairs, &combine_real(r))?))
        }
        (r, Data::BF16(a), Data::BF16(b)) => {
            Some(Data::BF16(scatter_array(a, b, pairs, &combine_real(r))?))
        }
        (r, Data::I8(a), Data::I8(b)) => {
            Some(Data::I8(scatter_array(a, b, pairs, &combine_real(r))?))
        }
        (r, Data::I16(a), Data::I16(b)) => {
            Some(Data::I16(scatter_array(a, b, pairs, &combine_real(r))?))
        }
        (r, Data::I32(a), Data::I32(b)) => {
            Some(Data::I32(scatter_array(a, b, pairs, &combine_real(r))?))
        }
        (r, Data::I64(a), Data::I64(b)) => {
            Some(Data::I64(scatter_array(a, b, pairs, &combine_real(r))?))
        }
        (r, Data::U8(a), Data::U8(b)) => {
            Some(Data::U8(scatter_array(a, b, pairs, &combine_real(r))?))
        }
        (r, Data::U16(a), Data::U16(b)) => {
            Some(Data::U16(scatter_array(a, b, pairs, &combine_real(r))?))
        }
        (r, Data::U32(a), Data::U32(b)) => {
            Some(Data::U32(scatter_array(a, b, pairs, &combine_real(r))?))
        }
        (r, Data::U64(a), Data::U64(b)) => {
            Some(Data::U64(scatter_array(a, b, pairs, &combine_real(r))?))
        }
        _ => None,
    };
    let scattered =
        scattered.ok_or_else(|| format!("a reduction over {} elements", data.type_name()))?;
    Ok(data.with_data(scattered))
}

/// ScatterElements (and Scatter, its older name): each update goes to its own position but
/// along `axis`, where the index says.
fn scatter_elements(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (data, indices, updates) = (tensor(inputs, 0)?, tensor(inputs, 1)?, tensor(inputs, 2)?);
    let shape = data.shape();
    let at = axis(ctx.int("axis", 0), shape.len())?;
    if updates.shape() != indices.shape() {
        return Err(format!(
            "updates of shape {:?} for indices of shape {:?}",
            updates.shape(),
            indices.shape()
        ));
    }
    check_elementwise_shapes(shape, indices.shape(), at)?;
    let index_values = indices.to_i64_vec()?;
    let in_strides = strides(shape);
    let mut pairs = Vec::with_capacity(index_values.len());
    each_index(indices.shape(), &mut |index| {
        let u = pairs.len();
        let target = resolve_index(index_values[u], shape[at])?;
        let t = index
            .iter()
            .enumerate()
            .map(|(a, &i)| if a == at { target } else { i } * in_strides[a])
            .sum();
        pairs.push((t, u));
        Ok(())
    })?;
    one(scatter_data(data, updates, &pairs, reduction(ctx)?)?)
}

/// ScatterND: each index tuple names a block of the data that the matching block of updates
/// goes to.
fn scatter_nd(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (data, indices, updates) = (tensor(inputs, 0)?, tensor(inputs, 1)?, tensor(inputs, 2)?);
    let (offsets, expected, block) = nd_offsets(data.shape(), indices, 0)?;
    if updates.shape() != expected.as_slice() {
        return Err(format!(
            "updates of shape {:?} where the indices ask for {expected:?}",
            updates.shape()
        ));
    }
    let mut pairs = Vec::with_capacity(offsets.len() * block);
    for (n, &o) in offsets.iter().enumerate() {
        for k in 0..block {
            pairs.push((o + k, n * block + k));
        }
    }
    one(scatter_data(data, updates, &pairs, reduction(ctx)?)?)
}

/// TensorScatter: the update written into the cache along `axis` from each batch's write index,
/// wrapping around in `circular` mode.
fn tensor_scatter(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (cache, update) = (tensor(inputs, 0)?, tensor(inputs, 1)?);
    let shape = cache.shape();
    let at = axis(ctx.int("axis", -2), shape.len())?;
    if at == 0 {
        return Err("axis 0 is the batch axis".to_string());
    }
    let fits = update.rank() == shape.len()
        && update
            .shape()
            .iter()
            .zip(shape)
            .enumerate()
            .all(|(a, (&u, &c))| u == c || a == at && u <= c);
    if !fits {
        return Err(format!(
            "an update of shape {:?} for a cache of shape {shape:?}",
            update.shape()
        ));
    }
    let circular = match ctx.string("mode").as_deref().unwrap_or("linear") {
        "linear" => false,
        "circular" => true,
        other => return Err(format!("unknown mode `{other}`")),
    };
    let writes = match tensor_opt(inputs, 2)? {
        Some(t) => t.to_i64_vec()?,
        None => vec![0; shape[0]],
    };
    if writes.len() != shape[0] {
        return Err(format!(
            "{} write indices for a batch of {}",
            writes.len(),
            shape[0]
        ));
    }
    let max_len = shape[at] as i64;
    let cache_strides = strides(shape);
    let mut pairs = Vec::with_capacity(update.len());
    each_index(update.shape(), &mut |index| {
        let position = writes[index[0]].saturating_add(index[at] as i64);
        let position = if circular && max_len > 0 {
            position.rem_euclid(max_len)
        } else {
            position
        };
        if !(0..max_len).contains(&position) {
            return Err(format!(
                "a write at {position} past the cache's {max_len} steps"
            ));
        }
        let t = index
            .iter()
            .enumerate()
            .map(|(a, &i)| if a == at { position as usize } else { i } * cache_strides[a])
            .sum();
        pairs.push((t, pairs.len()));
        Ok(())
    })?;
    one(scatter_data(cache, update, &pairs, Reduction::None)?)
}

/// Compress: the slices along `axis` (of the flattened input without one) whose condition holds.
fn compress(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (data, condition) = (tensor(inputs, 0)?, tensor(inputs, 1)?);
    let Data::Bool(condition) = &condition.data else {
        return Err(format!(
            "the condition is {}, not bool",
            condition.type_name()
        ));
    };
    let (shape, at) = match ctx.int_opt("axis") {
        Some(a) => (data.shape().to_vec(), axis(a, data.rank())?),
        None => (vec![data.len()], 0),
    };
    let dim = *shape.get(at).ok_or("Compress of a scalar along an axis")?;
    let kept: Vec<usize> = condition
        .iter()
        .enumerate()
        .filter(|&(_, &c)| c)
        .map(|(i, _)| i)
        .collect();
    if let Some(&i) = kept.iter().find(|&&i| i >= dim) {
        return Err(format!("the condition selects {i}, past the dim of {dim}"));
    }
    let mut out = shape.clone();
    out[at] = kept.len();
    let in_strides = strides(&shape);
    let picks = picks_of(&out, |index| {
        Ok(index
            .iter()
            .enumerate()
            .map(|(a, &i)| if a == at { kept[i] } else { i } * in_strides[a])
            .sum())
    })?;
    one(data.with_data(pick(&data.data, &out, &picks, None)?))
}

/// The row-major positions of the elements that are not the type's zero.
fn non_zero_positions<T: Default + PartialEq + Clone>(a: &ArrayD<T>) -> Vec<usize> {
    let zero = T::default();
    let mut positions = Vec::new();
    for (p, x) in row_major(a).iter().enumerate() {
        if *x != zero {
            positions.push(p);
        }
    }
    positions
}

/// NonZero: the indices of the non-zero elements, one row per axis, in row-major order.
fn non_zero(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let data = tensor(inputs, 0)?;
    let positions = with_data!(&data.data, a => non_zero_positions(a));
    let (shape, rank) = (data.shape(), data.rank());
    let in_strides = strides(shape);
    let n = positions.len();
    let mut values = vec![0i64; rank * n];
    for (j, &p) in positions.iter().enumerate() {
        for a in 0..rank {
            values[a * n + j] = (p / in_strides[a] % shape[a]) as i64;
        }
    }
    one(Tensor::from_data(Data::I64(
        ArrayD::from_shape_vec(IxDyn(&[rank, n]), values).map_err(|e| format!("{e}"))?,
    )))
}

/// OneHot: a new axis of `depth` where the index's position holds `values[1]` and the rest
/// `values[0]`; indices out of [0, depth) (from version 11, [-depth, depth)) give no on value.
fn one_hot(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (indices, depth, values) = (tensor(inputs, 0)?, tensor(inputs, 1)?, tensor(inputs, 2)?);
    let depth = match depth.to_f64_vec()?.as_slice() {
        [d] if *d >= 1.0 => *d as usize,
        other => return Err(format!("depth {other:?} is not one positive number")),
    };
    if values.len() != 2 {
        return Err(format!("values holds {} elements, not 2", values.len()));
    }
    let rank = indices.rank() + 1;
    let requested = ctx.int("axis", -1);
    let at = axis(requested, rank)?;
    let index_values: Vec<i64> = indices
        .to_f64_vec()?
        .into_iter()
        .map(|v| v as i64)
        .collect();
    let mut out = indices.shape().to_vec();
    out.insert(at, depth);
    ctx.checked_count(&out)?;
    let index_strides = strides(indices.shape());
    let wraps = ctx.since >= 11;
    let picks = picks_of(&out, |index| {
        let flat: usize = index
            .iter()
            .enumerate()
            .filter(|&(a, _)| a != at)
            .zip(&index_strides)
            .map(|((_, &i), s)| i * s)
            .sum();
        let v = index_values[flat];
        let v = if v < 0 && wraps { v + depth as i64 } else { v };
        Ok(usize::from(v == index[at] as i64))
    })?;
    one(values.with_data(pick(&values.data, &out, &picks, None)?))
}

/// A total order: NaN after every number (as numpy sorts), equal to NaN.
fn total_order<T: PartialOrd>(a: &T, b: &T) -> Ordering {
    a.partial_cmp(b).unwrap_or_else(|| {
        #[allow(clippy::eq_op)]
        let (a_nan, b_nan) = (a != a, b != b);
        a_nan.cmp(&b_nan)
    })
}

/// The distinct items (each `item` consecutive elements of `flat`), as: each distinct item's
/// first position, in the order asked; every item's distinct index; each distinct item's count.
fn unique_items<T: PartialOrd>(
    flat: &[T],
    items: usize,
    item: usize,
    sorted: bool,
) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    let of = |i: usize| &flat[i * item..(i + 1) * item];
    let compare = |a: usize, b: usize| {
        let (a, b) = (of(a), of(b));
        for k in 0..item {
            let order = total_order(&a[k], &b[k]);
            if order.is_ne() {
                return order;
            }
        }
        Ordering::Equal
    };
    unique_groups(items, sorted, &compare)
}

/// `unique_items` past the element type: the items are known by position, ordered by `compare`
/// (so that the sorting is compiled once, not for every element type).
fn unique_groups(
    items: usize,
    sorted: bool,
    compare: &dyn Fn(usize, usize) -> Ordering,
) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    let mut order: Vec<usize> = (0..items).collect();
    sort_positions(&mut order, &|a, b| compare(a, b).then(a.cmp(&b)));
    // Groups of equal items, each known by its first position.
    let mut firsts: Vec<usize> = Vec::new();
    let mut group_of = vec![0; items];
    let mut counts: Vec<usize> = Vec::new();
    for (n, &i) in order.iter().enumerate() {
        if n == 0 || compare(order[n - 1], i).is_ne() {
            firsts.push(i);
            counts.push(0);
        }
        group_of[i] = firsts.len() - 1;
        *counts.last_mut().expect("a group") += 1;
    }
    let mut rank: Vec<usize> = (0..firsts.len()).collect();
    if !sorted {
        sort_positions(&mut rank, &|g, h| firsts[g].cmp(&firsts[h]));
    }
    // `rank` lists the groups in output order; `place` is each group's output position.
    let mut place = vec![0; rank.len()];
    for (p, &g) in rank.iter().enumerate() {
        place[g] = p;
    }
    let first_positions = rank.iter().map(|&g| firsts[g]).collect();
    let inverse = group_of.iter().map(|&g| place[g]).collect();
    let group_counts = rank.iter().map(|&g| counts[g]).collect();
    (first_positions, inverse, group_counts)
}

/// Unique: the distinct elements (or, with `axis`, slices), sorted or in order of first
/// appearance, with their first positions, every element's distinct index and their counts.
fn unique(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let data = tensor(inputs, 0)?;
    let sorted = ctx.int("sorted", 1) != 0;
    let (shape, at) = match ctx.int_opt("axis") {
        Some(a) => (data.shape().to_vec(), axis(a, data.rank())?),
        None => (vec![data.len()], 0),
    };
    let dim = *shape.get(at).ok_or("Unique of a scalar along an axis")?;
    // Items are the slices along `at`: move that axis first so each is contiguous.
    let mut perm: Vec<usize> = (0..shape.len()).collect();
    perm.remove(at);
    perm.insert(0, at);
    let item = data.len().checked_div(dim).unwrap_or(0);
    let moved = super::layout::reshaped(data, &shape)?;
    let positions = permuted_positions(&shape, &perm)?;
    let (firsts, inverse, counts) = with_data!(&moved.data, a => {
        unique_items(&elements_at(&row_major(a), &positions), dim, item, sorted)
    });
    let mut out = shape.clone();
    out[at] = firsts.len();
    let in_strides = strides(&shape);
    let picks = picks_of(&out, |index| {
        Ok(index
            .iter()
            .enumerate()
            .map(|(a, &i)| if a == at { firsts[i] } else { i } * in_strides[a])
            .sum())
    })?;
    let ints = |v: &[usize]| Val::Tensor(Tensor::from_i64s(v.iter().map(|&x| x as i64).collect()));
    Ok(vec![
        Val::Tensor(moved.with_data(pick(&moved.data, &out, &picks, None)?)),
        ints(&firsts),
        ints(&inverse),
        ints(&counts),
    ])
}

/// The flat positions of the k chosen elements of each lane along `at`, in output order (ties
/// to the lower index).
fn top_k_picks<T: PartialOrd + Clone>(
    a: &ArrayD<T>,
    at: usize,
    k: usize,
    largest: bool,
) -> KernelResult<Vec<usize>> {
    let flat = row_major(a);
    Ok(top_k_positions(a.shape(), at, k, largest, &|p, q| {
        total_order(&flat[p], &flat[q])
    }))
}

/// `top_k_picks` past the element type: the elements are known by flat position, ordered by
/// `compare` (so that the sorting is compiled once, not for every element type).
fn top_k_positions(
    shape: &[usize],
    at: usize,
    k: usize,
    largest: bool,
    compare: &dyn Fn(usize, usize) -> Ordering,
) -> Vec<usize> {
    let dim = shape[at];
    let inner: usize = shape[at + 1..].iter().product();
    let outer: usize = shape[..at].iter().product();
    let mut lanes = vec![Vec::new(); outer * inner];
    for (o, i) in (0..outer).flat_map(|o| (0..inner).map(move |i| (o, i))) {
        let base = o * dim * inner + i;
        let mut lane: Vec<usize> = (0..dim).map(|j| base + j * inner).collect();
        sort_positions(&mut lane, &|p, q| {
            let by_value = compare(p, q);
            (if largest {
                by_value.reverse()
            } else {
                by_value
            })
            .then(p.cmp(&q))
        });
        lane.truncate(k);
        lanes[o * inner + i] = lane;
    }
    // Output order: outer, then the k chosen, then inner.
    let mut picks = Vec::with_capacity(outer * k * inner);
    for block in lanes.chunks(inner.max(1)) {
        for j in 0..k {
            picks.extend(block.iter().map(|lane| lane[j]));
        }
    }
    picks
}

/// TopK: `k` as an attribute before version 10, an operand from it; `largest` and `sorted` from
/// 11 (the result is always sorted, which `sorted = 0` allows).
fn top_k(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let data = tensor(inputs, 0)?;
    let shape = data.shape();
    let at = axis(ctx.int("axis", -1), shape.len())?;
    let k = if ctx.since < 10 {
        ctx.int_opt("k").ok_or("no `k`")?
    } else {
        match tensor(inputs, 1)?.to_i64_vec()?.as_slice() {
            [k] => *k,
            other => return Err(format!("K {other:?} is not one integer")),
        }
    };
    let dim = *shape.get(at).ok_or("TopK of a scalar")?;
    if k < 0 || k as usize > dim {
        return Err(format!("k {k} for a dim of {dim}"));
    }
    let k = k as usize;
    let largest = ctx.since < 11 || ctx.int("largest", 1) != 0;
    let picks = with_data!(&data.data, a => top_k_picks(a, at, k, largest)?);
    let mut out = shape.to_vec();
    out[at] = k;
    let inner: usize = shape[at + 1..].iter().product();
    let positions: Vec<i64> = picks
        .iter()
        .map(|&p| ((p / inner.max(1)) % dim) as i64)
        .collect();
    let values = data.with_data(pick(&data.data, &out, &picks, None)?);
    let indices = Tensor::from_data(Data::I64(
        ArrayD::from_shape_vec(IxDyn(&out), positions).map_err(|e| format!("{e}"))?,
    ));
    Ok(vec![Val::Tensor(values), Val::Tensor(indices)])
}

#[cfg(test)]
mod tests {
    //! Older versions that differ from the newest; expected values by hand from each version's
    //! spec.
    use super::super::test_support::{floats, ints, run};

    #[test]
    fn gather_nd_batch_dims_from_v12() {
        // Batch b picks data[b][indices[b]]: rows [1] of batch 0 and [0] of batch 1.
        let data = floats(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], &[2, 2, 2]);
        let indices = ints(&[1, 0], &[2, 1]);
        let text = |opset: i64| {
            format!(
                r#"<ir_version: 7, opset_import: ["" : {opset}]>
                g (float[2, 2, 2] x, int64[2, 1] i) => (float[?, ?] y) {{
                    y = GatherND <batch_dims = 1> (x, i)
                }}"#
            )
        };
        let y = run(&text(12), &[data.clone(), indices.clone()]).unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [3.0, 4.0, 5.0, 6.0]);
        // Version 11 has no batch_dims: the same indices pick whole blocks [1] and [0].
        let y = run(&text(11), &[data, indices]).unwrap();
        assert_eq!(y[0].dims().unwrap(), [2, 2, 2]);
        assert_eq!(
            y[0].to_vec::<f32>().unwrap(),
            [5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0]
        );
    }

    #[test]
    fn scatter_reductions_by_version() {
        let text = |op: &str, opset: i64, reduction: &str| {
            format!(
                r#"<ir_version: 8, opset_import: ["" : {opset}]>
                g (float[3] x, int64[2] i, float[2] u) => (float[3] y) {{
                    y = {op} <reduction = "{reduction}"> (x, i, u)
                }}"#
            )
        };
        let inputs = [
            floats(&[1.0, 2.0, 3.0], &[3]),
            ints(&[2, 2], &[2]),
            floats(&[10.0, 0.5], &[2]),
        ];
        // add from 16: 3 + 10 + 0.5; max from 18: max(3, 10, 0.5).
        let y = run(&text("ScatterElements", 16, "add"), &inputs).unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [1.0, 2.0, 13.5]);
        assert!(run(&text("ScatterElements", 11, "add"), &inputs).is_err());
        assert!(run(&text("ScatterElements", 16, "max"), &inputs).is_err());
        let y = run(&text("ScatterElements", 18, "max"), &inputs).unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [1.0, 2.0, 10.0]);
        // ScatterND-16 mul, with one-element index tuples: 3 * 10 * 0.5.
        let nd = [
            floats(&[1.0, 2.0, 3.0], &[3]),
            ints(&[2, 2], &[2, 1]),
            floats(&[10.0, 0.5], &[2]),
        ];
        let text_nd = |opset: i64| {
            format!(
                r#"<ir_version: 8, opset_import: ["" : {opset}]>
                g (float[3] x, int64[2, 1] i, float[2] u) => (float[3] y) {{
                    y = ScatterND <reduction = "mul"> (x, i, u)
                }}"#
            )
        };
        assert!(run(&text_nd(13), &nd).is_err());
        let y = run(&text_nd(16), &nd).unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [1.0, 2.0, 15.0]);
    }

    #[test]
    fn scatter_v9_is_scatter_elements() {
        let y = run(
            r#"<ir_version: 4, opset_import: ["" : 9]>
            g (float[2, 2] x, int64[1, 2] i, float[1, 2] u) => (float[2, 2] y) {
                y = Scatter <axis = 0> (x, i, u)
            }"#,
            &[
                floats(&[0.0; 4], &[2, 2]),
                ints(&[1, 0], &[1, 2]),
                floats(&[5.0, 6.0], &[1, 2]),
            ],
        )
        .unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [0.0, 6.0, 5.0, 0.0]);
    }

    #[test]
    fn one_hot_v9_leaves_negative_indices_off() {
        let text = |opset: i64| {
            format!(
                r#"<ir_version: 6, opset_import: ["" : {opset}]>
                g (int64[2] i, int64 d, float[2] v) => (float[2, 3] y) {{ y = OneHot (i, d, v) }}"#
            )
        };
        let inputs = [
            ints(&[-1, 1], &[2]),
            ints(&[3], &[]),
            floats(&[0.0, 1.0], &[2]),
        ];
        let y = run(&text(9), &inputs).unwrap();
        assert_eq!(
            y[0].to_vec::<f32>().unwrap(),
            [0.0, 0.0, 0.0, 0.0, 1.0, 0.0]
        );
        // From 11, -1 counts from the end: position 2.
        let y = run(&text(11), &inputs).unwrap();
        assert_eq!(
            y[0].to_vec::<f32>().unwrap(),
            [0.0, 0.0, 1.0, 0.0, 1.0, 0.0]
        );
    }

    #[test]
    fn top_k_by_version() {
        let x = floats(&[3.0, 1.0, 4.0, 1.0, 5.0], &[5]);
        // Version 1: k as an attribute.
        let y = run(
            r#"<ir_version: 3, opset_import: ["" : 1]>
            g (float[5] x) => (float[2] v, int64[2] i) { v, i = TopK <k = 2> (x) }"#,
            std::slice::from_ref(&x),
        )
        .unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [5.0, 4.0]);
        assert_eq!(y[1].to_vec::<i64>().unwrap(), [4, 2]);
        // Version 11: the smallest, ties to the lower index.
        let y = run(
            r#"<ir_version: 6, opset_import: ["" : 11]>
            g (float[5] x, int64[1] k) => (float[2] v, int64[2] i) { v, i = TopK <largest = 0> (x, k) }"#,
            &[x.clone(), ints(&[2], &[1])],
        )
        .unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [1.0, 1.0]);
        assert_eq!(y[1].to_vec::<i64>().unwrap(), [1, 3]);
        // Version 10 has no `largest`: it is ignored, the largest come.
        let y = run(
            r#"<ir_version: 5, opset_import: ["" : 10]>
            g (float[5] x, int64[1] k) => (float[2] v, int64[2] i) { v, i = TopK <largest = 0> (x, k) }"#,
            &[x, ints(&[2], &[1])],
        )
        .unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [5.0, 4.0]);
    }

    #[test]
    fn unique_in_order_of_appearance() {
        // The spec's first example.
        let y = run(
            r#"<ir_version: 6, opset_import: ["" : 11]>
            g (float[6] x) => (float[?] y, int64[?] i, int64[?] v, int64[?] c) {
                y, i, v, c = Unique <sorted = 0> (x)
            }"#,
            &[floats(&[2.0, 1.0, 1.0, 3.0, 4.0, 3.0], &[6])],
        )
        .unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [2.0, 1.0, 3.0, 4.0]);
        assert_eq!(y[1].to_vec::<i64>().unwrap(), [0, 1, 3, 4]);
        assert_eq!(y[2].to_vec::<i64>().unwrap(), [0, 1, 1, 2, 3, 2]);
        assert_eq!(y[3].to_vec::<i64>().unwrap(), [1, 2, 2, 1]);
    }
}
