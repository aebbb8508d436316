"""Runs onnx's full checker over the models the version converter's release test wrote.

    mkdir -p /tmp/converted
    VC_DUMP=/tmp/converted cargo test -p onnx-version-converter --test releases
    python scripts/check_converted_models.py /tmp/converted

Prints how many models pass `onnx.checker.check_model(model, full_check=True)` and the first
failures; exits 1 if any fails.
"""

import pathlib
import sys

import onnx

folder = pathlib.Path(sys.argv[1])
failures = []
paths = sorted(folder.glob("*.onnx"))
for path in paths:
    try:
        onnx.checker.check_model(onnx.load(path), full_check=True)
    except Exception as error:  # noqa: BLE001 - every checker failure is reported
        failures.append((path.name, str(error).splitlines()[0][:300]))
print(f"onnx {onnx.__version__}: {len(paths) - len(failures)} of {len(paths)} converted models pass the full checker")
for name, error in failures[:40]:
    print(f"  {name}: {error}")
sys.exit(1 if failures else 0)
