//! Adapters: the rewrites of a node across a version step whose signature or meaning changed,
//! one file per operator family. An adapter moves what changed (an attribute that became an
//! input, a coerced axis); the driver then checks the rest of the node as any step
//! (`compat`), and converts the helper nodes it adds from the step's version on.
//!
//! A rewrite of one node into several is a rule written in ONNX text: a function of the private
//! domain [`RULE_DOMAIN`] (`onnx_function!`, checked at compile time against the schemas of the
//! opset it is written at, the step's version), whose inputs and outputs stand for the node's
//! and in which `adapted.Node` stands for the node itself. Rust values go in through holes
//! (`#axis`); [`rewrite`] names what the rule adds afresh and splits it around the node. The Rust
//! beside a rule decides when it applies, and what the context must know of the values it adds.
//!
//! Steps are keyed by (domain, operator, from, to) between neighbouring versions; `to` is 0
//! for "the target does not have the operator yet" (a replacement written at the newest opset
//! before it), and the removal's version for an operator removed on the way up.

mod axes;
mod broadcast;
mod clip;
mod dropout;
mod label_encoder;
mod modes;
mod norm;
mod older_forms;
mod pad;
mod pool;
mod reshape;
mod resize;
mod saturate;
mod scan;
mod scatter;
mod slice;
mod softmax;
mod test_mode;
mod topk;
mod trees;

use std::collections::HashMap;

use onnx_runtime_types::{FunctionProto, NodeProto};

use crate::context::{Context, constant, int64_tensor, ints_attribute, take_attribute};
use crate::driver::Adapted;
use crate::error::Reason;
use crate::steps::Step;

/// A rewrite of a node across one step: the node, the target opset (for messages).
pub(crate) type Adapter = fn(&mut Context, NodeProto, i64) -> Result<Adapted, Reason>;

/// (operators, from, to, adapter) of the default domain.
type Rule = (&'static [&'static str], i64, i64, Adapter);

/// The Reduce operators whose `axes` became an input at 18 (ReduceSum's at 13).
const REDUCE_18: &[&str] = &[
    "ReduceL1",
    "ReduceL2",
    "ReduceLogSum",
    "ReduceLogSumExp",
    "ReduceMax",
    "ReduceMean",
    "ReduceMin",
    "ReduceProd",
    "ReduceSumSquare",
];

