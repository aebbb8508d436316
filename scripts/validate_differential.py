#!/usr/bin/env python3
"""Differential test of `check` on binary models against onnx.checker (onnx==1.23.2).

Takes every binary model of the corpus (tests/corpus/**/*.model.pb and *.model.source.pb, see
gen_corpus.py) and mutants of them, each deleting or corrupting one field, and records the
verdict of onnx.checker.check_model(model, full_check=True) on each. tests/validate.rs reads
the verdicts and runs our checker on the same bytes, without Python.

A mutant is written as a path to one field occurrence in the wire format and an edit, so that
the Rust test rebuilds the same bytes from the corpus file (it checks a hash of them):

    <file> <fnv1a32 of the file> <verdict>         a corpus file, then its mutants:
     <path> <edit> <fnv1a32 of the mutant> <verdict>

    <path>    steps `field.occurrence` joined by `/`, from the
              ModelProto down: `7.0/1.3` is the 4th node (field 1) of the graph (field 7)
    <edit>    `d` (delete the field), `v:N` (a varint field set to N, as u64),
              `b:HEX` (a length-delimited or fixed-width field's payload set to these bytes),
              `t:N` (a length-delimited payload cut to N bytes), `a:HEX` (bytes appended to it)
    <verdict> `+` (onnx accepts it), or `-` and where onnx rejects it: `-d` (the bytes do not
              decode), `-c` (the checker), `-s` (strict shape and type inference)

Usage: python3 scripts/validate_differential.py [--per-file N] [--seed S] [--reasons]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import random
import re
import sys
import tempfile

import onnx
import onnx.checker

from in_child import run_in_child

REFERENCE_VERSION = "1.23.2"
assert onnx.__version__ == REFERENCE_VERSION, f"onnx=={REFERENCE_VERSION} is required"

REPO = pathlib.Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "corpus"
OUT = REPO / "tests" / "validate" / "verdicts.txt"


# --- the wire format --------------------------------------------------------------------------


def read_varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


def varint(value: int) -> bytes:
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def fields(data: bytes):
    """The fields of a message: (number, wire type, key bytes, payload bytes)."""
    pos = 0
    out = []
    while pos < len(data):
        start = pos
        key, pos = read_varint(data, pos)
        number, wire = key >> 3, key & 7
        key_bytes = data[start:pos]
        if wire == 0:
            _, end = read_varint(data, pos)
            payload = data[pos:end]
            pos = end
        elif wire == 1:
            payload = data[pos : pos + 8]
            pos += 8
        elif wire == 5:
            payload = data[pos : pos + 4]
            pos += 4
        elif wire == 2:
            length, pos = read_varint(data, pos)
            payload = data[pos : pos + length]
            pos += length
        else:
            raise ValueError(f"wire type {wire}")
        out.append((number, wire, key_bytes, payload))
    return out


def encode_field(number, wire, key_bytes, payload):
    if wire == 2:
        return key_bytes + varint(len(payload)) + payload
    return key_bytes + payload


def apply(data: bytes, path: list[tuple[int, int]], edit: str) -> bytes:
    """The message `data` with `edit` applied to the field at `path`."""
    (number, occurrence), rest = path[0], path[1:]
    out = bytearray()
    seen = 0
    for num, wire, key_bytes, payload in fields(data):
        if num == number:
            hit = seen == occurrence
            seen += 1
            if hit:
                if rest:
                    out += encode_field(num, wire, key_bytes, apply(payload, rest, edit))
                elif edit.startswith("v:"):
                    out += key_bytes + varint(int(edit[2:]))
                elif edit.startswith("b:"):
                    out += encode_field(num, wire, key_bytes, bytes.fromhex(edit[2:]))
                elif edit.startswith("t:"):
                    out += encode_field(num, wire, key_bytes, payload[: int(edit[2:])])
                elif edit.startswith("a:"):
                    out += encode_field(num, wire, key_bytes, payload + bytes.fromhex(edit[2:]))
                elif edit != "d":
                    raise ValueError(edit)
                continue
        out += encode_field(num, wire, key_bytes, payload)
    return bytes(out)


def fnv1a32(data: bytes) -> int:
    h = 0x811C9DC5
    for byte in data:
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h


# --- choosing mutations -----------------------------------------------------------------------


def occurrences(data: bytes, descriptor, prefix=()):
    """Every field occurrence of a message, depth first: (path, field descriptor, wire, payload)."""
    counts: dict[int, int] = {}
    for number, wire, _, payload in fields(data):
        occurrence = counts.get(number, 0)
        counts[number] = occurrence + 1
        path = prefix + ((number, occurrence),)
        fd = descriptor.fields_by_number.get(number)
        yield path, fd, wire, payload
        if fd is not None and fd.message_type is not None and wire == 2:
            yield from occurrences(payload, fd.message_type, path)


def edits(fd, wire, payload, rng, names):
    """Edits of one field: deleting it, and corruptions that fit its type."""
    out = ["d"]
    if wire == 0:
        value, _ = read_varint(payload, 0)
        out += [f"v:{v}" for v in (0, value + 1, (1 << 64) - 1, 99, 1 << 40)]
    elif wire == 2 and fd is not None and fd.message_type is None:
        if fd.type == fd.TYPE_STRING:
            other = rng.choice(names) if names else "x"
            out += ["b:", "b:" + other.encode().hex(), "b:" + b"../x".hex()]
        else:  # bytes, or a packed list
            out += [f"t:{max(len(payload) - 1, 0)}", f"t:{len(payload) // 2}", "a:" + (payload[-1:] or b"\0").hex()]
    elif wire in (1, 5):
        out += ["b:" + bytes(len(payload)).hex(), "b:" + (b"\xff" * len(payload)).hex()]
    return out


# --- the reference's verdict ------------------------------------------------------------------


def verdict(data: bytes) -> str:
    """onnx's verdict, from a forked child: onnx crashes on some mutants (a failed assertion,
    a segmentation fault), which is recorded as a rejection by its checker naming the signal."""
    out = run_in_child(lambda: checked(data))
    if isinstance(out, int):
        return f"err:onnx crashed (signal {out})"
    return out


def checked(data: bytes) -> str:
    model = onnx.ModelProto()
    try:
        model.ParseFromString(data)
    except Exception as e:  # noqa: BLE001 - any decoding failure is a rejection
        return "err:" + reason(f"decode: {e}")
    try:
        onnx.checker.check_model(model, full_check=True)
    except Exception as e:  # noqa: BLE001
        return "err:" + reason(str(e))
    return "ok"


def sign_of(v: str) -> str:
    """`+`, or `-d`, `-s`, `-c`: where onnx rejected the model."""
    if v == "ok":
        return "+"
    if v.startswith("err:decode:"):
        return "-d"
    if v.startswith(("err:[ShapeInferenceError]", "err:[TypeInferenceError]")):
        return "-s"
    return "-c"


def reason(message: str) -> str:
    first = " ".join(message.split())
    return first[:160] or "error"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-file", type=int, default=2, help="mutants per corpus file")
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--reasons", action="store_true", help="count onnx's reasons")
    parser.add_argument("--explain", type=pathlib.Path, help="write each case's onnx message here")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    files = sorted(p for p in CORPUS.rglob("*.pb") if p.name.endswith((".model.pb", ".model.source.pb")))
    lines = []
    counts = {"files": 0, "mutants": 0, "ok": 0, "err": 0}
    reasons: dict[str, int] = {}
    explained: list[str] = []
    # External data resolves against the working directory for an in-memory model: an empty one.
    with tempfile.TemporaryDirectory() as empty:
        os.chdir(empty)
        for path in files:
            data = path.read_bytes()
            rel = path.relative_to(CORPUS).as_posix()
            cases = [("-", "-", data)]
            try:
                found = list(occurrences(data, onnx.ModelProto.DESCRIPTOR))
            except (ValueError, IndexError):
                found = []
            names = sorted({p.decode("utf-8", "replace") for _, fd, w, p in found if fd is not None and fd.name in ("name", "input", "output") and w == 2})
            for _ in range(min(args.per_file, len(found))):
                where, fd, wire, payload = rng.choice(found)
                edit = rng.choice(edits(fd, wire, payload, rng, names))
                mutant = apply(data, list(where), edit)
                cases.append(("/".join(f"{n}.{o}" for n, o in where), edit, mutant))
            counts["files"] += 1
            for where, edit, mutant in cases:
                v = verdict(mutant)
                counts["ok" if v == "ok" else "err"] += 1
                reasons[v] = reasons.get(v, 0) + 1
                sign = sign_of(v)
                key = rel if where == "-" else f"{rel} {where} {edit}"
                explained.append(f"{key}\t{v}")
                if where == "-":
                    lines.append(f"{rel} {fnv1a32(mutant):08x} {sign}")
                else:
                    counts["mutants"] += 1
                    lines.append(f" {where} {edit} {fnv1a32(mutant):08x} {sign}")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    header = (
        f"# onnx {onnx.__version__} check_model(full_check=True) verdicts; "
        f"scripts/validate_differential.py --per-file {args.per_file} --seed {args.seed}\n"
    )
    OUT.write_text(header + "\n".join(lines) + "\n")
    if args.explain:
        args.explain.write_text("\n".join(explained) + "\n")
    if args.reasons:
        for v, n in sorted(reasons.items(), key=lambda item: -item[1]):
            print(f"{n:6} {v}")
    print(f"{counts['files']} files, {counts['mutants']} mutants: {counts['ok']} accepted, {counts['err']} rejected -> {OUT.relative_to(REPO)}")


if __name__ == "__main__":
    sys.exit(main())
