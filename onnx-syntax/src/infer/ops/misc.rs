//! Operators with results of their own kind: losses, `Unique`, detection, random tensors.

use crate::infer::node::{Conflict, Node, Rule, conflict, dtype};
use crate::infer::ty::{Dim, Ty, show_shape};

use super::control::body_results;
use super::elementwise::general;
use onnx_runtime_types::AttributeProto;

/// `NegativeLogLikelihoodLoss`: the input is `[N, C, d1, ..., dk]`, the target
/// `[N, d1, ..., dk]` and the weight `[C]`; the loss has the target's shape without
/// reduction, else it is a scalar.
pub fn nll_loss(node: &mut Node) -> Rule {
    let (Some(x), Some(target)) = (node.dims(0), node.dims(1)) else {
        return loss(node);
    };
    node.rank_at_least(0, "input", 2)?;
    node.ranked(1, "target", &[x.len() - 1])?;
    // Target dim i is input dim i + 1, but for the batch.
    for (i, t) in target.iter().enumerate() {
        let k = if i == 0 { 0 } else { i + 1 };
        if !t.compatible(&x[k]) {
            return Err(conflict(
                1,
                format!(
                    "dim {i} of the target {} is {t}, but dim {k} of the input {} is {}",
                    show_shape(target),
                    show_shape(x),
                    x[k]
                ),
            ));
        }
    }
    // One weight per class (onnx's inference checks it from opset 22 on; the operator's
    // definition at every version).
    if node.has_input(2)
        && let Some(weight) = node.ranked(2, "weight", &[1])?
        && !weight[0].compatible(&x[1])
    {
        return Err(conflict(
            2,
            format!(
                "the weight {} has one value per class, the input {} has {} classes",
                show_shape(weight),
                show_shape(x),
                x[1]
            ),
        ));
    }
    loss(node)
}

/// A loss's type: the target's shape without reduction, else a scalar.
fn loss(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let none = node.string("reduction").is_some_and(|r| r == b"none");
    let shape = if none {
        node.shape_of(1)
    } else {
        Some(Vec::new())
    };
    node.set_tensor(0, elem, shape);
    Ok(())
}

/// `SoftmaxCrossEntropyLoss`: the loss as [`nll_loss`] types it, and the log-probabilities
/// of the scores' type.
pub fn softmax_cross_entropy(node: &mut Node) -> Rule {
    loss(node)?;
    if node.outputs.len() > 1 {
        node.same_as_input(1, 0);
    }
    Ok(())
}

/// `Unique`: the values (flattened, or along `axis`) and int64 index vectors, all of unknown
/// length.
pub fn unique(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let values = match (node.attr("axis").and_then(|a| a.i), node.shape_of(0)) {
        (None, _) => Some(vec![Dim::Unknown]),
        (Some(axis), Some(mut dims)) => {
            let k = node.axis(axis, dims.len(), 0)?;
            dims[k] = Dim::Unknown;
            Some(dims)
        }
        _ => None,
    };
    node.set_tensor(0, elem, values);
    let inverse = match (node.attr("axis").and_then(|a| a.i), node.dims(0)) {
        (None, Some(dims)) => Dim::product(dims).map_or(Dim::Unknown, Dim::Known),
        (Some(axis), Some(dims)) => match node.axis(axis, dims.len(), 0) {
            Ok(k) => dims[k].clone(),
            Err(_) => Dim::Unknown,
        },
        _ => Dim::Unknown,
    };
    for i in 1..node.outputs.len() {
        let len = if i == 2 {
            inverse.clone()
        } else {
            Dim::Unknown
        };
        node.set_tensor(i, Some(dtype::INT64), Some(vec![len]));
    }
    Ok(())
}

/// `NonMaxSuppression`: int64 `[?, 3]`.
pub fn non_max_suppression(node: &mut Node) -> Rule {
    node.set_tensor(
        0,
        Some(dtype::INT64),
        Some(vec![Dim::Unknown, Dim::Known(3)]),
    );
    Ok(())
}

