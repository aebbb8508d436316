#!/usr/bin/env python3
"""Build time of a crate holding an N-node `onnx!` literal, against the same crate embedding the
model's bytes with `include_bytes!` + decode. Dependencies are built first (warm); then each crate
is rebuilt after touching its source, several times, and the best times are compared.

With --optimize-macros, both crates build proc macros optimized
(`[profile.dev.build-override] opt-level = 3`), as the literals guide
(`src/guide/literals.md`) suggests for crates with big literals.

With --holes K, K of the literal's `alpha` values are Rust values (`alpha = #alpha`), spread evenly:
the build is timed as above, and a release binary then times evaluating the literal (decode the
skeleton, patch the holes) against decoding the same model's bytes.

With --floors, two more crates are timed in the same rounds, to show what no checking macro can
go below: the text present but never expanded (`#[cfg(any())]`: rustc still lexes it), and a
macro that reads nothing of its input and only writes the model's bytes, read from a file, as the
byte-string literal `onnx!` expands to (proc_macro's escaping, then rustc's unescaping).

With --callgrind, the literal crate's `rustc` invocation also runs under valgrind's callgrind,
and the instructions of rustc, of the expansion and of its stages are printed: unlike wall times
on a shared machine, they are stable enough to compare two versions of the code.

Run: python3 scripts/bench_macro_build.py [--nodes 10000] [--runs 3] [--optimize-macros] [--holes 100]
     [--callgrind] [--floors]
Needs only cargo (and valgrind for --callgrind). The crates are written under target/bench-macro-build/.
"""
import argparse
import pathlib
import re
import shlex
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
WORK = ROOT / "target" / "bench-macro-build"


def model_text(nodes, holes=0):
    """An N-node chain; with `holes`, that many `alpha` values are the Rust variable `alpha`."""
    every = nodes // holes if holes else 0
    lines = ['<ir_version: 10, opset_import: ["" : 21]>', "chain (float[N] x0) => (float[N] y) {"]
    for i in range(nodes):
        alpha = "#alpha" if every and i % every == 0 and i // every < holes else "0.1"
        lines.append(f"    x{i + 1} = LeakyRelu <alpha = {alpha}> (x{i})")
    lines.append(f"    y = Identity (x{nodes})")
    lines.append("}")
    return "\n".join(lines) + "\n"


OPTIMIZE_MACROS = False
CALLGRIND = False


def write_crate(name, main_rs, extra=None):
    crate = WORK / name
    (crate / "src").mkdir(parents=True, exist_ok=True)
    (crate / "Cargo.toml").write_text(
        f'[package]\nname = "{name}"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n\n'
        f'[dependencies]\nonnx-text = {{ path = "{ROOT}" }}\n\n[workspace]\n'
        + ("\n[profile.dev.build-override]\nopt-level = 3\n" if OPTIMIZE_MACROS else "")
    )
    (crate / "src" / "main.rs").write_text(main_rs)
    for file, data in (extra or {}).items():
        (crate / file).write_bytes(data)
    return crate


EMIT_BYTES = """\
//! The floor of a macro that expands to a literal's bytes: it reads nothing of its input.
use proc_macro::{Delimiter, Group, Literal, TokenStream, TokenTree};

#[proc_macro]
pub fn emit_bytes(_text: TokenStream) -> TokenStream {
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap();
    let bytes = std::fs::read(format!("{dir}/model.pb")).unwrap();
    let mut expansion: TokenStream =
        "::onnx_text::__private::decode::<::onnx_text::ModelProto>".parse().unwrap();
    let literal = TokenStream::from(TokenTree::Literal(Literal::byte_string(&bytes)));
    expansion.extend([TokenTree::Group(Group::new(Delimiter::Parenthesis, literal))]);
    expansion
}
"""


def floor_crates(text, model_bytes):
    """The two floors of --floors: the text never expanded, and a macro that only writes bytes."""
    unexpanded = write_crate(
        "with_floor",
        "use onnx_text::prost::Message;\nfn main() {\n    #[cfg(any())]\n    onnx_text::onnx! {\n"
        + text + "    };\n"
        '    let model = onnx_text::ModelProto::decode(&include_bytes!("../model.pb")[..]).unwrap();\n'
        '    println!("{}", model.graph.unwrap().node.len());\n}\n',
        {"model.pb": model_bytes},
    )
    emitter = WORK / "emit_bytes"
    (emitter / "src").mkdir(parents=True, exist_ok=True)
    (emitter / "Cargo.toml").write_text(
        '[package]\nname = "emit_bytes"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n\n'
        "[lib]\nproc-macro = true\n\n[workspace]\n")
    (emitter / "src" / "lib.rs").write_text(EMIT_BYTES)
    bytes_only = write_crate(
        "with_emitted_bytes",
        "fn main() {\n    let model = emit_bytes::emit_bytes! {\n" + text + "    };\n"
        '    println!("{}", model.graph.unwrap().node.len());\n}\n',
        {"model.pb": model_bytes},
    )
    manifest = bytes_only / "Cargo.toml"
    manifest.write_text(manifest.read_text().replace(
        "[dependencies]\n", f'[dependencies]\nemit_bytes = {{ path = "{emitter}" }}\n'))
    return {"text unexpanded": unexpanded, "bytes only": bytes_only}


