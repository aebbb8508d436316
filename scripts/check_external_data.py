"""Weights beside the text, on a real-size model: ResNet-50 (scripts/resnet50.py) through
`onnx-text convert --external-data`, back with `--inline-data`, and read by onnx itself.

Not part of CI (it writes ~300 MB); its figures are in docs/performance.md.

    python3 scripts/check_external_data.py [path/to/onnx-text]
"""

import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import resnet50  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def binary() -> str:
    if len(sys.argv) > 1:
        return os.path.abspath(sys.argv[1])
    subprocess.run(["cargo", "build", "-q", "--release", "-p", "onnx-text-cli"], cwd=ROOT, check=True)
    return os.path.abspath(os.path.join(ROOT, "target", "release", "onnx-text"))


def main() -> None:
    bin_ = binary()
    work = tempfile.mkdtemp(prefix="onnx-text-external-")
    run = lambda *args: subprocess.run([bin_, *args], cwd=work, check=True, capture_output=True)
    model = resnet50.build()
    original = model.SerializeToString()
    with open(os.path.join(work, "resnet50.onnx"), "wb") as f:
        f.write(original)
    size = lambda name: os.path.getsize(os.path.join(work, name))
    read = lambda name: open(os.path.join(work, name), "rb").read()

    # Every tensor out (threshold 0): the text is the architecture; the way back is exact.
    run("convert", "resnet50.onnx", "-o", "r0.onnxtxt", "--external-data", "r0.bin", "--size-threshold", "0")
    run("convert", "r0.onnxtxt", "-o", "back0.onnx", "--inline-data")
    exact = read("back0.onnx") == original
    print(f"threshold 0:    text {size('r0.onnxtxt'):,} B, data {size('r0.bin'):,} B, "
          f"back with --inline-data byte-identical: {exact}")
    assert exact

    # The default threshold (1 KiB, as onnx counts it): small tensors stay in the text.
    run("convert", "resnet50.onnx", "-o", "r.onnxtxt", "--external-data", "r.bin")
    run("convert", "r.onnxtxt", "-o", "back.onnx", "--inline-data")
    printed = run("print", "resnet50.onnx").stdout == run("print", "back.onnx").stdout
    print(f"threshold 1024: text {size('r.onnxtxt'):,} B, data {size('r.bin'):,} B, "
          f"back with --inline-data prints the same: {printed}")
    assert printed and size("r.onnxtxt") < 200_000

    # onnx reads what we write: the binary that keeps the references, with its data file.
    run("convert", "r.onnxtxt", "-o", "refs.onnx")
    onnx.checker.check_model(os.path.join(work, "refs.onnx"), full_check=True)
    loaded = onnx.load(os.path.join(work, "refs.onnx"), load_external_data=True)
    same = all(
        np.array_equal(numpy_helper.to_array(a), numpy_helper.to_array(b))
        for a, b in zip(loaded.graph.initializer, model.graph.initializer, strict=True)
    )
    print(f"onnx.load(refs.onnx, load_external_data=True): every initializer equal: {same}")
    assert same
    # And our whole binary is a plain model to onnx.
    onnx.checker.check_model(os.path.join(work, "back.onnx"), full_check=True)
    print(f"(files in {work})")


if __name__ == "__main__":
    main()
