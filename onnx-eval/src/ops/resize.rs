//! Resize (versions 10, 11, 13, 18, 19) and Upsample (7 and 9): interpolation one axis at a time
//! (every mode is separable), in f64, rounded once to the element type at the end.
//!
//! Each output position along an axis maps to a coordinate `x` of the input
//! (`coordinate_transformation_mode`); the filter then weighs the input elements around it. With
//! `x0 = floor(x)` and `ratio = x - x0` (taken as 1 from the element below when `x` is whole, as
//! onnx's evaluator does, which gives the same values), the taps are `x0 + j` for `j` in the
//! filter's window, clamped to the input (or, with `exclude_outside`, dropped and the rest
//! renormalised).

use super::layout::{distinct_axes, real_like};
use super::{Ctx, Registry, one, tensor, tensor_opt};
use crate::error::KernelResult;
use crate::tensor::{Data, Tensor};
use crate::value::Val;

pub(super) fn register(r: &mut Registry) {
    for since in [10, 11, 13, 18, 19] {
        r.add("", "Resize", since, resize);
    }
    r.add("", "Upsample", 7, upsample);
    r.add("", "Upsample", 9, upsample);
}

/// How nearest mode rounds a coordinate to an element.
#[derive(Clone, Copy, PartialEq)]
enum Nearest {
    RoundPreferFloor,
    RoundPreferCeil,
    Floor,
    Ceil,
    /// Versions 10 and Upsample, whose specs do not say how `nearest` rounds: the floor
    /// upsampling (Upsample's repeat) and the ceiling downsampling, as onnx's own Resize 10 data
    /// (1.5.0's `test_resize_downsample_nearest`) and onnxruntime round.
    Legacy,
}

#[derive(Clone, Copy, PartialEq)]
enum Filter {
    Nearest(Nearest),
    Linear,
    /// Cubic with coefficient `a`.
    Cubic(f64),
}

#[derive(Clone, Copy, PartialEq)]
enum Transform {
    HalfPixel,
    HalfPixelSymmetric,
    PytorchHalfPixel,
    AlignCorners,
    Asymmetric,
    TfCropAndResize,
    /// Version 11's `tf_half_pixel_for_nn`: (y + 0.5) / scale, with no shift back.
    TfHalfPixelForNn,
}

/// What every axis's interpolation shares.
struct Method {
    filter: Filter,
    transform: Transform,
    antialias: bool,
    exclude_outside: bool,
    extrapolation: f64,
}

/// The filter's weights for the taps `start..start + weights.len()` (relative to `x0`) at
/// `ratio` in (0, 1], for an axis scaled by `scale`.
fn weights(filter: Filter, ratio: f64, scale: f64, antialias: bool) -> (i64, Vec<f64>) {
    // Antialiasing stretches the filter by 1 / scale when downscaling.
    let stretch = if antialias { scale.min(1.0) } else { 1.0 };
    match filter {
        Filter::Nearest(mode) => {
            let up = if ratio == 1.0 {
                true
            } else {
                match mode {
                    Nearest::RoundPreferFloor => ratio > 0.5,
                    Nearest::RoundPreferCeil => ratio >= 0.5,
                    Nearest::Floor => false,
                    Nearest::Ceil => true,
                    Nearest::Legacy => scale < 1.0,
                }
            };
            (0, if up { vec![0.0, 1.0] } else { vec![1.0, 0.0] })
        }
        Filter::Linear => {
            let start = (-1.0 / stretch).floor() as i64 + 1;
            let taps = (start..2 - start)
                .map(|j| (1.0 - ((j as f64 - ratio) * stretch).abs()).clamp(0.0, 1.0))
                .collect();
            (start, normalised(taps, antialias))
        }
        Filter::Cubic(a) => {
            let cubic = |x: f64| {
                let x = x.abs();
                if x <= 1.0 {
                    ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
                } else if x < 2.0 {
                    ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a
                } else {
                    0.0
                }
            };
            let start = (-2.0 / stretch).floor() as i64 + 1;
            let taps = (start..2 - start)
                .map(|j| cubic(stretch * (j as f64 - ratio)))
                .collect();
            (start, normalised(taps, antialias))
        }
    }
}

