#!/usr/bin/env python3
"""Regenerate the conformance kit's data of every onnx release from 1.4.1 to 1.22.0, and of
1.23.2's model tests, from the test files inside each release's wheel.

onnx shipped its backend test data as files in its wheels until 1.22 (the node tests) and
still ships the model tests (`simple`, `pytorch-operator`, `pytorch-converted`); 1.23.2's node
tests are built in memory by scripts/gen_conformance.py instead. This script:

1. downloads each release's wheel from PyPI (`pip download --no-deps`, any platform: it is
   unzipped, never installed) into a cache outside the repository (`~/.cache/onnx-text-wheels`,
   or $ONNX_TEXT_WHEELS), and checks its SHA-256 against the table below;
2. reads, in each wheel, `onnx/backend/test/data/{node,simple,pytorch-operator,pytorch-converted}/
   <case>/model.onnx` and `test_data_set_0/{input,output}_<i>.pb` (every case of these releases
   has exactly one data set: the script fails if one has another). `real` and `light` are left
   out: `real` names downloads (data.json), and `light` holds large models without inputs;
3. prints every distinct model as ONNX text with this repository's CLI (`onnx-text convert`),
   converts the text back and requires onnx's model, with the four changes the text form makes
   undone (see the kit's crate docs), and runs every check on it (`onnx-text check`): a model
   that fails a check must be in ALLOWED below, by case name, and is then built with
   `#![allow(...)]` of exactly those checks (docs/divergences.md says why each breaks a rule);
4. writes, content-addressed (each distinct file once, named by its SHA-256):
   - onnx-conformance-releases-node/: the node tests' models as text (models/<hash>.onnxtxt)
     and their .pb files exactly as the wheels hold them (data/<hash>.pb), and its src/lib.rs;
   - onnx-conformance-releases-model/: the same for the model tests;
   - onnx-conformance/src/releases/catalog.rs: every release's cases, each a `Case` whose
     model, text and files are the data crates' items.
   A model whose text is also a 1.23.2 case's (onnx-conformance-data/data/, gen_conformance.py's:
   run that first) is not built again: the catalog takes onnx-conformance-data's encoding of it.
   Each item of a data crate is compiled only when a release that uses it is selected: the
   items sit in modules by the set of releases that use them, each behind
   `#[cfg(any(feature = "onnx_1_9_0", ...))]`, and the kit's features (`onnx_1_9_0`, ...,
   `all-releases`) turn the data crates' features on.

Usage (from anywhere; builds the CLI with cargo):

    python3 scripts/gen_releases.py            # rewrite the data
    python3 scripts/gen_releases.py --check    # exit 1 if the committed data is stale

Two runs give the same bytes: the wheels are fixed by their hashes, and everything is sorted.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

import onnx
from onnx import numpy_helper

# The node cases' constant-input hint, shared with 1.23.2's cases (this directory is on the path
# of a script run from it).
from gen_conformance import hinted_inputs

REPO = pathlib.Path(__file__).resolve().parent.parent
KIT = REPO / "onnx-conformance"
# 1.23.2's node cases (scripts/gen_conformance.py's).
KIT_DATA = REPO / "onnx-conformance-data"
CATALOG = KIT / "src" / "releases" / "catalog.rs"
KIT_TOML = KIT / "Cargo.toml"
NODE_CRATE = REPO / "onnx-conformance-releases-node"
MODEL_CRATE = REPO / "onnx-conformance-releases-model"
WHEELS = pathlib.Path(
    os.environ.get("ONNX_TEXT_WHEELS", pathlib.Path.home() / ".cache" / "onnx-text-wheels")
)

# Every release: the Python version whose wheel is taken (any wheel of a release holds the same
# test files), the wheel's name and its SHA-256 as PyPI serves it.
RELEASES = {
    "1.4.1": ("3.6", "onnx-1.4.1-cp36-cp36m-manylinux1_x86_64.whl",
              "b0fb57c853420c44f099919e044b527dfeff2ac59d9f8fdc2ae19979b3bc5e28"),
    "1.5.0": ("3.6", "onnx-1.5.0-cp36-cp36m-manylinux1_x86_64.whl",
              "f6202b2b5e353f98cba793cc52d449e578cc242968e89a4c6cfc73fa2591e926"),
    "1.6.0": ("3.6", "onnx-1.6.0-cp36-cp36m-manylinux1_x86_64.whl",
              "a7e3ab3e81684bc75ac5476b5f2c690ad8d250bc8ece02eed5445c115577e6e4"),
    "1.7.0": ("3.6", "onnx-1.7.0-cp36-cp36m-manylinux1_x86_64.whl",
              "99324e91cdd62c05bcb753d1a2b4f6824c00d3a0ce6451a713d6d1f63143f6fc"),
    "1.8.1": ("3.6", "onnx-1.8.1-cp36-cp36m-manylinux2010_x86_64.whl",
              "7b4b4a9e3e45b4d308cf0182e9759cb8c97a3b17d64bf3c4dd6bb8fd39a1728a"),
    "1.9.0": ("3.6", "onnx-1.9.0-cp36-cp36m-manylinux2010_x86_64.whl",
              "685b670336ab23bc03c6112d164cfcc58bd4e27e7aa2bd73c917e1a3b973f609"),
    "1.10.2": ("3.6", "onnx-1.10.2-cp36-cp36m-manylinux_2_12_x86_64.manylinux2010_x86_64.whl",
               "186abf5e9189b4b011da290c6d83d5499adefac8f6a07f5d596a192b4c911098"),
    "1.11.0": ("3.8", "onnx-1.11.0-cp38-cp38-manylinux_2_12_x86_64.manylinux2010_x86_64.whl",
               "89420e5b824d7e182846fe2aa09190ddb41162b261465c6ca928174bc2ac10b7"),
    "1.12.0": ("3.8", "onnx-1.12.0-cp38-cp38-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
               "2d9a7db54e75529160337232282a4816cc50667dc7dc34be178fd6f6b79d4705"),
    "1.13.0": ("3.8", "onnx-1.13.0-cp38-cp38-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
               "2ad8208252f6d61dcd487c2c62f6fbc1eee24bf11addb56c500cf0feb8966f36"),
    "1.14.1": ("3.8", "onnx-1.14.1-cp38-cp38-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
               "e991e867b799df0d7ed4cdad94c6a3ed9bebaceef3e574ac9eed314e1bfca0ef"),
    "1.15.0": ("3.11", "onnx-1.15.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
               "d8a7c94d2ebead8f739fdb70d1ce5a71726f4e17b3e5b8ad64455ea1b2801a85"),
    "1.16.2": ("3.11", "onnx-1.16.2-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
               "7b98aa9733bd4b781eb931d33b4078ff2837e7d68062460726d6dd011f332bd4"),
    "1.17.0": ("3.11", "onnx-1.17.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
               "4a183c6178be001bf398260e5ac2c927dc43e7746e8638d6c05c20e321f8c949"),
    "1.18.0": ("3.11", "onnx-1.18.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
               "6acafb3823238bbe8f4340c7ac32fb218689442e074d797bee1c5c9a02fdae75"),
    "1.19.1": ("3.11", "onnx-1.19.1-cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
               "1839af08ab4a909e4af936b8149c27f8c64b96138981024e251906e0539d8bf9"),
    "1.20.1": ("3.11", "onnx-1.20.1-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
               "2297f428c51c7fc6d8fad0cf34384284dfeff3f86799f8e83ef905451348ade0"),
    "1.21.0": ("3.11", "onnx-1.21.0-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
               "10c3185a232089335581fabb98fba4e86d3e8246b8140f2e406082438100ebda"),
    "1.22.0": ("3.11", "onnx-1.22.0-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
               "1d0a2bdb15eb2b3cb65c438f3423d9620d14fdce32f92380e6bb1b2e09568ef5"),
    # Only its model tests: its node tests are gen_conformance.py's (the wheel has none).
    "1.23.2": ("3.11", "onnx-1.23.2-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
               "c03ecf6b835d136108eeaeeafbd0026fc7b3cf98661409fbc6b63d5a29361348"),
}
NEWEST = "1.23.2"
PLATFORMS = ["manylinux1_x86_64", "manylinux2010_x86_64", "manylinux2014_x86_64",
             "manylinux_2_17_x86_64", "manylinux_2_28_x86_64"]

NODE = "node"
MODEL_SUITES = ["simple", "pytorch-operator", "pytorch-converted"]
SUITES = [NODE, *MODEL_SUITES]

# onnx's runner: rtol and atol of every node and model case (the loader's defaults; none of
# these cases has a data.json that sets others).
RTOL, ATOL = 1e-3, 1e-7

# Models that break a rule our checks enforce, by case name, with the checks they are built
# without; docs/divergences.md says why each breaks it. The script fails if a model fails a check
# not listed here, and if an entry here is not needed.
ALLOWED = {
    # onnx 1.4.1's experimental DynamicSlice, removed in 1.5 (Slice-10 replaced it).
    "test_dynamic_slice": ["unknown_operator"],
    "test_dynamic_slice_default_axes": ["unknown_operator"],
    "test_dynamic_slice_end_out_of_bounds": ["unknown_operator"],
    "test_dynamic_slice_neg": ["unknown_operator"],
    "test_dynamic_slice_start_out_of_bounds": ["unknown_operator"],
    # onnx 1.4.1's ThresholdedRelu, experimental until opset 10, at opset 9.
    "test_thresholdedrelu": ["unknown_operator"],
    "test_thresholdedrelu_default": ["unknown_operator"],
    "test_thresholdedrelu_example": ["unknown_operator"],
    # GroupNormalization-18 (1.13.0 to 1.15.0), deprecated since: onnx's checker rejects it too.
    "test_group_normalization_epsilon": ["unknown_operator"],
    "test_group_normalization_example": ["unknown_operator"],
    # 1.16.2 declared an output shape that MaxPool's ceil rule does not give (fixed in 1.17.0):
    # onnx's checker rejects it too.
    "test_maxpool_2d_ceil_output_size_reduce_by_one": ["shape_mismatch"],
}

EXPANDED = re.compile(r"^(?P<base>.+)_expanded(_ver\d+)?$")
CASE_FILE = re.compile(
    r"^onnx/backend/test/data/(?P<suite>[^/]+)/(?P<case>[^/]+)/(?P<file>.+)$"
)
DATA_FILE = re.compile(r"^test_data_set_(?P<set>\d+)/(?P<kind>input|output)_(?P<i>\d+)\.pb$")


def feature(version: str) -> str:
    return "onnx_" + version.replace(".", "_")


def digest(data: bytes) -> str:
    """A file's name in the data crates: the first 16 hex digits of its SHA-256 (the script
    fails if two files share them)."""
    return hashlib.sha256(data).hexdigest()[:16]


# ---------------------------------------------------------------------------------------------
# The wheels


def wheel(version: str) -> pathlib.Path:
    """The release's wheel, downloaded if not cached, checked against its hash."""
    python, name, sha256 = RELEASES[version]
    path = WHEELS / name
    if not path.exists():
        WHEELS.mkdir(parents=True, exist_ok=True)
        platforms = [arg for p in PLATFORMS for arg in ("--platform", p)]
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
             "--python-version", python, *platforms, "--dest", str(WHEELS),
             f"onnx=={version}"],
            check=True,
        )
    if not path.exists():
        sys.exit(f"pip did not download {name}: see {WHEELS}")
    actual = hashlib.sha256(path.read_bytes()).hexdigest()
    if actual != sha256:
        sys.exit(f"{path}: SHA-256 {actual}, expected {sha256}")
    return path


