#!/usr/bin/env python3
"""Data integrity of the conformance kit (not run in CI): runs every case's model in
onnxruntime on the kit's inputs, and compares with the kit's expected outputs; then runs
onnx's own model bytes (rebuilt in memory, as scripts/gen_conformance.py builds them) the same
way, and says whether the two models give the same answer.

The kit's model is its text turned into bytes by this repository's CLI (`onnx-text convert`),
so the check covers the text, the parser and the tensors together. Outputs are compared as
onnx's runner compares them (numpy's assert_allclose with the case's rtol and atol, rtol at
least 2^-6 for bfloat16, exact for strings).

Run: python3 scripts/conformance_onnxruntime.py [--filter SUBSTRING] [--verbose]
Needs onnx==1.23.2, onnxruntime and numpy; builds the CLI if needed.
"""

from __future__ import annotations

import argparse
import collections
import pathlib
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime
from onnx import numpy_helper

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import gen_conformance  # noqa: E402

DATA = gen_conformance.DATA
CLI = gen_conformance.CLI


def read_value(path: pathlib.Path, type_proto: onnx.TypeProto):
    data = path.read_bytes()
    if type_proto.HasField("sequence_type"):
        return numpy_helper.to_list(onnx.SequenceProto.FromString(data))
    if type_proto.HasField("optional_type"):
        return numpy_helper.to_optional(onnx.OptionalProto.FromString(data))
    if type_proto.HasField("map_type"):
        return numpy_helper.to_dict(onnx.MapProto.FromString(data))
    return numpy_helper.to_array(onnx.TensorProto.FromString(data))


def similar(expected, actual, rtol: float, atol: float) -> str | None:
    """None when actual matches expected as onnx's runner judges it, else why not."""
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return f"expected a sequence of {len(expected)}, got {type(actual).__name__}"
        for e, a in zip(expected, actual, strict=True):
            if why := similar(e, a, rtol, atol):
                return why
        return None
    if expected is None or actual is None:
        return None if expected is None and actual is None else "optional presence differs"
    actual = np.asarray(actual)
    if actual.dtype == np.uint8 and expected.dtype.kind == "V" and expected.dtype.itemsize == 1:
        # onnxruntime hands float8 outputs back as their uint8 codes.
        actual = actual.view(expected.dtype)
    if actual.shape != expected.shape:
        return f"shape {actual.shape} != {expected.shape}"
    if expected.dtype == object:
        return None if np.array_equal(actual, expected) else "strings differ"
    if actual.dtype != expected.dtype:
        return f"dtype {actual.dtype} != {expected.dtype}"
    if expected.dtype.name == "bfloat16":
        rtol = max(rtol, 2**-6)
    # kind "V": the ml_dtypes types (bfloat16, float8, float4, int4, ...), compared as floats.
    if expected.dtype.kind in "fcV":
        wide = np.complex128 if expected.dtype.kind == "c" else np.float64
        try:
            np.testing.assert_allclose(
                actual.astype(np.float32).astype(wide) if expected.dtype.kind == "V" else actual.astype(wide),
                expected.astype(np.float32).astype(wide) if expected.dtype.kind == "V" else expected.astype(wide),
                rtol=rtol,
                atol=atol,
            )
        except AssertionError as e:
            return " ".join(str(e).split())[:200]
        return None
    return None if np.array_equal(actual, expected) else "values differ"


def run(model_bytes: bytes, feeds: dict):
    """The outputs, or the error's first line."""
    try:
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 4
        session = onnxruntime.InferenceSession(model_bytes, options, providers=["CPUExecutionProvider"])
        return session.run(None, feeds), None
    except Exception as e:  # noqa: BLE001 - onnxruntime raises many kinds
        return None, (str(e).strip().splitlines() or [type(e).__name__])[0][:200]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--filter", default="")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    if not CLI.exists():
        subprocess.run(["cargo", "build", "-p", "onnx-text-cli"], cwd=gen_conformance.REPO, check=True)
    manifest = [line.split("\t") for line in (DATA / "manifest.tsv").read_text().splitlines()[1:]]
    onnx_models = {c.name: c.model for c in gen_conformance.load_cases()}
    counts = collections.Counter()
    disagreements = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, *_rest, rtol, atol, n_in, n_out, _constant in (
            [row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8]] for row in manifest
        ):
            if args.filter not in name:
                continue
            folder = DATA / name
            binary = pathlib.Path(tmp) / f"{name}.onnx"
            subprocess.run([CLI, "convert", folder / "model.onnxtxt", "-o", binary], check=True)
            ours = binary.read_bytes()
            model = onnx.ModelProto.FromString(ours)
            graph = model.graph
            feeds = {
                info.name: read_value(folder / f"input_{i}.pb", info.type)
                for i, info in enumerate(graph.input[: int(n_in)])
            }
            expected = [
                read_value(folder / f"output_{i}.pb", info.type)
                for i, info in enumerate(graph.output[: int(n_out)])
            ]
            counts["cases"] += 1
            outputs, error = run(ours, feeds)
            if error is not None:
                counts["onnxruntime cannot run the kit's model"] += 1
                verdict = f"error: {error}"
            else:
                why = next(
                    (w for e, a in zip(expected, outputs, strict=False) if (w := similar(e, a, float(rtol), float(atol)))),
                    None,
                )
                if len(outputs) != len(expected):
                    why = f"{len(outputs)} outputs, expected {len(expected)}"
                counts["agrees with the kit's outputs" if why is None else "differs from the kit's outputs"] += 1
                verdict = "agrees" if why is None else f"differs: {why}"
            theirs, their_error = run(onnx_models[name].SerializeToString(), feeds)
            same = (
                error is not None and their_error is not None
                or error is None
                and their_error is None
                and len(theirs) == len(outputs)
                and all(similar(t, o, 0.0, 0.0) is None for t, o in zip(theirs, outputs, strict=True))
            )
            counts["onnx's model.onnx gives the same answer" if same else "onnx's model.onnx answers differently"] += 1
            if not same:
                disagreements.append(f"{name}: ours {verdict}; onnx's {their_error or 'runs'}")
            if args.verbose or verdict != "agrees":
                print(f"{name}: {verdict}")
    print()
    for key, value in counts.items():
        print(f"{key}: {value}")
    for line in disagreements:
        print(f"  {line}")


if __name__ == "__main__":
    main()
