"""Printer goldens for scripts/gen_corpus.py: tests/corpus/printer/.

Protos built here (not parsed from text) exercise the printer paths that the
backend models, shipped models and schema functions miss: every float layout of
std::to_chars (random bit patterns, powers of ten, subnormals, the fixed/scientific
boundary), raw_data of every element type, external data, every type
constructor, names that need quotes, nested graphs, graph and node entry points,
and the cases where the reference printer loses information (function defaults,
typed function I/O, value infos, `...` data, unquoted names, untyped refs).

collect(Case, notes) returns the cases: <stem>.<entry>.source.pb is the proto,
<stem>.<entry>.onnxtxt is exactly onnx.printer.to_text(proto), and the reference
parser's verdict on that text is recorded as for every other case.
"""

from __future__ import annotations

import random
import struct

import numpy as np
import onnx
from onnx import AttributeProto, TensorProto, helper

DIR = "printer"
_SEED = 20240611


def _raw_tensor(name: str, data_type: int, dims: list[int], values) -> TensorProto:
    """A tensor holding `values` in raw_data (little-endian)."""
    np_dtype = helper.tensor_dtype_to_np_dtype(data_type)
    raw = np.array(values, dtype=np_dtype).astype(np_dtype.newbyteorder("<")).tobytes()
    return TensorProto(name=name, data_type=data_type, dims=dims, raw_data=raw)


# --------------------------------------------------------------------------
# Floats