/// `RandomUniformLike`, `RandomNormalLike`, `Bernoulli`, `EyeLike`: the operand's shape, the element
/// type `dtype` or the operand's.
pub fn like(node: &mut Node) -> Rule {
    let elem = node
        .attr("dtype")
        .and_then(|a| a.i)
        .map(|i| i as i32)
        .or(node.elem(0));
    let shape = node.shape_of(0);
    node.set_tensor(0, elem, shape);
    Ok(())
}

/// `RandomUniform`, `RandomNormal`: the shape `shape`, the element type `dtype` (float).
pub fn random(node: &mut Node) -> Rule {
    let elem = node.int("dtype", i64::from(dtype::FLOAT)) as i32;
    let shape = node
        .int_list("shape")
        .map(|s| s.into_iter().map(Dim::Known).collect());
    node.set_tensor(0, Some(elem), shape);
    Ok(())
}

/// `Det`: the batch dims of square matrices `[..., M, M]`.
pub fn det(node: &mut Node) -> Rule {
    use crate::infer::{node::conflict, ty::show_shape};
    let elem = node.elem(0);
    let shape = match node.dims(0) {
        Some(d) if d.len() < 2 => {
            let message = format!(
                "operand 0 must be a matrix or a stack of them, found {}",
                show_shape(d)
            );
            return Err(conflict(0, message));
        }
        Some(d) => {
            let (rows, columns) = (&d[d.len() - 2], &d[d.len() - 1]);
            if !rows.compatible(columns) {
                let message = format!(
                    "operand 0 must hold square matrices, found {}",
                    show_shape(d)
                );
                return Err(conflict(0, message));
            }
            Some(d[..d.len() - 2].to_vec())
        }
        None => None,
    };
    node.set_tensor(0, elem, shape);
    Ok(())
}

/// `GridSample`: `[N, C]` of the input, then the grid's spatial dims. The input
/// `[N, C, ...spatial]` and the grid `[N, ...spatial out, spatial rank]` have the same rank,
/// at least 3, and the same batch.
pub fn grid_sample(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let (x, grid) = match (node.dims(0), node.dims(1)) {
        (Some(x), Some(grid)) => (x, grid),
        (Some(x), None) => {
            let shape = vec![Dim::Unknown; x.len()];
            node.set_tensor(0, elem, Some(shape));
            return Ok(());
        }
        _ => {
            node.set_tensor(0, elem, None);
            return Ok(());
        }
    };
    let rank = x.len();
    if rank < 3 || grid.len() != rank {
        return Err(conflict(
            1,
            format!(
                "the input {} and the grid {} must have the same rank, 3 or more",
                show_shape(x),
                show_shape(grid)
            ),
        ));
    }
    let last = &grid[rank - 1];
    if !last.compatible(&Dim::Known(rank as i64 - 2)) {
        return Err(conflict(
            1,
            format!(
                "the last dim of the grid {} must be {} (a coordinate per spatial axis), found {last}",
                show_shape(grid),
                rank - 2
            ),
        ));
    }
    if !x[0].compatible(&grid[0]) {
        return Err(conflict(
            1,
            format!(
                "the input {} and the grid {} differ in batch",
                show_shape(x),
                show_shape(grid)
            ),
        ));
    }
    let batch = match (x[0].known(), grid[0].known()) {
        (None, Some(_)) => &grid[0],
        _ => &x[0],
    };
    let mut out = vec![batch.clone(), x[1].clone()];
    out.extend(grid[1..rank - 1].iter().cloned());
    node.set_tensor(0, elem, Some(out));
    Ok(())
}

/// `RoiAlign`: `[rois, C, output_height, output_width]`, from the input `[N, C, H, W]`, the
/// boxes `[rois, 4]` and their batch indices `[rois]`.
pub fn roi_align(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let [mut batch, mut channels, mut height, mut width] = [const { Dim::Unknown }; 4];
    node.unify_operand(
        0,
        "X",
        &mut [
            ("batch", &mut batch),
            ("channels", &mut channels),
            ("height", &mut height),
            ("width", &mut width),
        ],
    )?;
    let (mut rois, mut four) = (Dim::Unknown, Dim::Known(4));
    node.unify_operand(
        1,
        "rois",
        &mut [("rois", &mut rois), ("box size", &mut four)],
    )?;
    node.unify_operand(2, "batch_indices", &mut [("rois", &mut rois)])?;
    let h = Dim::Known(node.int("output_height", 1));
    let w = Dim::Known(node.int("output_width", 1));
    node.set_tensor(0, elem, Some(vec![rois, channels, h, w]));
    Ok(())
}

