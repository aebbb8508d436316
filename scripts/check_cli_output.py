#!/usr/bin/env python3
"""Check that the `onnx-text` command-line tool writes models the reference loads.

For every model text of the corpus (backend/, shipped/, printer/ cases the reference
parser accepts), this runs

    onnx-text convert <case>.onnxtxt -o <tmp>/<case>.onnx          (text -> binary)
    onnx-text convert <case>.source.pb -o <tmp>/<case>.onnxtxt     (binary -> text)

and then checks, with onnx==1.23.2:

  * onnx.load(<case>.onnx) works, and its bytes equal
    onnx.parser.parse_model(text).SerializeToString() (the reference parser's bytes);
  * onnx.checker.check_model(model) passes, or fails exactly as it does on the
    reference parser's own model of the same text (some backend models use
    operators or types the checker rejects; that is not ours to fix);
  * onnx.load(<case>.onnxtxt) (the reference parser, through the onnxtxt format)
    reads our text output, to the same bytes as `onnx-text convert` does; and the
    text equals onnx.printer.to_text(source) unless the reference printer loses
    something there (docs/divergences.md, "Printer").

Usage (from anywhere; builds the tool with cargo if --bin is not given):

    pip install -r scripts/requirements.txt
    python3 scripts/check_cli_output.py [--bin path/to/onnx-text] [--limit N]
"""

from __future__ import annotations

import argparse
import pathlib
import subprocess
import sys
import tempfile
import warnings

import onnx
import onnx.checker
import onnx.parser
import onnx.printer

REPO = pathlib.Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "corpus"
DIRS = ("backend", "shipped", "printer")


def build() -> pathlib.Path:
    subprocess.run(
        ["cargo", "build", "--quiet", "-p", "onnx-text-cli"], cwd=REPO, check=True
    )
    return REPO / "target" / "debug" / "onnx-text"


def checker_verdict(model: onnx.ModelProto) -> str:
    try:
        onnx.checker.check_model(model)
        return "ok"
    except Exception as exc:  # ValidationError and friends
        return f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", type=pathlib.Path, help="the onnx-text binary (default: cargo build)")
    ap.add_argument("--limit", type=int, default=0, help="check at most N cases per directory")
    args = ap.parse_args()
    binary = args.bin or build()

    cases = []
    for d in DIRS:
        found = sorted((CORPUS / d).glob("*.model.pb"))
        found = [p for p in found if not p.name.endswith(".source.pb")]
        if args.limit:
            found = found[: args.limit]
        cases += found

    counts = dict(cases=0, loaded=0, same_bytes=0, checker_ok=0, checker_same_failure=0,
                  text_loaded=0, text_identical=0, text_same=0)
    problems: list[str] = []
    with tempfile.TemporaryDirectory() as tmp_name, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # onnx.load warns that onnxtxt is experimental
        tmp = pathlib.Path(tmp_name)
        for pb in cases:
            stem = pb.name[: -len(".pb")]
            key = f"{pb.parent.name}/{stem}"
            text_path = pb.with_name(stem + ".onnxtxt")
            counts["cases"] += 1

            # text -> binary
            out = tmp / (stem + ".onnx")
            # --unchecked: the corpus holds models malformed on purpose; this compares bytes.
            run = subprocess.run([binary, "convert", "--unchecked", text_path, "-o", out],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                problems.append(f"{key}: convert to binary failed: {run.stderr.strip()[:300]}")
                continue
            try:
                model = onnx.load(str(out))
            except Exception as exc:
                problems.append(f"{key}: onnx.load failed: {exc}")
                continue
            counts["loaded"] += 1
            text = text_path.read_text(encoding="utf-8")
            reference = onnx.parser.parse_model(text)
            if out.read_bytes() == reference.SerializeToString():
                counts["same_bytes"] += 1
            else:
                problems.append(f"{key}: bytes differ from onnx.parser.parse_model")
            ours, theirs = checker_verdict(model), checker_verdict(reference)
            if ours == "ok":
                counts["checker_ok"] += 1
            elif ours == theirs:
                counts["checker_same_failure"] += 1
            else:
                problems.append(f"{key}: check_model: ours {ours!r}, reference {theirs!r}")

            # binary -> text, read back by the reference parser
            source = pb.with_name(stem + ".source.pb")
            if not source.exists():
                continue
            out_text = tmp / (stem + ".onnxtxt")
            run = subprocess.run([binary, "convert", source, "-o", out_text],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                problems.append(f"{key}: convert to text failed: {run.stderr.strip()[:300]}")
                continue
            try:
                from_text = onnx.load(str(out_text))
            except Exception as exc:
                problems.append(f"{key}: onnx.load of our text failed: {str(exc)[:300]}")
                continue
            counts["text_loaded"] += 1
            src = onnx.ModelProto()
            src.ParseFromString(source.read_bytes())
            if out_text.read_text(encoding="utf-8") == onnx.printer.to_text(src) + "\n":
                counts["text_identical"] += 1
            # Both parsers read our text the same way.
            again = tmp / (stem + ".again.onnx")
            run = subprocess.run([binary, "convert", "--unchecked", out_text, "-o", again],
                                 capture_output=True, text=True)
            if run.returncode == 0 and again.read_bytes() == from_text.SerializeToString():
                counts["text_same"] += 1
            else:
                problems.append(f"{key}: onnx.parser reads our text differently from onnx-text")

    n = counts["cases"]
    print(f"binary outputs: {counts['loaded']}/{n} load with onnx.load; "
          f"{counts['same_bytes']}/{n} byte-identical to onnx.parser; "
          f"check_model passes {counts['checker_ok']}, fails as on the reference's own "
          f"model {counts['checker_same_failure']}")
    print(f"text outputs: {counts['text_loaded']} load with onnx.load (format onnxtxt); "
          f"{counts['text_identical']} identical to onnx.printer.to_text; "
          f"{counts['text_same']} read the same by onnx.parser and onnx-text")
    for p in problems:
        print("PROBLEM", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
