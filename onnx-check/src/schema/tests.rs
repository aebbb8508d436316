// ---- the checks on small texts ----

use crate::{Category, Check, CheckOptions, CheckTree, Coverage, Diagnostic, Report};
use onnx_syntax::Tree;
use onnx_syntax::parse::Parser;

/// Which check fired, its message, and the text it points at.
fn show(text: &str, found: &[Diagnostic]) -> Vec<(Check, String, String)> {
    found
        .iter()
        .map(|d| {
            let at = text.get(d.span().range()).unwrap_or("<bad span>");
            (
                d.check().expect("a check"),
                d.message().to_owned(),
                at.to_owned(),
            )
        })
        .collect()
}

/// The report of every check but `missing_type`: these texts leave the main graph's outputs
/// untyped for brevity, and the rule has tests of its own (`check::tests`).
fn model_report(text: &str) -> Report {
    let tree = Parser::new(text).and_then(Parser::model).expect("parses");
    Tree::Model(tree).check(text, &CheckOptions::default().allow(Check::MissingType))
}

/// The problems of a model importing `opset` of the default domain, with graph `graph`.
fn at_opset(opset: u32, graph: &str) -> Vec<(Check, String, String)> {
    let text = format!("<opset_import: [\"\" : {opset}, \"ai.onnx.ml\" : 5]>\n{graph}");
    show(&text, &model_report(&text).diagnostics)
}

fn one(check: Check, message: &str, at: &str) -> Vec<(Check, String, String)> {
    vec![(check, message.to_owned(), at.to_owned())]
}

#[test]
fn a_misspelled_operator_gets_a_suggestion() {
    assert_eq!(
        at_opset(21, "g (float x) => (y) { y = Rleu(x) }"),
        one(
            Check::UnknownOperator,
            "`Rleu` is not an operator of ai.onnx; did you mean `Relu`?",
            "Rleu"
        )
    );
    assert_eq!(
        at_opset(21, "g (float x) => (y) { y = softmax(x) }"),
        one(
            Check::UnknownOperator,
            "`softmax` is not an operator of ai.onnx; did you mean `Softmax`?",
            "softmax"
        )
    );
    assert_eq!(
        at_opset(21, "g (float x) => (y) { y = Frobnicate(x) }"),
        one(
            Check::UnknownOperator,
            "`Frobnicate` is not an operator of ai.onnx",
            "Frobnicate"
        )
    );
    assert_eq!(
        at_opset(21, "g (float x) => (y) { y = ai.onnx.ml.Binarize(x) }"),
        one(
            Check::UnknownOperator,
            "`ai.onnx.ml.Binarize` is not an operator of ai.onnx.ml; did you mean `ai.onnx.ml.Binarizer`?",
            "ai.onnx.ml.Binarize"
        )
    );
}

#[test]
fn an_operator_of_another_standard_domain_is_named_with_it() {
    assert_eq!(
        at_opset(21, "g (string x) => (y) { y = LabelEncoder(x) }"),
        one(
            Check::UnknownOperator,
            "`LabelEncoder` is not an operator of ai.onnx, but of ai.onnx.ml: write `ai.onnx.ml.LabelEncoder`",
            "LabelEncoder"
        )
    );
    assert_eq!(
        at_opset(21, "g (float x) => (y) { y = ai.onnx.ml.Relu(x) }"),
        one(
            Check::UnknownOperator,
            "`ai.onnx.ml.Relu` is not an operator of ai.onnx.ml, but of ai.onnx: write `Relu`",
            "ai.onnx.ml.Relu"
        )
    );
}

