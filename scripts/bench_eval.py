#!/usr/bin/env python3
"""The evaluator (onnx-eval) side by side with the reference, in one run, reported as ratios.

    python3 scripts/bench_eval.py --kit       # onnx-eval vs onnx.reference on the kit's 1,884 cases
    python3 scripts/bench_eval.py --resnet    # onnx-eval vs onnxruntime (one intra-op thread) on ResNet-50
    python3 scripts/bench_eval.py             # both

--kit: onnx's side builds the node cases as its runner does
(`onnx.backend.test.loader.load_model_tests(kind="node")`, numpy seeded as gen_conformance.py
seeds it) and runs each with `onnx.reference.ReferenceEvaluator`, counting the CPU time of the
runs alone (wall time of one thread, `time.perf_counter`, loading and comparing outside the
clock) and the cases whose
outputs pass onnx's runner's own comparison (`Runner.assert_similar_outputs`, with the case's
tolerances), inputs normalized as its runner does. The Rust side is
`cargo run --release -p onnx-eval --example kit_time`, which clocks the evaluations the same way.

--resnet: scripts/resnet50.py builds the model (weights inside); one random input, seeded.
onnxruntime runs it with intra_op_num_threads=1 and inter_op_num_threads=1 (sequential), the
evaluator through `--example time_model`; each side's median over --runs runs after a warm-up,
and the evaluator's output compared with onnxruntime's (rtol 1e-3, atol 1e-5, onnx's runner's
tolerance for model tests).

Needs: onnx==1.23.2, numpy, onnxruntime (pip).
"""
import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cargo_example(name, *args):
    command = ["cargo", "run", "--quiet", "--release", "-p", "onnx-eval", "--example", name, "--", *args]
    return subprocess.run(command, cwd=ROOT, check=True, capture_output=True, text=True).stdout


def bench_kit():
    import onnx
    from onnx import numpy_helper
    from onnx.backend.test.loader import load_model_tests
    from onnx.backend.test.runner import Runner, _normalize_tensor
    from onnx.reference import ReferenceEvaluator

    random.seed(0)
    np.random.seed(0)
    cases = load_model_tests(kind="node")
    passed = 0
    seconds = 0.0
    for case in cases:
        model = onnx.load(os.path.join(case.model_dir, "model.onnx")) if case.model is None else case.model
        data_sets = case.data_sets
        if not data_sets:
            continue
        inputs, expected = data_sets[0]
        inputs = [_normalize_tensor(item) for item in inputs]
        expected = [_normalize_tensor(item) for item in expected]
        start = time.perf_counter()
        try:
            session = ReferenceEvaluator(model)
            feeds = {i.name: v for i, v in zip(model.graph.input, inputs)}
            outputs = session.run(None, feeds)
        except Exception:
            seconds += time.perf_counter() - start
            continue
        seconds += time.perf_counter() - start
        try:
            Runner.assert_similar_outputs(expected, outputs, rtol=case.rtol, atol=case.atol)
            passed += 1
        except Exception:
            pass
    print(f"onnx.reference: {passed} of {len(cases)} cases pass; evaluation took {seconds:.3f} s")
    line = cargo_example("kit_time").strip()
    print(f"onnx-eval:      {line}")
    ours = float(line.split("took ")[1].split(" s")[0])
    print(f"ratio onnx-eval / onnx.reference: {ours / seconds:.3f}")


def bench_resnet(runs):
    import onnx
    import onnxruntime
    from onnx import numpy_helper

    with tempfile.TemporaryDirectory() as tmp:
        model_path = os.path.join(tmp, "resnet50.onnx")
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "resnet50.py"), model_path], check=True)
        x = np.random.default_rng(0).standard_normal((1, 3, 224, 224)).astype(np.float32)
        model = onnx.load(model_path)
        input_name = model.graph.input[0].name
        input_path = os.path.join(tmp, "input_0.pb")
        with open(input_path, "wb") as f:
            f.write(numpy_helper.from_array(x, input_name).SerializeToString())

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
        session = onnxruntime.InferenceSession(model_path, options, providers=["CPUExecutionProvider"])
        session.run(None, {input_name: x})
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            (reference,) = session.run(None, {input_name: x})
            times.append(time.perf_counter() - start)
        ort = statistics.median(times)
        print(f"onnxruntime (1 thread): median {ort:.4f} s over {runs} runs")

        out_dir = os.path.join(tmp, "out")
        line = cargo_example("time_model", model_path, str(runs + 1), input_path, "-o", out_dir).strip()
        ours = float(line.split("median ")[1].split(" s")[0])
        print(f"onnx-eval:              {line}")
        output = onnx.TensorProto()
        with open(os.path.join(out_dir, "output_0.pb"), "rb") as f:
            output.ParseFromString(f.read())
        got = numpy_helper.to_array(output)
        np.testing.assert_allclose(reference, got, rtol=1e-3, atol=1e-5)
        print(f"outputs agree (rtol 1e-3, atol 1e-5); max abs difference {np.max(np.abs(reference - got)):.3g}")
        print(f"ratio onnx-eval / onnxruntime: {ours / ort:.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kit", action="store_true")
    parser.add_argument("--resnet", action="store_true")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    both = not (args.kit or args.resnet)
    if args.kit or both:
        bench_kit()
    if args.resnet or both:
        bench_resnet(args.runs)


if __name__ == "__main__":
    main()
