#!/usr/bin/env python3
"""Regenerate the conformance kit's data (onnx-conformance-data/data/ and
onnx-conformance-data/src/lib.rs) from onnx==1.23.2's node test cases.

onnx no longer ships its node cases as files: they are built in memory by
`onnx.backend.test.loader.load_model_tests(kind="node")`. This script builds them and writes,
for every case, in onnx-conformance-data/data/<case name>/:

    model.onnxtxt       the model as ONNX text, printed by this repository's own printer
                        (`onnx-text convert`), and checked to parse back to the same model
    input_<i>.pb        the i-th input, as onnx's old generator wrote them: a TensorProto, or a
    output_<i>.pb       SequenceProto / OptionalProto / MapProto when the graph's value has
                        that type

and onnx-conformance-data/data/manifest.tsv (one line per case) and the Rust catalog
onnx-conformance-data/src/lib.rs that embeds all of it, as tables that onnx-conformance reads
into its cases.

Determinism: the cases draw from numpy's global generator (and some seed it themselves), so
both numpy's and Python's generators are seeded before the cases are built; two runs give the
same bytes (`--check` compares against the committed files).

Usage (from anywhere; builds the CLI if needed):

    python3 scripts/gen_conformance.py            # rewrite the data
    python3 scripts/gen_conformance.py --check    # exit 1 if the committed data is stale

The constant-input hint: a case's `constant_inputs` are the positions of its inputs, other than
the first, that are tensors (not sequences, optionals or maps). Those are the operands that
onnx's node tests feed as data but that real models usually hold as initializers (a reduction's
axes, a Reshape's shape, BatchNormalization's scale, bias, mean and variance), so a runtime may
fold them into the model as constants. The first input is hinted too when the operator takes no
data at all (PARAMETER_OPERATORS: a window's size, MelWeightMatrix's scalars, ConstantOfShape's
shape, Range's bounds).
"""

from __future__ import annotations

import argparse
import pathlib
import random
import re
import shutil
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

REFERENCE_VERSION = "1.23.2"
assert onnx.__version__ == REFERENCE_VERSION, (
    f"onnx=={REFERENCE_VERSION} is required, found {onnx.__version__}"
)

REPO = pathlib.Path(__file__).resolve().parent.parent
# 1.23.2's node cases are a crate of their own, which needs nothing but the macro: it compiles
# beside the kit's harness (docs/conformance.md, the kit's build).
DATA_CRATE = REPO / "onnx-conformance-data"
DATA = DATA_CRATE / "data"
CATALOG = DATA_CRATE / "src" / "lib.rs"
CLI = REPO / "target" / "debug" / "onnx-text"

EXPANDED = re.compile(r"^(?P<base>.+)_expanded(_ver\d+)?$")

# The operators whose every input is a parameter by onnx's spec, none of them data: a window's
# size, MelWeightMatrix's bins, lengths, rate and edges, ConstantOfShape's shape, Range's start,
# limit and delta. Real models hold these as constants, and a runtime may need them so (tract
# takes a window's size and MelWeightMatrix's inputs only as constants), so the hint takes their
# first input too. scripts/gen_releases.py uses the same rule.
PARAMETER_OPERATORS = frozenset(
    {"BlackmanWindow", "HammingWindow", "HannWindow", "MelWeightMatrix", "ConstantOfShape", "Range"}
)


def hinted_inputs(op_type: str, types: list[onnx.TypeProto]) -> list[int]:
    """The constant-input hint of a node case of `op_type` whose inputs have these types: every
    tensor input but the first, and the first too for PARAMETER_OPERATORS."""
    first = 0 if op_type in PARAMETER_OPERATORS else 1
    return [i for i in range(first, len(types)) if types[i].HasField("tensor_type")]


def load_cases() -> list:
    """onnx's node cases, built with every random generator seeded."""
    np.random.seed(0)
    random.seed(0)
    from onnx.backend.test.loader import load_model_tests  # noqa: PLC0415

    with warnings.catch_warnings():
        # Some cases overflow on purpose (casts to float8); numpy warns about it.
        warnings.simplefilter("ignore")
        return load_model_tests(kind="node")


def value_bytes(value, type_proto: onnx.TypeProto, name: str) -> bytes:
    """One input or output as onnx's generator serialized it: by the graph value's type."""
    if type_proto.HasField("map_type"):
        return numpy_helper.from_dict(value, name).SerializeToString()
    if type_proto.HasField("sequence_type"):
        return numpy_helper.from_list(value, name).SerializeToString()
    if type_proto.HasField("optional_type"):
        return numpy_helper.from_optional(value, name).SerializeToString()
    assert type_proto.HasField("tensor_type"), name
    if isinstance(value, TensorProto):
        return value.SerializeToString()
    return numpy_helper.from_array(np.asarray(value), name).SerializeToString()


