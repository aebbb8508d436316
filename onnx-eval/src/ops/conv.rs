//! Convolutions: Conv, ConvTranspose, ConvInteger and QLinearConv, by im2col (or col2im) into
//! one contiguous buffer and one GEMM per batch item and group on ndarray's GEMM; and
//! CausalConvWithState, a depthwise 1-D convolution small enough to compute directly.

use super::floats::{Wide, Window, kernel_shape, narrow, widen};
use super::{Ctx, Registry, one, tensor, tensor_opt};
use crate::error::KernelResult;
use crate::tensor::MapEach;
use crate::tensor::{Data, Tensor};
use crate::value::Val;
use ndarray::linalg::general_mat_mul;
use ndarray::{ArrayD, ArrayView2, ArrayViewMut2, IxDyn, LinalgScalar};
use onnx_runtime_types::tensor_proto::DataType;
use std::num::Wrapping;

pub(super) fn register(r: &mut Registry) {
    for since in [1, 11, 22] {
        r.add("", "Conv", since, conv);
        r.add("", "ConvTranspose", since, conv_transpose);
    }
    r.add("", "ConvInteger", 10, conv_integer);
    for since in [19, 22] {
        r.add("", "DeformConv", since, deform_conv);
    }
    r.add("", "CausalConvWithState", 27, causal_conv_with_state);
}

/// The range of positions `p` in `0..count` whose target `p * stride + offset` falls in
/// `0..limit`: the valid part of one row of im2col (or col2im).
fn valid_range(count: usize, stride: usize, offset: isize, limit: usize) -> (usize, usize) {
    let stride = stride as isize;
    let low = if offset >= 0 {
        0
    } else {
        (-offset + stride - 1) / stride
    };
    let last = limit as isize - 1 - offset;
    let high = if last < 0 { 0 } else { last / stride + 1 };
    let high = (high as usize).min(count);
    let low = (low as usize).min(high);
    (low, high)
}

/// Row-major strides of `dims`.
fn strides_of(dims: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * dims[i + 1];
    }
    strides
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

/// For one kernel offset, the rows of im2col: per leading output position, (where the row
/// starts among the output positions, the flat input index of its first valid element or None
/// when the leading axes fall in the padding, and the valid range on the last axis).
fn row_segments(
    kpos: &[usize],
    window: &Window,
    input: &[usize],
) -> Vec<(usize, Option<usize>, usize, usize)> {
    let last = input.len() - 1;
    let input_strides = strides_of(input);
    // Output position p reads input p * stride + k * dilation - pad on each axis.
    let offset = |axis: usize| -> isize {
        (kpos[axis] * window.dilations[axis]) as isize - window.pads_begin[axis] as isize
    };
    let row_len = window.output[last];
    let (low, high) = valid_range(row_len, window.strides[last], offset(last), input[last]);
    let start = ((low * window.strides[last]) as isize + offset(last)).max(0) as usize;
    let mut segments = Vec::new();
    let mut lead = vec![0usize; last];
    let mut row = 0usize;
    loop {
        let mut base = Some(start);
        for axis in 0..last {
            let target = (lead[axis] * window.strides[axis]) as isize + offset(axis);
            if target < 0 || target >= input[axis] as isize {
                base = None;
                break;
            }
            base = base.map(|b| b + target as usize * input_strides[axis]);
        }
        segments.push((row * row_len, base, low, high));
        row += 1;
        if last == 0 || !advance(&mut lead, &window.output[..last]) {
            break;
        }
    }
    segments
}

/// Fills `col` ([channels * kernel, output positions]) from one group's input `x`
/// ([channels, input spatial]).
fn im2col<T: LinalgScalar>(
    x: &[T],
    channels: usize,
    input: &[usize],
    window: &Window,
    col: &mut [T],
) {
    let in_count: usize = input.iter().product();
    let out_count: usize = window.output.iter().product();
    let last = input.len() - 1;
    let stride = window.strides[last];
    let mut kpos = vec![0usize; input.len()];
    let mut kernel_index = 0;
    let kernel_count: usize = window.kernel.iter().product();
    loop {
        let segments = row_segments(&kpos, window, input);
        for c in 0..channels {
            let plane = &x[c * in_count..(c + 1) * in_count];
            let row_start = (c * kernel_count + kernel_index) * out_count;
            let row = &mut col[row_start..row_start + out_count];
            for &(at, source, low, high) in &segments {
                let segment = &mut row[at..at + window.output[last]];
                let Some(source) = source.filter(|_| low < high) else {
                    segment.fill(T::zero());
                    continue;
                };
                segment[..low].fill(T::zero());
                segment[high..].fill(T::zero());
                let valid = &mut segment[low..high];
                if stride == 1 {
                    valid.copy_from_slice(&plane[source..source + valid.len()]);
                } else {
                    for (to, from) in valid.iter_mut().zip(plane[source..].iter().step_by(stride)) {
                        *to = *from;
                    }
                }
            }
        }
        kernel_index += 1;
        if !advance(&mut kpos, &window.kernel) {
            break;
        }
    }
}

