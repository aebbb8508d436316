#!/usr/bin/env python3
"""Differential test of `onnx-text inline` against onnx.inliner (onnx==1.23.2), writing the
goldens of tests/it/inline.rs to tests/inline/ (so that `cargo test` needs no Python).

For each case of scripts/inline_cases.py (every corpus model with local functions, and
generated models), both inliners run on the same ModelProto:

    onnx.inliner.inline_local_functions(model)
    onnx-text inline in.onnx -o out.onnx            (target/debug/onnx-text; built if missing)

Both results are normalised (see `normalise`) and printed with onnx.printer, then compared.
Each result also goes through onnx.checker.check_model(full_check=True). Where the two differ,
the case must name the divergence that explains it (docs/divergences.md, "Inliner"), and ours
must pass the checker if the model given does; the script fails otherwise.

Written to tests/inline/:

    <case>.input.pb            the model both inliners were given
    <case>.reference.onnxtxt   onnx.inliner's result, normalised, printed by onnx.printer
    <case>.ours.onnxtxt        ours, likewise, where it differs from the reference
    MANIFEST.txt               one line per case: <case> equal, differs:<divergence>, or
                               rejected (both inliners reject the model), and whether each
                               result passes check_model

Usage (from anywhere):

    pip install -r scripts/requirements.txt
    python3 scripts/inline_differential.py
"""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys
import tempfile

import onnx
import onnx.checker
import onnx.inliner
import onnx.printer

sys.dont_write_bytecode = True
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import inline_cases  # noqa: E402

REFERENCE_VERSION = "1.23.2"
assert onnx.__version__ == REFERENCE_VERSION, (
    f"onnx=={REFERENCE_VERSION} is required, found {onnx.__version__}"
)

REPO = inline_cases.REPO
OUT = REPO / "tests" / "inline"
BIN = REPO / "target" / "debug" / "onnx-text"


def corpus_cases() -> list[tuple[str, onnx.ModelProto, str | None]]:
    """Every accepted corpus model that has local functions."""
    cases = []
    for path in sorted(inline_cases.CORPUS.glob("*/*.model.pb")):
        if path.name.endswith(".source.pb"):
            continue
        model = onnx.ModelProto()
        model.ParseFromString(path.read_bytes())
        if model.functions:
            name = "corpus-" + path.parent.name + "-" + path.name.removesuffix(".model.pb")
            cases.append((name, model, CORPUS_DIVERGENCES.get(name)))
    return cases


# Corpus cases where the two inliners differ, with the divergence that explains it (filled in
# from the script's own findings, each checked by hand against the printed results).
CORPUS_DIVERGENCES: dict[str, str] = {
    # `B <k: int = 2>` called without k: onnx drops `Foo`'s k, we give it the default.
    "corpus-handwritten-model-functions-one-no-header": "attribute defaults",
    # `F <alpha: float = 2, beta: ints = [1, 2]>` called without either: likewise.
    "corpus-handwritten-model-functions-attr-defaults": "attribute defaults",
}


def generated_cases() -> list[tuple[str, onnx.ModelProto, str | None]]:
    cases = []
    for name, text, divergence in inline_cases.GENERATED:
        model = onnx.parser.parse_model(text)
        if name == "value-info-in-body":
            # The text syntax has no function value infos: add one for the body's `t`.
            model.functions[0].value_info.append(
                onnx.helper.make_tensor_value_info("t", onnx.TensorProto.FLOAT, ["N"])
            )
        cases.append((name, model, divergence))
    return cases


