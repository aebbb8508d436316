//! Pools: MaxPool (with its indices), AveragePool, LpPool, their global forms, and MaxUnpool.
//! Values are computed in f64 and rounded once to the element type.

use super::floats::{Window, kernel_shape, real_from_f64, real_to_f64};
use super::{Ctx, Registry, one, tensor, tensor_opt};
use crate::error::KernelResult;
use crate::tensor::{Data, Tensor};
use crate::value::Val;
use ndarray::{ArrayD, IxDyn};

pub(super) fn register(r: &mut Registry) {
    for since in [1, 8, 10, 11, 12, 22] {
        r.add("", "MaxPool", since, max_pool);
    }
    for since in [1, 7, 10, 11, 19, 22] {
        r.add("", "AveragePool", since, average_pool);
    }
    for since in [1, 2, 11, 18, 22] {
        r.add("", "LpPool", since, lp_pool);
    }
    for since in [1, 22] {
        r.add("", "GlobalAveragePool", since, global_average_pool);
        r.add("", "GlobalMaxPool", since, global_max_pool);
    }
    for since in [1, 2, 22] {
        r.add("", "GlobalLpPool", since, global_lp_pool);
    }
    for since in [9, 11, 22] {
        r.add("", "MaxUnpool", since, max_unpool);
    }
}

/// Which input elements each output position `o` of a plane reads (flat indices within the
/// plane, `indices[starts[o]..starts[o + 1]]`), and how many window positions fall inside the
/// padded input (the divisor when the padding counts).
struct Taps {
    starts: Vec<usize>,
    indices: Vec<usize>,
    padded_counts: Vec<usize>,
}

/// Advances a row-major odometer over `dims`; false once it wraps around.
fn advance(position: &mut [usize], dims: &[usize]) -> bool {
    for i in (0..position.len()).rev() {
        position[i] += 1;
        if position[i] < dims[i] {
            return true;
        }
        position[i] = 0;
    }
    false
}

fn taps(ctx: &Ctx<'_>, input: &[usize], window: &Window) -> KernelResult<Taps> {
    let rank = input.len();
    let out_count = ctx.checked_count(&window.output)?;
    let kernel_count: usize = window.kernel.iter().product();
    ctx.check_size(out_count as u128 * kernel_count as u128)?;
    let mut starts = Vec::with_capacity(out_count + 1);
    let mut indices = Vec::new();
    let mut padded_counts = Vec::with_capacity(out_count);
    if out_count == 0 {
        starts.push(0);
        return Ok(Taps {
            starts,
            indices,
            padded_counts,
        });
    }
    let mut out = vec![0usize; rank];
    loop {
        starts.push(indices.len());
        // Per axis: the input positions of the window's taps, None in the padding, and how
        // many taps lie inside the padded extent.
        let mut per_axis: Vec<Vec<Option<usize>>> = Vec::with_capacity(rank);
        let mut padded = 1usize;
        for axis in 0..rank {
            let mut positions = Vec::with_capacity(window.kernel[axis]);
            let mut inside_padding = 0;
            for k in 0..window.kernel[axis] {
                let p = (out[axis] * window.strides[axis] + k * window.dilations[axis]) as isize
                    - window.pads_begin[axis] as isize;
                if p < input[axis] as isize + window.pads_end[axis] as isize {
                    inside_padding += 1;
                }
                positions.push((p >= 0 && p < input[axis] as isize).then_some(p as usize));
            }
            padded *= inside_padding;
            per_axis.push(positions);
        }
        padded_counts.push(padded);
        let mut k = vec![0usize; rank];
        loop {
            let mut flat = Some(0usize);
            for axis in 0..rank {
                flat = match (flat, per_axis[axis][k[axis]]) {
                    (Some(f), Some(p)) => Some(f * input[axis] + p),
                    _ => None,
                };
            }
            if let Some(flat) = flat {
                indices.push(flat);
            }
            if !advance(&mut k, &window.kernel) {
                break;
            }
        }
        if !advance(&mut out, &window.output) {
            break;
        }
    }
    starts.push(indices.len());
    Ok(Taps {
        starts,
        indices,
        padded_counts,
    })
}