class Case:
    """One case as the wheel holds it."""

    def __init__(self, suite: str, name: str):
        self.suite = suite
        self.name = name
        self.model: bytes | None = None
        self.inputs: dict[int, bytes] = {}
        self.outputs: dict[int, bytes] = {}


def read_release(version: str) -> list[Case]:
    """The release's cases (node tests first, then the model tests), each sorted by name."""
    cases: dict[tuple[str, str], Case] = {}
    with zipfile.ZipFile(wheel(version)) as archive:
        for entry in sorted(archive.namelist()):
            match = CASE_FILE.match(entry)
            if not match or match["suite"] not in SUITES or entry.endswith("/"):
                continue
            suite, name, file = match["suite"], match["case"], match["file"]
            case = cases.setdefault((suite, name), Case(suite, name))
            data = archive.read(entry)
            if file == "model.onnx":
                case.model = data
                continue
            data_file = DATA_FILE.match(file)
            if not data_file or data_file["set"] != "0":
                sys.exit(f"{version}: unexpected file {entry}")
            files = case.inputs if data_file["kind"] == "input" else case.outputs
            files[int(data_file["i"])] = data
    if version == NEWEST and any(suite == NODE for suite, _ in cases):
        sys.exit(f"{version}'s wheel holds node tests: gen_conformance.py makes them")
    for case in cases.values():
        for files in (case.inputs, case.outputs):
            if sorted(files) != list(range(len(files))):
                sys.exit(f"{version}: {case.suite}/{case.name}: files not numbered 0..n")
        if case.model is None:
            sys.exit(f"{version}: {case.suite}/{case.name} has no model.onnx")
    order = {suite: i for i, suite in enumerate(SUITES)}
    ordered = sorted(cases.values(), key=lambda c: (c.suite != NODE, order[c.suite], c.name))
    names = [c.name for c in ordered]
    if len(set(names)) != len(names):
        sys.exit(f"{version}: two suites share a case name")
    return ordered


