#!/usr/bin/env python3
"""Cold build of a tiny crate that depends on onnx-conformance, against the same crate depending
on onnx-text alone (issue 28: at most 1.5x), and on a copy of the kit whose 1,884
`include_onnx_bytes!` models are `#![unchecked]` (the catalog's are checked): what the
compile-time checks of the models cost.

Each crate is built from an empty target directory (`cargo build --offline`, dev profile, as a
user's first `cargo test` builds it), one after the other, `--runs` times in turn; the best time
of each is reported, with the ratios.

Run: python3 scripts/bench_conformance_build.py [--runs 2]
The crates and their target directories are written under target/bench-conformance-build/;
the kits are copies of onnx-conformance and onnx-conformance-data, one with `#![unchecked]`
added to every model.
"""
import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import bench_cold_build  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
KIT = ROOT / "onnx-conformance"
DATA_CRATE = ROOT / "onnx-conformance-data"
WORK = ROOT / "target" / "bench-conformance-build"
# bench_cold_build's crate writer, pointed at this script's folder.
bench_cold_build.WORK = WORK
write_crate = bench_cold_build.write_crate

MAIN_WITHOUT = """use onnx_text::{ModelProto, onnx};

fn main() {
    let model: ModelProto = onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[N] x) => (float[N] y) { y = Relu (x) }
    };
    println!("{}", model.graph.unwrap().node.len());
}
"""

MAIN_WITH = MAIN_WITHOUT.replace(
    "    println!(", "    println!(\"{}\", onnx_conformance::cases().len());\n    println!("
)


def kit_copy(checked):
    """onnx-conformance and its data crate as crates of their own, the models checked or not."""
    root = WORK / ("kit-checked" if checked else "kit-unchecked")
    shutil.rmtree(root, ignore_errors=True)
    data, kit = root / "data-crate", root / "kit"
    (data / "src").mkdir(parents=True)
    os.symlink(DATA_CRATE / "data", data / "data")
    catalog = (DATA_CRATE / "src" / "lib.rs").read_text()
    assert "include_onnx_bytes!(" in catalog, "the catalog's macro has another name"
    if not checked:
        catalog = catalog.replace("include_onnx_bytes!(", "include_onnx_bytes!(#![unchecked] ")
    (data / "src" / "lib.rs").write_text(catalog)
    (data / "Cargo.toml").write_text(
        '[package]\nname = "onnx-conformance-data"\nversion = "0.1.0"\nedition = "2024"\n\n'
        f'[dependencies]\nonnx-macro = {{ path = "{ROOT / "onnx-macro"}" }}\n'
    )
    shutil.copytree(KIT / "src", kit / "src")
    # The kit's own dependencies, from this checkout, and its features (the older releases',
    # off here) so that their `cfg`s are known.
    dependencies = f'onnx-conformance-data = {{ path = "{data}" }}\n' + "".join(
        f'{name} = {{ path = "{ROOT / name}" }}\n' for name in ("onnx-runtime-types", "onnx-value")
    )
    features = sorted(set(re.findall(r"^(onnx_1_\w+|all-releases) =", (KIT / "Cargo.toml").read_text(), re.M)))
    (kit / "Cargo.toml").write_text(
        '[package]\nname = "onnx-conformance"\nversion = "0.1.0"\nedition = "2024"\n\n'
        '[lib]\nname = "onnx_conformance"\n\n'
        f"[dependencies]\n{dependencies}\n[features]\n" + "".join(f"{f} = []\n" for f in features)
    )
    return kit


def cold_build(crate):
    target = crate / "target"
    shutil.rmtree(target, ignore_errors=True)
    start = time.perf_counter()
    subprocess.run(
        ["cargo", "build", "--quiet", "--offline", "--target-dir", str(target)], cwd=crate, check=True
    )
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    crates = {
        "onnx-text alone": write_crate("without-kit", f'onnx-text = {{ path = "{ROOT}" }}\n', MAIN_WITHOUT),
    }
    for checked in (False, True):
        kit = kit_copy(checked)
        name = "with kit, checked literals" if checked else "with kit, #![unchecked] literals"
        crate = write_crate(
            "with-kit-checked" if checked else "with-kit",
            f'onnx-text = {{ path = "{ROOT}" }}\nonnx-conformance = {{ path = "{kit}" }}\n',
            MAIN_WITH,
        )
        crates[name] = crate
    for crate in crates.values():
        subprocess.run(["cargo", "fetch", "--quiet"], cwd=crate, check=True)
    best = {}
    for run in range(args.runs):
        for name, crate in crates.items():
            seconds = cold_build(crate)
            print(f"run {run + 1}: {name}: {seconds:.1f} s", flush=True)
            best[name] = min(best.get(name, seconds), seconds)
    base = best["onnx-text alone"]
    print(f"\nbest of {args.runs} cold builds (dev profile, empty target directory):")
    for name, seconds in best.items():
        print(f"  {name:34} {seconds:6.1f} s  {seconds / base:.2f}x")


if __name__ == "__main__":
    main()
