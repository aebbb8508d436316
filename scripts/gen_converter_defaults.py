"""Writes onnx-version-converter/src/steps/defaults.txt: the default value of every attribute of
every operator schema of the installed onnx (1.23.2), which the schema table does not carry.

The converter derives compatibility from these (a version step that changes a default is not
compatible as is). One line per default: `domain operator since attribute kind value`, with kind
`int`, `float`, `string` (the value JSON-quoted), `ints` or `floats` (comma-separated, `-` for an
empty list). Defaults of other kinds (tensors, graphs) are left out.

    python scripts/gen_converter_defaults.py
"""

import json
import pathlib

import onnx
from onnx import AttributeProto, defs

OUT = pathlib.Path(__file__).resolve().parent.parent / "onnx-version-converter/src/steps/defaults.txt"


def value(attr):
    t = attr.type
    if t == AttributeProto.INT:
        return "int", str(attr.i)
    if t == AttributeProto.FLOAT:
        return "float", repr(float(attr.f))
    if t == AttributeProto.STRING:
        return "string", json.dumps(attr.s.decode())
    if t == AttributeProto.INTS:
        return "ints", ",".join(map(str, attr.ints)) or "-"
    if t == AttributeProto.FLOATS:
        return "floats", ",".join(repr(float(f)) for f in attr.floats) or "-"
    return None


lines = [f"# attribute defaults from onnx=={onnx.__version__} by scripts/gen_converter_defaults.py; do not edit"]
for schema in sorted(defs.get_all_schemas_with_history(), key=lambda s: (s.domain, s.name, s.since_version)):
    domain = schema.domain or "ai.onnx"
    for name in sorted(schema.attributes):
        default = schema.attributes[name].default_value
        if default is None or default.type == 0:
            continue
        kv = value(default)
        if kv is None:
            continue
        lines.append(f"{domain} {schema.name} {schema.since_version} {name} {kv[0]} {kv[1]}")
OUT.write_text("\n".join(lines) + "\n")
print(f"{len(lines) - 1} defaults -> {OUT}")
