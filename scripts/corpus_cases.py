"""Hand-written conformance cases for scripts/gen_corpus.py.

HANDWRITTEN and DIVERGENT are lists of (stem, entry, text). entry is one of
"model", "graph", "function", "node" (parse_model/parse_graph/parse_function/
parse_node). No verdict is written here: the generator records whatever the
reference parser (onnx==1.23.2) says.

DIVERGENT holds the texts on which the Rust implementation deliberately differs
from the reference (see docs/DESIGN.md, "Conformance policy"):
  (a) trailing text after a graph, function or node given to parse_graph/
      parse_function/parse_node (the reference ignores it);
  (b) attribute lists of tensors, graphs, type protos or @refs (values dropped);
  (c) function attribute lists whose entries hold an error that is swallowed;
  (d) texts containing a NUL byte (the C string ends there).
Section numbers refer to docs/onnx-text-reference.md.
"""

from __future__ import annotations

HANDWRITTEN: list[tuple[str, str, str]] = []
DIVERGENT: list[tuple[str, str, str]] = []

HDR = '<ir_version: 10, opset_import: ["" : 21]>\n'


def M(stem, text):
    HANDWRITTEN.append((stem, "model", text))


def G(stem, text):
    HANDWRITTEN.append((stem, "graph", text))


def F(stem, text):
    HANDWRITTEN.append((stem, "function", text))


def N(stem, text):
    HANDWRITTEN.append((stem, "node", text))


def D(stem, entry, text):
    DIVERGENT.append((stem, entry, text))


def model(nodes, inputs="(float[N] x)", outputs="(float[N] y)", header=HDR, name="g", tail=""):
    """A model whose graph holds the given node text."""
    return header + name + " " + inputs + " => " + outputs + "\n{\n" + nodes + "\n}\n" + tail


def graph(nodes, inputs="(float[N] x)", outputs="(float[N] y)", name="g"):
    return name + " " + inputs + " => " + outputs + "\n{\n" + nodes + "\n}\n"


def attr_model(attrs):
    """A model with one node carrying the given attribute-list text."""
    return model("   y = Foo <" + attrs + "> (x)")


# ===========================================================================
# §2.1 whitespace and comments

M(
    "lex-comment-everywhere",
    "# leading comment\n"
    "<# c\n ir_version # c\n : # c\n 10 # c\n , # c\n opset_import # c\n : # c\n"
    ' [ # c\n "" # c\n : # c\n 21 # c\n ] # c\n> # c\n'
    "g # c\n ( # c\n float # c\n [ # c\n N # c\n ] # c\n x # c\n ) # c\n => # c\n"
    " ( # c\n float # c\n [ # c\n N # c\n ] # c\n y # c\n ) # c\n"
    "< # c\n float # c\n [ # c\n 2 # c\n ] # c\n w # c\n = # c\n { # c\n 1 # c\n , # c\n 2 # c\n } # c\n> # c\n"
    "{ # c\n"
    "   [ # c\n n1 # c\n ] # c\n"
    "   t # c\n , # c\n u # c\n = # c\n com # c\n . # c\n ms # c\n . # c\n Foo # c\n : # c\n ov # c\n"
    "   < # c\n a # c\n : # c\n int # c\n = # c\n 1 # c\n , # c\n b # c\n = # c\n [ # c\n 1 # c\n , # c\n 2 # c\n ] # c\n > # c\n"
    "   ( # c\n x # c\n , # c\n w # c\n ) # c\n"
    "   y#c\n = Relu#c\n (t)#c\n"
    "} # c\n"
    "# trailing comment\n",
)
M("lex-comment-between-x-and-eq", model("   y#c\n    = Relu#c\n    (x)"))
M("lex-comment-at-eof-no-newline", model("   y = Relu(x)") + "# no newline at the end")
M("lex-comment-hash-in-string", model("   y = Foo <s = \"a # not a comment\"> (x)"))
M("lex-comment-hash-in-quoted-name", model('   "y#1" = Relu(x)\n   y = Relu("y#1")'))
M("lex-comment-only", "# nothing but a comment\n")
M("lex-comment-after-header-before-graph", HDR + "# c\ng (x) => (y) { y = Relu(x) }\n")
M("lex-crlf", model("   t = Relu(x) # comment\n   y = Relu(t)").replace("\n", "\r\n"))
M("lex-crlf-in-string", model('   y = Foo <s = "a\r\nb"> (x)'))
M("lex-cr-only", model("   t = Relu(x)\n   y = Relu(t)").replace("\n", "\r"))
M("lex-tabs-vt-ff", HDR + "g\t(float[N]\tx)\v=>\f(float[N] y)\t{\v y\f=\tRelu\v(\fx\t)\f}\n")
M("lex-whitespace-none", '<ir_version:10,opset_import:["":21]>g(float[N]x)=>(float[N]y){y=Relu(x)}')
M("lex-one-line-two-nodes", model("   t = Relu(x) y = Relu(t)"))
M("lex-semicolon", model("   t = Relu(x); y = Relu(t)"))
M("lex-nbsp-is-not-whitespace", model("   y\u00a0= Relu(x)"))
M("lex-arrow-with-space", HDR + "g (x) = > (y) { y = Relu(x) }\n")
M("lex-arrow-with-newline", HDR + "g (x) =\n> (y) { y = Relu(x) }\n")
M("lex-arrow-with-comment", HDR + "g (x) = # c\n> (y) { y = Relu(x) }\n")
M("lex-arrow-space-before", HDR + "g (x)   => (y) { y = Relu(x) }\n")
M("lex-arrow-comment-before", HDR + "g (x) # c\n=> (y) { y = Relu(x) }\n")
F("lex-arrow-with-space", "F (x) = > (y) { y = Relu(x) }")
G("lex-arrow-with-space", "g (x) = > (y) { y = Relu(x) }")
G("lex-arrow-with-tab", "g (x) =\t> (y) { y = Relu(x) }")
M("lex-empty", "")
G("lex-empty", "")
F("lex-empty", "")
N("lex-empty", "")
M("lex-whitespace-only", "  \n\t\n")
N("lex-whitespace-only", "   ")
N("lex-comment-only", "# c")
N("lex-trailing-whitespace", "x = Foo(y)   \n\n")
N("lex-trailing-comment", "x = Foo(y) # trailing comment")
N("lex-leading-comment", "# leading\nx = Foo(y)")
G("lex-trailing-comment", "g (x) => (y) { y = Relu(x) } # done\n")
F("lex-trailing-comment", "F (x) => (y) { y = Relu(x) }\n# done")
M("lex-bom", "\ufeff" + model("   y = Relu(x)"))

# ===========================================================================
# §2.2 identifiers

M("ident-underscore-digits", model("   _t1 = Relu(x)\n   __ = Relu(_t1)\n   y = Relu(__)"))
M("ident-long", model("   " + "a" * 300 + " = Relu(x)\n   y = Relu(" + "a" * 300 + ")"))
M("ident-non-ascii", model("   xé = Relu(x)\n   y = Relu(xé)"))
M("ident-non-ascii-start", model("   éx = Relu(x)\n   y = Relu(éx)"))
M("ident-leading-digit", model("   1x = Relu(x)\n   y = Relu(1x)"))
M("ident-dot-unquoted", model("   x.1 = Relu(x)\n   y = Relu(x.1)"))
M("ident-slash-unquoted", model("   y = Relu(input/X)"))
M("ident-dash-unquoted", model("   y = Relu(x-1)"))
M("ident-dollar-unquoted", model("   y = Relu($x)"))
M("ident-keyword-node-operands", model("   float = Relu(x)\n   seq = Relu(float)\n   y = Add(seq, float)"))
M("ident-header-keywords-as-names", model("   ir_version = Relu(x)\n   opset_import = Relu(ir_version)\n"
                                           "   domain = Relu(opset_import)\n   y = Relu(domain)"))
M("ident-keyword-graph-name", HDR + "seq (float[N] x) => (float[N] y) { y = Relu(x) }\n")
M("ident-keyword-graph-name-float", HDR + "float (float[N] x) => (float[N] y) { y = Relu(x) }\n")
M("ident-keyword-untyped-output", HDR + "g (float[N] x) => (float) { float = Relu(x) }\n")
M("ident-keyword-untyped-input-seq", HDR + "g (seq) => (float[N] y) { y = Relu(seq) }\n")
M("ident-keyword-untyped-input-map", HDR + "g (map, x) => (y) { y = Relu(x) }\n")
M("ident-keyword-untyped-input-opaque", HDR + "g (opaque) => (y) { y = Relu(opaque) }\n")
M("ident-keyword-untyped-input-int64", HDR + "g (int64) => (y) { y = Relu(int64) }\n")
M("ident-keyword-untyped-local", HDR + "g (x) => (y) <optional> { y = Relu(x) }\n")
M("ident-keyword-typed", HDR + "g (float float, seq(float) seq) => (float[N] y) { y = Relu(float) }\n")
M("ident-keyword-quoted", HDR + 'g ("float", "seq") => ("map") { "map" = Add("float", "seq") }\n')
M("ident-not-keyword-untyped", HDR + "g (float32, tensor, Float) => (y) { y = Add(float32, tensor) }\n")
M("ident-keyword-case-header", '<IR_VERSION: 10>\ng (x) => (y) { y = Relu(x) }\n')
M("ident-keyword-case-type", HDR + "g (FLOAT x) => (y) { y = Relu(x) }\n")
M("ident-keyword-case-attr-type", attr_model("a: INT = 1"))
M("ident-float32-not-a-type", HDR + "g (float32 x) => (y) { y = Relu(x) }\n")
F("ident-keyword-function-name", "seq (x) => (y) { y = Relu(x) }")
F("ident-keyword-function-io", "F (float float, x) => (float y) { y = Relu(x) }")
F("ident-keyword-function-io-untyped", "F (float) => (y) { y = Relu(float) }")
N("ident-keywords-everywhere", "float, seq = map.optional:opaque <int64 = 1> (sparse_tensor, string)")

# ===========================================================================
# §2.3 quotable identifiers, position by position (accepted and rejected)

M("quote-graph-name", HDR + '"a graph name" (float[N] x) => (float[N] y) { y = Relu(x) }\n')
M("quote-graph-name-empty", HDR + '"" (float[N] x) => (float[N] y) { y = Relu(x) }\n')
M("quote-graph-name-escapes", HDR + '"g \\"1\\" \\\\ 2" (x) => (y) { y = Relu(x) }\n')
G("quote-graph-name", '"a/graph.name" (float[N] x) => (float[N] y) { y = Relu(x) }')
G("quote-graph-name-empty", '"" () => () {}')
M("quote-subgraph-name-plain", model(
    "   y = If (c) <then_branch = then_g () => (float[N] t) { t = Relu(x) },"
    " else_branch = else_g () => (float[N] e) { e = Neg(x) }>", inputs="(bool c, float[N] x)"))
M("quote-subgraph-name-quoted", model(
    '   y = If (c) <then_branch = "then g" () => (float[N] t) { t = Relu(x) },'
    ' else_branch = else_g () => (float[N] e) { e = Neg(x) }>', inputs="(bool c, float[N] x)"))
M("quote-subgraph-name-quoted-annotated", model(
    '   y = If (c) <then_branch: graph = "then g" () => (float[N] t) { t = Relu(x) }>',
    inputs="(bool c, float[N] x)"))
M("quote-value-info-names", HDR + 'g (float[N] "input/X", "x.1") => (float[N] "out:0", "") '
  '<float[N] "tmp 1", "#u"> { "out:0" = Add("input/X", "x.1") }\n')
M("quote-initializer-names", HDR + 'g (float[2] "w/1" = {1, 2}, float[2] x) => (float[2] y) '
  '<float[2] "w 2" = {3, 4}> { y = Add("w/1", "w 2") }\n')
M("quote-node-operands", model('   "some/temp" = MatMul(x, "")\n   "a b", "" = Split("some/temp")\n   y = Relu("a b")'))
M("quote-node-operands-utf8", model('   "ü/ñ" = Relu(x)\n   y = Relu("ü/ñ")'))
M("quote-node-operands-escapes", model('   "q\\"t" = Relu(x)\n   "b\\\\s" = Relu("q\\"t")\n   y = Relu("b\\\\s")'))
M("quote-node-operand-newline", model('   "multi\nline" = Relu(x)\n   y = Relu("multi\nline")'))
M("quote-node-label-plain", model("   [n1] y = Relu(x)"))
M("quote-node-label-quoted", model('   ["node 1"] y = Relu(x)'))
M("quote-node-label-empty-string", model('   [""] y = Relu(x)'))
M("quote-function-name", HDR + 'g (x) => (y) { y = Relu(x) }\n'
  '<domain: "local", opset_import: ["" : 21]>\n"my fn" (a) => (b) { b = Relu(a) }\n')
