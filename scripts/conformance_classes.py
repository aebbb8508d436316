#!/usr/bin/env python3
"""Sorts the failures of an onnx-conformance run into classes, for docs/conformance.md.

Reads the output of `cargo test --test onnx` of a runner (libtest's `---- name ----` blocks,
with the first line of each failure) and counts the failures by the first rule below that
their message matches. The rules are keyed on the runtimes' own messages (tract-onnx 0.23.9,
candle-onnx 0.11.1) and on the kit's (wrong outputs).

Run: python3 scripts/conformance_classes.py LOG [--examples N]
"""

import argparse
import collections
import pathlib
import re

CLASSES = [
    ("wrong outputs (the kit's check)", r"^test_\S+: (output|expected \d+ outputs)"),
    ("a runtime panic", r"^the runtime panicked"),
    ("sequence, optional or map values (tensors only)", r"takes tensors only|has no type value"),
    (
        "an operand must be a constant",
        r"be a const|as a constant|be constants?\b|constant and explicit|input is variable"
        r"|Neither sizes nor scales|Expect padding",
    ),
    (
        "element type not supported",
        r"Bfloat16|BF16|Float8|FLOAT8|Float4|Int4|Uint4|Int2|Uint2|unknown ONNX TensorProto\.DataType"
        r"|unsupported data type|data-type|unsupported dtype|no ONNX element type|DataType \d+|dtype",
    ),
    ("operator not implemented", r"Unimplemented\(|unsupported op|not implemented|NotImplemented"),
    ("attribute, mode or input form not supported", r"not supported|Unsupported|unsupported"),
    ("type or shape analysis failed", r"Failed analyse|Infering facts|Impossible to unify|shape mismatch|rank"),
]


def failures(log: str) -> dict[str, str]:
    """Case name → the first line of its failure."""
    found = {}
    for match in re.finditer(r"^---- (test_\S+) ----\n(.*)$", log, re.M):
        found[match[1]] = match[2]
    return found


def classify(message: str) -> str:
    for name, pattern in CLASSES:
        if re.search(pattern, message):
            return name
    return "other runtime errors"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log")
    parser.add_argument("--examples", type=int, default=0)
    args = parser.parse_args()
    found = failures(pathlib.Path(args.log).read_text())
    classes = collections.defaultdict(list)
    for name, message in sorted(found.items()):
        classes[classify(message)].append((name, message))
    print(f"{len(found)} failures")
    for name, members in sorted(classes.items(), key=lambda kv: -len(kv[1])):
        print(f"{len(members):5}  {name}")
        for case, message in members[: args.examples]:
            print(f"         {case}: {message[:160]}")


if __name__ == "__main__":
    main()