def build_seconds(crate, target):
    (crate / "src" / "main.rs").touch()
    start = time.perf_counter()
    subprocess.run(["cargo", "build", "--quiet", "--target-dir", str(target)], cwd=crate, check=True)
    return time.perf_counter() - start


def measure(nodes, runs, optimize_macros=False, holes=0, floors=False):
    """Best build seconds of each crate for an N-node literal: {"onnx!": s, "include_bytes!": s}."""
    global OPTIMIZE_MACROS
    OPTIMIZE_MACROS = optimize_macros
    text = model_text(nodes)
    literal_text = model_text(nodes, holes)
    target = WORK / ("target-opt" if OPTIMIZE_MACROS else "target")
    # The reference bytes: the runtime parser gives them (the conformance suite checks that it
    # matches onnx 1.23.2 byte for byte). A helper crate writes them once.
    writer = write_crate(
        "write_bytes",
        "use onnx_text::prost::Message;\nfn main() {\n"
        '    let text = std::fs::read_to_string("model.onnxtxt").unwrap();\n'
        '    std::fs::write("model.pb", onnx_text::parse_model(&text).unwrap().encode_to_vec()).unwrap();\n}\n',
        {"model.onnxtxt": text.encode()},
    )
    subprocess.run(["cargo", "run", "--quiet", "--target-dir", str(target)], cwd=writer, check=True)
    model_bytes = (writer / "model.pb").read_bytes()
    literal = write_crate(
        "with_holes" if holes else "with_literal",
        "fn main() {\n    let alpha = 0.1_f32;\n    let model = onnx_text::onnx! {\n" + literal_text + "    };\n"
        '    println!("{}", model.graph.unwrap().node.len());\n}\n',
    )
    baseline = write_crate(
        "with_bytes",
        "use onnx_text::prost::Message;\nfn main() {\n"
        '    let model = onnx_text::ModelProto::decode(&include_bytes!("../model.pb")[..]).unwrap();\n'
        '    println!("{}", model.graph.unwrap().node.len());\n}\n',
        {"model.pb": model_bytes},
    )
    crates = {"onnx!": literal, "include_bytes!": baseline}
    if floors:
        crates.update(floor_crates(text, model_bytes))
    for crate in crates.values():  # warm: dependencies built, first build done
        build_seconds(crate, target)
    times = {name: [] for name in crates}
    for _ in range(runs):
        for name, crate in crates.items():
            times[name].append(build_seconds(crate, target))
    for crate in crates.values():
        out = subprocess.run(["cargo", "run", "--quiet", "--target-dir", str(target)], cwd=crate,
                             check=True, capture_output=True, text=True).stdout.strip()
        assert out == str(nodes + 1), out
    best = {k: min(v) for k, v in times.items()}
    print(f"nodes: {nodes}, text: {len(text)} bytes, protobuf: {len(model_bytes)} bytes, "
          f"proc macros {'optimized' if OPTIMIZE_MACROS else 'unoptimized (default dev profile)'}",
          file=sys.stderr)
    for k, v in times.items():
        print(f"  {k:15} builds (s): " + ", ".join(f"{t:.2f}" for t in v) + f"  best {best[k]:.2f}",
              file=sys.stderr)
    print(f"ratio onnx! / include_bytes!: {best['onnx!'] / best['include_bytes!']:.2f} (target <= 1.25)"
          + (f", with {holes} holes" if holes else ""), file=sys.stderr)
    for name in crates:
        if name not in ("onnx!", "include_bytes!"):
            print(f"  floor, {name} / include_bytes!: {best[name] / best['include_bytes!']:.2f}",
                  file=sys.stderr)
    if holes:
        evaluation(literal_text, model_bytes, target)
    if CALLGRIND:
        callgrind(literal, target)
    return best