# ---------------------------------------------------------------------------------------------
# The models as text


UNCHECKED: list[str] = []


def build_cli(tmp: pathlib.Path) -> pathlib.Path:
    """This repository's CLI, built with cargo and copied out of the (possibly shared) target
    directory, so that no other build replaces it while the script runs. $ONNX_TEXT_CLI names
    one built already (the first run, before the data crates that the workspace lists exist)."""
    if given := os.environ.get("ONNX_TEXT_CLI"):
        cli = tmp / "onnx-text"
        shutil.copy2(given, cli)
        return cli
    built = subprocess.run(
        ["cargo", "build", "-p", "onnx-text-cli", "--message-format=json"],
        cwd=REPO, capture_output=True, text=True,
    )
    if built.returncode != 0:
        sys.exit(f"cargo build -p onnx-text-cli failed:\n{built.stderr}")
    for line in built.stdout.splitlines():
        message = json.loads(line)
        if message.get("reason") == "compiler-artifact" and message.get("executable"):
            cli = tmp / "onnx-text"
            shutil.copy2(message["executable"], cli)
            return cli
    sys.exit("cargo built no onnx-text executable")


def typed(tensor: onnx.TensorProto) -> None:
    """A tensor's raw_data as its typed field, as the text writes every tensor's values."""
    if not tensor.HasField("name"):
        tensor.name = ""
    if tensor.HasField("raw_data"):
        values = numpy_helper.to_array(tensor).flatten().tolist()
        tensor.CopyFrom(onnx.helper.make_tensor(tensor.name, tensor.data_type, tensor.dims, values))


