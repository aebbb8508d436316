//! Operators of neural networks: products, convolutions, pooling, normalisations, reductions.

use crate::infer::node::{Conflict, Node, Rule, conflict, dtype};
use crate::infer::ty::{Dim, show_shape};

use super::elementwise::broadcast;

/// `MatMul` (and `MatMulInteger`, `QLinearMatMul` through [`matmul_of`]): numpy's matrix
/// product, batch dims broadcast.
pub fn matmul(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    matmul_of(node, 0, 1, elem)
}

/// `MatMulInteger`: int32 results.
pub fn matmul_integer(node: &mut Node) -> Rule {
    matmul_of(node, 0, 1, Some(dtype::INT32))
}

/// `QLinearMatMul`: operands 0 and 3, the result's zero point's element type.
pub fn qlinear_matmul(node: &mut Node) -> Rule {
    let elem = node.elem(7);
    matmul_of(node, 0, 3, elem)
}

fn matmul_of(node: &mut Node, a: usize, b: usize, elem: Option<i32>) -> Rule {
    let (Some(x), Some(y)) = (node.shape_of(a), node.shape_of(b)) else {
        node.set_tensor(0, elem, None);
        return Ok(());
    };
    if x.is_empty() || y.is_empty() {
        return Err(conflict(
            if x.is_empty() { a } else { b },
            "a scalar has no matrix product",
        ));
    }
    let (mut xs, mut ys) = (x.clone(), y.clone());
    if xs.len() == 1 {
        xs.insert(0, Dim::Known(1));
    }
    if ys.len() == 1 {
        ys.push(Dim::Known(1));
    }
    let (k1, k2) = (&xs[xs.len() - 1], &ys[ys.len() - 2]);
    if !k1.compatible(k2) {
        let message = format!(
            "inner dims differ: {} by {} ({k1} against {k2})",
            show_shape(&x),
            show_shape(&y)
        );
        return Err(conflict(b, message));
    }
    let batch =
        broadcast(&[&xs[..xs.len() - 2], &ys[..ys.len() - 2]]).map_err(|(_, m)| conflict(b, m))?;
    let mut out = batch;
    if x.len() > 1 {
        out.push(xs[xs.len() - 2].clone());
    }
    if y.len() > 1 {
        out.push(ys[ys.len() - 1].clone());
    }
    node.set_tensor(0, elem, Some(out));
    Ok(())
}

/// `Gemm`: `[M, K] x [K, N]`, each side transposed by `transA`/`transB`.
pub fn gemm(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let (Some(a), Some(b)) = (node.shape_of(0), node.shape_of(1)) else {
        node.set_tensor(0, elem, Some(vec![Dim::Unknown, Dim::Unknown]));
        return Ok(());
    };
    if a.len() != 2 || b.len() != 2 {
        let (i, bad) = if a.len() != 2 { (0, &a) } else { (1, &b) };
        return Err(conflict(
            i,
            format!("Gemm takes matrices, not {}", show_shape(bad)),
        ));
    }
    let (ta, tb) = (node.int("transA", 0) != 0, node.int("transB", 0) != 0);
    let (m, ka) = if ta { (&a[1], &a[0]) } else { (&a[0], &a[1]) };
    let (kb, n) = if tb { (&b[1], &b[0]) } else { (&b[0], &b[1]) };
    if !ka.compatible(kb) {
        let message = format!(
            "inner dims differ: {} by {} ({ka} against {kb})",
            show_shape(&a),
            show_shape(&b)
        );
        return Err(conflict(1, message));
    }
    let out = vec![m.clone(), n.clone()];
    if let Some(c) = node.shape_of(2) {
        broadcast(&[&out, &c]).map_err(|(_, m)| conflict(2, m))?;
    }
    node.set_tensor(0, elem, Some(out));
    Ok(())
}

/// The spatial window of a convolution or pooling, its attributes checked as onnx checks
/// them: kernel, strides, dilations, pads.
struct Window {
    kernel: Vec<i64>,
    strides: Vec<i64>,
    dilations: Vec<i64>,
    pads: Option<Vec<i64>>,
    auto_pad: String,
    ceil: bool,
    /// Whether a window that would start in the right pad is dropped in `ceil_mode` (the
    /// pooling operators of opset 22 on, as PyTorch does).
    drop_last: bool,
}

