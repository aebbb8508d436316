#!/usr/bin/env python3
"""Differential test against the reference: mutate corpus texts, run both parsers, compare.

A mutant agrees when both parsers accept it with identical bytes, or both reject it. Known,
documented divergences (docs/divergences.md) are counted apart, each recognised by what it is
rather than by our message: text after a graph, function or node, or a second attribute list
(divergences 4 and 9: the reference gives the same result without the text from our error on),
and errors inside a function's attribute list (divergence 8: the reference swallows them).
Everything else is listed.

Run: pip install -r scripts/requirements.txt
     cargo build --release --example parse_batch
     python3 scripts/differential.py [--mutants 100000] [--seed 1] [--show 20]
"""
import argparse
import os
import pathlib
import random
import re
import subprocess

import onnx
import onnx.parser as P

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
TARGET = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
BATCH = TARGET / "release" / "examples" / "parse_batch"
PARSE = {"model": P.parse_model, "graph": P.parse_graph, "function": P.parse_function, "node": P.parse_node}
FRAGMENTS = ["(", ")", "[", "]", "{", "}", "<", ">", ",", ":", "=", ".", "@", "?", "-", '"', "=>", " ", "\n",
             "#", "1", "0", "1.5", "e", "x", "float", "int64", "seq", "inf", "nan", '"s"', "ints", "a", "[]",
             "{}", "<>", "()", "\\", "_", "E5", "007", "-1"]


TOKEN = re.compile(r'\s+|#[^\n]*|"(?:\\.|[^"\\])*"?|=>|[A-Za-z_][A-Za-z0-9_]*|.', re.S)


def tokens(text):
    """(offset, token) pairs of ONNX text, white space and comments left out; offsets in bytes."""
    out, pos = [], 0
    for m in TOKEN.finditer(text):
        if not m.group().isspace() and not m.group().startswith("#"):
            out.append((pos, m.group()))
        pos += len(m.group().encode())
    return out


def skip_group(toks, i, open_, close):
    """The index after the group opening at toks[i] (`=>` is no `>`); len(toks) if unclosed."""
    depth = 0
    for j in range(i, len(toks)):
        depth += (toks[j][1] == open_) - (toks[j][1] == close)
        if depth == 0:
            return j + 1
    return len(toks)


def function_attribute_lists(entry, text):
    """Byte ranges of the attribute lists `F <…>` of the functions of a function or model text."""
    toks, i, ranges = tokens(text), 0, []
    if entry == "model":  # skip the header and the graph: up to the end of its `{…}`
        while i < len(toks) and toks[i][1] != "{":
            i += 1
        i = skip_group(toks, i, "{", "}")
    while i < len(toks):
        if toks[i][1] == "<":  # a function header
            i = skip_group(toks, i, "<", ">")
        i += 1  # the name
        if i < len(toks) and toks[i][1] == "<":
            end = skip_group(toks, i, "<", ">")
            ranges.append((toks[i][0], toks[end - 1][0] if end < len(toks) else len(text.encode())))
            i = end
        while i < len(toks) and toks[i][1] != "{":  # inputs, outputs, value infos
            i += 1
        i = skip_group(toks, i, "{", "}")
    return ranges


def is_trailing_text(entry, text, offset, ref):
    """Divergences 4 and 9: the reference ignores what starts at our error (text after the item,
    a second attribute list): it gives the same result without it."""
    prefix = text.encode()[:offset].decode(errors="ignore")
    return entry != "model" and reference(entry, prefix) == ref


def is_swallowed(entry, text, offset):
    """Divergence 8: our error is inside a function's attribute list, where the reference
    swallows errors."""
    return entry in ("function", "model") and any(
        start <= offset <= end for start, end in function_attribute_lists(entry, text))


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
    agree, trailing, swallowed, comments, other = 0, 0, 0, 0, []
    for (entry, text), mine in zip(cases, ours):
        ref = reference(entry, text)
        if ref == mine or (ref.startswith("ERR") and mine.startswith("ERR")):
            agree += 1
            continue
        offset = int(mine.split()[1]) if mine.startswith("ERR") else None
        if ref.startswith("OK") and offset is not None and is_trailing_text(entry, text, offset, ref):
            trailing += 1
        elif ref.startswith("OK") and offset is not None and is_swallowed(entry, text, offset):
            swallowed += 1
        elif ref.startswith("ERR") and mine.startswith("OK") and "//" in text:
            comments += 1  # divergence 20: `//` comments, which the reference rejects
        else:
            other.append((entry, text, ref[:160], mine[:160]))
    n = len(cases)
    print(f"mutants: {n}; agree: {agree} ({100 * agree / n:.2f}%); documented divergences: "
          f"{trailing + swallowed + comments} ({trailing} ignored trailing text or second attribute "
          f"list, {swallowed} swallowed function attribute errors, {comments} `//` comments); "
          f"other disagreements: {len(other)}")
    for entry, text, ref, mine in other[: args.show]:
        print(f"--- {entry}: {text!r}\n    reference: {ref}\n    ours:      {mine}")


if __name__ == "__main__":
    main()