def normalized(model: onnx.ModelProto) -> onnx.ModelProto:
    """The model with the differences the text form makes by design undone (see the kit's
    crate docs): an opset_import entry and a node get an explicit domain, every tensor in an
    attribute an explicit name, and every tensor (initializer or attribute) its values in the
    typed field instead of raw_data."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    for opset in model.opset_import:
        if not opset.HasField("domain"):
            opset.domain = ""

    def graph(g: onnx.GraphProto) -> None:
        for tensor in g.initializer:
            if tensor.HasField("raw_data"):
                typed(tensor)
        for node in g.node:
            if not node.HasField("domain"):
                node.domain = ""
            for attribute in node.attribute:
                for tensor in attribute.tensors:
                    typed(tensor)
                if attribute.HasField("t"):
                    typed(attribute.t)
                if attribute.HasField("g"):
                    graph(attribute.g)
                for sub in attribute.graphs:
                    graph(sub)

    graph(model.graph)
    return model


def print_model(cli: pathlib.Path, workdir: pathlib.Path, key: str, model: bytes) -> str:
    """The model as text, by our printer, checked to parse back to onnx's model as the text
    form gives it."""
    binary, text, back = (workdir / f"{key}{ext}" for ext in (".onnx", ".onnxtxt", ".back.onnx"))
    binary.write_bytes(model)
    subprocess.run([cli, "convert", binary, "-o", text], check=True)
    # The checks run apart (see `rejected`): the parse back must not stop at them. A CLI whose
    # `convert` checks a text by default takes `--unchecked`.
    subprocess.run([cli, "convert", *UNCHECKED, text, "-o", back], check=True)
    want = normalized(onnx.ModelProto.FromString(model)).SerializeToString()
    if back.read_bytes() != want:
        sys.exit(f"{key}: the text does not parse back to the model ({binary})")
    return text.read_text()


def rejected(cli: pathlib.Path, workdir: pathlib.Path, texts: dict[str, str]) -> dict[str, list[str]]:
    """The checks each text fails (`onnx-text check`, the checks `include_onnx!` runs)."""
    failures: dict[str, set[str]] = collections.defaultdict(set)
    keys = sorted(texts)
    for start in range(0, len(keys), 500):
        files = []
        for key in keys[start : start + 500]:
            path = workdir / f"check-{key}.onnxtxt"
            path.write_text(texts[key])
            files.append(path)
        result = subprocess.run([cli, "check", "--quiet", *files], capture_output=True, text=True)
        check = None
        for line in result.stderr.splitlines():
            if m := re.match(r"^(?:error|warning)\[(\w+)\]", line):
                check = m[1]
            elif (m := re.match(r"^\s*--> .*check-(\w+)\.onnxtxt:", line)) and check:
                failures[m[1]].add(check)
                check = None
        if result.returncode != 0 and not failures:
            sys.exit(f"onnx-text check failed without diagnostics:\n{result.stderr}")
    return {key: sorted(checks) for key, checks in failures.items()}


# ---------------------------------------------------------------------------------------------
# What each case says about itself


def graph_types(model: onnx.ModelProto) -> list[onnx.TypeProto]:
    return [i.type for i in model.graph.input]


def model_hinted_inputs(graph: onnx.GraphProto, count: int) -> list[int]:
    """The constant-input hint of a model test, of its first `count` inputs (the ones its files
    give): the node cases' rule lifted to a graph. A tensor input other than the first is hinted
    when the nodes read it only after their first input (a shape, axes, a second operand: what a
    node case hints), as test_expand_shape_model1's `shape`; one that a node reads first, a
    subgraph reads, or the graph gives as an output is data, and so is the first input, as in a
    node case."""
    data = {output.name for output in graph.output}
    later = set()

    def read_by_subgraphs(attribute: onnx.AttributeProto) -> None:
        for subgraph in [attribute.g, *attribute.graphs]:
            for node in subgraph.node:
                data.update(node.input)
                for inner in node.attribute:
                    read_by_subgraphs(inner)

    for node in graph.node:
        for position, name in enumerate(node.input):
            (later if position > 0 else data).add(name)
        for attribute in node.attribute:
            read_by_subgraphs(attribute)
    return [
        i
        for i, value in enumerate(graph.input[:count])
        if i > 0
        and value.type.HasField("tensor_type")
        and value.name in later
        and value.name not in data
    ]


def node_operator(case: Case, model: onnx.ModelProto, operators: dict) -> tuple[str, str]:
    """The (op_type, domain) a node case tests; an `_expanded` case is named after the case it
    expands (as gen_conformance.py does)."""
    match = EXPANDED.match(case.name)
    if match and match["base"] in operators:
        return operators[match["base"]]
    # One node, or (test_resize_downsample_sizes_nearest_tf_half_pixel_for_nn of 1.11.0 and
    # 1.12.0) one node after Constant nodes that make its inputs.
    nodes = [n for n in model.graph.node if n.op_type != "Constant"] or model.graph.node
    if len(nodes) != 1:
        sys.exit(f"{case.name}: {len(nodes)} nodes and no case it expands")
    return nodes[0].op_type, nodes[0].domain


def opset_version(model: onnx.ModelProto, domain: str) -> int:
    wanted = {"", "ai.onnx"} if domain in {"", "ai.onnx"} else {domain}
    versions = [o.version for o in model.opset_import if o.domain in wanted]
    if len(versions) != 1:
        sys.exit(f"{model.graph.name}: imports {domain or 'ai.onnx'} {len(versions)} times")
    return versions[0]


class Entry:
    """A case as the catalog writes it; equal entries of several releases are one constant."""

    def __init__(self, **fields):
        self.__dict__.update(fields)

    def key(self) -> tuple:
        return (self.suite, self.name, self.op_type, self.domain, self.opset_version,
                self.text, self.inputs, self.outputs, self.constant_inputs)


def entries_of(version: str, cases: list[Case], keys: dict[bytes, str]) -> list[Entry]:
    operators = {}
    models = {case.name: onnx.ModelProto.FromString(case.model) for case in cases}
    for case in cases:
        if case.suite == NODE and not EXPANDED.match(case.name):
            nodes = models[case.name].graph.node
            if len(nodes) == 1:
                operators[case.name] = (nodes[0].op_type, nodes[0].domain)
    entries = []
    for case in cases:
        model = models[case.name]
        text = keys[case.model]
        inputs = tuple(digest(case.inputs[i]) for i in range(len(case.inputs)))
        outputs = tuple(digest(case.outputs[i]) for i in range(len(case.outputs)))
        types = graph_types(model)
        if case.suite == NODE:
            if len(inputs) != len(types):
                sys.exit(f"{version}: {case.name}: {len(inputs)} inputs, {len(types)} in the graph")
            op_type, domain = node_operator(case, model, operators)
            constant = tuple(hinted_inputs(op_type, types))
        else:
            # A whole model: no operator. Before IR 4 its initializers are graph inputs too,
            # after the ones the files give.
            op_type, domain = "", ""
            constant = tuple(model_hinted_inputs(model.graph, len(inputs)))
        entries.append(Entry(
            suite=case.suite, name=case.name, op_type=op_type, domain=domain,
            opset_version=opset_version(model, domain), text=text, inputs=inputs,
            outputs=outputs, constant_inputs=constant,
        ))
    return entries


# ---------------------------------------------------------------------------------------------
# Writing


def rust_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def cfg(versions: list[str]) -> str:
    if len(versions) == 1:
        return f'#[cfg(feature = "{feature(versions[0])}")]'
    features = ", ".join(f'feature = "{feature(v)}"' for v in versions)
    return f"#[cfg(any({features}))]"


def module_name(versions: frozenset[str]) -> str:
    """A module per set of releases: `r` and the set as a bit mask over RELEASES' order."""
    mask = sum(1 << i for i, v in enumerate(RELEASES) if v in versions)
    return f"r{mask:06x}"


