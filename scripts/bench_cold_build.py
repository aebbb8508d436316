#!/usr/bin/env python3
"""Cold build of a crate that depends on onnx-text and holds one `onnx!` literal, against a crate
that depends on prost and syn (full) alone: the least any crate with a protobuf-typed proc macro
pays. Each is built from an empty target directory with `cargo build --timings`, one after the
other, `--runs` times in turn; the ratio of the best times is reported, with the critical path
(the chain of units, each unblocked by the one before) of the onnx-text crate's best build.

The onnx-text crate depends on onnx-text as a user does: from a source that is not a path
(a git dependency on this repository's HEAD, so commit first), which cargo compiles as it compiles
a crate from crates.io. A path dependency is compiled as a workspace member is, incrementally, and
that alone took the cold build from 8.2 s to 11.0 s on this machine: `--path` measures that way,
for comparison with the figures from before this choice.

Run: python3 scripts/bench_cold_build.py [--runs 2] [--path]
Needs only cargo and git. Sources are fetched first (`cargo fetch`), so the builds time no
download. The crates and their target directories are written under target/bench-cold-build/.
"""
import argparse
import json
import pathlib
import re
import shutil
import subprocess
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
WORK = ROOT / "target" / "bench-cold-build"

LITERAL = """use onnx_text::{ModelProto, onnx};

fn main() {
    let model: ModelProto = onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        agraph (float[N, 128] X, float[128, 10] W, float[10] B) => (float[N, 10] C) {
            T = MatMul (X, W)
            S = Add (T, B)
            C = Softmax (S)
        }
    };
    println!("{}", model.graph.unwrap().node.len());
}
"""

# The floor: a derive-style proc macro needs syn (full) and the value needs prost. The `use`s
# make both real dependencies of the binary.
FLOOR = """fn main() {
    let file: syn::File = syn::parse_str("fn f() {}").unwrap();
    let bytes = prost::Message::encode_to_vec(&String::from("x"));
    println!("{} {}", file.items.len(), bytes.len());
}
"""

FLOOR_DEPENDENCIES = 'prost = "0.14"\nsyn = { version = "2", features = ["full"] }\n'


def onnx_text_dependency(path):
    """The onnx-text dependency line: this checkout by path, or its HEAD by git."""
    if path:
        return f'onnx-text = {{ path = "{ROOT}" }}\n'
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                           check=True, capture_output=True, text=True).stdout.strip()
    print(f"onnx-text at HEAD {head[:10]}" + (" (uncommitted changes are not measured)" if dirty else ""))
    return f'onnx-text = {{ git = "file://{ROOT}", rev = "{head}" }}\n'


def write_crate(name, dependencies, main_rs):
    crate = WORK / name
    (crate / "src").mkdir(parents=True, exist_ok=True)
    (crate / "Cargo.toml").write_text(
        f'[package]\nname = "{name}"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n\n'
        f"[dependencies]\n{dependencies}\n[workspace]\n"
    )
    (crate / "src" / "main.rs").write_text(main_rs)
    # The same versions as onnx-text's own lock file, so both crates build what a user of this
    # checkout would.
    shutil.copy(ROOT / "Cargo.lock", crate / "Cargo.lock")
    return crate


def cold_build(crate):
    """Seconds of one build from an empty target directory, and the units cargo timed."""
    target = crate / "target"
    shutil.rmtree(target, ignore_errors=True)
    start = time.perf_counter()
    subprocess.run(
        ["cargo", "build", "--quiet", "--offline", "--timings", "--target-dir", str(target)],
        cwd=crate,
        check=True,
    )
    seconds = time.perf_counter() - start
    html = (target / "cargo-timings" / "cargo-timing.html").read_text()
    units = json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);\n", html, re.S).group(1))
    return seconds, units


def unit_name(unit):
    return f"{unit['name']} {unit['target'].strip()}".strip()


def critical_path(units):
    """The chain of units that the last one waited for: from the unit that finished last, back
    through the unit whose completion (or metadata, for a pipelined dependency) unblocked each,
    as cargo's timings record it, to one that waited for nothing."""
    unblocker = {}
    for unit in units:
        for i in unit["unblocked_units"] + unit["unblocked_rmeta_units"]:
            unblocker[i] = unit
    path = [max(units, key=lambda u: u["start"] + u["duration"])]
    while path[-1]["i"] in unblocker:
        path.append(unblocker[path[-1]["i"]])
    return list(reversed(path))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--path", action="store_true",
                        help="depend on onnx-text by path (compiled incrementally, as a workspace member)")
    args = parser.parse_args()
    specs = {
        "onnx-literal": (onnx_text_dependency(args.path), LITERAL),
        "prost-syn": (FLOOR_DEPENDENCIES, FLOOR),
    }
    crates = {name: write_crate(name, *spec) for name, spec in specs.items()}
    for crate in crates.values():
        subprocess.run(["cargo", "fetch", "--quiet"], cwd=crate, check=True)
    best = {}
    for run in range(args.runs):
        for name, crate in crates.items():
            seconds, units = cold_build(crate)
            print(f"run {run + 1}: {name}: {seconds:.1f} s, {len(units)} units")
            if name not in best or seconds < best[name][0]:
                best[name] = (seconds, units)
    literal, floor = best["onnx-literal"][0], best["prost-syn"][0]
    print(f"\nbest of {args.runs} cold builds (cargo build --timings, empty target directory):")
    print(f"  onnx-text + one onnx! literal: {literal:.1f} s")
    print(f"  prost + syn (full) alone:      {floor:.1f} s")
    print(f"  ratio: {literal / floor:.2f}x")
    for name, (_, units) in best.items():
        cpu = sum(u["duration"] for u in units)
        print(f"\n{name}: {cpu:.1f} s of unit time; the ten longest units:")
        for unit in sorted(units, key=lambda u: -u["duration"])[:10]:
            print(f"  {unit['duration']:6.2f} s  {unit_name(unit)}")
    print("\ncritical path of onnx-literal (start, duration, unit):")
    for unit in critical_path(best["onnx-literal"][1]):
        print(f"  {unit['start']:6.2f} s  {unit['duration']:6.2f} s  {unit_name(unit)}")


if __name__ == "__main__":
    main()