# Functions whose inclusive instructions make up the expansion, as callgrind names them.
STAGES = [
    ("expansion (on rustc's thread)", "onnx_macro_core::expand::expand "),
    ("  parse (twice for a big text: once on each thread)", "onnx_syntax::entry::<impl onnx_syntax::syntax::form::Entry>::parse_with "),
    ("  checks but shapes (rustc's thread)", "onnx_check::driver::walk_tree "),
    ("  lowering (the thread beside)", "onnx_syntax::entry::<impl onnx_syntax::syntax::form::Tree<N>>::lower "),
    ("  shape checks (the thread beside)", "onnx_check::shapes::Sites::check "),
    ("    inference", "onnx_infer::graph::infer_model "),
    ("  encoding (a third thread, beside the shape checks)", "onnx_syntax::entry::Proto::encode "),
    ("  code generation (rustc's thread)", "onnx_macro_core::codegen::decoded "),
    ("  freeing the messages (a thread of its own)", "onnx_macro_core::expand::free_beside::{{closure}} "),
]


def callgrind(crate, target):
    """Runs the crate's rustc invocation under callgrind; prints rustc's and the stages'
    instructions (inclusive, in millions)."""
    (crate / "src" / "main.rs").touch()
    verbose = subprocess.run(["cargo", "build", "-v", "--target-dir", str(target)], cwd=crate,
                             check=True, capture_output=True, text=True).stderr
    command = next(line for line in verbose.splitlines()
                   if "Running `" in line and f"--crate-name {crate.name}" in line)
    command = command.split("Running `", 1)[1].rstrip("`")
    out = target / "callgrind.out"
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
                   + shlex.split(command), cwd=crate, check=True, capture_output=True)
    report = subprocess.run(["callgrind_annotate", "--inclusive=yes", str(out)], check=True,
                            capture_output=True, text=True).stdout
    totals = {}
    for line in report.splitlines():
        found = re.match(r"\s*([\d,]+) ", line)
        if found:
            for label, function in STAGES + [("rustc", "PROGRAM TOTALS")]:
                if function in line and label not in totals:
                    totals[label] = int(found.group(1).replace(",", ""))
    print(f"callgrind, {crate.name}'s rustc (millions of instructions, inclusive):", file=sys.stderr)
    for label, _ in [("rustc", None)] + STAGES:
        if label in totals:
            print(f"  {label:60} {totals[label] / 1e6:9.1f}", file=sys.stderr)


def evaluation(literal_text, model_bytes, target):
    """Times evaluating the literal with holes against decoding the model's bytes, in one release
    binary, alternating, and prints the ratio of the medians."""
    crate = write_crate(
        "evaluate_holes",
        "use onnx_text::prost::Message;\nuse std::time::Instant;\n"
        "fn literal(alpha: f32) -> onnx_text::ModelProto {\n    onnx_text::onnx! {\n"
        + literal_text + "    }\n}\n"
        "fn main() {\n"
        '    let bytes = include_bytes!("../model.pb");\n'
        "    assert_eq!(literal(std::hint::black_box(0.1)).encode_to_vec(), bytes.to_vec());\n"
        "    let (mut ours, mut decode) = (Vec::new(), Vec::new());\n"
        "    for _ in 0..41 {\n"
        "        let start = Instant::now();\n"
        "        std::hint::black_box(literal(std::hint::black_box(0.1)));\n"
        "        ours.push(start.elapsed().as_secs_f64());\n"
        "        let start = Instant::now();\n"
        "        std::hint::black_box(onnx_text::ModelProto::decode(std::hint::black_box(&bytes[..])).unwrap());\n"
        "        decode.push(start.elapsed().as_secs_f64());\n"
        "    }\n"
        "    ours.sort_by(f64::total_cmp); decode.sort_by(f64::total_cmp);\n"
        '    println!("evaluate {:.3} ms, decode {:.3} ms, ratio {:.2}", ours[20] * 1e3, decode[20] * 1e3, ours[20] / decode[20]);\n'
        "}\n",
        {"model.pb": model_bytes},
    )
    out = subprocess.run(["cargo", "run", "--release", "--quiet", "--target-dir", str(target)],
                         cwd=crate, check=True, capture_output=True, text=True).stdout.strip()
    print(f"literal with holes, release: {out} (median of 41)", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--optimize-macros", action="store_true")
    parser.add_argument("--holes", type=int, default=0)
    parser.add_argument("--callgrind", action="store_true")
    parser.add_argument("--floors", action="store_true")
    args = parser.parse_args()
    global CALLGRIND
    CALLGRIND = args.callgrind
    measure(args.nodes, args.runs, args.optimize_macros, args.holes, args.floors)


if __name__ == "__main__":
    main()