def sorted_versions(versions) -> list[str]:
    return [v for v in RELEASES if v in versions]


DATA_CRATE_TOML = """\
# Generated by scripts/gen_releases.py: do not edit.
[package]
name = "{name}"
description = "{description}"
version.workspace = true
edition.workspace = true
rust-version.workspace = true
license.workspace = true
include = ["src/**/*.rs", "data/**/*", "models/**/*", "Cargo.toml"]

[lib]
name = "{lib}"

[dependencies]
onnx-text = {{ path = "..", version = "0.1.0" }}

[features]
{features}
"""


def data_crate(out: pathlib.Path, name: str, what: str, blobs: dict[str, bytes],
               texts: dict[str, str], allowed: dict[str, list[str]],
               used_by: dict[str, set[str]], shared: dict[str, str]) -> None:
    """One data crate: its files and its lib.rs, each item behind the features of the releases
    that use it."""
    (out / "data").mkdir(parents=True)
    (out / "models").mkdir()
    for key, data in blobs.items():
        (out / "data" / f"{key}.pb").write_bytes(data)
    for key, text in texts.items():
        (out / "models" / f"{key}.onnxtxt").write_text(text)
    versions = sorted_versions({v for vs in used_by.values() for v in vs})
    features = "\n".join(f"{feature(v)} = []" for v in versions)
    lib = name.replace("-", "_")
    (out / "Cargo.toml").write_text(DATA_CRATE_TOML.format(
        name=name, lib=lib, features=features,
        description=f"{what} of onnx's releases since 1.4.1, for onnx-conformance's "
                    "release(): the models as ONNX text, the inputs and outputs as onnx shipped them",
    ))
    groups: dict[frozenset, list[str]] = collections.defaultdict(list)
    for key in sorted(used_by):
        groups[frozenset(used_by[key])].append(key)
    lines = [
        "// Generated by scripts/gen_releases.py: do not edit.",
        f"//! {what} of onnx's releases, for `onnx-conformance`: read them through",
        "//! `onnx_conformance::release`. Each model is ONNX text checked at compile time by",
        "//! `include_onnx_bytes!`, each input and output the `.pb` file onnx shipped, stored once however",
        "//! many releases hold it. An item is compiled only when a release that holds it is selected",
        "//! (the features `onnx_1_4_1`, ...), so a runtime builds only the releases it tests.",
        "//!",
        "//! A model's text `T_…` is an array of its bytes, and `onnx-conformance` takes a reference",
        "//! to the static: a `&str` static read by the kit's constants would be copied into the kit",
        "//! for each. Each is made by `utf8` from `include_str!`, so it is UTF-8, whole.",
        "#![allow(dead_code)]",
        "",
        "/// The bytes of `text`, all `N` of them: the compiler has checked that they are UTF-8.",
        "const fn utf8<const N: usize>(text: &'static str) -> &'static [u8; N] {",
        "    match text.as_bytes().first_chunk::<N>() {",
        "        Some(bytes) if text.len() == N => bytes,",
        '        _ => panic!("a text of another length"),',
        "    }",
        "}",
        "",
    ]
    for group in sorted(groups, key=module_name):
        members = sorted_versions(group)
        module = module_name(group)
        lines.append(f"/// The items of {', '.join(members)}.")
        lines.append(cfg(members))
        lines.append(f"mod {module} {{")
        for key in groups[group]:
            if key in blobs:
                # Arrays, not references: the catalog takes `&B_…`, a reference to this static,
                # where reading a `&[u8]` static's value would copy the bytes into the kit at
                # each constant that reads it.
                lines.append(f"    pub static B_{key.upper()}: [u8; {len(blobs[key])}] =")
                lines.append(f'        *include_bytes!("../data/{key}.pb");')
            else:
                allow = allowed.get(key)
                attribute = f"#![allow({', '.join(allow)})] " if allow else ""
                lines.append(f"    pub static T_{key.upper()}: [u8; {len(texts[key].encode())}] =")
                lines.append(f'        *super::utf8(include_str!("../models/{key}.onnxtxt"));')
                if key in shared:
                    # The same text as a 1.23.2 case: the kit builds that model already.
                    continue
                # The model's encoding, checked at compile time (see onnx-conformance's
                # catalog.rs): the catalog takes `&M_…`, a reference to this static.
                lines.append(
                    f"    pub static M_{key.upper()}: &[u8] =\n"
                    f'        onnx_text::include_onnx_bytes!({attribute}"models/{key}.onnxtxt");'
                )
        lines.append("}")
        lines.append(cfg(members))
        lines.append(f"pub use {module}::*;")
        lines.append("")
    src = out / "src"
    src.mkdir()
    (src / "lib.rs").write_text("\n".join(lines))
    subprocess.run(["rustfmt", "--edition", "2024", src / "lib.rs"], check=True)


