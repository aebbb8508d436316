//! One rule per operator, found by domain and name. A rule reads its node's operands and
//! attributes and sets its results' types; it returns a conflict for operands the operator
//! cannot take. An operator without a rule leaves its results unknown.

mod control;
mod elementwise;
mod misc;
mod nn;
mod sequence;
mod shape;

use super::node::{Node, Rule};

/// The rule of operator `op` of the standard domain `domain` (`""` for the default one).
pub(super) fn rule(domain: &str, op: &str) -> Option<fn(&mut Node) -> Rule> {
    match (domain, op) {
        ("", _) => {}
        ("ai.onnx.preview.training", "Adagrad" | "Momentum" | "Adam") => {
            return Some(misc::optimizer);
        }
        ("ai.onnx.ml", "Binarizer") => return Some(elementwise::same),
        ("ai.onnx.ml", "LabelEncoder") => return Some(misc::label_encoder),
        ("ai.onnx.preview", "FlexAttention") => return Some(nn::flex_attention),
        ("ai.onnx.ml", "ArrayFeatureExtractor") => return Some(misc::array_feature_extractor),
        ("ai.onnx.ml", "TreeEnsemble") => return Some(misc::tree_ensemble),
        ("ai.onnx.ml", "LinearClassifier") => return Some(misc::linear_classifier),
        ("ai.onnx.ml", "SVMClassifier") => return Some(misc::svm_classifier),
        ("ai.onnx.ml", "CategoryMapper") => return Some(misc::category_mapper),
        ("ai.onnx.ml", "OneHotEncoder") => return Some(misc::one_hot_encoder),
        ("ai.onnx.ml", "ZipMap") => return Some(misc::zip_map),
        ("ai.onnx.ml", "DictVectorizer") => return Some(misc::dict_vectorizer),
        ("ai.onnx.ml", "CastMap") => return Some(misc::cast_map),
        _ => return None,
    }
    use elementwise as e;
    Some(match op {
        "Abs"
        | "RotaryEmbedding"
        | "Acos"
        | "Acosh"
        | "Asin"
        | "Asinh"
        | "Atan"
        | "Atanh"
        | "Ceil"
        | "Celu"
        | "Clip"
        | "Cos"
        | "Cosh"
        | "CumProd"
        | "CumSum"
        | "Elu"
        | "Erf"
        | "Exp"
        | "Floor"
        | "Gelu"
        | "GroupNormalization"
        | "HardSigmoid"
        | "HardSwish"
        | "Identity"
        | "InstanceNormalization"
        | "LeakyRelu"
        | "Log"
        | "LpNormalization"
        | "LRN"
        | "MeanVarianceNormalization"
        | "Mish"
        | "Neg"
        | "Reciprocal"
        | "Relu"
        | "RMSNormalization"
        | "Round"
        | "Scatter"
        | "ScatterElements"
        | "ScatterND"
        | "Selu"
        | "Shrink"
        | "Sigmoid"
        | "Sign"
        | "Sin"
        | "Sinh"
        | "Softplus"
        | "Softsign"
        | "Sqrt"
        | "Swish"
        | "Tan"
        | "Tanh"
        | "ThresholdedRelu"
        | "Trilu"
        | "BitwiseNot" => e::same,
        "SwiGLU" => e::swiglu,
        "Softmax" | "LogSoftmax" | "Hardmax" => nn::softmax,
        "ReverseSequence" => shape::reverse_sequence,
        "IsNaN" | "IsInf" | "Not" => e::to_bool,
        "Cast" => e::cast,
        "CastLike" => e::cast_like,
        "Add" | "Sub" | "Mul" | "Div" | "Pow" | "Mod" | "BitShift" | "BitwiseAnd" | "BitwiseOr"
        | "BitwiseXor" | "StringConcat" => e::binary,
        "Equal" | "Less" | "Greater" | "LessOrEqual" | "GreaterOrEqual" | "And" | "Or" | "Xor" => {
            e::compare
        }
        "Max" | "Min" | "Sum" | "Mean" => e::variadic,
        "Where" => e::where_,
        "PRelu" => e::prelu,
        "Shape" => shape::shape,
        "Size" => shape::size,
        "Constant" => shape::constant,
        "Reshape" => shape::reshape,
        "Flatten" => shape::flatten,
        "Transpose" => shape::transpose,
        "Concat" => shape::concat,
        "Squeeze" => shape::squeeze,
        "Unsqueeze" => shape::unsqueeze,
        "Expand" => shape::expand,
        "Tile" => shape::tile,
        "Gather" => shape::gather,
        "GatherElements" => shape::gather_elements,
        "GatherND" => shape::gather_nd,
        "Slice" => shape::slice,
        "Split" => shape::split,
        "Pad" => shape::pad,
        "ConstantOfShape" => shape::constant_of_shape,
        "Range" => shape::range,
        "EyeLike" => misc::like,
        "NonZero" => shape::non_zero,
        "Compress" => shape::compress,
        "DepthToSpace" | "SpaceToDepth" => shape::depth_space,
        "OneHot" => shape::one_hot,
        "Resize" | "Upsample" => shape::resize,
        "MatMul" => nn::matmul,
        "MatMulInteger" => nn::matmul_integer,
        "QLinearMatMul" => nn::qlinear_matmul,
        "Gemm" => nn::gemm,
        "Conv" => nn::conv,
        "ConvInteger" => nn::conv_integer,
        "QLinearConv" => nn::qlinear_conv,
        "ConvTranspose" => nn::conv_transpose,
        "MaxPool" | "AveragePool" | "LpPool" => nn::pool,
        "GlobalAveragePool" | "GlobalMaxPool" | "GlobalLpPool" => nn::global_pool,
        "BatchNormalization" => nn::batch_norm,
        "LayerNormalization" => nn::layer_norm,
        "Dropout" => nn::dropout,
        "ReduceSum" | "ReduceMean" | "ReduceMax" | "ReduceMin" | "ReduceProd" | "ReduceL1"
        | "ReduceL2" | "ReduceLogSum" | "ReduceLogSumExp" | "ReduceSumSquare" => nn::reduce,
        "ArgMax" | "ArgMin" => nn::arg,
        "TopK" => nn::top_k,
        "QuantizeLinear" => nn::quantize,
        "DequantizeLinear" => nn::dequantize,
        "DynamicQuantizeLinear" => nn::dynamic_quantize,
        "Attention" => nn::attention,
        "TensorScatter" => nn::tensor_scatter,
        "DFT" => nn::dft,
        "MaxUnpool" => nn::max_unpool,
        "AffineGrid" => misc::affine_grid,
        "BitCast" => misc::bit_cast,
        "CenterCropPad" => misc::center_crop_pad,
        "Col2Im" => misc::col2im,
        "TfIdfVectorizer" => misc::tf_idf,
        "Einsum" => misc::einsum,
        "STFT" => misc::stft,
        "MelWeightMatrix" => misc::mel_weight_matrix,
        "SequenceMap" => misc::sequence_map,
        "DeformConv" => nn::conv,
        "CausalConvWithState" => nn::causal_conv_with_state,
        "MaxRoiPool" => misc::max_roi_pool,
        "Multinomial" => misc::multinomial,
        "LinearAttention" => nn::linear_attention,
        "RNN" | "GRU" | "LSTM" => nn::recurrent,
        "If" => control::if_,
        "Loop" => control::loop_,
        "Scan" => control::scan,
        "SequenceEmpty" => sequence::empty,
        "SequenceConstruct" => sequence::construct,
        "SequenceAt" => sequence::at,
        "SequenceInsert" => sequence::insert,
        "SequenceErase" => e::same,
        "SequenceLength" => sequence::length,
        "SplitToSequence" => sequence::split_to_sequence,
        "ConcatFromSequence" => sequence::concat_from_sequence,
        "Optional" => sequence::optional,
        "OptionalHasElement" => sequence::has_element,
        "OptionalGetElement" => sequence::get_element,
        "NegativeLogLikelihoodLoss" => misc::nll_loss,
        "SoftmaxCrossEntropyLoss" => misc::softmax_cross_entropy,
        "Unique" => misc::unique,
        "NonMaxSuppression" => misc::non_max_suppression,
        "RandomUniformLike" | "RandomNormalLike" | "Bernoulli" => misc::like,
        "RandomUniform" | "RandomNormal" => misc::random,
        "Det" => misc::det,
        "GridSample" => misc::grid_sample,
        "RoiAlign" => misc::roi_align,
        "HannWindow" | "HammingWindow" | "BlackmanWindow" => misc::window,
        "ImageDecoder" => misc::image_decoder,
        "StringSplit" => misc::string_split,
        "StringNormalizer" => misc::string_normalizer,
        "RegexFullMatch" => misc::regex_full_match,
        _ => return None,
    })
}
