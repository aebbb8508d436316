#!/usr/bin/env python3
"""Writes tests/token_mode_holes.rs: the token-mode corpus literals with values turned into holes.

Every corpus text that tests/token_mode.rs writes as a macro literal is rewritten with Rust values
in place of what it writes: dims (`float[#(3_i64), #("N")]`), header integers and strings, opset
versions, node attribute values and list elements, and tensor data of the element types that
holes take. Each rewritten literal must expand to the same golden bytes as the text. A value is
left as written where the rewrite could change its meaning: string escapes (Rust's and ONNX's
differ), `inf` and `nan`, values out of the Rust type's range, element types that holes do not
take (16- and 8-bit floats, complex, 4- and 2-bit), annotated attributes, and attribute lists
whose place is ambiguous to this scanner (after a node's inputs). The literals stay
`#![unchecked]`, as in tests/token_mode.rs, so attribute holes take their Rust type. At most
MAX_HOLES values of a literal become holes.

Needs no onnx: it reads tests/corpus through scripts/gen_token_mode.py's selection.

Run: python3 scripts/gen_token_mode_holes.py
"""
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import gen_token_mode  # noqa: E402

ROOT = gen_token_mode.ROOT
OUT = ROOT / "tests" / "token_mode_holes.rs"

TOKEN = re.compile(
    r"""(?P<space>\s+)
      | (?P<string>"(?:[^"\\]|\\.)*")
      | (?P<number>-?(?:\d+\.?\d*(?:[eE][+-]?\d+)?))
      | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
      | (?P<punct>.)""",
    re.VERBOSE | re.DOTALL,
)

# Element types whose data holes take, with the Rust suffix and the range of integers.
INTEGERS = {
    "int8": ("i8", -(2**7), 2**7 - 1),
    "int16": ("i16", -(2**15), 2**15 - 1),
    "int32": ("i32", -(2**31), 2**31 - 1),
    "int64": ("i64", -(2**63), 2**63 - 1),
    "uint8": ("u8", 0, 2**8 - 1),
    "uint16": ("u16", 0, 2**16 - 1),
    "uint32": ("u32", 0, 2**32 - 1),
    "uint64": ("u64", 0, 2**64 - 1),
}
FLOATS = {"float": "f32", "double": "f64"}
TYPES = set(INTEGERS) | set(FLOATS) | {
    "bool", "string", "float16", "bfloat16", "complex64", "complex128", "float8e4m3fn",
    "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "uint4", "int4", "float4e2m1",
    "float8e8m0", "uint2", "int2", "float6e2m3", "float6e3m2",
}
F32_MAX = 3.4028234663852886e38
# Holes per literal: the first ones in text order. A few corpus models hold thousands of values,
# whose holes would make this test slow to build without testing anything new.
MAX_HOLES = 64


def tokens(text):
    """(kind, text) pairs covering `text`; a `-` directly before a number is part of it."""
    out = []
    for m in TOKEN.finditer(text):
        out.append((m.lastgroup, m.group()))
    return out


def is_int(word):
    return re.fullmatch(r"-?\d+", word) is not None


def rust_float(word, suffix):
    """A Rust float literal with the same decimal value as the ONNX literal `word`, or None."""
    m = re.fullmatch(r"(-?\d+)(\.\d*)?([eE][+-]?\d+)?", word)
    if not m or (suffix == "f32" and abs(float(word)) > F32_MAX):
        return None
    whole, fraction, exponent = m.group(1), m.group(2) or "", m.group(3) or ""
    if fraction == ".":
        fraction = ".0"
    return f"{whole}{fraction}{exponent}_{suffix}"


def integer_hole(word, suffix, low, high):
    if not is_int(word) or not low <= int(word) <= high:
        return None
    return f"#({int(word)}_{suffix})"


def string_hole(word):
    return None if "\\" in word else f"#({word})"


def data_hole(word, dtype):
    if dtype in INTEGERS:
        return integer_hole(word, *INTEGERS[dtype])
    if dtype in FLOATS:
        literal = rust_float(word, FLOATS[dtype])
        return f"#({literal})" if literal else None
    if dtype == "bool" and word in ("0", "1"):
        return "#(true)" if word == "1" else "#(false)"
    return None


def attribute_hole(word, as_float):
    if word.startswith('"'):
        return string_hole(word)
    if as_float:
        literal = rust_float(word, "f32")
        return f"#({literal})" if literal else None
    return integer_hole(word, "i64", -(2**63), 2**63 - 1)