F("quote-function-name", '"a function name" (a) => (b) { b = Relu(a) }')
F("quote-function-io", 'F (float[N] "#y", "$z") => ("!w") { "!w" = Add("#y", "$z") }')
F("quote-function-value-infos", 'F (x) => (y) <float[N] "t/1", "u 2"> { "t/1" = Relu(x) y = Relu("t/1") }')
F("quote-function-attr-names", 'F <"a b", c: int = 1, "d e": ints = [1, 2], "f"> (x) => (y) { y = Relu(x) }')
F("quote-function-attr-name-empty", 'F <""> (x) => (y) { y = Relu(x) }')
F("quote-attr-ref-target", 'F <"d e"> (x) => (y) { y = Foo <c: ints = @"d e"> (x) }')
F("quote-attr-ref-target-plain", "F <d> (x) => (y) { y = Foo <c: ints = @d> (x) }")
M("quote-dim", HDR + 'g (float["M + N", "", "a\\"b"] x) => (float["M + N"] y) { y = Relu(x) }\n')
M("quote-node-attr-name", attr_model('"a" = 1'))
M("quote-op-type", model('   y = "Relu"(x)'))
M("quote-op-domain", model('   y = "com.ms".Relu(x)'))
M("quote-overload", model('   y = com.ms.Foo:"v2"(x)'))
M("quote-tensor-name-in-attr", attr_model('value = float[2] "q t" {1, 2}'))
M("quote-tensor-name-in-attr-eq", attr_model('value = float[2] "q t" = {1, 2}'))
M("quote-opaque-domain", HDR + 'g (opaque("a.b", T) x) => (y) { y = Relu(x) }\n')
M("quote-opaque-name", HDR + 'g (opaque(a.b, "T") x) => (y) { y = Relu(x) }\n')
M("quote-header-key", '<"ir_version": 10>\ng (x) => (y) { y = Relu(x) }\n')
M("quote-function-header-key", model("   y = local.F(x)") + '<"domain": "local">\nF (a) => (b) { b = Relu(a) }\n')
M("quote-missing-producer-name", "<producer_name: pn>\ng (x) => (y) { y = Relu(x) }\n")
M("quote-missing-opset-domain", "<opset_import: [ai.onnx : 21]>\ng (x) => (y) { y = Relu(x) }\n")
M("quote-missing-opset-domain-empty", "<opset_import: [ : 21]>\ng (x) => (y) { y = Relu(x) }\n")
M("quote-missing-metadata-key", '<metadata_props: [k : "v"]>\ng (x) => (y) { y = Relu(x) }\n')
M("quote-missing-metadata-value", '<metadata_props: ["k" : v]>\ng (x) => (y) { y = Relu(x) }\n')
M("quote-missing-external-key", HDR + 'g (float[2] w = [location : "f.bin"]) => (y) { y = Relu(w) }\n')
M("quote-missing-external-value", HDR + 'g (float[2] w = ["location" : f]) => (y) { y = Relu(w) }\n')
M("quote-missing-function-domain", model("   y = local.F(x)") + "<domain: local>\nF (a) => (b) { b = Relu(a) }\n")
M("quote-single-quotes", model("   y = Foo <s = 'abc'> (x)"))
M("quote-single-quoted-name", model("   'y' = Relu(x)"))

# ===========================================================================
# §2.3 string literals and escapes

N("str-escapes", 'x = Foo <a = "a\\nb\\"c\\\\d\\te"> (y)')
N("str-escape-any-byte", 'x = Foo <a = "\\x41\\u0042\\0\\q\\ \\#"> (y)')
N("str-escape-utf8", 'x = Foo <a = "\\é"> (y)')
N("str-utf8", 'x = Foo <a = "héllo wörld ✓ 日本"> (y)')
N("str-empty", 'x = Foo <a = ""> (y)')
N("str-multiline", 'x = Foo <a = "line 1\nline 2\n"> (y)')
N("str-only-escaped-quote", 'x = Foo <a = "\\""> (y)')
N("str-only-backslash", 'x = Foo <a = "\\\\"> (y)')
N("str-unterminated", 'x = Foo <a = "abc> (y)')
N("str-backslash-at-eof", 'x = Foo <a = "abc\\')
N("str-escaped-quote-unterminated", 'x = Foo <a = "abc\\"> (y)')
M("str-unterminated-at-eof", '<producer_name: "abc')
M("str-doc-string-escapes", '<ir_version: 10, doc_string: "a \\"q\\" model\\\\ \\n">\ng (x) => (y) { y = Relu(x) }\n')
M("str-adjacent-literals", '<producer_name: "a" "b">\ng (x) => (y) { y = Relu(x) }\n')

# ===========================================================================
# §2.4 numeric literals (attributes: INT/FLOAT context)

_num_attr = [
    ("int-zero", "0"),
    ("int-seven", "7"),
    ("int-leading-zeros", "007"),
    ("int-zeros", "000"),
    ("int-neg", "-7"),
    ("int-neg-zero", "-0"),
    ("int64-max", "9223372036854775807"),
    ("int64-min", "-9223372036854775808"),
    ("int64-max-plus-1", "9223372036854775808"),
    ("int64-min-minus-1", "-9223372036854775809"),
    ("int-huge", "123456789012345678901234567890"),
    ("int32-max-plus-1", "2147483648"),
    ("float-trailing-dot", "5."),
    ("float-dot-exp", "1.e5"),
    ("float-exp", "1e5"),
    ("float-exp-upper", "1E5"),
    ("float-exp-plus", "1e+5"),
    ("float-exp-minus", "1e-5"),
    ("float-neg-exp", "-2.5e-3"),
    ("float-leading-zeros", "007.5"),
    ("float-zero", "0.0"),
    ("float-neg-zero", "-0.0"),
    ("float-underflow", "1e-50"),
    ("float-neg-underflow", "-1e-50"),
    ("float-subnormal-min", "1e-45"),
    ("float-subnormal-min-exact", "1.401298464324817e-45"),
    ("float-subnormal", "1e-40"),
    ("float-subnormal-half-min", "7e-46"),
    ("float-normal-min", "1.17549435e-38"),
    ("float-max", "3.4028235e38"),
    ("float-max-exact", "340282346638528859811704183484516925440.0"),
    ("float-max-rounds-down", "3.4028235677973366e38"),
    ("float-above-max", "3.4028236e38"),
    ("float-overflow", "1e39"),
    ("float-neg-overflow", "-1e39"),
    ("float-overflow-huge-exp", "1e400"),
    ("float-many-digits", "0.1000000000000000055511151231257827021181583404541015625"),
    ("float-long-mantissa", "1234567890" * 3 + ".5"),
    ("float-long-fraction", "0." + "0" * 40 + "1234567"),
    ("float-long-zero-fraction", "1." + "0" * 80),
    ("float-pi", "3.14159265358979323846"),
    ("float-exp-zero", "0e0"),
    ("float-exp-leading-zeros", "1e005"),
    ("float-rounding-tie", "16777217.0"),
    ("inf", "inf"),
    ("inf-neg", "-inf"),
    ("inf-upper", "INF"),
    ("inf-mixed", "Inf"),
    ("infinity", "infinity"),
    ("infinity-neg-mixed", "-Infinity"),
    ("infinity-upper", "INFINITY"),
    ("infinity-weird-case", "iNfInItY"),
    ("nan", "nan"),
    ("nan-mixed", "NaN"),
    ("nan-upper", "NAN"),
    ("nan-neg", "-nan"),
    ("nan-neg-mixed", "-NaN"),
    ("inf-digit", "inf1"),
    ("nan-digit", "nan0"),
    ("inf-neg-digit", "-inf1"),
    ("infinity-digit", "infinity2"),
    ("naninf", "naninf"),
    ("infinit", "infinit"),
    ("word-abc", "abc"),
    ("word-true", "true"),
    ("word-false", "false"),
    ("minus-space-int", "- 5"),
    ("minus-newline-int", "-\n5"),
    ("minus-space-float", "- 5.5"),
    ("minus-space-inf", "- inf"),
    ("minus-comment-int", "- # c\n 5"),
    ("plus-int", "+5"),
    ("plus-float", "+5.5"),
    ("leading-dot", ".5"),
    ("neg-leading-dot", "-.5"),
    ("double-minus", "--5"),
    ("minus-string", '-"s"'),
    ("minus-alone", "-"),
    ("hex", "0x10"),
    ("two-dots", "1.2.3"),
    ("exp-no-digits", "1e"),
    ("exp-sign-no-digits", "1e+"),
    ("exp-minus-no-digits", "1e-"),
    ("neg-exp-no-digits", "-1e"),
    ("exp-twice", "1e5e5"),
    ("suffix-f", "1.5f"),
    ("underscore-sep", "1_000"),
]
for _name, _lit in _num_attr:
    M("num-attr-" + _name, attr_model("a = " + _lit))

_num_float_attr = [
    ("int", "3"),
    ("int-neg", "-3"),
    ("neg-zero", "-0"),
    ("zero", "0"),
    ("int-large", "16777217"),
    ("int64-max", "9223372036854775807"),
    ("int64-overflow", "9223372036854775808"),
    ("float", "2.5"),
    ("inf", "-Infinity"),
    ("nan", "nan"),
    ("string", '"s"'),
    ("overflow", "1e39"),
    ("minus-space", "- 5"),
]
for _name, _lit in _num_float_attr:
    M("num-float-annot-" + _name, attr_model("a: float = " + _lit))

_num_int_attr = [
    ("int", "3"),
    ("float", "3.5"),
    ("float-integral", "3.0"),
    ("exp", "1e3"),
    ("inf", "inf"),
    ("string", '"3"'),
    ("int64-min", "-9223372036854775808"),
]
for _name, _lit in _num_int_attr:
    M("num-int-annot-" + _name, attr_model("a: int = " + _lit))

# numbers in other contexts: dims, header ints, lists
M("num-ir-version-neg", "<ir_version: -3>\ng (x) => (y) { y = Relu(x) }\n")
M("num-ir-version-string", '<ir_version: "7">\ng (x) => (y) { y = Relu(x) }\n')
M("num-ir-version-float", "<ir_version: 7.0>\ng (x) => (y) { y = Relu(x) }\n")
M("num-ir-version-leading-zeros", "<ir_version: 0010>\ng (x) => (y) { y = Relu(x) }\n")
M("num-ir-version-int64-max", "<ir_version: 9223372036854775807>\ng (x) => (y) { y = Relu(x) }\n")
M("num-ir-version-overflow", "<ir_version: 9223372036854775808>\ng (x) => (y) { y = Relu(x) }\n")
M("num-ir-version-minus-space", "<ir_version: - 3>\ng (x) => (y) { y = Relu(x) }\n")
M("num-ir-version-plus", "<ir_version: +3>\ng (x) => (y) { y = Relu(x) }\n")
M("num-ir-version-inf", "<ir_version: inf>\ng (x) => (y) { y = Relu(x) }\n")
M("num-model-version-neg", "<model_version: -1>\ng (x) => (y) { y = Relu(x) }\n")
M("num-model-version-hex", "<model_version: 0x10>\ng (x) => (y) { y = Relu(x) }\n")
M("num-opset-version-neg", '<opset_import: ["" : -1]>\ng (x) => (y) { y = Relu(x) }\n')
M("num-opset-version-float", '<opset_import: ["" : 1.5]>\ng (x) => (y) { y = Relu(x) }\n')
M("num-opset-version-overflow", '<opset_import: ["" : 99999999999999999999]>\ng (x) => (y) { y = Relu(x) }\n')
M("num-dim-leading-zeros", HDR + "g (float[007, 0] x) => (y) { y = Relu(x) }\n")
M("num-dim-negative", HDR + "g (float[-1, -0] x) => (y) { y = Relu(x) }\n")
M("num-dim-int64-max", HDR + "g (float[9223372036854775807] x) => (y) { y = Relu(x) }\n")
M("num-dim-overflow", HDR + "g (float[9223372036854775808] x) => (y) { y = Relu(x) }\n")
M("num-dim-float", HDR + "g (float[2.5] x) => (y) { y = Relu(x) }\n")
M("num-dim-exp", HDR + "g (float[1e3] x) => (y) { y = Relu(x) }\n")
M("num-dim-minus-space", HDR + "g (float[- 3] x) => (y) { y = Relu(x) }\n")
M("num-dim-plus", HDR + "g (float[+3] x) => (y) { y = Relu(x) }\n")
M("num-dim-hex", HDR + "g (float[0x10] x) => (y) { y = Relu(x) }\n")
M("num-dim-inf", HDR + "g (float[inf] x) => (y) { y = Relu(x) }\n")
N("num-list-ints-bounds", "x = Foo <a = [9223372036854775807, -9223372036854775808, 0, -0, 007]> (y)")
N("num-list-ints-overflow", "x = Foo <a = [1, 9223372036854775808]> (y)")
N("num-list-floats-specials", "x = Foo <a = [inf, -inf, nan, -nan, -0.0, 1e-50, 1e-45, 3.4028235e38]> (y)")
N("num-list-floats-overflow", "x = Foo <a = [1.5, 1e39]> (y)")
N("num-list-floats-minus-space", "x = Foo <a = [1.5, - 2]> (y)")
N("num-list-plus", "x = Foo <a = [1, +2]> (y)")

# ===========================================================================
# §3 model header