/// The ints attribute `name`, which must hold `per_axis` values per spatial axis.
fn spatial_list(
    node: &Node,
    name: &str,
    axes: usize,
    per_axis: usize,
) -> Result<Option<Vec<i64>>, Conflict> {
    let Some(values) = node.int_list(name) else {
        return Ok(None);
    };
    if values.len() != axes * per_axis {
        return Err(conflict(
            0,
            format!(
                "the attribute {name} must have {} ({per_axis} per spatial axis), found {}",
                count(axes * per_axis),
                values.len()
            ),
        ));
    }
    Ok(Some(values))
}

/// `n values`, or `1 value`.
fn count(n: usize) -> String {
    if n == 1 {
        "1 value".into()
    } else {
        format!("{n} values")
    }
}

/// A conflict when an ints attribute holds a value under `least`.
fn at_least(name: &str, values: &[i64], least: i64) -> Result<(), Conflict> {
    if values.iter().all(|&v| v >= least) {
        return Ok(());
    }
    let what = if least > 0 {
        "positive"
    } else {
        "non-negative"
    };
    Err(conflict(
        0,
        format!("the attribute {name} must be {what}, found {values:?}"),
    ))
}

impl Window {
    /// The window over `axes` spatial axes with this kernel (`None`: a kernel taken from a
    /// weight whose spatial dims are not all known, so onnx stops before the pads).
    fn of(node: &Node, axes: usize, kernel: Option<Vec<i64>>) -> Result<Option<Window>, Conflict> {
        let dilations = spatial_list(node, "dilations", axes, 1)?.unwrap_or(vec![1; axes]);
        at_least("dilations", &dilations, 1)?;
        let strides = spatial_list(node, "strides", axes, 1)?.unwrap_or(vec![1; axes]);
        at_least("strides", &strides, 1)?;
        let Some(kernel) = kernel else {
            return Ok(None);
        };
        if kernel.len() != axes {
            return Err(conflict(
                0,
                format!(
                    "the attribute kernel_shape must have {} (1 per spatial axis), found {}",
                    count(axes),
                    kernel.len()
                ),
            ));
        }
        at_least("kernel_shape", &kernel, 1)?;
        let pads = spatial_list(node, "pads", axes, 2)?;
        if let Some(pads) = &pads {
            at_least("pads", pads, 0)?;
        }
        let op = node.proto.op_type.as_deref().unwrap_or("");
        Ok(Some(Window {
            kernel,
            strides,
            dilations,
            pads,
            auto_pad: node
                .string("auto_pad")
                .map(|s| String::from_utf8_lossy(s).into_owned())
                .unwrap_or_else(|| "NOTSET".into()),
            ceil: node.int("ceil_mode", 0) != 0,
            drop_last: node.opset >= 22 && op.ends_with("Pool"),
        }))
    }

    /// The extent of the kernel along spatial axis `i`, dilations counted.
    fn extent(&self, i: usize) -> i128 {
        i128::from(self.dilations[i]) * (i128::from(self.kernel[i]) - 1) + 1
    }

    /// The pads before and after spatial axis `i` of size `size`: the attribute's, or those
    /// `SAME_UPPER` and `SAME_LOWER` make (onnx splits the total so that the output is the
    /// input's size over the stride, rounded up).
    fn pads(&self, i: usize, size: i128) -> (i128, i128) {
        if let Some(p) = &self.pads {
            return (i128::from(p[i]), i128::from(p[i + self.kernel.len()]));
        }
        let stride = i128::from(self.strides[i]);
        let lower = match self.auto_pad.as_str() {
            "SAME_UPPER" => false,
            "SAME_LOWER" => true,
            _ => return (0, 0),
        };
        if stride > 1 && size < 0 {
            return (0, 0);
        }
        let residual = if stride > 1 { size % stride } else { 0 };
        let total = (self.extent(i) - if residual == 0 { stride } else { residual }).max(0);
        let (small, big) = (total / 2, total - total / 2);
        if lower { (big, small) } else { (small, big) }
    }

