//! Operators that sample a tensor at computed coordinates: GridSample, AffineGrid, RoiAlign and
//! Col2Im, computed in f64 and rounded once to the element type.

use super::layout::{dims_of, each_index, real_like, strides};
use super::{Ctx, Registry, one, tensor};
use crate::error::KernelResult;
use crate::value::Val;

pub(super) fn register(r: &mut Registry) {
    r.add("", "GridSample", 16, grid_sample);
    r.add("", "GridSample", 20, grid_sample);
    r.add("", "AffineGrid", 20, affine_grid);
    r.add("", "RoiAlign", 10, roi_align);
    r.add("", "RoiAlign", 16, roi_align);
    r.add("", "Col2Im", 18, col2im);
}

#[derive(Clone, Copy, PartialEq)]
enum Padding {
    Zeros,
    Border,
    Reflection,
}

#[derive(Clone, Copy, PartialEq)]
enum Sampling {
    Nearest,
    Linear,
    Cubic,
}

/// Reflects `x` about the bounds until it lies within them.
fn reflect(x: f64, low: f64, high: f64) -> f64 {
    let span = high - low;
    if span <= 0.0 {
        return low;
    }
    let (distance, from_low) = if x < low {
        (low - x, true)
    } else if x > high {
        (x - high, false)
    } else {
        return x;
    };
    let flips = (distance / span).floor();
    let rest = distance - flips * span;
    // An even number of flips leaves the point mirrored about the near bound.
    if (flips as i64 % 2 == 0) == from_low {
        low + rest
    } else {
        high - rest
    }
}

/// Keys' cubic convolution weights (a = -0.75) of the taps -1, 0, 1, 2 at offset `t` in [0, 1).
fn cubic_weights(t: f64) -> [f64; 4] {
    let a = -0.75;
    let near = |x: f64| ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
    let far = |x: f64| ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a;
    [far(t + 1.0), near(t), near(1.0 - t), far(2.0 - t)]
}

/// One spatial image (C-less) and how GridSample reads it.
struct Image<'a> {
    values: &'a [f64],
    dims: &'a [usize],
    strides: Vec<usize>,
    padding: Padding,
    /// Per axis, the bounds reflection folds into.
    bounds: Vec<(f64, f64)>,
}

impl Image<'_> {
    /// The element at integer `index` (per axis), by the padding mode.
    fn at(&self, index: &[i64]) -> f64 {
        let mut flat = 0;
        for (a, &i) in index.iter().enumerate() {
            let d = self.dims[a] as i64;
            let i = match self.padding {
                Padding::Zeros if !(0..d).contains(&i) => return 0.0,
                Padding::Zeros => i,
                Padding::Border => i.clamp(0, d - 1),
                Padding::Reflection => {
                    let (low, high) = self.bounds[a];
                    (reflect(i as f64, low, high) as i64).clamp(0, d - 1)
                }
            };
            flat += i as usize * self.strides[a];
        }
        self.values[flat]
    }

    /// The interpolated value at `x` (per axis): the weighted sum over every combination of the
    /// axes' taps.
    fn sample(&self, x: &[f64], sampling: Sampling) -> f64 {
        let taps: Vec<Vec<(i64, f64)>> = x
            .iter()
            .map(|&x| match sampling {
                Sampling::Nearest => vec![(x.round_ties_even() as i64, 1.0)],
                Sampling::Linear => {
                    let x0 = x.floor();
                    let t = x - x0;
                    vec![(x0 as i64, 1.0 - t), ((x0 as i64).saturating_add(1), t)]
                }
                Sampling::Cubic => {
                    let x0 = x.floor();
                    let w = cubic_weights(x - x0);
                    (0..4)
                        .map(|k| ((x0 as i64).saturating_add(k as i64 - 1), w[k]))
                        .collect()
                }
            })
            .collect();
        let counts: Vec<usize> = taps.iter().map(Vec::len).collect();
        let mut total = 0.0;
        let mut index = vec![0i64; x.len()];
        let _ = each_index(&counts, &mut |choice| {
            let mut weight = 1.0;
            for (a, &k) in choice.iter().enumerate() {
                index[a] = taps[a][k].0;
                weight *= taps[a][k].1;
            }
            if weight != 0.0 {
                total += weight * self.at(&index);
            }
            Ok(())
        });
        total
    }
}

