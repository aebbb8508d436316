"""ResNet-50 (v1.5, 1000 classes) built with onnx.helper, with seeded random weights.

The real-size model of the external-data and language-server checks: 25.6 M parameters, every
weight a raw_data tensor (numpy_helper.from_array), opset 17, every node's domain "" (as the
text gives it back). No download: the architecture is written out here.

    python3 scripts/resnet50.py OUT.onnx
"""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def build(seed: int = 50) -> onnx.ModelProto:
    rng = np.random.default_rng(seed)
    nodes, inits = [], []

    def weight(name, shape):
        data = (rng.standard_normal(shape) * 0.05).astype(np.float32)
        inits.append(numpy_helper.from_array(data, name))
        return name

    def node(op, inputs, output, **attrs):
        nodes.append(helper.make_node(op, inputs, [output], name=output, domain="", **attrs))
        return output

    def conv_bn(x, name, cin, cout, k, stride, relu=True):
        w = weight(f"{name}_w", (cout, cin, k, k))
        pad = k // 2
        y = node("Conv", [x, w], f"{name}_conv", kernel_shape=[k, k], strides=[stride, stride],
                 pads=[pad, pad, pad, pad])
        params = [weight(f"{name}_bn_{p}", (cout,)) for p in ("scale", "bias", "mean")]
        var = f"{name}_bn_var"
        inits.append(numpy_helper.from_array(
            (rng.random(cout) + 0.5).astype(np.float32), var))
        y = node("BatchNormalization", [y, *params, var], f"{name}_bn", epsilon=1e-5)
        return node("Relu", [y], f"{name}_relu") if relu else y

    x = conv_bn("input", "conv1", 3, 64, 7, 2)
    x = node("MaxPool", [x], "pool1", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for stage, (blocks, width) in enumerate([(3, 64), (4, 128), (6, 256), (3, 512)]):
        for block in range(blocks):
            name = f"layer{stage + 1}_{block}"
            stride = 2 if block == 0 and stage > 0 else 1
            y = conv_bn(x, f"{name}_a", cin, width, 1, 1)
            y = conv_bn(y, f"{name}_b", width, width, 3, stride)
            y = conv_bn(y, f"{name}_c", width, width * 4, 1, 1, relu=False)
            shortcut = x
            if block == 0:
                shortcut = conv_bn(x, f"{name}_down", cin, width * 4, 1, stride, relu=False)
            x = node("Relu", [node("Add", [y, shortcut], f"{name}_add")], f"{name}_out")
            cin = width * 4
    x = node("GlobalAveragePool", [x], "avgpool")
    x = node("Flatten", [x], "flatten", axis=1)
    fc_w = weight("fc_w", (1000, 2048))
    fc_b = weight("fc_b", (1000,))
    node("Gemm", [x, fc_w, fc_b], "logits", transB=1)
    graph = helper.make_graph(
        nodes, "resnet50",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 3, 224, 224])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 1000])],
        initializer=inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


if __name__ == "__main__":
    model = build()
    params = sum(int(np.prod(t.dims)) for t in model.graph.initializer)
    onnx.checker.check_model(model, full_check=True)
    with open(sys.argv[1], "wb") as f:
        f.write(model.SerializeToString())
    print(f"{len(model.graph.node)} nodes, {params / 1e6:.1f} M parameters -> {sys.argv[1]}")
