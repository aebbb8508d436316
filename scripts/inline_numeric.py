#!/usr/bin/env python3
"""Numerical equivalence of `onnx-text inline` under onnxruntime: the original model and the
inlined one run on the same random inputs, and their outputs are compared.

1. Every case of scripts/inline_differential.py (corpus models with local functions, and the
   generated models): onnxruntime runs model-local functions itself, so the original runs as
   it is. Outputs must be bit-for-bit equal (NaN equal to NaN). Models onnxruntime cannot load
   (operators that do not exist, no ir_version) are counted as not runnable.
2. Every standard operator with a static body (`--expand`), called without attributes (the
   schema defaults apply), at the newest opset at which it has a body and onnxruntime runs the
   expanded model: the operator's kernel (onnxruntime's, or onnx.reference's where onnxruntime
   has none) against its expanded body, run by onnxruntime (with the standard operators that
   the body calls and onnxruntime lacks expanded as well; or by onnx.reference where
   onnxruntime rejects the body at every opset). The expanded model must pass
   onnx.checker.check_model(full_check=True) at every opset tried. The two compute differently (a
   kernel is not its function body), so outputs must agree within rtol 1e-5, atol 1e-6; how
   many are bit-for-bit equal is reported too.

Usage (from anywhere; onnxruntime from PyPI):

    pip install -r scripts/requirements.txt onnxruntime numpy
    python3 scripts/inline_numeric.py
"""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnx.parser
import onnx.reference
import onnxruntime as ort

sys.dont_write_bytecode = True
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import inline_differential  # noqa: E402

BIN = inline_differential.BIN
REPO = inline_differential.REPO
SEED = 13
DIM = 3  # every symbolic dimension

# One model per standard operator, with its inputs; {opset} is filled in.
UNARY = "<ir_version: 10, opset_import: [\"\" : {opset}]> g (float[3, 4] x) => (float[3, 4] y) {{ y = {op}(x) }}"
STANDARD = {
    **{
        op: UNARY
        for op in [
            "Celu", "Elu", "HardSigmoid", "HardSwish", "LeakyRelu", "Mish", "Relu", "Selu",
            "Shrink", "Softplus", "Softsign", "Swish", "ThresholdedRelu",
        ]
    },
    "AffineGrid": "<ir_version: 10, opset_import: [\"\" : {opset}]> g (float[2, 2, 3] theta) => (float[2, 4, 5, 2] grid) {{ size = Constant <value = int64[4] {{2, 1, 4, 5}}> ()  grid = {op}(theta, size) }}",
    **{
        op: "<ir_version: 10, opset_import: [\"\" : {opset}]> g () => (float[10] y) {{ n = Constant <value = int64 {{10}}> ()  y = {op}(n) }}"
        for op in ["BlackmanWindow", "HammingWindow", "HannWindow"]
    },
    "DynamicQuantizeLinear": "<ir_version: 10, opset_import: [\"\" : {opset}]> g (float[3, 4] x) => (uint8[3, 4] y, float s, uint8 z) {{ y, s, z = {op}(x) }}",
    **{
        op: "<ir_version: 10, opset_import: [\"\" : {opset}]> g (float[3, 4] a, float[3, 4] b) => (bool[3, 4] y) {{ y = {op}(a, b) }}"
        for op in ["GreaterOrEqual", "LessOrEqual"]
    },
    "MeanVarianceNormalization": "<ir_version: 10, opset_import: [\"\" : {opset}]> g (float[2, 3, 4, 5] x) => (float[2, 3, 4, 5] y) {{ y = {op}(x) }}",
    "PRelu": "<ir_version: 10, opset_import: [\"\" : {opset}]> g (float[3, 4] x, float[4] slope) => (float[3, 4] y) {{ y = {op}(x, slope) }}",
    **{
        op: "<ir_version: 10, opset_import: [\"\" : {opset}]> g (float[3, 4] x) => (float[3, 1] y) {{ axes = Constant <value = int64[1] {{1}}> ()  y = {op}(x, axes) }}"
        for op in ["ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"]
    },
    "SwiGLU": "<ir_version: 10, opset_import: [\"\" : {opset}]> g (float[3, 4] a, float[3, 4] b) => (float[3, 4] y) {{ y = {op}(a, b) }}",
}


def inputs_for(model: onnx.ModelProto, rng: np.random.Generator) -> dict[str, np.ndarray]:
    initializers = {t.name for t in model.graph.initializer}
    feeds = {}
    for value in model.graph.input:
        if value.name in initializers:
            continue
        tensor = value.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else DIM for d in tensor.shape.dim]
        dtype = onnx.helper.tensor_dtype_to_np_dtype(tensor.elem_type)
        if dtype == np.bool_:
            feeds[value.name] = rng.integers(0, 2, shape).astype(np.bool_)
        elif np.issubdtype(dtype, np.integer):
            feeds[value.name] = rng.integers(0, 4, shape).astype(dtype)
        else:
            feeds[value.name] = rng.standard_normal(shape).astype(dtype)
    return feeds