/// `HannWindow`, `HammingWindow`, `BlackmanWindow`: a vector of the given size.
pub fn window(node: &mut Node) -> Rule {
    let elem = node.int("output_datatype", i64::from(dtype::FLOAT)) as i32;
    let size = node
        .ints(0)
        .and_then(|v| v.first().copied())
        .map_or(Dim::Unknown, Dim::Known);
    node.set_tensor(0, Some(elem), Some(vec![size]));
    Ok(())
}

/// `ImageDecoder`: the encoded bytes are a vector; the image is uint8 of rank 3.
pub fn image_decoder(node: &mut Node) -> Rule {
    node.ranked(0, "encoded_stream", &[1])?;
    node.set_tensor(0, Some(dtype::UINT8), Some(vec![Dim::Unknown; 3]));
    Ok(())
}

/// `StringSplit`: strings one dim longer, and int64 counts of the input's shape.
pub fn string_split(node: &mut Node) -> Rule {
    let shape = node.shape_of(0);
    let longer = shape.clone().map(|mut s| {
        s.push(Dim::Unknown);
        s
    });
    node.set_tensor(0, Some(dtype::STRING), longer);
    node.set_tensor(1, Some(dtype::INT64), shape);
    Ok(())
}

/// `RegexFullMatch`: a bool of the operand's shape.
pub fn regex_full_match(node: &mut Node) -> Rule {
    let shape = node.shape_of(0);
    node.set(0, Ty::tensor(dtype::BOOL, shape));
    Ok(())
}

/// `StringNormalizer`: strings of the operand's rank, `[C]` or `[1, C]`; stop words can remove
/// any number of them, so the last dim is unknown.
pub fn string_normalizer(node: &mut Node) -> Rule {
    if let Some(dims) = node.ranked(0, "X", &[1, 2])?
        && let [first, _] = dims
        && !first.compatible(&Dim::Known(1))
    {
        let message = format!(
            "operand 0 (X) must be [C] or [1, C], found {}",
            show_shape(dims)
        );
        return Err(conflict(0, message));
    }
    let shape = node.dims(0).map(|dims| {
        let mut out = dims.to_vec();
        if let Some(last) = out.last_mut() {
            *last = Dim::Unknown;
        }
        out
    });
    node.set(0, Ty::tensor(dtype::STRING, shape));
    Ok(())
}

/// `Adagrad`, `Momentum`, `Adam` (ai.onnx.preview.training): after the rate and the step
/// count come `n` tensors, their `n` gradients, then one or two `n`-long groups of state
/// (`Adagrad`'s accumulated squares; `Momentum`'s velocities; `Adam`'s two moments). The
/// results are the new tensors, then the new state groups, each of its input's type.
pub fn optimizer(node: &mut Node) -> Rule {
    let groups = match node.proto.op_type.as_deref() {
        Some("Adam") => 4,
        _ => 3,
    };
    let operands = node.inputs.len().saturating_sub(2);
    if !operands.is_multiple_of(groups) {
        return Err(general(format!(
            "after the rate and the step count come {groups} groups of one operand per tensor \
             to optimize (the tensors, their gradients, then the state), found {operands} \
             operands"
        )));
    }
    // Each tensor to optimize, gradient and state goes into a result's type.
    node.written(2..node.inputs.len())?;
    let n = operands / groups;
    for out in 0..node.outputs.len() {
        let (group, j) = (out / n.max(1), out % n.max(1));
        // The gradients (group 1 of the inputs) have no result of their own.
        let input_group = if group == 0 { 0 } else { group + 1 };
        node.same_as_input(out, 2 + input_group * n + j);
    }
    Ok(())
}

