#!/usr/bin/env python3
"""Regenerate tests/corpus/: the conformance corpus of the ONNX text parser.

Every case is run through the reference implementation (onnx==1.23.2, the C++
OnnxParser reached through onnx.parser) and its verdict is recorded:

    <dir>/<stem>.<entry>.onnxtxt    the exact input bytes (UTF-8)
    <dir>/<stem>.<entry>.pb         result.SerializeToString(), if accepted
    <dir>/<stem>.<entry>.rejected   "<ExceptionClass>: <message>", if rejected
    <dir>/<stem>.<entry>.source.pb  (backend/, shipped/, schema-functions/, printer/) the
                                    proto the text was printed from

<entry> is one of model, graph, function, node. The directory is deleted and
rewritten; the output is deterministic. Usage (from anywhere):

    pip install -r scripts/requirements.txt
    python3 scripts/gen_corpus.py
"""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import sys
import warnings

import onnx
import onnx.defs
import onnx.helper
import onnx.parser
import onnx.printer

import onnx.onnx_cpp2py_export.parser as _cparser  # the raw C++ binding

REFERENCE_VERSION = "1.23.2"
assert onnx.__version__ == REFERENCE_VERSION, (
    f"onnx=={REFERENCE_VERSION} is required, found {onnx.__version__}"
)

SCRIPT_DIR = pathlib.Path(__file__).resolve().parent
REPO = SCRIPT_DIR.parent
CORPUS = REPO / "tests" / "corpus"
sys.path.insert(0, str(SCRIPT_DIR))
sys.dont_write_bytecode = True  # leave no __pycache__ next to the scripts
import corpus_cases  # noqa: E402  (hand-written cases)
import printer_cases  # noqa: E402  (printer goldens: protos built in Python)

ONNX_DIR = pathlib.Path(onnx.__file__).resolve().parent
ENTRIES = ("model", "graph", "function", "node")
PARSERS = {
    "model": onnx.parser.parse_model,
    "graph": onnx.parser.parse_graph,
    "function": onnx.parser.parse_function,
    "node": onnx.parser.parse_node,
}
C_PARSERS = {
    "model": _cparser.parse_model,
    "graph": _cparser.parse_graph,
    "function": _cparser.parse_function,
    "node": _cparser.parse_node,
}
PROTO_TYPES = {
    "model": onnx.ModelProto,
    "graph": onnx.GraphProto,
    "function": onnx.FunctionProto,
    "node": onnx.NodeProto,
}
STEM_RE = re.compile(r"[A-Za-z0-9_.-]+")
MAX_SHIPPED_TEXT = 2 * 1024 * 1024  # skip shipped models printing to more than this
MAX_SOURCE_DIR_BYTES = 40 * 1000 * 1000  # keep .source.pb only below this per dir

DIR_ORDER = ("backend", "shipped", "schema-functions", "defs-cc", "handwritten", "divergent", "printer")


class Case:
    __slots__ = ("dir", "stem", "entry", "text", "source", "verdict", "payload")

    def __init__(self, dir_, stem, entry, text, source=None):
        if not STEM_RE.fullmatch(stem):
            raise ValueError(f"bad stem {stem!r}")
        if entry not in ENTRIES:
            raise ValueError(f"bad entry {entry!r} for {stem}")
        if not isinstance(text, str):
            raise TypeError(f"text of {stem} must be str")
        self.dir = dir_
        self.stem = stem
        self.entry = entry
        self.text = text
        self.source = source  # bytes or None
        self.verdict = None  # "accepted" | "rejected"
        self.payload = None  # bytes (.pb) or str (.rejected line)

    @property
    def key(self):
        return f"{self.dir}/{self.stem}.{self.entry}"


# --------------------------------------------------------------------------
# Running the reference


def exception_line(exc: BaseException) -> str:
    msg = exc.args[0] if len(exc.args) == 1 else (exc.args if exc.args else "")
    if isinstance(msg, bytes):
        msg = msg.decode("utf-8", errors="replace")
    else:
        msg = str(msg) if len(exc.args) == 1 else str(exc)
    msg = msg.replace("\r\n", "\n").replace("\r", "\n").replace("\n", " | ")
    return f"{type(exc).__name__}: {msg}"


