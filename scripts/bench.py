#!/usr/bin/env python3
"""Benchmarks side by side with the reference (onnx 1.23.2), in one run, as ratios.

Runs our benchmarks (`cargo bench`: benches/parse.rs, print.rs, materialize.rs, memory.rs;
parse and print write the inputs they use to the inputs folder), then times onnx on the very same inputs
in this process, then builds a crate holding an `onnx!` literal against one embedding the
bytes (scripts/bench_macro_build.py). Prints one markdown table, as docs/performance.md holds.

Times are medians of many calls on both sides. The reference's parser is timed through its
C++ binding (`onnx.onnx_cpp2py_export.parser.parse_model`: the C++ parse and serialization,
without building a Python object), which is the strictest comparison; its printer through
`onnx.printer.to_text`, as a Python user calls it.

Usage:
    pip install -r scripts/requirements.txt
    python3 scripts/bench.py [--build-nodes 1000 10000] [--build-runs 3] [--skip-build]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import statistics
import subprocess
import sys
import time

import onnx
import onnx.printer
from onnx.onnx_cpp2py_export import parser as cpp_parser

REPO = pathlib.Path(__file__).resolve().parent.parent
INPUTS = REPO / "target" / "bench-inputs"
UNITS = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def run_cargo_benches() -> tuple[dict[str, float], list[str]]:
    """Our medians in seconds, by divan path (`parse/parse_model_chain/1000`), and the
    memory bench's lines."""
    env = dict(os.environ, ONNX_TEXT_BENCH_INPUTS=str(INPUTS))
    out = subprocess.run(
        ["cargo", "bench", "--quiet", "--bench", "parse", "--bench", "print",
         "--bench", "materialize", "--bench", "memory"],
        cwd=REPO, env=env, check=True, capture_output=True, text=True,
    ).stdout
    medians: dict[str, float] = {}
    memory: list[str] = []
    path: list[str] = []
    for line in out.splitlines():
        if line.startswith("memory "):
            memory.append(line)
            continue
        # divan's tree: a root line per bench binary, then `├─ name  fastest │ slowest │ median …`
        # with three characters of indent per level.
        root = re.match(r"^(\w+)\s+fastest", line)
        if root:
            path = [root.group(1)]
            continue
        row = re.match(r"^((?:[│ ]  )*)[├╰]─ (\S+)\s*(.*)$", line)
        if not row or not path:
            continue
        depth = len(row.group(1)) // 3 + 1
        path = path[:depth] + [row.group(2)]
        columns = [c.strip() for c in row.group(3).split("│")]
        if len(columns) >= 3 and columns[2]:
            value, unit = columns[2].split()
            medians["/".join(path)] = float(value) * UNITS[unit]
    return medians, memory


def median_time(call, budget: float = 0.5, max_calls: int = 1000) -> float:
    times = []
    start = time.perf_counter()
    while len(times) < max_calls and (time.perf_counter() - start < budget or len(times) < 5):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def reference_parse(text: str) -> None:
    ok, message, _ = cpp_parser.parse_model(text)
    if not ok:
        raise SystemExit(f"the reference rejects a benchmark input: {message}")


def reference_memory(path: pathlib.Path) -> int:
    """Peak resident memory the reference adds while parsing the text at `path` (bytes): a
    fresh process reads the text, resets its peak RSS (Linux: `5` to /proc/self/clear_refs),
    parses, and reads the new peak (VmHWM) less the resident size before the parse."""
    code = (
        "import sys\n"
        "from onnx.onnx_cpp2py_export import parser\n"
        "def status(key):\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith(key + ':'):\n"
        "            return int(line.split()[1]) * 1024\n"
        "text = open(sys.argv[1]).read()\n"
        "open('/proc/self/clear_refs', 'w').write('5')\n"
        "before = status('VmRSS')\n"
        "ok, _, data = parser.parse_model(text)\n"
        "print(status('VmHWM') - before)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(path)], check=True,
                         capture_output=True, text=True).stdout
    return int(out)


def row(what: str, ours: float, theirs: float | None, target: str = "") -> str:
    if theirs is None:
        return f"| {what} | {fmt(ours)} | | | {target} |"
    return f"| {what} | {fmt(ours)} | {fmt(theirs)} | {theirs / ours:.1f}x | {target} |"