def tested_operator(case, operators: dict[str, tuple[str, str]]) -> tuple[str, str]:
    """The (op_type, domain) a case tests. An `_expanded` case runs the operator's function
    body, so it is named after the case it expands."""
    match = EXPANDED.match(case.name)
    if match and match["base"] in operators:
        return operators[match["base"]]
    nodes = case.model.graph.node
    assert len(nodes) == 1, f"{case.name}: {len(nodes)} nodes"
    return nodes[0].op_type, nodes[0].domain


def opset_version(model: onnx.ModelProto, domain: str) -> int:
    wanted = {"", "ai.onnx"} if domain in {"", "ai.onnx"} else {domain}
    versions = [o.version for o in model.opset_import if o.domain in wanted]
    assert len(versions) == 1, (model.graph.name, domain)
    return versions[0]


def normalized(model: onnx.ModelProto) -> onnx.ModelProto:
    """The model with the differences the text form makes by design undone (see the crate
    docs): every node gets an explicit domain and every attribute tensor an explicit name, as
    the parser always writes them, and a tensor's raw_data becomes its typed field, as the
    text writes every tensor's values as a list."""
    model = onnx.ModelProto.FromString(model.SerializeToString())

    def graph(g: onnx.GraphProto) -> None:
        for node in g.node:
            if not node.HasField("domain"):
                node.domain = ""
            for attribute in node.attribute:
                tensors = [*attribute.tensors]
                if attribute.HasField("t"):
                    tensors.append(attribute.t)
                for tensor in tensors:
                    if not tensor.HasField("name"):
                        tensor.name = ""
                    if tensor.HasField("raw_data"):
                        values = numpy_helper.to_array(tensor).flatten().tolist()
                        typed = onnx.helper.make_tensor(
                            tensor.name, tensor.data_type, tensor.dims, values
                        )
                        tensor.CopyFrom(typed)
                if attribute.HasField("g"):
                    graph(attribute.g)
                for sub in attribute.graphs:
                    graph(sub)

    graph(model.graph)
    return model


def print_models(cases, workdir: pathlib.Path) -> dict[str, str]:
    """Every model as text, by our printer, checked to parse back to the same model."""
    texts = {}
    different = []
    for case in cases:
        binary = workdir / f"{case.name}.onnx"
        text = workdir / f"{case.name}.onnxtxt"
        back = workdir / f"{case.name}.back.onnx"
        binary.write_bytes(case.model.SerializeToString())
        subprocess.run([CLI, "convert", binary, "-o", text], check=True)
        subprocess.run([CLI, "convert", text, "-o", back], check=True)
        again = onnx.ModelProto.FromString(back.read_bytes())
        want = normalized(case.model).SerializeToString()
        if again.SerializeToString() != want:
            different.append(case.name)
        texts[case.name] = text.read_text()
    if different:
        sys.exit(f"{len(different)} texts do not parse back to the same model: {different[:20]}")
    return texts