/// The pooling geometry of X ([N, C, spatial...]).
fn pool_window(ctx: &Ctx<'_>, x: &[usize]) -> KernelResult<Window> {
    if x.len() < 3 {
        return Err(format!("X of shape {x:?} has no spatial axes"));
    }
    let kernel = kernel_shape(ctx, None)?;
    Window::new(ctx, &x[2..], &kernel, ctx.int("ceil_mode", 0) != 0)
}

/// Applies `reduce` (a plane, the taps of one output position, its padded count) to every
/// output position of every plane of `x`.
fn pool(
    ctx: &Ctx<'_>,
    x: &ArrayD<f64>,
    window: &Window,
    mut reduce: impl FnMut(&[f64], &[usize], usize) -> f64,
) -> KernelResult<ArrayD<f64>> {
    let taps = taps(ctx, &x.shape()[2..], window)?;
    let mut shape = x.shape()[..2].to_vec();
    shape.extend(&window.output);
    let total = ctx.checked_count(&shape)?;
    let x = x.as_standard_layout();
    let xs = x.as_slice().ok_or("a non-contiguous input")?;
    let plane_len: usize = x.shape()[2..].iter().product();
    let mut y = Vec::with_capacity(total);
    let planes = shape[0] * shape[1];
    for plane in 0..planes {
        let plane = &xs[plane * plane_len..(plane + 1) * plane_len];
        for o in 0..taps.padded_counts.len() {
            let indices = &taps.indices[taps.starts[o]..taps.starts[o + 1]];
            y.push(reduce(plane, indices, taps.padded_counts[o]));
        }
    }
    ArrayD::from_shape_vec(IxDyn(&shape), y).map_err(|e| e.to_string())
}

fn average_pool(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let values = real_to_f64(x)?;
    let window = pool_window(ctx, values.shape())?;
    let include_pad = ctx.int("count_include_pad", 0) != 0;
    let y = pool(ctx, &values, &window, |plane, taps, padded| {
        let sum: f64 = taps.iter().map(|&i| plane[i]).sum();
        let count = if include_pad { padded } else { taps.len() };
        sum / count as f64
    })?;
    one(real_from_f64(x.dtype, y)?)
}

/// The `p` of the Lp pools: a float attribute in version 1, an integer from version 2.
fn lp_order(ctx: &Ctx<'_>) -> KernelResult<f64> {
    let p = if ctx.since < 2 {
        f64::from(ctx.float("p", 2.0))
    } else {
        ctx.int("p", 2) as f64
    };
    if p <= 0.0 {
        return Err(format!("p {p} is not positive"));
    }
    Ok(p)
}

fn lp_norm(values: impl Iterator<Item = f64>, p: f64) -> f64 {
    values.map(|v| v.abs().powf(p)).sum::<f64>().powf(1.0 / p)
}

fn lp_pool(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let values = real_to_f64(x)?;
    let window = pool_window(ctx, values.shape())?;
    let p = lp_order(ctx)?;
    let y = pool(ctx, &values, &window, |plane, taps, _| {
        lp_norm(taps.iter().map(|&i| plane[i]), p)
    })?;
    one(real_from_f64(x.dtype, y)?)
}

/// The flat index within a plane of `dims`, row-major, rewritten column-major.
fn column_major(mut flat: usize, dims: &[usize]) -> usize {
    let mut index = 0;
    let mut scale = 1;
    let mut coords = vec![0; dims.len()];
    for axis in (0..dims.len()).rev() {
        coords[axis] = flat % dims[axis];
        flat /= dims[axis];
    }
    for (axis, &c) in coords.iter().enumerate() {
        index += c * scale;
        scale *= dims[axis];
    }
    index
}