/// GridSample: each grid point (normalised to [-1, 1], the last axis first) sampled from the
/// input, for every N and C. Version 16 is 2-D with modes `bilinear`, `bicubic`, `nearest`; 20
/// is N-D with `linear`, `cubic`, `nearest`.
fn grid_sample(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (x, grid) = (tensor(inputs, 0)?, tensor(inputs, 1)?);
    let shape = x.shape();
    let grid_shape = grid.shape();
    let spatial = shape.len().saturating_sub(2);
    if shape.len() < 3
        || (ctx.since < 20 && shape.len() != 4)
        || grid_shape.len() != shape.len()
        || grid_shape[0] != shape[0]
        || grid_shape[shape.len() - 1] != spatial
    {
        return Err(format!(
            "a grid of shape {grid_shape:?} for an input of shape {shape:?}"
        ));
    }
    let mode = ctx
        .string("mode")
        .unwrap_or_else(|| if ctx.since < 20 { "bilinear" } else { "linear" }.to_string());
    let sampling = match (mode.as_str(), ctx.since >= 20) {
        ("nearest", _) => Sampling::Nearest,
        ("bilinear", false) | ("linear", true) => Sampling::Linear,
        ("bicubic", false) | ("cubic", true) => Sampling::Cubic,
        (other, _) => return Err(format!("unknown mode `{other}`")),
    };
    let padding = match ctx.string("padding_mode").as_deref().unwrap_or("zeros") {
        "zeros" => Padding::Zeros,
        "border" => Padding::Border,
        "reflection" => Padding::Reflection,
        other => return Err(format!("unknown padding_mode `{other}`")),
    };
    let align = ctx.int("align_corners", 0) != 0;
    let (n, c) = (shape[0], shape[1]);
    let dims = &shape[2..];
    if dims.contains(&0) && grid.len() > 0 && n * c > 0 {
        return Err(format!("sampling from an empty image of shape {shape:?}"));
    }
    let points = &grid_shape[1..grid_shape.len() - 1];
    let out: Vec<usize> = [&[n, c], points].concat();
    ctx.checked_count(&out)?;
    let values = x.to_f64_vec()?;
    let grid_values = grid.to_f64_vec()?;
    let image_len: usize = dims.iter().product();
    let point_count: usize = points.iter().product();
    let bounds: Vec<(f64, f64)> = dims
        .iter()
        .map(|&d| {
            if align {
                (0.0, d as f64 - 1.0)
            } else {
                (-0.5, d as f64 - 0.5)
            }
        })
        .collect();
    let mut result = Vec::with_capacity(out.iter().product());
    for b in 0..n {
        for channel in 0..c {
            let start = (b * c + channel) * image_len;
            let image = Image {
                values: &values[start..start + image_len],
                dims,
                strides: strides(dims),
                padding,
                bounds: bounds.clone(),
            };
            for p in 0..point_count {
                let g = &grid_values[(b * point_count + p) * spatial..][..spatial];
                let coordinates: Vec<f64> = (0..spatial)
                    .map(|a| {
                        // The grid lists x (the last axis) first.
                        let v = g[spatial - 1 - a];
                        let d = dims[a] as f64;
                        let x = if align {
                            (v + 1.0) / 2.0 * (d - 1.0)
                        } else {
                            ((v + 1.0) * d - 1.0) / 2.0
                        };
                        let x = if sampling == Sampling::Nearest {
                            x.round_ties_even()
                        } else {
                            x
                        };
                        let (low, high) = bounds[a];
                        if x >= low && x <= high {
                            return x;
                        }
                        match padding {
                            Padding::Border => x.clamp(0.0, d - 1.0),
                            Padding::Reflection => reflect(x, low, high),
                            Padding::Zeros => x,
                        }
                    })
                    .collect();
                result.push(image.sample(&coordinates, sampling));
            }
        }
    }
    one(real_like(x, &out, &result)?)
}

