//! Scan's batch axis: Scan-8 takes `sequence_lens` first and a batch axis 0 on every input and
//! output (the body sees one batch entry), with `directions` for its scan inputs; Scan-9 has no
//! batch axis, scans along `scan_input_axes`/`scan_output_axes`, and has
//! `scan_input_directions`/`scan_output_directions`. Down, a batch of one is added around the
//! node (Unsqueeze, Squeeze); up, a batch statically of one is taken off. The body is the same.

use onnx_runtime_types::NodeProto;

use super::ints;
use crate::context::{Context, ints_attribute, node, take_attribute};
use crate::driver::Adapted;
use crate::error::Reason;

// Not a rule in ONNX text: a Scan has any number of inputs and outputs, each with its own
// Squeeze or Unsqueeze, so the rewrite is a loop over the node's operands.

/// `op` (Squeeze or Unsqueeze) of axis 0 from `input` to `output`, at the step's version (the
/// axes an attribute), with the output's type recorded.
fn batch_axis(
    context: &mut Context,
    op: &str,
    input: &str,
    output: &str,
    of: &str,
    rank: Option<usize>,
) -> NodeProto {
    let known = context.types.get(of).copied().unwrap_or_default();
    let entry = context.types.entry(output.to_owned()).or_default();
    entry.elem = known.elem;
    entry.rank = rank;
    node(
        op,
        vec![input.to_owned()],
        vec![output.to_owned()],
        vec![ints_attribute("axes", vec![0])],
    )
}

/// Renames each output of the Scan to a fresh value of the Scan's own rank (`inner_rank` of the
/// original's) and gives back the nodes `op` that make the original outputs from them.
fn batch_outputs(
    context: &mut Context,
    outputs: &mut [String],
    op: &str,
    inner_rank: fn(usize) -> usize,
) -> Vec<NodeProto> {
    let mut after = Vec::with_capacity(outputs.len());
    for output in outputs.iter_mut().filter(|o| !o.is_empty()) {
        let inner = context.fresh(output);
        let known = context
            .types
            .get(output.as_str())
            .copied()
            .unwrap_or_default();
        let entry = context.types.entry(inner.clone()).or_default();
        entry.elem = known.elem;
        entry.rank = known.rank.map(inner_rank);
        after.push(batch_axis(context, op, &inner, output, output, known.rank));
        *output = inner;
    }
    after
}

/// 8 → 9: a batch that is statically 1 taken off every input (Squeeze) and put back on every
/// output (Unsqueeze); `sequence_lens` must be left out, as Scan-9 has none.
pub(super) fn batch_off(
    context: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    if node.input.first().is_some_and(|s| !s.is_empty()) {
        return Err(Reason::Input {
            input: "sequence_lens".to_owned(),
            opset: target,
        });
    }
    let inputs: Vec<String> = node.input.iter().skip(1).cloned().collect();
    for input in &inputs {
        let batch = context
            .dims
            .get(input)
            .and_then(|d| d.first().copied().flatten());
        match batch {
            Some(1) => {}
            Some(other) => {
                return Err(Reason::Inexact {
                    what: format!(
                        "`{input}` has a batch of {other}, and Scan-9 has no batch axis (a batch of 1 only)"
                    ),
                    opset: target,
                });
            }
            None => {
                return Err(Reason::Unknown {
                    what: format!("the batch size of `{input}`"),
                    needed_by: "Scan-9, which has no batch axis (a batch of 1 only)".to_owned(),
                });
            }
        }
    }
    if let Some(directions) = take_attribute(&mut node, "directions") {
        node.attribute
            .push(ints_attribute("scan_input_directions", directions.ints));
    }
    let mut before = Vec::with_capacity(inputs.len());
    let mut unbatched = Vec::with_capacity(inputs.len());
    for input in &inputs {
        let name = context.fresh(input);
        let rank = context.rank(input).map(|r| r.saturating_sub(1));
        before.push(batch_axis(context, "Squeeze", input, &name, input, rank));
        unbatched.push(name);
    }
    node.input = unbatched;
    let after = batch_outputs(context, &mut node.output, "Unsqueeze", |r| {
        r.saturating_sub(1)
    });
    Ok(Adapted {
        before,
        node,
        after,
    })
}

/// 9 → 8: a batch of 1 added to every input (Unsqueeze) and taken off every output (Squeeze),
/// with `sequence_lens` left out; the scan axes must be the first (after the batch, Scan-8's
/// only one) and the outputs forward, as Scan-8 has no other.
pub(super) fn batch_on(
    context: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    for name in [
        "scan_input_axes",
        "scan_output_axes",
        "scan_output_directions",
    ] {
        if ints(&node, name).iter().any(|&v| v != 0) {
            return Err(Reason::Attribute {
                name: name.to_owned(),
                opset: target,
            });
        }
        take_attribute(&mut node, name);
    }
    if let Some(directions) = take_attribute(&mut node, "scan_input_directions") {
        node.attribute
            .push(ints_attribute("directions", directions.ints));
    }
    let mut before = Vec::with_capacity(node.input.len());
    let mut batched = vec![String::new()];
    for input in &node.input {
        let name = context.fresh(input);
        let rank = context.rank(input).map(|r| r + 1);
        before.push(batch_axis(context, "Unsqueeze", input, &name, input, rank));
        batched.push(name);
    }
    node.input = batched;
    let after = batch_outputs(context, &mut node.output, "Squeeze", |r| r + 1);
    Ok(Adapted {
        before,
        node,
        after,
    })
}