/// `LabelEncoder` (ai.onnx.ml): the operand's shape; the element type of the values it maps to.
/// From opset 4, onnx requires exactly one attribute of keys and one of values, keys of the
/// operand's element type.
pub fn label_encoder(node: &mut Node) -> Rule {
    if node.opset >= 4 {
        let keys = one_of(node, "keys")?;
        one_of(node, "values")?;
        let count = |kind: &str| -> Result<Option<usize>, Conflict> {
            let names = ["tensor", "strings", "int64s", "floats"].map(|s| format!("{kind}_{s}"));
            names
                .iter()
                .find_map(|name| node.attr(name))
                .map_or(Ok(None), attr_len)
        };
        if let (Some(keys), Some(values)) = (count("keys")?, count("values")?)
            && keys != values
        {
            return Err(conflict(
                0,
                format!("{keys} keys map to {values} values: they must be as many"),
            ));
        }
        if let (Some(key), Some(elem)) = (keys, node.elem(0))
            && key != elem
        {
            return Err(conflict(
                0,
                format!("the keys have element type {key}, operand 0 has {elem}"),
            ));
        }
        // The value of keys not found: one value, as a one-dim tensor.
        if let Some(default) = node.tensor("default_tensor")
            && default.dims != [1]
        {
            return Err(conflict(
                0,
                format!(
                    "default_tensor must be a one-dim tensor of one value, found dims {:?}",
                    default.dims
                ),
            ));
        }
    }
    let elem = if node.attr("values_strings").is_some() {
        Some(dtype::STRING)
    } else if node.attr("values_int64s").is_some() {
        Some(dtype::INT64)
    } else if node.attr("values_floats").is_some() {
        Some(dtype::FLOAT)
    } else {
        node.tensor("values_tensor").and_then(|t| t.data_type)
    };
    let shape = node.shape_of(0);
    node.set_tensor(0, elem, shape);
    Ok(())
}

/// How many values a list attribute holds (a tensor attribute must be one-dim).
fn attr_len(attr: &AttributeProto) -> Result<Option<usize>, Conflict> {
    let lists = [attr.ints.len(), attr.floats.len(), attr.strings.len()];
    if let Some(&n) = lists.iter().find(|&&n| n > 0) {
        return Ok(Some(n));
    }
    let Some(tensor) = attr.t.as_deref() else {
        return Ok(None);
    };
    match tensor.dims.as_slice() {
        [n] => Ok(usize::try_from(*n).ok()),
        dims => Err(conflict(
            0,
            format!(
                "the attribute {} must be a one-dim tensor, found dims {dims:?}",
                attr.name.as_deref().unwrap_or("")
            ),
        )),
    }
}

/// The element type of the one attribute `KIND_tensor`, `KIND_strings`, `KIND_int64s` or
/// `KIND_floats` that `LabelEncoder` must have (`None` for a tensor of no element type).
fn one_of(node: &Node, kind: &str) -> Result<Option<i32>, Conflict> {
    let kinds = [
        ("tensor", None),
        ("strings", Some(dtype::STRING)),
        ("int64s", Some(dtype::INT64)),
        ("floats", Some(dtype::FLOAT)),
    ];
    let mut found = Vec::new();
    for (suffix, elem) in kinds {
        let name = format!("{kind}_{suffix}");
        if let Some(attr) = node.attr(&name) {
            let elem = elem.or_else(|| attr.t.as_ref().and_then(|t| t.data_type));
            found.push((name, elem));
        }
    }
    match found.as_slice() {
        [(_, elem)] => Ok(*elem),
        [] => Err(conflict(
            0,
            format!(
                "one of the attributes {kind}_tensor, {kind}_strings, {kind}_int64s or {kind}_floats is needed"
            ),
        )),
        [(a, _), (b, _), ..] => Err(conflict(
            0,
            format!("only one of the attributes {a} and {b} may be given"),
        )),
    }
}

