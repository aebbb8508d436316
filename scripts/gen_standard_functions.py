#!/usr/bin/env python3
"""Regenerate onnx-schema/src/standard_data.rs: the static function bodies of the
standard operators of onnx==1.23.2, as ONNX text, for `Inliner::expand`.

For each of the 28 operators below, every schema version (onnx.defs history, default domain)
is listed, and each function body a schema has (one per function opset version) is written
with the schema's attribute defaults turned into the body's attribute defaults
(`FunctionProto.attribute_proto`): a body then means the same whether or not a call gives an
attribute, and `Constant <value_float = @alpha> ()` never loses its value.

Each text is checked here: onnx.parser.parse_function gives back exactly the wheel's body
with the defaults (doc strings aside, which the text does not carry, and whether an empty
tensor name is set). The output is
deterministic. Usage (from anywhere):

    pip install -r scripts/requirements.txt
    python3 scripts/gen_standard_functions.py           # rewrite the file
    python3 scripts/gen_standard_functions.py --check   # exit 1 if the committed file is stale
"""

from __future__ import annotations

import argparse
import pathlib
import re
import sys

import onnx
import onnx.defs
import onnx.helper
import onnx.parser
import onnx.printer

REFERENCE_VERSION = "1.23.2"
assert onnx.__version__ == REFERENCE_VERSION, (
    f"onnx=={REFERENCE_VERSION} is required, found {onnx.__version__}"
)

REPO = pathlib.Path(__file__).resolve().parent.parent
OUTPUT = REPO / "onnx-schema" / "src" / "standard_data.rs"

# The operators whose schemas have static function bodies (context-dependent ones, such as
# Gelu or LayerNormalization, build their bodies per call and are not data). Range also has a
# static body, but it is a Loop with a scan output whose shape depends on the inputs; it is
# left out as the issue scopes it.
OPERATORS = [
    "AffineGrid", "BlackmanWindow", "Celu", "DynamicQuantizeLinear", "Elu", "GreaterOrEqual",
    "HammingWindow", "HannWindow", "HardSigmoid", "HardSwish", "LeakyRelu", "LessOrEqual",
    "MeanVarianceNormalization", "Mish", "PRelu", "ReduceL1", "ReduceL2", "ReduceLogSum",
    "ReduceLogSumExp", "ReduceSumSquare", "Relu", "Selu", "Shrink", "Softplus", "Softsign",
    "SwiGLU", "Swish", "ThresholdedRelu",
]


def attribute_list_text(names: list[str], defaults: list[onnx.AttributeProto]) -> str:
    """The `<…>` of a function header: plain names, then `name: type = value` defaults, as
    onnx.printer writes a node's attributes."""
    parts = list(names)
    if defaults:
        node = onnx.helper.make_node("X", [], [])
        node.attribute.extend(defaults)
        printed = onnx.printer.to_text(node).strip()
        match = re.fullmatch(r"=? ?X <(.*)> \(\)", printed)
        assert match, printed
        parts.append(match.group(1))
    return ", ".join(parts)


def clear_empty_tensor_names(nodes) -> None:
    """Drops empty tensor names: the parser always sets one, the wheel's bodies only some."""
    for node in nodes:
        for attribute in node.attribute:
            if attribute.HasField("t") and not attribute.t.name:
                attribute.t.ClearField("name")
            for graph in [attribute.g] if attribute.HasField("g") else list(attribute.graphs):
                clear_empty_tensor_names(graph.node)


def body_text(schema, opset: int) -> tuple[str, onnx.FunctionProto]:
    body = onnx.FunctionProto()
    body.ParseFromString(schema.get_function_with_opset_version(opset))
    defaults = [
        a.default_value
        for _, a in sorted(schema.attributes.items())
        if a.default_value.type != onnx.AttributeProto.UNDEFINED
    ]
    with_default = {d.name for d in defaults}
    names = [n for n in body.attribute if n not in with_default]
    expected = onnx.FunctionProto()
    expected.CopyFrom(body)
    expected.ClearField("doc_string")
    del expected.attribute[:]
    expected.attribute.extend(names)
    expected.attribute_proto.extend(defaults)

    printed = onnx.printer.to_text(body)
    header = re.compile(rf"^{schema.name} (<[^>]*>)?\(", re.M)
    attributes = attribute_list_text(names, defaults)
    replacement = f"{schema.name} <{attributes}> (" if attributes else f"{schema.name} ("
    text, count = header.subn(lambda _: replacement, printed, count=1)
    assert count == 1, printed
    parsed = onnx.parser.parse_function(text)
    clear_empty_tensor_names(parsed.node)
    clear_empty_tensor_names(expected.node)
    assert parsed == expected, f"{schema.name} {opset}: the text does not parse back to the body"
    return text, expected


def generate() -> str:
    history = [
        s
        for s in onnx.defs.get_all_schemas_with_history()
        if s.domain == "" and s.name in OPERATORS
    ]
    assert {s.name for s in history} == set(OPERATORS)
    bodies = []
    for schema in sorted(history, key=lambda s: (s.name, s.since_version)):
        if not schema.has_function:
            continue
        for opset in sorted(schema.function_opset_versions):
            text, _ = body_text(schema, opset)
            bodies.append((schema.name, schema.since_version, opset, text))
    out = [
        f"//! Generated by scripts/gen_standard_functions.py from onnx {REFERENCE_VERSION}: do not edit.",
        "//!",
        "//! The static function bodies of the standard operators, with the schemas' attribute",
        "//! defaults as the bodies' defaults.",
        "",
        "/// The operators with static bodies. Their schema versions are the schema table's",
        "/// (`check/schema/schemas.txt`).",
        "#[rustfmt::skip] // generated: the script's layout, so that --check compares bytes",
        f"pub(super) const OPERATORS: [&str; {len(OPERATORS)}] = [",
    ]
    for name in OPERATORS:
        out.append(f'    "{name}",')
    out += [
        "];",
        "",
        "/// (operator, schema `since_version`, body opset version, body text).",
        "#[rustfmt::skip]",
        "pub(super) const BODIES: &[(&str, i64, i64, &str)] = &[",
    ]
    for name, since, opset, text in bodies:
        assert '"#' not in text
        out.append(f'    ("{name}", {since}, {opset}, r#"{text.strip()}"#),')
    out += ["];", ""]
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the file is stale")
    args = parser.parse_args()
    text = generate()
    if args.check:
        if OUTPUT.read_text() != text:
            print(f"{OUTPUT} is stale: run {sys.argv[0]}", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text)
    print(f"wrote {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