def run_reference(entry: str, text: str):
    """Returns ("accepted", bytes) or ("rejected", line)."""
    try:
        result = PARSERS[entry](text)
    except Exception as exc:  # ParseError, ValueError, IndexError, RuntimeError, ...
        return "rejected", exception_line(exc)
    data = result.SerializeToString()
    # Guard: the Python re-serialisation must equal the C++ serialisation.
    ok, _msg, cbytes = C_PARSERS[entry](text)
    if not ok or cbytes != data:
        raise AssertionError(f"C++ and Python serialisations differ for {text[:80]!r}")
    return "accepted", data


def evaluate(case: Case) -> None:
    case.verdict, case.payload = run_reference(case.entry, case.text)


# --------------------------------------------------------------------------
# Collectors


def collect_backend(notes):
    from onnx.backend.test.case import model as model_cases
    from onnx.backend.test.case import node as node_cases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        node_tcs = list(node_cases.collect_testcases())
        model_tcs = list(model_cases.collect_testcases())
    cases = []
    without_model = []
    for tc in node_tcs + model_tcs:
        if tc.model is None:  # the "real" cases are downloaded on demand
            without_model.append(tc.name)
            continue
        text = onnx.printer.to_text(tc.model)
        cases.append(Case("backend", tc.name, "model", text, tc.model.SerializeToString()))
    notes.append(
        f"backend: {len(node_tcs)} node test cases, {len(model_tcs)} model test cases; "
        f"skipped {len(without_model)} without an in-memory model (downloaded on demand): "
        + ", ".join(sorted(without_model))
    )
    return cases


def collect_shipped(notes):
    data = ONNX_DIR / "backend" / "test" / "data"
    cases = []
    skipped = []
    paths = []
    for group in sorted(p.name for p in data.iterdir() if p.is_dir()):
        for model_path in sorted((data / group).glob("*/model.onnx")):
            paths.append((f"{group}-{model_path.parent.name}", model_path))
        # the "light" group ships <name>.onnx files directly in the group folder
        for model_path in sorted((data / group).glob("*.onnx")):
            paths.append((f"{group}-{model_path.stem}", model_path))
    for stem, model_path in paths:
        model = onnx.load(str(model_path))
        text = onnx.printer.to_text(model)
        size = len(text.encode("utf-8"))
        if size > MAX_SHIPPED_TEXT:
            skipped.append(f"{stem} ({size} bytes of text)")
            continue
        cases.append(Case("shipped", stem, "model", text, model.SerializeToString()))
    notes.append(
        f"shipped: {len(paths)} model files found; skipped {len(skipped)} printing to "
        f"more than {MAX_SHIPPED_TEXT} bytes: " + (", ".join(skipped) or "none")
    )
    return cases


_ELEM_PREFERENCE = ("tensor(float)", "tensor(int64)", "tensor(int32)", "tensor(bool)")


def _ctx_input_type(schema, formal) -> bytes:
    allowed = {c.type_param_str: list(c.allowed_type_strs) for c in schema.type_constraints}
    strs = allowed.get(formal.type_str, [formal.type_str])
    chosen = next((t for t in _ELEM_PREFERENCE if t in strs), sorted(strs)[0])
    m = re.fullmatch(r"tensor\((\w+)\)", chosen)
    name = m.group(1) if m else "float"
    dtype = {
        "float": onnx.TensorProto.FLOAT,
        "int64": onnx.TensorProto.INT64,
        "int32": onnx.TensorProto.INT32,
        "bool": onnx.TensorProto.BOOL,
    }.get(name, getattr(onnx.TensorProto, name.upper(), onnx.TensorProto.FLOAT))
    return onnx.helper.make_tensor_type_proto(dtype, None).SerializeToString()


