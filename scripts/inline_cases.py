"""The models that scripts/inline_differential.py and scripts/inline_numeric.py inline: every
corpus model with local functions, and generated models for each feature of inlining.

Each generated case is (name, text, divergence): `divergence` names the entry of
docs/divergences.md ("Inliner") that explains why onnx.inliner's result differs from ours, or
is None where the two must agree.
"""

from __future__ import annotations

import pathlib

REPO = pathlib.Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "corpus"

HEADER = '<ir_version: 10, opset_import: ["" : 21, "local" : 1]>'
LOCAL = '<domain: "local", opset_import: ["" : 21]>'
LOCAL_CALLS = '<domain: "local", opset_import: ["" : 21, "local" : 1]>'

GENERATED: list[tuple[str, str, str | None]] = [
    (
        "nested-calls",
        f"""{HEADER}
g (float[N] x) => (float[N] y) {{ y = local.Outer(x) }}
{LOCAL_CALLS} Outer (a) => (b) {{ t = local.Inner(a)  b = local.Inner(t) }}
{LOCAL} Inner (a) => (b) {{ t = Neg(a)  b = Abs(t) }}
""",
        None,
    ),
    (
        "two-calls-clashing-names",
        f"""{HEADER}
g (float[N] x) => (float[N] y) {{
   t = local.F(x)
   s = Neg(t)
   y = local.F(s)
}}
{LOCAL} F (a) => (b) {{ t = Neg(a)  s = Abs(t)  b = Add(s, t) }}
""",
        None,
    ),
    (
        "overloads",
        f"""{HEADER}
g (float[N] x) => (float[N] y) {{ t = local.F:neg(x)  y = local.F:abs(t) }}
<domain: "local", overload: "neg", opset_import: ["" : 21]> F (a) => (b) {{ b = Neg(a) }}
<domain: "local", overload: "abs", opset_import: ["" : 21]> F (a) => (b) {{ b = Abs(a) }}
""",
        None,
    ),
    (
        "optional-input-left-out",
        f"""{HEADER}
g (float[N] x) => (float[N] y) {{ t = local.ClipTo(x)  y = local.ClipTo(t, "") }}
{LOCAL} ClipTo (a, low) => (b) {{ b = Clip(a, low) }}
""",
        None,
    ),
    (
        "optional-output-left-out",
        f"""{HEADER}
g (float[N] x) => (float[N] y) {{ y = local.Two(x)  z, w = local.Two(x) }}
{LOCAL} Two (a) => (b, c) {{ b = Neg(a)  c = Abs(a) }}
""",
        None,
    ),
    (
        "call-in-if",
        f"""{HEADER}
g (bool c, float[N] x) => (float[N] y) {{
   y = If (c) <
      then_branch = t () => (float[N] r) {{ r = local.F(x) }},
      else_branch = e () => (float[N] r2) {{ r2 = Neg(x) }}
   >
}}
{LOCAL} F (a) => (b) {{ t = Neg(a)  b = Abs(t) }}
""",
        None,
    ),
    (
        "call-in-loop",
        f"""{HEADER}
g (float[N] x) => (float[N] y) {{
   n = Constant <value = int64 {{3}}> ()
   y = Loop (n, "", x) <body = body (int64 i, bool cond, float[N] acc) => (bool cond_out, float[N] acc_out) {{
      cond_out = Identity(cond)
      acc_out = local.F(acc)
   }}>
}}
{LOCAL} F (a) => (b) {{ t = Neg(a)  b = Sin(t) }}
""",
        None,
    ),
    (
        "call-in-scan",
        f"""{HEADER}
g (float[M, N] xs, float[N] init) => (float[N] last, float[M, N] ys) {{
   last, ys = Scan (init, xs) <num_scan_inputs = 1, body = body (float[N] state, float[N] x) => (float[N] next, float[N] out) {{
      next = local.F(state, x)
      out = Identity(next)
   }}>
}}
{LOCAL} F (a, b) => (c) {{ t = Add(a, b)  c = Tanh(t) }}
""",
        None,
    ),
    (
        "subgraph-in-body",
        f"""{HEADER}
g (bool c, float[N] x) => (float[N] y) {{ y = local.F(c, x) }}
{LOCAL} F (k, a) => (b) {{
   t = Neg(a)
   b = If (k) <
      then_branch = t1 () => (r) {{ r = Abs(t) }},
      else_branch = e1 () => (r) {{ r = Identity(t) }}
   >
}}
""",
        None,
    ),
    (
        "call-in-subgraph-of-body",
        f"""{HEADER}
g (bool c, float[N] x) => (float[N] y) {{ y = local.F(c, x) }}
{LOCAL_CALLS} F (k, a) => (b) {{
   b = If (k) <
      then_branch = t1 () => (r) {{ r = local.G(a) }},
      else_branch = e1 () => (r) {{ r = Identity(a) }}
   >
}}
{LOCAL} G (a) => (b) {{ t = Neg(a)  b = Exp(t) }}
""",
        None,
    ),
    (
        "attribute-given",
        f"""{HEADER}
g (float[N] x) => (float[N] y) {{ y = local.Scale <alpha: float = 3.0> (x) }}
{LOCAL} Scale <alpha> (a) => (b) {{ s = Constant <value_float: float = @alpha> ()  b = Mul(a, s) }}
""",
        None,
    ),
    (
        "attribute-default-used",
        f"""{HEADER}
g (float[N] x) => (float[N] y) {{ t = local.Scale <alpha: float = 3.0> (x)  y = local.Scale (t) }}
{LOCAL} Scale <alpha: float = 0.5> (a) => (b) {{ s = Constant <value_float: float = @alpha> ()  b = Mul(a, s) }}
""",
        "attribute defaults",
    ),
    (
        "attribute-optional-dropped",
        f"""{HEADER}
g (float[N, M] x) => (float[N, M] y) {{ t = local.Soft <ax = 0> (x)  y = local.Soft (t) }}
{LOCAL} Soft <ax> (a) => (b) {{ b = Softmax <axis = @ax> (a) }}
""",
        None,
    ),
    (
        "attribute-default-in-subgraph",
        f"""{HEADER}
g (bool c, float[N] x) => (float[N] y) {{ y = local.F(c, x) }}
{LOCAL} F <alpha: float = 2.0> (k, a) => (b) {{
   b = If (k) <
      then_branch = t1 () => (r) {{ s = Constant <value_float: float = @alpha> ()  r = Mul(a, s) }},
      else_branch = e1 () => (r) {{ r = Identity(a) }}
   >
}}
""",
        "attribute defaults",
    ),
    (
        "foreign-domain",
        f"""<ir_version: 10, opset_import: ["" : 21, "local" : 1]>
g (float[N] x) => (float[N] y) {{ y = local.Bin(x) }}
<domain: "local", opset_import: ["" : 21, "ai.onnx.ml" : 5]> Bin (a) => (b) {{ b = ai.onnx.ml.Binarizer <threshold: float = 0.5> (a) }}
""",
        "opset imports",
    ),
    (
        "function-domain-default",
        f"""<ir_version: 10, opset_import: ["" : 21]>
g (float[N] x) => (float[N] y) {{ y = Square(x) }}
<domain: "", opset_import: ["" : 21]> Square (a) => (b) {{ b = Mul(a, a) }}
""",
        None,
    ),
    (
        "value-info-in-body",
        f"""{HEADER}
g (float[N] x) => (float[N] y) {{ y = local.F(x) }}
{LOCAL} F (a) => (b) {{ t = Neg(a)  b = Abs(t) }}
""",
        None,
    ),
]
