#!/usr/bin/env python3
"""Checks models converted by `onnx-text convert --opset N` with onnx's full checker
(`onnx.checker.check_model(m, full_check=True)`), one of the version converter's targets
(issue 46: zero converted models that fail it), and that each imports the opset it was asked for.

Either checks the `.onnx` files of folders converted beforehand:

    python3 scripts/check_converted.py DIR...

or converts the benchmark's opset-7 models (`scripts/opset7_models.py`) itself through the CLI,
up from 7 to each of `--up` and back down from 21 to each of `--down`, and checks the results:

    python3 scripts/check_converted.py --convert [--nodes 100000] [--up 13 18 21] [--down 18 13 12 11 9 8 7]

A refusal is not a failure of the checker: it is counted apart, with the CLI's message (the
converter names every node it refuses, and writes nothing).
"""
import argparse
import os
import subprocess
import sys
import tempfile

import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def check(path, expected_opset=None):
    """None when the model passes, else why not."""
    try:
        model = onnx.load(path)
        if expected_opset is not None:
            versions = {o.domain or "ai.onnx": o.version for o in model.opset_import}
            if versions.get("ai.onnx") != expected_opset:
                return f"imports {versions}, not ai.onnx {expected_opset}"
        onnx.checker.check_model(model, full_check=True)
    except Exception as e:  # the checker's ValidationError, or a file onnx cannot read
        return f"{type(e).__name__}: {str(e).strip().splitlines()[0][:300]}"
    return None


def convert(binary, source, target, out):
    """None when the CLI converted, else its message."""
    done = subprocess.run([binary, "convert", source, "--opset", str(target), "-o", out, "--force"],
                          capture_output=True, text=True)
    if done.returncode == 0:
        return None
    lines = done.stderr.strip().splitlines()
    shown = "\n      ".join(lines[:4] + ([f"... ({len(lines) - 4} more lines)"] if len(lines) > 4 else []))
    return f"exit {done.returncode}: {shown}"


def convert_and_check(binary, nodes, up, down):
    import opset7_models

    passed, failed, refused = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for name, source in opset7_models.write(tmp, nodes).items():
            pairs = [(source, 7, t) for t in up]
            newest = os.path.join(tmp, f"{name}-to-21.onnx")
            # The downgrades start from our own conversion to 21, as a user going back would.
            if down:
                error = convert(binary, source, 21, newest)
                if error:
                    refused.append((f"{name} 7 -> 21 (for the downgrades)", error))
                else:
                    pairs += [(newest, 21, t) for t in down]
            for path, start, target in pairs:
                label = f"{name} {start} -> {target}"
                out = os.path.join(tmp, f"{name}-{start}-to-{target}.onnx")
                error = convert(binary, path, target, out)
                if error:
                    refused.append((label, error))
                    continue
                problem = check(out, target)
                (failed if problem else passed).append((label, problem))
    return passed, failed, refused


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dirs", nargs="*", help="folders of converted .onnx files")
    ap.add_argument("--convert", action="store_true", help="convert the benchmark models through the CLI")
    ap.add_argument("--nodes", type=int, default=100000, help="the chain's length (--convert)")
    ap.add_argument("--up", type=int, nargs="*", default=[13, 18, 21])
    ap.add_argument("--down", type=int, nargs="*", default=[18, 13, 12, 11, 9, 8, 7])
    ap.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "onnx-text"),
                    help="the onnx-text binary (cargo build --release -p onnx-text-cli)")
    args = ap.parse_args()
    if not args.convert and not args.dirs:
        ap.error("give folders of converted models, or --convert")
    passed, failed, refused = [], [], []
    if args.convert:
        passed, failed, refused = convert_and_check(args.binary, args.nodes, args.up, args.down)
    for folder in args.dirs:
        for file in sorted(os.listdir(folder)):
            if file.endswith(".onnx"):
                problem = check(os.path.join(folder, file))
                (failed if problem else passed).append((os.path.join(folder, file), problem))
    for label, _ in passed:
        print(f"pass    {label}")
    for label, problem in failed:
        print(f"FAIL    {label}: {problem}")
    for label, message in refused:
        print(f"refused {label}:\n      {message}")
    print(f"{len(passed) + len(failed)} converted models checked with onnx's full checker: "
          f"{len(passed)} pass, {len(failed)} fail; {len(refused)} conversions refused")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
