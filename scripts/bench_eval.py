#!/usr/bin/env python3
"""The evaluator (onnx-eval) side by side with the reference, in one run, reported as ratios.

    python3 scripts/bench_eval.py --kit       # onnx-eval vs onnx.reference on the kit's 1,884 cases
    python3 scripts/bench_eval.py --resnet    # onnx-eval vs onnxruntime (one intra-op thread) on ResNet-50
    python3 scripts/bench_eval.py --trees     # onnx-eval vs onnxruntime (one thread) on tree ensembles
    python3 scripts/bench_eval.py             # all three

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
evaluator through `--example time_model` (the model resolved by `Evaluator::new` outside the
clock, as onnxruntime's session is made outside it); each side's median over --runs runs after
one untimed warm-up run, and the evaluator's output compared with onnxruntime's (rtol 1e-3, atol 1e-5, onnx's runner's
tolerance for model tests).

--trees: a 100-tree random forest (scikit-learn, 3 classes, depth 10, through skl2onnx) and a
100-round boosted model (XGBoost regressor, depth 6, through onnxmltools), each on 600 rows of 20
seeded features; onnxruntime with one thread against `--example time_model`, medians over --runs
runs after one untimed warm-up run each (the evaluator builds a node's forest on its first run and
keeps it, as onnxruntime builds it when the session is made), outputs compared (rtol 1e-3, atol 1e-5).

Needs: onnx==1.23.2, numpy, onnxruntime (pip); --trees also scripts/requirements-ml.txt.
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
        line = cargo_example("time_model", model_path, str(runs), input_path, "-o", out_dir).strip()
        ours = float(line.split("median ")[1].split(" s")[0])
        print(f"onnx-eval:              {line}")
        output = onnx.TensorProto()
        with open(os.path.join(out_dir, "output_0.pb"), "rb") as f:
            output.ParseFromString(f.read())
        got = numpy_helper.to_array(output)
        np.testing.assert_allclose(reference, got, rtol=1e-3, atol=1e-5)
        print(f"outputs agree (rtol 1e-3, atol 1e-5); max abs difference {np.max(np.abs(reference - got)):.3g}")
        print(f"ratio onnx-eval / onnxruntime: {ours / ort:.2f}")


def time_both(name, model, x, runs):
    """Median seconds of one run in onnxruntime (one thread) and in onnx-eval, outputs compared."""
    import onnx
    import onnxruntime
    from onnx import numpy_helper

    with tempfile.TemporaryDirectory() as tmp:
        model_path = os.path.join(tmp, "model.onnx")
        onnx.save(model, model_path)
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
            reference = session.run(None, {input_name: x})
            times.append(time.perf_counter() - start)
        ort = statistics.median(times)
        out_dir = os.path.join(tmp, "out")
        line = cargo_example("time_model", model_path, str(runs), input_path, "-o", out_dir).strip()
        ours = float(line.split("median ")[1].split(" s")[0])
        for i, expected in enumerate(reference):
            output = onnx.TensorProto()
            with open(os.path.join(out_dir, f"output_{i}.pb"), "rb") as f:
                output.ParseFromString(f.read())
            got = numpy_helper.to_array(output)
            if got.dtype.kind == "f":
                np.testing.assert_allclose(expected, got, rtol=1e-3, atol=1e-5)
            else:
                np.testing.assert_array_equal(expected, got)
        print(f"{name}: onnxruntime (1 thread) median {ort * 1e3:.2f} ms, onnx-eval {ours * 1e3:.2f} ms "
              f"over {runs} runs; outputs agree; ratio onnx-eval / onnxruntime: {ours / ort:.2f}")


def bench_trees(runs):
    import xgboost
    from onnxmltools import convert_xgboost
    from onnxmltools.convert.common.data_types import FloatTensorType as XgbFloat
    from skl2onnx import to_onnx
    from sklearn.datasets import make_classification, make_regression
    from sklearn.ensemble import RandomForestClassifier

    x, y = make_classification(n_samples=600, n_features=20, n_informative=10, n_classes=3, random_state=0)
    x = x.astype(np.float32)
    forest = RandomForestClassifier(n_estimators=100, max_depth=10, random_state=0).fit(x, y)
    model = to_onnx(forest, x[:1], options={id(forest): {"zipmap": False}},
                    target_opset={"": 17, "ai.onnx.ml": 3})
    time_both("random forest, 100 trees", model, x, runs)

    xr, yr = make_regression(n_samples=600, n_features=20, random_state=0)
    xr = xr.astype(np.float32)
    boosted = xgboost.XGBRegressor(n_estimators=100, max_depth=6, random_state=0).fit(xr, yr)
    model = convert_xgboost(boosted, initial_types=[("X", XgbFloat([None, 20]))], target_opset=15)
    time_both("XGBoost, 100 rounds", model, xr, runs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kit", action="store_true")
    parser.add_argument("--resnet", action="store_true")
    parser.add_argument("--trees", action="store_true")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    both = not (args.kit or args.resnet or args.trees)
    if args.kit or both:
        bench_kit()
    if args.resnet or both:
        bench_resnet(args.runs)
    if args.trees or both:
        bench_trees(max(args.runs, 20))


if __name__ == "__main__":
    main()
