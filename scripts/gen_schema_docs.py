#!/usr/bin/env python3
"""Regenerate onnx-text-cli/src/lsp/schema_docs.txt: what the language server's hover shows of
each standard operator beside its signature (which comes from the checks' own table): a one-line
summary and the attributes' defaults, from onnx==1.23.2.

Kept apart from the checks' table (onnx-schema/src/schemas.txt) so that the proc
macro, which embeds that one, never carries documentation. Usage:

    pip install -r scripts/requirements.txt
    python3 scripts/gen_schema_docs.py           # rewrite the file
    python3 scripts/gen_schema_docs.py --check   # exit 1 if the committed file is stale

Format, one record per line:

    op <domain> <name> <since_version>
    summary <text to the end of the line>
    default <attribute> <value as the text syntax writes it, to the end of the line>
"""

from __future__ import annotations

import argparse
import pathlib
import re
import sys

import numpy
import onnx
import onnx.defs
import onnx.helper

REFERENCE_VERSION = "1.23.2"
assert onnx.__version__ == REFERENCE_VERSION, onnx.__version__

REPO = pathlib.Path(__file__).resolve().parent.parent
OUTPUT = REPO / "onnx-text-cli" / "src" / "lsp" / "schema_docs.txt"
DOMAINS = {"": "ai.onnx", "ai.onnx.ml": "ai.onnx.ml",
           "ai.onnx.preview.training": "ai.onnx.preview.training", "ai.onnx.preview": "ai.onnx.preview"}


def summary(doc: str) -> str:
    """The first sentence of the schema's documentation, on one line, without markdown."""
    text = " ".join((doc or "").split())
    text = re.sub(r"</?[A-Za-z][^<>]*>", "", text).replace("`", "")
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    match = re.match(r"(.+?[.:])(\s|$)", text)
    sentence = match.group(1) if match else text
    return sentence if len(sentence) <= 200 else sentence[:197].rstrip() + "..."


def number(value) -> str:
    if isinstance(value, float):
        return format(float(numpy.float32(value)), ".7g")
    return str(value)


def default(attribute) -> str | None:
    proto = attribute.default_value
    if proto is None or not proto.name and proto.type == 0:
        return None
    if proto.type == 0:
        return None
    value = onnx.helper.get_attribute_value(proto)
    if isinstance(value, bytes):
        return '"' + value.decode("utf-8", "replace").replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (int, float)):
        return number(value)
    if isinstance(value, list):
        items = [('"' + v.decode() + '"') if isinstance(v, bytes) else number(v) for v in value]
        return "[" + ", ".join(items) + "]"
    return None  # tensors and graphs: no short text


def generate() -> str:
    schemas = [s for s in onnx.defs.get_all_schemas_with_history() if s.domain in DOMAINS]
    schemas.sort(key=lambda s: (DOMAINS[s.domain], s.name, s.since_version))
    lines = [f"# operator summaries and attribute defaults from onnx=={REFERENCE_VERSION} "
             f"by scripts/gen_schema_docs.py; do not edit"]
    for schema in schemas:
        lines.append(f"op {DOMAINS[schema.domain]} {schema.name} {schema.since_version}")
        text = summary(schema.doc)
        if text:
            lines.append(f"summary {text}")
        for name in sorted(schema.attributes):
            value = default(schema.attributes[name])
            if value is not None and "\n" not in value:
                lines.append(f"default {name} {value}")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    text = generate()
    if args.check:
        if not OUTPUT.exists() or OUTPUT.read_text(encoding="utf-8") != text:
            sys.exit(f"{OUTPUT.relative_to(REPO)} is stale: run scripts/gen_schema_docs.py")
        print(f"{OUTPUT.relative_to(REPO)} is up to date")
        return
    OUTPUT.write_text(text, encoding="utf-8", newline="\n")
    print(f"wrote {OUTPUT.relative_to(REPO)}: {len(text.encode())} bytes")


if __name__ == "__main__":
    main()