def rewrite(text):
    """The text with values turned into holes, and how many."""
    toks = tokens(text)
    sig = [i for i, (kind, _) in enumerate(toks) if kind != "space"]
    out = [t for _, t in toks]
    holes = 0

    def prev(k, n=1):
        """The significant token `n` before significant position `k`."""
        return toks[sig[k - n]][1] if k - n >= 0 else ""

    def put(index, hole):
        nonlocal holes
        if hole and holes < MAX_HOLES:
            out[index] = hole
            holes += 1

    last_type = None
    stack = []  # open brackets: (char, role)
    k = 0
    while k < len(sig):
        i = sig[k]
        kind, word = toks[i]
        role = stack[-1][1] if stack else None
        if kind == "ident" and word in TYPES:
            last_type = word
        if word in "([{<" and kind == "punct":
            if word == "[" and prev(k) in TYPES:
                new_role = "dims"
            elif (word == "[" and role == "attrs" and prev(k) == "="
                  and toks[sig[k - 2]][0] == "ident" and prev(k, 3) in ("<", ",")):
                new_role = "list"
            elif word == "[" and prev(k) == ":" and prev(k, 2) == "opset_import":
                new_role = "opsets"
            elif word == "{" and (prev(k) in ("=", "]") or toks[sig[k - 1]][0] == "ident"):
                new_role = "data"
            elif word == "<" and k == 0:
                new_role = "header"
            elif word == "<" and toks[sig[k - 1]][0] == "ident" and prev(k, 2) in ("=", "."):
                new_role = "attrs"
            else:
                new_role = None
            stack.append((word, new_role))
            k += 1
            continue
        if kind == "punct" and word in ")]}>" and stack:
            # `>` closes only an angle list (`=>` is an arrow).
            if word != ">" or stack[-1][0] == "<":
                stack.pop()
            k += 1
            continue
        if role == "dims":
            if kind == "number":
                put(i, integer_hole(word, "i64", -(2**63), 2**63 - 1))
            elif kind == "ident" and word not in TYPES:
                put(i, f'#("{word}")')
        elif role == "data" and kind in ("number", "ident"):
            put(i, data_hole(word, last_type))
        elif role == "header" and prev(k) == ":" and prev(k, 2) in ("ir_version", "model_version"):
            put(i, integer_hole(word, "i64", -(2**63), 2**63 - 1) if kind == "number" else None)
        elif role == "header" and prev(k) == ":" and prev(k, 2) in (
            "producer_name", "producer_version", "domain", "doc_string"
        ) and kind == "string":
            put(i, string_hole(word))
        elif role == "opsets" and kind == "number" and prev(k) == ":":
            put(i, integer_hole(word, "i64", -(2**63), 2**63 - 1))
        elif role == "attrs" and prev(k) == "=" and prev(k, 3) != ":" and kind in ("number", "string"):
            nxt = toks[sig[k + 1]][1] if k + 1 < len(sig) else ""
            if nxt in (",", ">"):
                put(i, attribute_hole(word, kind == "number" and not is_int(word)))
        elif role == "list" and kind in ("number", "string"):
            # The first element decides the list's type; holes all take that type.
            first = k
            while prev(first) != "[":
                first -= 1
            first_word = toks[sig[first]][1]
            if first_word == "-":
                first_word = toks[sig[first + 1]][1]
            if prev(first, 2) == "=" and prev(first, 4) != ":":
                # `inf`, `nan` and float literals make a float list; integers an int list.
                as_float = not is_int(first_word)
                put(i, attribute_hole(word, as_float))
        k += 1
    return "".join(out), holes


def main():
    cases, skipped = gen_token_mode.lexable_cases()
    rewritten = []
    for name, entry, text in cases:
        new_text, holes = rewrite(text)
        if holes:
            rewritten.append((name, entry, new_text, holes))
    total = sum(h for *_, h in rewritten)
    out = [
        "// @generated by scripts/gen_token_mode_holes.py from tests/corpus; do not edit.",
        "//! Token mode with holes: the token-mode corpus literals with their dims, header values,",
        "//! attribute values and tensor data turned into Rust values expand to the reference's",
        "//! golden bytes, as the texts do.",
        "",
        "// The literals keep the corpus texts' own layout, which rustfmt must not touch.",
        "#[rustfmt::skip]",
        "#[allow(clippy::all)]",
        "mod cases {",
        "use onnx_text::prost::Message;",
        "",
        "type Case = (&'static str, fn() -> Vec<u8>, &'static [u8]);",
        "",
    ]
    for k, (name, entry, text, _) in enumerate(rewritten):
        macro = gen_token_mode.MACROS[entry]
        out.append(f"pub fn case_{k}() -> Vec<u8> {{ onnx_text::{macro}! {{ #![unchecked]\n{text}\n}}.encode_to_vec() }}")
    out.append("")
    out.append("pub const CASES: &[Case] = &[")
    for k, (name, *_rest) in enumerate(rewritten):
        out.append(f'    ("{name}", case_{k}, include_bytes!("corpus/{name}.pb")),')
    out.append("];")
    out.append(f"pub const HOLES: usize = {total};")
    out.append(
        """
#[test]
fn token_mode_with_holes_matches_the_golden_bytes() {
    let failed: Vec<&str> = CASES.iter().filter(|(_, build, golden)| build() != *golden).map(|c| c.0).collect();
    println!("token mode with holes: {} of {} corpus literals ({HOLES} holes) give the golden bytes", CASES.len() - failed.len(), CASES.len());
    assert!(failed.is_empty(), "holes give other bytes than the text for {failed:?}");
}
}"""
    )
    OUT.write_text("\n".join(out) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}: {len(rewritten)} of {len(cases)} literals, {total} holes")


if __name__ == "__main__":
    main()