def catalog(out: pathlib.Path, releases: dict[str, list[Entry]], shared: dict[str, str]) -> str:
    """onnx-conformance/src/releases/catalog.rs: each release's cases, equal cases once."""
    used: dict[tuple, set[str]] = collections.defaultdict(set)
    first: dict[tuple, Entry] = {}
    for version, entries in releases.items():
        for entry in entries:
            used[entry.key()].add(version)
            first.setdefault(entry.key(), entry)
    names = {key: "C_" + hashlib.sha256(repr(key).encode()).hexdigest()[:12].upper() for key in used}
    # A model shared with a 1.23.2 case is that case's, by its place in the kit's catalog (sorted
    # by name, as gen_conformance.py writes it).
    position = {p.parent.name: i for i, p in enumerate(sorted((KIT_DATA / "data").glob("*/model.onnxtxt")))}
    if len(set(names.values())) != len(names):
        sys.exit("two catalog constants share a name")
    groups: dict[frozenset, list[tuple]] = collections.defaultdict(list)
    for key in sorted(used, key=lambda k: (k[1], names[k])):
        groups[frozenset(used[key])].append(key)
    lines = [
        "// Generated by scripts/gen_releases.py from the test files of onnx's wheels: do not edit.",
        "// Each case of a release is a constant, shared by every release that holds the same case,",
        "// in a module behind the features of those releases; its model, text and files are items of",
        "// the data crates (onnx-conformance-releases-node and -model), compiled under the same",
        "// features.",
        "#![allow(dead_code)]",
        "",
        "/// A model's text, from the bytes of a data crate's `T_…` static: a reference into the",
        "/// static, where a `&str` static read by these constants would be copied into the kit for",
        "/// each.",
        "const fn text(bytes: &'static [u8]) -> &'static str {",
        "    // SAFETY: the data crates make every `T_…` static from `include_str!`, whole (their",
        "    // `utf8`, generated by scripts/gen_releases.py), and the compiler checks that such a",
        "    // text is UTF-8. Checking again here with `str::from_utf8` would read every text in",
        "    // constant evaluation: 8 s more of the kit's build with 1.22.0 selected, as measured.",
        "    unsafe { core::str::from_utf8_unchecked(bytes) }",
        "}",
        "",
    ]
    for group in sorted(groups, key=module_name):
        members = sorted_versions(group)
        lines.append(cfg(members))
        lines.append(f"mod {module_name(group)} {{")
        lines.append("    use crate::Case;")
        crates = {c for k in groups[group] for c in first[k].homes.values()}
        for crate in sorted(crates):
            lines.append(f"    use onnx_conformance_releases_{crate} as {crate};")
        for key in groups[group]:
            e = first[key]
            model = lambda e: (  # noqa: E731
                f"&onnx_conformance_data::MODELS[{position[shared[e.text]]}]" if e.text in shared
                else f"&{e.homes[e.text]}::M_{e.text.upper()}"
            )
            files = lambda keys: ", ".join(f"&{e.homes[k]}::B_{k.upper()}" for k in keys)  # noqa: E731
            lines.append(
                f"    pub(crate) const {names[key]}: Case = Case {{\n"
                f"        name: {rust_string(e.name)},\n"
                f"        suite: {rust_string(e.suite)},\n"
                f"        op_type: {rust_string(e.op_type)},\n"
                f"        domain: {rust_string(e.domain)},\n"
                f"        opset_version: {e.opset_version},\n"
                f"        rtol: {RTOL!r},\n"
                f"        atol: {ATOL!r},\n"
                f"        text: super::text(&{e.homes[e.text]}::T_{e.text.upper()}),\n"
                f"        model: {model(e)},\n"
                f"        inputs: &[{files(e.inputs)}],\n"
                f"        outputs: &[{files(e.outputs)}],\n"
                f"        constant_inputs: &[{', '.join(map(str, e.constant_inputs))}],\n"
                "    };"
            )
        lines.append("}")
        lines.append("")
    for version, entries in releases.items():
        ident = version.replace(".", "_")
        static = f"MODELS_{ident}" if version == NEWEST else f"RELEASE_{ident}"
        what = "model tests" if version == NEWEST else "node and model tests"
        lines.append(f"/// onnx {version}'s {what}: {len(entries)} cases.")
        lines.append(f'#[cfg(feature = "{feature(version)}")]')
        items = ", ".join(f"{module_name(frozenset(used[e.key()]))}::{names[e.key()]}" for e in entries)
        lines.append(f"pub(crate) static {static}: [crate::Case; {len(entries)}] = [{items}];")
        lines.append("")
    path = out / "catalog.rs"
    path.write_text("\n".join(lines))
    subprocess.run(["rustfmt", "--edition", "2024", path], check=True)
    return path.read_text()