def _f32(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def _f64(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def _f32_bits(v: float) -> int:
    return struct.unpack("<I", struct.pack("<f", v))[0]


def _f64_bits(v: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", v))[0]


def _float_values(rng: random.Random, bits: int) -> list[int]:
    """Bit patterns of interesting floats of the given width (32 or 64), no NaN."""
    if bits == 32:
        to_bits, exp_max, frac_bits, max_exp10, min_exp10 = _f32_bits, 0xFF, 23, 38, -45
    else:
        to_bits, exp_max, frac_bits, max_exp10, min_exp10 = _f64_bits, 0x7FF, 52, 308, -324
    width_mask = (1 << bits) - 1
    out: list[int] = []

    def add(v: float) -> None:
        try:
            b = to_bits(v)
        except (OverflowError, struct.error):
            return
        out.append(b)
        out.append(b ^ (1 << (bits - 1)))  # the negative too

    for v in (0.0, 1.0, 2.0, 0.1, 0.5, 1e-7, 123456792.0, 1e20, 1.5e6, 1e-3, 1e-4,
              12345.678, 1234e-7, 0.0001234, 3.4028235e38, 1e22, 1e23, 9007199254740993.0,
              16777216.0, 16777217.0, 33554434.0, float("inf")):
        add(v)
    # powers of ten and their neighbours
    for e in range(min_exp10, max_exp10 + 1):
        try:
            v = float(f"1e{e}")
        except OverflowError:
            continue
        b = to_bits(v) if bits == 64 else _f32_bits(v) if abs(v) < 3.5e38 else None
        if b is None or (b >> frac_bits) & exp_max == exp_max:
            continue
        for d in (-1, 0, 1):
            nb = (b + d) & width_mask
            if (nb >> frac_bits) & exp_max != exp_max:
                out.append(nb)
    # subnormals, the normal boundary and the largest values
    for b in (1, 2, 3, (1 << frac_bits) - 1, 1 << frac_bits, (1 << frac_bits) + 1,
              ((exp_max - 1) << frac_bits) | ((1 << frac_bits) - 1)):
        out.append(b)
    # integers around the fixed/scientific boundary: n digits followed by zeros
    for _ in range(300):
        digits = rng.randint(1, 10 ** rng.randint(1, 9))
        add(float(digits * 10 ** rng.randint(0, 8)))
        add(digits / 10 ** rng.randint(1, 12))
    # random bit patterns
    for _ in range(3000):
        b = rng.getrandbits(bits)
        if (b >> frac_bits) & exp_max != exp_max:
            out.append(b)
    return out


def _float_model(rng: random.Random) -> onnx.ModelProto:
    f32 = [_f32(b) for b in _float_values(rng, 32)]
    f64 = [_f64(b) for b in _float_values(rng, 64)]
    nodes = []
    for i in range(0, len(f32), 64):
        nodes.append(helper.make_node("Floats", [], [f"f{i}"], name=None, values=f32[i:i + 64]))
    for i in range(0, 64):
        nodes.append(helper.make_node("Float", [], [f"s{i}"], value=f32[rng.randrange(len(f32))]))
    inits = []
    for i in range(0, len(f64), 64):
        chunk = f64[i:i + 64]
        inits.append(helper.make_tensor(f"d{i}", TensorProto.DOUBLE, [len(chunk)], chunk))
    inits.append(helper.make_tensor("f32data", TensorProto.FLOAT, [64], f32[:64]))
    inits.append(_raw_tensor("f32raw", TensorProto.FLOAT, [64], f32[64:128]))
    inits.append(_raw_tensor("f64raw", TensorProto.DOUBLE, [64], f64[64:128]))
    # NaNs with their signs and payloads: printed as nan / -nan
    nans = [_f32(0x7FC00000), _f32(0xFFC00000), _f32(0x7F800001), _f32(0xFFBFFFFF)]
    inits.append(helper.make_tensor("nans", TensorProto.FLOAT, [4], nans))
    graph = helper.make_graph(nodes, "floats", [], [], initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


# --------------------------------------------------------------------------
# Data of every element type


def _raw_and_typed_model() -> onnx.ModelProto:
    inits = []
    T = TensorProto
    # typed fields
    for name, dt, vals in [
        ("i8", T.INT8, [-128, -1, 0, 127]), ("u8", T.UINT8, [0, 1, 255, 7]),
        ("i16", T.INT16, [-32768, 0, 32767, 5]), ("u16", T.UINT16, [0, 65535, 1, 2]),
        ("i32", T.INT32, [-2147483648, 2147483647, 0, 3]), ("i64", T.INT64, [-(2**63), 2**63 - 1, 0, 1]),
        ("u32", T.UINT32, [0, 4294967295, 1, 2]), ("u64", T.UINT64, [0, 2**64 - 1, 1, 2]),
        ("b", T.BOOL, [True, False, True, True]),
        ("str", T.STRING, [b"a", b"q\"uo\\te", b"", "\u00e9".encode()]),
    ]:
        inits.append(helper.make_tensor(name, dt, [4], vals))
        if dt != T.STRING:
            inits.append(_raw_tensor(name + "_raw", dt, [4], vals))
    # 16- and 8-bit floats as bit patterns (int32_data) and raw
    for name, dt in [("f16", T.FLOAT16), ("bf16", T.BFLOAT16), ("e4m3", T.FLOAT8E4M3FN),
                     ("e4m3uz", T.FLOAT8E4M3FNUZ), ("e5m2", T.FLOAT8E5M2),
                     ("e5m2uz", T.FLOAT8E5M2FNUZ), ("e8m0", T.FLOAT8E8M0)]:
        t = TensorProto(name=name, data_type=dt, dims=[4], int32_data=[0, 1, 60, 127])
        inits.append(t)
        width = 2 if dt in (T.FLOAT16, T.BFLOAT16) else 1
        raw = b"".join(v.to_bytes(width, "little") for v in (0, 1, 60, 255))
        inits.append(TensorProto(name=name + "_raw", data_type=dt, dims=[4], raw_data=raw))
    # what the reference prints as `...`: packed sub-byte types, float6, complex, in both forms
    for name, dt, field, vals in [
        ("u4", T.UINT4, "int32_data", [0x21, 0x43]), ("i4", T.INT4, "int32_data", [0x21, 0xF3]),
        ("f4", T.FLOAT4E2M1, "int32_data", [0x21, 0x43]), ("u2", T.UINT2, "int32_data", [0xE4]),
        ("i2", T.INT2, "int32_data", [0x1B]), ("f6a", T.FLOAT6E2M3, "int32_data", [1, 2, 3, 63]),
        ("f6b", T.FLOAT6E3M2, "int32_data", [4, 5, 6, 7]),
        ("c64", T.COMPLEX64, "float_data", [1.0, 2.0, -0.5, 3.25]),
        ("c128", T.COMPLEX128, "double_data", [1.0, 2.0, -0.5, 1e-300]),
    ]:
        t = TensorProto(name=name, data_type=dt, dims=[4] if dt not in (T.COMPLEX64, T.COMPLEX128) else [2])
        getattr(t, field).extend(vals)
        inits.append(t)
    raw_sub = [
        ("u4_raw", T.UINT4, [4], bytes([0x21, 0x43])), ("i4_raw", T.INT4, [3], bytes([0x21, 0x03])),
        ("u2_raw", T.UINT2, [4], bytes([0xE4])), ("f6_raw", T.FLOAT6E2M3, [5], bytes([0x81, 0x30, 0x10, 0x3F])),
        ("c64_raw", T.COMPLEX64, [1], struct.pack("<ff", 1.5, -2.0)),
        ("c128_raw", T.COMPLEX128, [1], struct.pack("<dd", 1.5, -2.0)),
    ]
    for name, dt, dims, raw in raw_sub:
        inits.append(TensorProto(name=name, data_type=dt, dims=dims, raw_data=raw))
    # external data, in an initializer and in attribute tensors with and without a name
    ext = TensorProto(name="ext", data_type=T.FLOAT, dims=[3, 2], data_location=TensorProto.EXTERNAL)
    for k, v in (("location", "weights.bin"), ("offset", "17"), ("length", "24")):
        e = ext.external_data.add()
        e.key, e.value = k, v
    inits.append(ext)
    # scalars, empty tensors, negative dims, no data
    inits.append(helper.make_tensor("scalar", T.FLOAT, [], [2.5]))
    inits.append(helper.make_tensor("empty", T.INT64, [0], []))
    inits.append(TensorProto(name="nodata", data_type=T.FLOAT, dims=[2]))
    inits.append(TensorProto(name="neg", data_type=T.INT32, dims=[-1], int32_data=[1]))
    inits.append(TensorProto(name="needs quotes", data_type=T.INT32, dims=[1], int32_data=[1]))

    ext_attr = TensorProto()
    ext_attr.CopyFrom(ext)
    ext_attr.name = "w"
    ext_anon = TensorProto()
    ext_anon.CopyFrom(ext)
    ext_anon.name = ""
    nodes = [
        helper.make_node("Constant", [], ["c1"], value=ext_attr),
        helper.make_node("Constant", [], ["c2"], value=ext_anon),
        helper.make_node("Constant", [], ["c3"], value=helper.make_tensor("", T.STRING, [2], [b"x", b"y"])),
        helper.make_node("Constant", [], ["c4"], value=helper.make_tensor("named", T.STRING, [1], [b"x"])),
        helper.make_node("Constant", [], ["c5"], value=helper.make_tensor("", T.FLOAT, [], [1.0])),
        helper.make_node("Constant", [], ["c6"], value=TensorProto(data_type=T.FLOAT, dims=[2])),
    ]
    graph = helper.make_graph(nodes, "data", [], [], initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


# --------------------------------------------------------------------------
# Types, names, attributes and graphs


def _types_model() -> onnx.ModelProto:
    T = TensorProto
    tensor = helper.make_tensor_type_proto
    vis = [
        helper.make_value_info("scalar", tensor(T.FLOAT, [])),
        helper.make_value_info("unknown_rank", tensor(T.FLOAT, None)),
        helper.make_value_info("dims", tensor(T.INT64, ["N", 3, None, "M + N", "", -1])),
        helper.make_value_info("seq", helper.make_sequence_type_proto(tensor(T.FLOAT, ["N"]))),
        helper.make_value_info("map", helper.make_map_type_proto(T.STRING, tensor(T.FLOAT, [2]))),
        helper.make_value_info("opt", helper.make_optional_type_proto(
            helper.make_sequence_type_proto(tensor(T.UINT8, [])))),
        helper.make_value_info("sparse", helper.make_sparse_tensor_type_proto(T.FLOAT, [2, "K"])),
        helper.make_value_info("sparse_scalar", helper.make_sparse_tensor_type_proto(T.FLOAT, [])),
        helper.make_value_info("sparse_unknown", helper.make_sparse_tensor_type_proto(T.FLOAT, None)),
    ]
    for name, dom, nm in (("op0", None, None), ("op1", None, "a.b.c"), ("op2", "a.b", "T")):
        tp = onnx.TypeProto()
        tp.opaque_type.SetInParent()
        if dom is not None:
            tp.opaque_type.domain = dom
        if nm is not None:
            tp.opaque_type.name = nm
        vis.append(helper.make_value_info(name, tp))
    # every element type name
    for name, number in sorted(T.DataType.items(), key=lambda kv: kv[1]):
        if number:
            vis.append(helper.make_value_info(f"t_{name.lower()}", tensor(number, [1])))
    untyped = onnx.ValueInfoProto(name="untyped")
    inputs = [helper.make_value_info("in/put.0", tensor(T.FLOAT, ["batch size"])), untyped]
    outputs = [helper.make_value_info("out", tensor(T.FLOAT, [1]))]
    nodes = [
        helper.make_node("Id", ["in/put.0"], ["out"], name="node 1"),
        helper.make_node("Id", ["", "x"], ["", "y\"q"], name=""),
        helper.make_node("Foo", ["x"], [], domain="com.example", overload="v2"),
        helper.make_node("Bar", [], ["z"], domain="ai.onnx.ml"),
    ]
    graph = helper.make_graph(nodes, "types and names", inputs, outputs, value_info=vis)
    return helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("com.example", 1)],
        producer_name="printer \"goldens\"",
        producer_version="1.0",
        domain="ai.example",
        model_version=7,
        doc_string="a\nmulti-line \\ doc",
    )


def _attributes_model() -> onnx.ModelProto:
    T = TensorProto
    body = helper.make_graph(
        [helper.make_node("Identity", ["a"], ["b"])], "body",
        [helper.make_tensor_value_info("a", T.FLOAT, [1])],
        [helper.make_tensor_value_info("b", T.FLOAT, [1])],
        initializer=[helper.make_tensor("k", T.FLOAT, [2], [1.0, 2.0])],
    )
    inner_if = helper.make_node("If", ["c"], ["r"], then_branch=body, else_branch=body)
    nested = helper.make_graph(
        [inner_if, helper.make_node("Loop", ["m", "c"], ["l"], body=body)], "nested",
        [helper.make_tensor_value_info("c", T.BOOL, [])],
        [helper.make_tensor_value_info("r", T.FLOAT, [1])],
        value_info=[helper.make_tensor_value_info("m", T.INT64, [])],
    )
    ref = helper.make_attribute_ref("alpha", AttributeProto.FLOAT)
    attrs = {
        "i": 3, "f": 0.5, "s": b"str\"ing", "ints": [1, -2], "floats": [1.5, -0.0], "strings": [b"a", b"b"],
        "t": helper.make_tensor("tn", T.INT64, [2], [1, 2]),
        "tp": helper.make_tensor_type_proto(T.FLOAT, ["N"]),
        "tensors": [helper.make_tensor("", T.FLOAT, [1], [1.0]), helper.make_tensor("u", T.INT32, [], [4])],
        "type_protos": [helper.make_tensor_type_proto(T.INT8, [1]),
                        helper.make_sequence_type_proto(helper.make_tensor_type_proto(T.FLOAT, None))],
    }
    nodes = [
        helper.make_node("Attrs", ["x"], ["y"], **attrs),
        helper.make_node("If", ["c"], ["z"], then_branch=nested, else_branch=body, note=b"after the inputs"),
        helper.make_node("Graphs", [], ["g"], branches=[body, nested]),
        helper.make_node("Empty", [], ["e"]),
    ]
    nodes[0].attribute.append(ref)
    empty_lists = helper.make_node("EmptyLists", [], ["el"])
    for name, ty in (("a", AttributeProto.INTS), ("b", AttributeProto.FLOATS), ("c", AttributeProto.STRINGS),
                     ("d", AttributeProto.TENSORS), ("e", AttributeProto.GRAPHS),
                     ("f", AttributeProto.TYPE_PROTOS), ("g", AttributeProto.SPARSE_TENSORS)):
        empty_lists.attribute.append(AttributeProto(name=name, type=ty))
    nodes.append(empty_lists)
    graph = helper.make_graph(
        nodes, "attrs",
        [helper.make_tensor_value_info("x", T.FLOAT, ["N"]), helper.make_tensor_value_info("c", T.BOOL, [])],
        [helper.make_tensor_value_info("y", T.FLOAT, ["N"])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


def _function(name: str, **kw) -> onnx.FunctionProto:
    f = helper.make_function(
        kw.pop("domain", "local"), name, kw.pop("inputs", ["X"]), kw.pop("outputs", ["Y"]),
        kw.pop("nodes", [helper.make_node("Identity", ["X"], ["Y"])]),
        kw.pop("opsets", [helper.make_opsetid("", 21)]), kw.pop("attributes", []),
        attribute_protos=kw.pop("attribute_protos", None), doc_string=kw.pop("doc_string", None),
        overload=kw.pop("overload", None), value_info=kw.pop("value_info", None),
    )
    assert not kw, kw
    return f


def _functions_model() -> onnx.ModelProto:
    T = TensorProto
    plain = _function("Plain", attributes=["alpha", "beta"], overload="o1")
    graph = helper.make_graph(
        [helper.make_node("Plain", ["x"], ["y"], domain="local", alpha=1.0)], "main",
        [helper.make_tensor_value_info("x", T.FLOAT, ["N"])],
        [helper.make_tensor_value_info("y", T.FLOAT, ["N"])],
    )
    quoted = _function("needs quotes", inputs=["in 1"], outputs=["out.1"],
                       nodes=[helper.make_node("Identity", ["in 1"], ["out.1"])], domain="")
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("local", 1)],
        functions=[plain, quoted],
    )


# --------------------------------------------------------------------------
# Where the reference printer loses information


def _lossy_cases() -> list[tuple[str, str, object]]:
    T = TensorProto
    out: list[tuple[str, str, object]] = []
    # function defaults, typed I/O, value infos, doc string
    out.append(("function-defaults", "function", _function(
        "WithDefaults", attributes=["gamma"],
        attribute_protos=[helper.make_attribute("alpha", 1.0), helper.make_attribute("ks", [1, 2]),
                          AttributeProto(name="typed_only", type=AttributeProto.INT)],
    )))
    f = _function(
        "TypedIO", inputs=["X", "Z"], outputs=["Y"],
        value_info=[helper.make_tensor_value_info("X", T.FLOAT, ["N"]),
                    helper.make_tensor_value_info("Y", T.FLOAT, ["N"]),
                    helper.make_tensor_value_info("t", T.FLOAT, []),
                    onnx.ValueInfoProto(name="u")],
        doc_string="typed \"io\"",
    )
    out.append(("function-typed-io", "function", f))
    # an untyped attribute reference and a reference that needs quotes
    node = helper.make_node("Foo", ["x"], ["y"])
    node.attribute.append(AttributeProto(name="a", ref_attr_name="b"))
    node.attribute.append(AttributeProto(name="c", ref_attr_name="d e", type=AttributeProto.INTS))
    out.append(("node-refs", "node", node))
    fq = _function("QuotedAttrs", attributes=["a b"],
                   attribute_protos=[helper.make_attribute("c d", 2)])
    out.append(("function-quoted-attributes", "function", fq))
    # keyword-named untyped value infos
    g = helper.make_graph(
        [helper.make_node("Identity", ["float"], ["seq"])], "kw",
        [onnx.ValueInfoProto(name="float")], [onnx.ValueInfoProto(name="seq")],
        value_info=[onnx.ValueInfoProto(name="map"), helper.make_tensor_value_info("int64", T.INT64, [])],
    )
    out.append(("keyword-names", "graph", g))
    # model without ir_version, function without domain
    m = onnx.ModelProto(graph=helper.make_graph([], "g", [], []))
    f = _function("NoDomain")
    f.ClearField("domain")
    m.functions.append(f)
    out.append(("no-ir-version", "model", m))
    # an initializer without a name
    g = helper.make_graph([], "anon", [], [], initializer=[helper.make_tensor("", T.FLOAT, [1], [1.0])])
    out.append(("anonymous-initializer", "graph", g))
    return out


def _unexpressible_cases() -> list[tuple[str, str, object]]:
    """Messages the syntax cannot express at all: both printers print what they can."""
    T = TensorProto
    out: list[tuple[str, str, object]] = []
    g = helper.make_graph([], "raw_strings", [], [], initializer=[
        TensorProto(name="s", data_type=T.STRING, dims=[1], raw_data=b"abc"),
        TensorProto(name="u", data_type=0, dims=[1], int32_data=[1]),
        TensorProto(name="v", data_type=99, dims=[1], raw_data=b"\x01"),
    ])
    out.append(("tensors", "graph", g))
    node = helper.make_node("Op", ["x"], ["y"], domain="bad domain", overload="o.1")
    node.op_type = "op-type"
    node.attribute.append(AttributeProto(name="a b", type=AttributeProto.INT, i=1))
    node.attribute.append(AttributeProto(name="sp", type=AttributeProto.SPARSE_TENSOR))
    node.attribute.append(AttributeProto(name="g", type=AttributeProto.GRAPH))
    node.attribute.append(AttributeProto(name="none"))
    tp = onnx.TypeProto()
    tp.opaque_type.domain = "d"
    node.attribute.append(AttributeProto(name="tp", type=AttributeProto.TYPE_PROTO, tp=tp))
    out.append(("names-and-attributes", "node", node))
    return out


def collect(Case, notes) -> list:
    rng = random.Random(_SEED)
    cases = []

    def add(stem: str, entry: str, proto) -> None:
        text = onnx.printer.to_text(proto)
        cases.append(Case(DIR, stem, entry, text, proto.SerializeToString()))

    add("floats", "model", _float_model(rng))
    add("data", "model", _raw_and_typed_model())
    add("types-and-names", "model", _types_model())
    add("attributes", "model", _attributes_model())
    add("functions", "model", _functions_model())
    attrs = _attributes_model()
    add("attributes", "graph", attrs.graph)
    # Lists of tensors, graphs and type protos are printed by the reference and dropped by
    # its parser (a divergence, docs/divergences.md #6): the node entries leave them out, so
    # that the reference's verdict on each node text is one our parser must reproduce.
    lists = {AttributeProto.TENSORS, AttributeProto.GRAPHS, AttributeProto.TYPE_PROTOS}
    for i, node in enumerate(attrs.graph.node):
        kept = [a for a in node.attribute if a.type not in lists]
        del node.attribute[:]
        node.attribute.extend(kept)
        add(f"attributes-node{i}", "node", node)
    add("plain", "function", _functions_model().functions[0])
    for stem, entry, proto in _lossy_cases():
        add(f"lossy-{stem}", entry, proto)
    for stem, entry, proto in _unexpressible_cases():
        add(f"unexpressible-{stem}", entry, proto)
    notes.append(f"printer: {len(cases)} protos built by scripts/printer_cases.py, printed by the reference")
    return cases
