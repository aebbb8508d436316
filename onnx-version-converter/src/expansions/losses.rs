//! NegativeLogLikelihoodLoss (12, 13, 22) and SoftmaxCrossEntropyLoss (12, 13).
//!
//! NegativeLogLikelihoodLoss picks `-input[n, target[n, d…], d…]` (GatherElements along the
//! class axis, so N-D inputs need no reshape), weighs it by `weight[target]`, and reduces. An
//! ignored target counts as class 0 for the gathers and its loss and weight are zero; `mean`
//! then divides by the sum of the weights (1 each without `weight`), as the spec does.
//! SoftmaxCrossEntropyLoss is NegativeLogLikelihoodLoss of LogSoftmax along the class axis.

use onnx_runtime_types::{FunctionProto, NodeProto};
use onnx_text::{onnx_function, onnx_nodes};

use crate::context::Context;
use crate::error::Reason;

pub(super) fn negative_log_likelihood_loss(
    node: &NodeProto,
    context: &Context,
    target: i64,
) -> Result<FunctionProto, Reason> {
    let weighted = super::has_input(node, 2);
    let ignore_index = crate::context::attribute(node, "ignore_index").and_then(|a| a.i);
    // GatherElements is from opset 11; before it, a one-hot mask along the class axis picks
    // (OneHot-9 at opset 10, where its indices, in range here, need not be non-negative), and
    // there is no CastLike: the input's element type is needed.
    let (opset, like_input) = if target >= 11 {
        (18, None)
    } else {
        let elem = node.input.first().and_then(|x| context.elem(x));
        let elem = elem.ok_or_else(|| Reason::Unknown {
            what: format!("the element type of `{}`", node.input[0]),
            needed_by: format!("NegativeLogLikelihoodLoss before opset {}", 11),
        })?;
        (10, Some(elem))
    };
    // `name`: `value` in the input's type.
    let typed = |name: &str, value: f32| -> Vec<NodeProto> {
        let float = format!("{name}_f");
        match like_input {
            None => onnx_nodes! {
                #float = Constant <value = float {#value}> ()
                #name = CastLike (#float, input)
            },
            Some(elem) => onnx_nodes! {
                #float = Constant <value = float {#value}> ()
                #name = Cast <to = #elem> (#float)
            },
        }
    };
    // `picked_nd` (N, d…): the input at each element's class `classes`.
    let pick = |classes: &str| -> Vec<NodeProto> {
        match like_input {
            None => onnx_nodes! {
                class_axis = Constant <value = int64[1] {1}> ()
                classes_1 = Unsqueeze (#classes, class_axis)
                picked = GatherElements <axis = 1> (input, classes_1)
                picked_nd = Squeeze (picked, class_axis)
            },
            Some(_) => [
                typed("zero_pick", 0.0),
                onnx_nodes! {
                    input_shape = Shape (input)
                    class_index = Constant <value = int64[1] {1}> ()
                    depth = Gather (input_shape, class_index)
                    off_on = Constant <value = int64[2] {0, 1}> ()
                    hot = OneHot <axis = 1> (#classes, depth, off_on)
                    is_class = Cast <to = 9> (hot)
                    chosen = Where (is_class, input, zero_pick)
                    picked_nd = ReduceSum <axes = [1], keepdims = 0> (chosen)
                },
            ]
            .concat(),
        }
    };
    // The per-element loss `L` (N, d…), and the per-element weight `W` where there is one.
    let (elements, has_weight): (Vec<NodeProto>, bool) = match (ignore_index, weighted) {
        (None, false) => (
            [pick("target"), onnx_nodes!(L = Neg(picked_nd))].concat(),
            false,
        ),
        (None, true) => (
            [
                pick("target"),
                onnx_nodes! {
                    unweighted = Neg (picked_nd)
                    W = Gather (weight, target)
                    L = Mul (unweighted, W)
                },
            ]
            .concat(),
            true,
        ),
        (Some(ignored), weighted) => {
            let masked = onnx_nodes! {
                ignored = Constant <value = int64 {#ignored}> ()
                target64 = Cast <to = 7> (target)
                mask = Equal (target64, ignored)
                zero64 = Constant <value = int64 {0}> ()
                safe_target = Where (mask, zero64, target64)
            };
            let weight = if weighted {
                onnx_nodes!(W_all = Gather(weight, safe_target))
            } else {
                typed("W_all", 1.0)
            };
            let weigh = onnx_nodes! {
                unmasked = Neg (picked_nd)
                unweighted = Where (mask, zero, unmasked)
                W = Where (mask, zero, W_all)
                L = Mul (unweighted, W)
            };
            let zero = typed("zero", 0.0);
            (
                [masked, pick("safe_target"), zero, weight, weigh].concat(),
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
        <domain: "onnx_text.expansion", opset_import: ["" : #opset]>
        NegativeLogLikelihoodLoss <reduction, ignore_index> (input, target, weight) => (loss) {
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

#[cfg(test)]
mod tests {
    use onnx_eval::Value;
    use onnx_text::onnx;

    fn scores() -> Value {
        let data: Vec<f32> = (0..24).map(|i| ((i * 5 % 7) as f32 - 3.0) / 2.0).collect();
        Value::tensor(&data, &[2, 3, 4]).unwrap()
    }

    #[test]
    fn nll_nd_weighted_ignored_mean() {
        let model = onnx! {
            <ir_version: 8, opset_import: ["" : 13]>
            g (float[2, 3, 4] x, int64[2, 4] t, float[3] w) => (float y) {
                y = NegativeLogLikelihoodLoss <reduction = "mean", ignore_index = -1> (x, t, w)
            }
        };
        let inputs = [
            scores(),
            Value::tensor(&[0_i64, 2, -1, 1, 1, -1, 0, 2], &[2, 4]).unwrap(),
            Value::tensor(&[0.5_f32, 2.0, 1.5], &[3]).unwrap(),
        ];
        for target in [9, 10, 11, 12, 15] {
            super::super::assert_converts_same(&model, target, &inputs);
        }
    }

    #[test]
    fn sce_log_prob_without_weights() {
        let model = onnx! {
            <ir_version: 8, opset_import: ["" : 13]>
            g (float[2, 3, 4] x, int32[2, 4] t) => (float[2, 4] y, float[2, 3, 4] log_prob) {
                y, log_prob = SoftmaxCrossEntropyLoss <reduction = "none", ignore_index = 2> (x, t)
            }
        };
        let inputs = [
            scores(),
            Value::tensor(&[0_i32, 2, 2, 1, 1, 0, 0, 2], &[2, 4]).unwrap(),
        ];
        for target in [9, 10, 11, 12, 15] {
            super::super::assert_converts_same(&model, target, &inputs);
        }
    }

    #[test]
    fn an_unknown_reduction_is_refused() {
        let node =
            onnx_text::onnx_node!(y = NegativeLogLikelihoodLoss < reduction = "max" > (x, t));
        assert!(matches!(
            super::negative_log_likelihood_loss(&node, &crate::context::Context::default(), 11),
            Err(crate::error::Reason::AttributeValue { .. })
        ));
    }
}