    /// The output size of spatial axis `i` for an input of size `size`, computed as onnx
    /// does (integer division truncating toward zero), so that a window larger than the
    /// padded input gives the negative size onnx reports. The arithmetic is 128-bit, so that
    /// hostile attributes give an unknown dim, not an overflow.
    fn output(&self, i: usize, size: &Dim) -> Dim {
        let Some(size) = size.known().map(i128::from) else {
            return Dim::Unknown;
        };
        let stride = i128::from(self.strides[i]);
        let (left, right) = self.pads(i, size);
        let gap = size + left + right - self.extent(i);
        let out = match (self.ceil, self.drop_last) {
            (false, _) => gap / stride + 1,
            (true, false) => gap / stride + i128::from(gap % stride > 0) + 1,
            (true, true) => {
                let out = (gap + stride - 1) / stride + 1;
                // The last window must start inside the input or its left pad.
                if (out - 1) * stride >= size + left {
                    out - 1
                } else {
                    out
                }
            }
        };
        i64::try_from(out).map_or(Dim::Unknown, Dim::Known)
    }
}

/// A computed size as a dim: unknown when negative or past `i64`.
fn known(size: i128) -> Dim {
    match i64::try_from(size) {
        Ok(n) if n >= 0 => Dim::Known(n),
        _ => Dim::Unknown,
    }
}

/// `Conv`: `[N, M, ...spatial]`, each spatial size through the window (as onnx, the input's
/// channels are not checked against the weight's).
pub fn conv(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    conv_of(node, 0, 1, elem)
}

/// `ConvInteger`: int32 results.
pub fn conv_integer(node: &mut Node) -> Rule {
    conv_of(node, 0, 1, Some(dtype::INT32))
}

/// `QLinearConv`: operands 0 and 3.
pub fn qlinear_conv(node: &mut Node) -> Rule {
    let elem = node.elem(7);
    conv_of(node, 0, 3, elem)
}

fn conv_of(node: &mut Node, xi: usize, wi: usize, elem: Option<i32>) -> Rule {
    let (Some(x), Some(w)) = (node.shape_of(xi), node.shape_of(wi)) else {
        let rank = node.dims(xi).or(node.dims(wi)).map(<[Dim]>::len);
        node.set_tensor(0, elem, rank.map(|r| vec![Dim::Unknown; r]));
        return Ok(());
    };
    // onnx checks neither the channels against the weight's nor `group`.
    if x.len() < 3 {
        return Err(conflict(
            xi,
            format!(
                "operand {xi} (X) must have rank 3 or more, found {} (rank {})",
                show_shape(&x),
                x.len()
            ),
        ));
    }
    let n = x.len() - 2;
    let kernel: Option<Vec<i64>> = match node.int_list("kernel_shape") {
        Some(k) => Some(k),
        None => {
            let kernel: Option<Vec<i64>> = w.iter().skip(2).map(Dim::known).collect();
            if kernel.as_ref().is_some_and(|k| k.len() != n) {
                let message = format!(
                    "weight {} and input {} differ in spatial axes",
                    show_shape(&w),
                    show_shape(&x)
                );
                return Err(conflict(wi, message));
            }
            kernel
        }
    };
    let window = Window::of(node, n, kernel)?;
    let Some(channels) = w.first() else {
        return Err(conflict(
            wi,
            format!("operand {wi} (W) must have rank 1 or more, found [] (rank 0)"),
        ));
    };
    let mut out = vec![x[0].clone(), channels.clone()];
    match window {
        Some(window) => out.extend(x[2..].iter().enumerate().map(|(i, d)| window.output(i, d))),
        None => out.extend(vec![Dim::Unknown; n]),
    }
    node.set_computed(0, elem, out);
    Ok(())
}

