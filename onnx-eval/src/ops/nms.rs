//! NonMaxSuppression: per batch and class, boxes taken by descending score (the lower index
//! first among equal scores), each kept unless it overlaps a kept one by more than the IoU
//! threshold, up to the per-class limit.

use super::floats::to_f64;
use super::{Ctx, Registry, one, tensor, tensor_opt};
use crate::error::KernelResult;
use crate::tensor::{Data, Tensor};
use crate::value::Val;
use ndarray::{ArrayD, IxDyn};

pub(super) fn register(r: &mut Registry) {
    for since in [10, 11] {
        r.add("", "NonMaxSuppression", since, non_max_suppression);
    }
}

/// A box as (y_min, x_min, y_max, x_max) from either of the two encodings.
fn corners(b: &[f64], center_point: bool) -> [f64; 4] {
    if center_point {
        let (xc, yc, w, h) = (b[0], b[1], b[2], b[3]);
        [yc - h / 2.0, xc - w / 2.0, yc + h / 2.0, xc + w / 2.0]
    } else {
        // Any two opposite corners.
        [
            b[0].min(b[2]),
            b[1].min(b[3]),
            b[0].max(b[2]),
            b[1].max(b[3]),
        ]
    }
}

/// Intersection over union; 0 when either box or the union has no area.
fn iou(a: [f64; 4], b: [f64; 4]) -> f64 {
    let height = (a[2].min(b[2]) - a[0].max(b[0])).max(0.0);
    let width = (a[3].min(b[3]) - a[1].max(b[1])).max(0.0);
    let intersection = height * width;
    let area = |r: [f64; 4]| (r[2] - r[0]) * (r[3] - r[1]);
    let union = area(a) + area(b) - intersection;
    if intersection <= 0.0 || area(a) <= 0.0 || area(b) <= 0.0 || union <= 0.0 {
        return 0.0;
    }
    intersection / union
}

/// An optional scalar operand's one value.
fn optional_scalar(inputs: &[Option<&Val>], index: usize) -> KernelResult<Option<f64>> {
    match tensor_opt(inputs, index)? {
        Some(t) if t.len() == 0 => Ok(None),
        Some(t) => Ok(t.to_f64_vec()?.first().copied()),
        None => Ok(None),
    }
}

fn non_max_suppression(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let boxes = to_f64(tensor(inputs, 0)?)?;
    let scores = to_f64(tensor(inputs, 1)?)?;
    let (bs, ss) = (boxes.shape(), scores.shape());
    if bs.len() != 3 || bs[2] != 4 || ss.len() != 3 || ss[0] != bs[0] || ss[2] != bs[1] {
        return Err(format!(
            "boxes of shape {bs:?} and scores of shape {ss:?} do not fit"
        ));
    }
    let (batches, classes, count) = (ss[0], ss[1], ss[2]);
    let limit = match tensor_opt(inputs, 2)? {
        Some(t) if t.len() > 0 => t.to_i64_vec()?.first().copied().unwrap_or(0).max(0) as usize,
        _ => 0,
    };
    let iou_threshold = optional_scalar(inputs, 3)?.unwrap_or(0.0);
    let score_threshold = optional_scalar(inputs, 4)?;
    let center_point = ctx.int("center_point_box", 0) != 0;
    let boxes: Vec<f64> = boxes.iter().copied().collect();
    let scores: Vec<f64> = scores.iter().copied().collect();
    let mut selected: Vec<i64> = Vec::new();
    for batch in 0..batches {
        let batch_boxes: Vec<[f64; 4]> = (0..count)
            .map(|i| {
                let at = (batch * count + i) * 4;
                corners(&boxes[at..at + 4], center_point)
            })
            .collect();
        for class in 0..classes {
            let class_scores = &scores[(batch * classes + class) * count..][..count];
            let mut candidates: Vec<usize> = (0..count)
                .filter(|&i| score_threshold.is_none_or(|t| class_scores[i] > t))
                .collect();
            // Stable: equal scores keep the lower index first.
            super::sort_positions(&mut candidates, &|a, b| {
                class_scores[b].total_cmp(&class_scores[a])
            });
            let mut kept: Vec<usize> = Vec::new();
            for i in candidates {
                if kept.len() >= limit {
                    break;
                }
                if kept
                    .iter()
                    .all(|&k| iou(batch_boxes[i], batch_boxes[k]) <= iou_threshold)
                {
                    kept.push(i);
                    selected.extend([batch as i64, class as i64, i as i64]);
                }
            }
        }
    }
    let rows = selected.len() / 3;
    let indices = ArrayD::from_shape_vec(IxDyn(&[rows, 3]), selected).map_err(|e| e.to_string())?;
    one(Tensor::from_data(Data::I64(indices)))
}