/// The weights scaled to sum to 1 when antialiasing (whose stretched filter does not).
fn normalised(weights: Vec<f64>, antialias: bool) -> Vec<f64> {
    let sum: f64 = weights.iter().sum();
    if antialias && sum != 0.0 {
        weights.into_iter().map(|w| w / sum).collect()
    } else {
        weights
    }
}

/// The input coordinate of output position `y`; `out_width` is the (possibly fractional) length
/// `scale * input` and `out` the integer one; `roi` the axis's (start, end).
fn source_coordinate(
    transform: Transform,
    y: f64,
    scale: f64,
    input: usize,
    out_width: f64,
    out: usize,
    roi: (f64, f64),
) -> f64 {
    let input = input as f64;
    match transform {
        Transform::HalfPixel => (y + 0.5) / scale - 0.5,
        Transform::HalfPixelSymmetric => {
            let adjustment = out as f64 / out_width;
            let offset = input / 2.0 * (1.0 - adjustment);
            offset + (y + 0.5) / scale - 0.5
        }
        Transform::PytorchHalfPixel => {
            if out_width == 1.0 {
                -0.5
            } else {
                (y + 0.5) / scale - 0.5
            }
        }
        Transform::AlignCorners => {
            if out_width == 1.0 {
                0.0
            } else {
                y * (input - 1.0) / (out_width - 1.0)
            }
        }
        Transform::Asymmetric => y / scale,
        Transform::TfHalfPixelForNn => (y + 0.5) / scale,
        Transform::TfCropAndResize => {
            let (start, end) = roi;
            if out == 1 {
                (end - start) * (input - 1.0) / 2.0 + start * (input - 1.0)
            } else {
                y * (end - start) * (input - 1.0) / (out as f64 - 1.0) + start * (input - 1.0)
            }
        }
    }
}

/// For each output position of an axis, its taps (input index, weight), or `None` for the
/// extrapolation value.
type AxisTaps = Vec<Option<Vec<(usize, f64)>>>;

fn axis_taps(
    method: &Method,
    input: usize,
    out: usize,
    scale: f64,
    roi: (f64, f64),
) -> KernelResult<AxisTaps> {
    if input == 0 {
        return Err("cannot resize an empty axis to a non-empty one".to_string());
    }
    let out_width = scale * input as f64;
    let last = input as i64 - 1;
    (0..out)
        .map(|y| {
            let x = source_coordinate(
                method.transform,
                y as f64,
                scale,
                input,
                out_width,
                out,
                roi,
            );
            if !x.is_finite() {
                return Err(format!("a source coordinate of {x}"));
            }
            if method.transform == Transform::TfCropAndResize && (x < 0.0 || x > last as f64) {
                return Ok(None);
            }
            let mut x0 = x.floor();
            let mut ratio = x - x0;
            if ratio == 0.0 {
                x0 -= 1.0;
                ratio = 1.0;
            }
            let x0 = x0 as i64;
            if method.antialias && scale < 2.0 / (input as f64 + 2.0) {
                // The stretched filter would span far beyond the input.
                return Err(format!(
                    "an antialiased scale of {scale} for a dim of {input}"
                ));
            }
            let (start, ws) = weights(method.filter, ratio, scale, method.antialias);
            let mut taps: Vec<(i64, f64)> = ws
                .into_iter()
                .enumerate()
                .map(|(k, w)| (x0.saturating_add(start).saturating_add(k as i64), w))
                .collect();
            if method.exclude_outside {
                taps.retain(|&(i, _)| (0..=last).contains(&i));
                let sum: f64 = taps.iter().map(|t| t.1).sum();
                if sum != 0.0 {
                    taps.iter_mut().for_each(|t| t.1 /= sum);
                }
            }
            // A tap of no weight is no tap: a NaN or infinity there must not leak in.
            Ok(Some(
                taps.into_iter()
                    .filter(|&(_, w)| w != 0.0)
                    .map(|(i, w)| (i.clamp(0, last) as usize, w))
                    .collect(),
            ))
        })
        .collect()
}

