//! Operators of neural networks: products, convolutions, pooling, normalisations, reductions.

use onnx_runtime_types::{ValueInfoProto, tensor_shape_proto, type_proto};

use crate::infer::node::{Conflict, Node, Rule, conflict, dtype, unify};
use crate::infer::ty::{Dim, Ty, show_shape};

use super::elementwise::{broadcast, general};

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

/// `Gemm`: `[M, K] x [K, N]`, each side transposed by `transA`/`transB`; the inner dims
/// must agree from opset 13.
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
    // onnx reads the flags as 32-bit ints: `transA` 2^32 is 0, no transposition.
    let flag = |name| node.int(name, 0) as i32 != 0;
    let (ta, tb) = (flag("transA"), flag("transB"));
    let (m, ka) = if ta { (&a[1], &a[0]) } else { (&a[0], &a[1]) };
    let (kb, n) = if tb { (&b[1], &b[0]) } else { (&b[0], &b[1]) };
    // Before opset 13 onnx's inference does not compare them; the operator's definition does.
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
    node.rank_at_least(xi, "X", 3)?;
    // The weight is [M, C / group, ...kernel]. onnx's inference checks neither its rank nor
    // its channels; the operator's definition does, and so do we (docs/divergences.md).
    if w.len() != x.len() {
        let message = format!(
            "input {} and weight {} do not fit a convolution",
            show_shape(&x),
            show_shape(&w)
        );
        return Err(conflict(wi, message));
    }
    let group = node.int("group", 1);
    if let (Some(c), Some(wc)) = (x[1].known(), w[1].known())
        && Some(c) != wc.checked_mul(group)
    {
        let message = format!(
            "input {} has {c} channels, weight {} takes {wc} x group {group}",
            show_shape(&x),
            show_shape(&w)
        );
        return Err(conflict(wi, message));
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
    let mut out = vec![x[0].clone(), w[0].clone()];
    match window {
        Some(window) => out.extend(x[2..].iter().enumerate().map(|(i, d)| window.output(i, d))),
        None => out.extend(vec![Dim::Unknown; n]),
    }
    node.set_tensor(0, elem, Some(out));
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
    node.rank_at_least(0, "X", 3)?;
    node.rank_at_least(1, "W", 3)?;
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
    // The weight is [C, M / group, ...kernel]: the operator's definition (not onnx's
    // inference) says so.
    if w.len() != x.len() {
        let message = format!(
            "input {} and weight {} do not fit a convolution",
            show_shape(&x),
            show_shape(&w)
        );
        return Err(conflict(1, message));
    }
    if let (Some(c), Some(wc)) = (x[1].known(), w[0].known())
        && c != wc
    {
        let message = format!(
            "input {} has {c} channels, weight {} takes {wc}",
            show_shape(&x),
            show_shape(&w)
        );
        return Err(conflict(1, message));
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
    node.set_tensor(0, elem, Some(out));
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
    node.rank_at_least(0, "X", 3)?;
    let Some(kernel) = node.int_list("kernel_shape") else {
        return Err(conflict(0, "pooling needs the attribute kernel_shape"));
    };
    let mut out = x[..2].to_vec();
    if let Some(window) = Window::of(node, x.len() - 2, Some(kernel))? {
        out.extend(x[2..].iter().enumerate().map(|(i, d)| window.output(i, d)));
    }
    node.set_tensor(0, elem, Some(out.clone()));
    if node.outputs.len() > 1 {
        node.set_tensor(1, Some(dtype::INT64), Some(out));
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
    if node.opset >= 14 {
        // Only training mode has the running statistics as results.
        let training = node.int("training_mode", 0) != 0;
        let wanted = if training { 3 } else { 1 };
        let found = node.proto.output.len();
        if found != wanted {
            let mode = if training {
                "in training mode"
            } else {
                "outside training mode"
            };
            return Err(conflict(
                0,
                format!("{mode} the operator has {wanted} results, found {found}"),
            ));
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

/// `ReduceSum`, `ReduceMean`, ...: the reduced axes become 1 (`keepdims` 1) or go (any other
/// value: the definition keeps them only where `keepdims` equals 1).
pub fn reduce(node: &mut Node) -> Rule {
    let op = node.proto.op_type.as_deref().unwrap_or("");
    // The axes became an operand in opset 13 for ReduceSum, in 18 for the others.
    let since = if op == "ReduceSum" { 13 } else { 18 };
    let from_input = node.opset >= since;
    let elem = node.elem(0);
    let keep = node.int("keepdims", 1) == 1;
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

/// `Softmax`, `LogSoftmax`, `Hardmax`: the operand's type; from opset 11 the operand has a
/// rank and `axis` is one of its axes.
pub fn softmax(node: &mut Node) -> Rule {
    node.same_as_input(0, 0);
    if node.opset < 11 {
        return Ok(());
    }
    let default = if node.opset < 13 { 1 } else { -1 };
    if let Some(dims) = node.dims(0) {
        node.rank_at_least(0, "input", 1)?;
        node.axis(node.int("axis", default), dims.len(), 0)?;
    }
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

/// `Attention` (opsets 23 to 25), as onnx infers it. Queries, keys and values are 4-D
/// (`[batch, heads, sequence, head size]`) or 3-D (`[batch, sequence, heads x head size]`,
/// with `q_num_heads` and `kv_num_heads`). `Y` has the query's batch, heads and sequence and
/// the value's head size; the `QK` product is `[batch, query heads, query sequence, total
/// sequence]`; the present key and value are the past ones with the total sequence (past
/// plus the value's). Where the query and the value differ in rank, onnx gives `Y` no shape
/// and the product only the batch.
pub fn attention(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    node.set_tensor(0, elem, None);
    let (qk, kv_sequence) = attention_output(node, elem)?;
    let qk = attention_cache(node, qk, &kv_sequence)?;
    if node.has_output(3) {
        node.set_tensor(3, elem, qk);
    }
    if node.opset >= 25 {
        attention_25_operands(node)?;
    }
    Ok(())
}

/// `Attention`'s `Y` (set), and the shape of its `QK` product and the kv sequence
/// (returned), from the query, key and value.
fn attention_output(
    node: &mut Node,
    elem: Option<i32>,
) -> Result<(Option<Vec<Dim>>, Dim), Conflict> {
    let Some(q) = node.ranked(0, "query", &[3, 4])?.map(<[Dim]>::to_vec) else {
        return Ok((None, Dim::Unknown));
    };
    if q.len() == 3 {
        for name in ["q_num_heads", "kv_num_heads"] {
            if node.attr(name).is_none() {
                return Err(conflict(0, format!("3-D inputs need the attribute {name}")));
            }
        }
    }
    let k = node.ranked(1, "key", &[3, 4])?.map(<[Dim]>::to_vec);
    // Without the value's shape onnx gives the product only the batch too; here it stays
    // unknown, as the value's shape may be one that only this inference misses.
    let Some(v) = node.ranked(2, "value", &[3, 4])?.map(<[Dim]>::to_vec) else {
        return Ok((None, Dim::Unknown));
    };
    // A 3-D key or value is split into heads by `kv_num_heads` (onnx asks for it only with a
    // 3-D query), which must divide its hidden size; so must `q_num_heads` the query's.
    let kv_heads = node.attr("kv_num_heads").and_then(|a| a.i);
    for (i, what, dims) in [(1, "key", k.as_deref()), (2, "value", Some(&v[..]))] {
        let Some([_, _, hidden]) = dims else {
            continue;
        };
        let Some(heads) = kv_heads else {
            return Err(conflict(
                i,
                format!("a 3-D {what} needs the attribute kv_num_heads"),
            ));
        };
        if let Some(h) = hidden.known()
            && heads > 0
            && h % heads != 0
        {
            let message =
                format!("the {what}'s hidden size {h} is not a multiple of {heads} heads");
            return Err(conflict(i, message));
        }
    }
    if let ([_, _, hidden], Some(heads)) = (&q[..], node.attr("q_num_heads").and_then(|a| a.i))
        && let Some(h) = hidden.known()
        && heads > 0
        && h % heads != 0
    {
        let message = format!("the query's hidden size {h} is not a multiple of {heads} heads");
        return Err(conflict(0, message));
    }
    // onnx reads a named size of the value as 0 here, and so rejects a product declared with
    // the size the name stands for; a name stays a name here (docs/divergences.md).
    match (q.len(), v.len()) {
        (4, 4) => {
            let y = vec![q[0].clone(), q[1].clone(), q[2].clone(), v[3].clone()];
            node.set_tensor(0, elem, Some(y));
            let kv_sequence = v[2].clone();
            let qk = vec![
                q[0].clone(),
                q[1].clone(),
                q[2].clone(),
                kv_sequence.clone(),
            ];
            Ok((Some(qk), kv_sequence))
        }
        (3, 3) => {
            let (q_heads, kv_heads) = (node.int("q_num_heads", 0), node.int("kv_num_heads", 0));
            if q_heads <= 0 || kv_heads <= 0 {
                return Err(general(format!(
                    "q_num_heads and kv_num_heads must be positive, found {q_heads} and {kv_heads}"
                )));
            }
            // A hidden size the heads do not divide has no head size (onnx rounds down).
            let hidden = match v[2].known() {
                Some(h) if h % kv_heads == 0 => {
                    Dim::Known((h / kv_heads).checked_mul(q_heads).ok_or_else(|| {
                        conflict(2, format!("{} x {q_heads} heads overflows", h / kv_heads))
                    })?)
                }
                _ => Dim::Unknown,
            };
            node.set_tensor(0, elem, Some(vec![q[0].clone(), q[1].clone(), hidden]));
            let kv_sequence = v[1].clone();
            let qk = vec![
                q[0].clone(),
                Dim::Known(q_heads),
                q[1].clone(),
                kv_sequence.clone(),
            ];
            Ok((Some(qk), kv_sequence))
        }
        // Where the query and value differ in rank onnx gives the product only the batch, a
        // rank it cannot have; it stays unknown here (docs/divergences.md).
        _ => Ok((None, Dim::Unknown)),
    }
}

/// `Attention`'s present key and value (set), where the past ones are given and the present
/// ones asked for: the past ones, rank 4, with the total sequence, which the `QK` product
/// (returned) ends with too.
fn attention_cache(
    node: &mut Node,
    mut qk: Option<Vec<Dim>>,
    kv_sequence: &Dim,
) -> Result<Option<Vec<Dim>>, Conflict> {
    let cached = node.has_output(1) && node.has_output(2) && node.has_input(4) && node.has_input(5);
    if !cached {
        return Ok(qk);
    }
    node.set_tensor(1, node.elem(4), None);
    node.set_tensor(2, node.elem(5), None);
    if node.dims(4).is_none() || node.dims(5).is_none() {
        return Ok(qk);
    }
    let past_key = node.ranked(4, "past_key", &[4])?.map(<[Dim]>::to_vec);
    let past_value = node.ranked(5, "past_value", &[4])?.map(<[Dim]>::to_vec);
    let (Some(mut present_key), Some(mut present_value)) = (past_key, past_value) else {
        return Ok(qk);
    };
    let (Some(new), Some(past)) = (kv_sequence.known(), present_key[2].known()) else {
        return Ok(qk);
    };
    if new <= 0 {
        return Ok(qk);
    }
    let total = Dim::Known(
        new.checked_add(past)
            .ok_or_else(|| conflict(4, format!("the total sequence {past} + {new} overflows")))?,
    );
    present_key[2] = total.clone();
    present_value[2] = total.clone();
    if let Some(qk) = qk.as_mut().filter(|qk| qk.len() == 4) {
        qk[3] = total;
    }
    node.set_tensor(1, node.elem(4), Some(present_key));
    node.set_tensor(2, node.elem(5), Some(present_value));
    Ok(qk)
}

/// What `Attention` 25 adds to the checks of its operands and attributes.
fn attention_25_operands(node: &Node) -> Rule {
    for name in ["left_window_size", "right_window_size"] {
        let size = node.int(name, -1);
        if size < -1 {
            return Err(general(format!(
                "{name} must be -1 or at least 0, found {size}"
            )));
        }
    }
    let rank = node.dims(0).map(<[Dim]>::len);
    let heads = (node.attr("q_num_heads"), node.attr("kv_num_heads"));
    if let (Some(3), (Some(q), Some(kv))) = (rank, heads) {
        let (q, kv) = (q.i.unwrap_or(0), kv.i.unwrap_or(0));
        if q <= 0 || kv <= 0 {
            return Err(general(format!(
                "q_num_heads and kv_num_heads must be positive, found {q} and {kv}"
            )));
        }
    }
    if rank == Some(4) && (heads.0.is_some() || heads.1.is_some()) {
        return Err(conflict(
            0,
            "4-D inputs take no q_num_heads or kv_num_heads",
        ));
    }
    if node.has_input(4) != node.has_input(5) {
        return Err(general("past_key and past_value go together"));
    }
    if node.has_output(1) != node.has_output(2) {
        return Err(general("present_key and present_value go together"));
    }
    if node.has_input(6) && (node.has_input(4) || node.has_output(1)) {
        return Err(conflict(
            6,
            "nonpad_kv_seqlen does not go with the past or present key and value",
        ));
    }
    Ok(())
}

/// `TensorScatter`: the past cache's shape. The update has the cache's rank and dims but on
/// `axis` (which cannot be the batch axis 0); the write indices are `[batch]`.
pub fn tensor_scatter(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let cache = node.shape_of(0);
    if let (Some(cache), Some(update)) = (&cache, node.dims(1)) {
        if cache.len() != update.len() {
            return Err(conflict(
                1,
                format!(
                    "the update {} must have the past cache's rank {}",
                    show_shape(update),
                    cache.len()
                ),
            ));
        }
        let rank = cache.len() as i64;
        let axis = node.int("axis", -2);
        let axis = if axis < 0 { axis + rank } else { axis };
        if axis <= 0 || axis >= rank {
            return Err(general(format!(
                "axis {} is out of range (1 to {}) for rank {rank}",
                node.int("axis", -2),
                rank - 1
            )));
        }
        for (i, (c, u)) in cache.iter().zip(update).enumerate() {
            if i as i64 != axis {
                unify(&mut c.clone(), u, 1, &format!("dim {i}"))?;
            }
        }
    }
    if node.dims(2).is_some() {
        node.ranked(2, "write_indices", &[1])?;
        if let Some(cache) = &cache {
            let Some(batch) = cache.first() else {
                let message = "the past cache must have a batch axis, found a scalar";
                return Err(conflict(0, message));
            };
            unify(&mut batch.clone(), &node.dim(2, 0), 2, "batch")?;
        }
    }
    node.set_tensor(0, elem, cache);
    Ok(())
}

/// `RNN`, `GRU`, `LSTM`: `Y` is `[sequence, directions, batch, hidden]` (`layout` 0) or
/// `[batch, sequence, directions, hidden]`; the last states drop the sequence. `X` must have
/// rank 3.
pub fn recurrent(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    // `GRU` 1 has no shape inference in onnx.
    if node.opset < 3 && node.proto.op_type.as_deref() == Some("GRU") {
        for i in 0..node.outputs.len() {
            node.set_tensor(i, elem, None);
        }
        return Ok(());
    }
    let Some(x) = node.ranked(0, "X", &[3])?.map(<[Dim]>::to_vec) else {
        return Ok(());
    };
    let layout = node.int("layout", 0);
    let (seq, batch) = if layout == 0 {
        (&x[0], &x[1])
    } else {
        (&x[1], &x[0])
    };
    // onnx leaves the directions unknown for a direction it does not know, and the hidden
    // size for one that is not positive.
    let dirs = match node.string("direction") {
        None | Some(b"forward" | b"reverse") => Dim::Known(1),
        Some(b"bidirectional") => Dim::Known(2),
        Some(_) => Dim::Unknown,
    };
    let hidden = match node.int("hidden_size", -1) {
        size if size > 0 => Dim::Known(size),
        _ => Dim::Unknown,
    };
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
    // Before opset 7, onnx gives the results shapes only with `output_sequence`.
    let shaped = node.opset >= 7 || node.int("output_sequence", 0) != 0;
    node.set_tensor(0, elem, shaped.then_some(y));
    for i in 1..node.outputs.len() {
        node.set_tensor(i, elem, shaped.then(|| state.clone()));
    }
    Ok(())
}

/// `DFT` (the axis an operand from opset 20, an attribute before), as onnx infers it: the
/// last dim becomes 2 (real, imaginary), or 1 for a one-sided inverse (irfft); the
/// transformed axis is `dft_length` long (half of it plus one one-sided), or, without it,
/// one-sided, half the input plus one (rfft) or twice the input less one (irfft).
pub fn dft(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let Some(mut dims) = node.shape_of(0) else {
        node.set_tensor(0, elem, None);
        return Ok(());
    };
    node.set_tensor(0, elem, None);
    let rank = dims.len();
    if rank < 2 {
        return Err(conflict(
            0,
            format!("{} has no signal and complex axes", show_shape(&dims)),
        ));
    }
    let onesided = node.int("onesided", 0) != 0;
    let inverse = node.int("inverse", 0) != 0;
    let last = if onesided && inverse { 1 } else { 2 };
    if onesided {
        let wanted = 3 - last;
        if let Some(found) = dims[rank - 1].known().filter(|&n| n != wanted) {
            let what = if inverse { "a complex" } else { "a real" };
            return Err(conflict(
                0,
                format!("a one-sided DFT takes {what} input, last dim {wanted}, found {found}"),
            ));
        }
    }
    let axis = if node.opset >= 20 {
        match node.has_input(2).then(|| node.ints(2)) {
            Some(Some(v)) if v.len() == 1 => v[0],
            Some(_) => {
                // An axis onnx cannot read: the whole shape unknown where the axis would
                // change, the input's otherwise.
                if onesided || node.has_input(1) {
                    dims = vec![Dim::Unknown; rank];
                }
                dims[rank - 1] = Dim::Known(last);
                node.set_tensor(0, elem, Some(dims));
                return Ok(());
            }
            None => -2,
        }
    } else {
        // onnx reads the attribute as a 32-bit int.
        i64::from(node.int("axis", 1) as i32)
    };
    let r = rank as i64;
    if axis < -r || axis == -1 || axis >= r - 1 {
        return Err(conflict(
            0,
            format!("axis {axis} is not a signal axis of rank {rank}"),
        ));
    }
    let axis = if axis < 0 { axis + r } else { axis } as usize;
    if node.has_input(1) {
        match node.ints(1).filter(|v| v.len() == 1) {
            Some(n) if onesided && !inverse => dims[axis] = Dim::Known((n[0] >> 1) + 1),
            Some(n) => dims[axis] = Dim::Known(n[0]),
            // Before opset 20, onnx gives no shape for a length it cannot read.
            None if node.opset < 20 => return Ok(()),
            None => dims[axis] = Dim::Unknown,
        }
    } else if onesided {
        dims[axis] = match dims[axis].known() {
            Some(n) if inverse => n
                .checked_sub(1)
                .and_then(|n| n.checked_mul(2))
                .map_or(Dim::Unknown, Dim::Known),
            Some(n) => Dim::Known((n >> 1) + 1),
            None => Dim::Unknown,
        };
    }
    dims[rank - 1] = Dim::Known(last);
    node.set_tensor(0, elem, Some(dims));
    Ok(())
}

/// `MaxUnpool`: `[N, C, ...]`, each spatial dim `(size - 1) x stride - pads + kernel`, or the
/// given `output_shape`. The input has a batch and a channel axis, the attributes one value
/// (pads two) per spatial axis, `kernel_shape` given; `output_shape` is a vector of one value
/// per axis of the input. The indices have the input's dims: as onnx, the channels are read
/// from them.
pub fn max_unpool(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let Some(x) = node.shape_of(0) else {
        let shape = node.has_input(2).then(|| node.values(2)).flatten();
        node.set_tensor(0, elem, shape);
        return Ok(());
    };
    node.rank_at_least(0, "X", 2)?;
    let n = x.len().saturating_sub(2);
    let pads = spatial_list(node, "pads", n, 2)?.unwrap_or(vec![0; 2 * n]);
    let strides = spatial_list(node, "strides", n, 1)?.unwrap_or(vec![1; n]);
    let Some(kernel) = spatial_list(node, "kernel_shape", n, 1)? else {
        return Err(conflict(0, "the attribute kernel_shape is needed"));
    };
    if node.has_input(2) {
        if let Some(count) = node.ranked(2, "output_shape", &[1])?
            && !count[0].compatible(&Dim::Known(x.len() as i64))
        {
            let message = format!(
                "operand 2 (output_shape) {} must hold one value per axis of the input {}",
                show_shape(count),
                show_shape(&x)
            );
            return Err(conflict(2, message));
        }
        let shape = node.values(2);
        node.set_tensor(0, elem, shape);
        return Ok(());
    }
    node.rank_at_least(1, "I", 2)?;
    let channels = node.dims(1).map_or(x[1].clone(), |i| i[1].clone());
    let mut out = vec![x[0].clone(), channels];
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
/// `kernel - 1` steps, `[batch, channels, kernel - 1]`. The input `[batch, channels, length]`,
/// the weight `[channels, 1, kernel]`, the bias `[channels]` and the past state
/// `[batch, channels, kernel - 1]` must agree, as onnx unifies them.
pub fn causal_conv_with_state(node: &mut Node) -> Rule {
    // An empty string counts as none given: the text that a binary model is checked through
    // writes an attribute whose string was left out (which onnx does not check) as `""`.
    if let Some(activation) = node.string("activation")
        && !matches!(activation, b"" | b"none" | b"silu" | b"swish")
    {
        return Err(general(format!(
            "activation must be none, silu or swish, found {:?}",
            String::from_utf8_lossy(activation)
        )));
    }
    node.same_as_input(0, 0);
    let elem = node.elem(0);
    let (mut batch, mut channels, mut length) = (Dim::Unknown, Dim::Unknown, Dim::Unknown);
    let (mut one, mut kernel) = (Dim::Known(1), Dim::Unknown);
    node.unify_operand(
        0,
        "input",
        &mut [
            ("batch", &mut batch),
            ("channels", &mut channels),
            ("length", &mut length),
        ],
    )?;
    node.unify_operand(
        1,
        "weight",
        &mut [
            ("channels", &mut channels),
            ("middle dim", &mut one),
            ("kernel", &mut kernel),
        ],
    )?;
    if let Some(k) = kernel.known().filter(|&k| k < 1) {
        return Err(conflict(
            1,
            format!("the kernel must be at least 1, found {k}"),
        ));
    }
    if node.has_input(2) {
        node.unify_operand(2, "bias", &mut [("channels", &mut channels)])?;
    }
    let mut kept = kernel.known().map_or(Dim::Unknown, |k| Dim::Known(k - 1));
    if node.has_input(3) {
        node.unify_operand(
            3,
            "past_state",
            &mut [
                ("batch", &mut batch),
                ("channels", &mut channels),
                ("kernel - 1", &mut kept),
            ],
        )?;
    }
    if node.outputs.len() > 1 {
        node.set_tensor(1, elem, Some(vec![batch, channels, kept]));
    }
    Ok(())
}

/// `FlexAttention` (ai.onnx.preview): rank-4 query `[batch, query heads, sequence, head
/// size]`, key and value `[batch, kv heads, kv sequence, head size]`; the output has the
/// query's batch, heads and sequence and the value's head size. The score and probability
/// modifiers are graphs of one input and one output, of the softmax's element type.
pub fn flex_attention(node: &mut Node) -> Rule {
    if (0..3).any(|i| node.input(i).is_none()) {
        return Ok(());
    }
    let elem = node.elem(0);
    node.set_tensor(0, elem, None);
    let q = node.ranked(0, "query", &[4])?.map(<[Dim]>::to_vec);
    let k = node.ranked(1, "key", &[4])?.map(<[Dim]>::to_vec);
    let v = node.ranked(2, "value", &[4])?.map(<[Dim]>::to_vec);
    if let (Some(q), Some(k), Some(v)) = (q, k, v) {
        let differ = |a: &Dim, b: &Dim| matches!((a, b), (Dim::Known(x), Dim::Known(y)) if x != y);
        let kv = |what: &str| {
            format!(
                "the key and the value differ in {what}: {} and {}",
                show_shape(&k),
                show_shape(&v)
            )
        };
        if differ(&k[1], &v[1]) {
            return Err(conflict(2, kv("heads")));
        }
        if differ(&k[2], &v[2]) {
            return Err(conflict(2, kv("sequence")));
        }
        if differ(&q[3], &k[3]) {
            let message = format!(
                "the query and the key differ in head size: {} and {}",
                show_shape(&q),
                show_shape(&k)
            );
            return Err(conflict(1, message));
        }
        if let (Some(hq), Some(hkv)) = (q[1].known(), k[1].known())
            && hq != hkv
            && (hkv <= 0 || hq % hkv != 0)
        {
            let message = format!("{hq} query heads are no multiple of {hkv} key heads");
            return Err(conflict(1, message));
        }
        let mut batch = q[0].clone();
        unify(&mut batch, &k[0], 1, "batch")?;
        unify(&mut batch, &v[0], 2, "batch")?;
        node.set_tensor(
            0,
            elem,
            Some(vec![batch, q[1].clone(), q[2].clone(), v[3].clone()]),
        );
    }
    let softmax = match node.attr("softmax_precision") {
        Some(a) => {
            let precision = a.i.unwrap_or(0) as i32;
            if !matches!(
                precision,
                dtype::FLOAT | dtype::FLOAT16 | dtype::BFLOAT16 | dtype::DOUBLE
            ) {
                return Err(general(format!(
                    "softmax_precision must be float, float16, bfloat16 or double, found {precision}"
                )));
            }
            precision
        }
        None if elem == Some(dtype::DOUBLE) => dtype::DOUBLE,
        None => dtype::FLOAT,
    };
    flex_modifier(node, "score_mod", softmax)?;
    flex_modifier(node, "prob_mod", softmax)
}

/// A `FlexAttention` modifier graph (`score_mod`, `prob_mod`), where given: one input, one
/// output, both tensors of element type `elem`, of rank 4 where a shape is declared, and
/// with the same known dims.
fn flex_modifier(node: &Node, name: &str, elem: i32) -> Rule {
    let Some(attr) = node.attr(name) else {
        return Ok(());
    };
    let Some(graph) = attr.g.as_deref() else {
        return Err(general(format!("{name} must be a graph")));
    };
    if graph.input.len() != 1 || graph.output.len() != 1 {
        return Err(general(format!(
            "{name} must have 1 input and 1 output, found {} and {}",
            graph.input.len(),
            graph.output.len()
        )));
    }
    // The declared type: `None` where there is none, `Some(None)` where it is no tensor.
    let tensor = |value: &'_ ValueInfoProto| -> Option<Option<type_proto::Tensor>> {
        Some(match value.r#type.as_ref()?.value.as_ref() {
            Some(type_proto::Value::TensorType(t)) => Some(t.clone()),
            _ => None,
        })
    };
    let (input, output) = (tensor(&graph.input[0]), tensor(&graph.output[0]));
    if matches!(output, Some(None)) {
        return Err(general(format!("{name}'s output must be a tensor")));
    }
    let (input, output) = (input.flatten(), output.flatten());
    for (side, t) in [("input", &input), ("output", &output)] {
        let Some(t) = t else { continue };
        let found = t.elem_type.unwrap_or(0);
        if found != elem {
            let named =
                |e: i32| crate::dtype::elem_type_by_number(e).map_or("undefined", |t| t.name);
            return Err(general(format!(
                "{name}'s {side} must be {} (the softmax's element type), found {}",
                named(elem),
                named(found)
            )));
        }
        if let Some(rank) = t.shape.as_ref().map(|s| s.dim.len()).filter(|&r| r != 4) {
            return Err(general(format!(
                "{name}'s {side} must have rank 4, found rank {rank}"
            )));
        }
    }
    if let (Some(i), Some(o)) = (&input, &output) {
        let known = |t: &type_proto::Tensor| -> Vec<Option<i64>> {
            t.shape
                .iter()
                .flat_map(|s| &s.dim)
                .map(|d| match d.value {
                    Some(tensor_shape_proto::dimension::Value::DimValue(v)) => Some(v),
                    _ => None,
                })
                .collect()
        };
        let differ = known(i)
            .iter()
            .zip(known(o))
            .any(|(a, b)| matches!((a, b), (Some(x), Some(y)) if *x != y));
        if differ {
            return Err(general(format!(
                "{name}'s output must have its input's shape"
            )));
        }
    }
    Ok(())
}

/// `LinearAttention`: 3-D operands `[batch, sequence, heads x head size]`, the past state
/// `[batch, kv_num_heads, key head size, value head size]`, the decay and beta
/// `[batch, sequence, n]`, which `update_rule` asks for; the output is
/// `[batch, sequence, q_num_heads x value head size]`, the present state has the past's shape.
/// The sizes they share (batch, sequence, head sizes, kv heads) must agree, as onnx unifies
/// them.
pub fn linear_attention(node: &mut Node) -> Rule {
    let (q_heads, kv_heads) = (node.int("q_num_heads", 0), node.int("kv_num_heads", 0));
    for (name, heads) in [("q_num_heads", q_heads), ("kv_num_heads", kv_heads)] {
        if heads <= 0 {
            return Err(general(format!("{name} must be positive, found {heads}")));
        }
    }
    if q_heads % kv_heads != 0 {
        return Err(general(format!(
            "q_num_heads ({q_heads}) must be a multiple of kv_num_heads ({kv_heads})"
        )));
    }
    let rule = node
        .attr("update_rule")
        .map_or(&b"gated_delta"[..], |a| a.s.as_deref().unwrap_or_default());
    let (decay, beta) = match rule {
        b"linear" => (false, false),
        b"gated" => (true, false),
        b"delta" => (false, true),
        b"gated_delta" => (true, true),
        _ => {
            return Err(general(format!(
                "update_rule must be linear, gated, delta or gated_delta, found {:?}",
                String::from_utf8_lossy(rule)
            )));
        }
    };
    for (input, name, wanted) in [(4, "decay", decay), (5, "beta", beta)] {
        if node.has_input(input) != wanted {
            let needs = if wanted { "needs the" } else { "takes no" };
            return Err(general(format!(
                "update_rule {} {needs} {name} operand",
                String::from_utf8_lossy(rule)
            )));
        }
    }
    let (mut b, mut t) = (Dim::Unknown, Dim::Unknown);
    let mut packed = [Dim::Unknown, Dim::Unknown, Dim::Unknown];
    for (i, name) in ["query", "key", "value"].into_iter().enumerate() {
        let sizes = &mut [
            ("batch", &mut b),
            ("sequence", &mut t),
            ("last dim", &mut packed[i]),
        ];
        node.unify_operand(i, name, sizes)?;
    }
    let mut heads = Dim::Known(kv_heads);
    // The head sizes of the keys and of the values.
    let mut head = [Dim::Unknown, Dim::Unknown];
    if node.has_input(3) {
        let [key_head, value_head] = &mut head;
        let sizes = &mut [
            ("batch", &mut b),
            ("heads", &mut heads),
            ("key head size", key_head),
            ("value head size", value_head),
        ];
        node.unify_operand(3, "past_state", sizes)?;
    }
    for (i, name) in [(4, "decay"), (5, "beta")] {
        if node.has_input(i) {
            let mut last = Dim::Unknown;
            let sizes = &mut [
                ("batch", &mut b),
                ("sequence", &mut t),
                ("last dim", &mut last),
            ];
            node.unify_operand(i, name, sizes)?;
        }
    }
    for (i, name, heads, side) in [
        (0, "query", q_heads, 0),
        (1, "key", kv_heads, 0),
        (2, "value", kv_heads, 1),
    ] {
        let Some(width) = packed[i].known() else {
            continue;
        };
        if width % heads != 0 {
            return Err(conflict(
                i,
                format!(
                    "operand {i} ({name}): its last dim {width} is no multiple of {heads} heads"
                ),
            ));
        }
        unify(&mut head[side], &Dim::Known(width / heads), i, "head size")?;
    }
    if let Some(last) = node
        .dims(4)
        .filter(|d| d.len() == 3)
        .and_then(|d| d[2].known())
    {
        let fits = match head[0].known() {
            Some(dk) => last == kv_heads || kv_heads.checked_mul(dk) == Some(last),
            None => last == kv_heads || last % kv_heads == 0,
        };
        if !fits {
            return Err(conflict(
                4,
                format!(
                    "operand 4 (decay): its last dim {last} is neither the {kv_heads} kv heads nor the kv heads times the key head size"
                ),
            ));
        }
    }
    if let Some(last) = node
        .dims(5)
        .filter(|d| d.len() == 3)
        .and_then(|d| d[2].known())
        && last != 1
        && last != kv_heads
    {
        return Err(conflict(
            5,
            format!(
                "operand 5 (beta): its last dim {last} is neither 1 nor the {kv_heads} kv heads"
            ),
        ));
    }
    let width = match head[1].known() {
        Some(v) => Dim::Known(
            q_heads
                .checked_mul(v)
                .ok_or_else(|| conflict(2, format!("{q_heads} heads x {v} overflows")))?,
        ),
        None => Dim::Unknown,
    };
    let elem = node.elem(0);
    node.set_tensor(0, elem, Some(vec![b.clone(), t, width]));
    if node.outputs.len() > 1 {
        let past_tensor = matches!(node.input(3), Some(Ty::Tensor { .. }));
        let state_elem = if node.has_input(3) && past_tensor {
            node.elem(3)
        } else {
            elem
        };
        let [key_head, value_head] = head;
        node.set_tensor(1, state_elem, Some(vec![b, heads, key_head, value_head]));
    }
    Ok(())
}
