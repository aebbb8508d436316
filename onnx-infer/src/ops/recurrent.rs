//! Recurrent networks: `RNN`, `GRU`, `LSTM`.

use crate::node::{Node, Rule};
use crate::ty::Dim;

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
