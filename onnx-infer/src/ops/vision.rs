//! Images and detection: `NonMaxSuppression`, `GridSample`, `AffineGrid`, `RoiAlign`, `MaxRoiPool`,
//! `CenterCropPad`, `ImageDecoder`.

use crate::node::{Node, Rule, conflict, dtype};
use crate::ty::{Dim, show_shape};

/// `NonMaxSuppression`: int64 `[?, 3]`.
pub fn non_max_suppression(node: &mut Node) -> Rule {
    node.set_tensor(
        0,
        Some(dtype::INT64),
        Some(vec![Dim::Unknown, Dim::Known(3)]),
    );
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

/// `ImageDecoder`: the encoded bytes are a vector; the image is uint8 of rank 3.
pub fn image_decoder(node: &mut Node) -> Rule {
    node.ranked(0, "encoded_stream", &[1])?;
    node.set_tensor(0, Some(dtype::UINT8), Some(vec![Dim::Unknown; 3]));
    Ok(())
}