/// `ConvTranspose`: `[N, M x group, ...]`, sizes from `output_shape` or the strides. As onnx
/// checks it: `group` is positive and divides the input's channels, input and weight have
/// rank 3 or more, explicit pads go with no `auto_pad`.
pub fn conv_transpose(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let (Some(x), Some(w)) = (node.shape_of(0), node.shape_of(1)) else {
        node.set_tensor(0, elem, None);
        return Ok(());
    };
    let group = node.int("group", 1);
    if group <= 0 {
        return Err(conflict(
            0,
            format!("the attribute group must be positive, found {group}"),
        ));
    }
    for (i, what, dims) in [(0, "X", &x), (1, "W", &w)] {
        if dims.len() < 3 {
            return Err(conflict(
                i,
                format!(
                    "operand {i} ({what}) must have rank 3 or more, found {} (rank {})",
                    show_shape(dims),
                    dims.len()
                ),
            ));
        }
    }
    if let Some(c) = x[1].known()
        && c % group != 0
    {
        return Err(conflict(
            0,
            format!(
                "input {} has {c} channels, not a multiple of group {group}",
                show_shape(&x)
            ),
        ));
    }
    let n = x.len() - 2;
    let kernel: Option<Vec<i64>> = match node.int_list("kernel_shape") {
        Some(k) => Some(k),
        None => w[2..].iter().map(Dim::known).collect(),
    };
    if node.attr("kernel_shape").is_none() && w.len() != x.len() && kernel.is_some() {
        return Err(conflict(
            1,
            format!(
                "weight {} and input {} differ in spatial axes",
                show_shape(&w),
                show_shape(&x)
            ),
        ));
    }
    let channels = w[1]
        .known()
        .and_then(|m| m.checked_mul(group))
        .map_or(Dim::Unknown, Dim::Known);
    let mut out = vec![x[0].clone(), channels];
    let Some(window) = Window::of(node, n, kernel)? else {
        out.extend(vec![Dim::Unknown; n]);
        node.set_tensor(0, elem, Some(out));
        return Ok(());
    };
    if window.pads.is_some() && window.auto_pad != "NOTSET" {
        return Err(conflict(
            0,
            format!(
                "the attribute pads cannot go with auto_pad {}",
                window.auto_pad
            ),
        ));
    }
    let shape = spatial_list(node, "output_shape", n, 1)?;
    if let Some(shape) = &shape {
        at_least("output_shape", shape, 0)?;
    }
    let extra = spatial_list(node, "output_padding", n, 1)?.unwrap_or(vec![0; n]);
    at_least("output_padding", &extra, 0)?;
    if let Some(shape) = shape {
        // onnx gives up on an output smaller than the input.
        if shape
            .iter()
            .zip(&x[2..])
            .any(|(&s, d)| d.known().is_some_and(|d| s < d))
        {
            node.set_tensor(0, elem, None);
            return Ok(());
        }
        out.extend(shape.into_iter().map(Dim::Known));
        node.set_tensor(0, elem, Some(out));
        return Ok(());
    }
    for (i, d) in x[2..].iter().enumerate() {
        out.push(match d.known() {
            Some(size) => {
                let (size, s) = (i128::from(size), i128::from(window.strides[i]));
                let extent = window.extent(i);
                let pads = match (&window.pads, window.auto_pad.as_str()) {
                    (Some(p), _) => i128::from(p[i]) + i128::from(p[i + n]),
                    (None, "SAME_UPPER" | "SAME_LOWER") => (extent - s).max(0),
                    _ => 0,
                };
                // Checked: a hostile stride and kernel can pass even 128 bits.
                let size = (s * (size - 1))
                    .checked_add(extent)
                    .map(|n| n + i128::from(extra[i]) - pads);
                size.and_then(|n| i64::try_from(n).ok())
                    .map_or(Dim::Unknown, Dim::Known)
            }
            None => Dim::Unknown,
        });
    }
    node.set_computed(0, elem, out);
    Ok(())
}

/// `MaxPool`, `AveragePool`, `LpPool`: `[N, C, ...]` through the window; `MaxPool`'s indices
/// are int64 of the same shape.
pub fn pool(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let Some(x) = node.shape_of(0) else {
        node.set_tensor(0, elem, None);
        return Ok(());
    };
    if x.len() < 3 {
        return Err(conflict(
            0,
            format!(
                "operand 0 (X) must have rank 3 or more, found {} (rank {})",
                show_shape(&x),
                x.len()
            ),
        ));
    }
    let Some(kernel) = node.int_list("kernel_shape") else {
        return Err(conflict(0, "pooling needs the attribute kernel_shape"));
    };
    let mut out = x[..2].to_vec();
    if let Some(window) = Window::of(node, x.len() - 2, Some(kernel))? {
        out.extend(x[2..].iter().enumerate().map(|(i, d)| window.output(i, d)));
    }
    node.set_computed(0, elem, out.clone());
    if node.outputs.len() > 1 {
        node.set_computed(1, Some(dtype::INT64), out);
    }
    Ok(())
}

/// `GlobalAveragePool`, `GlobalMaxPool`, `GlobalLpPool`: spatial dims become 1.
pub fn global_pool(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let shape = node.dims(0).map(|x| {
        x.iter()
            .enumerate()
            .map(|(i, d)| if i < 2 { d.clone() } else { Dim::Known(1) })
            .collect()
    });
    node.set_tensor(0, elem, shape);
    Ok(())
}

