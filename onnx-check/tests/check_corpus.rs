//! No false positives: every case of the conformance corpus that the reference accepts (it has a
//! `.pb`) passes every check, except the cases listed in [`FLAGGED`], which are malformed on
//! purpose or by an upstream quirk, each with the exact checks that flag it and why.
//!
//! `defs-cc/` holds the `R"ONNX(` function bodies of onnx's C++ sources, wrapped by the corpus
//! generator as `F () => () {…}`: the wrapper declares no inputs and no attributes, so
//! `undefined_value` and `invalid_attribute_ref` are off there (the other checks apply).
//!
//! The operator-schema checks run on every case at its own opset: the ~1,900 backend models,
//! the shipped models and the schema function bodies check clean. In `handwritten/` (syntax
//! snippets), calls of the placeholder operators in [`PLACEHOLDERS`] are set aside: onnx's
//! checker rejects them too ("No Op registered for Foo"). Every other schema error found there
//! is listed in [`FLAGGED`], and each was confirmed with onnx 1.23.2's checker or shape
//! inference. The test prints how many nodes had their types checked.

use std::collections::BTreeSet;
use std::path::Path;

use onnx_check::{Check, CheckOptions, CheckTree, Coverage, Diagnostic, Report};
use onnx_syntax::{Entry, UnknownEntry};

/// The directories of accepted real models and bodies, and the hand-written set.
const DIRS: [&str; 5] = [
    "backend",
    "shipped",
    "schema-functions",
    "defs-cc",
    "handwritten",
];

/// The made-up operators of the syntax snippets in `handwritten/`: an `unknown_operator` error
/// for one of them is expected there and set aside.
const PLACEHOLDERS: [&str; 4] = ["Foo", "Bar", "B", "Print"];