def collect_schema_functions(notes):
    schemas = sorted(
        onnx.defs.get_all_schemas_with_history(),
        key=lambda s: (s.domain, s.name, s.since_version),
    )
    cases = []
    n_body = n_versioned = n_dup = n_ctx = 0
    ctx_failed = []
    for s in schemas:
        base = f"{s.domain or 'ai.onnx'}-{s.name}-{s.since_version}"
        main_text = None
        if s.has_function:
            fp = s.function_body
            main_text = onnx.printer.to_text(fp)
            cases.append(Case("schema-functions", base, "function", main_text, fp.SerializeToString()))
            n_body += 1
            for v in sorted(s.function_opset_versions):
                fp = onnx.FunctionProto()
                fp.ParseFromString(s.get_function_with_opset_version(v))
                text = onnx.printer.to_text(fp)
                if text == main_text:
                    n_dup += 1
                    continue
                cases.append(
                    Case("schema-functions", f"{base}-fv{v}", "function", text, fp.SerializeToString())
                )
                n_versioned += 1
        if s.has_context_dependent_function:
            node = onnx.helper.make_node(
                s.name, [i.name for i in s.inputs], [o.name for o in s.outputs], domain=s.domain
            )
            types = [_ctx_input_type(s, i) for i in s.inputs]
            for v in sorted(s.context_dependent_function_opset_versions):
                try:
                    raw = s.get_context_dependent_function_with_opset_version(
                        v, node.SerializeToString(), types
                    )
                except Exception as exc:  # needs attributes we do not supply
                    ctx_failed.append(f"{base}@{v} ({type(exc).__name__})")
                    continue
                fp = onnx.FunctionProto()
                fp.ParseFromString(raw)
                if not fp.node:
                    ctx_failed.append(f"{base}@{v} (empty body)")
                    continue
                text = onnx.printer.to_text(fp)
                cases.append(
                    Case("schema-functions", f"{base}-ctx{v}", "function", text, fp.SerializeToString())
                )
                n_ctx += 1
    notes.append(
        f"schema-functions: {n_body} function bodies, {n_versioned} extra "
        f"get_function_with_opset_version variants ({n_dup} identical to the body, not repeated), "
        f"{n_ctx} context-dependent bodies (node with all formal inputs, float/int64 tensor types, "
        f"no attributes); {len(ctx_failed)} context-dependent builds unavailable: "
        + ", ".join(ctx_failed)
    )
    return cases


_RAW_RE = re.compile(r'R"ONNX\((.*?)\)ONNX"', re.S)


def _skip_ws_and_comments(text: str) -> str:
    i = 0
    while i < len(text):
        if text[i] in " \t\r\n\v\f":
            i += 1
        elif text[i] == "#":
            while i < len(text) and text[i] != "\n":
                i += 1
        else:
            break
    return text[i:]


def collect_defs_cc(notes):
    defs = ONNX_DIR / "defs"
    cases = []
    kinds = {"braced": 0, "bare": 0}
    for path in sorted(defs.rglob("*.cc")):
        src = path.read_text(encoding="utf-8")
        rel = path.relative_to(defs).as_posix().replace("/", "-")
        for m in _RAW_RE.finditer(src):
            line = src.count("\n", 0, m.start()) + 1
            body = m.group(1)
            if _skip_ws_and_comments(body).startswith("{"):
                text = "F () => () " + body
                kinds["braced"] += 1
            else:
                text = "F () => () {" + body + "\n}"
                kinds["bare"] += 1
            cases.append(Case("defs-cc", f"{rel}-L{line}", "function", text))
    notes.append(
        f"defs-cc: {len(cases)} R\"ONNX(...)ONNX\" literals ({kinds['braced']} braced NodeLists, "
        f"{kinds['bare']} bare node sequences or fragments)"
    )
    return cases


# --------------------------------------------------------------------------
# Checks on hand-written cases


def _walk_attributes(msg):
    """Yield every AttributeProto in a proto, recursing into graphs."""
    if isinstance(msg, onnx.ModelProto):
        yield from _walk_attributes(msg.graph)
        for f in msg.functions:
            yield from _walk_attributes(f)
    elif isinstance(msg, onnx.GraphProto):
        for n in msg.node:
            yield from _walk_attributes(n)
    elif isinstance(msg, onnx.FunctionProto):
        for a in msg.attribute_proto:
            yield a
        for n in msg.node:
            yield from _walk_attributes(n)
    elif isinstance(msg, onnx.NodeProto):
        for a in msg.attribute:
            yield a
            if a.HasField("g"):
                yield from _walk_attributes(a.g)
            for g in a.graphs:
                yield from _walk_attributes(g)


_SINGLE_FIELDS = {
    onnx.AttributeProto.TENSOR: "t",
    onnx.AttributeProto.GRAPH: "g",
    onnx.AttributeProto.SPARSE_TENSOR: "sparse_tensor",
    onnx.AttributeProto.TYPE_PROTO: "tp",
}