const RULES: &[Rule] = &[
    // Attributes that became inputs, and back.
    (
        &["ReduceSum", "Squeeze", "Unsqueeze"],
        11,
        13,
        axes::axes_to_input,
    ),
    (
        &["ReduceSum", "Squeeze", "Unsqueeze"],
        13,
        11,
        axes::axes_to_attribute,
    ),
    (REDUCE_18, 13, 18, axes::axes_to_input),
    (REDUCE_18, 18, 13, axes::axes_to_attribute),
    (&["Split"], 11, 13, axes::split_to_input),
    (&["Split"], 13, 11, axes::split_to_attribute),
    (&["Clip"], 6, 11, clip::bounds_to_inputs),
    (&["Clip"], 11, 6, clip::bounds_to_attributes),
    (&["Dropout"], 10, 12, dropout::ratio_to_input),
    (&["Dropout"], 12, 10, dropout::ratio_to_attribute),
    (&["Pad"], 2, 11, pad::pads_to_inputs),
    (&["Pad"], 11, 2, pad::pads_to_attributes),
    (&["Reshape"], 1, 5, reshape::shape_to_input),
    (&["Reshape"], 5, 1, reshape::shape_to_attribute),
    (&["DFT"], 17, 20, reshape::dft_axis_to_input),
    (&["DFT"], 20, 17, reshape::dft_axis_to_attribute),
    (&["Slice"], 1, 10, slice::bounds_to_inputs),
    (&["Slice"], 10, 1, slice::bounds_to_attributes),
    (&["TopK"], 1, 10, topk::k_to_input),
    (&["TopK"], 10, 1, topk::k_to_attribute),
    // The 2-D coercion before 13, and the negative axes before 11.
    (softmax::FAMILY, 11, 13, softmax::coerced_to_axis),
    (softmax::FAMILY, 13, 11, softmax::axis_to_coerced),
    (softmax::FAMILY, 11, 1, softmax::axis_nonnegative),
    // Resize's coordinate mode, Upsample's renaming.
    (&["Resize"], 10, 11, resize::asymmetric_up),
    (&["Resize"], 11, 10, resize::asymmetric_down),
    (&["Resize"], 11, 13, resize::scales_or_sizes),
    (&["Resize"], 13, 11, resize::required_roi_and_scales),
    (&["Upsample"], 7, 9, resize::upsample_scales_to_input),
    (&["Upsample"], 9, 7, resize::upsample_scales_to_attribute),
    (&["Upsample"], 9, 10, resize::upsample_to_resize),
    (&["Resize"], 10, 0, resize::resize_to_upsample),
    // Attribute values renamed, or meaning what the version says.
    (&["GridSample"], 16, 20, modes::grid_sample_up),
    (&["GridSample"], 20, 16, modes::grid_sample_down_4d),
    (&["RoiAlign"], 10, 16, modes::roi_align_up),
    (&["RoiAlign"], 16, 10, modes::roi_align_down),
    (&["Split"], 13, 18, modes::split_count_up),
    (&["Split"], 18, 13, modes::split_count_down),
    (&["Mod"], 28, 13, modes::fmod_down),
    // Said another way before.
    (&["Shape"], 15, 13, older_forms::shape_bounds_to_slice),
    (&["Constant"], 12, 11, older_forms::constant_value_tensor),
    (&["CastLike"], 15, 0, older_forms::cast_like_to_cast),
    (&["Concat"], 1, 4, older_forms::concat_axis_required),
    (&["Cast"], 1, 6, older_forms::cast_to_number),
    (&["Cast"], 6, 1, older_forms::cast_to_name),
    (&["Pad"], 1, 2, older_forms::paddings_to_pads),
    (&["Pad"], 2, 1, older_forms::pads_to_paddings),
    // Broadcasting, which older versions lack.
    (broadcast::BINARY_7, 6, 7, broadcast::legacy_to_numpy),
    (broadcast::BINARY_7, 7, 6, broadcast::numpy_to_legacy),
    (broadcast::LOGICAL_7, 1, 7, broadcast::legacy_to_numpy),
    (broadcast::LOGICAL_7, 7, 1, broadcast::numpy_to_legacy),
    (broadcast::VARIADIC_8, 8, 6, broadcast::one_shape),
    (&["Gemm"], 6, 7, broadcast::gemm_broadcast_off),
    (&["PRelu"], 6, 7, broadcast::slope_per_channel_to_numpy),
    (&["PRelu"], 7, 6, broadcast::numpy_slope_to_per_channel),
    // Inference said by `is_test` before 7, by the outputs from 7.
    (test_mode::FAMILY, 6, 7, test_mode::test_mode_off),
    (test_mode::FAMILY, 7, 6, test_mode::test_mode_on),
    (&["Gemm"], 7, 6, broadcast::gemm_broadcast_on),
    // GroupNormalization's scale and bias per channel (from the deprecated 18).
    (
        &["GroupNormalization"],
        18,
        21,
        norm::group_scale_per_channel,
    ),
    // Scan's batch axis (8).
    (&["Scan"], 8, 9, scan::batch_off),
    (&["Scan"], 9, 8, scan::batch_on),
    // Renamed.
    (&["Scatter"], 9, 11, scatter::to_scatter_elements),
    (&["ScatterElements"], 11, 0, scatter::to_scatter),
    // Attributes without effect on the types an older version has.
    (&["Cast"], 19, 13, saturate::drop_saturate),
    (&["CastLike"], 19, 15, saturate::drop_saturate),
    (&["AveragePool"], 19, 11, pool::drop_unit_dilations),
    (&["MaxPool"], 22, 12, pool::floor_mode_only),
    (&["AveragePool"], 22, 19, pool::floor_mode_only),
];

