#!/usr/bin/env python3
"""Record what onnx==1.23.2's shape inference infers for every backend and shipped corpus model,
as the goldens that tests/shape_inference.rs compares our `infer_shapes` against.

For each `tests/corpus/{backend,shipped}/*.model.pb` (the reference parser's bytes of the
`.onnxtxt` text beside it):
1. the model as written goes through `infer_shapes(strict_mode=True, data_prop=True)`; a model
   that strict mode rejects is recorded as `rejected` and nothing else;
2. then the graph's value_info is cleared and the types of its outputs are taken away, so that
   what remains is inferred, not declared, and inference runs again (strict, data_prop). Every
   value of the main graph that then has a type (value_info and outputs) is recorded once, unless
   the type has nothing set.

Output: tests/data/shape_inference.txt, one line per model or value, fields separated by tabs:

    model <dir>/<stem> accepted|rejected
    source <text>
    value <name> <type>

A `value` line belongs to the `model` line before it. A `source` line gives the text of a
synthetic model (`synthetic/<name>`, an operator no corpus model uses), with `\\n` for a
line break and `\\\\` for a backslash. Types:

    T<elem>[d,d,...]   a tensor of element type <elem> (TensorProto.DataType number) and these
                       dims: an integer, a symbol, or `?` for a dim with neither; `T<elem>` alone
                       has no shape (unknown rank)
    P<elem>[...]       a sparse tensor, likewise
    S(<type>)          a sequence; O(<type>) an optional; M<key>(<type>) a map

onnx's own invented symbols are spelled `unk__<n>`: they stand for "some dim", not a name the
model wrote. Usage:

    pip install -r scripts/requirements.txt
    python3 scripts/gen_shape_goldens.py [--check]
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import onnx
import onnx.parser
import onnx.shape_inference

REFERENCE_VERSION = "1.23.2"
assert onnx.__version__ == REFERENCE_VERSION, f"onnx=={REFERENCE_VERSION} is required"

REPO = pathlib.Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "corpus"
OUTPUT = REPO / "tests" / "data" / "shape_inference.txt"
DIRS = ["backend", "shipped"]

# Operators onnx infers that no corpus model uses, as small models of their own. Their text is
# in the goldens (a `source` line), since no corpus file holds it.
SYNTHETIC_HEADER = '<ir_version: 10, opset_import: ["" : 21, "ai.onnx.ml" : 5]>\n'
SYNTHETIC = {
    "linear_classifier": "g (float[N, 3] X) => (Y, Z) { Y, Z = ai.onnx.ml.LinearClassifier <classlabels_ints = [0, 1], coefficients = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], intercepts = [0.0, 0.0]> (X) }",
    "linear_classifier_strings": "g (float[N, 3] X) => (Y, Z) { Y, Z = ai.onnx.ml.LinearClassifier <classlabels_strings = [\"a\", \"b\"], coefficients = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> (X) }",
    "category_mapper": "g (int64[N] X) => (Y) { Y = ai.onnx.ml.CategoryMapper <cats_int64s = [1, 2], cats_strings = [\"a\", \"b\"]> (X) }",
    "category_mapper_back": "g (string[N, 2] X) => (Y) { Y = ai.onnx.ml.CategoryMapper <cats_int64s = [1, 2], cats_strings = [\"a\", \"b\"]> (X) }",
    "one_hot_encoder": "g (int64[N] X) => (Y) { Y = ai.onnx.ml.OneHotEncoder <cats_int64s = [1, 2, 3]> (X) }",
    "zip_map": "g (float[N, 2] X) => (Y) { Y = ai.onnx.ml.ZipMap <classlabels_int64s = [1, 2]> (X) }",
    "zip_map_strings": "g (float[N, 2] X) => (Y) { Y = ai.onnx.ml.ZipMap <classlabels_strings = [\"a\", \"b\"]> (X) }",
    "svm_classifier": "g (float[N, 2] X) => (Y, Z) { Y, Z = ai.onnx.ml.SVMClassifier <classlabels_ints = [0, 1], coefficients = [1.0], support_vectors = [1.0, 2.0], vectors_per_class = [1, 0], rho = [0.0]> (X) }",
    "max_roi_pool": "g (float[1, 3, 8, 8] X, float[2, 5] R) => (Y) { Y = MaxRoiPool <pooled_shape = [2, 2]> (X, R) }",
    "multinomial": "g (float[N, 4] X) => (Y) { Y = Multinomial <sample_size = 5> (X) }",
    "dict_vectorizer": "g (map(int64, float) x) => (y) { y = ai.onnx.ml.DictVectorizer <int64_vocabulary = [1, 2, 3]> (x) }",
    "cast_map": "g (map(int64, string) x) => (y) { y = ai.onnx.ml.CastMap <cast_to = \"TO_INT64\", map_form = \"DENSE\", max_map = 3> (x) }",
    "multinomial_int64": "g (float[N, 4] X) => (Y) { Y = Multinomial <sample_size = 3, dtype = 7> (X) }",
}

# Symbolic dims through the operators that move or multiply dims: a rule that drops a symbol
# onnx keeps is a failure of tests/shape_inference.rs, not "knowing less".
SYMBOLIC = {
    "flatten_axis1": "g (float[N, 2048, 1, 1] X) => (Y) { Y = Flatten <axis = 1> (X) }",
    "flatten_axis2": "g (float[N, C, 1, 1] X) => (Y) { Y = Flatten <axis = 2> (X) }",
    "flatten_axis0": "g (float[1, N] X) => (Y) { Y = Flatten <axis = 0> (X) }",
    "flatten_axis_last": "g (float[N, 1, 1] X) => (Y) { Y = Flatten <axis = 3> (X) }",
    "flatten_negative": "g (float[N, 4, 1] X) => (Y) { Y = Flatten <axis = -1> (X) }",
    "space_to_depth_1": "g (float[N, C, H, W] X) => (Y) { Y = SpaceToDepth <blocksize = 1> (X) }",
    "depth_to_space_1": "g (float[N, C, H, W] X) => (Y) { Y = DepthToSpace <blocksize = 1> (X) }",
    "reshape_copy": "g (float[N, C, 4] X) => (Y) { s = Constant <value = int64[3] {0, 0, -1}> () Y = Reshape (X, s) }",
    "reshape_copy_first": "g (float[N, 3, 4] X) => (Y) { s = Constant <value = int64[2] {0, -1}> () Y = Reshape (X, s) }",
    "squeeze_sym": "g (float[N, 1, C] X) => (Y) { a = Constant <value = int64[1] {1}> () Y = Squeeze (X, a) }",
    "unsqueeze_sym": "g (float[N, C] X) => (Y) { a = Constant <value = int64[1] {1}> () Y = Unsqueeze (X, a) }",
    "transpose_sym": "g (float[N, C, H] X) => (Y) { Y = Transpose <perm = [2, 0, 1]> (X) }",
    "concat_sym": "g (float[N, 3] X, float[N, 4] Z) => (Y) { Y = Concat <axis = 1> (X, Z) }",
    "gather_sym": "g (float[N, C] X, int64[K] I) => (Y) { Y = Gather <axis = 1> (X, I) }",
    "matmul_sym": "g (float[B, N, K] X, float[K, M] W) => (Y) { Y = MatMul (X, W) }",
    "gemm_sym": "g (float[N, K] X, float[K, M] W) => (Y) { Y = Gemm (X, W) }",
    "conv_sym": "g (float[N, 3, 8, 8] X, float[4, 3, 3, 3] W) => (Y) { Y = Conv (X, W) }",
    "pool_sym": "g (float[N, C, 8, 8] X) => (Y) { Y = MaxPool <kernel_shape = [2, 2]> (X) }",
    "global_pool_sym": "g (float[N, C, H, W] X) => (Y) { Y = GlobalAveragePool (X) }",
    "reduce_sym": "g (float[N, C, H] X) => (Y) { a = Constant <value = int64[1] {2}> () Y = ReduceMean (X, a) }",
    "split_sym": "g (float[N, 4] X) => (Y, Z) { Y, Z = Split <axis = 1, num_outputs = 2> (X) }",
    "slice_sym": "g (float[N, 8] X) => (Y) { s = Constant <value = int64[1] {1}> () e = Constant <value = int64[1] {5}> () a = Constant <value = int64[1] {1}> () Y = Slice (X, s, e, a) }",
    "tile_sym": "g (float[N, 2] X) => (Y) { r = Constant <value = int64[2] {1, 3}> () Y = Tile (X, r) }",
    "expand_sym": "g (float[N, 1] X) => (Y) { s = Constant <value = int64[2] {1, 5}> () Y = Expand (X, s) }",
    "pad_sym": "g (float[N, 4] X) => (Y) { p = Constant <value = int64[4] {0, 1, 0, 1}> () Y = Pad (X, p) }",
    "softmax_sym": "g (float[N, C] X) => (Y) { Y = Softmax (X) }",
    "layer_norm_sym": "g (float[N, T, C] X, float[C] S) => (Y) { Y = LayerNormalization <axis = -1> (X, S) }",
    "einsum_sym": "g (float[N, K] X, float[K, M] W) => (Y) { Y = Einsum <equation = \"ij,jk->ik\"> (X, W) }",
    "shape_reshape_sym": "g (float[N, C, H, W] X) => (Y) { s = Shape <end = 2> (X) c = Constant <value = int64[1] {-1}> () t = Concat <axis = 0> (s, c) Y = Reshape (X, t) }",
    "depth_to_space_sym": "g (float[N, 8, H, W] X) => (Y) { Y = DepthToSpace <blocksize = 2> (X) }",
    "topk_sym": "g (float[N, 8] X) => (Y, I) { k = Constant <value = int64[1] {3}> () Y, I = TopK (X, k) }",
    "resize_sym": "g (float[N, C, 4, 4] X) => (Y) { r = Constant <value = float[4] {1, 1, 2, 2}> () Y = Resize (X, \"\", r) }",
    "batchnorm_sym": "g (float[N, 3, H, W] X, float[3] s, float[3] b, float[3] m, float[3] v) => (Y) { Y = BatchNormalization (X, s, b, m, v) }",
    "where_sym": "g (bool[N, 1] c, float[1, M] X, float[N, M] Z) => (Y) { Y = Where (c, X, Z) }",
    "cumsum_sym": "g (float[N, C] X, int64 a) => (Y) { Y = CumSum (X, a) }",
    "argmax_sym": "g (float[N, C, H] X) => (Y) { Y = ArgMax <axis = 1, keepdims = 0> (X) }",
    "onehot_sym": "g (int64[N] X) => (Y) { d = Constant <value = int64 {10}> () v = Constant <value = float[2] {0, 1}> () Y = OneHot (X, d, v) }",
    "nonzero_sym": "g (float[N, C] X) => (Y) { Y = NonZero (X) }",
    "compress_sym": "g (float[N, C] X, bool[C] k) => (Y) { Y = Compress <axis = 1> (X, k) }",
    "range_sym": "g (float[N] X) => (Y) { s = Shape (X) Y = Range (s, s, s) }",
}


def dims(shape) -> str:
    out = []
    for d in shape.dim:
        kind = d.WhichOneof("value")
        out.append(str(d.dim_value) if kind == "dim_value" else d.dim_param if kind == "dim_param" else "?")
    return "[" + ",".join(out) + "]"


def spell(t) -> str:
    kind = t.WhichOneof("value")
    if kind == "tensor_type":
        s = f"T{t.tensor_type.elem_type}"
        return s + dims(t.tensor_type.shape) if t.tensor_type.HasField("shape") else s
    if kind == "sparse_tensor_type":
        s = f"P{t.sparse_tensor_type.elem_type}"
        return s + dims(t.sparse_tensor_type.shape) if t.sparse_tensor_type.HasField("shape") else s
    if kind == "sequence_type":
        return f"S({spell(t.sequence_type.elem_type)})"
    if kind == "optional_type":
        return f"O({spell(t.optional_type.elem_type)})"
    if kind == "map_type":
        return f"M{t.map_type.key_type}({spell(t.map_type.value_type)})"
    return "?"


def infer(model):
    return onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True, data_prop=True)


def stripped(model):
    model = onnx.ModelProto.FromString(model.SerializeToString())
    del model.graph.value_info[:]
    for output in model.graph.output:
        output.ClearField("type")
    return model


def record(out: list[str], name: str, model, source: str | None = None) -> None:
    """The lines of one model: accepted or rejected, its text if it has no file, its values."""
    try:
        infer(model)
        inferred = infer(stripped(model))
    except Exception:
        out.append(f"model\t{name}\trejected")
        return
    out.append(f"model\t{name}\taccepted")
    if source is not None:
        out.append("source\t" + source.replace("\\", "\\\\").replace("\n", "\\n"))
    seen = set()
    for v in list(inferred.graph.value_info) + list(inferred.graph.output):
        if v.HasField("type") and spell(v.type) != "?" and v.name not in seen:
            seen.add(v.name)
            out.append(f"value\t{v.name}\t{spell(v.type)}")


def lines() -> list[str]:
    out = [f"# onnx=={REFERENCE_VERSION} shape inference of the corpus models, by scripts/gen_shape_goldens.py"]
    for d in DIRS:
        for path in sorted((CORPUS / d).glob("*.model.pb")):
            stem = path.name[: -len(".model.pb")]
            record(out, f"{d}/{stem}", onnx.ModelProto.FromString(path.read_bytes()))
    for name, body in {**SYNTHETIC, **SYMBOLIC}.items():
        text = SYNTHETIC_HEADER + body
        record(out, f"synthetic/{name}", onnx.parser.parse_model(text), text)
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed file is stale")
    args = parser.parse_args()
    text = "\n".join(lines()) + "\n"
    if args.check:
        if OUTPUT.read_text() != text:
            print(f"{OUTPUT} is stale: run scripts/gen_shape_goldens.py", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
