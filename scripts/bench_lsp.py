#!/usr/bin/env python3
"""Times `onnx-text lsp` as an editor sees it, on a model of N nodes (default 10,000).

Builds the release binary, opens the model, then repeats: an edit (a full-text change, which the
server takes as well as ranges) timed until its diagnostics arrive, a hover on a value in
the middle, and a completion of operands there. Prints the median and the worst of each, in
milliseconds, against the targets (100 ms for diagnostics, 20 ms for hover and completion).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
URI = "file:///bench/model.onnxtxt"


def model(nodes):
    lines = ['<ir_version: 10, opset_import: ["" : 21]>',
             f"g (float[N, 16] x0, float[16] b) => (float[N, 16] x{nodes}) {{"]
    ops = ["Relu ({})", "Add ({}, b)", "LeakyRelu <alpha = 0.1> ({})"]
    for i in range(nodes):
        lines.append(f"    x{i + 1} = " + ops[i % 3].format(f"x{i}"))
    lines.append("}")
    return "\n".join(lines) + "\n"


class Server:
    def __init__(self, binary):
        self.p = subprocess.Popen([binary, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.id = 0

    def send(self, message):
        body = json.dumps(message).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def read(self):
        length = None
        while True:
            line = self.p.stdout.readline()
            if line in (b"\r\n", b"\n"):
                break
            if line.startswith(b"Content-Length:"):
                length = int(line.split(b":")[1])
        return json.loads(self.p.stdout.read(length))

    def request(self, method, params):
        self.id += 1
        self.send({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params})
        while True:
            message = self.read()
            if message.get("id") == self.id:
                return message

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def diagnostics(self):
        while True:
            message = self.read()
            if message.get("method") == "textDocument/publishDiagnostics":
                return message


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    subprocess.run(["cargo", "build", "--release", "-p", "onnx-text-cli"], cwd=ROOT, check=True)
    server = Server(os.path.join(ROOT, "target", "release", "onnx-text"))
    server.request("initialize", {"capabilities": {}})
    server.notify("initialized", {})
    text = model(args.nodes)
    server.notify("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "onnxtxt", "version": 1, "text": text}})
    server.diagnostics()
    middle = args.nodes // 2 + 2  # a node line in the middle
    position = {"line": middle, "character": len(f"    x{middle - 1} = ") + 7}
    timings = {"diagnostics after an edit": [], "hover": [], "completion": []}
    for run in range(args.runs):
        edited = text.replace(f"x{middle} = ", f"x{middle} =  ", 1) if run % 2 == 0 else text
        start = time.perf_counter()
        server.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": run + 2}, "contentChanges": [{"text": edited}]})
        server.diagnostics()
        timings["diagnostics after an edit"].append(time.perf_counter() - start)
        at = {"textDocument": {"uri": URI}, "position": position}
        start = time.perf_counter()
        hover = server.request("textDocument/hover", at)
        timings["hover"].append(time.perf_counter() - start)
        start = time.perf_counter()
        completion = server.request("textDocument/completion", at)
        timings["completion"].append(time.perf_counter() - start)
    assert hover.get("result"), hover
    assert completion.get("result"), completion
    targets = {"diagnostics after an edit": 100, "hover": 20, "completion": 20}
    print(f"onnx-text lsp on a {args.nodes}-node model, {args.runs} runs (ms):")
    for name, values in timings.items():
        ms = [v * 1000 for v in values]
        print(f"  {name}: median {statistics.median(ms):.1f}, worst {max(ms):.1f} (target {targets[name]})")
    server.request("shutdown", None)
    server.notify("exit", None)
    server.p.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(main())