#[test]
fn an_operator_newer_or_older_than_the_import_says_when() {
    assert_eq!(
        at_opset(13, "g (float x) => (y) { y = Gelu(x) }"),
        one(
            Check::UnknownOperator,
            "`Gelu` does not exist in ai.onnx opset 13, which the model imports: it was added in opset 20",
            "Gelu"
        )
    );
    assert_eq!(
        at_opset(13, "g (float x, float s) => (y) { y = Upsample(x, s) }"),
        one(
            Check::UnknownOperator,
            "`Upsample` was removed from ai.onnx in opset 10 (deprecated), and the model imports opset 13",
            "Upsample"
        )
    );
    assert_eq!(
        at_opset(
            19,
            "g (float x, float s, float b) => (y) { y = GroupNormalization <num_groups = 1> (x, s, b) }"
        ),
        one(
            Check::UnknownOperator,
            "`GroupNormalization` was removed from ai.onnx in opset 18 (deprecated), and the model \
             imports opset 19; a new version exists from opset 21",
            "GroupNormalization"
        )
    );
    // The version in effect is the newest at or below the import: Upsample-9 at opset 9.
    assert!(at_opset(9, "g (float x, float s) => (y) { y = Upsample(x, s) }").is_empty());
}

#[test]
fn the_last_import_of_a_domain_wins_and_ai_onnx_is_the_default_domain() {
    let reshape = "g (float[2] x) => (y) { y = Reshape <shape = [2]> (x) }";
    let text = format!("<opset_import: [\"\" : 13, \"\" : 4]> {reshape}");
    assert!(model_report(&text).diagnostics.is_empty());
    let text = format!("<opset_import: [\"ai.onnx\" : 4]> {reshape}");
    assert!(model_report(&text).diagnostics.is_empty());
    // An entry under the node's own name comes first, as in onnx's checker.
    let text = format!("<opset_import: [\"\" : 13, \"ai.onnx\" : 4]> {reshape}");
    let found = model_report(&text).diagnostics;
    assert!(
        found
            .iter()
            .any(|d| d.check() == Some(Check::UnknownAttribute))
    );
}

#[test]
fn input_and_output_counts_are_within_bounds() {
    assert_eq!(
        at_opset(21, "g (float x) => (y) { y = Add(x) }"),
        one(Check::OperatorArity, "`Add` takes 2 inputs, found 1", "Add")
    );
    assert_eq!(
        at_opset(21, "g (float x) => (y) { y = Relu(x, x, x) }"),
        one(
            Check::OperatorArity,
            "`Relu` takes 1 input, found 3",
            "x, x"
        )
    );
    assert_eq!(
        at_opset(21, "g (float x) => (y) { y = Clip(x, \"\", \"\", x) }"),
        one(
            Check::OperatorArity,
            "`Clip` takes 1 to 3 inputs, found 4",
            "x"
        )
    );
    assert_eq!(
        at_opset(21, "g (float x) => (y) { y = Concat <axis = 0> () }"),
        one(
            Check::OperatorArity,
            "`Concat` takes at least 1 input, found 0",
            "Concat"
        )
    );
    assert_eq!(
        at_opset(21, "g (float x) => (y) { y, z = Relu(x) }"),
        one(
            Check::OperatorArity,
            "`Relu` produces 1 output, found 2",
            "z"
        )
    );
    // Trailing optional operands may be `""` or left off; variadics take any number.
    assert!(at_opset(21, "g (float x, float m) => (y) { y = Clip(x, \"\", m) }").is_empty());
    assert!(at_opset(21, "g (float x) => (y) { y, \"\" = Dropout(x) }").is_empty());
    assert!(
        at_opset(
            21,
            "g (float x) => (y) { y = Concat <axis = 0> (x, x, x, x) }"
        )
        .is_empty()
    );
}

#[test]
fn an_empty_name_cannot_leave_out_a_required_operand() {
    assert_eq!(
        at_opset(21, "g (float x) => (y) { y = Add(x, \"\") }"),
        one(
            Check::OperatorArity,
            "input 1 of `Add` (`B`) is not optional: `\"\"` cannot leave it out",
            "\"\""
        )
    );
    assert_eq!(
        at_opset(21, "g (float x) => () { \"\" = Relu(x) }"),
        one(
            Check::OperatorArity,
            "output 0 of `Relu` (`Y`) is not optional: `\"\"` cannot leave it out",
            "\"\""
        )
    );
}

