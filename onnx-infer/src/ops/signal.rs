//! Signal processing: `DFT`, `STFT`, the window functions, `MelWeightMatrix`.

use crate::node::{Node, Rule, conflict, dtype};
use crate::ty::{Dim, show_shape};

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