def _divergence_reason(case: Case) -> str | None:
    """Detects accepted texts on which the Rust implementation deliberately differs."""
    if "\0" in case.text:
        return "contains a NUL byte"
    proto = PROTO_TYPES[case.entry]()
    proto.ParseFromString(case.payload)
    # (a) trailing text after a graph, function or node: embed the text in a model,
    # whose parser does require the end of input, and compare.
    if case.entry != "model":
        if case.entry == "graph":
            wrapped = case.text
        elif case.entry == "function":
            wrapped = "g () => () {}\n" + case.text
        else:
            wrapped = "g () => () {\n" + case.text + "\n}"
        try:
            m = onnx.parser.parse_model(wrapped)
        except Exception as exc:
            return f"trailing text (embedded in a model: {exception_line(exc)[:120]})"
        if case.entry == "graph":
            same = m.graph == proto and len(m.functions) == 0
        elif case.entry == "function":
            same = len(m.functions) == 1 and m.functions[0] == proto and len(m.graph.node) == 0
        else:
            same = len(m.graph.node) == 1 and m.graph.node[0] == proto
        if not same:
            return "trailing text (embedded in a model it parses differently)"
    # (b) dropped list values and (c) swallowed errors leave attributes without values.
    for a in _walk_attributes(proto):
        if a.ref_attr_name:
            continue
        if a.type == onnx.AttributeProto.UNDEFINED:
            return f"attribute {a.name!r} has no type (dropped list)"
        field = _SINGLE_FIELDS.get(a.type)
        if field and not a.HasField(field):
            is_fn_decl = isinstance(proto, onnx.FunctionProto) and a in list(proto.attribute_proto)
            if not is_fn_decl:
                return f"attribute {a.name!r} of type {a.type} has no value (dropped list)"
    return None


# --------------------------------------------------------------------------
# Output


def write_corpus(cases, notes):
    if CORPUS.exists():
        shutil.rmtree(CORPUS)
    CORPUS.mkdir(parents=True)
    by_dir = {}
    for c in cases:
        by_dir.setdefault(c.dir, []).append(c)
    sizes = {}
    for d, dcases in by_dir.items():
        base = CORPUS / d
        base.mkdir()
        src_bytes = sum(len(c.source) for c in dcases if c.source is not None)
        other = sum(
            len(c.text.encode("utf-8"))
            + (len(c.payload) if c.verdict == "accepted" else len(c.payload.encode("utf-8")) + 1)
            for c in dcases
        )
        keep_sources = src_bytes and other + src_bytes <= MAX_SOURCE_DIR_BYTES
        if src_bytes and not keep_sources:
            notes.append(f"{d}: .source.pb omitted ({src_bytes} bytes would exceed the size rule)")
        for c in sorted(dcases, key=lambda c: c.stem):
            stem = base / f"{c.stem}.{c.entry}"
            (base / f"{c.stem}.{c.entry}.onnxtxt").write_bytes(c.text.encode("utf-8"))
            if c.verdict == "accepted":
                pathlib.Path(f"{stem}.pb").write_bytes(c.payload)
            else:
                pathlib.Path(f"{stem}.rejected").write_bytes((c.payload + "\n").encode("utf-8"))
            if keep_sources and c.source is not None:
                pathlib.Path(f"{stem}.source.pb").write_bytes(c.source)
        sizes[d] = sum(p.stat().st_size for p in base.iterdir())
    return sizes


def summary_lines(cases):
    counts = {}
    for c in cases:
        a, r = counts.get(c.dir, (0, 0))
        counts[c.dir] = (a + (c.verdict == "accepted"), r + (c.verdict == "rejected"))
    lines = []
    tot_a = tot_r = 0
    for d in sorted(counts, key=lambda d: (DIR_ORDER.index(d) if d in DIR_ORDER else 99, d)):
        a, r = counts[d]
        tot_a += a
        tot_r += r
        lines.append(f"{d}: accepted={a} rejected={r} total={a + r}")
    lines.append(f"all: accepted={tot_a} rejected={tot_r} total={tot_a + tot_r}")
    return lines


GITATTRIBUTES = (
    "# generated by scripts/gen_corpus.py: every file must keep its exact bytes\n"
    "* -text\n"
    "*.pb binary\n"
)