#[test]
fn attributes_are_known_required_and_of_their_type() {
    assert_eq!(
        at_opset(21, "g (float x) => (y) { y = Elu <alpah = 1.0> (x) }"),
        one(
            Check::UnknownAttribute,
            "`Elu` has no attribute `alpah` in ai.onnx opset 21; did you mean `alpha`?",
            "alpah"
        )
    );
    assert_eq!(
        at_opset(21, "g (float x) => (y) { y = Relu <alpha = 1.0> (x) }"),
        one(
            Check::UnknownAttribute,
            "`Relu` has no attribute `alpha` in ai.onnx opset 21; it has no attributes",
            "alpha"
        )
    );
    assert_eq!(
        at_opset(
            13,
            "g (float x, int64 s) => (y) { y = Reshape <shape = [2]> (x, s) }"
        ),
        one(
            Check::UnknownAttribute,
            "`Reshape` has no attribute `shape` in ai.onnx opset 13 (it was removed in opset 5); \
             it has no attributes",
            "shape"
        )
    );
    assert_eq!(
        at_opset(
            13,
            "g (float x, int64 s) => (y, z) { y, z = Split <num_outputs = 2> (x, s) }"
        ),
        one(
            Check::UnknownAttribute,
            "`Split` has no attribute `num_outputs` in ai.onnx opset 13 (it was added in opset 18)",
            "num_outputs"
        )
    );
    assert_eq!(
        at_opset(21, "g (float x) => (y) { y = Cast(x) }"),
        one(
            Check::MissingAttribute,
            "`Cast` requires attribute `to` (int)",
            "Cast"
        )
    );
    assert_eq!(
        at_opset(21, "g (float x) => (y) { y = Elu <alpha = 1> (x) }"),
        one(
            Check::AttributeType,
            "attribute `alpha` of `Elu` is a float, found an int: an integer literal is an int; write `alpha = 1.0` or `alpha: float = 1`",
            "1"
        )
    );
    assert_eq!(
        at_opset(21, "g (float x) => (y) { y = Cast <to = float> (x) }"),
        one(
            Check::AttributeType,
            "attribute `to` of `Cast` is an int, found a type_proto: a type is a type_proto; write the element type as its number, `to = 1`",
            "float"
        )
    );
    // The int-to-float rule of the syntax: an annotated int literal is a float.
    assert!(at_opset(21, "g (float x) => (y) { y = Elu <alpha: float = 1> (x) }").is_empty());
    // Names starting with `__` are implementation details, as in onnx's checker.
    assert!(at_opset(21, "g (float x) => (y) { y = Relu <__trace = 1> (x) }").is_empty());
}

#[test]
fn operand_types_meet_the_type_constraints() {
    let found = at_opset(21, "g (float x, int64 n) => (y) { y = Add(x, n) }");
    assert_eq!(
        found,
        one(
            Check::TypeConstraint,
            "input `n` of `Add` is tensor(int64), but `T` is already tensor(float) from input `x`",
            "n"
        )
    );
    assert_eq!(
        at_opset(21, "g (string s) => (y) { y = Sqrt(s) }"),
        one(
            Check::TypeConstraint,
            "input `s` of `Sqrt` is tensor(string), which `T` does not allow: it allows \
             tensor(float16), tensor(float), tensor(double), tensor(bfloat16)",
            "s"
        )
    );
    assert_eq!(
        at_opset(21, "g (float x) => (int64 y) { y = Relu(x) }"),
        one(
            Check::TypeConstraint,
            "output `y` of `Relu` is tensor(int64), but `T` is already tensor(float) from input `x`",
            "y"
        )
    );
    // A parameter that allows one type, and a formal of a fixed type.
    assert_eq!(
        at_opset(21, "g (float x) => (float y) { y = Shape(x) }"),
        one(
            Check::TypeConstraint,
            "output `y` of `Shape` is tensor(float), which `T1` does not allow: it allows tensor(int64)",
            "y"
        )
    );
}