/// Cases that the checks flag: (reason, the checks that fire, `<dir>/<stem>.<entry>` of each).
const FLAGGED: &[(&str, &[Check], &[&str])] = &[
    (
        "`Identity` of an opaque type, which no type constraint of a standard operator allows \
         (onnx 1.23.2's shape inference: \"input typestr: V, has unsupported type\"); its checker \
         stops earlier on two of them, at a nameless `opaque()` input (\"Field 'name' of 'type' \
         is required to be non-empty\"), and on the other two at the untyped output `y`",
        &[Check::TypeConstraint],
        &[
            "handwritten/type-opaque-forms.model",
            "handwritten/type-opaque-keyword-names.model",
            "handwritten/type-opaque-nested.model",
            "handwritten/type-opaque-whitespace.model",
        ],
    ),
    (
        "syntax snippets whose main graph leaves an input or output without a type with a shape \
         (`y`, `float[] y`), which the IR requires (`missing_type`); onnx 1.23.2's checker \
         rejects all of them: 111 for that reason (88 \"Field 'type' of 'value_info' is required \
         but missing\", 23 \"Field 'shape' of 'type' is required but missing\") and 5 for another \
         problem it finds first (no ir_version, duplicate metadata keys)",
        &[Check::MissingType],
        &[
            "handwritten/graph-empty-outputs.model",
            "handwritten/graph-initializer-external-input.model",
            "handwritten/graph-initializer-external-locals.model",
            "handwritten/graph-initializer-external-one-key.model",
            "handwritten/graph-initializer-no-data-comma.model",
            "handwritten/graph-initializer-no-data-gt-space.model",
            "handwritten/graph-initializer-no-data-gt.model",
            "handwritten/graph-initializer-no-data-locals-comma.model",
            "handwritten/graph-initializer-no-data-paren.model",
            "handwritten/graph-initializer-scalar-locals.model",
            "handwritten/graph-initializer-scalar.model",
            "handwritten/graph-initializer-zero-dim.model",
            "handwritten/graph-locals-empty-space.model",
            "handwritten/graph-locals-empty.model",
            "handwritten/graph-untyped-value-infos.model",
            "handwritten/graph-value-info-typed-locals.model",
            "handwritten/graph-value-info-untyped-local.model",
            "handwritten/hdr-key-opset_import.model",
            "handwritten/hdr-opset-duplicate-domain.model",
            "handwritten/hdr-opset-many.model",
            "handwritten/hdr-repeat-mixed.model",
            "handwritten/hdr-repeat-opset_import.model",
            "handwritten/ident-keyword-quoted.model",
            "handwritten/ident-not-keyword-untyped.model",
            "handwritten/lex-arrow-comment-before.model",
            "handwritten/lex-arrow-space-before.model",
            "handwritten/lex-comment-after-header-before-graph.model",
            "handwritten/model-two-graphs-second-as-function.model",
            "handwritten/num-dim-inf.model",
            "handwritten/num-dim-int64-max.model",
            "handwritten/num-dim-leading-zeros.model",
            "handwritten/quote-function-name.model",
            "handwritten/quote-graph-name-escapes.model",
            "handwritten/quote-value-info-names.model",
            "handwritten/tensor-init-bfloat16.model",
            "handwritten/tensor-init-double.model",
            "handwritten/tensor-init-empty-bfloat16.model",
            "handwritten/tensor-init-empty-bool.model",
            "handwritten/tensor-init-empty-complex128.model",
            "handwritten/tensor-init-empty-complex64.model",
            "handwritten/tensor-init-empty-double.model",
            "handwritten/tensor-init-empty-float.model",
            "handwritten/tensor-init-empty-float16.model",
            "handwritten/tensor-init-empty-float8e4m3fn.model",
            "handwritten/tensor-init-empty-float8e4m3fnuz.model",
            "handwritten/tensor-init-empty-float8e5m2.model",
            "handwritten/tensor-init-empty-float8e5m2fnuz.model",
            "handwritten/tensor-init-empty-int16.model",
            "handwritten/tensor-init-empty-int32.model",
            "handwritten/tensor-init-empty-int4.model",
            "handwritten/tensor-init-empty-int64.model",
            "handwritten/tensor-init-empty-int8.model",
            "handwritten/tensor-init-empty-string.model",
            "handwritten/tensor-init-empty-uint16.model",
            "handwritten/tensor-init-empty-uint32.model",
            "handwritten/tensor-init-empty-uint4.model",
            "handwritten/tensor-init-empty-uint64.model",
            "handwritten/tensor-init-empty-uint8.model",
            "handwritten/tensor-init-float.model",
            "handwritten/tensor-init-float8e4m3fn.model",
            "handwritten/tensor-init-float8e4m3fnuz.model",
            "handwritten/tensor-init-float8e5m2.model",
            "handwritten/tensor-init-float8e5m2fnuz.model",
            "handwritten/tensor-init-int32.model",
            "handwritten/tensor-init-int64.model",
            "handwritten/tensor-init-scalar-bfloat16.model",
            "handwritten/tensor-init-scalar-bool.model",
            "handwritten/tensor-init-scalar-double.model",
            "handwritten/tensor-init-scalar-float.model",
            "handwritten/tensor-init-scalar-float16.model",
            "handwritten/tensor-init-scalar-float8e4m3fn.model",
            "handwritten/tensor-init-scalar-float8e4m3fnuz.model",
            "handwritten/tensor-init-scalar-float8e5m2.model",
            "handwritten/tensor-init-scalar-float8e5m2fnuz.model",
            "handwritten/tensor-init-scalar-int16.model",
            "handwritten/tensor-init-scalar-int32.model",
            "handwritten/tensor-init-scalar-int4.model",
            "handwritten/tensor-init-scalar-int64.model",
            "handwritten/tensor-init-scalar-int8.model",
            "handwritten/tensor-init-scalar-string.model",
            "handwritten/tensor-init-scalar-uint16.model",
            "handwritten/tensor-init-scalar-uint32.model",
            "handwritten/tensor-init-scalar-uint4.model",
            "handwritten/tensor-init-scalar-uint64.model",
            "handwritten/tensor-init-scalar-uint8.model",
            "handwritten/tensor-init-string.model",
            "handwritten/type-optional.model",
            "handwritten/type-prim-bfloat16.model",
            "handwritten/type-prim-bool.model",
            "handwritten/type-prim-complex128.model",
            "handwritten/type-prim-complex64.model",
            "handwritten/type-prim-double.model",
            "handwritten/type-prim-float.model",
            "handwritten/type-prim-float16.model",
            "handwritten/type-prim-float8e4m3fn.model",
            "handwritten/type-prim-float8e4m3fnuz.model",
            "handwritten/type-prim-float8e5m2.model",
            "handwritten/type-prim-float8e5m2fnuz.model",
            "handwritten/type-prim-int16.model",
            "handwritten/type-prim-int32.model",
            "handwritten/type-prim-int4.model",
            "handwritten/type-prim-int64.model",
            "handwritten/type-prim-int8.model",
            "handwritten/type-prim-string.model",
            "handwritten/type-prim-uint16.model",
            "handwritten/type-prim-uint32.model",
            "handwritten/type-prim-uint4.model",
            "handwritten/type-prim-uint64.model",
            "handwritten/type-prim-uint8.model",
            "handwritten/type-shape-dim-question-quoted.model",
            "handwritten/type-shape-dim-question-twice.model",
            "handwritten/type-shape-dims-comments.model",
            "handwritten/type-shape-empty-dim-param.model",
            "handwritten/type-shape-many-dims.model",
        ],
    ),
    (
        "a declared shape of another rank than the node computes: `float v` is a scalar, not \
         \"any shape\" (that is `float[]`); onnx's strict shape inference: \"Inferred shape and \
         existing shape differ in rank\"",
        &[Check::ShapeMismatch],
        &[
            "handwritten/graph-initializer-order.model",
            "handwritten/graph-untyped-value-infos.model",
            "handwritten/ident-keyword-typed.model",
            "handwritten/quote-dim.model",
        ],
    ),
    (
        "a function output declared `float Z` (a scalar) that its body computes as `float[N]`: \
         onnx's `infer_function_output_types` gives `float[N]` for it too",
        &[Check::ShapeMismatch],
        &["handwritten/func-reference-example.function"],
    ),
    (
        "`Cast <to = float>` gives a TYPE_PROTO where Cast needs the INT 1 (the reference's \
         quirk; onnx's checker: \"Mismatched attribute type\")",
        &[Check::AttributeType],
        &["handwritten/attr-cast-to-float-type-proto.model"],
    ),
    (
        "`\"\"` for an operand that is not optional (onnx's checker: \"marked single but has an \
         empty string\"), or an extra output from a leading comma",
        &[Check::OperatorArity],
        &[
            "handwritten/node-list-trailing-comma.model",
            "handwritten/quote-node-operands.model",
        ],
    ),
    (
        "placeholder operators and `Add(\"\", c)`: an operand-list snippet",
        &[Check::OperatorArity],
        &["handwritten/operands-in-model.model"],
    ),
    (
        "a negative opset version: no operator exists there",
        &[Check::UnknownOperator],
        &["handwritten/num-opset-version-neg.model"],
    ),
    (
        "calls `local.F` without `gamma`, which F declares without a default",
        &[Check::FunctionSignature],
        &["handwritten/model-functions-attr-defaults.model"],
    ),
    (
        "element types that Identity does not take at the imported opset 21 (int2, uint2, \
         float4e2m1, float6e2m3, float6e3m2, float8e8m0, maps, sparse tensors, seq of sparse \
         tensors); onnx's shape inference: \"has unsupported type\"",
        &[Check::TypeConstraint],
        &[
            "handwritten/tensor-init-empty-float4e2m1.model",
            "handwritten/tensor-init-empty-float6e2m3.model",
            "handwritten/tensor-init-empty-float6e3m2.model",
            "handwritten/tensor-init-empty-float8e8m0.model",
            "handwritten/tensor-init-empty-int2.model",
            "handwritten/tensor-init-empty-uint2.model",
            "handwritten/tensor-init-float4e2m1.model",
            "handwritten/tensor-init-float6e2m3.model",
            "handwritten/tensor-init-float6e3m2.model",
            "handwritten/tensor-init-float8e8m0.model",
            "handwritten/tensor-init-int2.model",
            "handwritten/tensor-init-scalar-float4e2m1.model",
            "handwritten/tensor-init-scalar-float6e2m3.model",
            "handwritten/tensor-init-scalar-float6e3m2.model",
            "handwritten/tensor-init-scalar-float8e8m0.model",
            "handwritten/tensor-init-scalar-int2.model",
            "handwritten/tensor-init-scalar-uint2.model",
            "handwritten/tensor-init-uint2.model",
            "handwritten/type-deep-nesting.model",
            "handwritten/type-map-keys.model",
            "handwritten/type-map-nested-value.model",
            "handwritten/type-prim-float4e2m1.model",
            "handwritten/type-prim-float6e2m3.model",
            "handwritten/type-prim-float6e3m2.model",
            "handwritten/type-prim-int2.model",
            "handwritten/type-prim-uint2.model",
            "handwritten/type-prim-float8e8m0.model",
            "handwritten/type-sparse-nested.model",
            "handwritten/type-sparse.model",
        ],
    ),
    (
        "a declared output type that the operator cannot produce: `seq(int64[]) y = \
         Identity(seq(float[N]) x)`, and ZipMap's sequence of maps declared `float[?]`; onnx's \
         shape inference rejects both",
        &[Check::TypeConstraint],
        &[
            "handwritten/type-seq.model",
            "handwritten/real-sequence-and-map-ops.model",
        ],
    ),
    (
        "onnx 1.23.2's context-dependent body of ai.onnx.preview FlexAttention-1 imports only \
         ai.onnx.preview but uses default-domain operators (onnx's checker rejects it too)",
        &[Check::UndeclaredDomain],
        &["schema-functions/ai.onnx.preview-FlexAttention-1-ctx1.function"],
    ),
    (
        "header and number quirks written as a model without any opset_import",
        &[Check::UndeclaredDomain],
        &[
            "handwritten/hdr-doc-string-multiline.model",
            "handwritten/hdr-key-doc_string.model",
            "handwritten/hdr-key-domain.model",
            "handwritten/hdr-key-ir_version.model",
            "handwritten/hdr-key-metadata_props.model",
            "handwritten/hdr-key-model_version.model",
            "handwritten/hdr-key-producer_name.model",
            "handwritten/hdr-key-producer_version.model",
            "handwritten/hdr-metadata-empty.model",
            "handwritten/hdr-metadata-utf8.model",
            "handwritten/hdr-none.model",
            "handwritten/hdr-opset-empty.model",
            "handwritten/hdr-repeat-doc_string.model",
            "handwritten/hdr-repeat-domain.model",
            "handwritten/hdr-repeat-ir_version.model",
            "handwritten/hdr-repeat-metadata_props.model",
            "handwritten/hdr-repeat-model_version.model",
            "handwritten/hdr-repeat-producer_name.model",
            "handwritten/hdr-repeat-producer_version.model",
            "handwritten/num-ir-version-int64-max.model",
            "handwritten/num-ir-version-leading-zeros.model",
            "handwritten/num-ir-version-neg.model",
            "handwritten/num-model-version-neg.model",
            "handwritten/str-doc-string-escapes.model",
        ],
    ),
    (
        "a function with `opset_import: []` that uses a default-domain operator",
        &[Check::UndeclaredDomain],
        &["handwritten/func-header-opset-empty.function"],
    ),
    (
        "the comment-everywhere lexer case calls `com.ms.Foo` but imports only \"\"",
        &[Check::UndeclaredDomain],
        &["handwritten/lex-comment-everywhere.model"],
    ),
    (
        "`@ref` in a main graph: the reference parser accepts it, but only a function body may \
         refer to attributes",
        &[Check::InvalidAttributeRef],
        &[
            "handwritten/attr-ref-in-graph.model",
            "handwritten/attr-ref-kind-float.model",
            "handwritten/attr-ref-kind-floats.model",
            "handwritten/attr-ref-kind-graph.model",
            "handwritten/attr-ref-kind-graphs.model",
            "handwritten/attr-ref-kind-int.model",
            "handwritten/attr-ref-kind-ints.model",
            "handwritten/attr-ref-kind-sparse_tensor.model",
            "handwritten/attr-ref-kind-sparse_tensors.model",
            "handwritten/attr-ref-kind-string.model",
            "handwritten/attr-ref-kind-strings.model",
            "handwritten/attr-ref-kind-tensor.model",
            "handwritten/attr-ref-kind-tensors.model",
            "handwritten/attr-ref-kind-type_proto.model",
            "handwritten/attr-ref-kind-type_protos.model",
            "handwritten/attrval-ref-annotated.model",
            "handwritten/attrval-ref-empty-quoted.model",
            "handwritten/attrval-ref-float.model",
            "handwritten/attrval-ref-graph.model",
            "handwritten/attrval-ref-quoted.model",
            "handwritten/attrval-ref-space.model",
            "handwritten/attrval-ref-tensor.model",
            "handwritten/attrval-ref-type-proto.model",
            "handwritten/attrval-ref-unannotated.model",
        ],
    ),
    (
        "the same attribute name twice on one node, on purpose",
        &[Check::DuplicateAttribute],
        &["handwritten/attrval-duplicate-names.model"],
    ),
    (
        "the same name as two inputs and an initializer, on purpose",
        &[Check::DuplicateInput],
        &["handwritten/graph-duplicate-names.model"],
    ),
    (
        "syntax snippets with an empty body: the declared output is never produced",
        &[Check::UnproducedOutput],
        &[
            "handwritten/func-attr-empty-list-defaults.function",
            "handwritten/func-attr-typed-no-default-ints.function",
            "handwritten/func-attr-typed-no-default.function",
            "handwritten/func-attrs-after-io.function",
            "handwritten/model-functions-no-model-header.model",
            "handwritten/model-functions-swallowed-float-typed.model",
            "handwritten/type-function-io.function",
            "handwritten/vec-attr-typed-no-default.function",
            "handwritten/vec-dim-param-empty.graph",
            "handwritten/vec-function-no-header.model",
            "handwritten/vec-header-repeats.model",
            "handwritten/vec-initializer-no-data.graph",
        ],
    ),
    (
        "operand-list snippets where a node consumes its own output",
        &[Check::UseBeforeDefinition],
        &[
            "handwritten/operands-in-leading-comma.node",
            "handwritten/operands-in-trailing-comma.node",
            "handwritten/operands-out-empty-string-first.node",
        ],
    ),
    (
        "4-bit and 2-bit tensors written with one value per element, not packed",
        &[Check::ElementCountMismatch],
        &[
            "handwritten/tensor-attr-annotated-float4e2m1.node",
            "handwritten/tensor-attr-annotated-int2.node",
            "handwritten/tensor-attr-annotated-int4.node",
            "handwritten/tensor-attr-annotated-uint2.node",
            "handwritten/tensor-attr-annotated-uint4.node",
            "handwritten/tensor-attr-float4e2m1.node",
            "handwritten/tensor-attr-int2.node",
            "handwritten/tensor-attr-int4.node",
            "handwritten/tensor-attr-uint2.node",
            "handwritten/tensor-attr-uint4.node",
            "handwritten/tensor-init-float4e2m1.model",
            "handwritten/tensor-init-int2.model",
            "handwritten/tensor-init-int4.model",
            "handwritten/tensor-init-uint2.model",
            "handwritten/tensor-init-uint4.model",
        ],
    ),
    (
        "complex tensors written with one value per element, not real/imaginary pairs",
        &[Check::ElementCountMismatch],
        &[
            "handwritten/tensor-attr-annotated-complex128.node",
            "handwritten/tensor-attr-annotated-complex64.node",
            "handwritten/tensor-attr-complex128.node",
            "handwritten/tensor-attr-complex64.node",
            "handwritten/tensor-complex64-odd-count.node",
            "handwritten/tensor-data-complex-int-overflow.node",
            "handwritten/tensor-init-complex128.model",
            "handwritten/tensor-init-complex64.model",
            "handwritten/tensor-init-scalar-complex128.model",
            "handwritten/tensor-init-scalar-complex64.model",
        ],
    ),
    (
        "a negative dim, in a declared type or a tensor's dims: the IR makes a dim a size, and an \
         unknown one a name or `?` (stricter than onnx's parser, docs/divergences.md)",
        &[Check::NegativeDim],
        &[
            "handwritten/graph-initializer-negative-dim.model",
            "handwritten/num-dim-negative.model",
            "handwritten/tensor-form-negative-dim.node",
            "handwritten/type-shapes.model",
        ],
    ),
    (
        "tensors whose data does not match their dims, on purpose (too few, too many, empty)",
        &[Check::ElementCountMismatch],
        &[
            "handwritten/graph-initializer-count-mismatch.model",
            "handwritten/graph-initializer-count-too-many.model",
            "handwritten/graph-initializer-empty-data.model",
            "handwritten/tensor-form-count-mismatch.node",
            "handwritten/tensor-form-no-data.node",
        ],
    ),
    (
        "the literal boundary cases just outside their element type that the reference accepts \
         (scripts/corpus_cases.py, `lit-<type>-above…`/`below…`; tests/it/literals.rs)",
        &[Check::LiteralOutOfRange],
        &[
            "handwritten/lit-bfloat16-above-max.node",
            "handwritten/lit-bfloat16-below-min.node",
            "handwritten/lit-bool-above-max.node",
            "handwritten/lit-bool-below-min.node",
            "handwritten/lit-float16-above-max.node",
            "handwritten/lit-float16-below-min.node",
            "handwritten/lit-float4e2m1-above-max.node",
            "handwritten/lit-float4e2m1-below-min.node",
            "handwritten/lit-float6e2m3-above-max.node",
            "handwritten/lit-float6e2m3-below-min.node",
            "handwritten/lit-float6e3m2-above-max.node",
            "handwritten/lit-float6e3m2-below-min.node",
            "handwritten/lit-float8e4m3fn-above-max.node",
            "handwritten/lit-float8e4m3fn-below-min.node",
            "handwritten/lit-float8e4m3fnuz-above-max.node",
            "handwritten/lit-float8e4m3fnuz-below-min.node",
            "handwritten/lit-float8e5m2-above-max.node",
            "handwritten/lit-float8e5m2-below-min.node",
            "handwritten/lit-float8e5m2fnuz-above-max.node",
            "handwritten/lit-float8e5m2fnuz-below-min.node",
            "handwritten/lit-float8e8m0-above-max.node",
            "handwritten/lit-float8e8m0-below-min.node",
            "handwritten/lit-int16-above-max.node",
            "handwritten/lit-int16-below-min.node",
            "handwritten/lit-int2-above-max.node",
            "handwritten/lit-int2-below-min.node",
            "handwritten/lit-int4-above-max.node",
            "handwritten/lit-int4-below-min.node",
            "handwritten/lit-int8-above-max.node",
            "handwritten/lit-int8-below-min.node",
            "handwritten/lit-uint16-above-max.node",
            "handwritten/lit-uint16-below-min.node",
            "handwritten/lit-uint2-above-max.node",
            "handwritten/lit-uint2-below-min.node",
            "handwritten/lit-uint32-above-max.node",
            "handwritten/lit-uint32-below-min.node",
            "handwritten/lit-uint4-above-max.node",
            "handwritten/lit-uint4-below-min.node",
            "handwritten/lit-uint64-below-min-wraps-to-max.node",
            "handwritten/lit-uint64-below-min.node",
            "handwritten/lit-uint8-above-max.node",
            "handwritten/lit-uint8-below-min.node",
        ],
    ),
    (
        "literals outside their element type, kept by the reference on purpose (uint8 256, \
         int8 128, bool 2, float16 -1, uint32 2^32, uint64 -1, …)",
        &[Check::LiteralOutOfRange],
        &[
            "handwritten/tensor-attr-annotated-bool.node",
            "handwritten/tensor-attr-annotated-float16.node",
            "handwritten/tensor-attr-annotated-int16.node",
            "handwritten/tensor-attr-annotated-int8.node",
            "handwritten/tensor-attr-annotated-uint16.node",
            "handwritten/tensor-attr-annotated-uint32.node",
            "handwritten/tensor-attr-annotated-uint64.node",
            "handwritten/tensor-attr-annotated-uint8.node",
            "handwritten/tensor-attr-bool.node",
            "handwritten/tensor-attr-float16.node",
            "handwritten/tensor-attr-int16.node",
            "handwritten/tensor-attr-int8.node",
            "handwritten/tensor-attr-uint16.node",
            "handwritten/tensor-attr-uint32.node",
            "handwritten/tensor-attr-uint64.node",
            "handwritten/tensor-attr-uint8.node",
            "handwritten/tensor-bool-two.node",
            "handwritten/tensor-init-bool.model",
            "handwritten/tensor-init-float16.model",
            "handwritten/tensor-init-int16.model",
            "handwritten/tensor-init-int8.model",
            "handwritten/tensor-init-uint16.model",
            "handwritten/tensor-init-uint32.model",
            "handwritten/tensor-init-uint64.model",
            "handwritten/tensor-init-uint8.model",
            "handwritten/tensor-uint32-unchecked.node",
            "handwritten/tensor-uint64-min-wrap.node",
            "handwritten/tensor-uint64-wrap.node",
            "handwritten/tensor-uint8-out-of-range-kept.node",
            "handwritten/vec-uint64-wrap.node",
        ],
    ),
];

