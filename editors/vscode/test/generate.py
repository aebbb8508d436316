"""Writes the grammar tests model.onnxtxt and lit-test.onnxtext next to this script: source
lines, each followed by the assertion lines of vscode-tmgrammar-test, computed from (text,
occurrence, scope) so that every caret sits under its token. Run it after editing the cases,
then ../test.sh."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))

def assertions(line, marks, tok):
    out = []
    for text, nth, scope in marks:
        col = -1
        for _ in range(nth + 1):
            col = line.index(text, col + 1)
        n = len(text)
        if col < len(tok) + 1:
            out.append(f"{tok} <{'~' * col}{'-' * n} {scope}")
        else:
            out.append(f"{tok}{' ' * (col - len(tok))}{'^' * n} {scope}")
    return out

def write(path, tok, header, cases):
    lines = [f'{tok} SYNTAX TEST "source.onnxtxt" "{header}"']
    for line, marks in cases:
        lines.append(line)
        lines += assertions(line, marks, tok)
    open(os.path.join(HERE, path), "w").write("\n".join(lines) + "\n")

model = [
    ("<", [("<", 0, "punctuation.section.angle.begin.onnxtxt")]),
    ("   ir_version: 10,", [
        ("ir_version", 0, "support.type.property-name.header.onnxtxt"),
        (":", 0, "punctuation.separator.colon.onnxtxt"),
        ("10", 0, "constant.numeric.integer.onnxtxt"),
        (",", 0, "punctuation.separator.comma.onnxtxt")]),
    ('   opset_import: ["" : 21, "com.microsoft" : 1],', [
        ("opset_import", 0, "support.type.property-name.header.onnxtxt"),
        ('""', 0, "string.quoted.double.onnxtxt"),
        ('"com.microsoft"', 0, "string.quoted.double.onnxtxt"),
        ("1", 1, "constant.numeric.integer.onnxtxt")]),
    ('   doc_string: "a \\"quoted\\" # not a comment"', [
        ("doc_string", 0, "support.type.property-name.header.onnxtxt"),
        ('\\"', 0, "constant.character.escape.onnxtxt"),
        ("# not a comment", 0, "string.quoted.double.onnxtxt"),
        ("# not a comment", 0, "- comment")]),
    (">", [(">", 0, "punctuation.section.angle.end.onnxtxt")]),
    ("# A graph with every kind of token.", [("# A graph", 0, "comment.line.number-sign.onnxtxt")]),
    ("agraph (float[N, 128] X, float16[?] W, seq(int64) s) => (float[N, 10] C)", [
        ("agraph", 0, "entity.name.function.definition.onnxtxt"),
        ("float", 0, "storage.type.element.onnxtxt"),
        ("N", 0, "- storage.type"),
        ("128", 0, "constant.numeric.integer.onnxtxt"),
        ("float16", 0, "storage.type.element.onnxtxt"),
        ("?", 0, "constant.language.unknown-dimension.onnxtxt"),
        ("seq", 0, "storage.type.constructor.onnxtxt"),
        ("int64", 0, "storage.type.element.onnxtxt"),
        ("=>", 0, "keyword.operator.arrow.onnxtxt")]),
    ("   <float[2] w = {1.5, -2, 3e-4}, int64 k>", [
        ("<", 0, "punctuation.section.angle.begin.onnxtxt"),
        ("1.5", 0, "constant.numeric.float.onnxtxt"),
        ("-2", 0, "constant.numeric.integer.onnxtxt"),
        ("3e-4", 0, "constant.numeric.float.onnxtxt"),
        (">", 0, "punctuation.section.angle.end.onnxtxt")]),
    ("{", [("{", 0, "punctuation.section.braces.begin.onnxtxt")]),
    ("   [first] T = MatMul (X, W) // trailing, onnx-mlir style", [
        ("first", 0, "entity.name.label.onnxtxt"),
        ("T", 0, "- entity.other.attribute-name"),
        ("=", 0, "keyword.operator.assignment.onnxtxt"),
        ("MatMul", 0, "entity.name.function.operator.onnxtxt"),
        ("X", 0, "- entity.name.function"),
        ("// trailing, onnx-mlir style", 0, "comment.line.double-slash.onnxtxt")]),
    ("   S = com.microsoft.Gelu:v2 <alpha: float = 0.5, axes = [0, 1]> (T) # trailing", [
        ("com.microsoft.", 0, "entity.name.namespace.domain.onnxtxt"),
        ("Gelu", 0, "entity.name.function.operator.onnxtxt"),
        ("v2", 0, "entity.name.function.overload.onnxtxt"),
        ("alpha", 0, "entity.other.attribute-name.onnxtxt"),
        ("float", 0, "storage.type.attribute.onnxtxt"),
        ("0.5", 0, "constant.numeric.float.onnxtxt"),
        ("axes", 0, "entity.other.attribute-name.onnxtxt"),
        ("# trailing", 0, "comment.line.number-sign.onnxtxt")]),
    ('   C = If (c) <then_branch: graph = then_g () => (t) {', [
        ("If", 0, "entity.name.function.operator.onnxtxt"),
        ("then_branch", 0, "entity.other.attribute-name.onnxtxt"),
        ("graph", 0, "storage.type.attribute.onnxtxt"),
        ("then_g", 0, "entity.name.function.definition.onnxtxt"),
        ("then_g", 0, "- entity.name.function.operator"),
        ("=>", 0, "keyword.operator.arrow.onnxtxt"),
        ("=>", 0, "- punctuation.section.angle.end.onnxtxt")]),
    ("      t = Relu (S)", [
        ("t", 0, "- entity.other.attribute-name"),
        ("Relu", 0, "entity.name.function.operator.onnxtxt")]),
    ('   }, tp: type_proto = seq(float)>', [
        ("tp", 0, "entity.other.attribute-name.onnxtxt"),
        ("type_proto", 0, "storage.type.attribute.onnxtxt"),
        ("seq", 0, "storage.type.constructor.onnxtxt"),
        ("seq", 0, "- entity.name.function.operator"),
        (">", 0, "punctuation.section.angle.end.onnxtxt")]),
    ("}", [("}", 0, "punctuation.section.braces.end.onnxtxt")]),
    ("<domain: \"local\", opset_import: [\"\" : 21]>", [
        ("domain", 0, "support.type.property-name.header.onnxtxt")]),
    ("Scale <factor: float = 2> (x) => (y) {", [
        ("Scale", 0, "entity.name.function.definition.onnxtxt"),
        ("factor", 0, "entity.other.attribute-name.onnxtxt")]),
    ("   y = Mul <ref = @factor> (x, x)", [
        ("@", 0, "keyword.operator.reference.onnxtxt"),
        ("factor", 0, "variable.parameter.reference.onnxtxt"),
        ("ref", 0, "entity.other.attribute-name.onnxtxt")]),
    ("}", []),
]
write("model.onnxtxt", "#", "ONNX text: a model with every kind of token", model)

lit = [
    ("// RUN: onnx-mlir --EmitONNXBasic --printIR %s | FileCheck %s", []),
    ("<ir_version: 8, opset_import: [\"\" : 16]>", [
        ("ir_version", 0, "support.type.property-name.header.onnxtxt"),
        ("8", 0, "constant.numeric.integer.onnxtxt")]),
    ("test_add (float[2] x, float[2] y) => (float[2] z) {", [
        ("test_add", 0, "entity.name.function.definition.onnxtxt")]),
    ("   z = Add (x, y) // the sum", [
        ("Add", 0, "entity.name.function.operator.onnxtxt"),
        ("// the sum", 0, "comment.line.double-slash.onnxtxt")]),
    ("}", []),
    ("// CHECK-LABEL: func.func @main_graph", [
        ("// CHECK-LABEL: func.func @main_graph", 0, "comment.line.double-slash.onnxtxt"),
        ("@", 0, "- keyword.operator.reference")]),
]
write("lit-test.onnxtext", "//", "ONNX text: an onnx-mlir lit test", lit)