/// The convolution of `x` ([N, C, spatial...]) by `w` ([M, C / group, kernel...]) in `group`
/// groups, without bias: [N, M, output spatial...].
pub(crate) fn convolve<T: LinalgScalar>(
    ctx: &Ctx<'_>,
    x: &ArrayD<T>,
    w: &ArrayD<T>,
    window: &Window,
    group: usize,
) -> KernelResult<ArrayD<T>> {
    let (n, c) = (x.shape()[0], x.shape()[1]);
    let m = w.shape()[0];
    let input = &x.shape()[2..];
    let channels = c / group;
    let per_group = m / group;
    let in_count: usize = input.iter().product();
    let out_count: usize = window.output.iter().product();
    let kernel_count: usize = window.kernel.iter().product();
    let rows = channels * kernel_count;
    let mut shape = vec![n, m];
    shape.extend(&window.output);
    let total = ctx.checked_count(&shape)?;
    // A 1x1 kernel with unit steps and no padding reads the input as it is.
    let pointwise = window.kernel.iter().all(|&k| k == 1)
        && window.strides.iter().all(|&s| s == 1)
        && window
            .pads_begin
            .iter()
            .chain(&window.pads_end)
            .all(|&p| p == 0);
    let mut col = if pointwise {
        Vec::new()
    } else {
        ctx.check_size(rows as u128 * out_count as u128)?;
        vec![T::zero(); rows * out_count]
    };
    let x = x.as_standard_layout();
    let w = w.as_standard_layout();
    let xs = x.as_slice().ok_or("a non-contiguous input")?;
    let ws = w.as_slice().ok_or("a non-contiguous weight")?;
    let mut y = vec![T::zero(); total];
    for b in 0..n {
        for g in 0..group {
            let start = (b * c + g * channels) * in_count;
            let xg = &xs[start..start + channels * in_count];
            let columns = if pointwise {
                ArrayView2::from_shape((rows, out_count), xg)
            } else {
                im2col(xg, channels, input, window, &mut col);
                ArrayView2::from_shape((rows, out_count), &col[..])
            }
            .map_err(|e| e.to_string())?;
            let wg = ArrayView2::from_shape(
                (per_group, rows),
                &ws[g * per_group * rows..(g + 1) * per_group * rows],
            )
            .map_err(|e| e.to_string())?;
            let at = (b * m + g * per_group) * out_count;
            let mut yg = ArrayViewMut2::from_shape(
                (per_group, out_count),
                &mut y[at..at + per_group * out_count],
            )
            .map_err(|e| e.to_string())?;
            general_mat_mul(T::one(), &wg, &columns, T::zero(), &mut yg);
        }
    }
    ArrayD::from_shape_vec(IxDyn(&shape), y).map_err(|e| e.to_string())
}

/// Adds `bias[m]` to every element of channel `m` of `y` ([N, M, ...]).
fn add_bias<T: LinalgScalar>(y: &mut ArrayD<T>, bias: &ArrayD<T>) -> KernelResult<()> {
    let m = y.shape()[1];
    if bias.len() != m {
        return Err(format!(
            "a bias of {} elements for {m} channels",
            bias.len()
        ));
    }
    let bias: Vec<T> = bias.iter().copied().collect();
    for mut batch in y.outer_iter_mut() {
        for (mut channel, &b) in batch.outer_iter_mut().zip(&bias) {
            channel.mapv_inplace(|v| v + b);
        }
    }
    Ok(())
}

/// Checks X and W agree for a convolution and gives the group count and window.
fn conv_geometry(
    ctx: &Ctx<'_>,
    x: &[usize],
    w: &[usize],
    ceil_mode: bool,
) -> KernelResult<(usize, Window)> {
    if x.len() < 3 || w.len() != x.len() {
        return Err(format!(
            "X of shape {x:?} and W of shape {w:?} do not convolve"
        ));
    }
    let group = ctx.int("group", 1);
    if group < 1 {
        return Err(format!("group {group}"));
    }
    let group = group as usize;
    if w[1].checked_mul(group) != Some(x[1]) || !w[0].is_multiple_of(group) {
        return Err(format!(
            "X of shape {x:?} and W of shape {w:?} do not convolve in {group} groups"
        ));
    }
    let kernel = kernel_shape(ctx, Some(&w[2..]))?;
    if kernel != w[2..] {
        return Err(format!(
            "`kernel_shape` {kernel:?} is not W's {:?}",
            &w[2..]
        ));
    }
    let window = Window::new(ctx, &x[2..], &kernel, ceil_mode)?;
    Ok((group, window))
}

/// A float convolution with its optional bias.
fn convolve_wide<T: LinalgScalar>(
    ctx: &Ctx<'_>,
    x: &ArrayD<T>,
    w: &ArrayD<T>,
    bias: Option<&ArrayD<T>>,
) -> KernelResult<ArrayD<T>> {
    let (group, window) = conv_geometry(ctx, x.shape(), w.shape(), false)?;
    let mut y = convolve(ctx, x, w, &window, group)?;
    if let Some(bias) = bias {
        add_bias(&mut y, bias)?;
    }
    Ok(y)
}