/// Parses `text` as `entry` and checks the tree against `source` (normally `text` itself).
fn check(entry: &str, text: &str, source: &str, options: &CheckOptions) -> Result<Report, String> {
    let entry: Entry = entry.parse().map_err(|e: UnknownEntry| e.to_string())?;
    let tree = entry.parse(text).map_err(|e| e.to_string())?;
    let report = tree.check(source, options);
    // What the macros and `Entry::check` do, checking and lowering at once, finds the same and
    // lowers the same.
    let (together, proto) = tree.clone().check_and_lower(source, options);
    assert_eq!(together.diagnostics, report.diagnostics, "{text}");
    assert!(proto.encode() == tree.lower().encode(), "{text}");
    Ok(report)
}

/// An `unknown_operator` error for a placeholder operator of a syntax snippet.
fn placeholder_call(dir: &str, diagnostic: &Diagnostic) -> bool {
    dir == "handwritten"
        && diagnostic.check() == Some(Check::UnknownOperator)
        && PLACEHOLDERS.iter().any(|op| {
            diagnostic
                .message()
                .starts_with(&format!("`{op}` is not an operator of ai.onnx"))
        })
}

/// One line of the coverage summary.
fn coverage_line(what: &str, nodes: &Coverage) -> String {
    format!(
        "schema checks on {what:>16}: {} nodes against a schema ({} fully typed, {} partly, {} \
         untyped, {} without inputs), {} not checked (custom domain or operator, local function, \
         no imports)",
        nodes.schema_nodes,
        nodes.typed,
        nodes.partially_typed,
        nodes.untyped,
        nodes.without_inputs,
        nodes.unchecked_nodes
    )
}

