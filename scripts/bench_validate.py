#!/usr/bin/env python3
"""Times `onnx-text check model.onnx` (the whole process, release build) against
onnx.checker.check_model(path, full_check=True) of onnx 1.23.2 (in process, the model loaded
from the same file), on a shipped model and on generated ones: a 10,000-node chain, a model
with a 64 MB initializer, and the same with its data in an external file.

Both are measured in CPU time (user + system; for ours, of the child process), the median of
the runs, as wall time varies with whatever else the machine runs.

Usage: cargo build --release -p onnx-text-cli && python3 scripts/bench_validate.py [--runs N]
"""

from __future__ import annotations

import argparse
import resource
import pathlib
import statistics
import subprocess
import tempfile

import numpy as np
import onnx
import onnx.checker
import onnx.numpy_helper
from onnx import TensorProto, helper

assert onnx.__version__ == "1.23.2", "onnx==1.23.2 is required"

REPO = pathlib.Path(__file__).resolve().parent.parent
BIN = REPO / "target" / "release" / "onnx-text"


def chain(n: int) -> onnx.ModelProto:
    nodes = [helper.make_node("Relu", [f"t{i}"], [f"t{i + 1}"]) for i in range(n)]
    x = helper.make_tensor_value_info("t0", TensorProto.FLOAT, ["N", 16])
    y = helper.make_tensor_value_info(f"t{n}", TensorProto.FLOAT, ["N", 16])
    graph = helper.make_graph(nodes, "chain", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)


def weights(elements: int) -> onnx.ModelProto:
    w = onnx.numpy_helper.from_array(np.zeros(elements, dtype=np.float32), "w")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [elements])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [elements])
    graph = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "g", [x], [y], [w])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (microsecond resolution)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def median_seconds(run, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = cpu_seconds()
        run()
        times.append(cpu_seconds() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    assert BIN.exists(), f"build {BIN} first"
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        cases = {
            "shipped densenet121": REPO / "tests/corpus/shipped/light-light_densenet121.model.source.pb",
        }
        onnx.save(chain(10_000), tmp / "chain.onnx")
        cases["10,000-node chain"] = tmp / "chain.onnx"
        onnx.save(weights(16 << 20), tmp / "weights.onnx")
        cases["64 MB initializer"] = tmp / "weights.onnx"
        (tmp / "ext").mkdir()
        onnx.save(weights(16 << 20), tmp / "ext" / "model.onnx", save_as_external_data=True, location="w.bin")
        cases["64 MB external data"] = tmp / "ext" / "model.onnx"
        print("| model | onnx check_model(full_check=True) | onnx-text check (process) | ratio |")
        print("|---|---|---|---|")
        for name, path in cases.items():
            def theirs(path=path):
                onnx.checker.check_model(str(path), full_check=True)

            def ours(path=path):
                result = subprocess.run([BIN, "check", "--quiet", path], capture_output=True)
                assert result.returncode == 0, result.stderr.decode()

            t_theirs = median_seconds(theirs, args.runs)
            t_ours = median_seconds(ours, args.runs)
            ratio = f"{t_ours / t_theirs:.2f}x" if t_theirs > 0 else "-"
            print(f"| {name} | {t_theirs * 1000:.2f} ms | {t_ours * 1000:.2f} ms | {ratio} |")


if __name__ == "__main__":
    main()
