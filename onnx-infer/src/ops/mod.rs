//! One rule per operator, found by domain and name. A rule reads its node's operands and
//! attributes and sets its results' types; it returns a conflict for operands the operator
//! cannot take. An operator without a rule leaves its results unknown.

mod attention;
mod control;
mod conv;
mod elementwise;
mod linalg;
mod ml;
mod normalization;
mod quantization;
mod random;
mod recurrent;
mod reduction;
mod sequence;
mod shape;
mod signal;
mod text;
mod training;
mod vision;

use super::node::{Node, Rule};

/// The rule of operator `op` of the standard domain `domain` (`""` for the default one).
pub(super) fn rule(domain: &str, op: &str) -> Option<fn(&mut Node) -> Rule> {
    match (domain, op) {
        ("", _) => {}
        ("ai.onnx.preview.training", "Adagrad" | "Momentum" | "Adam") => {
            return Some(training::optimizer);
        }
        ("ai.onnx.ml", "Binarizer") => return Some(elementwise::same),
        ("ai.onnx.ml", "LabelEncoder") => return Some(ml::label_encoder),
        ("ai.onnx.preview", "FlexAttention") => return Some(attention::flex_attention),
        ("ai.onnx.ml", "ArrayFeatureExtractor") => return Some(ml::array_feature_extractor),
        ("ai.onnx.ml", "TreeEnsemble") => return Some(ml::tree_ensemble),
        ("ai.onnx.ml", "LinearClassifier") => return Some(ml::linear_classifier),
        ("ai.onnx.ml", "SVMClassifier") => return Some(ml::svm_classifier),
        ("ai.onnx.ml", "CategoryMapper") => return Some(ml::category_mapper),
        ("ai.onnx.ml", "OneHotEncoder") => return Some(ml::one_hot_encoder),
        ("ai.onnx.ml", "ZipMap") => return Some(ml::zip_map),
        ("ai.onnx.ml", "DictVectorizer") => return Some(ml::dict_vectorizer),
        ("ai.onnx.ml", "CastMap") => return Some(ml::cast_map),
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
        "Softmax" | "LogSoftmax" | "Hardmax" => reduction::softmax,
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
        "EyeLike" => random::like,
        "NonZero" => shape::non_zero,
        "Compress" => shape::compress,
        "DepthToSpace" | "SpaceToDepth" => shape::depth_space,
        "OneHot" => shape::one_hot,
        "Resize" | "Upsample" => shape::resize,
        "MatMul" => linalg::matmul,
        "MatMulInteger" => linalg::matmul_integer,
        "QLinearMatMul" => linalg::qlinear_matmul,
        "Gemm" => linalg::gemm,
        "Conv" => conv::conv,
        "ConvInteger" => conv::conv_integer,
        "QLinearConv" => conv::qlinear_conv,
        "ConvTranspose" => conv::conv_transpose,
        "MaxPool" | "AveragePool" | "LpPool" => conv::pool,
        "GlobalAveragePool" | "GlobalMaxPool" | "GlobalLpPool" => conv::global_pool,
        "BatchNormalization" => normalization::batch_norm,
        "LayerNormalization" => normalization::layer_norm,
        "Dropout" => normalization::dropout,
        "ReduceSum" | "ReduceMean" | "ReduceMax" | "ReduceMin" | "ReduceProd" | "ReduceL1"
        | "ReduceL2" | "ReduceLogSum" | "ReduceLogSumExp" | "ReduceSumSquare" => reduction::reduce,
        "ArgMax" | "ArgMin" => reduction::arg,
        "TopK" => reduction::top_k,
        "QuantizeLinear" => quantization::quantize,
        "DequantizeLinear" => quantization::dequantize,
        "DynamicQuantizeLinear" => quantization::dynamic_quantize,
        "Attention" => attention::attention,
        "TensorScatter" => attention::tensor_scatter,
        "DFT" => signal::dft,
        "MaxUnpool" => conv::max_unpool,
        "AffineGrid" => vision::affine_grid,
        "BitCast" => elementwise::bit_cast,
        "CenterCropPad" => vision::center_crop_pad,
        "Col2Im" => conv::col2im,
        "TfIdfVectorizer" => text::tf_idf,
        "Einsum" => linalg::einsum,
        "STFT" => signal::stft,
        "MelWeightMatrix" => signal::mel_weight_matrix,
        "SequenceMap" => sequence::sequence_map,
        "DeformConv" => conv::conv,
        "CausalConvWithState" => conv::causal_conv_with_state,
        "MaxRoiPool" => vision::max_roi_pool,
        "Multinomial" => random::multinomial,
        "LinearAttention" => attention::linear_attention,
        "RNN" | "GRU" | "LSTM" => recurrent::recurrent,
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
        "NegativeLogLikelihoodLoss" => training::nll_loss,
        "SoftmaxCrossEntropyLoss" => training::softmax_cross_entropy,
        "Unique" => reduction::unique,
        "NonMaxSuppression" => vision::non_max_suppression,
        "RandomUniformLike" | "RandomNormalLike" | "Bernoulli" => random::like,
        "RandomUniform" | "RandomNormal" => random::random,
        "Det" => linalg::det,
        "GridSample" => vision::grid_sample,
        "RoiAlign" => vision::roi_align,
        "HannWindow" | "HammingWindow" | "BlackmanWindow" => signal::window,
        "ImageDecoder" => vision::image_decoder,
        "StringSplit" => text::string_split,
        "StringNormalizer" => text::string_normalizer,
        "RegexFullMatch" => text::regex_full_match,
        _ => return None,
    })
}