/// Resamples axis `at` of `values` (of `shape`) to the taps' length.
fn resample_axis(
    values: &[f64],
    shape: &[usize],
    at: usize,
    taps: &AxisTaps,
    extrapolation: f64,
) -> Vec<f64> {
    let outer: usize = shape[..at].iter().product();
    let inner: usize = shape[at + 1..].iter().product();
    let dim = shape[at];
    let mut out = Vec::with_capacity(outer * taps.len() * inner);
    for o in 0..outer {
        for position in taps {
            for i in 0..inner {
                out.push(match position {
                    Some(position) => position
                        .iter()
                        .map(|&(x, w)| w * values[(o * dim + x) * inner + i])
                        .sum(),
                    None => extrapolation,
                });
            }
        }
    }
    out
}

/// One axis's target: its output length, scale and region of interest.
struct AxisTarget {
    axis: usize,
    out: usize,
    scale: f64,
    roi: (f64, f64),
}

/// Interpolates `data` to the targets, axis by axis, and rounds to its element type (integers
/// to nearest, ties to even, saturating, as onnx's evaluator casts).
fn interpolate(
    ctx: &Ctx<'_>,
    data: &Tensor,
    targets: &[AxisTarget],
    method: &Method,
) -> KernelResult<Tensor> {
    let mut shape = data.shape().to_vec();
    let mut final_shape = shape.clone();
    for t in targets {
        final_shape[t.axis] = t.out;
    }
    ctx.checked_count(&final_shape)?;
    let mut values = data.to_f64_vec()?;
    for t in targets {
        let identity = (t.scale - 1.0).abs() < 1e-9
            && t.out == shape[t.axis]
            && (method.transform != Transform::TfCropAndResize || t.roi == (0.0, 1.0));
        if identity {
            continue;
        }
        let taps = axis_taps(method, shape[t.axis], t.out, t.scale, t.roi)?;
        values = resample_axis(&values, &shape, t.axis, &taps, method.extrapolation);
        shape[t.axis] = t.out;
    }
    let is_integer = !matches!(
        data.data,
        Data::F32(_) | Data::F64(_) | Data::F16(_) | Data::BF16(_)
    );
    if is_integer {
        values.iter_mut().for_each(|v| *v = v.round_ties_even());
    }
    real_like(data, &shape, &values)
}

fn nearest_mode(ctx: &Ctx<'_>) -> KernelResult<Nearest> {
    Ok(
        match ctx
            .string("nearest_mode")
            .as_deref()
            .unwrap_or("round_prefer_floor")
        {
            "round_prefer_floor" => Nearest::RoundPreferFloor,
            "round_prefer_ceil" => Nearest::RoundPreferCeil,
            "floor" => Nearest::Floor,
            "ceil" => Nearest::Ceil,
            other => return Err(format!("unknown nearest_mode `{other}`")),
        },
    )
}

/// The method of Resize from version 11 (10 and Upsample are asymmetric, nearest by floor).
fn method(ctx: &Ctx<'_>) -> KernelResult<Method> {
    let legacy = ctx.op_type == "Upsample" || ctx.since < 11;
    let mode = ctx.string("mode").unwrap_or_else(|| "nearest".to_string());
    let filter = match mode.as_str() {
        "nearest" if legacy => Filter::Nearest(Nearest::Legacy),
        "nearest" => Filter::Nearest(nearest_mode(ctx)?),
        "linear" | "bilinear" => Filter::Linear,
        "cubic" if !legacy => Filter::Cubic(f64::from(ctx.float("cubic_coeff_a", -0.75))),
        other => return Err(format!("unknown mode `{other}`")),
    };
    let transform = if legacy {
        Transform::Asymmetric
    } else {
        match ctx
            .string("coordinate_transformation_mode")
            .as_deref()
            .unwrap_or("half_pixel")
        {
            "half_pixel" => Transform::HalfPixel,
            "half_pixel_symmetric" if ctx.since >= 19 => Transform::HalfPixelSymmetric,
            "pytorch_half_pixel" => Transform::PytorchHalfPixel,
            "align_corners" => Transform::AlignCorners,
            "asymmetric" => Transform::Asymmetric,
            "tf_crop_and_resize" => Transform::TfCropAndResize,
            // Version 11 also named `tf_half_pixel_for_nn`, dropped in 13.
            "tf_half_pixel_for_nn" if ctx.since < 13 => Transform::TfHalfPixelForNn,
            other => return Err(format!("unknown coordinate_transformation_mode `{other}`")),
        }
    };
    let antialias = ctx.since >= 18 && ctx.int("antialias", 0) != 0;
    if antialias && matches!(filter, Filter::Nearest(_)) {
        return Err("antialias with nearest mode".to_string());
    }
    Ok(Method {
        filter,
        transform,
        antialias,
        exclude_outside: !legacy && ctx.int("exclude_outside", 0) != 0,
        extrapolation: f64::from(ctx.float("extrapolation_value", 0.0)),
    })
}