/// `BatchNormalization`: the input's type; in training mode the running statistics have the
/// scale's shape. From opset 14 the scale, bias, mean and variance are vectors with one value
/// per channel (an input of rank 0 or 1 has one channel).
pub fn batch_norm(node: &mut Node) -> Rule {
    node.same_as_input(0, 0);
    if node.opset >= 14 {
        let names = ["scale", "B", "input_mean", "input_var"];
        let mut channels = match node.dims(0) {
            Some(x) if x.len() > 1 => x[1].clone(),
            Some(_) => Dim::Known(1),
            None => Dim::Unknown,
        };
        for (i, name) in (1..).zip(names) {
            let Some(dims) = node.ranked(i, name, &[1])? else {
                continue;
            };
            if !dims[0].compatible(&channels) {
                return Err(conflict(
                    i,
                    format!(
                        "operand {i} ({name}) {} must have one value per channel, {channels}",
                        show_shape(dims)
                    ),
                ));
            }
            if channels.known().is_none() && dims[0].known().is_some() {
                channels = dims[0].clone();
            }
        }
    }
    let channels = node.dim(0, 1);
    let elem = node.elem(1).or(node.elem(0));
    for i in 1..node.outputs.len().min(5) {
        node.set_tensor(i, elem, Some(vec![channels.clone()]));
    }
    Ok(())
}

/// `LayerNormalization`: the input's type; the mean and inverse deviation keep the dims
/// before `axis` and have 1 after.
pub fn layer_norm(node: &mut Node) -> Rule {
    node.same_as_input(0, 0);
    if node.outputs.len() < 2 {
        return Ok(());
    }
    let elem = if node.opset >= 17 {
        node.attr("stash_type")
            .and_then(|a| a.i)
            .map(|i| i as i32)
            .or(Some(dtype::FLOAT))
    } else {
        node.elem(0)
    };
    let shape = match node.shape_of(0) {
        Some(dims) => {
            let axis = node.axis(node.int("axis", -1), dims.len(), 0)?;
            Some(
                dims.iter()
                    .enumerate()
                    .map(|(i, d)| if i < axis { d.clone() } else { Dim::Known(1) })
                    .collect(),
            )
        }
        None => None,
    };
    for i in 1..node.outputs.len() {
        node.set_tensor(i, elem, shape.clone());
    }
    Ok(())
}

/// `Dropout`: the input's type; the mask is bool of its shape.
pub fn dropout(node: &mut Node) -> Rule {
    node.same_as_input(0, 0);
    if node.outputs.len() > 1 {
        let shape = node.shape_of(0);
        let elem = if node.opset >= 12 || node.opset < 7 {
            dtype::BOOL
        } else {
            node.elem(0).unwrap_or(0)
        };
        if node.input(0).is_some() {
            node.set_tensor(1, Some(elem), shape);
        }
    }
    Ok(())
}

/// `ReduceSum`, `ReduceMean`, ...: the reduced axes become 1 (`keepdims`) or go.
pub fn reduce(node: &mut Node) -> Rule {
    let op = node.proto.op_type.as_deref().unwrap_or("");
    // The axes became an operand in opset 13 for ReduceSum, in 18 for the others.
    let since = if op == "ReduceSum" { 13 } else { 18 };
    let from_input = node.opset >= since;
    let elem = node.elem(0);
    let keep = node.int("keepdims", 1) != 0;
    let Some(dims) = node.shape_of(0) else {
        node.set_tensor(0, elem, None);
        return Ok(());
    };
    // No axes (`None` here) reduce every axis.
    let axes = match super::shape::axes(node, since, 1) {
        Some(a) => Some(a).filter(|a| !a.is_empty()),
        None => {
            let shape = keep.then(|| vec![Dim::Unknown; dims.len()]);
            node.set_tensor(0, elem, shape);
            return Ok(());
        }
    };
    if axes.is_none() && from_input && node.int("noop_with_empty_axes", 0) != 0 {
        node.set_tensor(0, elem, Some(dims));
        return Ok(());
    }
    let mut reduced = vec![axes.is_none(); dims.len()];
    for &a in axes.iter().flatten() {
        reduced[node.axis(a, dims.len(), 1)?] = true;
    }
    let out = dims
        .iter()
        .zip(&reduced)
        .filter_map(|(d, &r)| match (r, keep) {
            (true, true) => Some(Dim::Known(1)),
            (true, false) => None,
            (false, _) => Some(d.clone()),
        })
        .collect();
    node.set_tensor(0, elem, Some(out));
    Ok(())
}