M("hdr-none", "g (float[N] x) => (float[N] y) { y = Relu(x) }\n")
M("hdr-all-keys", '<\n  ir_version: 10,\n  opset_import: ["" : 21, "com.microsoft" : 1],\n'
  '  producer_name: "p", producer_version: "1.0", domain: "ai.x", model_version: 3,\n'
  '  doc_string: "a \\"q\\" model",\n  metadata_props: ["k" : "v", "k2" : "v2"]\n>\n'
  "agraph (float[N] x) => (float[N] y) { y = Relu(x) }\n")
for _k, _v in [("ir_version", "7"), ("opset_import", '["" : 18]'), ("producer_name", '"pn"'),
               ("producer_version", '"2.0"'), ("domain", '"ai.x"'), ("model_version", "12"),
               ("doc_string", '"docs"'), ("metadata_props", '["a" : "b"]')]:
    M("hdr-key-" + _k, "<" + _k + ": " + _v + ">\ng (x) => (y) { y = Relu(x) }\n")
    M("hdr-repeat-" + _k, "<" + _k + ": " + _v + ", " + _k + ": " + _v.replace("7", "8").replace("18", "19")
      .replace('"pn"', '"pn2"').replace('"2.0"', '"3.0"').replace('"ai.x"', '"ai.y"').replace("12", "13")
      .replace('"docs"', '"more docs"').replace('"a" : "b"', '"a" : "c"') + ">\ng (x) => (y) { y = Relu(x) }\n")
M("hdr-repeat-mixed", '<ir_version: 7, opset_import: ["" : 1], ir_version: 8, opset_import: ["a" : 2], '
  'metadata_props: ["k" : "1"], metadata_props: ["k" : "2", "j" : "3"]>\ng (x) => (y) { y = Relu(x) }\n')
M("hdr-opset-empty", "<ir_version: 10, opset_import: []>\ng (x) => (y) { y = Relu(x) }\n")
M("hdr-metadata-empty", "<metadata_props: []>\ng (x) => (y) { y = Relu(x) }\n")
M("hdr-opset-many", '<opset_import: ["" : 21, "ai.onnx.ml" : 5, "com.microsoft" : 1, "" : 18, "local" : 1]>\n'
  "g (x) => (y) { y = Relu(x) }\n")
M("hdr-opset-duplicate-domain", '<opset_import: ["" : 21, "" : 21]>\ng (x) => (y) { y = Relu(x) }\n')
M("hdr-opset-trailing-comma", '<opset_import: ["" : 21,]>\ng (x) => (y) { y = Relu(x) }\n')
M("hdr-metadata-trailing-comma", '<metadata_props: ["k" : "v",]>\ng (x) => (y) { y = Relu(x) }\n')
M("hdr-opset-missing-colon", '<opset_import: ["" 21]>\ng (x) => (y) { y = Relu(x) }\n')
M("hdr-opset-version-string", '<opset_import: ["" : "21"]>\ng (x) => (y) { y = Relu(x) }\n')
M("hdr-opset-not-a-list", '<opset_import: "" : 21>\ng (x) => (y) { y = Relu(x) }\n')
M("hdr-opset-unclosed", '<opset_import: ["" : 21>\ng (x) => (y) { y = Relu(x) }\n')
M("hdr-metadata-int-value", '<metadata_props: ["k" : 1]>\ng (x) => (y) { y = Relu(x) }\n')
M("hdr-metadata-utf8", '<metadata_props: ["schlüssel" : "wért ✓", "" : ""]>\ng (x) => (y) { y = Relu(x) }\n')
M("hdr-empty", "<>\ng (x) => (y) { y = Relu(x) }\n")
M("hdr-trailing-comma", "<ir_version: 10,>\ng (x) => (y) { y = Relu(x) }\n")
M("hdr-double-comma", "<ir_version: 10,, model_version: 1>\ng (x) => (y) { y = Relu(x) }\n")
M("hdr-missing-comma", '<ir_version: 10 producer_name: "p">\ng (x) => (y) { y = Relu(x) }\n')
M("hdr-missing-colon", "<ir_version 10>\ng (x) => (y) { y = Relu(x) }\n")
M("hdr-equals-instead-of-colon", "<ir_version = 10>\ng (x) => (y) { y = Relu(x) }\n")
M("hdr-unknown-key", "<foo: 1>\ng (x) => (y) { y = Relu(x) }\n")
M("hdr-overload-key", '<overload: "o">\ng (x) => (y) { y = Relu(x) }\n')
M("hdr-training-info-key", "<training_info: 1>\ng (x) => (y) { y = Relu(x) }\n")
M("hdr-unclosed", "<ir_version: 10\ng (x) => (y) { y = Relu(x) }\n")
M("hdr-producer-name-int", "<producer_name: 1>\ng (x) => (y) { y = Relu(x) }\n")
M("hdr-doc-string-multiline", '<doc_string: "line 1\nline 2">\ng (x) => (y) { y = Relu(x) }\n')
M("hdr-only", HDR)
M("hdr-no-graph-after-header", HDR + "\n")
M("hdr-two-headers", HDR + HDR + "g (x) => (y) { y = Relu(x) }\n")
M("model-trailing-garbage", model("   y = Relu(x)") + "garbage\n")
M("model-trailing-brace", model("   y = Relu(x)") + "}\n")
M("model-trailing-semicolon", model("   y = Relu(x)") + ";\n")
M("model-two-graphs-second-as-function", HDR + "g (x) => (y) { y = Relu(x) }\nh (x) => (y) { y = Neg(x) }\n")

# ===========================================================================
# §4 graphs

M("graph-no-input-list", HDR + "g => (float[2] y) { y = Constant <value = float[2] {1, 2}> () }\n")
M("graph-no-input-list-no-space", HDR + "g=>(y){y=Foo()}\n")
M("graph-empty-input-list", HDR + "g () => (y) { y = Foo() }\n")
M("graph-no-output-parens", HDR + "g (x) => y { y = Relu(x) }\n")
M("graph-empty-outputs", HDR + "g (x) => () { y = Relu(x) }\n")
M("graph-empty-everything", HDR + "g () => () {}\n")
M("graph-untyped-value-infos", HDR + "agraph (float[N] y, z) => (w, float v) { w = Add(y, z) v = Neg(y) }\n")
M("graph-input-trailing-comma", HDR + "g (x,) => (y) { y = Relu(x) }\n")
M("graph-output-trailing-comma", HDR + "g (x) => (y,) { y = Relu(x) }\n")
M("graph-locals-trailing-comma", HDR + "g (x) => (y) <float t,> { y = Relu(x) }\n")
M("graph-input-leading-comma", HDR + "g (, x) => (y) { y = Relu(x) }\n")
M("graph-input-double-comma", HDR + "g (x,, z) => (y) { y = Relu(x) }\n")
M("graph-input-missing-comma", HDR + "g (float x float z) => (y) { y = Relu(x) }\n")
M("graph-initializer-in-input-list", HDR + "g (float[2] w = {1, 2}, float[N] x) => (float[N] y) { y = Add(x, w) }\n")
M("graph-initializer-in-locals", HDR + "g (float[N] x) => (float[N] y) <float[2] w = {1, 2}> { y = Add(x, w) }\n")
M("graph-initializer-order", HDR + "g (float[1] a = {1}, float[N] x, float[1] b = {2}) => (float[N] y) "
  "<float[1] c = {3}, float t, float[1] d = {4}, u> { t = Add(a, b) u = Add(c, d) y = Add(t, u) }\n")
M("graph-initializer-no-data-comma", HDR + "g (float[2] w =, x) => (y) { y = Add(x, w) }\n")
M("graph-initializer-no-data-paren", HDR + "g (float[2] w =) => (y) { y = Relu(w) }\n")
M("graph-initializer-no-data-gt", HDR + "g (x) => (y) <float[2] w => { y = Add(x, w) }\n")
M("graph-initializer-no-data-gt-space", HDR + "g (x) => (y) <float[2] w = > { y = Add(x, w) }\n")
M("graph-initializer-no-data-locals-comma", HDR + "g (x) => (y) <float[2] w =, float[3] v => { y = Add(x, w) }\n")
M("graph-initializer-external-input", HDR + 'g (float[3,2] m1 = ["location": "weight_1.bin", "offset": "17", '
  '"length": "24"]) => (y) { y = Relu(m1) }\n')
M("graph-initializer-external-locals", HDR + 'g (x) => (y) <float[3] e = ["location" : "f.bin", "checksum" : "abc", '
  '"unknown key" : "any value", "location" : "dup.bin"]> { y = Add(x, e) }\n')
M("graph-initializer-external-one-key", HDR + 'g (x) => (y) <float[3] e = ["location": "f.bin"]> { y = Add(x, e) }\n')
M("graph-initializer-external-empty", HDR + "g (float[2] w = []) => (y) { y = Relu(w) }\n")
M("graph-initializer-external-trailing-comma", HDR + 'g (float[2] w = ["location": "f",]) => (y) { y = Relu(w) }\n')
M("graph-initializer-external-int-value", HDR + 'g (float[2] w = ["offset": 17]) => (y) { y = Relu(w) }\n')
M("graph-initializer-external-missing-colon", HDR + 'g (float[2] w = ["location" "f"]) => (y) { y = Relu(w) }\n')
M("graph-initializer-untyped", HDR + "g (w = {1, 2}) => (y) { y = Relu(w) }\n")
M("graph-initializer-unknown-rank", HDR + "g (float[] w = {1, 2}) => (y) { y = Relu(w) }\n")
M("graph-initializer-symbolic-dim", HDR + "g (float[N] w = {1, 2}) => (y) { y = Relu(w) }\n")
M("graph-initializer-unknown-dim", HDR + "g (float[?] w = {1, 2}) => (y) { y = Relu(w) }\n")
M("graph-initializer-quoted-dim", HDR + 'g (float["2"] w = {1, 2}) => (y) { y = Relu(w) }\n')
M("graph-initializer-scalar", HDR + "g (float w = {1}) => (y) { y = Relu(w) }\n")
M("graph-initializer-scalar-locals", HDR + "g (x) => (y) <int64 k = {5}> { y = Add(x, k) }\n")
M("graph-initializer-seq-type", HDR + "g (seq(float[2]) w = {1}) => (y) { y = Relu(w) }\n")
M("graph-initializer-sparse-type", HDR + "g (sparse_tensor(float[2]) w = {1, 2}) => (y) { y = Relu(w) }\n")
M("graph-initializer-count-mismatch", HDR + "g (x) => (y) <float[2,3] w = {1, 2, 3}> { y = Add(x, w) }\n")
M("graph-initializer-count-too-many", HDR + "g (x) => (y) <float[1] w = {1, 2, 3}> { y = Add(x, w) }\n")
M("graph-initializer-negative-dim", HDR + "g (x) => (y) <float[-1] w = {1}> { y = Add(x, w) }\n")
M("graph-initializer-zero-dim", HDR + "g (x) => (y) <float[0, 3] w = {}> { y = Add(x, w) }\n")
M("graph-initializer-empty-data", HDR + "g (x) => (y) <float[2] w = {}> { y = Add(x, w) }\n")
M("graph-initializer-data-trailing-comma", HDR + "g (x) => (y) <float[2] w = {1, 2,}> { y = Add(x, w) }\n")
M("graph-initializer-data-leading-comma", HDR + "g (x) => (y) <float[2] w = {, 1}> { y = Add(x, w) }\n")
M("graph-initializer-data-missing-comma", HDR + "g (x) => (y) <float[2] w = {1 2}> { y = Add(x, w) }\n")
M("graph-initializer-data-unclosed", HDR + "g (x) => (y) <float[2] w = {1, 2> { y = Add(x, w) }\n")
M("graph-initializer-no-eq", HDR + "g (x) => (y) <float[2] w {1, 2}> { y = Add(x, w) }\n")
M("graph-initializer-in-outputs", HDR + "g (x) => (float[2] y = {1, 2}) { }\n")
M("graph-duplicate-names", HDR + "g (float x, bool x) => (x) <float[1] x = {1}, x> { }\n")
M("graph-value-info-untyped-local", HDR + "g (x) => (y) <u> { u = Relu(x) y = Relu(u) }\n")
M("graph-value-info-typed-locals", HDR + "g (x) => (y) <float[N] u, seq(float) s, map(int64, string) m, optional(int8) o> "
  "{ u = Relu(x) y = Relu(u) }\n")
M("graph-locals-empty", HDR + "g (x) => (y) <> { y = Relu(x) }\n")
M("graph-locals-empty-space", HDR + "g (x) => (y) < > { y = Relu(x) }\n")
M("graph-locals-unclosed", HDR + "g (x) => (y) <float t { y = Relu(x) }\n")
M("graph-no-node-list", HDR + "g (x) => (y)\n")
M("graph-unclosed-node-list", HDR + "g (x) => (y)\n{\n   y = Relu(x)\n\n\n")
M("graph-node-list-brackets", HDR + "g (x) => (y) [ y = Relu(x) ]\n")
M("graph-missing-name", HDR + "(x) => (y) { y = Relu(x) }\n")
M("graph-name-number", HDR + "123 (x) => (y) { y = Relu(x) }\n")
M("graph-missing-arrow", HDR + "g (x) (y) { y = Relu(x) }\n")
M("graph-thin-arrow", HDR + "g (x) -> (y) { y = Relu(x) }\n")
M("graph-many-nodes", model("\n".join("   t%d = Relu(%s)" % (i, "x" if i == 0 else "t%d" % (i - 1)) for i in range(50))
                             + "\n   y = Identity(t49)"))