#[test]
fn accepted_corpus_cases_check_clean_except_the_listed_ones() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    let mut failures = Vec::new();
    let mut listed_seen = BTreeSet::new();
    let mut summary = Vec::new();
    let mut total = Coverage::default();
    for dir in DIRS {
        let options = if dir == "defs-cc" {
            CheckOptions::default()
                .allow(Check::UndefinedValue)
                .allow(Check::InvalidAttributeRef)
        } else {
            CheckOptions::default()
        };
        let mut cases: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap_or_else(|e| panic!("cannot read tests/corpus/{dir}: {e}"))
            .map(|entry| entry.expect("directory entry").path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "onnxtxt"))
            .filter(|path| path.with_extension("pb").exists())
            .collect();
        cases.sort();
        let (mut clean, mut flagged) = (0, 0);
        let mut coverage = Coverage::default();
        for path in &cases {
            let stem = path.file_stem().and_then(|s| s.to_str()).expect("name");
            let key = format!("{dir}/{stem}");
            let entry = stem.rsplit('.').next().expect("entry point");
            let Ok(text) = std::fs::read_to_string(path) else {
                // Not UTF-8: not reachable through the `&str` API.
                continue;
            };
            let report = match check(entry, &text, &text, &options) {
                Ok(report) => report,
                Err(e) => {
                    failures.push(format!("{key}: does not parse: {e}"));
                    continue;
                }
            };
            coverage += report.coverage;
            let found: Vec<Diagnostic> = report
                .diagnostics
                .into_iter()
                .filter(|d| !placeholder_call(dir, d))
                .collect();
            if !found.is_empty() {
                // Drawing works, and so do the checks against a source that does not match.
                let drawn = found.iter().map(|d| d.render(&text, Some(&key)));
                assert!(drawn.into_iter().all(|s| s.starts_with("error[")));
                let mismatched = check(entry, &text, "", &options).unwrap_or_default();
                let drawn = mismatched.diagnostics.iter().map(|d| d.render("", None));
                assert!(drawn.into_iter().all(|s| !s.is_empty()));
            }
            let fired: BTreeSet<Check> = found.iter().filter_map(Diagnostic::check).collect();
            let expected: BTreeSet<Check> = FLAGGED
                .iter()
                .filter(|(_, _, cases)| cases.contains(&key.as_str()))
                .flat_map(|(_, checks, _)| checks.iter().copied())
                .collect();
            if !expected.is_empty() {
                listed_seen.insert(key.clone());
            }
            if fired.is_empty() {
                clean += 1;
            } else {
                flagged += 1;
            }
            if fired != expected {
                let shown: Vec<String> = found.iter().map(|d| d.render(&text, None)).collect();
                failures.push(format!(
                    "{key}: expected checks {expected:?}, got {fired:?}\n{}",
                    shown.join("\n")
                ));
            }
        }
        summary.push(format!(
            "checks on corpus {dir:>16}: {clean} clean, {flagged} flagged (listed)"
        ));
        summary.push(coverage_line(dir, &coverage));
        total += coverage;
    }
    for (_, _, cases) in FLAGGED {
        for case in *cases {
            if !listed_seen.contains(*case) {
                failures.push(format!(
                    "{case}: listed as flagged but missing from the corpus"
                ));
            }
        }
    }
    summary.push(coverage_line("all", &total));
    for line in &summary {
        println!("{line}");
    }
    assert!(
        failures.is_empty(),
        "{} corpus cases disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