/// `ArgMax`, `ArgMin`: int64, the axis kept as 1 (`keepdims` 1) or dropped (any other
/// value, as onnx reads it).
pub fn arg(node: &mut Node) -> Rule {
    let keep = node.int("keepdims", 1) == 1;
    let Some(dims) = node.shape_of(0) else {
        node.set_tensor(0, Some(dtype::INT64), None);
        return Ok(());
    };
    let axis = node.axis(node.int("axis", 0), dims.len(), 0)?;
    let mut out = dims;
    if keep {
        out[axis] = Dim::Known(1);
    } else {
        out.remove(axis);
    }
    node.set_tensor(0, Some(dtype::INT64), Some(out));
    Ok(())
}

/// `TopK`: values and int64 indices, `k` along `axis`.
pub fn top_k(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let Some(dims) = node.shape_of(0) else {
        node.set_tensor(0, elem, None);
        node.set_tensor(1, Some(dtype::INT64), None);
        return Ok(());
    };
    let axis = node.axis(node.int("axis", -1), dims.len(), 0)?;
    let k = if node.opset < 10 {
        Some(node.int("k", 0))
    } else {
        node.ints(1).and_then(|k| k.first().copied())
    };
    let mut out = dims.clone();
    out[axis] = k.map_or(Dim::Unknown, Dim::Known);
    if let (Some(k), Some(n)) = (k, dims[axis].known())
        && k > n
    {
        return Err(conflict(
            1,
            format!("k = {k} is more than dim {axis} of {}", show_shape(&dims)),
        ));
    }
    node.set_tensor(0, elem, Some(out.clone()));
    node.set_tensor(1, Some(dtype::INT64), Some(out));
    Ok(())
}

/// `QuantizeLinear`: the input's shape, the zero point's element type (uint8 without one,
/// or `output_dtype`).
pub fn quantize(node: &mut Node) -> Rule {
    let elem = node.output_dtype_or(node.elem(2)).unwrap_or(dtype::UINT8);
    let shape = node.shape_of(0);
    node.set_tensor(0, Some(elem), shape);
    Ok(())
}

/// `DequantizeLinear`: the input's shape, the scale's element type (or `output_dtype`).
pub fn dequantize(node: &mut Node) -> Rule {
    let elem = node.output_dtype_or(node.elem(1)).unwrap_or(dtype::FLOAT);
    let shape = node.shape_of(0);
    node.set_tensor(0, Some(elem), shape);
    Ok(())
}

/// `DynamicQuantizeLinear`: uint8 of the input's shape, a float scale and a uint8 zero point.
pub fn dynamic_quantize(node: &mut Node) -> Rule {
    let shape = node.shape_of(0);
    node.set_tensor(0, Some(dtype::UINT8), shape);
    node.set_tensor(1, Some(dtype::FLOAT), Some(Vec::new()));
    node.set_tensor(2, Some(dtype::UINT8), Some(Vec::new()));
    Ok(())
}

/// `Attention` (opset 23): `Y` has the query's batch, heads and sequence and the value's head
/// size; the present key and value add the new sequence to the past one; the `QK` product is
/// `[batch, query heads, query sequence, total sequence]`. Queries, keys and values are 4-D
/// (`[batch, heads, sequence, head size]`) or 3-D (`[batch, sequence, heads x head size]`,
/// with `q_num_heads` and `kv_num_heads`).
pub fn attention(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let (Some(q), Some(k), Some(v)) = (node.shape_of(0), node.shape_of(1), node.shape_of(2)) else {
        return Ok(());
    };
    let per_head = |hidden: &Dim, heads: i64| match hidden.known() {
        Some(h) if heads > 0 && h % heads == 0 => Dim::Known(h / heads),
        _ => Dim::Unknown,
    };
    let q_heads_attr = node.int("q_num_heads", 0);
    let kv_heads_attr = node.int("kv_num_heads", 0);
    // [batch, heads, sequence, head size] of the query, key and value.
    let as4 = |d: &[Dim], heads: i64| -> Option<[Dim; 4]> {
        match d {
            [b, h, s, e] => Some([b.clone(), h.clone(), s.clone(), e.clone()]),
            [b, s, hidden] if heads > 0 => Some([
                b.clone(),
                Dim::Known(heads),
                s.clone(),
                per_head(hidden, heads),
            ]),
            _ => None,
        }
    };
    let (Some(q4), Some(k4), Some(v4)) = (
        as4(&q, q_heads_attr),
        as4(&k, kv_heads_attr),
        as4(&v, kv_heads_attr),
    ) else {
        return Ok(());
    };
    let y = if q.len() == 4 {
        vec![q4[0].clone(), q4[1].clone(), q4[2].clone(), v4[3].clone()]
    } else {
        let hidden = match (q4[1].known(), v4[3].known()) {
            (Some(h), Some(e)) => h.checked_mul(e).map_or(Dim::Unknown, Dim::Known),
            _ => Dim::Unknown,
        };
        vec![q4[0].clone(), q4[2].clone(), hidden]
    };
    node.set_tensor(0, elem, Some(y));
    let past = node.dims(4).filter(|d| d.len() == 4).map(|d| d[2].clone());
    let total = match past {
        Some(p) => match (p.known(), k4[2].known()) {
            (Some(a), Some(b)) => a.checked_add(b).map_or(Dim::Unknown, Dim::Known),
            _ => Dim::Unknown,
        },
        None => k4[2].clone(),
    };
    let present = |head: &Dim| vec![k4[0].clone(), k4[1].clone(), total.clone(), head.clone()];
    if node.outputs.len() > 1 {
        node.set_tensor(1, node.elem(1), Some(present(&k4[3])));
    }
    if node.outputs.len() > 2 {
        node.set_tensor(2, node.elem(2), Some(present(&v4[3])));
    }
    if node.outputs.len() > 3 {
        let qk = vec![q4[0].clone(), q4[1].clone(), q4[2].clone(), total.clone()];
        node.set_tensor(3, elem, Some(qk));
    }
    Ok(())
}

