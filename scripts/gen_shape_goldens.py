#!/usr/bin/env python3
"""Record what onnx==1.23.2's shape inference infers for every backend and shipped corpus model,
as the goldens that tests/shape_inference.rs compares our `infer_shapes` against.

For each `tests/corpus/{backend,shipped}/*.model.pb` (the reference parser's bytes of the
`.onnxtxt` text beside it):
1. the model as written goes through `infer_shapes(strict_mode=True, data_prop=True)`; a model
   that strict mode rejects is recorded as `rejected` and nothing else;
2. then the graph's value_info is cleared and the types of its outputs are taken away, so that
   what remains is inferred, not declared, and inference runs again (strict, data_prop). Every
   value of the main graph that then has a type (value_info and outputs) is recorded, unless
   the type has nothing set.

Output: tests/data/shape_inference.txt, one line per model or value, fields separated by tabs:

    model <dir>/<stem> accepted|rejected
    value <name> <type>

A `value` line belongs to the `model` line before it. Types:

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
import onnx.shape_inference

REFERENCE_VERSION = "1.23.2"
assert onnx.__version__ == REFERENCE_VERSION, f"onnx=={REFERENCE_VERSION} is required"

REPO = pathlib.Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "corpus"
OUTPUT = REPO / "tests" / "data" / "shape_inference.txt"
DIRS = ["backend", "shipped"]


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


def lines() -> list[str]:
    out = [f"# onnx=={REFERENCE_VERSION} shape inference of the corpus models, by scripts/gen_shape_goldens.py"]
    for d in DIRS:
        for path in sorted((CORPUS / d).glob("*.model.pb")):
            stem = path.name[: -len(".model.pb")]
            model = onnx.ModelProto.FromString(path.read_bytes())
            try:
                infer(model)
                inferred = infer(stripped(model))
            except Exception:
                out.append(f"model\t{d}/{stem}\trejected")
                continue
            out.append(f"model\t{d}/{stem}\taccepted")
            for v in list(inferred.graph.value_info) + list(inferred.graph.output):
                if v.HasField("type") and spell(v.type) != "?":
                    out.append(f"value\t{v.name}\t{spell(v.type)}")
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
