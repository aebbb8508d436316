#!/usr/bin/env python3
"""Incremental build of a test file of 100 small models written as `onnx!` literals, against the
same models written as prost struct literals, the way crates without a text syntax build test
models (candle-onnx's tests, for one):

    ModelProto { graph: Some(GraphProto { node: vec![NodeProto { op_type: Some("Add".into()),
        ..Default::default() }], ..Default::default() }), ..Default::default() }

Each model has three nodes (an addition, an activation with a float attribute, and an operator
with an int or a string attribute) and typed inputs and outputs, and no two models are the same.

Two crates are written under target/bench-small-models/, each with the 100 models in
`tests/models.rs` (one function per model) and a test that reads one field of each. Both depend on
onnx-text, whose build is warm before timing. Each run touches `tests/models.rs` and runs
`cargo test --no-run`, crate after crate, so that both see the same machine load; the best of the
runs is kept for each (the default dev profile, so the `onnx!` macro runs unoptimized).

A third crate compiles both files as modules and asserts that every `onnx!` model equals its prost
literal, so that both variants build the same models; it runs once, before the timing.

Run: python3 scripts/bench_small_models_build.py [--models 100] [--runs 5]
Needs only cargo.
"""
import argparse
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
WORK = ROOT / "target" / "bench-small-models"

# The third node of each model cycles through these: (operator, attribute name, attribute text,
# prost attribute fields). Each keeps the shape of its input, so every model checks clean.
THIRD_NODES = [
    ("Softmax", "axis", "1", "r#type: Some(AttributeType::Int as i32), i: Some(1)"),
    ("Gelu", "approximate", '"tanh"',
     'r#type: Some(AttributeType::String as i32), s: Some(b"tanh".to_vec())'),
    ("LogSoftmax", "axis", "-1", "r#type: Some(AttributeType::Int as i32), i: Some(-1)"),
    ("Elu", "alpha", "0.5", "r#type: Some(AttributeType::Float as i32), f: Some(0.5)"),
]
ACTIVATIONS = ["LeakyRelu", "Elu", "ThresholdedRelu"]


def model_parts(k):
    """What varies between models: the channel count, the activation and its alpha, and the
    third node."""
    channels = 2 + k % 7
    activation = ACTIVATIONS[k % len(ACTIVATIONS)]
    alpha = f"0.{k + 1:02d}"
    third = THIRD_NODES[k % len(THIRD_NODES)]
    return channels, activation, alpha, third


def onnx_model(k):
    channels, activation, alpha, (op, name, value, _) = model_parts(k)
    return f"""pub fn model_{k}() -> ModelProto {{
    onnx! {{
        <ir_version: 10, opset_import: ["" : 21]>
        model_{k} (float[N, {channels}] x, float[{channels}] bias) => (float[N, {channels}] y) {{
            t = Add (x, bias)
            u = {activation} <alpha = {alpha}> (t)
            y = {op} <{name} = {value}> (u)
        }}
    }}
}}
"""


def prost_value_info(name, dims):
    shape = ", ".join(
        "Dimension { value: Some(dimension::Value::DimParam(\"N\".into())), ..Default::default() }"
        if d == "N" else
        f"Dimension {{ value: Some(dimension::Value::DimValue({d})), ..Default::default() }}"
        for d in dims
    )
    return f"""ValueInfoProto {{
                name: Some("{name}".into()),
                r#type: Some(TypeProto {{
                    value: Some(type_proto::Value::TensorType(type_proto::Tensor {{
                        elem_type: Some(1),
                        shape: Some(TensorShapeProto {{
                            dim: vec![{shape}],
                        }}),
                    }})),
                    ..Default::default()
                }}),
                ..Default::default()
            }}"""


def prost_node(op, inputs, output, attribute=None):
    names = ", ".join(f'"{i}".into()' for i in inputs)
    attributes = ""
    if attribute:
        attr_name, fields = attribute
        attributes = f"""
                attribute: vec![AttributeProto {{
                    name: Some("{attr_name}".into()),
                    {fields},
                    ..Default::default()
                }}],"""
    return f"""NodeProto {{
                input: vec![{names}],
                output: vec!["{output}".into()],
                op_type: Some("{op}".into()),
                domain: Some("".into()),{attributes}
                ..Default::default()
            }}"""


def prost_model(k):
    channels, activation, alpha, (op, name, _, fields) = model_parts(k)
    nodes = ",\n            ".join([
        prost_node("Add", ["x", "bias"], "t"),
        prost_node(activation, ["t"], "u",
                   ("alpha", f"r#type: Some(AttributeType::Float as i32), f: Some({alpha})")),
        prost_node(op, ["u"], "y", (name, fields)),
    ])
    return f"""pub fn model_{k}() -> ModelProto {{
    ModelProto {{
        ir_version: Some(10),
        opset_import: vec![OperatorSetIdProto {{
            domain: Some("".into()),
            version: Some(21),
        }}],
        graph: Some(GraphProto {{
            name: Some("model_{k}".into()),
            input: vec![
            {prost_value_info("x", ["N", channels])},
            {prost_value_info("bias", [channels])},
            ],
            output: vec![{prost_value_info("y", ["N", channels])}],
            node: vec![
            {nodes},
            ],
            ..Default::default()
        }}),
        ..Default::default()
    }}
}}
"""


