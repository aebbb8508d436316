"""Goldens of external data from the onnx==1.23.2 wheel, for onnx-text-cli/tests/cli.rs.

Writes to tests/data/external/:
  model.onnx          a model whose initializers hold raw data of several sizes, one of them in
                      a subgraph, every node with domain "" (as the text gives it)
  saved-1024/         onnx.save_model(model, ..., save_as_external_data=True,
                      location="model.bin", size_threshold=1024): model.onnx + model.bin
  saved-0/            the same with size_threshold=0

Deterministic: the weights come from a seeded generator, so a second run writes the same bytes.
Run: python3 scripts/gen_external_data.py
"""

import os
import shutil

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

assert onnx.__version__ == "1.23.2", onnx.__version__

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "data", "external")


def build() -> onnx.ModelProto:
    rng = np.random.default_rng(29)
    # 991 bytes is where onnx's count (len + 33) reaches 1024; 990 stays inline.
    w = numpy_helper.from_array(rng.standard_normal((16, 32)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal((32,)).astype(np.float32), "b")
    edge_in = numpy_helper.from_array(rng.integers(0, 255, 991).astype(np.uint8), "edge_in")
    edge_out = numpy_helper.from_array(rng.integers(0, 255, 990).astype(np.uint8), "edge_out")
    small = numpy_helper.from_array(np.array([1, 2], dtype=np.int64), "small")
    sub_w = numpy_helper.from_array(rng.standard_normal((32, 32)).astype(np.float32), "sub_w")
    then_graph = helper.make_graph(
        [helper.make_node("MatMul", ["h", "sub_w"], ["a"], domain="")],
        "then",
        [],
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, ["N", 32])],
        initializer=[sub_w],
    )
    else_graph = helper.make_graph(
        [helper.make_node("Identity", ["h"], ["e"], domain="")],
        "else",
        [],
        [helper.make_tensor_value_info("e", TensorProto.FLOAT, ["N", 32])],
    )
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["t"], domain=""),
        helper.make_node("Add", ["t", "b"], ["h"], domain=""),
        helper.make_node("If", ["c"], ["y"], domain="", then_branch=then_graph, else_branch=else_graph),
    ]
    graph = helper.make_graph(
        nodes,
        "external",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 16]),
            helper.make_tensor_value_info("c", TensorProto.BOOL, []),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 32])],
        initializer=[w, b, edge_in, edge_out, small],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    onnx.checker.check_model(model, full_check=True)
    return model


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    model = build()
    with open(os.path.join(OUT, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    for threshold in (1024, 0):
        folder = os.path.join(OUT, f"saved-{threshold}")
        os.makedirs(folder)
        copy = onnx.ModelProto()
        copy.CopyFrom(model)
        cwd = os.getcwd()
        # onnx refuses a location that exists relative to the current folder.
        os.chdir(folder)
        try:
            onnx.save_model(
                copy,
                "model.onnx",
                save_as_external_data=True,
                location="model.bin",
                size_threshold=threshold,
            )
        finally:
            os.chdir(cwd)
        loaded = onnx.load(os.path.join(folder, "model.onnx"), load_external_data=True)
        onnx.checker.check_model(os.path.join(folder, "model.onnx"), full_check=True)
        assert numpy_helper.to_array(loaded.graph.initializer[0]).tobytes() == numpy_helper.to_array(
            model.graph.initializer[0]
        ).tobytes()
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
