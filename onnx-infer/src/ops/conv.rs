//! Convolution and pooling: the spatial window and its attributes, `Conv` and its integer,
//! quantized, transposed and causal forms, the pools, `MaxUnpool`, `Col2Im`.

use crate::node::{Conflict, Node, Rule, conflict, dtype};
use crate::ty::{Dim, show_shape};

use super::elementwise::general;

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

/// `Col2Im`: `[N, C, ...image_shape]`, with `C` the input's second dim over the block's size.
/// The input has rank 3 (`[N, C x block size, L]`); where every operand's shape is known,
/// onnx checks the image and block shapes: vectors of one value per spatial axis.
pub fn col2im(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    node.ranked(0, "input", &[3])?;
    if (0..3).all(|i| node.dims(i).is_some())
        && let (Some(image), Some(block)) = (
            node.ranked(1, "image_shape", &[1])?,
            node.ranked(2, "block_shape", &[1])?,
        )
        && !image[0].compatible(&block[0])
    {
        return Err(conflict(
            2,
            format!(
                "operand 1 (image_shape) {} and operand 2 (block_shape) {} must have one value per spatial axis each",
                show_shape(image),
                show_shape(block)
            ),
        ));
    }
    // One dilation and stride per spatial axis, a pad at each end of each.
    let spatial = [1, 2].iter().find_map(|&i| node.dims(i)?.first()?.known());
    for (attribute, per_axis, each) in [
        ("dilations", 1, "one value"),
        ("strides", 1, "one value"),
        ("pads", 2, "two values"),
    ] {
        let expected = spatial.and_then(|axes| axes.checked_mul(per_axis));
        if let (Some(expected), Some(list)) = (expected, node.int_list(attribute))
            && i64::try_from(list.len()) != Ok(expected)
        {
            return Err(general(format!(
                "`{attribute}` must hold {each} per spatial axis ({expected} here), found {}",
                list.len()
            )));
        }
    }
    let (Some(input), Some(image)) = (node.shape_of(0), node.values(1)) else {
        node.set_tensor(0, elem, None);
        return Ok(());
    };
    let block = node.values(2).and_then(|b| Dim::product(&b));
    let channels = match (input.get(1).and_then(Dim::known), block) {
        (Some(c), Some(b)) if b > 0 && c % b == 0 => Dim::Known(c / b),
        _ => Dim::Unknown,
    };
    let mut out = vec![input.first().cloned().unwrap_or(Dim::Unknown), channels];
    out.extend(image);
    node.set_tensor(0, elem, Some(out));
    Ok(())
}