#[test]
fn types_flow_through_nodes_and_into_subgraphs() {
    let text = r#"<opset_import: ["" : 21]>
g (float[N] x, bool b) => (y) {
  s = Shape(x)
  c = Constant <value = int64[1] {2}> ()
  k = Cast <to = 1> (c)
  ok = Add(x, k)
  y = If (b) <
    then_branch = t () => (z) { z = Add(s, x) },
    else_branch = e () => (z) { z = Identity(ok) }
  >
}"#;
    let report = model_report(text);
    let found = show(text, &report.diagnostics);
    assert_eq!(
        found,
        one(
            Check::TypeConstraint,
            "input `x` of `Add` is tensor(float), but `T` is already tensor(int64) from input `s`",
            "x"
        )
    );
    let labels: Vec<&str> = report.diagnostics[0]
        .labels()
        .iter()
        .map(|l| l.message.as_str())
        .collect();
    assert_eq!(labels, ["`T` is tensor(int64) here", "declared here"]);
    // Shape, Constant (no inputs), Cast, Add, If, and the Add and Identity of the branches.
    assert_eq!(
        report.coverage,
        Coverage {
            schema_nodes: 7,
            typed: 6,
            partially_typed: 0,
            untyped: 0,
            without_inputs: 1,
            unchecked_nodes: 0,
        }
    );
}

#[test]
fn a_type_inferred_from_a_node_is_labelled_so() {
    let text = "<opset_import: [\"\" : 21]> g (float x) => (y) { s = Shape(x)  y = Sqrt(s) }";
    let report = model_report(text);
    let labels: Vec<(&str, &str)> = report.diagnostics[0]
        .labels()
        .iter()
        .map(|l| (&text[l.span.range()], l.message.as_str()))
        .collect();
    assert_eq!(labels, [("Shape", "tensor(int64) inferred from this node")]);
}

#[test]
fn heterogeneous_variadics_bind_no_type() {
    let text = r#"<opset_import: ["" : 21]>
g (int64 n, bool c, float a, int64 b) => (fa, fb) {
  fa, fb = Loop (n, c, a, b) <body = body (int64 i, bool ci, float ai, int64 bi) => (bool co, float ao, int64 bo) {
    co = Identity(ci)
    ao = Identity(ai)
    bo = Identity(bi)
  }>
}"#;
    assert!(model_report(text).diagnostics.is_empty());
}

#[test]
fn function_bodies_use_their_own_imports_and_refs_are_not_guessed() {
    let text = r#"<opset_import: ["" : 21, "f" : 1]>
g (float x) => (y) { y = f.F <alpha = 2.0> (x) }
<domain: "f", opset_import: ["" : 13]>
F <alpha> (x) => (y) {
  a = Elu <alpha = @alpha> (x)
  b = Elu <alpha: int = @alpha> (a)
  y = Gelu(b)
}"#;
    let found = show(text, &model_report(text).diagnostics);
    assert_eq!(
        found,
        [
            (
                Check::AttributeType,
                "attribute `alpha` of `Elu` is a float, found an int".to_owned(),
                "@alpha".to_owned()
            ),
            (
                Check::UnknownOperator,
                "`Gelu` does not exist in ai.onnx opset 13, which function `F` imports: it was added in opset 20"
                    .to_owned(),
                "Gelu".to_owned()
            ),
        ]
    );
    assert_eq!(text.matches("alpha: int").count(), 1);
}

#[test]
fn calls_of_local_functions_match_the_signature() {
    let text = r#"<opset_import: ["" : 21, "f" : 1]>
g (float x) => (y) {
  a = f.F <scale = 2.0, biass = 1.0> (x, x)
  b = f.F <scale = 2> (x)
  y, z = f.F <scale = 1.0> (b)
}
<domain: "f", opset_import: ["" : 21]>
F <scale: float, bias: float = 0.0> (x) => (y) { y = Identity(x) }"#;
    let found = show(text, &model_report(text).diagnostics);
    let expected: Vec<(Check, String, String)> = [
        (
            "function `f.F` has no attribute `biass`; did you mean `bias`?",
            "biass",
        ),
        ("function `f.F` declares 1 input, found 2", "x"),
        (
            "attribute `scale` of function `f.F` is declared float, found int",
            "2",
        ),
        ("function `f.F` declares 1 output, found 2", "z"),
    ]
    .into_iter()
    .map(|(message, at)| (Check::FunctionSignature, message.to_owned(), at.to_owned()))
    .collect();
    assert_eq!(found, expected);
    let text = r#"<opset_import: ["" : 21, "f" : 1]>
g (float x) => (y) { y = f.F (x) }
<domain: "f", opset_import: ["" : 21]>
F <scale, shift: float> (x) => (y) { y = Identity(x) }"#;
    assert_eq!(
        show(text, &model_report(text).diagnostics),
        one(
            Check::FunctionSignature,
            "function `f.F` requires attributes `scale`, `shift`, which have no default",
            "f.F"
        )
    );
}