/// A convolution of X and W (and B) in one float type.
type Convolution<T> =
    fn(&Ctx<'_>, &ArrayD<T>, &ArrayD<T>, Option<&ArrayD<T>>) -> KernelResult<ArrayD<T>>;

/// Conv and ConvTranspose: X, W and B widened to f32 or f64, convolved by the instance of one
/// generic convolution for that type, and narrowed back to X's type.
fn float_convolution(
    ctx: &Ctx<'_>,
    inputs: &[Option<&Val>],
    in_f32: Convolution<f32>,
    in_f64: Convolution<f64>,
) -> KernelResult<Vec<Val>> {
    let (x, w) = (tensor(inputs, 0)?, tensor(inputs, 1)?);
    let bias = tensor_opt(inputs, 2)?.map(widen).transpose()?;
    let y = match (widen(x)?, widen(w)?, bias) {
        (Wide::F32(x), Wide::F32(w), None) => Wide::F32(in_f32(ctx, &x, &w, None)?),
        (Wide::F32(x), Wide::F32(w), Some(Wide::F32(b))) => {
            Wide::F32(in_f32(ctx, &x, &w, Some(&b))?)
        }
        (Wide::F64(x), Wide::F64(w), None) => Wide::F64(in_f64(ctx, &x, &w, None)?),
        (Wide::F64(x), Wide::F64(w), Some(Wide::F64(b))) => {
            Wide::F64(in_f64(ctx, &x, &w, Some(&b))?)
        }
        _ => return Err("X, W and B are not of one element type".to_string()),
    };
    one(narrow(x.dtype, y)?)
}

fn conv(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    float_convolution(ctx, inputs, convolve_wide::<f32>, convolve_wide::<f64>)
}

/// An integer tensor's elements as i64 (int8, uint8, int32), for the integer convolutions and
/// products: they accumulate in i64, which no realistic depth overflows.
pub(crate) fn to_i64(t: &Tensor) -> KernelResult<ArrayD<i64>> {
    Ok(match &t.data {
        Data::I8(a) => a.map_each(&i64::from),
        Data::U8(a) => a.map_each(&i64::from),
        Data::I32(a) => a.map_each(&i64::from),
        _ => {
            return Err(format!(
                "expected int8, uint8 or int32, got {}",
                t.type_name()
            ));
        }
    })
}

/// The zero point of an integer operand: a scalar, or one per element of `axis` of length `n`
/// (broadcast by the caller); 0 when missing.
fn zero_points(t: Option<&Tensor>) -> KernelResult<Vec<i64>> {
    match t {
        None => Ok(vec![0]),
        Some(t) => Ok(to_i64(t)?.iter().copied().collect()),
    }
}

/// Subtracts per-channel (axis 0) or scalar zero points from `a`.
fn shift_by_channel(a: &mut ArrayD<i64>, zero: &[i64]) -> KernelResult<()> {
    match zero {
        [z] => a.mapv_inplace(|v| v - z),
        many if a.ndim() > 0 && many.len() == a.shape()[0] => {
            for (mut channel, &z) in a.outer_iter_mut().zip(many) {
                channel.mapv_inplace(|v| v - z);
            }
        }
        many => {
            return Err(format!(
                "{} zero points for shape {:?}",
                many.len(),
                a.shape()
            ));
        }
    }
    Ok(())
}

/// The integer convolution of (X - x_zero_point) by (W - w_zero_point), padded with zeros after
/// the shift (the spec pads with the zero point).
pub(crate) fn integer_convolution(
    ctx: &Ctx<'_>,
    x: &Tensor,
    x_zero: Option<&Tensor>,
    w: &Tensor,
    w_zero: Option<&Tensor>,
) -> KernelResult<ArrayD<i64>> {
    let mut xs = to_i64(x)?;
    let mut ws = to_i64(w)?;
    let xz = zero_points(x_zero)?;
    if xz.len() != 1 {
        return Err("x_zero_point is not a scalar".to_string());
    }
    shift_by_channel(&mut xs, &xz)?;
    shift_by_channel(&mut ws, &zero_points(w_zero)?)?;
    let (group, window) = conv_geometry(ctx, xs.shape(), ws.shape(), false)?;
    // Wrapping arithmetic: no overflow panics whatever the values.
    let y = convolve(
        ctx,
        &xs.map_each(&Wrapping),
        &ws.map_each(&Wrapping),
        &window,
        group,
    )?;
    Ok(y.map_each(&|Wrapping(v)| v))
}

fn conv_integer(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let y = integer_convolution(
        ctx,
        tensor(inputs, 0)?,
        tensor_opt(inputs, 2)?,
        tensor(inputs, 1)?,
        tensor_opt(inputs, 3)?,
    )?;
    one(Tensor::from_data(Data::I32(y.map_each(&|v| v as i32))))
}

/// ConvTranspose's output spatial dims and pads, from `output_shape` or the pads.
fn transpose_window(ctx: &Ctx<'_>, input: &[usize], kernel: &[usize]) -> KernelResult<Window> {
    let rank = input.len();
    let mut window = Window::explicit(ctx, kernel)?;
    let output_padding: Vec<usize> = match ctx.ints("output_padding") {
        Some(p) if p.len() == rank && p.iter().all(|&v| (0..1 << 31).contains(&v)) => {
            p.iter().map(|&v| v as usize).collect()
        }
        Some(p) if !p.is_empty() => return Err(format!("`output_padding` {p:?}")),
        _ => vec![0; rank],
    };
    let auto_pad = ctx.string("auto_pad").unwrap_or_default();
    let explicit_shape = match ctx.ints("output_shape") {
        Some(s) if !s.is_empty() => {
            let s = &s[s.len().saturating_sub(rank)..];
            if s.len() != rank || s.iter().any(|&v| v < 0) {
                return Err(format!("`output_shape` {s:?}"));
            }
            Some(s.iter().map(|&v| v as usize).collect::<Vec<_>>())
        }
        _ => None,
    };
    let mut output = Vec::with_capacity(rank);
    for i in 0..rank {
        let extent = (kernel[i] - 1) * window.dilations[i] + 1;
        // Saturating: a hostile dim then fails the size check instead of overflowing.
        let full = window.strides[i]
            .saturating_mul(input[i].max(1) - 1)
            .saturating_add(output_padding[i] + extent);
        let target = match (&explicit_shape, auto_pad.as_str()) {
            (Some(s), _) => Some(s[i]),
            (None, "SAME_UPPER" | "SAME_LOWER") => Some(input[i] * window.strides[i]),
            _ => None,
        };
        match target {
            Some(out) => {
                // A negative total pads the end with zeros (the halves round down).
                let total = full as i64 - out as i64;
                let half = total.div_euclid(2);
                let (begin, end) = if auto_pad == "SAME_UPPER" {
                    (half, total - half)
                } else {
                    (total - half, half)
                };
                if begin < 0 {
                    return Err(format!("output dim {out} needs padding before the input"));
                }
                (window.pads_begin[i], window.pads_end[i]) = (begin as usize, end.max(0) as usize);
                output.push(out);
            }
            None => {
                if auto_pad == "VALID" {
                    (window.pads_begin[i], window.pads_end[i]) = (0, 0);
                }
                let out = full
                    .checked_sub(window.pads_begin[i] + window.pads_end[i])
                    .ok_or("pads larger than the output")?;
                output.push(out);
            }
        }
    }
    window.output = output;
    Ok(window)
}

/// Adds `col` ([channels * kernel, input positions]) into `y` ([channels, output spatial]),
/// each column at the output position it reaches: the adjoint of im2col.
fn col2im<T: LinalgScalar>(
    col: &[T],
    channels: usize,
    input: &[usize],
    window: &Window,
    y: &mut [T],
) {
    let out_count: usize = window.output.iter().product();
    let in_count: usize = input.iter().product();
    let kernel_count: usize = window.kernel.iter().product();
    let last = input.len() - 1;
    let out_strides = strides_of(&window.output);
    let mut kpos = vec![0usize; input.len()];
    let mut kernel_index = 0;
    loop {
        // Input position p reaches output p * stride + k * dilation - pad on each axis.
        let offset = |axis: usize| -> isize {
            (kpos[axis] * window.dilations[axis]) as isize - window.pads_begin[axis] as isize
        };
        let (low, high) = valid_range(
            input[last],
            window.strides[last],
            offset(last),
            window.output[last],
        );
        let mut lead = vec![0usize; last];
        let mut row = 0usize;
        loop {
            let mut base = Some(0usize);
            for axis in 0..last {
                let target = (lead[axis] * window.strides[axis]) as isize + offset(axis);
                if target < 0 || target >= window.output[axis] as isize {
                    base = None;
                    break;
                }
                base = base.map(|b| b + target as usize * out_strides[axis]);
            }
            if let Some(base) = base
                && low < high
            {
                let first =
                    (base as isize + (low * window.strides[last]) as isize + offset(last)) as usize;
                for c in 0..channels {
                    let source_start =
                        (c * kernel_count + kernel_index) * in_count + row * input[last];
                    let source = &col[source_start + low..source_start + high];
                    let plane = &mut y[c * out_count..(c + 1) * out_count];
                    for (value, to) in source
                        .iter()
                        .zip(plane[first..].iter_mut().step_by(window.strides[last]))
                    {
                        *to = *to + *value;
                    }
                }
            }
            row += 1;
            if last == 0 || !advance(&mut lead, &input[..last]) {
                break;
            }
        }
        kernel_index += 1;
        if !advance(&mut kpos, &window.kernel) {
            break;
        }
    }
}

/// The transposed convolution of `x` ([N, C, spatial...]) by `w` ([C, M / group, kernel...]).
fn transpose_convolve<T: LinalgScalar>(
    ctx: &Ctx<'_>,
    x: &ArrayD<T>,
    w: &ArrayD<T>,
    bias: Option<&ArrayD<T>>,
) -> KernelResult<ArrayD<T>> {
    let (xd, wd) = (x.shape(), w.shape());
    if xd.len() < 3 || wd.len() != xd.len() {
        return Err(format!(
            "X of shape {xd:?} and W of shape {wd:?} do not convolve"
        ));
    }
    let group = ctx.int("group", 1);
    if group < 1 || xd[1] % group as usize != 0 || wd[0] != xd[1] {
        return Err(format!(
            "X of shape {xd:?} and W of shape {wd:?} in {group} groups"
        ));
    }
    let group = group as usize;
    let kernel = kernel_shape(ctx, Some(&wd[2..]))?;
    if kernel != wd[2..] {
        return Err(format!(
            "`kernel_shape` {kernel:?} is not W's {:?}",
            &wd[2..]
        ));
    }
    let input = &xd[2..];
    let window = transpose_window(ctx, input, &kernel)?;
    let (n, c) = (xd[0], xd[1]);
    let channels = c / group;
    let per_group = wd[1];
    let m = per_group * group;
    let in_count: usize = input.iter().product();
    let out_count: usize = window.output.iter().product();
    let kernel_count: usize = kernel.iter().product();
    let mut shape = vec![n, m];
    shape.extend(&window.output);
    let total = ctx.checked_count(&shape)?;
    ctx.check_size(per_group as u128 * kernel_count as u128 * in_count as u128)?;
    let mut col = vec![T::zero(); per_group * kernel_count * in_count];
    let x = x.as_standard_layout();
    let w = w.as_standard_layout();
    let xs = x.as_slice().ok_or("a non-contiguous input")?;
    let ws = w.as_slice().ok_or("a non-contiguous weight")?;
    let mut y = vec![T::zero(); total];
    let rows = per_group * kernel_count;
    for b in 0..n {
        for g in 0..group {
            let start = (b * c + g * channels) * in_count;
            let xg = ArrayView2::from_shape(
                (channels, in_count),
                &xs[start..start + channels * in_count],
            )
            .map_err(|e| e.to_string())?;
            let wg = ArrayView2::from_shape(
                (channels, rows),
                &ws[g * channels * rows..(g + 1) * channels * rows],
            )
            .map_err(|e| e.to_string())?;
            let mut columns = ArrayViewMut2::from_shape((rows, in_count), &mut col[..])
                .map_err(|e| e.to_string())?;
            general_mat_mul(T::one(), &wg.t(), &xg, T::zero(), &mut columns);
            let at = (b * m + g * per_group) * out_count;
            col2im(
                &col,
                per_group,
                input,
                &window,
                &mut y[at..at + per_group * out_count],
            );
        }
    }
    let mut y = ArrayD::from_shape_vec(IxDyn(&shape), y).map_err(|e| e.to_string())?;
    if let Some(bias) = bias {
        add_bias(&mut y, bias)?;
    }
    Ok(y)
}

fn conv_transpose(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    float_convolution(
        ctx,
        inputs,
        transpose_convolve::<f32>,
        transpose_convolve::<f64>,
    )
}

/// X's value at the real position (y, x) of a plane of `height` x `width`, bilinear between
/// the four pixels around it, pixels outside the plane counting as 0.
fn bilinear(plane: &[f64], height: usize, width: usize, y: f64, x: f64) -> f64 {
    let (y0, x0) = (y.floor(), x.floor());
    let (dy, dx) = (y - y0, x - x0);
    let pixel = |row: f64, column: f64| -> f64 {
        if row < 0.0 || column < 0.0 || row >= height as f64 || column >= width as f64 {
            0.0
        } else {
            plane[row as usize * width + column as usize]
        }
    };
    (1.0 - dy) * (1.0 - dx) * pixel(y0, x0)
        + (1.0 - dy) * dx * pixel(y0, x0 + 1.0)
        + dy * (1.0 - dx) * pixel(y0 + 1.0, x0)
        + dy * dx * pixel(y0 + 1.0, x0 + 1.0)
}

/// DeformConv (2-D): each kernel tap samples X at its place moved by the offset operand
/// (bilinearly), weighted by the optional mask; then one GEMM per batch item and group.
fn deform_conv(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    use super::floats::{from_f64, to_f64};
    let x_tensor = tensor(inputs, 0)?;
    let x = to_f64(x_tensor)?;
    let w = to_f64(tensor(inputs, 1)?)?;
    let offset = to_f64(tensor(inputs, 2)?)?;
    let bias = tensor_opt(inputs, 3)?.map(to_f64).transpose()?;
    let mask = tensor_opt(inputs, 4)?.map(to_f64).transpose()?;
    if x.ndim() != 4 {
        return Err(format!(
            "DeformConv of X of shape {:?}: only 2-D is done",
            x.shape()
        ));
    }
    let (group, window) = conv_geometry(ctx, x.shape(), w.shape(), false)?;
    let (n, c, height, width) = (x.shape()[0], x.shape()[1], x.shape()[2], x.shape()[3]);
    let m = w.shape()[0];
    let (kh, kw) = (window.kernel[0], window.kernel[1]);
    let (oh, ow) = (window.output[0], window.output[1]);
    let offset_groups = ctx.int("offset_group", 1);
    if offset_groups < 1 || c % offset_groups as usize != 0 {
        return Err(format!("offset_group {offset_groups} for {c} channels"));
    }
    let offset_groups = offset_groups as usize;
    if offset.shape() != [n, offset_groups * kh * kw * 2, oh, ow] {
        return Err(format!("an offset of shape {:?}", offset.shape()));
    }
    if let Some(mask) = &mask
        && mask.shape() != [n, offset_groups * kh * kw, oh, ow]
    {
        return Err(format!("a mask of shape {:?}", mask.shape()));
    }
    let out_count = oh * ow;
    let rows = c * kh * kw;
    let total = ctx.checked_count(&[n, m, oh, ow])?;
    ctx.check_size(rows as u128 * out_count as u128)?;
    let xs: Vec<f64> = x.iter().copied().collect();
    let offsets: Vec<f64> = offset.iter().copied().collect();
    let masks: Option<Vec<f64>> = mask.map(|m| m.iter().copied().collect());
    let ws: Vec<f64> = w.iter().copied().collect();
    let channels_per_offset = c / offset_groups;
    let (channels, per_group) = (c / group, m / group);
    let mut col = vec![0.0; rows * out_count];
    let mut y = vec![0.0; total];
    for b in 0..n {
        for ch in 0..c {
            let og = ch / channels_per_offset;
            let plane = &xs[(b * c + ch) * height * width..][..height * width];
            for i in 0..kh {
                for j in 0..kw {
                    let tap = (og * kh + i) * kw + j;
                    let row = &mut col[((ch * kh + i) * kw + j) * out_count..][..out_count];
                    for (p, value) in row.iter_mut().enumerate() {
                        let (r, s) = (p / ow, p % ow);
                        let dy = offsets[((b * offset_groups * kh * kw + tap) * 2) * out_count + p];
                        let dx =
                            offsets[((b * offset_groups * kh * kw + tap) * 2 + 1) * out_count + p];
                        let at_y = (r * window.strides[0] + i * window.dilations[0]) as f64
                            - window.pads_begin[0] as f64
                            + dy;
                        let at_x = (s * window.strides[1] + j * window.dilations[1]) as f64
                            - window.pads_begin[1] as f64
                            + dx;
                        let weight = masks.as_ref().map_or(1.0, |mk| {
                            mk[(b * offset_groups * kh * kw + tap) * out_count + p]
                        });
                        *value = weight * bilinear(plane, height, width, at_y, at_x);
                    }
                }
            }
        }
        for g in 0..group {
            let per_rows = channels * kh * kw;
            let columns = ArrayView2::from_shape(
                (per_rows, out_count),
                &col[g * per_rows * out_count..(g + 1) * per_rows * out_count],
            )
            .map_err(|e| e.to_string())?;
            let wg = ArrayView2::from_shape(
                (per_group, per_rows),
                &ws[g * per_group * per_rows..(g + 1) * per_group * per_rows],
            )
            .map_err(|e| e.to_string())?;
            let at = (b * m + g * per_group) * out_count;
            let mut yg = ArrayViewMut2::from_shape(
                (per_group, out_count),
                &mut y[at..at + per_group * out_count],
            )
            .map_err(|e| e.to_string())?;
            general_mat_mul(1.0, &wg, &columns, 0.0, &mut yg);
        }
    }
    let mut y = ArrayD::from_shape_vec(IxDyn(&[n, m, oh, ow]), y).map_err(|e| e.to_string())?;
    if let Some(bias) = bias {
        add_bias(&mut y, &bias)?;
    }
    one(from_f64(x_tensor.dtype, y)?)
}

/// CausalConvWithState: input (B, C, L) left-padded by past_state (B, C, k - 1), or zeros,
/// convolved channel by channel with weight (C, 1, k), plus bias (C), then SiLU if `activation`
/// is "silu" or its alias "swish". present_state is the last k - 1 positions of the padded
/// sequence. Float16 and bfloat16 compute as onnx's evaluator does: products summed in f32 and
/// rounded to the type, the bias added and rounded again, SiLU in f32 rounded once.
fn causal_conv_with_state(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let silu = match ctx.string("activation").as_deref().unwrap_or("none") {
        "none" => false,
        "silu" | "swish" => true,
        other => {
            return Err(format!(
                "activation {other:?} is not \"none\", \"silu\" or \"swish\""
            ));
        }
    };
    let (x, w) = (tensor(inputs, 0)?, tensor(inputs, 1)?);
    let (bias, past) = (tensor_opt(inputs, 2)?, tensor_opt(inputs, 3)?);
    let round: fn(f32) -> f32 = match x.dtype {
        DataType::Float => |v| v,
        DataType::Float16 => |v| crate::halves::f16::from_f32(v).to_f32(),
        DataType::Bfloat16 => |v| crate::halves::bf16::from_f32(v).to_f32(),
        _ => {
            return Err(format!(
                "input is {}, not float, float16 or bfloat16",
                x.type_name()
            ));
        }
    };
    for (name, t) in [("weight", Some(w)), ("bias", bias), ("past_state", past)] {
        if let Some(t) = t
            && t.dtype != x.dtype
        {
            return Err(format!(
                "{name} is {}, input {}: they must be one type",
                t.type_name(),
                x.type_name()
            ));
        }
    }
    let &[batch, channels, length] = x.shape() else {
        return Err(format!(
            "input has shape {:?}, not (batch_size, channels, length)",
            x.shape()
        ));
    };
    let k = match *w.shape() {
        [c, 1, k] if c == channels && k > 0 => k,
        _ => {
            return Err(format!(
                "weight has shape {:?}, not (channels, 1, k) with {channels} channels and k >= 1",
                w.shape()
            ));
        }
    };
    if let Some(b) = bias
        && b.shape() != [channels]
    {
        return Err(format!("bias has shape {:?}, not ({channels})", b.shape()));
    }
    if let Some(p) = past
        && p.shape() != [batch, channels, k - 1]
    {
        return Err(format!(
            "past_state has shape {:?}, not ({batch}, {channels}, {})",
            p.shape(),
            k - 1
        ));
    }
    let padded_length = length
        .checked_add(k - 1)
        .ok_or("the padded length overflows")?;
    ctx.checked_count(&[batch, channels, padded_length])?;
    let as_f32 = |t: &Tensor| -> KernelResult<Vec<f32>> {
        match widen(t)? {
            Wide::F32(a) => Ok(a.iter().copied().collect()),
            Wide::F64(_) => Err("double is not a type of this operator".to_string()),
        }
    };
    let (x_values, w_values) = (as_f32(x)?, as_f32(w)?);
    let bias_values = bias.map(as_f32).transpose()?;
    let past_values = past.map(as_f32).transpose()?;
    let mut output = Vec::with_capacity(batch * channels * length);
    let mut present = Vec::with_capacity(batch * channels * (k - 1));
    let mut padded = vec![0.0f32; padded_length];
    for b in 0..batch {
        for c in 0..channels {
            let row = b * channels + c;
            match &past_values {
                Some(p) => padded[..k - 1].copy_from_slice(&p[row * (k - 1)..(row + 1) * (k - 1)]),
                None => padded[..k - 1].fill(0.0),
            }
            padded[k - 1..].copy_from_slice(&x_values[row * length..(row + 1) * length]);
            let kernel = &w_values[c * k..(c + 1) * k];
            for t in 0..length {
                let sum: f32 = kernel
                    .iter()
                    .zip(&padded[t..t + k])
                    .map(|(w, x)| w * x)
                    .sum();
                let mut y = round(sum);
                if let Some(bias) = &bias_values {
                    y = round(y + bias[c]);
                }
                if silu {
                    y = round(y * (1.0 / (1.0 + (-y).exp())));
                }
                output.push(y);
            }
            present.extend_from_slice(&padded[length..]);
        }
    }
    let tensor_of = |shape: &[usize], values: Vec<f32>| -> KernelResult<Tensor> {
        let array = ArrayD::from_shape_vec(IxDyn(shape), values).map_err(|e| e.to_string())?;
        narrow(x.dtype, Wide::F32(array))
    };
    Ok(vec![
        Val::Tensor(tensor_of(&[batch, channels, length], output)?),
        Val::Tensor(tensor_of(&[batch, channels, k - 1], present)?),
    ])
}

#[cfg(test)]
mod tests {
    use onnx_value::Value;

    fn conv(node: &str) -> Result<Vec<f32>, crate::Error> {
        let text = format!(
            r#"<ir_version: 8, opset_import: ["" : 22]>
            g (float[1, 1, 3, 3] x, float[1, 1, 2, 2] w) => (float[1, 1, ?, ?] y) {{ y = {node} (x, w) }}"#
        );
        let model = onnx_text::parse_model(&text).unwrap();
        let x = Value::tensor(
            &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
            &[1, 1, 3, 3],
        );
        let w = Value::tensor(&[1.0f32, 0.0, 0.0, 1.0], &[1, 1, 2, 2]);
        crate::run(&model, &[x.unwrap(), w.unwrap()]).map(|y| y[0].to_vec::<f32>().unwrap())
    }

    /// A strided, padded convolution by the diagonal kernel: x[i][j] + x[i+1][j+1] over the
    /// zero-padded input, every other position. By hand.
    #[test]
    fn conv_with_padding_and_strides() {
        assert_eq!(
            conv("Conv <pads = [1, 1, 1, 1], strides = [2, 2]>").unwrap(),
            [1.0, 3.0, 7.0, 14.0]
        );
    }

    /// Geometry a hostile model gives is refused, not overflowed.
    #[test]
    fn hostile_geometry_is_an_error() {
        assert!(conv("Conv <dilations = [1099511627776, 1]>").is_err());
        assert!(conv("Conv <group = 4611686018427387904>").is_err());
        assert!(conv("Conv <pads = [100, 0, 0, 0], strides = [1, 1]>").is_ok());
        assert!(conv("ConvTranspose <output_padding = [4611686018427387904, 0]>").is_err());
        assert!(conv("Conv <kernel_shape = [3, 3]>").is_err());
    }

    /// A CausalConvWithState node of `inputs` and `attributes` (`<...>`, or nothing) on 1
    /// batch item, 2 channels, 3 positions, kernel 2: its output and present_state.
    fn causal(inputs: &str, attributes: &str, extra: &[Value]) -> Result<Vec<Value>, String> {
        let text = format!(
            r#"<ir_version: 11, opset_import: ["" : 27]>
            g (float[1, 2, 3] x, float[2, 1, 2] w{}) => (float[1, 2, 3] y, float[1, 2, 1] state) {{
                y, state = CausalConvWithState {attributes} ({inputs})
            }}"#,
            match extra.len() {
                0 => "",
                1 => ", float[1, 2, ?] past",
                _ => ", float[2] b, float[1, 2, ?] past",
            }
        );
        let model = onnx_text::parse_model(&text).map_err(|e| e.to_string())?;
        let mut values = vec![
            Value::tensor(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[1, 2, 3]).unwrap(),
            Value::tensor(&[1.0f32, 10.0, 2.0, 0.0], &[2, 1, 2]).unwrap(),
        ];
        values.extend_from_slice(extra);
        crate::run(&model, &values).map_err(|e| e.to_string())
    }

    /// By hand: y[t] = w[0] * padded[t] + w[1] * padded[t + 1] over the sequence padded on
    /// the left by past_state (or a zero), plus the bias; the state is the last position.
    /// Checked with onnx.reference too.
    #[test]
    fn causal_conv_with_state_pads_with_the_past_and_adds_the_bias() {
        let out = causal("x, w", "", &[]).unwrap();
        assert_eq!(
            out[0].to_vec::<f32>().unwrap(),
            [10.0, 21.0, 32.0, 0.0, 8.0, 10.0]
        );
        assert_eq!(out[1].to_vec::<f32>().unwrap(), [3.0, 6.0]);
        let past = Value::tensor(&[7.0f32, 9.0], &[1, 2, 1]).unwrap();
        let bias = Value::tensor(&[1.0f32, -1.0], &[2]).unwrap();
        let out = causal("x, w, b, past", "", &[bias, past.clone()]).unwrap();
        assert_eq!(
            out[0].to_vec::<f32>().unwrap(),
            [18.0, 22.0, 33.0, 17.0, 7.0, 9.0]
        );
        let out = causal("x, w, , past", "", &[past]).unwrap();
        assert_eq!(
            out[0].to_vec::<f32>().unwrap(),
            [17.0, 21.0, 32.0, 18.0, 8.0, 10.0]
        );
    }

    /// SiLU (and its alias swish) is x * sigmoid(x) of the convolution, by the spec's
    /// definition; the state is not activated.
    #[test]
    fn causal_conv_with_state_applies_silu() {
        let silu = |x: f32| x / (1.0 + (-x).exp());
        for name in ["silu", "swish"] {
            let out = causal("x, w", &format!("<activation: string = \"{name}\">"), &[]).unwrap();
            let y = out[0].to_vec::<f32>().unwrap();
            for (got, conv) in y.iter().zip([10.0, 21.0, 32.0, 0.0, 8.0, 10.0]) {
                assert!((got - silu(conv)).abs() < 1e-5, "{got} against {conv}");
            }
            assert_eq!(out[1].to_vec::<f32>().unwrap(), [3.0, 6.0]);
        }
    }

    /// float16 rounds the convolution, then the biased sum, as onnx.reference does (checked
    /// with it): 1 + 2^-11 ties to 1, and 1 + 2^-11 again; one rounding of the whole sum would
    /// give 1 + 2^-10.
    #[test]
    fn causal_conv_with_state_rounds_float16_after_each_step() {
        let text = r#"<ir_version: 11, opset_import: ["" : 27]>
            g (float16[1, 1, 1] x, float16[1, 1, 2] w, float16[1] b, float16[1, 1, 1] past)
              => (float16[1, 1, 1] y, float16[1, 1, 1] state) {
                y, state = CausalConvWithState (x, w, b, past)
            }"#;
        let h = |v: f32| half::f16::from_f32(v);
        let tiny = 2f32.powi(-11);
        let out = crate::run(
            &onnx_text::parse_model(text).unwrap(),
            &[
                Value::tensor(&[h(tiny)], &[1, 1, 1]).unwrap(),
                Value::tensor(&[h(1.0), h(1.0)], &[1, 1, 2]).unwrap(),
                Value::tensor(&[h(tiny)], &[1]).unwrap(),
                Value::tensor(&[h(1.0)], &[1, 1, 1]).unwrap(),
            ],
        )
        .unwrap();
        assert_eq!(out[0].to_vec::<half::f16>().unwrap(), [h(1.0)]);
        assert_eq!(out[1].to_vec::<half::f16>().unwrap(), [h(tiny)]);
    }

    /// Shapes that do not fit and an unknown activation are errors naming what is wrong.
    #[test]
    fn causal_conv_with_state_refuses_bad_operands() {
        let error = causal("x, w", "<activation: string = \"relu\">", &[]).unwrap_err();
        assert!(error.contains("activation \"relu\""), "{error}");
        let past = Value::tensor(&[7.0f32, 9.0, 1.0, 2.0], &[1, 2, 2]).unwrap();
        let error = causal("x, w, , past", "", &[past]).unwrap_err();
        assert!(
            error.contains("past_state has shape [1, 2, 2], not (1, 2, 1)"),
            "{error}"
        );
        let text = r#"<ir_version: 11, opset_import: ["" : 27]>
            g (float[1, 2, 3] x, float[2, 2, 1] w) => (float[1, 2, 3] y, float[1, 2, 0] state) {
                y, state = CausalConvWithState (x, w)
            }"#;
        let x = Value::tensor(&[0.0f32; 6], &[1, 2, 3]).unwrap();
        let w = Value::tensor(&[0.0f32; 4], &[2, 2, 1]).unwrap();
        let error = crate::run(&onnx_text::parse_model(text).unwrap(), &[x, w]).unwrap_err();
        assert!(
            error.to_string().contains("not (channels, 1, k)"),
            "{error}"
        );
    }
}
