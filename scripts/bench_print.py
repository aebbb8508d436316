#!/usr/bin/env python3
"""Benchmark onnx_text::to_text against onnx.printer.to_text on the same models.

Models: the shipped "light" models of the onnx wheel (from tests/corpus/shipped/), the
float-heavy printer/floats model, and a generated node-heavy model (10,000 nodes with
attributes and names that need quotes). For each, the best time of one print is taken
on both sides (Rust: `cargo bench -p onnx-syntax --bench print`, which builds with
optimizations; Python: timeit, best of several rounds of onnx.printer.to_text, which
includes the binding's serialization of the proto, as every caller pays it).

Usage:
    pip install -r scripts/requirements.txt
    python3 scripts/bench_print.py
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import tempfile
import timeit

import onnx
import onnx.printer
from onnx import TensorProto, helper

REPO = pathlib.Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "corpus"


def node_heavy_model(n: int = 10_000) -> onnx.ModelProto:
    nodes = []
    prev = "input/x"
    for i in range(n):
        out = f"layer_{i}/out"
        if i % 3 == 0:
            nodes.append(helper.make_node("Conv", [prev, f"w{i}"], [out], name=f"conv_{i}",
                                          kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1]))
        elif i % 3 == 1:
            nodes.append(helper.make_node("LeakyRelu", [prev], [out], alpha=0.01))
        else:
            nodes.append(helper.make_node("Add", [prev, f"b{i}"], [out]))
        prev = out
    graph = helper.make_graph(
        nodes, "node_heavy",
        [helper.make_tensor_value_info("input/x", TensorProto.FLOAT, ["N", 3, 224, 224])],
        [helper.make_tensor_value_info(prev, TensorProto.FLOAT, ["N", 3, 224, 224])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


def reference_time(path: pathlib.Path) -> tuple[int, float]:
    model = onnx.ModelProto()
    model.ParseFromString(path.read_bytes())
    text = onnx.printer.to_text(model)
    number = max(1, int(0.05 / max(timeit.timeit(lambda: onnx.printer.to_text(model), number=1), 1e-7)))
    best = min(timeit.repeat(lambda: onnx.printer.to_text(model), number=number, repeat=7)) / number
    return len(text.encode("utf-8")), best


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        synthetic = pathlib.Path(tmp) / "node_heavy_10000.onnx"
        synthetic.write_bytes(node_heavy_model().SerializeToString())
        models = sorted((CORPUS / "shipped").glob("light-*.model.source.pb"))
        models += [CORPUS / "printer" / "floats.model.source.pb", synthetic]
        run = subprocess.run(
            ["cargo", "bench", "--quiet", "-p", "onnx-syntax", "--bench", "print", "--",
             *map(str, models)],
            cwd=REPO, capture_output=True, text=True, check=True,
        )
        ours = {}
        for line in run.stdout.splitlines():
            path, length, nanos = line.rsplit(" ", 2)
            ours[path] = (int(length), int(nanos) / 1e9)
        print(f"{'model':<34} {'text KB':>8} {'onnx.printer':>13} {'to_text':>10} {'ratio':>7}")
        for path in models:
            length, theirs = reference_time(path)
            our_length, our_time = ours[str(path)]
            name = path.name.replace(".model.source.pb", "").replace(".onnx", "")
            flag = "" if our_length == length else " (text differs: lossless style)"
            print(f"{name:<34} {length / 1000:>8.1f} {theirs * 1e3:>10.3f} ms {our_time * 1e3:>7.3f} ms"
                  f" {theirs / our_time:>6.1f}x{flag}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