/// AffineGrid: the normalised grid of `size`'s spatial dims, each point `theta` times
/// (x, y[, z], 1), for every batch.
fn affine_grid(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (theta, size) = (tensor(inputs, 0)?, tensor(inputs, 1)?);
    let size = dims_of(&size.to_i64_vec()?, "size")?;
    let spatial = size.len().saturating_sub(2);
    let n = *size.first().ok_or("an empty size")?;
    if !matches!(spatial, 2 | 3) || theta.shape() != [n, spatial, spatial + 1] {
        return Err(format!(
            "theta of shape {:?} for size {size:?}",
            theta.shape()
        ));
    }
    let align = ctx.int("align_corners", 0) != 0;
    let dims = &size[2..];
    let out: Vec<usize> = [&[n], dims, &[spatial]].concat();
    ctx.checked_count(&out)?;
    // The normalised coordinate of position i of a dim of d.
    let normalised = |i: usize, d: usize| {
        if align {
            if d == 1 {
                -1.0
            } else {
                -1.0 + 2.0 * i as f64 / (d - 1) as f64
            }
        } else {
            -1.0 + (2 * i + 1) as f64 / d as f64
        }
    };
    let theta = theta.to_f64_vec()?;
    let mut result = Vec::with_capacity(out.iter().product());
    for b in 0..n {
        let matrix = &theta[b * spatial * (spatial + 1)..][..spatial * (spatial + 1)];
        each_index(dims, &mut |index| {
            // Homogeneous (x, y[, z], 1): x runs along the last dim.
            let mut point: Vec<f64> = (0..spatial)
                .map(|k| normalised(index[spatial - 1 - k], dims[spatial - 1 - k]))
                .collect();
            point.push(1.0);
            for row in matrix.chunks(spatial + 1) {
                result.push(row.iter().zip(&point).map(|(m, p)| m * p).sum());
            }
            Ok(())
        })?;
    }
    let like = tensor(inputs, 0)?;
    one(real_like(like, &out, &result)?)
}

/// The four weighted corner terms of the bilinear value of `image` (height x width) at (y, x),
/// RoiAlign's way: points beyond a pixel outside give 0, the rest are clamped to the image.
/// Average pooling sums them; max pooling takes the largest term, not the largest sum, as
/// onnx's evaluator and the kit's `test_roialign_mode_max` do (the spec does not say).
fn roi_bilinear_terms(image: &[f64], height: usize, width: usize, y: f64, x: f64) -> [f64; 4] {
    if y < -1.0 || y > height as f64 || x < -1.0 || x > width as f64 {
        return [0.0; 4];
    }
    let (y, x) = (y.max(0.0), x.max(0.0));
    let axis = |v: f64, len: usize| {
        let low = v as usize;
        if low >= len - 1 {
            (len - 1, len - 1, 0.0)
        } else {
            (low, low + 1, v - low as f64)
        }
    };
    let (y0, y1, ly) = axis(y, height);
    let (x0, x1, lx) = axis(x, width);
    let at = |r: usize, c: usize| image[r * width + c];
    [
        (1.0 - ly) * (1.0 - lx) * at(y0, x0),
        (1.0 - ly) * lx * at(y0, x1),
        ly * (1.0 - lx) * at(y1, x0),
        ly * lx * at(y1, x1),
    ]
}

