#!/usr/bin/env python3
"""What the conformance kit costs a runtime's cold test build (issue 39: at most 1.3x).

A toy runtime crate (a library that depends on onnx-text and evaluates Relu) is written twice in
a temporary directory:
- "without": its `tests/onnx.rs` (`[[test]] name = "onnx"`, `harness = false`) runs the runtime
  on one `onnx!` literal;
- "with": the same crate plus the kit as a dev-dependency (a path dependency on this checkout's
  `onnx-conformance`), its `tests/onnx.rs` calling `onnx_conformance::harness`, as the quick
  start in the README says.

Each is built with `cargo build --tests --offline` from an empty target directory (dev profile,
as a runtime's first `cargo test` builds it), the two in turn, `--runs` times; the best time of
each and their ratio are printed. Two ways, each a pair of crates:
- "path": onnx-text and the kit are path dependencies, which cargo compiles incrementally (as
  in a checkout of this repository);
- "registry": the same, with `incremental = false` for every package but the runtime's own, as
  cargo compiles dependencies from crates.io, which is how a runtime gets the kit. Incremental
  compilation's bookkeeping slows the onnx crates more than the kit, so the ratio is higher here. Sources are fetched first (`cargo fetch`), so no build times a
download; both crates start from this repository's Cargo.lock, so they get the same versions.
Each build's CPU time (user and system, of cargo and every rustc) is printed beside its wall time,
and the least CPU time of the runs, spread over the machine's cores, gives the shortest wall time
any schedule could reach: a floor under the ratio that no reordering of the build can go below.
With `--timings`, the last run of each also writes cargo's timings, and the script prints the
units that only the "with" build compiles and the longest units of each, as cargo recorded them.

With `--eval` (issue 45: at most 1.5x), the pair is instead the crate with the kit, against the
same crate with the kit and the evaluator (`onnx-eval`, default features) as dev-dependencies,
its `tests/onnx.rs` running the toy on Relu and the evaluator on the rest, as a runtime that takes
its expected outputs from the evaluator would.

Run: python3 scripts/bench_kit_build.py [--runs 3] [--timings] [--keep] [--eval] [--ways registry]
The load average is printed before each build: on a shared machine, say how loaded it was.
"""
import argparse
import json
import os
import resource
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent

LIB = """//! A toy runtime: Relu on float tensors, nothing else.
use onnx_text::ModelProto;

/// Runs `model` (one node) on `input`.
pub fn run(model: &ModelProto, input: &[f32]) -> Result<Vec<f32>, String> {
    let graph = model.graph.as_ref().ok_or("a model without a graph")?;
    match graph.node.as_slice() {
        [node] if node.op_type() == "Relu" => Ok(input.iter().map(|x| x.max(0.0)).collect()),
        [node] => Err(format!("{} is not implemented", node.op_type())),
        _ => Err("one node only".to_string()),
    }
}
"""

TEST_WITHOUT = """use onnx_text::onnx;

fn main() {
    let model = onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[N] x) => (float[N] y) { y = Relu (x) }
    };
    assert_eq!(toy_runtime::run(&model, &[-1.0, 2.0]).unwrap(), [0.0, 2.0]);
}
"""

TEST_WITH = """use onnx_conformance::{Case, Value};

fn run(case: &Case, inputs: Vec<Value>) -> Result<Vec<Value>, String> {
    let x = inputs[0].to_vec::<f32>().map_err(|e| e.to_string())?;
    let Value::Tensor(t) = &inputs[0] else { return Err("tensors only".into()) };
    let dims: Vec<usize> = t.dims.iter().map(|&d| d as usize).collect();
    let y = toy_runtime::run(&case.model(), &x)?;
    Ok(vec![Value::tensor(&y, &dims).map_err(|e| e.to_string())?])
}

fn main() {
    onnx_conformance::harness(run)
}
"""


TEST_WITH_EVAL = """use onnx_conformance::{Case, Value};

fn run(case: &Case, inputs: Vec<Value>) -> Result<Vec<Value>, String> {
    if case.op_type() != "Relu" {
        // What the toy lacks, the evaluator runs.
        return onnx_eval::run(&case.model(), &inputs).map_err(|e| e.to_string());
    }
    let x = inputs[0].to_vec::<f32>().map_err(|e| e.to_string())?;
    let dims = inputs[0].dims().ok_or("tensors only")?;
    let y = toy_runtime::run(&case.model(), &x)?;
    Ok(vec![Value::tensor(&y, &dims).map_err(|e| e.to_string())?])
}

fn main() {
    onnx_conformance::harness(run)
}
"""

# What each kind of crate has: its dev-dependencies and its test file.
KINDS = {
    "without": ([], TEST_WITHOUT),
    "with": (["onnx-conformance"], TEST_WITH),
    "with-eval": (["onnx-conformance", "onnx-eval"], TEST_WITH_EVAL),
}


def manifest(kind, registry):
    crates = KINDS[kind][0]
    lines = "".join(f'{c} = {{ path = "{ROOT / c}" }}\n' for c in crates)
    kit = f"[dev-dependencies]\n{lines}\n" if crates else ""
    # Cargo compiles a dependency from a registry without incremental compilation.
    profile = '\n[profile.dev.package."*"]\nincremental = false\n' if registry else ""
    return (
        '[package]\nname = "toy-runtime"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n\n'
        "[workspace]\n\n"
        f'[dependencies]\nonnx-text = {{ path = "{ROOT}" }}\n\n'
        f'{kit}[[test]]\nname = "onnx"\nharness = false\n{profile}'
    )