fn max_pool(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let values = real_to_f64(x)?;
    let window = pool_window(ctx, values.shape())?;
    // The winning tap of each output, in the order the outputs are made.
    let mut winners: Vec<Option<usize>> = Vec::new();
    let y = pool(ctx, &values, &window, |plane, taps, _| {
        let mut best: Option<(usize, f64)> = None;
        for &i in taps {
            // The first of equal maxima wins; NaN never does.
            if best.is_none_or(|(_, b)| plane[i] > b) {
                best = Some((i, plane[i]));
            }
        }
        winners.push(best.map(|(i, _)| i));
        best.map_or(0.0, |(_, v)| v)
    })?;
    let mut outputs = vec![Val::Tensor(real_from_f64(x.dtype, y)?)];
    if ctx.outputs > 1 {
        let column = ctx.int("storage_order", 0) != 0;
        let spatial = &values.shape()[2..];
        let plane_len: usize = spatial.iter().product();
        let per_plane: usize = window.output.iter().product();
        let indices: Vec<i64> = winners
            .iter()
            .enumerate()
            .map(|(o, winner)| match winner {
                Some(i) => {
                    let within = if column {
                        column_major(*i, spatial)
                    } else {
                        *i
                    };
                    ((o / per_plane.max(1)) * plane_len + within) as i64
                }
                None => -1,
            })
            .collect();
        let mut shape = values.shape()[..2].to_vec();
        shape.extend(&window.output);
        let indices = ArrayD::from_shape_vec(IxDyn(&shape), indices).map_err(|e| e.to_string())?;
        outputs.push(Val::Tensor(Tensor::from_data(Data::I64(indices))));
    }
    Ok(outputs)
}

/// A global pool: `reduce` of every plane's elements, the spatial dims kept as 1.
fn global_pool(x: &Tensor, reduce: impl Fn(&[f64]) -> f64) -> KernelResult<Tensor> {
    let values = real_to_f64(x)?;
    let shape = values.shape().to_vec();
    if shape.len() < 2 {
        return Err(format!("X of shape {shape:?} has no channel axis"));
    }
    let values = values.as_standard_layout();
    let xs = values.as_slice().ok_or("a non-contiguous input")?;
    let plane_len: usize = shape[2..].iter().product();
    let planes = shape[0] * shape[1];
    let y: Vec<f64> = (0..planes)
        .map(|p| reduce(&xs[p * plane_len..(p + 1) * plane_len]))
        .collect();
    let mut out_shape = shape[..2].to_vec();
    out_shape.extend(std::iter::repeat_n(1, shape.len() - 2));
    let y = ArrayD::from_shape_vec(IxDyn(&out_shape), y).map_err(|e| e.to_string())?;
    real_from_f64(x.dtype, y)
}

fn global_average_pool(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(global_pool(tensor(inputs, 0)?, |plane| {
        plane.iter().sum::<f64>() / plane.len() as f64
    })?)
}

fn global_max_pool(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(global_pool(tensor(inputs, 0)?, |plane| {
        plane.iter().copied().fold(f64::NEG_INFINITY, f64::max)
    })?)
}

fn global_lp_pool(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let p = lp_order(ctx)?;
    one(global_pool(tensor(inputs, 0)?, |plane| {
        lp_norm(plane.iter().copied(), p)
    })?)
}