def fmt(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def main() -> int:
    args_parser = argparse.ArgumentParser()
    args_parser.add_argument("--build-nodes", type=int, nargs="*", default=[1000, 10000])
    args_parser.add_argument("--build-runs", type=int, default=3)
    args_parser.add_argument("--skip-build", action="store_true")
    args = args_parser.parse_args()

    ours, memory = run_cargo_benches()
    lines = ["| benchmark | onnx-text | onnx 1.23.2 | speed-up | target |", "|---|---|---|---|---|"]

    # Parsing.
    reference_chain = {}
    for nodes in (1000, 10000, 100000):
        text = (INPUTS / f"chain_{nodes}.onnxtxt").read_text()
        reference_chain[nodes] = median_time(lambda: reference_parse(text))
        lines.append(row(f"parse_model, {nodes}-node chain", ours[f"parse/parse_model_chain/{nodes}"],
                         reference_chain[nodes], ">= 10x"))
    # The chain with two attributes per node (issue 19): the parse, its floor, and their ratio,
    # the figure that shows a regression of the parser against what its output costs.
    text = (INPUTS / "chain_attributes_100000.onnxtxt").read_text()
    theirs = median_time(lambda: reference_parse(text), budget=3)
    parse, floor = (ours["parse/parse_model_chain_attributes"],
                    ours["parse/clone_model_chain_attributes"])
    lines.append(row("parse_model, 100000-node chain, two attributes a node", parse, theirs, ">= 10x"))
    lines.append(row("floor: clone + drop of that chain's ModelProto", floor, theirs,
                     "best possible parse speed-up"))
    lines.append(f"| parse over floor, that chain | {parse / floor:.2f}x | | | <= 1.3x |")
    corpus = [(REPO / p).read_text() for p in (INPUTS / "corpus.txt").read_text().split()]
    theirs = median_time(lambda: [reference_parse(t) for t in corpus], budget=3, max_calls=50)
    lines.append(row(f"parse_model, whole corpus ({len(corpus)} models)",
                     ours["parse/parse_model_corpus"], theirs, ">= 10x"))
    text = (INPUTS / "float_initializer_9mb.onnxtxt").read_text()
    theirs = median_time(lambda: reference_parse(text), budget=2)
    lines.append(row("parse_model, 9 MB float initializer",
                     ours["parse/parse_model_float_initializer_9mb"], theirs, ">= 10x"))
    for nodes in (1000, 10000, 100000):
        lines.append(row(f"check_model (parse + checks), {nodes}-node chain",
                         ours[f"parse/check_model_chain/{nodes}"], None))
    # The floor of any parser returning prost types: allocating, filling and freeing the output.
    for nodes in (1000, 10000, 100000):
        lines.append(row(f"floor: clone + drop of the {nodes}-node chain's ModelProto",
                         ours[f"parse/clone_model_chain/{nodes}"], reference_chain[nodes],
                         "best possible parse speed-up"))

    # Printing.
    def printed(model: onnx.ModelProto, budget: float = 0.5) -> float:
        return median_time(lambda: onnx.printer.to_text(model), budget=budget)

    model = onnx.parser.parse_model((INPUTS / "chain_10000.onnxtxt").read_text())
    lines.append(row("to_text, 10000-node chain", ours["print/to_text_chain_10000"],
                     printed(model), ">= 10x"))
    model = onnx.parser.parse_model((INPUTS / "float_initializer_9mb.onnxtxt").read_text())
    lines.append(row("to_text, 9 MB float initializer", ours["print/to_text_float_initializer_9mb"],
                     printed(model, budget=2), ">= 10x"))
    for key in sorted(k for k in ours if k.startswith("print/to_text_shipped/")):
        name = key.rsplit("/", 1)[1]
        model = onnx.ModelProto()
        model.ParseFromString((REPO / "tests/corpus/shipped" / f"light-{name}.model.source.pb").read_bytes())
        lines.append(row(f"to_text, shipped {name}", ours[key], printed(model), ">= 10x"))

    # Materialization: both sides are ours.
    literal, decode = ours["materialize/literal"], ours["materialize/decode"]
    lines.append(f"| ModelProto from a literal (DenseNet-121) vs prost decode of the same bytes | "
                 f"{fmt(literal)} | {fmt(decode)} (decode) | {literal / decode:.2f}x the decode | <= 1.2x |")

    # Memory.
    for line in memory:
        _, name, peak, protobuf, text_len = line.split()
        peak, protobuf = int(peak), int(protobuf)
        extra = ""
        if name == "chain_100000":
            theirs = reference_memory(INPUTS / f"{name}.onnxtxt")
            extra = f" (reference: peak RSS grows {theirs / 1e6:.0f} MB, {theirs / protobuf:.1f}x)"
        lines.append(f"| peak heap of parse_model, {name} | {peak / 1e6:.1f} MB = "
                     f"{peak / protobuf:.1f}x the {protobuf / 1e6:.2f} MB protobuf{extra} | | | |")

    print("\n".join(lines))
    sys.stdout.flush()

    if not args.skip_build:
        sys.path.insert(0, str(REPO / "scripts"))
        import bench_macro_build
        print()
        print("| cargo build, N-node onnx! literal | onnx! | include_bytes! + decode | ratio | target |")
        print("|---|---|---|---|---|")
        for nodes in args.build_nodes:
            result = bench_macro_build.measure(nodes, args.build_runs)
            print(f"| {nodes} nodes | {result['onnx!']:.2f} s | {result['include_bytes!']:.2f} s | "
                  f"{result['onnx!'] / result['include_bytes!']:.2f}x | <= 1.5x |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