G("graph-entry-basic", "g (float[N] x) => (float[N] y) { y = Relu(x) }")
G("graph-entry-with-locals", "g (float[2] w = {1, 2}, float[N] x) => (float[N] y) <float[N] t, float[1] k = {3}> "
  "{ t = Add(x, w) y = Mul(t, k) }")
G("graph-entry-no-input-list", "g => (y) { y = Foo() }")
G("graph-entry-model-text", HDR + "g (x) => (y) { y = Relu(x) }")
G("graph-entry-node-text", "y = Relu(x)")
G("graph-entry-function-with-header", '<domain: "d">\nF (x) => (y) { y = Relu(x) }')
G("graph-entry-function-with-attrs", "F <a> (x) => (y) { y = Relu(x) }")
G("graph-entry-unclosed", "g (x) => (y) { y = Relu(x)")
G("graph-entry-output-initializer", "g (x) => (float[1] y = {1}) { }")
G("graph-entry-crlf-comments", "# leading\r\ng (x) # c\r\n => (y) # c\r\n{\r\n   y = Relu(x) # c\r\n}\r\n")
G("graph-entry-keyword-name", "map (float[2] w = {1, 2}) => (float y) { y = ReduceSum(w) }")
G("graph-entry-untyped-everything", "g (a, b) => (c) <t> { t = Add(a, b) c = Neg(t) }")
G("graph-entry-external", 'g (x) => (y) <float[3] e = ["location": "e.bin", "offset": "0"]> { y = Add(x, e) }')
G("graph-entry-nested", "g (bool c, x) => (y) { y = If (c) <then_branch = t () => (z) <float[1] k = {1}> { z = Add(x, k) },"
  " else_branch = e () => (z) { z = Identity(x) }> }")
G("graph-entry-initializer-no-data", "g (x) => (y) <float[2] w => { y = Add(x, w) }")
G("graph-entry-header", '<ir_version: 10> g (x) => (y) { y = Relu(x) }')
G("graph-entry-empty-name-only", '""')
G("graph-entry-name-only", "g")
G("graph-entry-no-body", "g (x) => (y)")
F("function-entry-graph-text", "g (float[N] x) => (float[N] y) { y = Relu(x) }")
F("function-entry-graph-with-initializer-input", "g (float[2] w = {1, 2}) => (y) { y = Relu(w) }")
F("function-entry-graph-no-input-list", "g => (y) { y = Foo() }")
F("function-entry-model-text", HDR + "g (x) => (y) { y = Relu(x) }")
N("node-entry-graph-text", "g (x) => (y) { y = Relu(x) }")

# ===========================================================================
# §6 types

PRIM_TYPES = [
    "float", "uint8", "int8", "uint16", "int16", "int32", "int64", "string", "bool", "float16",
    "double", "uint32", "uint64", "complex64", "complex128", "bfloat16", "float8e4m3fn",
    "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "uint4", "int4", "float4e2m1",
    "float8e8m0", "uint2", "int2", "float6e2m3", "float6e3m2",
]
for _t in PRIM_TYPES:
    M("type-prim-" + _t, HDR + "g (" + _t + "[N, 3] x, " + _t + " s) => (" + _t + "[] y) { y = Identity(x) }\n")
for _t in ["float32", "float64", "int", "complex", "FLOAT", "Float_", "uint", "float8", "bfloat", "undefined",
           "float6e2m3fn", "int1"]:
    M("type-bad-prim-" + _t, HDR + "g (" + _t + "[N] x) => (y) { y = Identity(x) }\n")
M("type-tensor-paren", HDR + "g (tensor(float) x) => (y) { y = Identity(x) }\n")
M("type-shapes", HDR + 'g (float[N, 128, ?, "M + N", -1] x, float s, float[] u, float[ ] v, float[  N , M ] w) '
  "=> (y) { y = Identity(x) }\n")
M("type-shape-empty-dim-param", HDR + 'g (float["" ] x) => (y) { y = Identity(x) }\n')
M("type-shape-empty-dim", HDR + "g (float[,] x) => (y) { y = Identity(x) }\n")
M("type-shape-trailing-comma", HDR + "g (float[N,] x) => (y) { y = Identity(x) }\n")
M("type-shape-leading-comma", HDR + "g (float[,N] x) => (y) { y = Identity(x) }\n")
M("type-shape-unclosed", HDR + "g (float[N x) => (y) { y = Identity(x) }\n")
M("type-shape-missing-comma", HDR + "g (float[N M] x) => (y) { y = Identity(x) }\n")
M("type-shape-float-dim", HDR + "g (float[2.5] x) => (y) { y = Identity(x) }\n")
M("type-shape-dim-question-twice", HDR + "g (float[?, ?] x) => (y) { y = Identity(x) }\n")
M("type-shape-dim-question-quoted", HDR + 'g (float["?"] x) => (y) { y = Identity(x) }\n')
M("type-shape-dims-comments", HDR + "g (float[N # batch\n, 3 # channels\n] x) => (y) { y = Identity(x) }\n")
M("type-shape-many-dims", HDR + "g (float[" + ",".join(str(i) for i in range(1, 33)) + "] x) => (y) { y = Identity(x) }\n")
M("type-shape-parens", HDR + "g (float(N) x) => (y) { y = Identity(x) }\n")
M("type-shape-two-suffixes", HDR + "g (float[N][M] x) => (y) { y = Identity(x) }\n")
M("type-seq", HDR + "g (seq(float[N]) x, seq(seq(float[N])) z, seq(float) s) => (seq(int64[]) y) { y = Identity(x) }\n")
M("type-optional", HDR + "g (optional(float[N]) x, optional(optional(int8)) z, optional(seq(float)) s) => (y) "
  "{ y = Identity(x) }\n")
M("type-map-keys", HDR + "g (map(int64, float) a, map(string, float[N]) b, map(int32, seq(float)) c, "
  "map(uint8, map(string, int64)) d, map(bool, string) e, map(float16, double) f) => (y) { y = Identity(a) }\n")
M("type-map-nested-value", HDR + "g (map(string, seq(map(int64, optional(float[2])))) x) => (y) { y = Identity(x) }\n")
M("type-map-shaped-key", HDR + "g (map(float[2], float) x) => (y) { y = Identity(x) }\n")
M("type-map-unknown-rank-key", HDR + "g (map(int64[], float) x) => (y) { y = Identity(x) }\n")
M("type-map-seq-key", HDR + "g (map(seq(int64), float) x) => (y) { y = Identity(x) }\n")
M("type-map-one-arg", HDR + "g (map(int64) x) => (y) { y = Identity(x) }\n")
M("type-map-three-args", HDR + "g (map(int64, float, float) x) => (y) { y = Identity(x) }\n")
M("type-map-bad-key-word", HDR + "g (map(foo, float) x) => (y) { y = Identity(x) }\n")
M("type-seq-empty", HDR + "g (seq() x) => (y) { y = Identity(x) }\n")
M("type-seq-two-args", HDR + "g (seq(float, float) x) => (y) { y = Identity(x) }\n")
M("type-seq-no-parens", HDR + "g (seq float x) => (y) { y = Identity(x) }\n")
M("type-seq-brackets", HDR + "g (seq[float] x) => (y) { y = Identity(x) }\n")
M("type-seq-unclosed", HDR + "g (seq(float x) => (y) { y = Identity(x) }\n")
M("type-seq-bad-element", HDR + "g (seq(foo) x) => (y) { y = Identity(x) }\n")
M("type-optional-empty", HDR + "g (optional() x) => (y) { y = Identity(x) }\n")
M("type-sparse", HDR + "g (sparse_tensor(float[2, N]) a, sparse_tensor(float) b, sparse_tensor(float[]) c, "
  "sparse_tensor(int64[?]) d) => (y) { y = Identity(a) }\n")
M("type-sparse-seq", HDR + "g (sparse_tensor(seq(float)) x) => (y) { y = Identity(x) }\n")
M("type-sparse-empty", HDR + "g (sparse_tensor() x) => (y) { y = Identity(x) }\n")
M("type-sparse-nested", HDR + "g (seq(sparse_tensor(float[2])) x, optional(sparse_tensor(int8)) z) => (y) "
  "{ y = Identity(x) }\n")
M("type-opaque-forms", HDR + "g (opaque() a, opaque(a.b.c) b, opaque(a.b, T) c, opaque(d) d, opaque(e, T2) e) => (y) "
  "{ y = Identity(a) }\n")
M("type-opaque-whitespace", HDR + "g (opaque( a . b , T ) a, opaque ( ) b) => (y) { y = Identity(a) }\n")
M("type-opaque-dotted-name", HDR + "g (opaque(a, b.c) x) => (y) { y = Identity(x) }\n")
M("type-opaque-three-args", HDR + "g (opaque(a, b, c) x) => (y) { y = Identity(x) }\n")
M("type-opaque-trailing-dot", HDR + "g (opaque(a.) x) => (y) { y = Identity(x) }\n")
M("type-opaque-leading-dot", HDR + "g (opaque(.a) x) => (y) { y = Identity(x) }\n")
M("type-opaque-no-parens", HDR + "g (opaque x) => (y) { y = Identity(x) }\n")
M("type-opaque-nested", HDR + "g (seq(opaque(a.b, T)) x, map(string, opaque()) z) => (y) { y = Identity(x) }\n")
M("type-opaque-keyword-names", HDR + "g (opaque(float.seq, map) x) => (y) { y = Identity(x) }\n")
M("type-deep-nesting", HDR + "g (" + "seq(" * 20 + "float[N]" + ")" * 20 + " x) => (y) { y = Identity(x) }\n")
M("type-in-all-positions", HDR + "g (seq(float[N]) x) => (map(int64, float) y) <optional(int8) t, sparse_tensor(float[2]) s, "
  "opaque(a.b, T) o> { y = Foo <t1 = seq(float[N]), t2 = map(int64, seq(float)), t3 = optional(int8), "
  "t4 = sparse_tensor(float[2]), t5 = opaque(a.b, T), t6 = opaque()> (x) }\n")
F("type-function-io", "F (seq(float[N]) x, map(string, int64) m, optional(float) o, sparse_tensor(float[2]) s, "
  "opaque(a.b, T) q, float[] u) => (float[N] y, seq(float) z) { y = Foo(x) }")
M("type-undefined-word", HDR + "g (undefined x) => (y) { y = Identity(x) }\n")

# ===========================================================================
# §7 tensor constants, all dtypes, in initializers and in attribute values

# (dtype, valid data, data with the wrong literal kind)
TENSOR_DATA = {
    "float": ["{1, -2.5, 1e-3, inf, -inf, nan, -nan, -0, 1e-45, 3.4028235e38, 007}", '{"a"}'],
    "uint8": ["{0, 1, 255, 256, -1}", "{1.5}"],
    "int8": ["{0, -128, 127, 128, -129}", "{1.5}"],
    "uint16": ["{0, 65535, 65536}", "{1e2}"],
    "int16": ["{-32768, 32767, 40000}", "{inf}"],
    "int32": ["{2147483647, -2147483648, 0, -0, 007}", "{2147483648}"],
    "int64": ["{9223372036854775807, -9223372036854775808, 0, -1}", "{9223372036854775808}"],
    "string": ['{"a", "", "b\\"c\\\\d", "é ✓", "multi\nline"}', "{1}"],
    "bool": ["{0, 1, 2, -1}", "{true}"],
    "float16": ["{15360, 0, 65535, 31744, 32768, -1}", "{15360, 1.5}"],
    "double": ["{1, -2.5, 1.7976931348623157e308, 2.2250738585072014e-308, 4.9e-324, 1e-400, inf, -nan, -0}",
               "{1e309}"],
    "uint32": ["{0, 4294967295, 4294967296, -1}", "{1.5}"],
    "uint64": ["{18446744073709551615, -1, 0, 9223372036854775808}", "{18446744073709551616}"],
    "complex64": ["{1, 2, 3.5, -4, inf, nan}", '{"1+2j"}'],
    "complex128": ["{1, 2, 3.5, -4, 1e308, -0}", "{1e309, 0}"],
    "bfloat16": ["{16256, 0, 65535, 32640}", "{1.0}"],
    "float8e4m3fn": ["{56, 0, 127, 255}", "{0.5}"],
    "float8e4m3fnuz": ["{56, 0, 128}", "{nan}"],
    "float8e5m2": ["{60, 0, 124, 255}", "{1e0}"],
    "float8e5m2fnuz": ["{60, 0, 128}", "{-1.5}"],
    "uint4": ["{33, 67, 255, 0}", "{1.5}"],
    "int4": ["{33, 67, 15, 240}", '{"1"}'],
    "float4e2m1": ["{33, 255}", "{0.5}"],
    "float8e8m0": ["{127, 0, 255}", "{2.0}"],
    "uint2": ["{228, 0, 255}", "{0.5}"],
    "int2": ["{228, 27}", "{1.5}"],
    "float6e2m3": ["{8, 63}", "{1.5}"],
    "float6e3m2": ["{12, 63}", "{1.5}"],
}
assert sorted(TENSOR_DATA) == sorted(PRIM_TYPES)
for _t in PRIM_TYPES:
    _good, _bad = TENSOR_DATA[_t]
    _n = _good.count(",") + 1
    M("tensor-init-" + _t, HDR + "g (" + _t + "[" + str(_n) + "] w = " + _good + ") => (y) { y = Identity(w) }\n")
    M("tensor-init-bad-" + _t, HDR + "g (x) => (y) <" + _t + "[1] w = " + _bad + "> { y = Identity(w) }\n")
    M("tensor-init-empty-" + _t, HDR + "g (x) => (y) <" + _t + "[0] w = {}> { y = Identity(w) }\n")
    M("tensor-init-scalar-" + _t, HDR + "g (" + _t + " w = " + ("{\"s\"}" if _t == "string" else "{1}")
      + ") => (y) { y = Identity(w) }\n")
    N("tensor-attr-" + _t, "x = Constant <value = " + _t + "[" + str(_n) + "] " + _good + "> ()")
    N("tensor-attr-annotated-" + _t, "x = Constant <value: tensor = " + _t + "[" + str(_n) + "] t " + _good + "> ()")
    N("tensor-attr-bad-" + _t, "x = Constant <value = " + _t + "[1] " + _bad + "> ()")
    N("tensor-attr-external-" + _t, 'x = Constant <value = ' + _t + '[2] = ["location": "' + _t + '.bin"]> ()')