def normalise(model: onnx.ModelProto) -> onnx.ModelProto:
    """The model with names made comparable: every value name other than the main graph's
    inputs and outputs becomes `v<n>` in order of first appearance (depth first, subgraphs at
    their node), node names are cleared, value infos are sorted by name, opset imports by
    domain, and functions by (domain, name, overload)."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    graph = model.graph
    keep = {v.name for v in graph.input} | {v.name for v in graph.output}
    mapping: dict[str, str] = {}

    def name(n: str) -> str:
        if n == "" or n in keep:
            return n
        if n not in mapping:
            mapping[n] = f"v{len(mapping)}"
        return mapping[n]

    def walk(g: onnx.GraphProto) -> None:
        for v in g.input:
            v.name = name(v.name)
        for t in g.initializer:
            t.name = name(t.name)
        for node in g.node:
            node.ClearField("name")
            for i, n in enumerate(node.input):
                node.input[i] = name(n)
            for attr in node.attribute:
                if attr.HasField("g"):
                    walk(attr.g)
                for sub in attr.graphs:
                    walk(sub)
            for i, n in enumerate(node.output):
                node.output[i] = name(n)
        for v in g.output:
            v.name = name(v.name)
        for v in g.value_info:
            v.name = name(v.name)
        infos = sorted(g.value_info, key=lambda v: v.name)
        del g.value_info[:]
        g.value_info.extend(infos)

    walk(graph)
    imports = sorted(model.opset_import, key=lambda o: o.domain)
    del model.opset_import[:]
    model.opset_import.extend(imports)
    functions = sorted(model.functions, key=lambda f: (f.domain, f.name, f.overload))
    del model.functions[:]
    model.functions.extend(functions)
    return model


def check(model: onnx.ModelProto) -> str:
    try:
        onnx.checker.check_model(model, full_check=True)
        return "valid"
    except Exception as e:  # noqa: BLE001 (the checker raises several kinds)
        return "invalid: " + str(e).strip().splitlines()[0]


def ours(model: onnx.ModelProto, work: pathlib.Path) -> onnx.ModelProto | str:
    src, dst = work / "in.onnx", work / "out.onnx"
    src.write_bytes(model.SerializeToString())
    dst.unlink(missing_ok=True)
    run = subprocess.run(
        [str(BIN), "inline", str(src), "-o", str(dst)], capture_output=True, text=True
    )
    if run.returncode != 0:
        return "error: " + run.stderr.strip()
    return onnx.ModelProto.FromString(dst.read_bytes())


def main() -> int:
    if not BIN.exists():
        subprocess.run(["cargo", "build", "-p", "onnx-text-cli"], cwd=REPO, check=True)
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    manifest = [
        f"# onnx-text inline against onnx.inliner (onnx=={REFERENCE_VERSION}), by "
        "scripts/inline_differential.py; one line per case:",
        "# <case> equal|differs:<divergence>|rejected reference=<check_model verdict> ours=<check_model verdict>",
    ]
    failures = []
    counts = {"equal": 0, "differs": 0, "rejected": 0}
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        for name, model, divergence in corpus_cases() + generated_cases():
            (OUT / f"{name}.input.pb").write_bytes(model.SerializeToString())
            mine = ours(model, work)
            try:
                reference = onnx.inliner.inline_local_functions(model)
            except Exception as e:  # noqa: BLE001 (onnx raises several kinds)
                # Both must reject the model.
                if not isinstance(mine, str):
                    failures.append(f"{name}: onnx.inliner rejects it ({e}), we do not")
                counts["rejected"] += 1
                manifest.append(f"{name} rejected reference=error ours=error")
                print(f"{name:45} rejected by both: {str(e)[:60]}; {mine[:80]}")
                continue
            if isinstance(mine, str):
                failures.append(f"{name}: onnx-text inline failed: {mine}")
                continue
            ref_text = onnx.printer.to_text(normalise(reference))
            our_text = onnx.printer.to_text(normalise(mine))
            (OUT / f"{name}.reference.onnxtxt").write_text(ref_text + "\n")
            ref_check, our_check = check(reference), check(mine)
            if ref_text == our_text:
                verdict = "equal"
                if divergence:
                    failures.append(f"{name}: equal, but the case expects `{divergence}`")
            else:
                verdict = f"differs:{(divergence or '?').replace(' ', '-')}"
                (OUT / f"{name}.ours.onnxtxt").write_text(our_text + "\n")
                if not divergence:
                    failures.append(f"{name}: differs, and no divergence explains it")
                if our_check != "valid" and check(model) == "valid":
                    failures.append(f"{name}: ours differs and fails the checker: {our_check}")
            counts[verdict.split(":")[0]] += 1
            manifest.append(
                f"{name} {verdict} reference={ref_check.split(':')[0]} ours={our_check.split(':')[0]}"
            )
            print(f"{name:45} {verdict:30} reference {ref_check[:60]}; ours {our_check[:60]}")
    (OUT / "MANIFEST.txt").write_text("\n".join(manifest) + "\n")
    print(
        f"\n{counts['equal']} equal, {counts['differs']} differ (each explained), "
        f"{counts['rejected']} rejected by both"
    )
    for failure in failures:
        print("FAIL", failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
