#!/usr/bin/env python3
"""ResNet-50 (v1, 224x224, 1000 classes), built with onnx.helper: a real-size model without a
download. 175 nodes (53 Conv each followed by a BatchNormalization, Relu, MaxPool, 16 residual
Add, GlobalAveragePool, Flatten, Gemm), 25.6 M parameters, opset 17, every weight seeded random
and stored as `raw_data` (`numpy_helper.from_array`), every node's domain written as `""`. It
passes onnx's full checker.

    python3 scripts/resnet50.py OUT.onnx [--external-data]   # --external-data: OUT.onnx.data beside it
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


def make_node(*args, **kwargs):
    """A node of the default domain with `domain: ""` written out, as the text gives it back,
    so that binary -> text -> binary is byte-identical."""
    return helper.make_node(*args, domain="", **kwargs)


class Builder:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes = []
        self.initializers = []
        self.count = 0

    def weight(self, name, shape, scale):
        values = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        self.initializers.append(numpy_helper.from_array(values, name))
        return name

    def fresh(self, prefix):
        self.count += 1
        return f"{prefix}_{self.count}"

    def conv_bn(self, x, channels_in, channels_out, kernel, stride, relu):
        name = self.fresh("conv")
        w = self.weight(f"{name}_w", (channels_out, channels_in, kernel, kernel),
                        (2.0 / (channels_in * kernel * kernel)) ** 0.5)
        pad = kernel // 2
        conv = f"{name}_out"
        self.nodes.append(make_node(
            "Conv", [x, w], [conv], name=name, kernel_shape=[kernel, kernel],
            strides=[stride, stride], pads=[pad] * 4))
        scale = self.weight(f"{name}_bn_scale", (channels_out,), 0.1)
        bias = self.weight(f"{name}_bn_bias", (channels_out,), 0.1)
        mean = self.weight(f"{name}_bn_mean", (channels_out,), 0.1)
        var = f"{name}_bn_var"
        variance = self.rng.uniform(0.5, 1.5, (channels_out,)).astype(np.float32)
        self.initializers.append(numpy_helper.from_array(variance, var))
        out = f"{name}_bn"
        self.nodes.append(make_node(
            "BatchNormalization", [conv, scale, bias, mean, var], [out], name=f"{name}_bn"))
        if relu:
            activated = f"{name}_relu"
            self.nodes.append(make_node("Relu", [out], [activated]))
            return activated
        return out

    def bottleneck(self, x, channels_in, width, stride):
        out_channels = width * 4
        y = self.conv_bn(x, channels_in, width, 1, 1, True)
        y = self.conv_bn(y, width, width, 3, stride, True)
        y = self.conv_bn(y, width, out_channels, 1, 1, False)
        shortcut = x
        if stride != 1 or channels_in != out_channels:
            shortcut = self.conv_bn(x, channels_in, out_channels, 1, stride, False)
        added = self.fresh("add")
        self.nodes.append(make_node("Add", [y, shortcut], [added]))
        out = f"{added}_relu"
        self.nodes.append(make_node("Relu", [added], [out]))
        return out, out_channels


def build(seed=0):
    """The model, its weights drawn from `seed`."""
    b = Builder(seed)
    x = b.conv_bn("input", 3, 64, 7, 2, True)
    b.nodes.append(make_node(
        "MaxPool", [x], ["pool"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]))
    x, channels = "pool", 64
    for width, blocks, stride in [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]:
        for i in range(blocks):
            x, channels = b.bottleneck(x, channels, width, stride if i == 0 else 1)
    b.nodes.append(make_node("GlobalAveragePool", [x], ["gap"]))
    b.nodes.append(make_node("Flatten", ["gap"], ["flat"], axis=1))
    fc_w = b.weight("fc_w", (1000, channels), (1.0 / channels) ** 0.5)
    fc_b = b.weight("fc_b", (1000,), 0.01)
    b.nodes.append(make_node("Gemm", ["flat", fc_w, fc_b], ["logits"], transB=1))
    graph = helper.make_graph(
        b.nodes, "resnet50",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 3, 224, 224])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 1000])],
        b.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    return model


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--external-data", action="store_true",
                    help="weights over 1 KiB in OUT.data, as save_model(..., size_threshold=1024)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    model = build(args.seed)
    onnx.checker.check_model(model, full_check=True)
    if args.external_data:
        onnx.save_model(model, args.out, save_as_external_data=True, all_tensors_to_one_file=True,
                        location=os.path.basename(args.out) + ".data", size_threshold=1024)
    else:
        onnx.save_model(model, args.out)
    parameters = sum(int(np.prod(t.dims)) for t in model.graph.initializer)
    print(f"{args.out}: {len(model.graph.node)} nodes, {parameters:,} parameters")


if __name__ == "__main__":
    sys.exit(main())
