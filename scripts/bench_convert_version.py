#!/usr/bin/env python3
"""Times `onnx-text convert IN --opset 21 -o OUT` (issue 46), as a whole process, against onnx's
`onnx.version_converter.convert_version` doing the same from Python (load, convert, save,
interpreter start-up included), side by side, on two opset-7 models from
`scripts/opset7_models.py`:

- ResNet-50 (175 nodes, 25.6 M parameters: mostly the time to read and write 100 MB);
- a 100,000-node chain of Add, Relu, Softmax, Unsqueeze and Squeeze, each of which takes a real
  version step to 21 (adapters for Softmax's axis and for `axes` becoming an input).

The runs alternate between the two sides, so that both see the same load from other jobs, and
each side keeps its best and its median. Both outputs are then checked: opset 21, and onnx's
full checker.

    pip install -r scripts/requirements.txt
    python3 scripts/bench_convert_version.py [--nodes 100000] [--runs 5] [--skip-build]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import opset7_models  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = 21
# What a Python user writes. `onnx.load`/`onnx.save` rather than the C++ binding: the issue's
# comparison is with `convert_version` as it is called.
REFERENCE = """
import sys, onnx, onnx.version_converter
model = onnx.load(sys.argv[1])
onnx.save(onnx.version_converter.convert_version(model, int(sys.argv[3])), sys.argv[2])
"""


def timed(command):
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - start


def check_output(path, side):
    model = onnx.load(path)
    versions = {o.domain: o.version for o in model.opset_import}
    assert versions.get("", versions.get("ai.onnx")) == TARGET, f"{side}: {path} imports {versions}"
    onnx.checker.check_model(model, full_check=True)
    return len(model.graph.node)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=100000)
    ap.add_argument("--runs", type=int, default=5, help="runs of each side per model")
    ap.add_argument("--skip-build", action="store_true")
    args = ap.parse_args()
    if not args.skip_build:
        subprocess.run(["cargo", "build", "--release", "-p", "onnx-text-cli"], cwd=ROOT, check=True)
    binary = os.path.join(ROOT, "target", "release", "onnx-text")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        models = opset7_models.write(tmp, args.nodes)
        script = os.path.join(tmp, "reference.py")
        with open(script, "w") as f:
            f.write(REFERENCE)
        for name, path in models.items():
            ours_out, theirs_out = os.path.join(tmp, f"{name}-ours.onnx"), os.path.join(tmp, f"{name}-theirs.onnx")
            ours_command = [binary, "convert", path, "--opset", str(TARGET), "-o", ours_out]
            theirs_command = [sys.executable, script, path, theirs_out, str(TARGET)]
            # One untimed run each: the file cache warm for both, and a refusal fails here.
            for command in (ours_command, theirs_command):
                subprocess.run(command, check=True, capture_output=True)
            ours, theirs = [], []
            for _ in range(args.runs):
                ours.append(timed(ours_command))
                theirs.append(timed(theirs_command))
            nodes = (check_output(ours_out, "onnx-text"), check_output(theirs_out, "onnx"))
            rows.append((name, ours, theirs, nodes))
    print(f"convert --opset {TARGET}, whole processes, {args.runs} alternating runs each (target <= 0.5x):")
    for name, ours, theirs, (ours_nodes, theirs_nodes) in rows:
        ob, tb = min(ours), min(theirs)
        om, tm = statistics.median(ours), statistics.median(theirs)
        print(f"  {name}: onnx-text best {ob:.3f} s, median {om:.3f} s; onnx best {tb:.3f} s, median {tm:.3f} s; "
              f"ratio best {ob / tb:.2f}x, median {om / tm:.2f}x")
        print(f"    all runs: onnx-text {' '.join(f'{t:.3f}' for t in ours)}; onnx {' '.join(f'{t:.3f}' for t in theirs)}")
        print(f"    outputs at opset {TARGET}, both pass onnx's full checker: "
              f"{ours_nodes} nodes (onnx-text), {theirs_nodes} nodes (onnx)")


if __name__ == "__main__":
    main()