ONNX_HEADER = "use onnx_text::{ModelProto, onnx};\n\n"
PROST_HEADER = (
    "use onnx_text::attribute_proto::AttributeType;\n"
    "use onnx_text::tensor_shape_proto::{Dimension, dimension};\n"
    "use onnx_text::{\n    AttributeProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, "
    "TensorShapeProto, TypeProto,\n    ValueInfoProto, type_proto,\n};\n\n"
)


def models_file(header, model, count):
    """The 100 model functions, and a test that reads one field of each (so that none is dead
    code and the test binary links them all)."""
    calls = "\n".join(f"    assert_eq!(model_{k}().graph.unwrap().node.len(), 3);" for k in range(count))
    return (header + "\n".join(model(k) for k in range(count))
            + f"\n#[test]\nfn every_model_has_three_nodes() {{\n{calls}\n}}\n")


def write_crate(name, files):
    crate = WORK / name
    (crate / "tests").mkdir(parents=True, exist_ok=True)
    (crate / "src").mkdir(parents=True, exist_ok=True)
    (crate / "Cargo.toml").write_text(
        f'[package]\nname = "{name}"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n\n'
        f'[dependencies]\nonnx-text = {{ path = "{ROOT}" }}\n\n[workspace]\n'
    )
    (crate / "src" / "lib.rs").write_text("")
    for path, text in files.items():
        (crate / path).write_text(text)
        # Laid out as a person would commit it, so that the line counts compare.
        subprocess.run(["rustfmt", "--edition", "2024", str(crate / path)], check=True)
    return crate


def cargo(crate, target, *args):
    done = subprocess.run(["cargo", *args, "--quiet", "--target-dir", str(target)], cwd=crate,
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"cargo {' '.join(args)} failed in {crate}:\n{done.stdout}{done.stderr}")


def build_seconds(crate, target):
    (crate / "tests" / "models.rs").touch()
    start = time.perf_counter()
    cargo(crate, target, "test", "--no-run")
    return time.perf_counter() - start


def main():
    args_parser = argparse.ArgumentParser()
    args_parser.add_argument("--models", type=int, default=100)
    args_parser.add_argument("--runs", type=int, default=5)
    args = args_parser.parse_args()
    target = WORK / "target"
    onnx_file = models_file(ONNX_HEADER, onnx_model, args.models)
    prost_file = models_file(PROST_HEADER, prost_model, args.models)
    with_onnx = write_crate("with_onnx", {"tests/models.rs": onnx_file})
    with_prost = write_crate("with_prost", {"tests/models.rs": prost_file})
    comparisons = "\n".join(
        f"    assert_eq!(onnx_models::model_{k}(), prost_models::model_{k}(), \"model_{k}\");"
        for k in range(args.models)
    )
    same = write_crate("same_models", {"tests/same.rs": (
        '#[allow(dead_code)]\n#[path = "../../with_onnx/tests/models.rs"]\nmod onnx_models;\n'
        '#[allow(dead_code)]\n#[path = "../../with_prost/tests/models.rs"]\nmod prost_models;\n\n'
        f"#[test]\nfn every_onnx_literal_equals_its_prost_literal() {{\n{comparisons}\n}}\n"
    )})
    # Both variants build the same models (this also builds onnx-text, warm for the timing).
    cargo(same, target, "test")
    for crate in (with_onnx, with_prost):
        cargo(crate, target, "test")  # warm: dependencies built, the tests pass
    times = {"onnx!": [], "prost literals": []}
    for _ in range(args.runs):
        times["onnx!"].append(build_seconds(with_onnx, target))
        times["prost literals"].append(build_seconds(with_prost, target))
    best = {k: min(v) for k, v in times.items()}
    lines = {name: len((crate / "tests" / "models.rs").read_text().splitlines())
             for name, crate in (("onnx!", with_onnx), ("prost literals", with_prost))}
    print(f"{args.models} models of 3 nodes, incremental `cargo test --no-run` after touching "
          "tests/models.rs (default dev profile)")
    for k, v in times.items():
        print(f"  {k:15} {lines[k]:5} lines, builds (s): " + ", ".join(f"{t:.2f}" for t in v)
              + f"  best {best[k]:.2f}")
    print(f"ratio onnx! / prost literals: {best['onnx!'] / best['prost literals']:.2f} "
          f"(target <= 0.8); lines {lines['onnx!'] / lines['prost literals']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
