#!/usr/bin/env python3
"""Times `onnx-text lsp` on ResNet-50 as an editor would use it (issue 29): the model of
scripts/resnet50.py printed by `onnx-text print` (a) with every weight inline (~300 MB) and (b)
with its weights in external data (~110 KB), and N initializers on one line (the quadratic case
of semantic tokens).

For each text: open (didOpen until the first diagnostics), then repeated rounds of an edit (one
space inserted or removed in a node line, an incremental change, until its diagnostics arrive),
hover on an operator and on a value, completion of operands, semantic tokens of the whole text
and of a screen of 60 lines, and formatting; then a few hovers sent right after an edit, which
wait for its analysis. The median and worst of each in milliseconds, and the server's peak
resident memory (VmHWM) against the file's size. Not a test: figures for docs/performance.md.

    python3 scripts/bench_lsp_resnet.py [--runs 20] [--large-runs 3] [--skip-build] [--keep DIR]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_lsp import Server  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.path.join(ROOT, "target", "release", "onnx-text")


def position(text, offset):
    line_start = text.rfind("\n", 0, offset) + 1
    return {"line": text.count("\n", 0, offset), "character": offset - line_start}


def memory(pid):
    """Peak and current resident memory of a process, in bytes."""
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmHWM", "VmRSS"):
                fields[key] = int(value.split()[0]) * 1024
    return fields["VmHWM"], fields["VmRSS"]


def ms(seconds):
    return seconds * 1000


def timed(call):
    start = time.perf_counter()
    result = call()
    return time.perf_counter() - start, result


def session(text, uri, runs, name):
    """One server, one document: the figures of each request, and its memory."""
    server = Server(BINARY)
    server.request("initialize", {"capabilities": {}})
    server.notify("initialized", {})
    doc = {"uri": uri}
    opened, diagnostics = timed(lambda: (
        server.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "onnxtxt", "version": 1, "text": text}}),
        server.diagnostics())[1])
    errors = diagnostics["params"]["diagnostics"]
    # A Conv node in the middle of the graph: `   [conv_k] conv_k_out = Conv <…> (x, w)`. The
    # edits insert a space before `Conv` and take it out again.
    nodes = [m.start(1) for m in re.finditer(r"\n   \[conv_\d+\] (conv_\d+_out) = Conv ", text)]
    node = nodes[len(nodes) // 2]
    line_end = text.index("\n", node)
    equals = text.index(" = ", node) + 3
    operator = position(text, equals)
    value = position(text, node + 2)
    operands = position(text, text.rindex("(", node, line_end) + 1)
    line = operator["line"]
    screen = {"start": {"line": max(line - 30, 0), "character": 0},
              "end": {"line": line + 30, "character": 0}}
    timings = {k: [] for k in ["diagnostics after an edit", "hover (operator)", "hover (value)",
                               "completion", "semantic tokens (full)",
                               "semantic tokens (60 lines)", "formatting"]}
    answers = {}
    for run in range(runs):
        at = dict(operator)
        if run % 2 == 0:
            change = {"range": {"start": at, "end": at}, "text": " "}
        else:
            after = {"line": at["line"], "character": at["character"] + 1}
            change = {"range": {"start": at, "end": after}, "text": ""}
        seconds, published = timed(lambda: (
            server.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": run + 2}, "contentChanges": [change]}),
            server.diagnostics())[1])
        assert published["params"]["version"] == run + 2, published
        timings["diagnostics after an edit"].append(seconds)
        answers.setdefault("diagnostics after an edit",
                           {"result": published["params"]["diagnostics"]})
        shift = 1 if run % 2 == 0 else 0
        requests = [
            ("hover (operator)", "textDocument/hover",
             {"textDocument": doc, "position": {"line": line, "character": operator["character"] + shift + 1}}),
            ("hover (value)", "textDocument/hover", {"textDocument": doc, "position": value}),
            ("completion", "textDocument/completion",
             {"textDocument": doc, "position": {"line": line, "character": operands["character"] + shift}}),
            ("semantic tokens (full)", "textDocument/semanticTokens/full", {"textDocument": doc}),
            ("semantic tokens (60 lines)", "textDocument/semanticTokens/range",
             {"textDocument": doc, "range": screen}),
            ("formatting", "textDocument/formatting",
             {"textDocument": doc, "options": {"tabSize": 3, "insertSpaces": True}}),
        ]
        for key, method, params in requests:
            seconds, reply = timed(lambda: server.request(method, params))
            timings[key].append(seconds)
            answers.setdefault(key, reply)
    # A hover sent right after an edit, as while typing: it waits for the edit's analysis.
    spaced = runs % 2 == 1
    timings["hover right after an edit"] = []
    for k in range(min(runs, 4)):
        at = dict(operator)
        if spaced:
            after = {"line": at["line"], "character": at["character"] + 1}
            change = {"range": {"start": at, "end": after}, "text": ""}
        else:
            change = {"range": {"start": at, "end": at}, "text": " "}
        spaced = not spaced
        server.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": runs + 2 + k}, "contentChanges": [change]})
        hover = {"line": line, "character": operator["character"] + spaced + 1}
        seconds, reply = timed(lambda: server.request(
            "textDocument/hover", {"textDocument": doc, "position": hover}))
        timings["hover right after an edit"].append(seconds)
        answers.setdefault("hover right after an edit", reply)
    peak, resident = memory(server.p.pid)
    server.request("shutdown", None)
    server.notify("exit", None)
    server.p.wait(timeout=60)
    print(f"\n{name}: {len(text):,} bytes, {text.count(chr(10)) + 1} lines, {runs} rounds (ms)")
    print(f"  open (to the first diagnostics): {ms(opened):.0f} ({len(errors)} diagnostics)")
    for key, values in timings.items():
        values = [ms(v) for v in values]
        print(f"  {key}: median {statistics.median(values):.1f}, worst {max(values):.1f}  "
              f"[first answer: {summary(answers[key])}]")
    print(f"  peak memory (VmHWM): {peak / 1e6:.0f} MB = {peak / len(text):.2f}x the text; "
          f"resident at the end {resident / 1e6:.0f} MB")


def summary(reply):
    """What an answer holds, to see that it did something."""
    result = reply.get("result")
    if "error" in reply:
        return "error: " + reply["error"]["message"][:60]
    if isinstance(result, dict) and "data" in result:
        return f"{len(result['data']) // 5} tokens"
    if isinstance(result, dict) and "contents" in result:
        return f"{len(result['contents']['value'])} characters"
    if isinstance(result, list):
        return f"{len(result)} items"
    return "null" if result is None else type(result).__name__


def long_line(count):
    weights = ", ".join(f"float[1] w{i} = {{0.5}}" for i in range(count))
    return ('<ir_version: 10, opset_import: ["" : 21]>\n'
            f"g (float[1] x) => (float[1] y)\n   <{weights}>\n{{\n   y = Identity (x)\n}}\n")


def tokens_of(text, runs=3):
    """The best time of semantic tokens on a text, in seconds."""
    server = Server(BINARY)
    server.request("initialize", {"capabilities": {}})
    server.notify("initialized", {})
    uri = "file:///bench/line.onnxtxt"
    server.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "onnxtxt", "version": 1, "text": text}})
    server.diagnostics()
    best = min(timed(lambda: server.request("textDocument/semanticTokens/full",
                                            {"textDocument": {"uri": uri}}))[0] for _ in range(runs))
    server.request("shutdown", None)
    server.notify("exit", None)
    server.p.wait(timeout=60)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20, help="rounds on the external-data text")
    ap.add_argument("--large-runs", type=int, default=3, help="rounds on the inline text")
    ap.add_argument("--skip-build", action="store_true")
    ap.add_argument("--keep", help="a folder to build the models in and keep them")
    args = ap.parse_args()
    if not args.skip_build:
        subprocess.run(["cargo", "build", "--release", "-p", "onnx-text-cli"], cwd=ROOT, check=True)
    folder = args.keep or tempfile.mkdtemp(prefix="bench-lsp-resnet-")
    os.makedirs(folder, exist_ok=True)
    texts = {}
    for form, flags in [("inline", []), ("external", ["--external-data"])]:
        binary = os.path.join(folder, f"resnet50_{form}.onnx")
        text = os.path.join(folder, f"resnet50_{form}.onnxtxt")
        if not os.path.exists(text):
            subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "resnet50.py"), binary]
                           + flags, check=True)
            with open(text, "w") as out:
                subprocess.run([BINARY, "print", binary], stdout=out, check=True)
        with open(text) as f:
            texts[form] = f.read()
    print("N initializers on one line, semantic tokens of the whole text (best of 3, ms):")
    for count in [2000, 8000, 32000]:
        print(f"  N = {count}: {ms(tokens_of(long_line(count))):.1f}")
    session(texts["external"], "file:///bench/resnet50_external.onnxtxt", args.runs,
            "ResNet-50, weights in external data")
    session(texts["inline"], "file:///bench/resnet50_inline.onnxtxt", args.large_runs,
            "ResNet-50, weights inline")


if __name__ == "__main__":
    sys.exit(main())
