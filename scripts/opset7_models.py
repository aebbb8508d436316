#!/usr/bin/env python3
"""The two opset-7 models of the version converter's benchmark (issue 46), built with onnx.helper,
each passing onnx's full checker:

- ResNet-50 from `scripts/resnet50.py`, moved to opset 7 as the model zoo's `resnet50-v1-7` is
  written: IR version 3, every initializer also a graph input (IR 3 requires it). Its operators
  (Conv, BatchNormalization, Relu, MaxPool, Add, GlobalAveragePool, Flatten, Gemm) are used with
  attributes that all exist at opset 7: BatchNormalization-7 has no `is_test` and keeps the
  default `spatial`, Gemm-7 has no `broadcast`, MaxPool has no `ceil_mode`/`dilations`
  (opset 10), so the builder's nodes need no change.
- A chain of N nodes cycling through Add, Relu, Softmax <axis = 1>, Unsqueeze <axes = [0]> and
  Squeeze <axes = [0]> on a float[N, 16] tensor. Every one of them takes a real step on the way
  to 21: Add and Relu get new versions (13, 14), Softmax's 2-D coercion ends at 13 (an adapter
  rewrites the axis), and Unsqueeze/Squeeze move `axes` to an input at 13 (an adapter adds a
  Constant). onnx's converter converts both models to 21, and so does ours.

    python3 scripts/opset7_models.py OUT_DIR [--nodes 100000]   # writes resnet50-7.onnx, chain-7.onnx
"""
import argparse
import os
import sys

import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import resnet50  # noqa: E402

CHAIN_CYCLE = ["Add", "Relu", "Softmax", "Unsqueeze", "Squeeze"]


def resnet50_opset7(seed=0):
    model = resnet50.build(seed)
    del model.opset_import[:]
    model.opset_import.append(helper.make_opsetid("", 7))
    model.ir_version = 3
    graph = model.graph
    for tensor in graph.initializer:
        graph.input.append(helper.make_tensor_value_info(tensor.name, tensor.data_type, list(tensor.dims)))
    return model


def chain_opset7(nodes):
    made, previous = [], "x0"
    for i in range(nodes):
        op, out = CHAIN_CYCLE[i % len(CHAIN_CYCLE)], f"x{i + 1}"
        if op == "Add":
            made.append(helper.make_node("Add", [previous, "b"], [out], domain=""))
        elif op == "Softmax":
            made.append(helper.make_node("Softmax", [previous], [out], domain="", axis=1))
        elif op in ("Unsqueeze", "Squeeze"):
            made.append(helper.make_node(op, [previous], [out], domain="", axes=[0]))
        else:
            made.append(helper.make_node(op, [previous], [out], domain=""))
        previous = out
    # The chain ends after a whole cycle when `nodes` is a multiple of 5; otherwise the output's
    # rank is whatever the cycle left, written out so that the model checks either way.
    rank = 3 if CHAIN_CYCLE[(nodes - 1) % len(CHAIN_CYCLE)] == "Unsqueeze" else 2
    shape = [1, "N", 16] if rank == 3 else ["N", 16]
    graph = helper.make_graph(
        made, "chain",
        [helper.make_tensor_value_info("x0", TensorProto.FLOAT, ["N", 16]),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, [16])],
        [helper.make_tensor_value_info(previous, TensorProto.FLOAT, shape)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 7)])
    model.ir_version = 3
    return model


def write(out_dir, nodes):
    """Builds both models, checks them with onnx's full checker, writes them; returns the paths."""
    paths = {}
    for name, model in [("resnet50-7", resnet50_opset7()), ("chain-7", chain_opset7(nodes))]:
        onnx.checker.check_model(model, full_check=True)
        paths[name] = os.path.join(out_dir, f"{name}.onnx")
        onnx.save_model(model, paths[name])
    return paths


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("--nodes", type=int, default=100000)
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    for name, path in write(args.out_dir, args.nodes).items():
        print(f"{path}: {len(onnx.load(path).graph.node)} nodes, opset 7, passes the full checker")


if __name__ == "__main__":
    sys.exit(main())