# packing of sub-byte types and bit patterns (§7.1)
N("tensor-int4-packed-even", "x = Constant <value = int4[4] {33, 67}> ()")
N("tensor-int4-packed-odd", "x = Constant <value = int4[3] {33, 3}> ()")
N("tensor-uint4-packed", "x = Constant <value = uint4[2] {255}> ()")
N("tensor-float4e2m1-packed", "x = Constant <value = float4e2m1[2] {33}> ()")
N("tensor-uint2-packed", "x = Constant <value = uint2[4] {228}> ()")
N("tensor-int2-packed-odd", "x = Constant <value = int2[5] {228, 1}> ()")
N("tensor-float16-one", "x = Constant <value = float16[1] {15360}> ()")
N("tensor-bfloat16-one", "x = Constant <value = bfloat16[1] {16256}> ()")
N("tensor-float16-float-literal", "x = Foo <a = float16[2] {15360, 1.5}> (y)")
N("tensor-uint8-out-of-range-kept", "x = Constant <value = uint8[2] {-1, 256}> ()")
N("tensor-bool-two", "x = Constant <value = bool[1] {2}> ()")
N("tensor-int32-overflow", "x = Foo <a = int32[1] {2147483648}> (y)")
N("tensor-int32-underflow", "x = Foo <a = int32[1] {-2147483649}> (y)")
N("tensor-int8-overflow-int32", "x = Foo <a = int8[1] {4294967296}> (y)")
N("tensor-float16-overflow-int32", "x = Foo <a = float16[1] {2147483648}> (y)")
N("tensor-int64-overflow", "x = Foo <a = int64[1] {9223372036854775808}> (y)")
N("tensor-int64-minus-space", "x = Foo <a = int64[1] {- 1}> (y)")
N("tensor-uint64-wrap", "x = Foo <a = uint64[2] {18446744073709551615, -1}> ()")
N("tensor-uint64-min-wrap", "x = Foo <a = uint64[1] {-18446744073709551615}> ()")
N("tensor-uint64-overflow", "x = Foo <a = uint64[1] {18446744073709551616}> ()")
N("tensor-uint64-neg-overflow", "x = Foo <a = uint64[1] {-18446744073709551616}> ()")
N("tensor-uint32-unchecked", "x = Foo <a = uint32[1] {4294967296}> ()")
N("tensor-uint32-minus-space", "x = Foo <a = uint32[1] {- 1}> ()")
N("tensor-float-overflow", "x = Foo <a = float[1] {3.4028236e38}> ()")
N("tensor-float-overflow-1e39", "x = Foo <a = float[1] {1e39}> ()")
N("tensor-float-int-overflow", "x = Foo <a = float[1] {99999999999999999999}> ()")
N("tensor-float-underflow", "x = Foo <a = float[3] {1e-50, -1e-50, 1e-45}> ()")
N("tensor-float-minus-space", "x = Foo <a = float[1] {- 1.5}> ()")
N("tensor-float-plus", "x = Foo <a = float[1] {+1.5}> ()")
N("tensor-float-exp-no-digits", "x = Foo <a = float[1] {1e}> ()")
N("tensor-double-overflow", "x = Foo <a = double[1] {1e309}> ()")
N("tensor-double-max", "x = Foo <a = double[2] {1.7976931348623157e308, -1.7976931348623157e308}> ()")
N("tensor-double-subnormal", "x = Foo <a = double[2] {4.9e-324, 2.5e-324}> ()")
N("tensor-double-float-max-plus", "x = Foo <a = double[1] {3.4028236e38}> ()")
N("tensor-complex64-interleaved", "x = Foo <a = complex64[2] {1, 2, 3, 4}> ()")
N("tensor-complex128-interleaved", "x = Foo <a = complex128[2] {1.5, -2, 3e10, 4e-10}> ()")
N("tensor-complex64-odd-count", "x = Foo <a = complex64[2] {1, 2, 3}> ()")
N("tensor-string-number", "x = Foo <a = string[1] {1}> ()")
N("tensor-int-string", 'x = Foo <a = int64[1] {"1"}> ()')
N("tensor-bool-true", "x = Foo <a = bool[1] {true}> ()")
N("tensor-data-trailing-comma", "x = Foo <a = float[2] {1, 2,}> ()")
N("tensor-data-nested", "x = Foo <a = float[2] {{1}, {2}}> ()")
N("tensor-data-internal-error", "x = Foo <a = float[2] {+1, 2}> ()")

# §7.2 attribute tensor-constant forms
N("tensor-form-plain", "x = Foo <a = float[2] {1, 2}> ()")
N("tensor-form-named", "x = Foo <a = float[2] t {1, 2}> ()")
N("tensor-form-named-eq", "x = Foo <a = float[2] t = {1, 2}> ()")
N("tensor-form-eq", "x = Foo <a = float[2] = {1, 2}> ()")
N("tensor-form-scalar", "x = Foo <a = float {1}> ()")
N("tensor-form-no-data", "x = Foo <a = float {}> ()")
N("tensor-form-named-no-data", "x = Foo <a = float[2] t, b = 1> ()")
N("tensor-form-named-no-data-last", "x = Foo <a = float[2] t> ()")
N("tensor-form-named-scalar-no-data", "x = Foo <a = float x> (y)")
N("tensor-form-external-eq", 'x = Foo <a = float[2] = ["location": "f.bin", "offset": "0"]> ()')
N("tensor-form-external-named", 'x = Foo <a = float[2] t = ["location": "f.bin"]> ()')
N("tensor-form-external-named-no-eq", 'x = Foo <a = float[2] t ["location": "f.bin"]> ()')
N("tensor-form-external-bare", 'x = Foo <a = float[2] ["location": "f.bin"]> ()')
N("tensor-form-external-empty", "x = Foo <a = float[2] = []> ()")
N("tensor-form-quoted-name", 'x = Foo <a = float[2] "q t" {1, 2}> ()')
N("tensor-form-symbolic-dim", "x = Foo <a = float[N] {1}> ()")
N("tensor-form-unknown-dim", "x = Foo <a = float[?] {1}> ()")
N("tensor-form-unknown-rank", "x = Foo <a = float[] {1}> ()")
N("tensor-form-keyword-name", "x = Foo <a = float[1] float {1}> ()")
N("tensor-form-name-eq-no-data", "x = Foo <a = float[2] t => ()")
N("tensor-form-eq-no-data", "x = Foo <a = float[2] => ()")
N("tensor-form-seq-data", "x = Foo <a = seq(float[2]) {1, 2}> ()")
N("tensor-form-sparse-data", "x = Foo <a = sparse_tensor(float[2]) {1, 2}> ()")
N("tensor-form-sparse-annotated", "x = Foo <a: sparse_tensor = float[2] {1, 2}> ()")
N("tensor-form-map-data", "x = Foo <a = map(int64, float) {1}> ()")
N("tensor-form-count-mismatch", "x = Foo <a = float[2,3] {1, 2, 3}> ()")
N("tensor-form-negative-dim", "x = Foo <a = float[-1] {1}> ()")
N("tensor-form-many-values", "x = Foo <a = float[100] {" + ", ".join(str(i / 4) for i in range(100)) + "}> ()")

# Literal boundaries per element type: one value per case, so that each verdict is pinned on
# its own (tests/it/literals.rs holds the checks to these cases). Stems are
# `lit-<dtype>-<label>`; labels starting with `above`/`below` are outside the element type's
# range, where the reference rejects the text or the data check must report the literal.

def _int_bounds(low, high):
    return [("min", str(low)), ("max", str(high)), ("above-max", str(high + 1)),
            ("below-min", str(low - 1)), ("neg-zero", "-0")]


_INT32_STORAGE_BEYOND = [("above-int32", "2147483648"), ("below-int32", "-2147483649")]
_LITERAL_BOUNDS = {
    "int8": _int_bounds(-128, 127),
    "uint8": _int_bounds(0, 255),
    "int16": _int_bounds(-32768, 32767),
    "uint16": _int_bounds(0, 65535),
    "int32": _int_bounds(-2 ** 31, 2 ** 31 - 1),
    "int64": _int_bounds(-2 ** 63, 2 ** 63 - 1),
    "uint32": _int_bounds(0, 2 ** 32 - 1),
    "uint64": _int_bounds(0, 2 ** 64 - 1) + [("below-min-wraps-to-max", "-18446744073709551615")],
    "bool": _int_bounds(0, 1),
}
# Bit patterns: 16, 8 and 6 bits per value; packed bytes of 4-bit and 2-bit elements.
_BIT_PATTERNS = [("float16", 16), ("bfloat16", 16), ("float8e4m3fn", 8), ("float8e4m3fnuz", 8),
                 ("float8e5m2", 8), ("float8e5m2fnuz", 8), ("float8e8m0", 8), ("uint4", 8), ("int4", 8),
                 ("float4e2m1", 8), ("uint2", 8), ("int2", 8), ("float6e2m3", 6), ("float6e3m2", 6)]
for _t, _bits in _BIT_PATTERNS:
    _LITERAL_BOUNDS[_t] = _int_bounds(0, 2 ** _bits - 1)
# The other types stored in int32_data are only range-checked against int32 by the reference.
for _t in ["int8", "uint8", "int16", "uint16", "bool"] + [t for t, _ in _BIT_PATTERNS]:
    _LITERAL_BOUNDS[_t] = _LITERAL_BOUNDS[_t] + _INT32_STORAGE_BEYOND
_FLOAT_SPECIALS = [("neg-zero-int", "-0"), ("neg-zero", "-0.0"), ("nan", "nan"), ("neg-nan", "-nan"),
                   ("nan-upper", "NAN"), ("neg-nan-mixed", "-NaN"), ("inf", "inf"), ("neg-inf", "-inf"),
                   ("neg-infinity", "-Infinity"), ("underflow", "1e-400"), ("neg-underflow", "-1e-400")]
_LITERAL_BOUNDS["float"] = [
    ("max", "3.4028235e38"), ("lowest", "-3.4028235e38"),
    ("max-rounds-down", "3.40282356e38"), ("above-max", "3.4028236e38"), ("below-lowest", "-3.4028236e38"),
    ("min-normal", "1.17549435e-38"), ("max-subnormal", "1.1754942e-38"),
    ("min-subnormal", "1.401298464324817e-45"), ("neg-min-subnormal", "-1e-45"),
    ("half-min-subnormal", "7.006492321624085e-46"), ("over-half-min-subnormal", "7.1e-46"),
] + _FLOAT_SPECIALS
_LITERAL_BOUNDS["double"] = [
    ("max", "1.7976931348623157e308"), ("lowest", "-1.7976931348623157e308"),
    ("above-max", "1.7976931348623159e308"), ("below-lowest", "-1.7976931348623159e308"),
    ("min-normal", "2.2250738585072014e-308"), ("max-subnormal", "2.225073858507201e-308"),
    ("min-subnormal", "4.9406564584124654e-324"), ("neg-min-subnormal", "-5e-324"),
    ("half-min-subnormal", "2.4703282292062327e-324"), ("over-half-min-subnormal", "2.48e-324"),
] + _FLOAT_SPECIALS
for _t, _cases in _LITERAL_BOUNDS.items():
    for _label, _value in _cases:
        N(f"lit-{_t}-{_label}", f"x = Constant <value = {_t}[1] {{{_value}}}> ()")
# Complex numbers: each part is a float or a double.
for _t, _max, _above in [("complex64", "3.4028235e38", "3.4028236e38"),
                         ("complex128", "1.7976931348623157e308", "1.7976931348623159e308")]:
    N(f"lit-{_t}-max", f"x = Constant <value = {_t}[1] {{{_max}, -{_max}}}> ()")
    N(f"lit-{_t}-above-max", f"x = Constant <value = {_t}[1] {{0, {_above}}}> ()")
    N(f"lit-{_t}-specials", f"x = Constant <value = {_t}[2] {{-nan, -0, inf, -1e-400}}> ()")