def run(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def inline(model: onnx.ModelProto, work: pathlib.Path, *args: str) -> onnx.ModelProto | str:
    src, dst = work / "in.onnx", work / "out.onnx"
    src.write_bytes(model.SerializeToString())
    dst.unlink(missing_ok=True)
    result = subprocess.run([str(BIN), "inline", str(src), "-o", str(dst), *args], capture_output=True, text=True)
    if result.returncode != 0:
        return result.stderr.strip()
    return onnx.ModelProto.FromString(dst.read_bytes())


def exactly_equal(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return len(a) == len(b) and all(
        x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y, equal_nan=x.dtype.kind == "f")
        for x, y in zip(a, b)
    )


def close(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return len(a) == len(b) and all(
        x.shape == y.shape and (np.allclose(x, y, rtol=1e-5, atol=1e-6, equal_nan=True) if x.dtype.kind == "f" else np.array_equal(x, y))
        for x, y in zip(a, b)
    )


def main() -> int:
    if not BIN.exists():
        subprocess.run(["cargo", "build", "-p", "onnx-text-cli"], cwd=REPO, check=True)
    rng = np.random.default_rng(SEED)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        equal = runnable = 0
        cases = inline_differential.corpus_cases() + inline_differential.generated_cases()
        for name, model, _ in cases:
            try:
                feeds = inputs_for(model, rng)
                original = run(model, feeds)
            except Exception as e:  # noqa: BLE001 (onnxruntime raises several kinds)
                print(f"{name:50} not runnable: {str(e).splitlines()[0][:70]}")
                continue
            inlined = inline(model, work)
            if isinstance(inlined, str):
                failures.append(f"{name}: inline failed: {inlined}")
                continue
            runnable += 1
            outputs = run(inlined, feeds)
            if exactly_equal(original, outputs):
                equal += 1
                print(f"{name:50} equal")
            else:
                failures.append(f"{name}: outputs differ")
        print(f"\nlocal functions: {equal} of {runnable} runnable models give equal outputs ({len(cases)} cases)\n")

        close_count = exact = 0
        for op, template in STANDARD.items():
            chosen = None
            notes = []
            newest = None
            for opset in range(onnx.defs.onnx_opset_version(), 0, -1):
                model = onnx.parser.parse_model(template.format(op=op, opset=opset))
                expand = [op]
                expanded = inline(model, work, "--expand", op)
                if isinstance(expanded, str):
                    continue  # no body at this opset
                feeds = inputs_for(model, rng)
                try:
                    kernel, by = run(model, feeds), "onnxruntime's kernel"
                except Exception:  # noqa: BLE001 (onnxruntime lacks the operator or opset)
                    kernel, by = onnx.reference.ReferenceEvaluator(model).run(None, feeds), "onnx.reference"
                newest = newest or (opset, expanded, feeds, kernel, by)
                while True:
                    assert all(n.op_type not in expand for n in expanded.graph.node)
                    onnx.checker.check_model(expanded, full_check=True)
                    try:
                        body = run(expanded, feeds)
                        break
                    except Exception as e:  # noqa: BLE001
                        message = str(e).splitlines()[0]
                        missing = re.search(r"implementation for (\w+)\(", message)
                        if missing and missing.group(1) in STANDARD and missing.group(1) not in expand:
                            # A body that calls an operator onnxruntime lacks: expand that too.
                            expand.append(missing.group(1))
                            expanded = inline(model, work, "--expand", ",".join(expand))
                            continue
                        notes.append(f"opset {opset}: {message[:100]}")
                        body = None
                        break
                if body is not None:
                    chosen = (opset, kernel, by, body, expand)
                    break
            for note in notes[:1] + (["..."] if len(notes) > 1 else []):
                print(f"{op:28} the expanded body does not run in onnxruntime at {note}")
            if chosen is None and newest is not None:
                # onnxruntime rejects the body itself: run it with onnx.reference instead.
                opset, expanded, feeds, kernel, by = newest
                body = onnx.reference.ReferenceEvaluator(expanded).run(None, feeds)
                chosen = (opset, kernel, by + " (the body run by onnx.reference)", body, [op])
            if chosen is None:
                failures.append(f"{op}: no body at any opset")
                continue
            opset, kernel, by, body, expand = chosen
            if close(kernel, body):
                close_count += 1
                same = exactly_equal(kernel, body)
                exact += same
                verdict = "bit-for-bit equal" if same else "equal within tolerance"
                also = f" (with {', '.join(expand[1:])} expanded)" if len(expand) > 1 else ""
                print(f"{op:28} opset {opset:2}  {verdict} to {by}{also}")
            else:
                failures.append(f"{op} (opset {opset}): the expanded body's outputs differ from {by}'s")
        print(f"\nstandard bodies: {close_count} of {len(STANDARD)} agree with the kernels ({exact} bit-for-bit)")
    for failure in failures:
        print("FAIL", failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
