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
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    return os.path.abspath(os.path.join(target, "release", "onnx-text"))


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

    # References that hold, whatever the folders: every result read back by onnx's loader.
    os.makedirs(os.path.join(work, "r"))
    os.makedirs(os.path.join(work, "elsewhere"))
    os.replace(os.path.join(work, "resnet50.onnx"), os.path.join(work, "r", "resnet50.onnx"))

    def loads(name: str) -> bool:
        loaded = onnx.load(os.path.join(work, name), load_external_data=True)
        return all(
            np.array_equal(numpy_helper.to_array(a), numpy_helper.to_array(b))
            for a, b in zip(loaded.graph.initializer, model.graph.initializer, strict=True)
        )

    def refused(*args: str) -> str:
        before = sorted(os.listdir(work)), sorted(os.listdir(os.path.join(work, "elsewhere")))
        r = subprocess.run([bin_, *args], cwd=work, capture_output=True, text=True)
        after = sorted(os.listdir(work)), sorted(os.listdir(os.path.join(work, "elsewhere")))
        assert r.returncode == 2 and before == after, (args, r.returncode, r.stderr)
        return r.stderr.strip()

    # print from the parent folder, text and data in r/: the location is relative to the text.
    run("print", "r/resnet50.onnx", "--external-data", "r/x.data", "-o", "r/x.onnxtxt")
    text = open(os.path.join(work, "r", "x.onnxtxt")).read()
    assert '"location": "x.data"' in text and '"location": "r/' not in text
    run("convert", "r/x.onnxtxt", "-o", "r/x.onnx")
    print(f"print r/resnet50.onnx --external-data r/x.data -o r/x.onnxtxt, as binary: "
          f"onnx.load equal: {loads('r/x.onnx')}")
    assert loads("r/x.onnx")
    # Without -o, the folder of the text is unknown: refused.
    why = refused("print", "r/resnet50.onnx", "--external-data", "r/y.data")
    print(f"print --external-data to standard output: exit 2, {why!r}")
    assert not os.path.exists(os.path.join(work, "r", "y.data"))

    # convert and infer into another folder: the locations are rewritten to resolve from there.
    run("convert", "r/x.onnxtxt", "-o", "moved.onnx")
    run("convert", "r/x.onnx", "-o", "moved.onnxtxt")
    run("convert", "moved.onnxtxt", "-o", "moved-again.onnx")
    run("infer", "r/x.onnx", "-o", "inferred.onnx")
    for name in ["moved.onnx", "moved-again.onnx", "inferred.onnx"]:
        print(f"{name} (data in r/x.data): onnx.load equal: {loads(name)}")
        assert loads(name)
    onnx.checker.check_model(os.path.join(work, "inferred.onnx"), full_check=True)
    # A folder the data is not in: refused, nothing written (onnx reads nothing outside).
    why = refused("convert", "r/x.onnx", "-o", "elsewhere/x.onnx")
    print(f"convert to a folder without the data: exit 2, {why[:100]!r}...")
    why = refused("infer", "r/x.onnx", "-o", "elsewhere/x.onnx")
    print(f"infer to a folder without the data: exit 2, {why[:100]!r}...")
    print(f"(files in {work})")


if __name__ == "__main__":
    main()