/// RoiAlign: each region of interest pooled (average or maximum of bilinear samples) into an
/// output_height x output_width grid. Version 10 has no half-pixel shift; 16 shifts by default.
fn roi_align(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (x, rois, batch) = (tensor(inputs, 0)?, tensor(inputs, 1)?, tensor(inputs, 2)?);
    let &[n, c, height, width] = x.shape() else {
        return Err(format!("an input of shape {:?}, not rank 4", x.shape()));
    };
    let batch = batch.to_i64_vec()?;
    let count = batch.len();
    if rois.shape() != [count, 4] {
        return Err(format!(
            "rois of shape {:?} for {count} batch indices",
            rois.shape()
        ));
    }
    let average = match ctx.string("mode").as_deref().unwrap_or("avg") {
        "avg" => true,
        "max" => false,
        other => return Err(format!("unknown mode `{other}`")),
    };
    let half_pixel = ctx.since >= 16
        && match ctx
            .string("coordinate_transformation_mode")
            .as_deref()
            .unwrap_or("half_pixel")
        {
            "half_pixel" => true,
            "output_half_pixel" => false,
            other => return Err(format!("unknown coordinate_transformation_mode `{other}`")),
        };
    let (out_h, out_w) = (ctx.int("output_height", 1), ctx.int("output_width", 1));
    let sampling_ratio = ctx.int("sampling_ratio", 0);
    let scale = f64::from(ctx.float("spatial_scale", 1.0));
    if out_h < 1 || out_w < 1 || sampling_ratio < 0 {
        return Err(format!(
            "output {out_h}x{out_w} with sampling_ratio {sampling_ratio}"
        ));
    }
    let (out_h, out_w) = (out_h as usize, out_w as usize);
    let out = [count, c, out_h, out_w];
    ctx.checked_count(&out)?;
    if height == 0 || width == 0 {
        return Err("an empty image".to_string());
    }
    let values = x.to_f64_vec()?;
    let boxes = rois.to_f64_vec()?;
    let shift = if half_pixel { 0.5 } else { 0.0 };
    let mut result = Vec::with_capacity(out.iter().product());
    for (r, &b) in batch.iter().enumerate() {
        let b = usize::try_from(b)
            .ok()
            .filter(|&b| b < n)
            .ok_or(format!("batch index {b} out of range for {n}"))?;
        let [x1, y1, x2, y2] = [0, 1, 2, 3].map(|k| boxes[r * 4 + k] * scale - shift);
        let (mut roi_w, mut roi_h) = (x2 - x1, y2 - y1);
        if !half_pixel {
            roi_w = roi_w.max(1.0);
            roi_h = roi_h.max(1.0);
        }
        let (bin_h, bin_w) = (roi_h / out_h as f64, roi_w / out_w as f64);
        let grid = |bin: f64| -> KernelResult<usize> {
            let g = if sampling_ratio > 0 {
                sampling_ratio as f64
            } else {
                bin.ceil()
            };
            if !(0.0..=1e6).contains(&g) {
                return Err(format!("a sampling grid of {g}"));
            }
            Ok(g as usize)
        };
        let (grid_h, grid_w) = (grid(bin_h)?, grid(bin_w)?);
        // The samples every output takes bound the work, as elements bound memory.
        ctx.check_size((grid_h * grid_w) as u128 * (c * out_h * out_w) as u128)?;
        let samples = (grid_h * grid_w).max(1) as f64;
        for channel in 0..c {
            let start = (b * c + channel) * height * width;
            let image = &values[start..start + height * width];
            for ph in 0..out_h {
                for pw in 0..out_w {
                    let mut sum = 0.0;
                    let mut max = f64::NEG_INFINITY;
                    for iy in 0..grid_h {
                        let y = y1 + ph as f64 * bin_h + (iy as f64 + 0.5) * bin_h / grid_h as f64;
                        for ix in 0..grid_w {
                            let x =
                                x1 + pw as f64 * bin_w + (ix as f64 + 0.5) * bin_w / grid_w as f64;
                            let [a, b, c, d] = roi_bilinear_terms(image, height, width, y, x);
                            sum += a + b + c + d;
                            max = max.max(a.max(b).max(c).max(d));
                        }
                    }
                    result.push(if average {
                        sum / samples
                    } else if grid_h * grid_w == 0 {
                        0.0
                    } else {
                        max
                    });
                }
            }
        }
    }
    one(real_like(x, &out, &result)?)
}