/// MaxUnpool: X's values at the flat positions I names in a zero output, whose shape is the
/// `output_shape` operand or else the pool's inverse.
fn max_unpool(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let indices = tensor(inputs, 1)?.to_i64_vec()?;
    let shape = x.shape().to_vec();
    if shape.len() < 3 {
        return Err(format!("X of shape {shape:?} has no spatial axes"));
    }
    if indices.len() != x.len() {
        return Err(format!("{} indices for {} values", indices.len(), x.len()));
    }
    let kernel = kernel_shape(ctx, None)?;
    if kernel.len() != shape.len() - 2 {
        return Err(format!(
            "`kernel_shape` {kernel:?} for X of shape {shape:?}"
        ));
    }
    let output_shape = tensor_opt(inputs, 2)?.map(Tensor::to_i64_vec).transpose()?;
    // The spec ignores `pads` when `output_shape` is given: the unpooled tensor is then the
    // one of no padding, and the output pads it with zeros after its end on each axis (as
    // onnx's evaluator does and the kit's case expects). The indices address the unpooled
    // tensor, not the output.
    let window = Window::explicit(ctx, &kernel)?;
    let mut unpooled = shape[..2].to_vec();
    for (i, &n) in shape[2..].iter().enumerate() {
        let full = (n.max(1) - 1)
            .checked_mul(window.strides[i])
            .and_then(|d| d.checked_add(kernel[i]))
            .ok_or("the unpooled shape overflows")?;
        let pads = match output_shape {
            Some(_) => 0,
            None => window.pads_begin[i] + window.pads_end[i],
        };
        unpooled.push(
            full.checked_sub(pads)
                .ok_or("pads larger than the output")?,
        );
    }
    let out_shape: Vec<usize> = match output_shape {
        Some(s) => {
            let fits = s.len() == shape.len()
                && s.iter()
                    .zip(&unpooled)
                    .all(|(&d, &u)| d >= 0 && d as u64 >= u as u64)
                && s[..2]
                    .iter()
                    .zip(&shape)
                    .all(|(&d, &n)| d as u64 == n as u64);
            if !fits {
                return Err(format!(
                    "output_shape {s:?} cannot hold the unpooled shape {unpooled:?} of X of shape {shape:?}"
                ));
            }
            s.iter().map(|&d| d as usize).collect()
        }
        None => unpooled.clone(),
    };
    ctx.checked_count(&out_shape)?;
    let unpooled_count = ctx.checked_count(&unpooled)?;
    let values = real_to_f64(x)?;
    let mut y = ArrayD::<f64>::zeros(IxDyn(&out_shape));
    let mut position = vec![0; unpooled.len()];
    for (&index, &value) in indices.iter().zip(values.iter()) {
        let mut flat = usize::try_from(index)
            .ok()
            .filter(|&i| i < unpooled_count)
            .ok_or_else(|| {
                format!("index {index} is outside the unpooled tensor of {unpooled_count} elements")
            })?;
        for axis in (0..unpooled.len()).rev() {
            position[axis] = flat % unpooled[axis];
            flat /= unpooled[axis];
        }
        y[IxDyn(&position)] = value;
    }
    one(real_from_f64(x.dtype, y)?)
}

#[cfg(test)]
mod tests {
    use onnx_value::Value;

    fn run_1d(opset: i64, node: &str, out: usize) -> Vec<f32> {
        let text = format!(
            r#"<ir_version: 3, opset_import: ["" : {opset}]>
            g (float[1, 1, 4] x) => (float[1, 1, {out}] y) {{ y = {node} (x) }}"#
        );
        let model = onnx_text::parse_model(&text).unwrap();
        let x = Value::tensor(&[1.0f32, -2.0, 3.0, 4.0], &[1, 1, 4]).unwrap();
        crate::run(&model, &[x]).unwrap()[0]
            .to_vec::<f32>()
            .unwrap()
    }

    /// LpPool-1 and GlobalLpPool-1 take a float `p`, later versions an integer one. Expected
    /// values by hand: L1 norms of the windows [1, -2], [-2, 3], [3, 4] and of all four.
    #[test]
    fn lp_pools_of_version_1_take_a_float_p() {
        assert_eq!(
            run_1d(1, "LpPool <kernel_shape = [2], p = 1.0>", 3),
            [3.0, 5.0, 7.0]
        );
        assert_eq!(
            run_1d(11, "LpPool <kernel_shape = [2], p = 1>", 3),
            [3.0, 5.0, 7.0]
        );
        assert_eq!(run_1d(1, "GlobalLpPool <p = 1.0>", 1), [10.0]);
        assert_eq!(run_1d(2, "GlobalLpPool <p = 1>", 1), [10.0]);
    }

    /// MaxPool-8's indices, row-major and (storage_order 1) column-major over a 2x2 plane
    /// whose maximum is at row 1, column 0. By hand.
    #[test]
    fn max_pool_8_indices_follow_storage_order() {
        let indices = |order: i64| {
            let text = format!(
                r#"<ir_version: 3, opset_import: ["" : 8]>
                g (float[1, 1, 2, 2] x) => (float[1, 1, 1, 1] y, int64[1, 1, 1, 1] i) {{
                    y, i = MaxPool <kernel_shape = [2, 2], storage_order = {order}> (x)
                }}"#
            );
            let model = onnx_text::parse_model(&text).unwrap();
            let x = Value::tensor(&[1.0f32, 2.0, 5.0, 3.0], &[1, 1, 2, 2]).unwrap();
            let out = crate::run(&model, &[x]).unwrap();
            assert_eq!(out[0].to_vec::<f32>().unwrap(), [5.0]);
            out[1].to_vec::<i64>().unwrap()
        };
        assert_eq!(indices(0), [2]);
        assert_eq!(indices(1), [1]);
    }
}