/// `AffineGrid`: `[N, H, W, 2]` or `[N, D, H, W, 3]` from the size `[N, C, (D,) H, W]`, a
/// vector (checked, as onnx does, where the matrices' shape is known).
pub fn affine_grid(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    if node.dims(0).is_some() {
        node.ranked(1, "size", &[1])?;
        // Its length, from its value or from its declared shape.
        if let Some(size) = node.values(1)
            && !matches!(size.len(), 4 | 5)
        {
            return Err(conflict(
                1,
                format!(
                    "operand 1 (size) must have 4 values (2-D) or 5 (3-D), found {}",
                    size.len()
                ),
            ));
        }
    }
    let shape = node.values(1).and_then(|size| match size.as_slice() {
        [n, _, h, w] => Some(vec![n.clone(), h.clone(), w.clone(), Dim::Known(2)]),
        [n, _, d, h, w] => Some(vec![
            n.clone(),
            d.clone(),
            h.clone(),
            w.clone(),
            Dim::Known(3),
        ]),
        _ => None,
    });
    node.set_tensor(0, elem, shape);
    Ok(())
}

/// The size in bytes of an element type of at least one byte.
fn byte_width(elem: i32) -> Option<u32> {
    Some(match elem {
        2 | 3 | 9 | 17..=20 => 1,
        4 | 5 | 10 | 16 => 2,
        1 | 6 | 12 => 4,
        7 | 11 | 13 | 14 => 8,
        15 => 16,
        _ => return None,
    })
}

/// `BitCast`: the element type `to`; the shape stays when both types are as wide.
pub fn bit_cast(node: &mut Node) -> Rule {
    let to = node.int("to", 0) as i32;
    let widths = (node.elem(0).and_then(byte_width), byte_width(to));
    if let (Some(from), Some(into)) = widths
        && from != into
    {
        let message = format!(
            "the element types must be as wide: operand 0 has {from}-byte elements, `to` {into}-byte ones"
        );
        return Err(conflict(0, message));
    }
    let same_width = widths.0.is_some() && widths.0 == widths.1;
    let shape = if same_width { node.shape_of(0) } else { None };
    node.set_tensor(0, Some(to), shape);
    Ok(())
}