# ===========================================================================
# §8 attributes

_attr_cases = [
    ("int", "a = 1"),
    ("int-annot", "a: int = 1"),
    ("float", "a = 1.5"),
    ("float-annot", "a: float = 1.5"),
    ("float-annot-int", "a: float = 1"),
    ("string", 'a = "s"'),
    ("string-annot", 'a: string = "s"'),
    ("tensor", "a = float[2] {1, 2}"),
    ("tensor-annot", "a: tensor = float[2] {1, 2}"),
    ("graph", "a = g1 () => (float o) { o = Foo() }"),
    ("graph-annot", "a: graph = g1 () => (float o) { o = Foo() }"),
    ("type-proto", "a = float[3]"),
    ("type-proto-annot", "a: type_proto = float[2]"),
    ("type-proto-scalar", "to = float"),
    ("type-proto-int-name", "to = int64"),
    ("type-proto-seq", "b = seq(float)"),
    ("type-proto-map", "c = map(string, float[N])"),
    ("type-proto-opaque", "d = opaque(a.b, T)"),
    ("type-proto-optional", "d = optional(seq(int8[])), e = sparse_tensor(float[2])"),
    ("cast-to-int", "to = 1"),
    ("ints", "a = [1, 2, -3]"),
    ("ints-annot", "a: ints = [1, 2]"),
    ("ints-one", "a = [5]"),
    ("floats", "a = [1.5, 2]"),
    ("floats-first-float", "a = [2.5, 1]"),
    ("floats-first-int", "a = [1, 2.5]"),
    ("floats-annot-ints", "a: floats = [1, 2.5]"),
    ("floats-annot-all-int", "a: floats = [1, 2, 3]"),
    ("floats-specials", "a = [inf, -nan, 1]"),
    ("strings", 'a = ["a", "b", ""]'),
    ("strings-annot", 'a: strings = ["x"]'),
    ("strings-then-int", 'a = ["a", 1]'),
    ("int-then-string", 'a = [1, "a"]'),
    ("float-then-string", 'a = [1.5, "a"]'),
    ("empty-unannotated", "a = []"),
    ("empty-ints", "a: ints = []"),
    ("empty-floats", "a: floats = []"),
    ("empty-strings", "a: strings = []"),
    ("empty-tensors", "a: tensors = []"),
    ("empty-graphs", "a: graphs = []"),
    ("empty-sparse-tensors", "a: sparse_tensors = []"),
    ("empty-type-protos", "a: type_protos = []"),
    ("empty-int", "a: int = []"),
    ("empty-float", "a: float = []"),
    ("empty-tensor", "a: tensor = []"),
    ("empty-graph", "a: graph = []"),
    ("list-trailing-comma", "a = [1,]"),
    ("list-leading-comma", "a = [,1]"),
    ("list-nested", "a = [[1]]"),
    ("list-unclosed", "a = [1, 2"),
    ("list-missing-comma", "a = [1 2]"),
    ("ints-annot-scalar", "a: ints = 3"),
    ("int-annot-list", "a: int = [1, 2]"),
    ("int-annot-float", "a: int = 3.5"),
    ("string-annot-int", "a: string = 3"),
    ("float-annot-string", 'a: float = "s"'),
    ("tensor-annot-type", "a: tensor = float[2]"),
    ("type-proto-annot-tensor", "a: type_proto = float[2] {1, 2}"),
    ("graph-annot-int", "a: graph = 1"),
    ("int-annot-graph", "a: int = g1 () => () {}"),
    ("ints-annot-floats", "a: ints = [1.5]"),
    ("strings-annot-ints", "a: strings = [1]"),
    ("floats-annot-strings", 'a: floats = ["a"]'),
    ("unknown-annotation", "a: double = 1"),
    ("unknown-annotation-tensor-float", "a: tensor_float = 1"),
    ("annotation-upper", "a: INTS = [1]"),
    ("missing-eq", "a 1"),
    ("missing-value", "a ="),
    ("missing-name", "= 1"),
    ("colon-no-type", "a: = 1"),
    ("name-number", "1 = 1"),
    ("name-keyword", "float = 1, seq = 2, ir_version = 3"),
    ("true", "a = true"),
    ("plus", "a = +5"),
    ("internal-error-dot", "a = .5"),
    ("minus-space", "a = - 5"),
    ("inf-body-graph", "a = inf_body () => () {}"),
    ("nanx-graph", "a = nanx () => () {}"),
    ("nan-underscore", "a = nan_x"),
    ("infinityx", "a = infinityx () => () {}"),
    ("duplicate-names", "a = 1, a = 2.5, a = \"s\""),
    ("many", 'i = 1, f = 2.5, s = "s", t = float[1] {1}, tp = float[1], ii = [1, 2], ff = [1.5], ss = ["a"]'),
    ("with-comments", "a # c\n = # c\n 1 # c\n , b = [ # c\n 1 ]"),
    ("ref-unannotated", "a = @b"),
    ("ref-annotated", "a: ints = @b"),
    ("ref-graph", "a: graph = @g"),
    ("ref-tensor", "a: tensor = @t"),
    ("ref-float", "a: float = @f"),
    ("ref-type-proto", "a: type_proto = @t"),
    ("ref-quoted", 'a: int = @"d e"'),
    ("ref-empty-quoted", 'a: int = @""'),
    ("ref-missing-name", "a = @"),
    ("ref-number", "a = @1"),
    ("ref-space", "a: int = @ b"),
    ("ref-double", "a: int = @@b"),
    ("external-tensor-attr", 'a = float[2] = ["location": "f.bin"]'),
    ("external-tensor-attr-bare", 'a = float[2] ["location": "f.bin"]'),
]
for _name, _attrs in _attr_cases:
    M("attrval-" + _name, attr_model(_attrs))
for _kind in ["int", "float", "string", "tensor", "graph", "sparse_tensor", "type_proto",
              "ints", "floats", "strings", "tensors", "graphs", "sparse_tensors", "type_protos"]:
    M("attr-ref-kind-" + _kind, model("   y = Foo <a: " + _kind + " = @r> (x)", header=HDR))
M("attr-list-empty", attr_model(""))
M("attr-list-trailing-comma", attr_model("a = 1,"))
M("attr-list-leading-comma", attr_model(", a = 1"))
M("attr-list-unclosed", model("   y = Foo <a = 1 (x)"))
M("attr-list-missing-comma", attr_model("a = 1 b = 2"))
M("attr-many-kinds-model", attr_model('i: int = -1, f: float = 0.5, s: string = "x", t: tensor = int64[2] {1, 2}, '
                                      "ii: ints = [1], ff: floats = [0.5], ss: strings = [\"a\"], tp: type_proto = seq(float), "
                                      "g: graph = body () => (float o) { o = Bar() }"))
M("attr-ref-in-graph", attr_model("a: int = @b"))
M("attr-graph-with-locals", model(
    "   y = Loop (m, c, x) <body = b (int64 i, bool cond, float[N] v) => (bool co, float[N] vo) <float[2] k = {1, 2}, float[N] t> {\n"
    "      co = Identity(cond)\n      t = Add(v, k)\n      vo = Relu(t)\n   }>",
    inputs="(int64 m, bool c, float[N] x)"))
M("attr-graph-nested-two-levels", model(
    "   y = If (c) <then_branch = g1 () => (float[N] a) {\n"
    "      a = If (c) <then_branch = g11 () => (float[N] b) <float[1] k = {2}> { b = Mul(x, k) },"
    " else_branch = g12 () => (float[N] b) { b = Neg(x) }>\n"
    "   }, else_branch = g2 () => (float[N] a) { a = Identity(x) }>", inputs="(bool c, float[N] x)"))
M("attr-graph-no-inputs", attr_model("body = g => (y) {y = Bar()}"))
M("attr-graph-untyped-io", attr_model("body = g (a, b) => (c) { c = Add(a, b) }"))
M("attr-graph-initializer-input", attr_model("body = g (float[1] k = {1}, a) => (c) { c = Add(a, k) }"))
M("attr-graph-unclosed", attr_model("body = g () => (c) { c = Bar()"))
M("attr-graph-arrow-space", attr_model("body = g () = > (c) { c = Bar() }"))
M("attr-graph-missing-outputs", attr_model("body = g () => { c = Bar() }"))
M("attr-after-inputs", model("   y = Foo (x) <a = 1, b = \"s\">"))
M("attr-after-inputs-graph", model(
    "   y = If (c) <then_branch = g1 () => (float[N] a) { a = Relu(x) }, else_branch = g2 () => (float[N] a) { a = Neg(x) }>",
    inputs="(bool c, float[N] x)"))
M("attr-both-lists-in-graph", model("   y = Foo <a = 1> (x) <b = 2>"))
M("attr-cast-to-float-type-proto", model("   y = Cast <to = float> (x)"))
M("attr-cast-to-int", model("   y = Cast <to = 1> (x)"))

# ===========================================================================
# §9 nodes

N("node-label", "[n1] x = Foo(y)")
N("node-label-quoted", '["node 1"] x = Foo(y)')
N("node-label-empty", "[] x = Foo(y)")
N("node-label-empty-string", '[""] x = Foo(y)')
N("node-label-spaces", "[ n1 ]  x = Foo(y)")
N("node-label-comment", "[n1] # c\n x = Foo(y)")
N("node-label-twice", "[a][b] x = Foo(y)")
N("node-label-number", "[1] x = Foo(y)")
N("node-label-unclosed", "[a x = Foo(y)")
N("node-label-two-names", "[a b] x = Foo(y)")
N("node-domain-dotted", "x = com.microsoft.Foo(y)")
N("node-domain-ai-onnx", "x = ai.onnx.Add(y, z)")
N("node-domain-deep", "x = a.b.c.d.e.Foo(y)")
N("node-domain-spaces", "x = Foo . Bar (y)")
N("node-domain-newlines", "x = com\n.\nms\n.\nFoo\n(y)")
N("node-domain-comments", "x = com # c\n . ms # c\n . Foo # c\n (y)")
N("node-domain-keywords", "x = float.seq.map(y)")
N("node-op-empty", "x = (y)")
N("node-op-leading-dot", "x = .Foo(y)")
N("node-op-double-dot", "x = a..Foo(y)")
N("node-op-trailing-dot", "x = Foo.(y)")
N("node-op-only-dot", "x = .(y)")
N("node-op-number", "x = 1Foo(y)")
N("node-op-digit-part", "x = com.1.Foo(y)")
N("node-overload", "x = com.ms.Foo:v2 <a=1> (y)")
N("node-overload-no-domain", "x = Foo:v2 (y)")
N("node-overload-spaces", "x = Foo : v2 (y)")
N("node-overload-empty", "x = Foo:(y)")
N("node-overload-quoted", 'x = Foo:"v2" (y)')
N("node-overload-dotted", "x = Foo:v.2 (y)")
N("node-overload-twice", "x = Foo:a:b (y)")
N("node-overload-number", "x = Foo:2 (y)")
N("node-overload-empty-op", "x = :v2 (y)")
N("node-attrs-after-inputs", "x = Foo (y) <a = 1>")
N("node-attrs-after-inputs-overload", "x = d.Foo:o (y) <a = 1, b = [1.5]>")
N("node-no-outputs", "= Foo()")
N("node-no-outputs-with-inputs", '= Foo(x, "")')
N("node-no-eq", "Foo()")
N("node-no-eq-with-outputs", "x Foo(y)")
N("node-missing-paren", "x = Foo")
N("node-missing-paren-attrs", "x = Foo <a = 1>")
N("node-unclosed-inputs", "x = Foo(y")
N("node-typed-input", "x = Foo(float y)")
N("node-typed-output", "float x = Foo(y)")
N("node-newline-before-paren", "x = Foo\n\n(y)")
N("node-many-io", "a, b, c, d = Foo(e, f, g, h, i)")
N("node-quoted-io", 'x, "y/1" = Foo("in:0", "")')
N("node-keyword-op", "x = If(y)")
N("node-double-eq", "x == Foo(y)")
N("node-arrow", "x => Foo(y)")
N("node-bracket-inputs", "x = Foo[y]")
N("node-full", '[n] a, "" = com.ms.Foo:o2 <i = 1, f = 2.5, s = "s", t = float[1] {1}, g = b () => (o) { o = Bar() }> (x, "", z)')
for _name, _ops in [
    ("empty", "()"), ("leading-comma", "(,x)"), ("comma", "(,)"), ("two-commas", "(,,)"),
    ("trailing-comma", "(x,)"), ("double-trailing", "(a,,)"), ("mixed", "(,a,,b,)"),
    ("empty-string", '("")'), ("empty-string-first", '("", y)'), ("three-commas", "(,,,)"),
    ("middle-empty", "(a,,b)"), ("spaces", "( a , , b , )"), ("comments", "(a # c\n, # c\n , b)"),
    ("only-empty-strings", '("", "", "")'),
]:
    N("operands-in-" + _name, "x = Foo" + _ops)
    N("operands-out-" + _name, _ops[1:-1] + " = Foo(y)")
N("operands-both-comma", ", = Op(,)")
M("operands-in-model", model('   a, , b, = Split(x)\n   , c = Foo(, a,, b,)\n   y = Add("", c,)'))