/// The rules of ai.onnx.ml.
const ML_RULES: &[Rule] = &[
    // The legacy ensembles to TreeEnsemble (removed at 5), and back as a regressor.
    (&["TreeEnsembleRegressor"], 3, 5, trees::regressor_up),
    (&["TreeEnsembleClassifier"], 3, 5, trees::classifier_up),
    (&["TreeEnsemble"], 5, 0, trees::tree_ensemble_down),
    // Their double-precision `*_as_tensor` attributes (3) as floats (1).
    (trees::LEGACY, 3, 1, trees::as_tensor_to_floats),
    (&["LabelEncoder"], 1, 2, label_encoder::classes_to_keys),
    (&["LabelEncoder"], 2, 1, label_encoder::keys_to_classes),
    (&["LabelEncoder"], 4, 2, label_encoder::tensors_to_lists),
];

/// The adapter of `step`, if it has one.
pub(crate) fn find(step: &Step<'_>) -> Option<Adapter> {
    let rules = match step.domain {
        "ai.onnx" => RULES,
        "ai.onnx.ml" => ML_RULES,
        _ => return None,
    };
    rules
        .iter()
        .find(|(operators, from, to, _)| {
            *from == step.from && *to == step.to && operators.contains(&step.operator)
        })
        .map(|rule| rule.3)
}