def features_toml(crate_features: dict[str, set[str]]) -> str:
    """The kit's [features] section, between its markers in onnx-conformance/Cargo.toml: a
    release's feature turns on the data crates that hold its items, with the same feature."""
    lines = [
        "# Generated by scripts/gen_releases.py: each older release's node and model tests",
        "# (`onnx_conformance::release`), and 1.23.2's model tests beside its node cases.",
        "all-releases = [" + ", ".join(f'"{feature(v)}"' for v in RELEASES) + "]",
    ]
    for v in RELEASES:
        deps = []
        for name in sorted(crate_features, reverse=True):
            if v in crate_features[name]:
                deps += [f'"dep:{name}"', f'"{name}/{feature(v)}"']
        lines.append(f"{feature(v)} = [{', '.join(deps)}]")
    return "\n".join(lines) + "\n"


BEGIN, END = "# BEGIN gen_releases.py\n", "# END gen_releases.py\n"


def kit_toml(features: str) -> str:
    toml = KIT_TOML.read_text()
    start, end = toml.index(BEGIN) + len(BEGIN), toml.index(END)
    return toml[:start] + features + toml[end:]


def generate(out: pathlib.Path, tmp: pathlib.Path) -> dict:
    cli = build_cli(tmp)
    usage = subprocess.run([cli, "convert", "--help"], capture_output=True, text=True).stdout
    UNCHECKED[:] = ["--unchecked"] if "--unchecked" in usage else []
    releases = {version: read_release(version) for version in RELEASES}
    # Every distinct model, printed once.
    models = sorted({case.model for cases in releases.values() for case in cases})
    workdir = tmp / "models"
    workdir.mkdir()
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        printed = list(pool.map(lambda m: print_model(cli, workdir, digest(m), m), models))
    keys = {}
    texts: dict[str, str] = {}
    for model, text in zip(models, printed, strict=True):
        key = digest(text.encode())
        if texts.setdefault(key, text) != text:
            sys.exit(f"two texts share the name {key}")
        keys[model] = key
    failures = rejected(cli, workdir, texts)
    # The texts that are also a 1.23.2 case's (gen_conformance.py's, committed): their models
    # are the kit's own, so that no model is built twice.
    newest = {(p.parent / "model.onnxtxt").read_text(): p.parent.name
              for p in sorted((KIT_DATA / "data").glob("*/model.onnxtxt"))}
    shared = {key: newest[text] for key, text in texts.items() if text in newest}
    # The checks each rejected text is built without, from ALLOWED by the names of its cases.
    allowed: dict[str, list[str]] = {}
    rejections = []
    used_allowances = set()
    for version, cases in releases.items():
        for case in cases:
            key = keys[case.model]
            if key not in failures:
                continue
            rejections.append((version, case.suite, case.name, failures[key]))
            if not set(failures[key]) <= set(ALLOWED.get(case.name, ())):
                sys.exit(f"{version}: {case.suite}/{case.name} fails {failures[key]}: fix the "
                         "check, or list it in ALLOWED and docs/divergences.md")
            allowed[key] = sorted(ALLOWED[case.name])
            used_allowances.add(case.name)
    if unused := sorted(set(ALLOWED) - used_allowances):
        sys.exit(f"ALLOWED lists cases no model needs it for: {unused}")
    entries = {v: entries_of(v, cases, keys) for v, cases in releases.items()}

    # The data crates: every file once, in the node tests' crate if a node test uses it (a few
    # small .pb files of the model tests are also a node test's), else in the model tests'; each
    # item is used by the releases whose cases name it.
    home: dict[str, str] = {}
    blobs: dict[str, bytes] = {}
    used_by: dict[str, set[str]] = collections.defaultdict(set)
    for version, cases in releases.items():
        for case in sorted(cases, key=lambda c: c.suite != NODE):
            crate = "node" if case.suite == NODE else "model"
            text = keys[case.model]
            for key, data in [(text, None), *((digest(d), d) for d in
                                              [*case.inputs.values(), *case.outputs.values()])]:
                if data is not None and blobs.setdefault(key, data) != data:
                    sys.exit(f"two files share the name {key}")
                home.setdefault(key, crate)
                used_by[key].add(version)
    if set(texts) & set(blobs):
        sys.exit("a model's text and a file share a name")
    for entries_ in entries.values():
        for e in entries_:
            e.homes = {k: home[k] for k in (e.text, *e.inputs, *e.outputs)}
    out_files = {}
    crate_features = {}
    for crate, what in (("node", "The node tests"), ("model", "The model tests")):
        items = [k for k in sorted(home) if home[k] == crate]
        crate_blobs = {k: blobs[k] for k in items if k in blobs}
        crate_texts = {k: texts[k] for k in items if k not in blobs}
        name = f"onnx-conformance-releases-{crate}"
        data_crate(out / name, name, what, crate_blobs, crate_texts, allowed,
                   {k: used_by[k] for k in items}, shared)
        crate_features[name] = {v for k in items for v in used_by[k]}
        out_files[name] = (len(crate_blobs), sum(map(len, crate_blobs.values())),
                           len(crate_texts), sum(len(t.encode()) for t in crate_texts.values()))
    catalog(out, entries, shared)
    (out / "Cargo.toml").write_text(kit_toml(features_toml(crate_features)))

    counts = {}
    for version, cases in releases.items():
        node = sum(c.suite == NODE for c in cases)
        counts[version] = (node, len(cases) - node)
    return {"counts": counts, "rejections": rejections, "files": out_files,
            "models": len(models), "texts": len(texts), "shared": len(shared)}