# §9 nodes in node lists (model entry)
M("node-list-labels", model('   [n1] t = Relu(x)\n   ["n 2"] u = Relu(t)\n   [] y = Relu(u)'))
M("node-list-no-outputs", model("   = Print(x)\n   y = Relu(x)"))
M("node-list-second-attr-list", model("   t = Foo <a = 1> (x) <b = 2>\n   y = Relu(t)"))
M("node-list-trailing-comma", model("   t = Relu(x),\n   y = Relu(t)"))
M("node-list-label-alone", model("   [n1]\n   y = Relu(x)"))
M("node-list-domains", model("   t = com.microsoft.Foo:v1 <a = 1> (x)\n   u = ai.onnx.Relu(t)\n   y = Foo . Bar(u)",
                             header='<ir_version: 10, opset_import: ["" : 21, "com.microsoft" : 1, "ai.onnx" : 21, "Foo" : 1]>\n'))

# ===========================================================================
# §10 functions

F("func-basic", "F (x) => (y) { y = Relu(x) }")
F("func-empty", "F () => () {}")
F("func-reference-example", '<domain: "local", opset_import: ["" : 21], overload: "o1", doc_string: "d">\n'
  "F <alpha: float = 1.0, beta, gamma: ints = [1, 2]> (float[N] X, Y) => (float Z) <float t>\n{\n"
  "   c_alpha = Constant <value_float: float = @alpha> ()\n   Z = Mul (c_alpha, X)\n}\n")
for _k, _v in [("domain", '"local"'), ("opset_import", '["" : 21, "local" : 1]'), ("doc_string", '"doc \\"q\\""'),
               ("overload", '"o1"')]:
    F("func-header-" + _k, "<" + _k + ": " + _v + ">\nF (x) => (y) { y = Relu(x) }")
    F("func-header-repeat-" + _k, "<" + _k + ": " + _v + ", " + _k + ": " + _v.replace("local", "other")
      .replace("21", "18").replace("doc", "more").replace("o1", "o2") + ">\nF (x) => (y) { y = Relu(x) }")
F("func-header-opset-empty", "<opset_import: []>\nF (x) => (y) { y = Relu(x) }")
F("func-header-domain-empty", '<domain: "">\nF (x) => (y) { y = Relu(x) }')
for _k, _v in [("ir_version", "10"), ("model_version", "1"), ("metadata_props", '["k" : "v"]'), ("foo", "1"),
               ("producer_name", '"p"')]:
    F("func-header-bad-key-" + _k, "<" + _k + ": " + _v + ">\nF (x) => (y) { y = Relu(x) }")
F("func-header-empty", "<>\nF (x) => (y) { y = Relu(x) }")
F("func-header-trailing-comma", '<domain: "d",>\nF (x) => (y) { y = Relu(x) }')
F("func-header-domain-int", "<domain: 1>\nF (x) => (y) { y = Relu(x) }")
F("func-header-overload-unquoted", "<overload: o1>\nF (x) => (y) { y = Relu(x) }")
F("func-attr-names", "F <a, b, c> (x) => (y) { y = Relu(x) }")
F("func-attr-defaults", 'F <i: int = 1, f: float = 0.5, s: string = "s", t: tensor = float[2] {1, 2}, ii: ints = [1, 2], '
  'ff: floats = [0.5, 1], ss: strings = ["a"], tp: type_proto = seq(float), '
  "g: graph = b () => (o) { o = Bar() }> (x) => (y) { y = Relu(x) }")
F("func-attr-defaults-unannotated", 'F <i = 1, f = 0.5, s = "s", t = float[1] {1}, ii = [1, 2], tp = float[2]> (x) => (y) { y = Relu(x) }')
F("func-attr-float-from-int", "F <a: float = 1, b: floats = [1, 2]> (x) => (y) { y = Relu(x) }")
F("func-attr-mixed-order", "F <a, b: int = 1, c, d = 2.5, e> (x) => (y) { y = Relu(x) }")
F("func-attr-typed-no-default", "F <a: float> (x) => (y) {}")
F("func-attr-typed-no-default-ints", "F <a: ints, b: tensor, c: graph, d: string, e> (x) => (y) {}")
F("func-attr-empty-list-defaults", "F <a: ints = [], b: strings = [], c: tensors = [], d: graphs = []> (x) => (y) {}")
F("func-attr-list-empty", "F <> (x) => (y) {}")
F("func-attr-list-trailing-comma", "F <a,> (x) => (y) {}")
F("func-attr-list-unclosed", "F <a (x) => (y) {}")
F("func-attr-refs", "F <a, b, c, d> (x) => (y) {\n   t = Foo <i: int = @a, f: float = @b, s: strings = @c, g: graph = @d> (x)\n"
  "   y = Bar <j = @a> (t)\n}")
F("func-attr-ref-nested-graph", "F <k> (c, x) => (y) {\n   y = If (c) <then_branch = g1 () => (o) { o = Foo <a: int = @k> (x) },"
  " else_branch = g2 () => (o) { o = Identity(x) }>\n}")
F("func-typed-io", "F (float[N] x, int64 k, seq(float) s, y0) => (float[N] y, z) { y = Relu(x) z = Identity(k) }")
F("func-same-name-in-out", "F (float[N] x) => (float[N] x) {}")
F("func-value-infos", "F (float[N] x) => (float[N] y) <float[N] t, u, seq(int64) s> { t = Relu(x) u = Neg(t) y = Abs(u) }")
F("func-value-infos-empty", "F (x) => (y) <> { y = Relu(x) }")
F("func-value-infos-initializer", "F (x) => (y) <float[2] w = {1,2}> {}")
F("func-value-infos-trailing-comma", "F (x) => (y) <float t,> {}")
F("func-io-initializer", "F (float[2] w = {1, 2}) => (y) { y = Relu(w) }")
F("func-io-trailing-comma", "F (x,) => (y) {}")
F("func-output-trailing-comma", "F (x) => (y,) {}")
F("func-no-input-list", "F => (y) { y = Foo() }")
F("func-no-output-list", "F (x) => y {}")
F("func-missing-body", "F (x) => (y)")
F("func-unclosed-body", "F (x) => (y) { y = Relu(x)")
F("func-name-missing", "(x) => (y) {}")
F("func-attrs-after-io", "F (x) => (y) <a> {}")
F("func-header-and-attrs", '<domain: "d", opset_import: ["" : 21]>\nF <a: int = 3> (x) => (y) { y = Foo <a: int = @a> (x) }')
F("func-utf8-doc", '<doc_string: "héllo ✓">\nF (x) => (y) { y = Relu(x) }')
F("func-second-attr-list-in-body", "F (x) => (y) { t = Foo <a = 1> (x) <b = 2>\n y = Relu(t) }")
F("func-crlf", '<domain: "local",\r\n opset_import: ["" : 21]>\r\nF <a> (x) => (y)\r\n{\r\n   y = Relu(x) # c\r\n}\r\n')

# models with functions (§3, §10)
FUNC_A = '<domain: "local", opset_import: ["" : 21]>\nA (x) => (y) { y = Relu(x) }\n'
FUNC_B = "B <k: int = 2> (x) => (y) { y = Foo <k: int = @k> (x) }\n"
FUNC_C = '<domain: "local", overload: "o1", opset_import: ["" : 21]>\nC (x) => (y) <float t> { t = Neg(x) y = Relu(t) }\n'
_mhdr = '<ir_version: 10, opset_import: ["" : 21, "local" : 1]>\n'
M("model-functions-zero", model("   y = Relu(x)", header=_mhdr))
M("model-functions-one", model("   y = local.A(x)", header=_mhdr, tail=FUNC_A))
M("model-functions-one-no-header", model("   y = B(x)", header=_mhdr, tail=FUNC_B))
M("model-functions-several", model("   t = local.A(x)\n   u = B <k = 3> (t)\n   y = local.C:o1(u)", header=_mhdr,
                                   tail=FUNC_A + FUNC_B + FUNC_C + "# end\n" + FUNC_A))
M("model-functions-no-model-header", "g (x) => (y) {} F (x) => (y) {}")
M("model-functions-adjacent", model("   y = Relu(x)", header=_mhdr) + "A()=>(){}B()=>(){}<domain:\"d\">C()=>(){}")
M("model-functions-bad-second", model("   y = Relu(x)", header=_mhdr, tail=FUNC_A + "B (x) => (y) { y = Relu(x)\n"))
M("model-functions-swallowed-float-typed", model("   y = Relu(x)", header=_mhdr, tail="F <a: float> (x) => (y) {}\n"))
M("model-functions-attr-defaults", model("   y = local.F(x)", header=_mhdr,
                                         tail='<domain: "local">\nF <alpha: float = 2, beta: ints = [1, 2], gamma> (x) => (y) '
                                              "{ y = Foo <a: float = @alpha, b: ints = @beta> (x) }\n"))
M("model-function-header-ir-version", model("   y = Relu(x)", header=_mhdr, tail="<ir_version: 10>\nF (x) => (y) {}\n"))

# ===========================================================================
# §12 errors: positions and context lines

M("err-position-multiline", HDR + "g (x) => (y)\n{\n   t = Relu(x)\n   y = Relu(t)\n   z = \n}\n")
M("err-position-tabs", HDR + "g (x) => (y)\n{\n\t\ty = Relu(x) <a = >\n}\n")
M("err-position-after-blank-lines", HDR + "g (x) => (y)\n{\n   y = Relu(x)\n\n\n   ] \n}\n")
M("err-position-utf8-columns", HDR + 'g (x) => (y)\n{\n   "ü" = Relu(x) ) \n}\n')
M("err-position-crlf", (HDR + "g (x) => (y)\n{\n   y = Relu(x) )\n}\n").replace("\n", "\r\n"))
M("err-position-long-line", HDR + "g (x) => (y) { " + " ".join("t%d = Relu(x)" % i for i in range(200)) + " ) }\n")
M("err-unclosed-at-eof", HDR + "g (x) => (y)\n{\n   y = Foo(x)\n\n\n")
M("err-eof-after-eq", HDR + "g (x) => (y) { y =")
M("err-eof-in-type", HDR + "g (float[")
M("err-eof-in-attr", HDR + "g (x) => (y) { y = Foo <a")
M("err-eof-after-comment", HDR + "g (x) => (y) { y = Foo(x) # open")
N("err-eof-in-label", "[")
N("err-eof-in-inputs", "x = Foo(a,")

# ===========================================================================
# §18 compact conformance vectors, verbatim (parse_node unless marked)

N("vec-float-trailing-dot", "x = Foo <a = 5.> (y)")
N("vec-int-leading-zeros", "x = Foo <a = 007> (y)")
N("vec-float-annot-neg-zero", "x = Foo <a: float = -0> (y)")
N("vec-inf-nan", "x = Foo <a = inf, b = -Infinity, c = NaN, d = -nan> (y)")
N("vec-string-escapes", 'x = Foo <a = "a\\nb\\"c\\\\d"> (y)')
N("vec-ints-empty", "x = Foo <a: ints = []> (y)")
N("vec-floats-first-float", "x = Foo <a = [2.5, 1]> (y)")
N("vec-ints-then-float", "x = Foo <a = [1, 2.5]> (y)")
N("vec-tensor-named-scalar", "x = Foo <a = float x> (y)")
N("vec-to-float", "x = Foo <to = float> (y)")
N("vec-external-eq", 'x = Foo <a = float[2] = ["location": "f.bin"]> (y)')
N("vec-external-no-eq", 'x = Foo <a = float[2] ["location": "f.bin"]> (y)')
N("vec-true", "x = Foo <a = true> (y)")
N("vec-plus", "x = Foo <a = +5> (y)")
N("vec-minus-space", "x = Foo <a = - 5> (y)")
N("vec-float-overflow", "x = Foo <a = 1e39> (y)")
N("vec-float-underflow", "x = Foo <a = 1e-50> (y)")
N("vec-int32-overflow", "x = Foo <a = int32[1] {2147483648}> (y)")
N("vec-uint64-wrap", "x = Foo <a = uint64[2] {18446744073709551615, -1}> ()")
N("vec-float16-float", "x = Foo <a = float16[2] {15360, 1.5}> (y)")
N("vec-graph-no-inputs", "x = Foo <body = g => (y) {y = Bar()}> (z)")
N("vec-op-empty", "x = (y)")
N("vec-domain-spaces", "x = Foo . Bar (y)")
N("vec-label-empty", "[] x = Foo(y)")
G("vec-no-inputs", "g => (y) { y = Foo() }")
G("vec-arrow-space", "g () = > () {}")
G("vec-initializer-no-data", "g (float[2] w =) => (y) { }")
G("vec-initializer-external-empty", "g (float[2] w = []) => (y) { }")
G("vec-input-trailing-comma", "g (x,) => (y) { }")
G("vec-dim-param-empty", 'g (float["" ] x) => (y) {}')
G("vec-semicolon", "g (x) => (y) { y = Foo(x); z = Bar(y) }")
M("vec-header-empty", "<> g (x) => (y) {}")
M("vec-header-repeats", '<ir_version: 7, ir_version: 8, opset_import: ["": 1], opset_import: ["a": 2]> g (x) => (y) {}')
M("vec-function-no-header", "g (x) => (y) {} F (x) => (y) {}")
F("vec-attr-typed-no-default", "F <a: float> (x) => (y) {}")
F("vec-attr-list-empty", "F <> (x) => (y) {}")
F("vec-value-info-initializer", "F (x) => (y) <float[2] w = {1,2}> {}")