/// The steps the rules adapt: (domain, operators, from, to).
#[cfg(test)]
pub(crate) fn rule_steps() -> impl Iterator<Item = (&'static str, &'static [&'static str], i64, i64)>
{
    let of = |domain: &'static str, rules: &'static [Rule]| {
        rules
            .iter()
            .map(move |&(operators, from, to, _)| (domain, operators, from, to))
    };
    of("ai.onnx", RULES).chain(of("ai.onnx.ml", ML_RULES))
}

/// The private domain of the rules written as ONNX text, in which `adapted.Node` is the node
/// being adapted. Nothing outside the converter sees it.
pub(crate) const RULE_DOMAIN: &str = "adapted";

/// The nodes of `rule` (a function written as ONNX text) with its inputs and outputs named
/// `inputs` and `outputs`, in order (`""`, absent, past their end), and every other value it
/// computes named afresh.
pub(crate) fn instantiate(
    context: &mut Context,
    rule: &FunctionProto,
    inputs: &[String],
    outputs: &[String],
) -> Vec<NodeProto> {
    fn bind<'a>(
        formals: &'a [String],
        actuals: &'a [String],
    ) -> impl Iterator<Item = (&'a str, &'a str)> {
        let actual = |index| actuals.get(index).map_or("", String::as_str);
        (formals.iter().enumerate()).map(move |(index, formal)| (formal.as_str(), actual(index)))
    }
    let given: HashMap<&str, &str> = bind(&rule.input, inputs)
        .chain(bind(&rule.output, outputs))
        .collect();
    let mut nodes = rule.node.clone();
    crate::expand::rename(context, &mut nodes, &given);
    nodes
}

/// `node` rewritten by `rule`, whose inputs and outputs stand for the node's: the nodes before
/// its `adapted.Node`, the node reading and writing what that call does, and the nodes after.
/// Every rule calls `adapted.Node` once (a rule that did not would have its nodes all put
/// before the node).
pub(crate) fn rewrite(context: &mut Context, mut node: NodeProto, rule: &FunctionProto) -> Adapted {
    let mut before = instantiate(context, rule, &node.input, &node.output);
    let is_node = |n: &NodeProto| {
        n.domain.as_deref() == Some(RULE_DOMAIN) && n.op_type.as_deref() == Some("Node")
    };
    let Some(at) = before.iter().position(is_node) else {
        return Adapted::with_before(before, node);
    };
    let after = before.split_off(at + 1);
    if let Some(call) = before.pop() {
        node.input = call.input;
        node.output = call.output;
    }
    Adapted {
        before,
        node,
        after,
    }
}

/// Moves the integer-list attribute `name` to input `index`, as a `Constant` before the node;
/// an absent attribute leaves the input out (where the two versions mean the same by it).
pub(crate) fn ints_to_input(
    context: &mut Context,
    mut node: NodeProto,
    name: &str,
    index: usize,
) -> Adapted {
    let Some(attribute) = take_attribute(&mut node, name) else {
        return Adapted::alone(node);
    };
    let value = context.fresh(name);
    let ints = attribute.ints;
    let helper = constant(value.clone(), int64_tensor(&ints, &[ints.len()]));
    set_input(&mut node, index, value);
    Adapted::with_before(vec![helper], node)
}

/// Moves input `index` (named `name`) to the integer-list attribute `name`: it must be a
/// constant. An absent input leaves the attribute out.
pub(crate) fn input_to_ints(
    context: &Context,
    mut node: NodeProto,
    name: &str,
    index: usize,
    target: i64,
) -> Result<NodeProto, Reason> {
    let Some(input) = node.input.get(index).filter(|i| !i.is_empty()).cloned() else {
        return Ok(node);
    };
    let values = context
        .constant_ints(&input)
        .ok_or_else(|| Reason::RuntimeInput {
            input: name.to_owned(),
            opset: target,
        })?;
    node.input[index] = String::new();
    trim_inputs(&mut node);
    node.attribute.push(ints_attribute(name, values));
    Ok(node)
}

/// A refusal of what has no exact form at the target.
pub(crate) fn inexact(what: impl Into<String>, opset: i64) -> Reason {
    Reason::Inexact {
        what: what.into(),
        opset,
    }
}

/// The node's integer-list attribute `name`, or empty.
pub(crate) fn ints(node: &NodeProto, name: &str) -> Vec<i64> {
    crate::context::attribute(node, name)
        .map(|a| a.ints.clone())
        .unwrap_or_default()
}

/// The node's string attribute `name`. Bytes that are not UTF-8 stay a value no rule knows
/// (and refuses), rather than read as an absent attribute's default.
pub(crate) fn string(node: &NodeProto, name: &str) -> Option<String> {
    crate::context::attribute(node, name)
        .and_then(|a| a.s.as_deref())
        .map(|s| String::from_utf8_lossy(s).into_owned())
}

/// Sets input `index`, padding with `""` for the optional inputs before it.
pub(crate) fn set_input(node: &mut NodeProto, index: usize, value: String) {
    if node.input.len() <= index {
        node.input.resize(index + 1, String::new());
    }
    node.input[index] = value;
}

/// Leaves off trailing `""` inputs.
pub(crate) fn trim_inputs(node: &mut NodeProto) {
    while node.input.last().is_some_and(String::is_empty) {
        node.input.pop();
    }
}

#[cfg(test)]
mod tests {
    use onnx_text::{onnx_function, onnx_node};

    use super::*;

    #[test]
    fn a_rule_is_split_around_the_node_and_names_its_values_afresh() {
        let rule = onnx_function! {
            <domain: "adapted", opset_import: ["" : 13, "adapted" : 1]>
            Around (X) => (Y) {
                t = Neg (X)
                u = adapted.Node (t)
                Y = Abs (u)
            }
        };
        let mut context = Context::default();
        let first = rewrite(
            &mut context,
            onnx_node!(y = Softmax < axis = 0 > (x)),
            &rule,
        );
        let [before] = &first.before[..] else {
            panic!("one node before: {:?}", first.before)
        };
        let [after] = &first.after[..] else {
            panic!("one node after: {:?}", first.after)
        };
        // The node keeps its operator and attributes, and reads and writes the rule's values.
        assert_eq!(first.node.op_type(), "Softmax");
        assert_eq!(first.node.attribute[0].i, Some(0));
        assert_eq!(
            (before.op_type(), &before.input[..]),
            ("Neg", &["x".to_owned()][..])
        );
        assert_eq!(first.node.input, before.output);
        assert_eq!(after.input, first.node.output);
        assert_eq!(after.output, ["y"]);
        // Each use of a rule names its values anew.
        let second = rewrite(&mut context, onnx_node!(z = Softmax(w)), &rule);
        assert_ne!(second.node.input, first.node.input);
        assert_ne!(second.node.output, first.node.output);
        assert_eq!(second.before[0].input, ["w"]);
        assert_eq!(second.after[0].output, ["z"]);
    }

    #[test]
    fn a_string_attribute_that_is_not_utf8_is_no_default() {
        let mut node = onnx_node!(y = Resize < mode = "linear" > (x, scales));
        node.attribute[0].s = Some(vec![0xff]);
        assert_eq!(string(&node, "mode").as_deref(), Some("\u{fffd}"));
        assert_eq!(string(&node, "nearest_mode"), None);
    }
}