def generate(out: pathlib.Path) -> int:
    cases = sorted(load_cases(), key=lambda c: c.name)
    operators = {}
    for case in cases:
        if not EXPANDED.match(case.name):
            node = case.model.graph.node[0]
            operators[case.name] = (node.op_type, node.domain)

    data = out / "data"
    data.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        texts = print_models(cases, pathlib.Path(tmp))

    manifest = ["# name\top_type\tdomain\topset_version\trtol\tatol\tinputs\toutputs\tconstant_inputs"]
    # The catalog's tables, in the manifest's order (see the catalog's header).
    model_texts, models, files = [], [], []
    for case in cases:
        (inputs, outputs), = case.data_sets
        graph = case.model.graph
        folder = data / case.name
        folder.mkdir()
        (folder / "model.onnxtxt").write_text(texts[case.name])
        for i, (value, info) in enumerate(zip(inputs, graph.input, strict=True)):
            (folder / f"input_{i}.pb").write_bytes(value_bytes(value, info.type, info.name))
        for i, (value, info) in enumerate(zip(outputs, graph.output, strict=True)):
            (folder / f"output_{i}.pb").write_bytes(value_bytes(value, info.type, info.name))
        op_type, domain = tested_operator(case, operators)
        constant = hinted_inputs(op_type, [info.type for info in graph.input])
        version = opset_version(case.model, domain)
        manifest.append(
            "\t".join(
                [case.name, op_type, domain, str(version), repr(case.rtol), repr(case.atol),
                 str(len(inputs)), str(len(outputs)), ",".join(map(str, constant))]
            )
        )
        model_texts.append(f'    include_str!("../data/{case.name}/model.onnxtxt"),\n')
        models.append(f'    include_onnx_bytes!("data/{case.name}/model.onnxtxt"),\n')
        files.extend(
            f'    include_bytes!("../data/{case.name}/{kind}_{i}.pb"),\n'
            for kind, n in (("input", len(inputs)), ("output", len(outputs)))
            for i in range(n)
        )
    (data / "manifest.tsv").write_text("\n".join(manifest) + "\n")
    src = out / "src"
    src.mkdir()
    catalog = src / "lib.rs"
    catalog.write_text(
        "// Generated by scripts/gen_conformance.py from onnx 1.23.2's node test cases: do not edit.\n"
        "//! onnx 1.23.2's node test cases, as data for `onnx-conformance`: read them through\n"
        "//! `onnx_conformance::cases`. Every model is ONNX text, checked at compile time by\n"
        "//! `include_onnx_bytes!`; every input and output is the file onnx's generator made.\n"
        "//!\n"
        "//! The cases are tables, in the manifest's order, that `onnx-conformance` reads into its\n"
        "//! `Case`s once, at run time: rustc compiles a few flat arrays much faster than 1,884\n"
        "//! values each with slices of its own, and this crate, which needs only the macro,\n"
        "//! compiles beside the kit's harness (see the kit's `docs/conformance.md`).\n\n"
        "use onnx_macro::include_onnx_bytes;\n\n"
        "/// A line per case after the header: name, operator, domain, opset version, rtol, atol,\n"
        "/// the number of inputs and of outputs, and the inputs hinted constant.\n"
        "///\n"
        "/// ```\n"
        "/// let first = onnx_conformance_data::MANIFEST.lines().nth(1).unwrap();\n"
        '/// assert!(first.starts_with("test_abs\\tAbs\\t"));\n'
        "/// ```\n"
        'pub static MANIFEST: &str = include_str!("../data/manifest.tsv");\n\n'
        "/// Each case's model as text.\n"
        "///\n"
        "/// ```\n"
        '/// assert!(onnx_conformance_data::TEXTS[0].contains("y = Abs (x)"));\n'
        "/// ```\n"
        f"pub static TEXTS: [&str; {len(model_texts)}] = [\n" + "".join(model_texts) + "];\n\n"
        "/// Each case's model: its text's protobuf encoding, made and checked at compile time.\n"
        "///\n"
        "/// ```\n"
        "/// assert_eq!(onnx_conformance_data::MODELS.len(), onnx_conformance_data::TEXTS.len());\n"
        "/// ```\n"
        f"pub static MODELS: [&[u8]; {len(models)}] = [\n" + "".join(models) + "];\n\n"
        "/// Each case's input files, then its output files, case after case.\n"
        "///\n"
        "/// ```\n"
        "/// // test_abs's input, then its output: 60 floats each, and a little more.\n"
        "/// assert!(onnx_conformance_data::FILES[..2].iter().all(|f| f.len() > 240));\n"
        "/// ```\n"
        f"pub static FILES: [&[u8]; {len(files)}] = [\n" + "".join(files) + "];\n"
    )
    # As `cargo fmt --all` leaves it, so that CI's format check passes.
    subprocess.run(["rustfmt", "--edition", "2024", catalog], check=True)
    return len(cases)


def files_under(root: pathlib.Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    args = parser.parse_args()
    if not CLI.exists():
        subprocess.run(
            ["cargo", "build", "-p", "onnx-text-cli"], cwd=REPO, check=True
        )
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp)
        count = generate(out)
        made = files_under(out / "data") | {"../src/lib.rs": (out / "src" / "lib.rs").read_bytes()}
        if args.check:
            committed = files_under(DATA)
            if CATALOG.exists():
                committed["../src/lib.rs"] = CATALOG.read_bytes()
            stale = sorted(k for k in made.keys() | committed.keys() if made.get(k) != committed.get(k))
            if stale:
                sys.exit(f"{len(stale)} files differ from the generated ones, e.g. {stale[:5]}")
            print(f"{count} cases, up to date")
            return
        if DATA.exists():
            shutil.rmtree(DATA)
        shutil.copytree(out / "data", DATA)
        CATALOG.write_bytes(made["../src/lib.rs"])
        size = sum(len(b) for b in made.values())
        print(f"{count} cases, {len(made)} files, {size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
