#!/usr/bin/env python3
"""onnx 1.23.2's verdict (onnx.checker.check_model(full_check=True)) on the cases of
onnx-syntax/tests/model_check.rs, built with onnx.helper: what each rule's test was checked
against. Prints `<case> OK` or `<case> ERR <onnx's message>`, one line a case. External data
cases run in a fresh temporary folder (`d/` is the model's folder).

Usage: python3 scripts/validate_rule_probes.py
"""

import os
import shutil
import tempfile

import onnx
import onnx.checker
from onnx import TensorProto as T
from onnx import helper as h

assert onnx.__version__ == "1.23.2", "onnx==1.23.2 is required"
os.chdir(tempfile.mkdtemp())

def model(inits=(), nodes=None, ir=10, sparse=(), meta=None, inputs=None):
    x = h.make_tensor_value_info("x", T.FLOAT, [2])
    y = h.make_tensor_value_info("y", T.FLOAT, [2])
    nodes = nodes if nodes is not None else [h.make_node("Relu", ["x"], ["y"])]
    g = h.make_graph(nodes, "g", inputs or [x], [y], initializer=list(inits), sparse_initializer=list(sparse))
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 21)], ir_version=ir)
    if meta:
        for k,v in meta: m.metadata_props.add(key=k, value=v)
    return m
def run(name, m, path=None):
    try:
        if path:
            onnx.save(m, path); onnx.checker.check_model(path, full_check=True)
        else:
            onnx.checker.check_model(m, full_check=True)
        print(name, "OK")
    except Exception as e:
        print(name, "ERR", str(e).split("\n")[0][:150])
