//! NegativeLogLikelihoodLoss (12, 13, 22) and SoftmaxCrossEntropyLoss (12, 13).
//!
//! NegativeLogLikelihoodLoss picks `-input[n, target[n, d…], d…]` (GatherElements along the
//! class axis, so N-D inputs need no reshape), weighs it by `weight[target]`, and reduces. An
//! ignored target counts as class 0 for the gathers and its loss and weight are zero; `mean`
//! then divides by the sum of the weights (1 each without `weight`), as the spec does.
//! SoftmaxCrossEntropyLoss is NegativeLogLikelihoodLoss of LogSoftmax along the class axis.

use onnx_runtime_types::{FunctionProto, NodeProto};
use onnx_text::{onnx_function, onnx_nodes};

use crate::error::Reason;

pub(super) fn negative_log_likelihood_loss(
    node: &NodeProto,
    target: i64,
) -> Result<FunctionProto, Reason> {
    let weighted = super::has_input(node, 2);
    let ignore_index = crate::context::attribute(node, "ignore_index").and_then(|a| a.i);
    // The per-element loss `L` (N, d…), and the per-element weight `W` where there is one.
    let (elements, has_weight): (Vec<NodeProto>, bool) = match (ignore_index, weighted) {
        (None, false) => (
            onnx_nodes! {
                classes = Unsqueeze (target, class_axis)
                picked = GatherElements <axis = 1> (input, classes)
                picked_nd = Squeeze (picked, class_axis)
                L = Neg (picked_nd)
            },
            false,
        ),
        (None, true) => (
            onnx_nodes! {
                classes = Unsqueeze (target, class_axis)
                picked = GatherElements <axis = 1> (input, classes)
                picked_nd = Squeeze (picked, class_axis)
                unweighted = Neg (picked_nd)
                W = Gather (weight, target)
                L = Mul (unweighted, W)
            },
            true,
        ),
        (Some(ignored), weighted) => {
            let masked = onnx_nodes! {
                ignored = Constant <value_int = #ignored> ()
                target64 = Cast <to = 7> (target)
                mask = Equal (target64, ignored)
                zero64 = Constant <value_int = 0> ()
                safe_target = Where (mask, zero64, target64)
                classes = Unsqueeze (safe_target, class_axis)
                picked = GatherElements <axis = 1> (input, classes)
                picked_nd = Squeeze (picked, class_axis)
                unmasked = Neg (picked_nd)
                zero_f = Constant <value_float = 0.0> ()
                zero = CastLike (zero_f, input)
                unweighted = Where (mask, zero, unmasked)
            };
            let weight = if weighted {
                onnx_nodes!(W_all = Gather(weight, safe_target))
            } else {
                onnx_nodes! {
                    one_f = Constant <value_float = 1.0> ()
                    W_all = CastLike (one_f, input)
                }
            };
            let weigh = onnx_nodes! {
                W = Where (mask, zero, W_all)
                L = Mul (unweighted, W)
            };
            (
                masked.into_iter().chain(weight).chain(weigh).collect(),
                true,
            )
        }
    };
    let reduce = match (super::string_or(node, "reduction", "mean"), has_weight) {
        ("none", _) => onnx_nodes!(loss = Identity(L)),
        ("sum", _) => onnx_nodes!(loss = ReduceSum < keepdims = 0 > (L)),
        ("mean", false) => onnx_nodes!(loss = ReduceMean < keepdims = 0 > (L)),
        ("mean", true) => onnx_nodes! {
            total = ReduceSum <keepdims = 0> (L)
            total_weight = ReduceSum <keepdims = 0> (W)
            loss = Div (total, total_weight)
        },
        (other, _) => {
            return Err(Reason::AttributeValue {
                name: "reduction".to_owned(),
                value: other.to_owned(),
                opset: target,
            });
        }
    };
    Ok(onnx_function! {
        <domain: "onnx_text.expansion", opset_import: ["" : 18]>
        NegativeLogLikelihoodLoss <reduction, ignore_index> (input, target, weight) => (loss) {
            class_axis = Constant <value_ints = [1]> ()
            ..#elements
            ..#reduce
        }
    })
}

pub(super) fn softmax_cross_entropy_loss(node: &NodeProto) -> Result<FunctionProto, Reason> {
    Ok(if super::has_input(node, 2) {
        onnx_function! {
            <domain: "onnx_text.expansion", opset_import: ["" : 18]>
            SoftmaxCrossEntropyLoss <reduction, ignore_index> (scores, labels, weights) => (output, log_prob) {
                log_prob = LogSoftmax <axis = 1> (scores)
                output = NegativeLogLikelihoodLoss <reduction = @reduction, ignore_index = @ignore_index> (log_prob, labels, weights)
            }
        }
    } else {
        onnx_function! {
            <domain: "onnx_text.expansion", opset_import: ["" : 18]>
            SoftmaxCrossEntropyLoss <reduction, ignore_index> (scores, labels) => (output, log_prob) {
                log_prob = LogSoftmax <axis = 1> (scores)
                output = NegativeLogLikelihoodLoss <reduction = @reduction, ignore_index = @ignore_index> (log_prob, labels)
            }
        }
    })
}
