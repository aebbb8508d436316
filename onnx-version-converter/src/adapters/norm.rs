//! GroupNormalization: version 18 (deprecated by onnx, which rejects it in a model, but
//! exported by onnx 1.13 to 1.15) scales and shifts per group; 21 per channel, and computes in
//! `stash_type` (float by default). Up, the per-group values are repeated per channel; the
//! computation stays in X's precision. Down to 18 is no valid model: the driver expands or
//! refuses it as an operator the target lacks.

use onnx_runtime_types::NodeProto;

use onnx_text::onnx_function;

use crate::context::{Context, attribute, constant, int_attribute};
use crate::driver::Adapted;
use crate::error::Reason;

/// The most channels a constant scale or bias is repeated for in the model.
const MAX_REPEATED: i64 = 1 << 16;

/// 18 → 21: `scale` and `bias` [G] as [C], each group's value for each of its channels (a
/// Constant where they are constants, else Reshape, Expand, Reshape: `PerChannel`); `stash_type` double for
/// double X (float, 21's default, holds the other types exactly).
pub(super) fn group_scale_per_channel(
    context: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let x = node.input.first().cloned().unwrap_or_default();
    let groups = attribute(&node, "num_groups")
        .and_then(|a| a.i)
        .unwrap_or(0);
    let channels = context
        .dims
        .get(&x)
        .and_then(|d| d.get(1).copied().flatten())
        .ok_or_else(|| Reason::Unknown {
            what: format!("the channel count of `{x}`"),
            needed_by: "GroupNormalization-21's per-channel scale and bias".to_owned(),
        })?;
    if groups <= 0 || channels % groups != 0 {
        return Err(Reason::Inexact {
            what: format!("num_groups {groups} does not divide the {channels} channels"),
            opset: target,
        });
    }
    let group_size = channels / groups;
    match context.elem(&x) {
        Some(11) => node.attribute.push(int_attribute("stash_type", 11)),
        Some(_) => {}
        None => {
            return Err(Reason::Unknown {
                what: format!("the element type of `{x}`"),
                needed_by: "GroupNormalization-21's `stash_type`".to_owned(),
            });
        }
    }
    let mut before = Vec::new();
    for index in [1, 2] {
        let Some(value) = node.input.get(index).cloned() else {
            continue;
        };
        let wide = context.fresh(&value);
        let known = context.types.get(&value).copied().unwrap_or_default();
        let entry = context.types.entry(wide.clone()).or_default();
        entry.elem = known.elem;
        entry.rank = Some(1);
        match context.constants.get(&value).cloned() {
            // Repeated as a Constant while small; a larger one expands at run time.
            Some(tensor)
                if tensor.dims.len() == 1
                    && tensor.data_location != Some(1)
                    && channels <= MAX_REPEATED =>
            {
                before.push(constant(
                    wide.clone(),
                    repeated(&tensor, group_size as usize),
                ));
            }
            _ => {
                let rule = onnx_function! {
                    <domain: "adapted", opset_import: ["" : 21, "adapted" : 1]>
                    PerChannel (per_group) => (per_channel) {
                        column_shape = Constant <value = int64[2] {#groups, 1}> ()
                        column = Reshape (per_group, column_shape)
                        block_shape = Constant <value = int64[2] {#groups, #group_size}> ()
                        block = Expand (column, block_shape)
                        channels_shape = Constant <value = int64[1] {#channels}> ()
                        per_channel = Reshape (block, channels_shape)
                    }
                };
                before.extend(super::instantiate(
                    context,
                    &rule,
                    &[value],
                    std::slice::from_ref(&wide),
                ));
            }
        }
        node.input[index] = wide;
    }
    Ok(Adapted::with_before(before, node))
}

/// A 1-D tensor with each element repeated `times` in a row (any element type: the elements
/// are copied as stored, typed field or raw bytes).
fn repeated(
    tensor: &onnx_runtime_types::TensorProto,
    times: usize,
) -> onnx_runtime_types::TensorProto {
    fn each<T: Clone>(values: &[T], times: usize) -> Vec<T> {
        values
            .iter()
            .flat_map(|v| std::iter::repeat_n(v.clone(), times))
            .collect()
    }
    let mut out = tensor.clone();
    out.name = None;
    out.dims = vec![tensor.dims[0] * times as i64];
    if let Some(raw) = &tensor.raw_data {
        let count = tensor.dims[0].max(1) as usize;
        let width = raw.len() / count;
        let chunks: Vec<&[u8]> = raw.chunks(width.max(1)).collect();
        out.raw_data = Some(each(&chunks, times).concat());
    }
    out.float_data = each(&tensor.float_data, times);
    out.double_data = each(&tensor.double_data, times);
    out.int32_data = each(&tensor.int32_data, times);
    out
}