# ===========================================================================
# realistic larger models

M("real-if-outer-values", '<ir_version: 10, opset_import: ["" : 21], producer_name: "hand">\n'
  "main (bool cond, float[N, 4] X, float[4] B) => (float[N, 4] Y)\n<float[4] scale = {0.5, 1, 2, 4}>\n{\n"
  "   XB = Add (X, B)\n"
  "   Y = If (cond) <\n"
  "      then_branch = then_body () => (float[N, 4] out) {\n"
  "         scaled = Mul (XB, scale)\n"
  "         out = Relu (scaled)\n"
  "      },\n"
  "      else_branch = else_body () => (float[N, 4] out) <float[1] minus = {-1}> {\n"
  "         out = Mul (XB, minus)\n"
  "      }\n"
  "   >\n}\n")
M("real-loop-outer-values", '<ir_version: 10, opset_import: ["" : 21]>\n'
  "loop_graph (int64 M, float[2] init) => (float[2] final, float[K, 2] scan_out)\n{\n"
  "   one = Constant <value = int64 {1}> ()\n"
  "   true_c = Constant <value = bool {1}> ()\n"
  "   final, scan_out = Loop (M, true_c, init) <\n"
  "      body = loop_body (int64 iter, bool cond_in, float[2] acc) => (bool cond_out, float[2] acc_out, float[2] emitted)\n"
  "      <float[2] delta = {0.5, 0.25}>\n"
  "      {\n"
  "         cond_out = Identity (cond_in)\n"
  "         iter_f = Cast <to = 1> (iter)\n"
  "         step = Mul (delta, iter_f)\n"
  "         acc_out = Add (acc, step)\n"
  "         emitted = Identity (acc_out)\n"
  "      }\n"
  "   >\n}\n")
M("real-scan-cumsum", '<ir_version: 10, opset_import: ["" : 21]>\n'
  "scan_graph (float[2] initial, float[3, 2] x) => (float[2] y, float[3, 2] z)\n{\n"
  "   y, z = Scan (initial, x) <num_scan_inputs: int = 1, scan_input_axes: ints = [0], body = scan_body "
  "(float[2] sum_in, float[2] next) => (float[2] sum_out, float[2] scan_out) {\n"
  "      sum_out = Add (sum_in, next)\n"
  "      scan_out = Identity (sum_out)\n"
  "   }>\n}\n")
M("real-mlp-with-functions", '<\n   ir_version: 10,\n   opset_import: ["" : 21, "mlp" : 1],\n   producer_name: "onnx-text corpus",\n'
  '   producer_version: "0.1",\n   domain: "ai.example",\n   model_version: 2,\n   doc_string: "two-layer perceptron",\n'
  '   metadata_props: ["author" : "corpus", "license" : "Apache-2.0"]\n>\n'
  'mlp_graph (float[batch, 4] "input:0") => (float[batch, 2] "output:0")\n'
  "<float[4, 3] W1 = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2}, float[3] b1 = {0, 0.5, -0.5},\n"
  " float[3, 2] W2 = {1, -1, 0.5, -0.5, 0.25, -0.25}, float[2] b2 = {0.1, -0.1}, float[batch, 3] h>\n{\n"
  '   [dense1] h = mlp.Dense <activation: string = "relu"> ("input:0", W1, b1)\n'
  '   [dense2] logits = mlp.Dense <activation: string = "none"> (h, W2, b2)\n'
  '   ["softmax"] "output:0" = Softmax <axis: int = -1> (logits)\n}\n'
  '<domain: "mlp", opset_import: ["" : 21], doc_string: "affine layer with optional relu">\n'
  "Dense <activation: string = \"relu\"> (X, W, B) => (Y)\n{\n"
  "   XW = MatMul (X, W)\n   Z = Add (XW, B)\n   Y = Relu (Z)\n}\n")
M("real-attention-block", '<ir_version: 10, opset_import: ["" : 21]>\n'
  "attn (float[B, S, 8] x) => (float[B, S, 8] y)\n"
  "<float[8, 8] Wq = {" + ", ".join("%g" % ((i % 7) / 10) for i in range(64)) + "},\n"
  " float[8, 8] Wk = {" + ", ".join("%g" % ((i % 5) / 10) for i in range(64)) + "},\n"
  " float[8, 8] Wv = {" + ", ".join("%g" % ((i % 3) / 10) for i in range(64)) + "},\n"
  " float scale = {0.35355339}, int64[3] perm_shape = {0, 0, 8}>\n{\n"
  "   q = MatMul (x, Wq)\n   k = MatMul (x, Wk)\n   v = MatMul (x, Wv)\n"
  "   kt = Transpose <perm = [0, 2, 1]> (k)\n   scores = MatMul (q, kt)\n   scaled = Mul (scores, scale)\n"
  "   probs = Softmax <axis = -1> (scaled)\n   ctx = MatMul (probs, v)\n   y = Add (ctx, x)\n}\n")
M("real-sequence-and-map-ops", '<ir_version: 10, opset_import: ["" : 21, "ai.onnx.ml" : 5]>\n'
  "seqs (float[N] a, float[N] b, map(int64, float) m) => (seq(float[N]) s, float[?] cat, float[?] vals)\n{\n"
  "   s = SequenceConstruct (a, b)\n   len = SequenceLength (s)\n   cat = ConcatFromSequence <axis: int = 0> (s)\n"
  "   vals = ai.onnx.ml.ZipMap <classlabels_int64s = [1, 2]> (cat)\n}\n")
M("real-optional", '<ir_version: 10, opset_import: ["" : 21]>\n'
  "opt (optional(float[N]) o) => (bool has, float[N] v)\n{\n   has = OptionalHasElement (o)\n"
  "   v = If (has) <then_branch = t () => (float[N] r) { r = OptionalGetElement (o) },"
  " else_branch = e () => (float[N] r) { r = Constant <value = float[1] {0}> () }>\n}\n")
M("real-quantized", '<ir_version: 10, opset_import: ["" : 21]>\n'
  "q (float[N, 4] x) => (float[N, 4] y)\n"
  "<float xs = {0.02}, uint8 xz = {128}, int8[4, 4] w = {1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 11, -12, 13, -14, 15, -16},"
  " float ws = {0.01}, int8 wz = {0}, int4[4] packed = {33, 67}, float8e4m3fn[2] f8 = {56, 184}>\n{\n"
  "   xq = QuantizeLinear (x, xs, xz)\n   xd = DequantizeLinear (xq, xs, xz)\n   wd = DequantizeLinear (w, ws, wz)\n"
  "   y = MatMul (xd, wd)\n}\n")
G("real-graph-entry-if", "main (bool c, float[N] x) => (float[N] y)\n{\n"
  "   y = If (c) <then_branch = a () => (float[N] r) { r = Relu(x) }, else_branch = b () => (float[N] r) { r = Neg(x) }>\n}\n")
F("real-function-layernorm", '<domain: "custom", opset_import: ["" : 21]>\n'
  "LayerNorm <axis: int = -1, epsilon: float = 1e-5> (float[N, D] X, float[D] Scale, float[D] B) => (float[N, D] Y)\n"
  "<float[N, 1] mean, float[N, D] d>\n{\n"
  "   axes = Constant <value_ints: ints = @axis> ()\n   mean = ReduceMean (X, axes)\n   d = Sub (X, mean)\n"
  "   dd = Mul (d, d)\n   var = ReduceMean (dd, axes)\n   eps = Constant <value_float: float = @epsilon> ()\n"
  "   ve = Add (var, eps)\n   sd = Sqrt (ve)\n   nx = Div (d, sd)\n   sx = Mul (nx, Scale)\n   Y = Add (sx, B)\n}\n")


# more observations worth pinning down
N("tensor-data-inf-digit", "x = Foo <a = float[1] {inf1}> ()")
N("tensor-data-nan-digit", "x = Foo <a = float[1] {nan0}> ()")
N("tensor-data-word", "x = Foo <a = float[1] {abc}> ()")
N("tensor-data-minus-inf-space", "x = Foo <a = float[1] {- inf}> ()")
N("tensor-data-int-words", "x = Foo <a = int64[1] {inf}> ()")
N("tensor-data-string-in-float", 'x = Foo <a = float[1] {"1"}> ()')
N("tensor-data-double-int-overflow", "x = Foo <a = double[1] {99999999999999999999999}> ()")
N("tensor-data-complex-int-overflow", "x = Foo <a = complex64[2] {99999999999999999999, 1}> ()")
M("attr-singleton-annot-ints-list", attr_model("a: int = [1, 2]"))
M("attr-singleton-annot-floats-list", attr_model("a: float = [1, 2]"))
M("attr-singleton-annot-floats-list-mixed", attr_model("a: float = [1, 2.5]"))
M("attr-singleton-annot-strings-list", attr_model('a: string = ["a", "b"]'))
M("attr-singleton-annot-int-float-list", attr_model("a: int = [1.5]"))
M("attr-sparse-annot-type-proto", attr_model("a: sparse_tensor = sparse_tensor(float[2])"))
M("attr-float-annot-int-overflow", attr_model("a: float = 99999999999999999999999"))
M("attr-floats-annot-int-overflow", attr_model("a: floats = [1, 99999999999999999999999]"))
M("attr-floats-first-float-then-int-overflow", attr_model("a = [1.5, 99999999999999999999999]"))


# ===========================================================================
# DIVERGENT: the reference drops or mangles input here (see module docstring)

# (a) trailing text after the parsed item
D("trailing-node-garbage", "node", "x = Foo(y) trailing garbage")
D("trailing-node-second-node", "node", "x = Foo(y)\n z = Bar(x)")
D("trailing-node-second-attr-list", "node", "x = Foo <a = 1> (y) <b = 2>")
D("trailing-node-semicolon", "node", "x = Foo(y);")
D("trailing-node-paren", "node", "x = Foo(y))")
D("trailing-node-second-attr-list-bad", "node", "x = Foo <a = 1> (y) <b = >")
D("trailing-graph-function", "graph", "g (x) => (y) { y = Relu(x) } F (a) => (b) {}")
D("trailing-graph-brace", "graph", "g (x) => (y) { y = Relu(x) } }")
D("trailing-graph-garbage", "graph", "g (x) => (y) { y = Relu(x) } garbage")
D("trailing-function-second", "function", "F (x) => (y) { y = Relu(x) }\nG (x) => (y) {}")
D("trailing-function-garbage", "function", "F (x) => (y) { y = Relu(x) } ;;")
# (b) lists of tensors, graphs, type protos and @refs
D("list-tensors-unannotated", "node", "x = Foo <a = [float[1] {1}]> (y)")
D("list-tensors-annotated", "node", "x = Foo <a: tensors = [float[1] {1}, int64[2] {1, 2}]> (y)")
D("list-graphs-annotated", "node", "x = Foo <a: graphs = [g () => () {}]> (y)")
D("list-graphs-unannotated", "node", "x = Foo <a = [g1 () => () {}, g2 () => () {}]> (y)")
D("list-graph-singleton-annotation", "node", "x = Foo <a: graph = [g () => () {}]> (y)")
D("list-type-protos", "node", "x = Foo <a = [float, seq(int64)]> (y)")
D("list-type-protos-annotated", "node", "x = Foo <a: type_protos = [float[2]]> (y)")
D("list-refs", "node", "x = Foo <a = [@b]> (y)")
D("list-refs-ints", "node", "x = Foo <a: ints = [@b]> (y)")
D("list-tensors-in-model", "model", attr_model("a: tensors = [float[2] {1, 2}], b = 1"))
D("list-tensors-in-function", "function", "F <a> (x) => (y) { y = Foo <t: tensors = [float[1] t {1}]> (x) }")
# (c) errors swallowed in function attribute lists
D("fn-attr-float-string", "function", 'F <a: float = "s"> (x) => (y) {}')
D("fn-attr-float-graph", "function", "F <a: float = zz> (x) => (y) {}")
D("fn-attr-int-float", "function", "F <a: int = 2.5> (x) => (y) {}")
D("fn-attr-ints-mixed", "function", "F <a = [1, 2.5], b> (x) => (y) {}")
D("fn-attr-empty-unannotated", "function", "F <a = []> (x) => (y) {}")
D("fn-attr-unknown-type", "function", "F <a: foo = 1> (x) => (y) {}")
D("fn-attr-in-model", "model", model("   y = Relu(x)", tail='F <a: float = "s", b: int = 1.5> (x) => (y) {}\n'))
# (d) NUL bytes
D("nul-after-model", "model", model("   y = Relu(x)") + "\0garbage")
D("nul-in-node", "node", "x = Foo\0(y)")
D("nul-in-string", "model", '<doc_string: "a\0b">\ng (x) => (y) { y = Relu(x) }\n')
D("nul-in-comment", "graph", "g (x) => (y) { y = Relu(x) # c\0 }\n}")