/// `CenterCropPad`: the shape its second operand gives, where it gives every axis.
pub fn center_crop_pad(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let rank = node.dims(0).map(<[Dim]>::len);
    let shape = node
        .values(1)
        .filter(|v| node.attr("axes").is_none() && Some(v.len()) == rank);
    node.set_tensor(0, elem, shape);
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

/// `TfIdfVectorizer`: float, the input's batch (if 2-D) and one entry per n-gram index. Where
/// the input's shape is known, onnx requires rank 1 or 2 and n-gram indexes, none negative.
pub fn tf_idf(node: &mut Node) -> Rule {
    let Some(dims) = node.ranked(0, "X", &[1, 2])? else {
        node.set_tensor(0, Some(dtype::FLOAT), None);
        return Ok(());
    };
    let indexes = node.int_list("ngram_indexes").unwrap_or_default();
    let Some(&last) = indexes
        .iter()
        .max()
        .filter(|_| indexes.iter().all(|&i| i >= 0))
    else {
        return Err(conflict(
            0,
            format!(
                "the attribute ngram_indexes must be non-empty and not negative, found {indexes:?}"
            ),
        ));
    };
    let width = last.checked_add(1).map_or(Dim::Unknown, Dim::Known);
    let shape = match dims {
        [_] => vec![width],
        [n, ..] => vec![n.clone(), width],
        [] => Vec::new(),
    };
    node.set_tensor(0, Some(dtype::FLOAT), Some(shape));
    Ok(())
}

/// `Einsum`: each output letter's dim, from the operands' terms; `...` broadcasts.
pub fn einsum(node: &mut Node) -> Rule {
    // The result's element type is the first operand's.
    node.written([0])?;
    let elem = node.elem(0);
    let equation: String = node
        .string("equation")
        .map(|e| {
            String::from_utf8_lossy(e)
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect()
        })
        .unwrap_or_default();
    let (inputs, output) = match equation.split_once("->") {
        Some((i, o)) => (i.to_owned(), Some(o.to_owned())),
        None => (equation.clone(), None),
    };
    let terms: Vec<&str> = inputs.split(',').collect();
    // An empty equation is one whose string was left out, which onnx does not check.
    if equation.is_empty() {
        return Ok(());
    }
    if terms.len() != node.inputs.len() {
        return Err(super::elementwise::general(format!(
            "the equation has {} operand terms, the node {} operands",
            terms.len(),
            node.inputs.len()
        )));
    }
    let mut letters: Vec<(char, Dim)> = Vec::new();
    let mut counts: Vec<(char, usize)> = Vec::new();
    let mut ellipsis: Vec<Vec<Dim>> = Vec::new();
    for (i, term) in terms.iter().enumerate() {
        let Some(dims) = node.shape_of(i) else {
            return Ok(());
        };
        let named = term.replace("...", "").chars().count();
        let (before, after) = match term.split_once("...") {
            Some((b, a)) => (b, a),
            None => (*term, ""),
        };
        if named > dims.len() || (!term.contains("...") && named != dims.len()) {
            return Err(super::elementwise::general(format!(
                "the term `{term}` has {named} letters for an operand of rank {}",
                dims.len()
            )));
        }
        let broadcast = dims.len() - named;
        let lead = before.chars().count();
        ellipsis.push(dims[lead..lead + broadcast].to_vec());
        let named_dims = dims[..lead].iter().chain(&dims[lead + broadcast..]);
        for (c, d) in before.chars().chain(after.chars()).zip(named_dims) {
            match letters.iter_mut().find(|(l, _)| *l == c) {
                Some((_, known)) if known.known().is_none() || *known == Dim::Known(1) => {
                    *known = d.clone();
                }
                Some(_) => {}
                None => letters.push((c, d.clone())),
            }
            match counts.iter_mut().find(|(l, _)| *l == c) {
                Some((_, n)) => *n += 1,
                None => counts.push((c, 1)),
            }
        }
    }
    let shapes: Vec<&[Dim]> = ellipsis.iter().map(Vec::as_slice).collect();
    let Ok(broadcast) = super::elementwise::broadcast(&shapes) else {
        return Ok(());
    };
    let output = output.unwrap_or_else(|| {
        let mut once: Vec<char> = counts
            .iter()
            .filter(|(_, n)| *n == 1)
            .map(|(c, _)| *c)
            .collect();
        once.sort_unstable();
        let letters: String = once.into_iter().collect();
        if ellipsis.iter().any(|e| !e.is_empty()) {
            format!("...{letters}")
        } else {
            letters
        }
    });
    let mut out = Vec::new();
    let (before, after) = match output.split_once("...") {
        Some((b, a)) => (b.to_owned(), Some(a.to_owned())),
        None => (output.clone(), None),
    };
    let dim_of = |c: char| {
        letters
            .iter()
            .find(|(l, _)| *l == c)
            .map(|(_, d)| d.clone())
    };
    for c in before.chars() {
        out.push(dim_of(c).unwrap_or(Dim::Unknown));
    }
    if let Some(after) = after {
        out.extend(broadcast);
        for c in after.chars() {
            out.push(dim_of(c).unwrap_or(Dim::Unknown));
        }
    }
    node.set_tensor(0, elem, Some(out));
    Ok(())
}

/// `STFT`: the signal's element type (the frame count depends on values this rule does not
/// follow).
pub fn stft(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    node.set_tensor(0, elem, None);
    Ok(())
}

/// `MelWeightMatrix`: the element type `output_datatype` (float without it).
pub fn mel_weight_matrix(node: &mut Node) -> Rule {
    let elem = node.int("output_datatype", i64::from(dtype::FLOAT)) as i32;
    node.set_tensor(0, Some(elem), None);
    Ok(())
}

/// `ArrayFeatureExtractor` (ai.onnx.ml): the input's dims with the last replaced by the
/// number of indices.
pub fn array_feature_extractor(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let count = node
        .dims(1)
        .and_then(Dim::product)
        .map_or(Dim::Unknown, Dim::Known);
    let shape = node.dims(0).filter(|d| d.len() >= 2).map(|d| {
        let mut out = d[..d.len() - 1].to_vec();
        out.push(count.clone());
        out
    });
    node.set_tensor(0, elem, shape);
    Ok(())
}

/// `TreeEnsemble` (ai.onnx.ml): `[N, n_targets]` of the input's element type. The input is
/// `[N, features]`; every `nodes_*` attribute has one value per tree node (as many as
/// `nodes_splits`), and `leaf_targetids` one per leaf weight.
pub fn tree_ensemble(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    node.ranked(0, "X", &[2])?;
    if let Some(splits) = node.attr("nodes_splits")
        && let Some(nodes) = attr_len(splits)?
    {
        let per_node = [
            "nodes_featureids",
            "nodes_hitrates",
            "nodes_modes",
            "nodes_truenodeids",
            "nodes_falsenodeids",
            "nodes_trueleafs",
            "nodes_falseleafs",
            "nodes_missing_value_tracks_true",
        ];
        for name in per_node {
            if let Some(attr) = node.attr(name)
                && let Some(found) = attr_len(attr)?
                && found != nodes
            {
                let message = format!(
                    "the attribute {name} must have {nodes} values (one per tree node, as nodes_splits), found {found}"
                );
                return Err(conflict(0, message));
            }
        }
    }
    if let (Some(targets), Some(weights)) = (node.attr("leaf_targetids"), node.attr("leaf_weights"))
        && let (Some(targets), Some(weights)) = (attr_len(targets)?, attr_len(weights)?)
        && targets != weights
    {
        let message = format!(
            "the attribute leaf_targetids must have {weights} values (one per leaf weight), found {targets}"
        );
        return Err(conflict(0, message));
    }
    let n = node.dim(0, 0);
    // A negative n_targets is a negative dim, which the engine reports.
    let targets = node
        .attr("n_targets")
        .and_then(|a| a.i)
        .map_or(Dim::Unknown, Dim::Known);
    node.set_tensor(0, elem, Some(vec![n, targets]));
    Ok(())
}

/// `SequenceMap`: the body runs on one element of each sequence operand (other operands as
/// they are); each result is a sequence of what the body gives.
pub fn sequence_map(node: &mut Node) -> Rule {
    // Every operand's type is a body input's.
    node.written(0..node.inputs.len())?;
    let Some(body) = node.graph("body") else {
        return Ok(());
    };
    // The body takes one element (or operand) of each operand, and gives one result for each
    // of the node's.
    if body.input.len() != node.inputs.len() {
        let count = body.input.len();
        return Err(general(format!(
            "the body takes {count} input{}, but the node gives it {}",
            if count == 1 { "" } else { "s" },
            node.inputs.len()
        )));
    }
    let inputs: Vec<Option<Ty>> = (0..node.inputs.len())
        .map(|i| match node.input(i)? {
            Ty::Sequence(inner) => Some((**inner).clone()),
            other => Some(other.clone()),
        })
        .collect();
    let outputs = node.subgraph(body, &inputs);
    body_results("the body", outputs.len(), node.outputs.len())?;
    for (i, ty) in outputs.into_iter().enumerate() {
        if let Some(ty) = ty {
            node.set(i, Ty::Sequence(Box::new(ty)));
        }
    }
    Ok(())
}

/// The labels of an `ai.onnx.ml` classifier: int64 with `classlabels_ints` (or `_int64s`),
/// else strings; their count, where the int labels give it.
fn class_labels(node: &Node) -> (i32, Dim) {
    for name in ["classlabels_ints", "classlabels_int64s"] {
        if let Some(labels) = node.int_list(name).filter(|l| !l.is_empty()) {
            return (dtype::INT64, Dim::Known(labels.len() as i64));
        }
    }
    (dtype::STRING, Dim::Unknown)
}

/// `LinearClassifier` (ai.onnx.ml): a label per row, and a float score per row and class.
pub fn linear_classifier(node: &mut Node) -> Rule {
    let (label, classes) = class_labels(node);
    let rows = match node.dims(0) {
        Some([n, _]) => Some(n.clone()),
        Some([_]) => Some(Dim::Known(1)),
        _ => None,
    };
    node.set_tensor(0, Some(label), rows.clone().map(|n| vec![n]));
    node.set_tensor(1, Some(dtype::FLOAT), rows.map(|n| vec![n, classes]));
    Ok(())
}

/// `SVMClassifier` (ai.onnx.ml): the labels' element type and float scores; onnx gives no
/// shapes.
pub fn svm_classifier(node: &mut Node) -> Rule {
    let (label, _) = class_labels(node);
    node.set_tensor(0, Some(label), None);
    node.set_tensor(1, Some(dtype::FLOAT), None);
    Ok(())
}

/// `CategoryMapper` (ai.onnx.ml): int64 to string or string to int64, the shape kept.
pub fn category_mapper(node: &mut Node) -> Rule {
    let elem = match node.elem(0) {
        Some(dtype::STRING) => dtype::INT64,
        Some(_) => dtype::STRING,
        None => return Ok(()),
    };
    let shape = node.shape_of(0);
    node.set_tensor(0, Some(elem), shape);
    Ok(())
}

/// `OneHotEncoder` (ai.onnx.ml): float, the input's dims and one more, the category count.
pub fn one_hot_encoder(node: &mut Node) -> Rule {
    let count = node
        .attr("cats_int64s")
        .map(|a| a.ints.len())
        .filter(|&n| n > 0)
        .or_else(|| node.attr("cats_strings").map(|a| a.strings.len()))
        .map_or(Dim::Unknown, |n| Dim::Known(n as i64));
    let shape = node.shape_of(0).map(|mut d| {
        d.push(count);
        d
    });
    node.set_tensor(0, Some(dtype::FLOAT), shape);
    Ok(())
}

/// `ZipMap` (ai.onnx.ml): a sequence of maps from the labels to float scalars.
pub fn zip_map(node: &mut Node) -> Rule {
    let key = if node.attr("classlabels_int64s").is_some() {
        dtype::INT64
    } else {
        dtype::STRING
    };
    let value = Box::new(Ty::tensor(dtype::FLOAT, Some(Vec::new())));
    node.set(0, Ty::Sequence(Box::new(Ty::Map { key, value })));
    Ok(())
}

/// `MaxRoiPool`: `[rois, C, pooled height, pooled width]`.
pub fn max_roi_pool(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let rois = node.dim(1, 0);
    let channels = node.dim(0, 1);
    let mut out = vec![rois, channels];
    match node.int_list("pooled_shape").filter(|p| p.len() == 2) {
        Some(p) => out.extend(p.into_iter().map(Dim::Known)),
        None => out.extend([Dim::Unknown, Dim::Unknown]),
    }
    node.set_tensor(0, elem, Some(out));
    Ok(())
}

/// `Multinomial`: `[batch, sample_size]` of `dtype` (int32 without it).
pub fn multinomial(node: &mut Node) -> Rule {
    let elem = node.int("dtype", i64::from(dtype::INT32)) as i32;
    let batch = node.dim(0, 0);
    let samples = Dim::Known(node.int("sample_size", 1));
    node.set_tensor(0, Some(elem), Some(vec![batch, samples]));
    Ok(())
}

/// `DictVectorizer` (ai.onnx.ml): the map's value element type; onnx gives no shape.
pub fn dict_vectorizer(node: &mut Node) -> Rule {
    if let Some(Ty::Map { value, .. }) = node.input(0) {
        let elem = value.elem();
        node.set_tensor(0, elem, None);
    }
    Ok(())
}

/// `CastMap` (ai.onnx.ml): the element type `cast_to` names; onnx gives no shape.
pub fn cast_map(node: &mut Node) -> Rule {
    let elem = match node.string("cast_to") {
        Some(b"TO_STRING") => dtype::STRING,
        Some(b"TO_INT64") => dtype::INT64,
        _ => dtype::FLOAT,
    };
    node.set_tensor(0, Some(elem), None);
    Ok(())
}