t = h.make_tensor("w", T.FLOAT, [2], [1.0,2.0])
run("valid", model([t]))
t = T(); t.name="w"; t.data_type=T.FLOAT; t.dims.extend([2]); t.raw_data=b"\0"*4
run("raw small", model([t]))
t.raw_data=b"\0"*12; run("raw big", model([t]))
t = T(); t.name="w"; t.data_type=T.FLOAT; t.dims.extend([2]); t.float_data.extend([1.0]); run("float small", model([t]))
t = T(); t.name="w"; t.data_type=T.FLOAT; t.dims.extend([2]); t.float_data.extend([1.0,2,3]); run("float big", model([t]))
t = T(); t.name="w"; t.data_type=T.INT4; t.dims.extend([3]); t.int32_data.extend([1,2,3]); run("int4 3 int32", model([t]))
t = T(); t.name="w"; t.data_type=T.INT4; t.dims.extend([3]); t.int32_data.extend([1]); run("int4 1 int32", model([t]))
t = T(); t.name="w"; t.data_type=T.INT4; t.dims.extend([3]); t.raw_data=b"\0"; run("int4 raw 1", model([t]))
t = T(); t.name="w"; t.data_type=T.INT4; t.dims.extend([3]); t.raw_data=b"\0\0"; run("int4 raw 2", model([t]))
t = T(); t.name="w"; t.data_type=T.INT4; t.dims.extend([3]); t.raw_data=b"\0\0\0"; run("int4 raw 3", model([t]))
t = T(); t.name="w"; t.data_type=T.STRING; t.dims.extend([1]); t.raw_data=b"abc"; run("string raw", model([t]))
t = T(); t.name="w"; t.data_type=99; t.dims.extend([1]); t.raw_data=b"abc"; run("dtype 99 raw", model([t]))
t = T(); t.name="w"; t.data_type=99; t.dims.extend([1]); t.int32_data.extend([1]); run("dtype 99 int32", model([t]))
t = T(); t.name="w"; t.data_type=T.FLOAT; t.dims.extend([1]); t.float_data.extend([1]); t.int32_data.extend([1]); run("two fields", model([t]))
t = T(); t.name="w"; t.data_type=T.FLOAT; t.dims.extend([0]); run("empty", model([t]))
t = T(); t.name="w"; t.data_type=T.FLOAT; t.dims.extend([1]); run("no data", model([t]))
t = T(); t.name="w"; t.data_type=T.FLOAT; t.dims.extend([-1]); t.float_data.extend([1]); run("neg dim", model([t]))
t = T(); t.name="w"; t.data_type=T.INT8; t.dims.extend([1]); t.int32_data.extend([1]); run("int8 int32", model([t]))
t = T(); t.name="w"; t.data_type=T.FLOAT8E4M3FN; t.dims.extend([1]); t.int32_data.extend([1]); run("f8 int32", model([t]))
t = T(); t.name="w"; t.data_type=T.FLOAT6E2M3; t.dims.extend([1]); t.int32_data.extend([1]); run("f6 int32", model([t]))
t = T(); t.name="w"; t.data_type=T.FLOAT6E2M3; t.dims.extend([1]); t.raw_data=b"\0"; run("f6 raw", model([t]))
t = T(); t.name="w"; t.data_type=T.UINT2; t.dims.extend([5]); t.raw_data=b"\0"; run("uint2 raw 1 of 5", model([t]))
t = T(); t.name="w"; t.data_type=T.COMPLEX64; t.dims.extend([1]); t.float_data.extend([1]); run("c64 1 float", model([t]))
# ir3 initializer not input
t = h.make_tensor("w", T.FLOAT, [2], [1.0,2.0])
m = model([t], ir=3); run("ir3 init not input", m)
m = model([t], ir=4); run("ir4 init not input", m)
m = model([], ir=15); run("ir15", m)
m = model([]); m.ClearField("ir_version"); run("no ir", m)
m = model([]); m.opset_import.add(domain="", version=20); run("dup opset", m)
m = model([]); m.opset_import.add(domain="ai.onnx", version=21); run("opset ai.onnx dup", m)
m = model([], meta=[("a","1"),("a","2")]); run("dup meta", m)
m = model([]); m.graph.output[0].type.tensor_type.ClearField("shape"); run("no shape out", m)
m = model([]); m.graph.input[0].ClearField("type"); run("no type in", m)
m = model([]); m.graph.value_info.add(name="z"); run("untyped value info", m)
m = model([]); m.graph.ClearField("name"); run("no graph name", m)
# attribute
n = h.make_node("LeakyRelu", ["x"], ["y"], alpha=0.5); n.attribute[0].type = onnx.AttributeProto.INT
run("attr type mismatch", model(nodes=[n]))
n = h.make_node("LeakyRelu", ["x"], ["y"], alpha=0.5); n.attribute[0].i = 3
run("attr two fields", model(nodes=[n]))
n = h.make_node("LeakyRelu", ["x"], ["y"], alpha=0.5); n.attribute[0].ClearField("type")
run("attr no type", model(nodes=[n]))
n = h.make_node("LeakyRelu", ["x"], ["y"], alpha=0.5); n.attribute[0].ref_attr_name = "q"
run("attr ref in main graph", model(nodes=[n]))
n = h.make_node("LeakyRelu", ["x"], ["y"]); a=n.attribute.add(); a.name="alpha"; a.type=onnx.AttributeProto.FLOAT
run("attr no value", model(nodes=[n]))
n = h.make_node("", ["x"], ["y"]); run("empty op", model(nodes=[n]))

def ext(loc, extra=()):
    t = T(); t.name="w"; t.data_type=T.FLOAT; t.dims.extend([2]); t.data_location = T.EXTERNAL
    t.external_data.add(key="location", value=loc)
    for k,v in extra: t.external_data.add(key=k, value=v)
    return model([t])
shutil.rmtree("d", ignore_errors=True); os.makedirs("d/sub"); open("d/w.bin","wb").write(b"\0"*8); open("out.bin","wb").write(b"\0"*8)
os.symlink("../out.bin", "d/link.bin"); os.symlink("w.bin", "d/inlink.bin"); os.link("d/w.bin", "d/hard.bin") if False else None
open("d/small.bin","wb").write(b"\0"*4)
for loc, extra in [("w.bin",()),("../out.bin",()),("/etc/passwd",()),("sub/../../out.bin",()),("missing.bin",()),("link.bin",()),("inlink.bin",()),("sub",()),("sub/../w.bin",()),("./w.bin",()),("small.bin",()),("w.bin",[("offset","4")]),("w.bin",[("length","100")]),("w.bin",[("bogus","1")]),("",()), ("w.bin", [("offset","abc")])]:
    run(f"ext {loc!r} {extra}", ext(loc, extra), path="d/m.onnx")