/// `RNN`, `GRU`, `LSTM`: `Y` is `[sequence, directions, batch, hidden]` (`layout` 0) or
/// `[batch, sequence, directions, hidden]`; the last states drop the sequence.
pub fn recurrent(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let Some(x) = node.dims(0).filter(|d| d.len() == 3).map(<[Dim]>::to_vec) else {
        return Ok(());
    };
    let layout = node.int("layout", 0);
    let (seq, batch) = if layout == 0 {
        (&x[0], &x[1])
    } else {
        (&x[1], &x[0])
    };
    let directions = match node.string("direction") {
        Some(b"bidirectional") => 2,
        _ => 1,
    };
    let hidden = node
        .attr("hidden_size")
        .and_then(|a| a.i)
        .map_or(Dim::Unknown, Dim::Known);
    let dirs = Dim::Known(directions);
    let y = if layout == 0 {
        vec![seq.clone(), dirs.clone(), batch.clone(), hidden.clone()]
    } else {
        vec![batch.clone(), seq.clone(), dirs.clone(), hidden.clone()]
    };
    let state = if layout == 0 {
        vec![dirs, batch.clone(), hidden]
    } else {
        vec![batch.clone(), dirs, hidden]
    };
    node.set_tensor(0, elem, Some(y));
    for i in 1..node.outputs.len() {
        node.set_tensor(i, elem, Some(state.clone()));
    }
    Ok(())
}

/// `DFT` (the axis an operand from opset 20, an attribute before): the last dim becomes 2
/// (real, imaginary); the transformed axis is `dft_length` long, or half of it plus one
/// with `onesided`.
pub fn dft(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let Some(mut dims) = node.shape_of(0) else {
        node.set_tensor(0, elem, None);
        return Ok(());
    };
    if dims.len() < 2 {
        return Err(conflict(
            0,
            format!("{} has no signal and complex axes", show_shape(&dims)),
        ));
    }
    let axis = if node.opset >= 20 {
        match node.has_input(2).then(|| node.ints(2)) {
            Some(Some(v)) if v.len() == 1 => v[0],
            Some(_) => {
                node.set_tensor(0, elem, Some(vec![Dim::Unknown; dims.len()]));
                return Ok(());
            }
            None => -2,
        }
    } else {
        node.int("axis", 1)
    };
    let rank = dims.len();
    let axis = node.axis(axis, rank, 0)?;
    if node.int("inverse", 0) != 0 && node.int("onesided", 0) != 0 {
        // A one-sided inverse (irfft) has sizes this rule does not follow.
        node.set_tensor(0, elem, Some(vec![Dim::Unknown; rank]));
        return Ok(());
    }
    if node.has_input(1) {
        dims[axis] = node
            .ints(1)
            .and_then(|v| v.first().copied())
            .map_or(Dim::Unknown, Dim::Known);
    }
    if node.int("onesided", 0) != 0 {
        dims[axis] = dims[axis]
            .known()
            .map_or(Dim::Unknown, |n| Dim::Known(n / 2 + 1));
    }
    dims[rank - 1] = Dim::Known(2);
    node.set_tensor(0, elem, Some(dims));
    Ok(())
}

