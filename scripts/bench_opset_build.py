#!/usr/bin/env python3
"""Build time of a literal that calls the 50 functions of a library in view (an opset crate made
with `onnx_library!`, named in `#![library(...)]` or `#![attach(...)]`), against the same literal
with the 50 functions written model-local after its graph.

Three crates are written under target/bench-opset-build/: `lib50` (the opset crate, a dependency
of the two others, built once), `in_view` (the literal naming `lib50::LIB`) and `local` (the
literal holding the functions). Dependencies are built first (warm); then each literal crate is
rebuilt after touching its source, several times, and the median and best times are compared.
The `#![attach]` literal's value equals the model-local one byte for byte (the crates assert it
when run), so both builds produce the same model.

With --callgrind, each literal crate's `rustc` invocation also runs under valgrind's callgrind
(as `bench_macro_build.py --callgrind` does), and its instructions are printed: stable figures
on a shared machine, where these sub-second builds are mostly noise.

Run: python3 scripts/bench_opset_build.py [--functions 50] [--runs 7] [--callgrind]
Needs only cargo (and valgrind for --callgrind).
"""
import argparse
import json
import pathlib
import statistics
import sys
import subprocess

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from bench_macro_build import build_seconds, callgrind  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
WORK = ROOT / "target" / "bench-opset-build"
HEADER = '<ir_version: 10, opset_import: ["" : 21, "bench" : 1]>'


def functions_text(count):
    """`count` functions of four nodes each, in domain `bench`."""
    return "\n".join(
        f'    <domain: "bench", opset_import: ["" : 21]>\n'
        f"    F{i} <alpha: float = 0.5> (x) => (y) {{\n"
        f"        a = Constant <value_float: float = @alpha> ()\n"
        f"        t = Mul (x, a)\n"
        f"        s = Sigmoid (t)\n"
        f"        y = Add (s, x)\n"
        f"    }}"
        for i in range(count)
    )


def graph_text(count):
    """A graph that calls each function once, in order, on a typed input."""
    lines = [f"    g (float[N, 8] t0) => (float[N, 8] y) {{"]
    for i in range(count):
        lines.append(f"        t{i + 1} = bench.F{i} <alpha = 0.25> (t{i})")
    lines.append(f"        y = Identity (t{count})")
    lines.append("    }")
    return "\n".join(lines)


def write(name, manifest_extra, source):
    crate = WORK / name
    (crate / "src").mkdir(parents=True, exist_ok=True)
    (crate / "Cargo.toml").write_text(
        f'[package]\nname = "{name}"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n\n'
        f'[dependencies]\nonnx-text = {{ path = "{ROOT}" }}\n{manifest_extra}\n[workspace]\n'
    )
    (crate / "src" / ("lib.rs" if name == "lib50" else "main.rs")).write_text(source)
    return crate


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--functions", type=int, default=50)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--callgrind", action="store_true")
    args = parser.parse_args()
    n = args.functions
    target = WORK / "target"
    lib = f"onnx_text::onnx_library! {{\n    pub static LIB;\n{functions_text(n)}\n}}\n"
    write("lib50", "", lib)
    dependency = f'lib50 = {{ path = "{WORK / "lib50"}" }}\n'
    local_literal = f"onnx_text::onnx! {{\n    {HEADER}\n{graph_text(n)}\n{functions_text(n)}\n}}"

    def literal(setting):
        return f"onnx_text::onnx! {{\n    #![{setting}(lib50::LIB)]\n    {HEADER}\n{graph_text(n)}\n}}"

    def program(literal, name):
        # Each writes its model's bytes, compared below: not part of the timed builds.
        out = WORK / f"{name}.onnx"
        return (
            "use onnx_text::prost::Message;\n"
            f"fn main() {{\n    let model = {literal};\n"
            f"    std::fs::write({json.dumps(str(out))}, model.encode_to_vec()).unwrap();\n}}\n"
        )

    crates = {
        "local": write("local", dependency, program(local_literal, "local")),
        "#![library]": write("in_view", dependency, program(literal("library"), "in_view")),
        "#![attach]": write("attached", dependency, program(literal("attach"), "attached")),
    }
    # Warm: dependencies built, and every crate run once.
    for crate in crates.values():
        subprocess.run(
            ["cargo", "run", "--quiet", "--target-dir", str(target)], cwd=crate, check=True
        )
    local_bytes = (WORK / "local.onnx").read_bytes()
    assert (WORK / "attached.onnx").read_bytes() == local_bytes, "#![attach] differs from local"
    assert (WORK / "in_view.onnx").read_bytes() != local_bytes
    times = {name: [] for name in crates}
    for _ in range(args.runs):
        for name, crate in crates.items():
            times[name].append(build_seconds(crate, target))
    base = statistics.median(times["local"])
    print(f"{n} functions of 4 nodes, a graph calling each once; {args.runs} rebuilds each")
    print(f"{'literal':<14} {'median s':>9} {'best s':>8} {'median ratio':>13}")
    for name, seconds in times.items():
        median = statistics.median(seconds)
        print(f"{name:<14} {median:9.3f} {min(seconds):8.3f} {median / base:12.2f}x")
    if args.callgrind:
        for crate in crates.values():
            callgrind(crate, target)


if __name__ == "__main__":
    main()