t = T(); t.name="w"; t.data_type=T.FLOAT; t.dims.extend([2]); t.data_location = T.EXTERNAL
run("ext no location", model([t]), path="d/m.onnx")
t.external_data.add(key="location", value="w.bin"); t.float_data.extend([1,2]); run("ext with data", model([t]), path="d/m.onnx")
os.chdir("d"); run("inmem ext w.bin", ext("w.bin")); run("inmem ext missing", ext("zz.bin")); os.chdir("..")
# sparse
def sp(vals, idx, dims, idxdims=None):
    v = h.make_tensor("s", T.FLOAT, [len(vals)], vals)
    i = h.make_tensor("si", T.INT64, idxdims or [len(idx)], idx) if idx is not None else None
    s = h.make_sparse_tensor(v, i, dims) if i is not None else onnx.SparseTensorProto(values=v, dims=dims)
    m = model(sparse=[s]); return m
run("sparse ok", sp([1,2],[0,3],[4]))
run("sparse range", sp([1,2],[0,4],[4]))
run("sparse unsorted", sp([1,2],[3,0],[4]))
run("sparse dup", sp([1,2],[3,3],[4]))
run("sparse 2d ok", sp([1,2],[0,1,1,0],[2,2],[2,2]))
run("sparse 2d range", sp([1,2],[0,2,1,0],[2,2],[2,2]))
run("sparse 2d order", sp([1,2],[1,0,0,1],[2,2],[2,2]))
run("sparse count", sp([1,2],[0],[4]))
run("sparse no idx", sp([1,2],None,[4]))
run("sparse rank0", sp([1,2],[0,1],[]))
run("sparse dim0", sp([1,2],[0,1],[4,0],[2]))
v = h.make_tensor("s", T.FLOAT, [2], [1,2]); i = h.make_tensor("si", T.INT32, [2], [0,1]); run("sparse int32 idx", model(sparse=[h.make_sparse_tensor(v,i,[4])]))
v = h.make_tensor("s", T.FLOAT, [1,2], [1,2]); i = h.make_tensor("si", T.INT64, [2], [0,1]); run("sparse values rank2", model(sparse=[h.make_sparse_tensor(v,i,[4])]))
i = T(); i.name="si"; i.data_type=T.INT64; i.dims.extend([2]); i.raw_data=(0).to_bytes(8,'little')+(5).to_bytes(8,'little')
v = h.make_tensor("s", T.FLOAT, [2], [1,2]); run("sparse raw idx range", model(sparse=[h.make_sparse_tensor(v,i,[4])]))
# functions
def fmodel(fs, ir=10, mop=21):
    n = h.make_node("F", ["x"], ["y"], domain="local")
    x = h.make_tensor_value_info("x", T.FLOAT, [2]); y = h.make_tensor_value_info("y", T.FLOAT, [2])
    g = h.make_graph([n], "g", [x], [y])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", mop), h.make_opsetid("local", 1)], ir_version=ir, functions=fs)
    return m
def F(name="F", domain="local", ov=None, op=21, body_op="Relu"):
    f = h.make_function(domain, name, ["x"], ["y"], [h.make_node(body_op, ["x"], ["y"])], [h.make_opsetid("", op)])
    if ov is not None: f.overload = ov
    return f
run("fn ok", fmodel([F()]))
run("fn dup", fmodel([F(), F()]))
run("fn dup overload differs", fmodel([F(), F(ov="a")]))
run("fn opset compat same since", fmodel([F(op=20)]))
run("fn opset incompatible", fmodel([F(op=13, body_op="Relu")], mop=14))
f = F(); f.ClearField("domain"); run("fn no domain", fmodel([f]))
f = F(); f.ClearField("opset_import"); run("fn no opset", fmodel([f]))
f = F(); f.node[0].attribute.add(name="a", ref_attr_name="b", type=onnx.AttributeProto.FLOAT, f=1.0); run("fn ref with value", fmodel([f]))
f = F(); f.node[0].attribute.add(name="a", ref_attr_name="b", type=onnx.AttributeProto.FLOAT); run("fn ref ok", fmodel([f]))
f = F(); f.node[0].op_type="LeakyRelu"; f.attribute.append("b"); f.node[0].attribute.add(name="alpha", ref_attr_name="b", type=onnx.AttributeProto.FLOAT); run("fn ref ok2", fmodel([f]))
# opset version out of range
m = model([]); m.opset_import[0].version = 2**40; run("opset huge", m)
m = model([], ir=2); run("ir2 with opset", m)
m = model([], ir=2); m.ClearField("opset_import"); run("ir2 no opset", m)
m = model([], ir=3); m.ClearField("opset_import"); run("ir3 no opset", m)
m = model([]); m.ir_version = -1; run("ir -1", m)