/// `MaxUnpool`: `[N, C, ...]`, each spatial dim `(size - 1) x stride - pads + kernel`, or the
/// given `output_shape`.
pub fn max_unpool(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    if node.has_input(2) {
        let shape = node.values(2);
        node.set_tensor(0, elem, shape);
        return Ok(());
    }
    let Some(x) = node.shape_of(0).filter(|x| x.len() > 2) else {
        node.set_tensor(0, elem, None);
        return Ok(());
    };
    let n = x.len() - 2;
    let Some(kernel) = node.int_list("kernel_shape").filter(|k| k.len() == n) else {
        node.set_tensor(0, elem, Some(vec![Dim::Unknown; x.len()]));
        return Ok(());
    };
    let strides = node
        .int_list("strides")
        .filter(|s| s.len() == n)
        .unwrap_or(vec![1; n]);
    let pads = node
        .int_list("pads")
        .filter(|p| p.len() == 2 * n)
        .unwrap_or(vec![0; 2 * n]);
    let mut out = x[..2].to_vec();
    for i in 0..n {
        out.push(match x[i + 2].known() {
            Some(size) => known(
                (i128::from(size) - 1) * i128::from(strides[i])
                    - i128::from(pads[i])
                    - i128::from(pads[i + n])
                    + i128::from(kernel[i]),
            ),
            None => Dim::Unknown,
        });
    }
    node.set_tensor(0, elem, Some(out));
    Ok(())
}

/// `CausalConvWithState`: the input's shape; the present state keeps the last
/// `kernel - 1` steps, `[batch, channels, kernel - 1]`.
pub fn causal_conv_with_state(node: &mut Node) -> Rule {
    node.same_as_input(0, 0);
    let elem = node.elem(0);
    let state = match (node.dims(0), node.dims(1).and_then(|w| w.last()?.known())) {
        (Some([b, c, _]), Some(k)) if k >= 1 => Some(vec![b.clone(), c.clone(), Dim::Known(k - 1)]),
        _ => None,
    };
    if node.outputs.len() > 1 {
        node.set_tensor(1, elem, state);
    }
    Ok(())
}

/// `FlexAttention` (ai.onnx.preview): the query's batch, heads and sequence, the value's head
/// size.
pub fn flex_attention(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let shape = match (node.dims(0), node.dims(2)) {
        (Some([b, h, s, _]), Some([.., e])) => {
            Some(vec![b.clone(), h.clone(), s.clone(), e.clone()])
        }
        _ => None,
    };
    node.set_tensor(0, elem, shape);
    Ok(())
}

/// `LinearAttention` with 3-D operands `[batch, sequence, heads x head size]`: the output is
/// `[batch, sequence, q_num_heads x value head size]`, the state
/// `[batch, kv_num_heads, key head size, value head size]` (or the past state's shape).
pub fn linear_attention(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let (q_heads, kv_heads) = (node.int("q_num_heads", 0), node.int("kv_num_heads", 0));
    let head = |d: Option<&[Dim]>| match d {
        Some([_, _, hidden]) => match hidden.known() {
            Some(h) if kv_heads > 0 && h % kv_heads == 0 => Dim::Known(h / kv_heads),
            _ => Dim::Unknown,
        },
        _ => Dim::Unknown,
    };
    let (k_head, v_head) = (head(node.dims(1)), head(node.dims(2)));
    if let Some([b, s, _]) = node.dims(0) {
        let width = match v_head.known() {
            Some(v) if q_heads > 0 => q_heads.checked_mul(v).map_or(Dim::Unknown, Dim::Known),
            _ => Dim::Unknown,
        };
        let out = vec![b.clone(), s.clone(), width];
        node.set_tensor(0, elem, Some(out));
    }
    if node.outputs.len() > 1 {
        let state = match node.shape_of(3) {
            Some(past) => Some(past),
            None => node.dims(0).and_then(|d| d.first().cloned()).map(|b| {
                let heads = if kv_heads > 0 {
                    Dim::Known(kv_heads)
                } else {
                    Dim::Unknown
                };
                vec![b, heads, k_head, v_head]
            }),
        };
        node.set_tensor(1, elem, state);
    }
    Ok(())
}
