#!/usr/bin/env python3
"""Differential test against the reference: mutate corpus texts, run both parsers, compare.

A mutant agrees when both parsers accept it with identical bytes, or both reject it. Known,
documented divergences (docs/divergences.md) are counted apart: text after a graph, function or
node (which the reference ignores), and errors the reference swallows in function attribute lists.
Everything else is listed.

Run: pip install -r scripts/requirements.txt
     cargo build --release --example parse_batch
     python3 scripts/differential.py [--mutants 100000] [--seed 1] [--show 20]
"""
import argparse
import pathlib
import random
import subprocess

import onnx
import onnx.parser as P

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
BATCH = ROOT / "target" / "release" / "examples" / "parse_batch"
PARSE = {"model": P.parse_model, "graph": P.parse_graph, "function": P.parse_function, "node": P.parse_node}
FRAGMENTS = ["(", ")", "[", "]", "{", "}", "<", ">", ",", ":", "=", ".", "@", "?", "-", '"', "=>", " ", "\n",
             "#", "1", "0", "1.5", "e", "x", "float", "int64", "seq", "inf", "nan", '"s"', "ints", "a", "[]",
             "{}", "<>", "()", "\\", "_", "E5", "007", "-1"]


# Our messages for errors that the reference ignores inside a function's attribute list.
SWALLOWED = ("unknown attribute type", "value, found", "an empty list needs", "expected `=`", "an attribute type")


def seeds(rng):
    paths = sorted(CORPUS.glob("handwritten/*.onnxtxt")) + sorted(CORPUS.glob("defs-cc/*.onnxtxt"))
    paths += rng.sample(sorted(CORPUS.glob("backend/*.onnxtxt")), 300)
    out = []
    for path in paths:
        data = path.read_bytes()
        if b"\0" in data or len(data) > 6000:
            continue
        out.append((path.name.rsplit(".", 2)[-2], data.decode("utf-8")))
    return out


def mutate(text, rng):
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(text) + 1)
        k = rng.random()
        if k < 0.35:
            text = text[:i] + text[i + 1:]
        elif k < 0.7:
            text = text[:i] + rng.choice(FRAGMENTS) + text[i:]
        elif k < 0.85:
            text = text[:i] + text[i + rng.randint(1, 8):]
        else:
            segment = text[i:i + rng.randint(1, 12)]
            j = rng.randrange(len(text) + 1)
            text = text[:j] + segment + text[j:]
    return text


def reference(entry, text):
    try:
        return "OK " + PARSE[entry](text).SerializeToString().hex()
    except Exception as e:  # the reference also raises ValueError, IndexError, RuntimeError
        return f"ERR {type(e).__name__}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mutants", type=int, default=100000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--show", type=int, default=20)
    args = ap.parse_args()
    assert onnx.__version__ == "1.23.2", onnx.__version__
    rng = random.Random(args.seed)
    pool = seeds(rng)
    cases = [(e, mutate(t, rng)) for e, t in (rng.choice(pool) for _ in range(args.mutants))]
    records = b"".join(e.encode() + b"\n" + str(len(t.encode())).encode() + b"\n" + t.encode() for e, t in cases)
    ours = subprocess.run([str(BATCH)], input=records, capture_output=True, check=True).stdout.decode().split("\n")[:-1]
    assert len(ours) == len(cases)
    agree, known, other = 0, 0, []
    for (entry, text), mine in zip(cases, ours):
        ref = reference(entry, text)
        if ref == mine or (ref.startswith("ERR") and mine.startswith("ERR")):
            agree += 1
        elif ref.startswith("OK") and mine.startswith("ERR") and entry != "model" and (
                "end of input" in mine or "one attribute list" in mine or "string literal" in mine):
            known += 1  # divergence 4/9: text after the item
        elif ref.startswith("OK") and mine.startswith("ERR") and entry in ("function", "model") and any(
                m in mine for m in SWALLOWED):
            known += 1  # divergence 8: errors the reference swallows in function attribute lists
        else:
            other.append((entry, text, ref[:160], mine[:160]))
    n = len(cases)
    print(f"mutants: {n}; agree: {agree} ({100 * agree / n:.2f}%); documented divergences: {known}; "
          f"other disagreements: {len(other)}")
    for entry, text, ref, mine in other[: args.show]:
        print(f"--- {entry}: {text!r}\n    reference: {ref}\n    ours:      {mine}")


if __name__ == "__main__":
    main()
