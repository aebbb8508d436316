#!/usr/bin/env python3
"""Times `onnx-text convert` of a node-heavy text to binary, as a whole process, against the
reference doing the same from Python (`onnx.parser.parse_model` + `SerializeToString`, written
to a file), side by side, best of N each. Checks that both write the same bytes.

    pip install -r scripts/requirements.txt
    python3 scripts/bench_convert.py [--nodes 100000] [--runs 5]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REFERENCE = """
import sys, onnx.parser
text = open(sys.argv[1]).read()
open(sys.argv[2], "wb").write(onnx.parser.parse_model(text).SerializeToString())
"""


def chain(nodes):
    lines = ['<ir_version: 10, opset_import: ["" : 21]>', f"g (float[N] x0, float[N] b) => (float[N] x{nodes}) {{"]
    lines += [f'  x{i + 1} = Add <alpha = 1, tag = "t"> (x{i}, b)' for i in range(nodes)]
    return "\n".join(lines + ["}"]) + "\n"


def best(command, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=100000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    subprocess.run(["cargo", "build", "--release", "-p", "onnx-text-cli"], cwd=ROOT, check=True)
    binary = os.path.join(ROOT, "target", "release", "onnx-text")
    with tempfile.TemporaryDirectory() as tmp:
        text = os.path.join(tmp, "chain.onnxtxt")
        with open(text, "w") as f:
            f.write(chain(args.nodes))
        ours, theirs = os.path.join(tmp, "ours.onnx"), os.path.join(tmp, "theirs.onnx")
        script = os.path.join(tmp, "reference.py")
        with open(script, "w") as f:
            f.write(REFERENCE)
        # Alternate, so that both see the same load.
        ours_best, theirs_best = [], []
        for _ in range(3):
            # --unchecked: the reference's parser runs no checks either (convert checks by default).
            ours_best.append(best([binary, "convert", "--unchecked", text, "-o", ours], args.runs))
            theirs_best.append(best([sys.executable, script, text, theirs], args.runs))
        with open(ours, "rb") as a, open(theirs, "rb") as b:
            assert a.read() == b.read(), "the two conversions differ"
    o, t = min(ours_best), min(theirs_best)
    print(f"convert of a {args.nodes}-node chain: onnx-text {o:.3f} s, onnx from Python {t:.3f} s: "
          f"{o / t:.2f}x (target <= 0.35x); same bytes")


if __name__ == "__main__":
    main()