def generated_files(out: pathlib.Path) -> dict[str, bytes]:
    """The generated files, by their path in the repository."""
    files = {}
    for crate in (NODE_CRATE.name, MODEL_CRATE.name):
        for path in sorted((out / crate).rglob("*")):
            if path.is_file():
                files[str(path.relative_to(out))] = path.read_bytes()
    files[str(CATALOG.relative_to(REPO))] = (out / "catalog.rs").read_bytes()
    files[str(KIT_TOML.relative_to(REPO))] = (out / "Cargo.toml").read_bytes()
    return files


def committed_files() -> dict[str, bytes]:
    files = {}
    for crate in (NODE_CRATE, MODEL_CRATE):
        if crate.exists():
            for path in sorted(crate.rglob("*")):
                if path.is_file():
                    files[str(path.relative_to(REPO))] = path.read_bytes()
    for path in (CATALOG, KIT_TOML):
        if path.exists():
            files[str(path.relative_to(REPO))] = path.read_bytes()
    return files


def report(made: dict) -> None:
    total = [0, 0]
    for version, (node, model) in made["counts"].items():
        print(f"{version}: {node} node cases, {model} model cases")
        total[0] += node
        total[1] += model
    print(f"all: {total[0]} node cases, {total[1]} model cases; {made['models']} distinct "
          f"models, {made['texts']} distinct texts, {made['shared']} of them 1.23.2 cases' texts")
    for crate, (blobs, size, texts, text_size) in made["files"].items():
        print(f"{crate}: {blobs} .pb files ({size / 1e6:.2f} MB), {texts} texts "
              f"({text_size / 1e6:.2f} MB)")
    print(f"{len(made['rejections'])} cases whose model fails a check (allowed by name):")
    for version, suite, name, checks in made["rejections"]:
        print(f"  {version} {suite}/{name}: {', '.join(checks)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        out = tmp / "out"
        out.mkdir()
        made = generate(out, tmp)
        generated = generated_files(out)
        report(made)
        if args.check:
            committed = committed_files()
            stale = sorted(k for k in generated.keys() | committed.keys()
                           if generated.get(k) != committed.get(k))
            if stale:
                sys.exit(f"{len(stale)} files differ from the generated ones, e.g. {stale[:5]}")
            print(f"{len(generated)} files, up to date")
            return
        for crate in (NODE_CRATE, MODEL_CRATE):
            if crate.exists():
                shutil.rmtree(crate)
        CATALOG.parent.mkdir(parents=True, exist_ok=True)
        for path, data in generated.items():
            target = REPO / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        size = sum(len(b) for b in generated.values())
        print(f"{len(generated)} files, {size / 1e6:.1f} MB written")


if __name__ == "__main__":
    main()
