#!/usr/bin/env python3
"""Regenerate onnx-schema/src/schemas.txt: the operator schemas that the
schema checks use, taken from onnx==1.23.2 (onnx.defs.get_all_schemas_with_history()).

Only the standard domains are kept: ai.onnx (written "ai.onnx", the default domain ""),
ai.onnx.ml, ai.onnx.preview.training and ai.onnx.preview. The output is deterministic: the
same wheel always gives the same bytes. Usage (from anywhere):

    pip install -r scripts/requirements.txt
    python3 scripts/gen_schemas.py           # rewrite the file
    python3 scripts/gen_schemas.py --check   # exit 1 if the committed file is stale

Format: one record per line, fields separated by single spaces; `#` starts a comment line.
The first line holds the counts and an FNV-1a 64 checksum of every line after it, which the
Rust loader's tests recompute. Schemas are sorted by domain, operator and version, so the lines
of an operator are together: the loader indexes where each operator's lines are and parses them
on the operator's first lookup (it rejects an operator whose lines are split).

    set <id> <type>|<type>|...
        a set of allowed types, numbered from 0 in order of first use (deduplicated: many
        constraints allow the same types); the types are spelled as the schemas spell them,
        so `map(int64, float)` keeps its space: this is the one field that may hold spaces
    op <domain> <name> <since_version> <min_in> <max_in> <min_out> <max_out> [deprecated]
        one schema; `*` is an unbounded count; the lines up to the next `op` belong to it
    in <name> <single|optional|variadic> <type_str> [heterogeneous] [min=<n>]
    out <name> <single|optional|variadic> <type_str> [heterogeneous] [min=<n>]
        formal parameters in order; type_str is a constraint's parameter (`T`) or a type;
        `heterogeneous` marks a variadic whose operands may differ in type; `min=` is a
        variadic's least number of operands when it is not 1
    attr <name> <type> [required]
        an attribute, with its type as the syntax writes it (int, floats, graph, ...)
    tc <param> <set id>
        a type constraint: the types that parameter may take
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import onnx
import onnx.defs

REFERENCE_VERSION = "1.23.2"
assert onnx.__version__ == REFERENCE_VERSION, (
    f"onnx=={REFERENCE_VERSION} is required, found {onnx.__version__}"
)

REPO = pathlib.Path(__file__).resolve().parent.parent
OUTPUT = REPO / "onnx-schema" / "src" / "schemas.txt"

# The domains onnx defines operators in; "" is written as its other name, ai.onnx.
DOMAINS = {
    "": "ai.onnx",
    "ai.onnx.ml": "ai.onnx.ml",
    "ai.onnx.preview.training": "ai.onnx.preview.training",
    "ai.onnx.preview": "ai.onnx.preview",
}

UNBOUNDED = 2**31 - 1  # what the C++ schemas use for "no upper bound"

OPTIONS = {
    onnx.defs.OpSchema.FormalParameterOption.Single: "single",
    onnx.defs.OpSchema.FormalParameterOption.Optional: "optional",
    onnx.defs.OpSchema.FormalParameterOption.Variadic: "variadic",
}

ATTR_TYPES = {
    onnx.defs.OpSchema.AttrType.FLOAT: "float",
    onnx.defs.OpSchema.AttrType.INT: "int",
    onnx.defs.OpSchema.AttrType.STRING: "string",
    onnx.defs.OpSchema.AttrType.TENSOR: "tensor",
    onnx.defs.OpSchema.AttrType.GRAPH: "graph",
    onnx.defs.OpSchema.AttrType.SPARSE_TENSOR: "sparse_tensor",
    onnx.defs.OpSchema.AttrType.TYPE_PROTO: "type_proto",
    onnx.defs.OpSchema.AttrType.FLOATS: "floats",
    onnx.defs.OpSchema.AttrType.INTS: "ints",
    onnx.defs.OpSchema.AttrType.STRINGS: "strings",
    onnx.defs.OpSchema.AttrType.TENSORS: "tensors",
    onnx.defs.OpSchema.AttrType.GRAPHS: "graphs",
    onnx.defs.OpSchema.AttrType.SPARSE_TENSORS: "sparse_tensors",
    onnx.defs.OpSchema.AttrType.TYPE_PROTOS: "type_protos",
}


def fnv1a64(data: bytes) -> int:
    value = 0xCBF29CE484222325
    for byte in data:
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return value


def count(n: int) -> str:
    return "*" if n >= UNBOUNDED else str(n)


def token(text: str, what: str) -> str:
    """A field must be one non-empty word: the format splits on spaces."""
    if not text or any(c.isspace() for c in text) or "|" in text:
        raise SystemExit(f"{what} {text!r} cannot be written as one field")
    return text


def allowed_type(type_str: str) -> str:
    """A type in a `set` line: the last field, so only `|` and line breaks are out."""
    if not type_str or "|" in type_str or "\n" in type_str:
        raise SystemExit(f"type {type_str!r} cannot be written in a set")
    return type_str


def formal(kind: str, param) -> str:
    fields = [kind, token(param.name, "parameter"), OPTIONS[param.option], token(param.type_str, "type")]
    variadic = param.option == onnx.defs.OpSchema.FormalParameterOption.Variadic
    if variadic and not param.is_homogeneous:
        fields.append("heterogeneous")
    if variadic and param.min_arity != 1:
        fields.append(f"min={param.min_arity}")
    return " ".join(fields)


def schema_lines(schema, sets: dict[tuple[str, ...], int], out: list[str]) -> None:
    head = [
        "op",
        DOMAINS[schema.domain],
        token(schema.name, "operator"),
        str(schema.since_version),
        count(schema.min_input),
        count(schema.max_input),
        count(schema.min_output),
        count(schema.max_output),
    ]
    if schema.deprecated:
        head.append("deprecated")
    out.append(" ".join(head))
    out.extend(formal("in", p) for p in schema.inputs)
    out.extend(formal("out", p) for p in schema.outputs)
    for name in sorted(schema.attributes):
        attr = schema.attributes[name]
        line = f"attr {token(name, 'attribute')} {ATTR_TYPES[attr.type]}"
        out.append(line + (" required" if attr.required else ""))
    for constraint in schema.type_constraints:
        types = tuple(allowed_type(t) for t in constraint.allowed_type_strs)
        if types not in sets:
            sets[types] = len(sets)
            out.append(f"set {sets[types]} {'|'.join(types)}")
        out.append(f"tc {token(constraint.type_param_str, 'type parameter')} {sets[types]}")


def generate() -> str:
    schemas = [s for s in onnx.defs.get_all_schemas_with_history() if s.domain in DOMAINS]
    schemas.sort(key=lambda s: (DOMAINS[s.domain], s.name, s.since_version))
    sets: dict[tuple[str, ...], int] = {}
    body: list[str] = []
    for schema in schemas:
        schema_lines(schema, sets, body)
    text = "".join(line + "\n" for line in body)
    operators = len({(s.domain, s.name) for s in schemas})
    header = (
        f"# onnx operator schemas from onnx=={REFERENCE_VERSION} by scripts/gen_schemas.py; "
        f"do not edit. operators={operators} schemas={len(schemas)} sets={len(sets)} "
        f"fnv1a64={fnv1a64(text.encode()):016x}\n"
    )
    return header + text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the file is stale")
    args = parser.parse_args()
    text = generate()
    if args.check:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != text:
            print(f"{OUTPUT.relative_to(REPO)} is stale: run scripts/gen_schemas.py", file=sys.stderr)
            sys.exit(1)
        print(f"{OUTPUT.relative_to(REPO)} is up to date")
        return
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(text, encoding="utf-8", newline="\n")
    print(f"wrote {OUTPUT.relative_to(REPO)}: {len(text.encode())} bytes, {text.splitlines()[0]}")


if __name__ == "__main__":
    main()