#[test]
fn custom_domains_and_texts_without_imports_are_not_checked() {
    let text = "<opset_import: [\"\" : 21, \"com.x\" : 1]> g (float x) => (y) { y = com.x.Rleu <q = 1> (x) }";
    assert!(model_report(text).diagnostics.is_empty());
    let text = "g (float x) => (y) { y = Rleu(x) }";
    let tree = Parser::new(text).and_then(Parser::graph).expect("parses");
    assert!(
        Tree::Graph(tree)
            .check(text, &CheckOptions::default())
            .diagnostics
            .is_empty()
    );
    let text = "y = Relu <alpha = 1> (x, x)";
    let tree = Parser::new(text).and_then(Parser::node).expect("parses");
    assert!(
        Tree::Node(tree)
            .check(text, &CheckOptions::default())
            .diagnostics
            .is_empty()
    );
    // An undeclared domain is reported once, by `undeclared_domain`, not again here.
    let text = "<opset_import: [\"\" : 21]> g (float x) => (y) { y = ai.onnx.ml.Rleu(x) }";
    let found = model_report(text).diagnostics;
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].check(), Some(Check::UndeclaredDomain));
}

#[test]
fn the_schema_checks_switch_off_alone() {
    let text = r#"<opset_import: ["" : 21]>
g (float x, int64 n) => (y) { a = Rleu(x)  b = Add(x)  c = Cast(x)  d = Elu <alpha = 1, beta = 2.0> (x)  y = Add(x, n) }"#;
    let tree = Parser::new(text).and_then(Parser::model).expect("parses");
    for check in Category::Schema.checks() {
        let without = Tree::Model(tree.clone())
            .check(text, &CheckOptions::default().allow(check))
            .diagnostics;
        assert!(without.iter().all(|d| d.check() != Some(check)), "{check}");
    }
    // The outputs are untyped for brevity: `missing_type` is not a schema check.
    let none = Category::Schema
        .checks()
        .fold(CheckOptions::default().allow(Check::MissingType), |o, c| {
            o.allow(c)
        });
    let report = Tree::Model(tree.clone()).check(text, &none);
    assert!(report.diagnostics.is_empty());
    assert_eq!(report.coverage, Coverage::default());
}

/// An `attribute_type` error sits on the offending value, with a label on the attribute's name
/// (as rustc's E0308 puts a mismatch on the expression and the reason beside it).
#[test]
fn attribute_type_errors_sit_on_the_value_with_a_label_on_the_name() {
    let text = r#"<opset_import: ["" : 21]> g (float x) => (y) { y = Elu <alpha = 1> (x) }"#;
    let found = model_report(text).diagnostics;
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].check(), Some(Check::AttributeType));
    assert_eq!(&text[found[0].span().range()], "1");
    let labels: Vec<(&str, &str)> = found[0]
        .labels()
        .iter()
        .map(|l| (&text[l.span.range()], l.message.as_str()))
        .collect();
    assert_eq!(
        labels,
        [("alpha", "expected a float due to this attribute")]
    );

    let list =
        r#"<opset_import: ["" : 21]> g (float x) => (y) { y = Transpose <perm = [1.0, 0.5]> (x) }"#;
    let found = model_report(list).diagnostics;
    assert_eq!(&list[found[0].span().range()], "[1.0, 0.5]");
}