/// Targets from scales for every axis in `axes`: `floor(input * scale)` (times the region's
/// extent under `tf_crop_and_resize`, as the spec says).
fn targets_from_scales(
    shape: &[usize],
    axes: &[usize],
    scales: &[f64],
    rois: &[(f64, f64)],
    crop: bool,
) -> KernelResult<Vec<AxisTarget>> {
    if scales.len() != axes.len() {
        return Err(format!("{} scales for {} axes", scales.len(), axes.len()));
    }
    axes.iter()
        .zip(scales)
        .zip(rois)
        .map(|((&axis, &scale), &roi)| {
            if !(scale > 0.0 && scale.is_finite()) {
                return Err(format!("a scale of {scale}"));
            }
            let extent = if crop { roi.1 - roi.0 } else { 1.0 };
            let out = (shape[axis] as f64 * extent * scale).floor();
            if !(0.0..=u32::MAX as f64).contains(&out) {
                return Err(format!("an output dim of {out}"));
            }
            Ok(AxisTarget {
                axis,
                out: out as usize,
                scale,
                roi,
            })
        })
        .collect()
}

/// Targets from sizes for every axis in `axes`, under `keep_aspect_ratio_policy`.
fn targets_from_sizes(
    ctx: &Ctx<'_>,
    shape: &[usize],
    axes: &[usize],
    sizes: &[i64],
    rois: &[(f64, f64)],
) -> KernelResult<Vec<AxisTarget>> {
    if sizes.len() != axes.len() {
        return Err(format!("{} sizes for {} axes", sizes.len(), axes.len()));
    }
    let sizes = super::layout::dims_of(sizes, "sizes")?;
    let ratios: Vec<f64> = axes
        .iter()
        .zip(&sizes)
        .map(|(&a, &s)| s as f64 / shape[a] as f64)
        .collect();
    let policy = if ctx.since >= 18 {
        ctx.string("keep_aspect_ratio_policy")
            .unwrap_or_else(|| "stretch".to_string())
    } else {
        "stretch".to_string()
    };
    let common = match policy.as_str() {
        "stretch" => None,
        "not_larger" => Some(ratios.iter().copied().fold(f64::INFINITY, f64::min)),
        "not_smaller" => Some(ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
        other => return Err(format!("unknown keep_aspect_ratio_policy `{other}`")),
    };
    Ok(axes
        .iter()
        .zip(&sizes)
        .zip(ratios)
        .zip(rois)
        .map(|(((&axis, &size), ratio), &roi)| match common {
            None => AxisTarget {
                axis,
                out: size,
                scale: ratio,
                roi,
            },
            // round_int: to nearest, halves up.
            Some(scale) => AxisTarget {
                axis,
                out: (scale * shape[axis] as f64 + 0.5).floor() as usize,
                scale,
                roi,
            },
        })
        .collect())
}

/// Resize: from version 10 (X, scales), 11 (X, roi, scales, sizes), 18 (axes, antialias,
/// keep_aspect_ratio_policy), 19 (half_pixel_symmetric).
fn resize(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let data = tensor(inputs, 0)?;
    let shape = data.shape().to_vec();
    let rank = shape.len();
    let method = method(ctx)?;
    let nonempty = |i: usize| -> KernelResult<Option<&Tensor>> {
        Ok(tensor_opt(inputs, i)?.filter(|t| t.len() > 0))
    };
    if ctx.since < 11 {
        let scales = tensor(inputs, 1)?.to_f64_vec()?;
        let axes: Vec<usize> = (0..rank).collect();
        let targets = targets_from_scales(&shape, &axes, &scales, &vec![(0.0, 1.0); rank], false)?;
        return one(interpolate(ctx, data, &targets, &method)?);
    }
    let axes = match ctx.ints("axes").filter(|_| ctx.since >= 18) {
        Some(axes) => distinct_axes(axes, rank)?,
        None => (0..rank).collect(),
    };
    let crop = method.transform == Transform::TfCropAndResize;
    let rois: Vec<(f64, f64)> = match nonempty(1)? {
        Some(roi) if crop => {
            let roi = roi.to_f64_vec()?;
            if roi.len() != 2 * axes.len() {
                return Err(format!(
                    "a roi of {} values for {} axes",
                    roi.len(),
                    axes.len()
                ));
            }
            (0..axes.len())
                .map(|i| (roi[i], roi[axes.len() + i]))
                .collect()
        }
        None if crop => return Err("tf_crop_and_resize without a roi".to_string()),
        _ => vec![(0.0, 1.0); axes.len()],
    };
    let targets = match (nonempty(2)?, nonempty(3)?) {
        (Some(_), Some(_)) => return Err("both scales and sizes are given".to_string()),
        (Some(scales), None) => {
            targets_from_scales(&shape, &axes, &scales.to_f64_vec()?, &rois, crop)?
        }
        (None, Some(sizes)) => targets_from_sizes(ctx, &shape, &axes, &sizes.to_i64_vec()?, &rois)?,
        (None, None) => return Err("neither scales nor sizes is given".to_string()),
    };
    one(interpolate(ctx, data, &targets, &method)?)
}

/// Upsample: scales as an attribute (version 7) or operand (9); nearest repeats elements.
fn upsample(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let data = tensor(inputs, 0)?;
    let scales: Vec<f64> = if ctx.since < 9 {
        ctx.floats("scales")
            .ok_or("no `scales`")?
            .iter()
            .map(|&s| f64::from(s))
            .collect()
    } else {
        tensor(inputs, 1)?.to_f64_vec()?
    };
    let rank = data.rank();
    let axes: Vec<usize> = (0..rank).collect();
    if let Some(s) = scales.iter().find(|&&s| s < 1.0) {
        return Err(format!("a scale of {s} (Upsample scales are at least 1)"));
    }
    let targets =
        targets_from_scales(data.shape(), &axes, &scales, &vec![(0.0, 1.0); rank], false)?;
    one(interpolate(ctx, data, &targets, &method(ctx)?)?)
}

#[cfg(test)]
mod tests {
    //! Older versions that differ from the newest; expected values by hand from each version's
    //! spec (versions 10 and Upsample: asymmetric coordinates, x = y / scale; nearest takes the
    //! floor upsampling, as Upsample's repeat does, and the ceiling downsampling).
    use super::super::test_support::{floats, run};
    use crate::Value;

    #[test]
    fn resize_v10_is_asymmetric() {
        let text = |mode: &str| {
            format!(
                r#"<ir_version: 5, opset_import: ["" : 10]>
                g (float[1, 2] x, float[2] s) => (float[?, ?] y) {{ y = Resize <mode = "{mode}"> (x, s) }}"#
            )
        };
        let inputs = [floats(&[1.0, 2.0], &[1, 2]), floats(&[1.0, 2.0], &[2])];
        let y = run(&text("nearest"), &inputs).unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [1.0, 1.0, 2.0, 2.0]);
        // x = 0, 0.5, 1, 1.5 (the last clamped to the edge).
        let y = run(&text("linear"), &inputs).unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [1.0, 1.5, 2.0, 2.0]);
        // Downsampling 4 by 0.6 to 2: x = 0, 1.67, and nearest rounds up to 2.
        let down = r#"<ir_version: 5, opset_import: ["" : 10]>
            g (float[1, 4] x, float[2] s) => (float[?, ?] y) { y = Resize <mode = "nearest"> (x, s) }"#;
        let inputs = [
            floats(&[1.0, 2.0, 3.0, 4.0], &[1, 4]),
            floats(&[1.0, 0.6], &[2]),
        ];
        let y = run(down, &inputs).unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [1.0, 3.0]);
    }

    /// Version 11's `tf_half_pixel_for_nn`: x = (y + 0.5) / scale = 1, 3 for a 4 to 2
    /// downsample, so nearest picks 2 and 4 (half_pixel's 0.5 and 2.5 would pick 1 and 3);
    /// version 13 no longer has the mode.
    #[test]
    fn resize_v11_tf_half_pixel_for_nn_has_no_shift_back() {
        let text = |opset: i64| {
            format!(
                r#"<ir_version: 7, opset_import: ["" : {opset}]>
                g (float[1, 4] x, float[0] roi, float[0] s, int64[2] n) => (float[?, ?] y) {{
                    y = Resize <coordinate_transformation_mode = "tf_half_pixel_for_nn"> (x, roi, s, n)
                }}"#
            )
        };
        let inputs = [
            floats(&[1.0, 2.0, 3.0, 4.0], &[1, 4]),
            floats(&[], &[0]),
            floats(&[], &[0]),
            Value::tensor(&[1i64, 2], &[2]).unwrap(),
        ];
        let y = run(&text(11), &inputs).unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [2.0, 4.0]);
        let error = run(&text(13), &inputs).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("unknown coordinate_transformation_mode"),
            "{error}"
        );
    }

    #[test]
    fn resize_v11_takes_roi_scales_sizes_and_half_pixel() {
        // half_pixel: x = (y + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25.
        let y = run(
            r#"<ir_version: 6, opset_import: ["" : 11]>
            g (float[1, 2] x, float[0] roi, float[2] s) => (float[?, ?] y) {
                y = Resize <mode = "linear"> (x, roi, s)
            }"#,
            &[
                floats(&[1.0, 2.0], &[1, 2]),
                floats(&[], &[0]),
                floats(&[1.0, 2.0], &[2]),
            ],
        )
        .unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [1.0, 1.25, 1.75, 2.0]);
    }

    #[test]
    fn resize_v18_axes_and_aspect_ratio() {
        // Sizes 4 x 3 for a 2 x 2 input, not_larger: scale min(2, 1.5) = 1.5, so 3 x 3.
        let text = |opset: i64| {
            format!(
                r#"<ir_version: 8, opset_import: ["" : {opset}]>
                g (float[2, 2] x, int64[2] sizes) => (float[?, ?] y) {{
                    y = Resize <axes = [1, 0], keep_aspect_ratio_policy = "not_larger"> (x, , , sizes)
                }}"#
            )
        };
        let inputs = [
            floats(&[1.0, 2.0, 3.0, 4.0], &[2, 2]),
            Value::tensor(&[3i64, 4], &[2]).unwrap(),
        ];
        let y = run(&text(18), &inputs).unwrap();
        assert_eq!(y[0].dims().unwrap(), [3, 3]);
        // Version 13 has neither: sizes [3, 4] apply to axes 0, 1, stretched.
        let y = run(&text(13), &inputs).unwrap();
        assert_eq!(y[0].dims().unwrap(), [3, 4]);
    }

    #[test]
    fn upsample_scales_attribute_then_operand() {
        let y = run(
            r#"<ir_version: 3, opset_import: ["" : 7]>
            g (float[1, 2] x) => (float[?, ?] y) { y = Upsample <scales = [2.0, 2.0]> (x) }"#,
            &[floats(&[1.0, 2.0], &[1, 2])],
        )
        .unwrap();
        assert_eq!(
            y[0].to_vec::<f32>().unwrap(),
            [1.0, 1.0, 2.0, 2.0, 1.0, 1.0, 2.0, 2.0]
        );
        let y = run(
            r#"<ir_version: 4, opset_import: ["" : 9]>
            g (float[1, 2] x, float[2] s) => (float[?, ?] y) { y = Upsample <mode = "linear"> (x, s) }"#,
            &[floats(&[1.0, 2.0], &[1, 2]), floats(&[1.0, 2.0], &[2])],
        )
        .unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [1.0, 1.5, 2.0, 2.0]);
    }
}