if not os.path.exists("d/hard.bin"): os.link("d/w.bin", "d/hard.bin")
run("hardlink", ext("hard.bin"), path="d/m.onnx")
os.makedirs("d2/real", exist_ok=True); open("d2/real/w.bin","wb").write(b"\0"*8)
if not os.path.exists("d2/sublink"): os.symlink("real", "d2/sublink")
run("dir symlink inside", ext("sublink/w.bin"), path="d2/m.onnx")
if not os.path.exists("d2/outdir"): os.symlink("../d", "d2/outdir")
run("dir symlink outside", ext("outdir/w.bin"), path="d2/m.onnx")

m = model([]); m.graph.input[0].type.tensor_type.shape.dim[0].dim_value = -1; run("neg dim input", m)
m = model([]); m.graph.input[0].type.tensor_type.elem_type = 0; run("elem 0 input", m)
def cast(to):
    x = h.make_tensor_value_info("x", T.FLOAT, [2]); y = h.make_tensor_value_info("y", T.DOUBLE, [2])
    g = h.make_graph([h.make_node("Cast", ["x"], ["y"], to=to)], "g", [x], [y])
    return h.make_model(g, opset_imports=[h.make_opsetid("", 21)], ir_version=10)
run("cast 11", cast(11)); run("cast 0", cast(0)); run("cast 2^40", cast(1<<40))
y = h.make_tensor_value_info("y", T.FLOAT, [1])
g = h.make_graph([h.make_node("Constant", [], ["y"])], "g", [], [y]); run("constant no value", h.make_model(g, opset_imports=[h.make_opsetid("", 21)], ir_version=10))
m = model([]); m.opset_import.add(domain="com.example", version=1); m.graph.node.add(op_type="Log", domain="com.example"); run("empty node", m)
m.graph.node[1].input.append("x"); run("node with input", m)
n = h.make_node("LeakyRelu", ["x"], ["y"], alpha=0.5); n.attribute[0].name = ""; run("attr no name", model(nodes=[n]))
# scalar main io and If subgraph without types
x = h.make_tensor_value_info("x", T.FLOAT, []); c = h.make_tensor_value_info("c", T.BOOL, []); y = h.make_tensor_value_info("y", T.FLOAT, [])
tb = h.make_graph([h.make_node("Identity", ["x"], ["z"])], "t", [], [onnx.ValueInfoProto(name="z")])
eb = h.make_graph([h.make_node("Neg", ["x"], ["z"])], "e", [], [onnx.ValueInfoProto(name="z")])
g = h.make_graph([h.make_node("If", ["c"], ["y"], then_branch=tb, else_branch=eb)], "g", [x, c], [y])
run("if untyped subgraph", h.make_model(g, opset_imports=[h.make_opsetid("", 21)], ir_version=10))
# ref in function with value
f = h.make_function("local", "F", ["x"], ["y"], [h.make_node("LeakyRelu", ["x"], ["y"])], [h.make_opsetid("", 21)], attributes=["b"])
f.node[0].attribute.add(name="alpha", ref_attr_name="b", type=onnx.AttributeProto.FLOAT)
xx = h.make_tensor_value_info("x", T.FLOAT, [2]); yy = h.make_tensor_value_info("y", T.FLOAT, [2])
g = h.make_graph([h.make_node("F", ["x"], ["y"], domain="local", b=0.5)], "g", [xx], [yy])
m = h.make_model(g, opset_imports=[h.make_opsetid("", 21), h.make_opsetid("local", 1)], ir_version=10, functions=[f]); run("fn ref", m)
m.functions[0].node[0].attribute[0].f = 1.0; run("fn ref with value", m)
t = T(); t.name="w"; t.data_type=T.FLOAT6E3M2; t.dims.extend([1]); t.raw_data=b"\0"; run("f6e3m2 raw", model([t]))
t = T(); t.name="w"; t.data_type=T.FLOAT; t.dims.extend([2]); t.raw_data=b"\0"*8; run("float raw ok", model([t]))
t = T(); t.name="w"; t.data_type=T.FLOAT; t.dims.extend([1<<40, 1<<20]); t.float_data.extend([1]); run("huge dims", model([t]))
t = T(); t.name="w"; t.data_type=T.UINT2; t.dims.extend([5]); t.raw_data=b"\0\0"; run("uint2 raw 2", model([t]))
t = T(); t.name="w"; t.data_type=T.FLOAT6E2M3; t.dims.extend([5]); t.raw_data=b"\0"*4; run("f6 raw 4", model([t]))

