#!/usr/bin/env python3
"""Run cases of the conformance kit's older releases in onnx's ReferenceEvaluator and in
onnxruntime, and compare each with the case's expected outputs and with the newest release
that holds a case of the same name: the evidence behind docs/divergences.md's rows on cases
whose data is wrong by its own spec.

    python3 scripts/check_release_cases.py 1.18.0::test_attention_3d 1.7.0::test_momentum

Reads the kit's committed data (onnx-conformance/src/releases/catalog.rs and the data crates
onnx-conformance-releases-{node,model}); needs onnx, onnxruntime and numpy. Comparison as the
kit's: rtol 1e-3, atol 1e-7, NaN equal to NaN, exact for integers.
"""
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import onnx
import onnx.parser
from onnx import numpy_helper

ROOT = Path(__file__).resolve().parent.parent
warnings.filterwarnings("ignore")


def catalog():
    """{release: {case name: case}} from catalog.rs."""
    text = (ROOT / "onnx-conformance/src/releases/catalog.rs").read_text()
    consts = {}
    for module in re.finditer(r"mod (r[0-9a-f]+) \{(.*?)\n\}", text, re.S):
        for c in re.finditer(
            r"pub\(crate\) const (C_\w+): Case = Case \{(.*?)\n    \};", module.group(2), re.S
        ):
            body = c.group(2)
            files = lambda field: re.findall(  # noqa: E731
                r"&(\w+)::B_(\w+)", re.search(field + r": &\[(.*?)\]", body, re.S).group(1)
            )
            consts[(module.group(1), c.group(1))] = {
                "name": re.search(r'name: "([^"]+)"', body).group(1),
                "text": re.search(r"text: super::text\(&(\w+)::T_(\w+)\)", body).groups(),
                "inputs": files("inputs"),
                "outputs": files("outputs"),
                "opset": int(re.search(r"opset_version: (\d+)", body).group(1)),
            }
    releases = {}
    for m in re.finditer(
        r"pub\(crate\) static RELEASE_(\w+): \[crate::Case; \d+\] = \[(.*?)\];", text, re.S
    ):
        cases = re.findall(r"(r[0-9a-f]+)::(C_\w+)", m.group(2))
        releases[m.group(1).replace("_", ".")] = {
            consts[key]["name"]: consts[key] for key in cases
        }
    return releases


def data_path(crate, digest, folder, suffix):
    kind = "model" if crate == "model" else "node"
    return ROOT / f"onnx-conformance-releases-{kind}/{folder}/{digest.lower()}{suffix}"


def load(crate, digest):
    data = data_path(crate, digest, "data", ".pb").read_bytes()
    tensor = onnx.TensorProto()
    tensor.ParseFromString(data)
    return numpy_helper.to_array(tensor)


def case(releases, version, name):
    c = releases[version][name]
    text = data_path(*c["text"], "models", ".onnxtxt").read_text()
    return (
        text,
        [load(*i) for i in c["inputs"]],
        [load(*o) for o in c["outputs"]],
    )


def compare(got, want):
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return f"shape {got.shape} vs {want.shape}"
    if got.dtype.kind in "fc" or want.dtype.kind in "fc":
        a, b = got.astype(np.float64), want.astype(np.float64)
        if np.allclose(a, b, rtol=1e-3, atol=1e-7, equal_nan=True):
            return "ok"
        return f"differs by up to {np.nanmax(np.abs(a - b)):.4g}"
    return "ok" if np.array_equal(got, want) else "differs"


def run(text, inputs):
    """(ReferenceEvaluator's verdict, onnxruntime's): the outputs, or the error."""
    from onnx.reference import ReferenceEvaluator

    model = onnx.parser.parse_model(text)
    initialized = {t.name for t in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in initialized]
    results = []
    try:
        results.append(ReferenceEvaluator(model).run(None, dict(zip(names, inputs))))
    except Exception as e:  # noqa: BLE001 (any failure is a verdict)
        results.append(f"error: {str(e)[:120]}")
    try:
        import onnxruntime

        session = onnxruntime.InferenceSession(
            model.SerializeToString(), providers=["CPUExecutionProvider"]
        )
        feeds = dict(zip([i.name for i in session.get_inputs()], inputs))
        results.append(session.run(None, feeds))
    except Exception as e:  # noqa: BLE001
        results.append(f"error: {str(e)[:120]}")
    return results


def main():
    releases = catalog()
    order = lambda v: tuple(map(int, v.split(".")))  # noqa: E731
    for argument in sys.argv[1:]:
        version, name = argument.split("::")
        text, inputs, outputs = case(releases, version, name)
        print(f"{argument} (opset {releases[version][name]['opset']})")
        for who, result in zip(["ReferenceEvaluator", "onnxruntime"], run(text, inputs)):
            verdict = (
                result if isinstance(result, str)
                else [compare(a, b) for a, b in zip(result, outputs)]
            )
            print(f"  {who} against the data: {verdict}")
        later = sorted((v for v in releases if name in releases[v]), key=order)[-1]
        if later != version:
            text2, inputs2, outputs2 = case(releases, later, name)
            same_inputs = len(inputs) == len(inputs2) and all(
                a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
                for a, b in zip(inputs, inputs2)
            )
            print(
                f"  {later}: {'the same model' if text == text2 else 'another model'}, "
                f"{'the same inputs' if same_inputs else 'other inputs'}, outputs against "
                f"these: {[compare(a, b) for a, b in zip(outputs, outputs2)]}"
            )


if __name__ == "__main__":
    main()