def write_crate(folder, kind, registry):
    (folder / "src").mkdir(parents=True)
    (folder / "tests").mkdir()
    (folder / "Cargo.toml").write_text(manifest(kind, registry))
    (folder / "src" / "lib.rs").write_text(LIB)
    (folder / "tests" / "onnx.rs").write_text(KINDS[kind][1])
    shutil.copy(ROOT / "Cargo.lock", folder / "Cargo.lock")
    subprocess.run(["cargo", "fetch", "--quiet"], cwd=folder, check=True)
    return folder


# The two ways the onnx crates are compiled: see the module's docs.
WAYS = ("path", "registry")


def load():
    return os.getloadavg()[0]


def children_cpu():
    """CPU seconds (user and system) of every finished child process so far, cargo's rustcs too."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cold_build(crate, timings):
    """(wall seconds, CPU seconds) of one cold build."""
    target = crate / "target"
    shutil.rmtree(target, ignore_errors=True)
    command = ["cargo", "build", "--tests", "--quiet", "--offline", "--target-dir", str(target)]
    if timings:
        command.append("--timings")
    env = {k: v for k, v in os.environ.items() if k not in ("CARGO_TARGET_DIR", "RUSTFLAGS")}
    start, cpu = time.perf_counter(), children_cpu()
    subprocess.run(command, cwd=crate, check=True, env=env)
    return time.perf_counter() - start, children_cpu() - cpu


def units(crate):
    """(name and target kind, seconds) of each unit of the last `--timings` build."""
    html = (crate / "target" / "cargo-timings" / "cargo-timing.html").read_text()
    found = re.search(r"const UNIT_DATA = (\[.*?\]);\n", html, re.S)
    result = {}
    for unit in json.loads(found.group(1)):
        key = f'{unit["name"]} {unit["version"]}{unit.get("target", "")}'
        result[key] = result.get(key, 0.0) + unit["duration"]
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--timings", action="store_true", help="cargo --timings on the last run")
    parser.add_argument("--keep", action="store_true", help="keep the temporary crates")
    parser.add_argument("--eval", action="store_true", help="the kit alone against the kit and onnx-eval")
    parser.add_argument("--ways", nargs="+", choices=WAYS, default=list(WAYS))
    args = parser.parse_args()
    # The pair compared: (base, more); the ratio is more / base.
    base_kind, more_kind = ("with", "with-eval") if args.eval else ("without", "with")
    ways = args.ways
    work = pathlib.Path(tempfile.mkdtemp(prefix="bench-kit-build-"))
    try:
        crates = {
            (way, kit): write_crate(work / f"{way}-{kit}", kit, way == "registry")
            for way in ways
            for kit in (base_kind, more_kind)
        }
        best, times, cpu = {}, {}, {}
        for run in range(args.runs):
            last = run == args.runs - 1
            for (way, kit), crate in crates.items():
                before = load()
                seconds, cpu_seconds = cold_build(crate, args.timings and last)
                print(
                    f"run {run + 1}: {way}, {kit}: {seconds:.1f} s, {cpu_seconds:.1f} CPU-s "
                    f"(load average {before:.1f} before)",
                    flush=True,
                )
                best[way, kit] = min(best.get((way, kit), seconds), seconds)
                times.setdefault((way, kit), []).append(seconds)
                cpu.setdefault((way, kit), []).append(cpu_seconds)
        print(f"\nbest of {args.runs} cold `cargo build --tests` (dev profile, empty target directory):")
        for way in ways:
            low, high = best[way, base_kind], best[way, more_kind]
            # Each run's pair was built back to back, under about the same load.
            pairs = ", ".join(
                f"{h / l:.2f}x" for l, h in zip(times[way, base_kind], times[way, more_kind])
            )
            print(
                f"  {way + ':':9} {base_kind} {low:5.1f} s, {more_kind} {high:5.1f} s: "
                f"{high / low:.2f}x (pairs: {pairs})"
            )
            # No schedule runs a build faster than its CPU time spread over every core: the
            # least CPU time of the runs over the cores bounds the ratio from below.
            cores = os.cpu_count()
            floor = min(cpu[way, more_kind]) / cores
            print(
                f"  {'':9} CPU time, least of the runs: {base_kind} {min(cpu[way, base_kind]):.1f} s, "
                f"{more_kind} {min(cpu[way, more_kind]):.1f} s; on {cores} cores the {more_kind} "
                f"build takes at least {floor:.1f} s, {floor / low:.2f}x the best {base_kind} build"
            )
        for way in ways if args.timings else ():
            print(f"\n== {way}")
            base, kit = units(crates[way, base_kind]), units(crates[way, more_kind])
            extra = sorted(((s, k) for k, s in kit.items() if k not in base), reverse=True)
            print(f"\nunits only the {more_kind} build compiles ({sum(s for s, _ in extra):.1f} s of unit time):")
            for seconds, key in extra:
                print(f"  {seconds:6.1f} s  {key}")
            for name, found in ((base_kind, base), (more_kind, kit)):
                print(f"\nlongest units, {name}:")
                for seconds, key in sorted(((s, k) for k, s in found.items()), reverse=True)[:8]:
                    print(f"  {seconds:6.1f} s  {key}")
    finally:
        if args.keep:
            print(f"\nthe crates are in {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