m = cast(11); m.graph.node[0].attribute[0].ClearField("i"); run("cast to without i", m)
y = h.make_tensor_value_info("y", T.FLOAT, [])
m = h.make_model(h.make_graph([h.make_node("Constant", [], ["y"], value_float=1.0)], "g", [], [y]), opset_imports=[h.make_opsetid("", 21)], ir_version=10)
run("constant value_float", m); m.graph.node[0].attribute[0].ClearField("f"); run("constant value_float without f", m)
n = h.make_node("LeakyRelu", ["x"], ["y"], alpha=0.5); n.attribute[0].ClearField("f"); run("leaky alpha without f", model(nodes=[n]))
# a sequence's or optional's tensor of element type 0 (UNDEFINED), read by a node
for kind, op, out_t in [("seq", "SequenceLength", T.INT64), ("opt", "OptionalHasElement", T.BOOL)]:
    for elem in (T.FLOAT, 0, None):
        inner = h.make_tensor_type_proto(elem or 0, [2])
        if elem is None:
            inner.tensor_type.ClearField("elem_type")
        ty = h.make_sequence_type_proto(inner) if kind == "seq" else h.make_optional_type_proto(inner)
        g = h.make_graph([h.make_node(op, ["x"], ["n"])], "g", [h.make_value_info("x", ty)], [h.make_tensor_value_info("n", out_t, [])])
        run(f"{kind} of elem {elem} input", h.make_model(g, opset_imports=[h.make_opsetid("", 21)], ir_version=10))
# an attribute holding an empty type, or a tensor type of element type 0
for op, attr in [("Cast", "to"), ("Foo", "d")]:
    for label, tp in [("empty", onnx.TypeProto()), ("elem 0", h.make_tensor_type_proto(0, None))]:
        n = h.make_node(op, ["x"], ["y"]); a = n.attribute.add(name=attr, type=onnx.AttributeProto.TYPE_PROTO); a.tp.CopyFrom(tp)
        run(f"{op} {attr} type_proto {label}", model(nodes=[n]))
# a sequence, optional or map whose element (or key, or value) type is missing: in a main-graph
# input, in a value info, and inside an optional; and a valid sequence input
def parts_missing(kind):
    t = onnx.TypeProto()
    if kind == "seq":
        t.sequence_type.SetInParent()
    elif kind == "opt of seq":
        t.optional_type.elem_type.sequence_type.SetInParent()
    elif kind == "map without key":
        t.map_type.value_type.CopyFrom(h.make_tensor_type_proto(T.FLOAT, [2]))
    elif kind == "map without value":
        t.map_type.key_type = T.INT64
    return t
for kind in ("seq", "opt of seq", "map without key", "map without value"):
    ty = parts_missing(kind)
    run(f"input {kind}", model(inputs=[h.make_tensor_value_info("x", T.FLOAT, [2]), h.make_value_info("s", ty)]))
    m = model(); m.graph.value_info.append(h.make_value_info("s", ty)); run(f"value_info {kind}", m)
ty = h.make_sequence_type_proto(h.make_tensor_type_proto(T.FLOAT, [2]))
run("input seq of float", model(inputs=[h.make_tensor_value_info("x", T.FLOAT, [2]), h.make_value_info("s", ty)]))