/// Col2Im: the columns of sliding blocks (N, C x block, L) summed back into images (N, C,
/// image_shape...).
fn col2im(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let data = tensor(inputs, 0)?;
    let image = dims_of(&tensor(inputs, 1)?.to_i64_vec()?, "image_shape")?;
    let block = dims_of(&tensor(inputs, 2)?.to_i64_vec()?, "block_shape")?;
    let k = image.len();
    let attribute = |name: &str, default: i64, len: usize| -> KernelResult<Vec<i64>> {
        let values = ctx
            .ints(name)
            .map_or_else(|| vec![default; len], <[i64]>::to_vec);
        if values.len() != len {
            return Err(format!("`{name}` holds {} values, not {len}", values.len()));
        }
        Ok(values)
    };
    let dilations = attribute("dilations", 1, k)?;
    let pads = attribute("pads", 0, 2 * k)?;
    let strides_ = attribute("strides", 1, k)?;
    let &[n, channels_blocks, length] = data.shape() else {
        return Err(format!("input of shape {:?}, not rank 3", data.shape()));
    };
    let block_size = block
        .iter()
        .try_fold(1usize, |p, &d| p.checked_mul(d))
        .unwrap_or(0);
    if block.len() != k || block_size == 0 || !channels_blocks.is_multiple_of(block_size) {
        return Err(format!(
            "block {block:?} for image {image:?} and {channels_blocks} channels"
        ));
    }
    if dilations.iter().chain(&strides_).any(|&v| v < 1) {
        return Err("dilations and strides must be positive".to_string());
    }
    // How many blocks fit along each axis.
    // In i128, which hostile pads and dilations cannot overflow.
    let counts = (0..k)
        .map(|a| {
            let span = image[a] as i128 + i128::from(pads[a]) + i128::from(pads[k + a])
                - i128::from(dilations[a]) * (block[a] as i128 - 1)
                - 1;
            let count = span.div_euclid(i128::from(strides_[a])) + 1;
            usize::try_from(count).map_err(|_| "no block fits".to_string())
        })
        .collect::<KernelResult<Vec<usize>>>()?;
    let blocks = counts.iter().try_fold(1usize, |p, &d| p.checked_mul(d));
    if blocks != Some(length) {
        return Err(format!("{length} blocks where the shapes give {counts:?}"));
    }
    let c = channels_blocks / block_size;
    let out: Vec<usize> = [&[n, c], image.as_slice()].concat();
    ctx.checked_count(&out)?;
    let image_len: usize = image.iter().product();
    let image_strides = strides(&image);
    let values = data.to_f64_vec()?;
    let mut result = vec![0.0; n * c * image_len];
    let mut source = 0;
    for b in 0..n {
        for channel in 0..c {
            let base = (b * c + channel) * image_len;
            each_index(&block, &mut |offset| {
                each_index(&counts, &mut |position| {
                    let mut flat = Some(0);
                    for a in 0..k {
                        let i = position[a] as i128 * i128::from(strides_[a]) - i128::from(pads[a])
                            + offset[a] as i128 * i128::from(dilations[a]);
                        flat = flat
                            .filter(|_| (0..image[a] as i128).contains(&i))
                            .map(|f| f + i as usize * image_strides[a]);
                    }
                    if let Some(flat) = flat {
                        result[base + flat] += values[source];
                    }
                    source += 1;
                    Ok(())
                })
            })?;
        }
    }
    one(real_like(data, &out, &result)?)
}

