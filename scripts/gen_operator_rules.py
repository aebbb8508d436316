#!/usr/bin/env python3
"""Records onnx's verdict on each operator-rule case (tests/operator_rules/*.onnxtxt).

Each case is a small model in the text syntax that either breaks one rule of an operator's
shape and type inference (`NAME.bad.onnxtxt`) or is its valid neighbour (`NAME.ok.onnxtxt`);
`NAME.stricter.onnxtxt` breaks the operator's definition where onnx's inference does not look
(onnx accepts it, ours rejects it: docs/divergences.md).
onnx 1.23.2 parses it (`onnx.parser.parse_model`) and checks it with
`onnx.checker.check_model(full_check=True)`; the verdicts go to
tests/operator_rules/verdicts.txt, which `cargo test -p onnx-check --test operator_rules`
compares with ours, without Python:

    <file> +                  onnx accepts it
    <file> - <message>        onnx rejects it, with the first line of its message

Usage: python3 scripts/gen_operator_rules.py
"""

from __future__ import annotations

import pathlib
import sys

import onnx
import onnx.checker
import onnx.parser

from in_child import run_in_child

REFERENCE_VERSION = "1.23.2"
assert onnx.__version__ == REFERENCE_VERSION, f"onnx=={REFERENCE_VERSION} is required"

CASES = pathlib.Path(__file__).resolve().parent.parent / "tests" / "operator_rules"


def checked(text: str) -> str:
    model = onnx.parser.parse_model(text)
    try:
        onnx.checker.check_model(model, full_check=True)
    except Exception as err:  # onnx raises several types; the message is what matters
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        return "- " + " ".join(first.split())
    return "+"


def verdict(text: str) -> str:
    """onnx's verdict, from a forked child: onnx aborts on some malformed models (a failed
    assertion), which is recorded as a rejection that names the signal."""
    out = run_in_child(lambda: checked(text))
    if isinstance(out, int):
        return f"- onnx {REFERENCE_VERSION} crashed (signal {out})"
    return out


def main() -> int:
    lines = [
        "# onnx 1.23.2 check_model(full_check=True) on each case; scripts/gen_operator_rules.py",
    ]
    for path in sorted(CASES.glob("*.onnxtxt")):
        lines.append(f"{path.name} {verdict(path.read_text())}")
    (CASES / "verdicts.txt").write_text("\n".join(lines) + "\n")
    print(f"{len(lines) - 1} cases -> {(CASES / 'verdicts.txt').relative_to(CASES.parent.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
