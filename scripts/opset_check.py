#!/usr/bin/env python3
"""The models that `#![attach]` and `#![inline]` build at compile time (examples/acme-user, which
calls the functions of the example opset crate examples/acme-ops) under onnx and onnxruntime:

- every `#![attach]` model passes `onnx.checker.check_model(full_check=True)`, which also runs
  strict shape inference through the attached functions, and every `#![inline]` model too;
- onnxruntime runs each attached model as it is (model-local functions), and its inlined twin on
  the same random inputs: the outputs must agree (to 1e-6 relative: inlining changes no
  operation, but onnxruntime may fuse differently with and without functions).

Run: python3 scripts/opset_check.py   (needs cargo, onnx==1.23.2 and onnxruntime)
Prints one line per model and a summary; exits 1 on any failure.
"""
import pathlib
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "target" / "acme-user"
# Each `#![attach]` model of acme-user with its `#![inline]` twin.
PAIRS = [("attached", "inlined"), ("layered", "layered_inlined")]


def inputs_for(model, rng):
    """Random float inputs for the model's graph inputs, symbolic dims taken as 3."""
    feeds = {}
    for info in model.graph.input:
        dims = [d.dim_value if d.HasField("dim_value") else 3 for d in info.type.tensor_type.shape.dim]
        feeds[info.name] = rng.standard_normal(dims).astype(np.float32)
    return feeds


def run(path, feeds):
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def main():
    subprocess.run(["cargo", "run", "--quiet", "-p", "acme-user", "--", str(OUT)], cwd=ROOT, check=True)
    failures = 0
    rng = np.random.default_rng(20)
    for attached_name, inlined_name in PAIRS:
        attached_path, inlined_path = OUT / f"{attached_name}.onnx", OUT / f"{inlined_name}.onnx"
        attached, inlined = onnx.load(attached_path), onnx.load(inlined_path)
        for name, model in [(attached_name, attached), (inlined_name, inlined)]:
            try:
                onnx.checker.check_model(model, full_check=True)
                print(f"{name}: check_model(full_check=True) passes ({len(model.functions)} functions, "
                      f"{len(model.graph.node)} nodes)")
            except Exception as e:  # the checker raises several exception types
                failures += 1
                print(f"{name}: check_model fails: {e}")
        assert not inlined.functions, f"{inlined_name} still has functions"
        feeds = inputs_for(attached, rng)
        ours, theirs = run(attached_path, feeds), run(inlined_path, feeds)
        same = all(np.allclose(a, b, rtol=1e-6, atol=0) for a, b in zip(ours, theirs))
        exact = all(np.array_equal(a, b) for a, b in zip(ours, theirs))
        if not same:
            failures += 1
        verdict = "bit-for-bit equal" if exact else "equal to 1e-6" if same else "DIFFERENT"
        print(f"{attached_name} vs {inlined_name} in onnxruntime {onnxruntime.__version__}: "
              f"{verdict} outputs, shapes {[o.shape for o in ours]}")
    print(f"{len(PAIRS) * 2} models, {failures} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