#[cfg(test)]
mod tests {
    //! Older versions that differ from the newest; expected values by hand from each version's
    //! spec.
    use super::super::test_support::{floats, run};
    use crate::Value;

    #[test]
    fn grid_sample_v16_names_its_modes_bilinear_and_bicubic() {
        let text = |opset: i64, mode: &str| {
            format!(
                r#"<ir_version: 8, opset_import: ["" : {opset}]>
                g (float[1, 1, 1, 2] x, float[1, 1, 1, 2] grid) => (float[1, 1, 1, 1] y) {{
                    y = GridSample <mode = "{mode}", align_corners = 1> (x, grid)
                }}"#
            )
        };
        // The grid point (0, 0) is the middle: x = 0.5 between 1 and 3 (y clamps to row 0).
        let inputs = [
            floats(&[1.0, 3.0], &[1, 1, 1, 2]),
            floats(&[0.0, 0.0], &[1, 1, 1, 2]),
        ];
        let y = run(&text(16, "bilinear"), &inputs).unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [2.0]);
        assert!(run(&text(16, "linear"), &inputs).is_err());
        assert!(run(&text(20, "bilinear"), &inputs).is_err());
        let y = run(&text(20, "linear"), &inputs).unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [2.0]);
    }

    #[test]
    fn roi_align_v10_has_no_half_pixel_shift() {
        // A 1 x 1 output of the box (0, 0)-(2, 2) on [[0, 1, 2]; [3, 4, 5]; [6, 7, 8]], two
        // samples a side. Version 10: samples at 0.5 and 1.5, mean 4. Version 16 (half_pixel):
        // the box shifts to (-0.5, -0.5)-(1.5, 1.5), samples at 0 and 1, mean 2.
        let text = |opset: i64| {
            format!(
                r#"<ir_version: 8, opset_import: ["" : {opset}]>
                g (float[1, 1, 3, 3] x, float[1, 4] rois, int64[1] b) => (float[1, 1, 1, 1] y) {{
                    y = RoiAlign <sampling_ratio = 2> (x, rois, b)
                }}"#
            )
        };
        let inputs = [
            floats(
                &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
                &[1, 1, 3, 3],
            ),
            floats(&[0.0, 0.0, 2.0, 2.0], &[1, 4]),
            Value::tensor(&[0i64], &[1]).unwrap(),
        ];
        let y = run(&text(10), &inputs).unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [4.0]);
        let y = run(&text(16), &inputs).unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [2.0]);
    }

    #[test]
    fn roi_align_max_takes_the_largest_weighted_corner() {
        // One sample at (0.5, 0.5) of [[1, 2]; [3, 4]] (box (0, 0)-(1, 1), version 10, one
        // sample a side): the corners weigh a quarter each, so the terms are 0.25, 0.5, 0.75
        // and 1; `max` gives 1 where the bilinear value (`avg`) is 2.5. onnx 1.23.2's
        // evaluator gives the same two values at version 16 with `output_half_pixel` (version
        // 10's transformation); at version 10 it shifts by half a pixel, as 16 does by default.
        let text = |mode: &str| {
            format!(
                r#"<ir_version: 8, opset_import: ["" : 10]>
                g (float[1, 1, 2, 2] x, float[1, 4] rois, int64[1] b) => (float[1, 1, 1, 1] y) {{
                    y = RoiAlign <sampling_ratio = 1, output_height = 1, output_width = 1, mode = "{mode}"> (x, rois, b)
                }}"#
            )
        };
        let inputs = [
            floats(&[1.0, 2.0, 3.0, 4.0], &[1, 1, 2, 2]),
            floats(&[0.0, 0.0, 1.0, 1.0], &[1, 4]),
            Value::tensor(&[0i64], &[1]).unwrap(),
        ];
        let y = run(&text("max"), &inputs).unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [1.0]);
        let y = run(&text("avg"), &inputs).unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [2.5]);
    }
}