#[cfg(test)]
mod unpool_tests {
    use onnx_value::Value;

    /// MaxUnpool puts X's values at I's flat positions of the inferred output, and refuses an
    /// index outside it. By hand: a 2x2 output from a 1x1 input, kernel 2.
    #[test]
    fn max_unpool_places_and_checks_indices() {
        let model = onnx_text::parse_model(
            r#"<ir_version: 8, opset_import: ["" : 22]>
            g (float[1, 1, 1, 1] x, int64[1, 1, 1, 1] i) => (float[1, 1, 2, 2] y) {
                y = MaxUnpool <kernel_shape = [2, 2]> (x, i)
            }"#,
        )
        .unwrap();
        let x = Value::tensor(&[7.0f32], &[1, 1, 1, 1]).unwrap();
        let at = |index: i64| Value::tensor(&[index], &[1, 1, 1, 1]).unwrap();
        let y = crate::run(&model, &[x.clone(), at(2)]).unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [0.0, 0.0, 7.0, 0.0]);
        assert!(crate::run(&model, &[x.clone(), at(4)]).is_err());
        assert!(crate::run(&model, &[x, at(-1)]).is_err());
    }

    /// With `output_shape`, the indices address the unpooled tensor (here 4x4: no padding,
    /// since the spec ignores `pads` then), which the output pads with zeros at the end. The
    /// kit's case has no `pads`; onnx's evaluator would shrink the unpooled tensor by them
    /// (to 2x2, so these indices would land in its top-left block): see docs/divergences.md.
    #[test]
    fn max_unpool_with_output_shape_ignores_pads() {
        let model = onnx_text::parse_model(
            r#"<ir_version: 8, opset_import: ["" : 22]>
            g (float[1, 1, 2, 2] x, int64[1, 1, 2, 2] i, int64[4] s) => (float[1, 1, 5, 5] y) {
                y = MaxUnpool <kernel_shape = [2, 2], strides = [2, 2], pads = [1, 1, 1, 1]> (x, i, s)
            }"#,
        )
        .unwrap();
        let x = Value::tensor(&[1.0f32, 2.0, 3.0, 4.0], &[1, 1, 2, 2]).unwrap();
        let i = Value::tensor(&[0i64, 1, 2, 15], &[1, 1, 2, 2]).unwrap();
        let s = Value::tensor(&[1i64, 1, 5, 5], &[4]).unwrap();
        let y = crate::run(&model, &[x.clone(), i, s]).unwrap();
        let mut expected = [0.0f32; 25];
        // Flat 0, 1, 2 are row 0 of the 4x4 tensor; 15 is its (3, 3), which is (3, 3) of 5x5.
        expected[0] = 1.0;
        expected[1] = 2.0;
        expected[2] = 3.0;
        expected[3 * 5 + 3] = 4.0;
        assert_eq!(y[0].to_vec::<f32>().unwrap(), expected);
        // An index past the unpooled tensor (16 elements) is refused, though the output has 25.
        let i = Value::tensor(&[0i64, 1, 2, 16], &[1, 1, 2, 2]).unwrap();
        let s = Value::tensor(&[1i64, 1, 5, 5], &[4]).unwrap();
        let err = crate::run(&model, &[x.clone(), i, s])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("index 16 is outside the unpooled tensor of 16 elements"),
            "{err}"
        );
        // An output_shape smaller than the unpooled tensor is refused.
        let i = Value::tensor(&[0i64, 1, 2, 3], &[1, 1, 2, 2]).unwrap();
        let s = Value::tensor(&[1i64, 1, 3, 5], &[4]).unwrap();
        let err = crate::run(&model, &[x, i, s]).unwrap_err().to_string();
        assert!(
            err.contains("cannot hold the unpooled shape [1, 1, 4, 4]"),
            "{err}"
        );
    }
}