def write_manifest(cases):
    lines = [
        f"# onnx-text conformance corpus, generated by scripts/gen_corpus.py with onnx=="
        f"{REFERENCE_VERSION}; one line per case: <dir>/<stem>.<entry> accepted|rejected"
    ]
    lines += sorted(f"{c.key} {c.verdict}" for c in cases)
    lines += [f"# {s}" for s in summary_lines(cases)]
    (CORPUS / "MANIFEST.txt").write_bytes(("\n".join(lines) + "\n").encode("utf-8"))
    (CORPUS / ".gitattributes").write_bytes(GITATTRIBUTES.encode("utf-8"))


def verify(cases):
    """Re-read everything that was written and check it against the reference."""
    for c in cases:
        stem = CORPUS / c.dir / f"{c.stem}.{c.entry}"
        text = pathlib.Path(f"{stem}.onnxtxt").read_bytes().decode("utf-8")
        assert text == c.text, c.key
        pb, rej = pathlib.Path(f"{stem}.pb"), pathlib.Path(f"{stem}.rejected")
        if c.verdict == "accepted":
            assert pb.exists() and not rej.exists(), c.key
            data = pb.read_bytes()
            msg = PROTO_TYPES[c.entry]()
            msg.ParseFromString(data)
            assert msg.SerializeToString() == data, f"re-serialisation differs: {c.key}"
        else:
            assert rej.exists() and not pb.exists(), c.key
            content = rej.read_bytes().decode("utf-8")
            assert content.endswith("\n") and content.count("\n") == 1, c.key
        verdict, payload = run_reference(c.entry, text)
        assert (verdict, payload) == (c.verdict, c.payload), f"unstable verdict: {c.key}"


def main() -> int:
    notes: list[str] = []
    cases: list[Case] = []
    cases += collect_backend(notes)
    cases += collect_shipped(notes)
    cases += collect_schema_functions(notes)
    cases += collect_defs_cc(notes)
    for stem, entry, text in corpus_cases.HANDWRITTEN:
        cases.append(Case("handwritten", stem, entry, text))
    for stem, entry, text in corpus_cases.DIVERGENT:
        cases.append(Case("divergent", stem, entry, text))
    # printer goldens (printer/): protos built in Python, printed by the reference
    cases += printer_cases.collect(Case, notes)

    keys = [c.key for c in cases]
    dups = sorted({k for k in keys if keys.count(k) > 1}) if len(set(keys)) != len(keys) else []
    if dups:
        raise SystemExit(f"duplicate case names: {dups[:20]}")
    lower = {}
    for k in keys:  # case-insensitive file systems
        if lower.setdefault(k.lower(), k) != k:
            raise SystemExit(f"case names differ only by case: {k} / {lower[k.lower()]}")

    for c in cases:
        evaluate(c)

    problems = []
    for c in cases:
        if c.dir != "divergent" and "\0" in c.text:
            problems.append(f"{c.key}: NUL byte outside divergent/")
        if c.dir == "handwritten" and c.verdict == "accepted":
            reason = _divergence_reason(c)
            if reason:
                problems.append(f"{c.key}: belongs in divergent/: {reason}")
    if problems:
        raise SystemExit("case errors:\n  " + "\n  ".join(problems))

    defs_rejected = [c.stem for c in cases if c.dir == "defs-cc" and c.verdict == "rejected"]
    notes.append("defs-cc rejected when wrapped: " + (", ".join(defs_rejected) or "none"))
    printed_rejected = [
        c.key for c in cases if c.dir in ("backend", "shipped", "schema-functions") and c.verdict == "rejected"
    ]
    notes.append(
        f"printed texts the reference cannot re-parse: {len(printed_rejected)}"
        + (": " + ", ".join(printed_rejected) if printed_rejected else "")
    )

    sizes = write_corpus(cases, notes)
    write_manifest(cases)
    verify(cases)

    total = sum(p.stat().st_size for p in CORPUS.rglob("*") if p.is_file())
    for n in notes:
        print(n)
    for d in sorted(sizes, key=lambda d: DIR_ORDER.index(d) if d in DIR_ORDER else 99):
        print(f"size {d}: {sizes[d]} bytes")
    print(f"size total: {total} bytes")
    for s in summary_lines(cases):
        print(s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
