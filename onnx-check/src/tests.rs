//! Unit tests of every check: what it catches (message and span) and what it lets through.

use super::*;
use onnx_syntax::Span;
use onnx_syntax::Tree;
use onnx_syntax::hash::HashSet;
use onnx_syntax::parse::Parser;
use onnx_syntax::syntax::{AttrValue, Function, Graph, Model, Node, TensorData, TensorValues};

// The checks of one form, through the one dispatch (`Tree::check`) that every caller uses.

fn model(tree: &Model, text: &str, options: &CheckOptions) -> Vec<Diagnostic> {
    Tree::Model(tree.clone()).check(text, options).diagnostics
}

fn graph(tree: &Graph, text: &str, options: &CheckOptions) -> Vec<Diagnostic> {
    Tree::Graph(tree.clone()).check(text, options).diagnostics
}

fn function(tree: &Function, text: &str, options: &CheckOptions) -> Vec<Diagnostic> {
    Tree::Function(tree.clone())
        .check(text, options)
        .diagnostics
}

fn functions(tree: &[Function], text: &str, options: &CheckOptions) -> Vec<Diagnostic> {
    Tree::Functions(tree.to_vec())
        .check(text, options)
        .diagnostics
}

fn node(tree: &Node, text: &str, options: &CheckOptions) -> Vec<Diagnostic> {
    Tree::Node(tree.clone()).check(text, options).diagnostics
}

fn nodes(tree: &[Node], text: &str, options: &CheckOptions) -> Vec<Diagnostic> {
    Tree::Nodes(tree.to_vec()).check(text, options).diagnostics
}

/// What a diagnostic says and the text it points at.
type Found<'a> = (Option<Check>, String, &'a str);

fn show<'a>(text: &'a str, found: &[Diagnostic]) -> Vec<Found<'a>> {
    found
        .iter()
        .map(|d| {
            (
                d.check(),
                d.message().to_owned(),
                text.get(d.span().range()).unwrap_or("<bad span>"),
            )
        })
        .collect()
}

/// Every check but `missing_type` on a model: these texts leave the main graph's outputs
/// untyped for brevity; the rule has tests of its own (below, `missing_type`).
fn on_model(text: &str) -> Vec<Diagnostic> {
    model(
        &Parser::new(text).and_then(Parser::model).unwrap(),
        text,
        &CheckOptions::default().allow(Check::MissingType),
    )
}

fn on_graph(text: &str) -> Vec<Diagnostic> {
    graph(
        &Parser::new(text).and_then(Parser::graph).unwrap(),
        text,
        &CheckOptions::default(),
    )
}

fn on_function(text: &str) -> Vec<Diagnostic> {
    function(
        &Parser::new(text).and_then(Parser::function).unwrap(),
        text,
        &CheckOptions::default(),
    )
}

fn on_functions(text: &str) -> Vec<Diagnostic> {
    functions(
        &Parser::new(text).and_then(Parser::functions).unwrap(),
        text,
        &CheckOptions::default(),
    )
}

fn on_node(text: &str) -> Vec<Diagnostic> {
    node(
        &Parser::new(text).and_then(Parser::node).unwrap(),
        text,
        &CheckOptions::default(),
    )
}

fn on_nodes(text: &str) -> Vec<Diagnostic> {
    nodes(
        &Parser::new(text).and_then(Parser::nodes).unwrap(),
        text,
        &CheckOptions::default(),
    )
}

/// The span of the `nth` (0-based) occurrence of `needle` in `text`.
fn nth(text: &str, needle: &str, nth: usize) -> Span {
    let start = text
        .match_indices(needle)
        .nth(nth)
        .unwrap_or_else(|| panic!("no occurrence {nth} of {needle:?}"))
        .0;
    Span::new(start as u32, (start + needle.len()) as u32)
}

const HEADER: &str = r#"<opset_import: ["" : 21]>"#;

fn with_header(graph: &str) -> String {
    format!("{HEADER}\n{graph}")
}

// ---- duplicate_definition ----

#[test]
fn a_value_defined_by_two_nodes_is_reported_at_the_second_with_the_first_labelled() {
    let text = "g (x) => (y) {\n  t = Abs(x)\n  t = Neg(x)\n  y = Relu(t)\n}";
    let found = on_graph(text);
    assert_eq!(
        show(text, &found),
        [(
            Some(Check::DuplicateDefinition),
            "`t` is already defined at line 2".to_owned(),
            "t"
        )]
    );
    assert_eq!(found[0].span(), nth(text, "t", 1));
    assert_eq!(found[0].labels()[0].span, nth(text, "t", 0));
    assert_eq!(found[0].labels()[0].message, "first defined here");
}

#[test]
fn node_outputs_may_not_redefine_inputs_initializers_or_their_own_outputs() {
    let text = "g (x) => (y) <float[1] w = {1}> { x = Abs(w)  w = Neg(x)  a, a = Split(x)  y = Add(a, w) }";
    let found = show(text, &on_graph(text));
    assert_eq!(
        found,
        [
            (
                Some(Check::DuplicateDefinition),
                "`x` is already defined at line 1".to_owned(),
                "x"
            ),
            (
                Some(Check::DuplicateDefinition),
                "`w` is already defined at line 1".to_owned(),
                "w"
            ),
            (
                Some(Check::DuplicateDefinition),
                "`a` is already defined at line 1".to_owned(),
                "a"
            ),
        ]
    );
}

#[test]
fn a_subgraph_node_may_not_redefine_a_visible_outer_value_but_a_subgraph_input_may_shadow() {
    let text = "g (x, c) => (y) { t = Abs(x)  y = If (c) <then_branch = a () => (r) { t = Neg(x)  r = Abs(t) }, else_branch = b (t) => (t) { }> }";
    let found = on_graph(text);
    assert_eq!(
        show(text, &found),
        [(
            Some(Check::DuplicateDefinition),
            "`t` is already defined in an enclosing graph at line 1".to_owned(),
            "t"
        )]
    );
    assert_eq!(found[0].span(), nth(text, "t", 2));
    assert_eq!(found[0].labels()[0].span, nth(text, "t", 0));
}

#[test]
fn empty_outputs_are_not_definitions() {
    let text = r#"g (x) => (y) { "", y, "" = Split(x)  ,z = Split(x) }"#;
    assert!(on_graph(text).is_empty());
}

// ---- use_before_definition ----

#[test]
fn a_use_before_the_defining_node_is_reported_with_the_definition_labelled() {
    let text = "g (x) => (y) {\n  y = Relu(t)\n  t = Abs(x)\n}";
    let found = on_graph(text);
    assert_eq!(
        show(text, &found),
        [(
            Some(Check::UseBeforeDefinition),
            "value `t` is used before its definition at line 3".to_owned(),
            "t"
        )]
    );
    assert_eq!(found[0].labels()[0].span, nth(text, "t", 1));
    assert_eq!(found[0].labels()[0].message, "defined here");
}

#[test]
fn a_subgraph_sees_outer_values_defined_before_its_node_only() {
    let before = "g (x, c) => (y) { t = Abs(x)  y = If (c) <then_branch = a () => (r) { r = Neg(t) }, else_branch = b () => (t) { }> }";
    assert!(on_graph(before).is_empty());
    let after = "g (x, c) => (y) { y = If (c) <then_branch = a () => (r) { r = Neg(t) }, else_branch = b () => (x) { }>  t = Abs(x) }";
    assert_eq!(
        show(after, &on_graph(after)),
        [(
            Some(Check::UseBeforeDefinition),
            "value `t` is used before its definition at line 1".to_owned(),
            "t"
        )]
    );
}

#[test]
fn a_node_cannot_consume_its_own_output() {
    let text = "x = Add(x, y)";
    assert_eq!(
        show(text, &on_node(text)),
        [(
            Some(Check::UseBeforeDefinition),
            "value `x` is used before its definition at line 1".to_owned(),
            "x"
        )]
    );
}

// ---- undefined_value ----

#[test]
fn every_use_of_an_undefined_value_is_reported() {
    let text = "g (x) => (y) { t = Add(x, q)  y = Mul(t, q) }";
    let found = on_graph(text);
    assert_eq!(
        show(text, &found),
        [
            (
                Some(Check::UndefinedValue),
                "value `q` is used but never defined".to_owned(),
                "q"
            ),
            (
                Some(Check::UndefinedValue),
                "value `q` is used but never defined".to_owned(),
                "q"
            ),
        ]
    );
    assert_eq!(found[1].span(), nth(text, "q", 1));
}

#[test]
fn an_undefined_value_gets_the_closest_visible_name_as_a_suggestion() {
    let text = "g (conv1_bn, x) => (y) { t = Relu(conv1_bx) u = Abs(later_v) later_w = Abs(x) y = Add(t, q) }";
    let found = show(text, &on_graph(text));
    let messages: Vec<&str> = found.iter().map(|f| f.1.as_str()).collect();
    assert_eq!(
        messages,
        [
            "value `conv1_bx` is used but never defined; did you mean `conv1_bn`?",
            // Defined only after the use: not in scope there, so no suggestion.
            "value `later_v` is used but never defined",
            // A single letter shares nothing with `x`, `t` or `u`.
            "value `q` is used but never defined",
        ]
    );
    // Enclosing scopes are searched too.
    let nested = "g (weight) => (y) { y = If (c) <then_branch = t () => (r) { r = Abs(wieght) }, else_branch = e () => (s) { s = Abs(weight) }> }";
    let found = on_graph(nested);
    assert!(
        found
            .iter()
            .any(|d| d.message()
                == "value `wieght` is used but never defined; did you mean `weight`?"),
        "{found:?}"
    );
}

#[test]
fn subgraphs_in_lists_of_graphs_see_the_enclosing_scopes() {
    let text = "g (x) => (y) { y = Foo <gs = [a () => (r) { r = Abs(x) }, b () => (s) { s = Abs(z) }]> () }";
    assert_eq!(
        show(text, &on_graph(text)),
        [(
            Some(Check::UndefinedValue),
            "value `z` is used but never defined".to_owned(),
            "z"
        )]
    );
}

#[test]
fn values_of_a_subgraph_do_not_leak_into_the_enclosing_graph() {
    let text = "g (c) => (y) { y = If (c) <then_branch = a () => (r) { r = Abs(c) }, else_branch = b () => (c) { }>  z = Abs(r) }";
    assert_eq!(
        show(text, &on_graph(text)),
        [(
            Some(Check::UndefinedValue),
            "value `r` is used but never defined".to_owned(),
            "r"
        )]
    );
}

#[test]
fn empty_inputs_are_missing_optional_operands() {
    let text = r#"g (x) => (y) { y = Clip(x, "", "")  z = Clip(x, , ) }"#;
    assert!(on_graph(text).is_empty());
}

#[test]
fn a_function_body_sees_its_inputs_and_nothing_else() {
    assert!(on_function("F (x, y) => (z) { z = Add(x, y) }").is_empty());
    let text = "F (x) => (z) { z = Add(x, y) }";
    assert_eq!(
        show(text, &on_function(text)),
        [(
            Some(Check::UndefinedValue),
            "value `y` is used but never defined".to_owned(),
            "y"
        )]
    );
}

#[test]
fn node_lists_treat_undefined_names_as_inputs_of_the_context() {
    assert!(on_nodes("t = Abs(x)  y = If (t) <g = a () => (r) { r = Abs(w) }>").is_empty());
    assert!(on_node("y = Add(x, z)").is_empty());
}

// ---- unproduced_output ----

#[test]
fn a_graph_output_that_nothing_defines_is_reported() {
    let text = "g (x) => (y, z) { y = Abs(x) }";
    assert_eq!(
        show(text, &on_graph(text)),
        [(
            Some(Check::UnproducedOutput),
            "graph output `z` is never produced: no input, initializer or node defines it"
                .to_owned(),
            "z"
        )]
    );
    let text = "F (x) => (y) { }";
    assert_eq!(
        show(text, &on_function(text)),
        [(
            Some(Check::UnproducedOutput),
            "function output `y` is never produced: no input or node defines it".to_owned(),
            "y"
        )]
    );
}

#[test]
fn outputs_may_be_inputs_initializers_or_outer_values() {
    assert!(on_graph("g (x) => (x, w) <float[1] w = {1}> { }").is_empty());
    let text = "g (x, c) => (y) { t = Abs(x)  y = If (c) <then_branch = a () => (t) { }, else_branch = b () => (x) { }> }";
    assert!(on_graph(text).is_empty());
}

// ---- duplicate_input ----

#[test]
fn inputs_and_initializers_named_twice_are_reported() {
    let text = "g (float x, float x) => (x) <float[1] w = {1}, float[1] w = {2}> { }";
    let found = on_graph(text);
    assert_eq!(
        show(text, &found),
        [
            (
                Some(Check::DuplicateInput),
                "graph input `x` is already declared at line 1".to_owned(),
                "x"
            ),
            (
                Some(Check::DuplicateInput),
                "initializer `w` is already declared at line 1".to_owned(),
                "w"
            ),
        ]
    );
    assert_eq!(found[0].span(), nth(text, "x", 1));
    assert_eq!(found[0].labels()[0].span, nth(text, "x", 0));
    let text = "F (a, a) => (b) { b = Abs(a) }";
    assert_eq!(
        show(text, &on_function(text)),
        [(
            Some(Check::DuplicateInput),
            "function input `a` is already declared at line 1".to_owned(),
            "a"
        )]
    );
}

#[test]
fn an_initializer_named_as_an_input_is_its_default_not_a_duplicate() {
    assert!(on_graph("g (float[1] w = {1}) => (w) { }").is_empty());
    assert!(on_graph("g (float[1] w) => (w) <float[1] w = {1}> { }").is_empty());
    let text = "g (float[1] w = {1}) => (w) <float[1] w = {2}> { }";
    assert_eq!(
        show(text, &on_graph(text)),
        [(
            Some(Check::DuplicateInput),
            "initializer `w` is already declared at line 1".to_owned(),
            "w"
        )]
    );
}

// ---- undeclared_domain ----

#[test]
fn a_domain_missing_from_the_model_imports_is_reported_once_with_a_count() {
    let text = with_header("g (x) => (y) { t = com.x.Foo(x)  u = com.x.Bar(t)  y = Relu(u) }");
    let found = on_model(&text);
    assert_eq!(
        show(&text, &found),
        [(
            Some(Check::UndeclaredDomain),
            "operator `com.x.Foo` is in domain \"com.x\", which the model does not import: its \
             opset_import has \"\" (1 more node uses it)"
                .to_owned(),
            "com.x.Foo"
        )]
    );
}

#[test]
fn a_model_without_imports_imports_nothing() {
    let text = "g (x) => (y) { y = Relu(x) }";
    assert_eq!(
        show(text, &on_model(text)),
        [(
            Some(Check::UndeclaredDomain),
            "operator `Relu` is in domain \"\", which the model does not import: its \
             opset_import is empty"
                .to_owned(),
            "Relu"
        )]
    );
}

#[test]
fn ai_onnx_and_the_empty_domain_are_the_same() {
    assert!(on_model(&with_header("g (x) => (y) { y = ai.onnx.Relu(x) }")).is_empty());
    let text = r#"<opset_import: ["ai.onnx" : 21]> g (x) => (y) { y = Relu(x) }"#;
    assert!(on_model(text).is_empty());
}

#[test]
fn subgraph_nodes_use_the_model_imports() {
    let text = with_header(
        "g (c) => (y) { y = If (c) <then_branch = a () => (r) { r = com.y.Foo(c) }, else_branch = b () => (c) { }> }",
    );
    let found = show(&text, &on_model(&text));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].2, "com.y.Foo");
}

#[test]
fn model_functions_use_their_own_imports_or_else_the_models() {
    let text = r#"<opset_import: ["" : 21, "com.m" : 1, "local" : 1]>
g (x) => (y) { y = local.F(x) }
<domain: "local", opset_import: ["" : 21]>
F (x) => (y) { t = com.m.Foo(x)  y = Abs(t) }
<domain: "local">
G (x) => (y) { t = com.m.Foo(x)  y = Abs(t) }"#;
    let found = on_model(text);
    assert_eq!(
        show(text, &found),
        [(
            Some(Check::UndeclaredDomain),
            "operator `com.m.Foo` is in domain \"com.m\", which function `F` does not import: \
             its opset_import has \"\""
                .to_owned(),
            "com.m.Foo"
        )]
    );
    assert_eq!(found[0].span(), nth(text, "com.m.Foo", 0));
}

#[test]
fn an_inheriting_function_says_so() {
    let text = r#"<opset_import: ["" : 21, "local" : 1]>
g (x) => (y) { y = local.F(x) }
<domain: "local">
F (x) => (y) { y = com.m.Foo(x) }"#;
    assert_eq!(
        on_model(text)[0].message(),
        "operator `com.m.Foo` is in domain \"com.m\", which the model (whose opset_import \
         function `F` inherits, having none) does not import: its opset_import has \"\", \"local\""
    );
}

#[test]
fn imports_are_not_checked_where_they_are_unknown() {
    assert!(on_graph("g (x) => (y) { y = com.x.Foo(x) }").is_empty());
    assert!(on_function("F (x) => (y) { y = com.x.Foo(x) }").is_empty());
    assert!(on_node("y = com.x.Foo(x)").is_empty());
    let text = r#"<opset_import: []> F (x) => (y) { y = Abs(x) }"#;
    assert_eq!(on_function(text).len(), 1);
}

// ---- unresolved_function ----

const LOCAL: &str = r#"<opset_import: ["" : 21, "local" : 1]>
g (x) => (y) { CALL }
<domain: "local", opset_import: ["" : 21]>
Square (x) => (y) { y = Mul(x, x) }
<domain: "local", overload: "v2", opset_import: ["" : 21]>
Cube (x) => (y) { t = Mul(x, x)  y = Mul(t, x) }"#;

fn local(call: &str) -> String {
    LOCAL.replace("CALL", call)
}

#[test]
fn calls_to_local_functions_resolve_by_name_and_overload() {
    assert!(on_model(&local("y = local.Square(x)")).is_empty());
    assert!(on_model(&local("y = local.Cube:v2(x)")).is_empty());
}

#[test]
fn a_call_to_no_local_function_is_reported() {
    let text = local("y = local.Sqaure(x)");
    assert_eq!(
        show(&text, &on_model(&text)),
        [(
            Some(Check::UnresolvedFunction),
            "no function `local.Sqaure` is defined in domain \"local\"; did you mean `Square`?"
                .to_owned(),
            "local.Sqaure"
        )]
    );
}

#[test]
fn a_call_with_the_wrong_or_no_overload_is_reported() {
    let text = local("y = local.Cube:v3(x)");
    assert_eq!(
        show(&text, &on_model(&text)),
        [(
            Some(Check::UnresolvedFunction),
            "function `local.Cube` has no overload `v3`; its overloads are `v2`".to_owned(),
            "local.Cube:v3"
        )]
    );
    let text = local("y = local.Cube(x)");
    assert_eq!(
        on_model(&text)[0].message(),
        "function `local.Cube` is defined only with overloads `v2`: name one, as in `local.Cube:v2`"
    );
    let text = local("y = local.Square:v2(x)");
    assert_eq!(
        on_model(&text)[0].message(),
        "function `local.Square` has no overload `v2`; its overloads are none"
    );
}

#[test]
fn standard_and_foreign_domains_are_not_resolved_against_local_functions() {
    let text = r#"<opset_import: ["" : 21, "com.ms" : 1]>
g (x) => (y) { t = com.ms.Gelu(x)  y = Relu(t) }
F (x) => (y) { y = Abs(x) }"#;
    assert!(on_model(text).is_empty());
}

#[test]
fn a_library_resolves_calls_against_its_own_functions() {
    let text = r#"<domain: "my"> F (x) => (y) { y = Abs(x) }
<domain: "my"> G (x) => (y) { y = my.H(x) }"#;
    assert_eq!(
        show(text, &on_functions(text)),
        [(
            Some(Check::UnresolvedFunction),
            "no function `my.H` is defined in domain \"my\"; the functions there are `F`, `G`"
                .to_owned(),
            "my.H"
        )]
    );
}

// ---- invalid_attribute_ref ----

#[test]
fn a_reference_outside_a_function_is_reported_with_its_at_sign() {
    let text = with_header("g (x) => (y) { y = Elu <alpha = @b> (x) }");
    let found = on_model(&text);
    assert_eq!(
        show(&text, &found),
        [(
            Some(Check::InvalidAttributeRef),
            "attribute reference `@b` outside a function body: only the nodes of a function can \
             refer to its attributes"
                .to_owned(),
            "@b"
        )]
    );
    let text = "g (x) => (y) { y = Foo <a: int = @b> (x) }";
    assert_eq!(show(text, &on_graph(text))[0].2, "@b");
}

#[test]
fn a_reference_must_name_an_attribute_of_its_function() {
    let ok = "F <a, b: int = 2> (x) => (y) { y = Foo <p = @a, q = @b> (x) }";
    assert!(on_function(ok).is_empty());
    let text = "F <a, b: int = 2> (x) => (y) { y = Foo <p = @c> (x) }";
    assert_eq!(
        show(text, &on_function(text)),
        [(
            Some(Check::InvalidAttributeRef),
            "`@c` names no attribute of function `F`; its attributes are `a`, `b`".to_owned(),
            "@c"
        )]
    );
    let text = "F (x) => (y) { y = Foo <p = @c> (x) }";
    assert_eq!(
        on_function(text)[0].message(),
        "`@c` names no attribute of function `F`, which has no attributes"
    );
}

#[test]
fn references_in_subgraphs_of_a_function_body_are_checked_against_the_function() {
    let ok = "F <k> (x, c) => (y) { y = If (c) <then_branch = a () => (r) { r = Foo <p = @k> (x) }, else_branch = b () => (x) { }> }";
    assert!(on_function(ok).is_empty());
    let bad = ok.replace("@k", "@j");
    assert_eq!(on_function(&bad).len(), 1);
}

#[test]
fn a_default_value_cannot_be_a_reference() {
    let text = "F <a, b: int = @a> (x) => (y) { y = Abs(x) }";
    assert_eq!(
        show(text, &on_function(text)),
        [(
            Some(Check::InvalidAttributeRef),
            "the default value of a function attribute cannot be a reference, found `@a`"
                .to_owned(),
            "@a"
        )]
    );
}

#[test]
fn references_in_lone_nodes_are_not_checked() {
    assert!(on_node("y = Foo <a = @b> (x)").is_empty());
}

// ---- duplicate_attribute ----

#[test]
fn an_attribute_set_twice_on_a_node_is_reported() {
    let text = "y = Foo <axis = 1, keep = 0, axis = 2> (x)";
    let found = on_node(text);
    assert_eq!(
        show(text, &found),
        [(
            Some(Check::DuplicateAttribute),
            "attribute `axis` is already set on this node".to_owned(),
            "axis"
        )]
    );
    assert_eq!(found[0].span(), nth(text, "axis", 1));
    assert_eq!(found[0].labels()[0].span, nth(text, "axis", 0));
    assert_eq!(found[0].labels()[0].message, "first set here");
}

#[test]
fn long_attribute_lists_find_every_repeat() {
    let attributes: Vec<String> = (0..20).map(|i| format!("a{} = {i}", i % 7)).collect();
    let text = format!("y = Foo <{}> (x)", attributes.join(", "));
    let found = on_node(&text);
    assert_eq!(found.len(), 13);
    assert!(
        found
            .iter()
            .all(|d| d.check() == Some(Check::DuplicateAttribute))
    );
}

#[test]
fn a_function_declaring_an_attribute_twice_is_reported() {
    let text = "F <a, b, a: int = 1> (x) => (y) { y = Abs(x) }";
    assert_eq!(
        show(text, &on_function(text)),
        [(
            Some(Check::DuplicateAttribute),
            "attribute `a` is already declared by function `F`".to_owned(),
            "a"
        )]
    );
}

// ---- element_count_mismatch ----

#[test]
fn too_few_values_point_at_the_block_and_too_many_at_the_extra_values() {
    let text = "g () => (w, v) <float[2, 3] w = {1, 2, 3}, int64[2] v = {1, 2, 3, 4}> { }";
    assert_eq!(
        show(text, &on_graph(text)),
        [
            (
                Some(Check::ElementCountMismatch),
                "expected 6 values for `float[2, 3]`, found 3".to_owned(),
                "{1, 2, 3}"
            ),
            (
                Some(Check::ElementCountMismatch),
                "expected 2 values for `int64[2]`, found 4".to_owned(),
                "3, 4"
            ),
        ]
    );
}

#[test]
fn packed_and_complex_types_count_by_their_layout() {
    let ok = "y = Foo <a = int4[3] {33, 4}, b = uint2[5] {228, 1}, c = float4e2m1[2] {33}, d = complex64[2] {1, 2, 3, 4}, e = float[0] {}, f = string[2] {\"a\", \"b\"}> ()";
    assert!(on_node(ok).is_empty());
    let text = "y = Foo <a = int4[4] {1, 2, 3, 4}> ()";
    assert_eq!(
        show(text, &on_node(text)),
        [(
            Some(Check::ElementCountMismatch),
            "expected 2 values for `int4[4]` (two 4-bit elements per value), found 4".to_owned(),
            "3, 4"
        )]
    );
    let text = "y = Foo <a = complex128 {1}> ()";
    assert_eq!(
        show(text, &on_node(text)),
        [(
            Some(Check::ElementCountMismatch),
            "expected 2 values for the scalar `complex128` (real and imaginary parts \
             interleaved), found 1"
                .to_owned(),
            "{1}"
        )]
    );
}

#[test]
fn external_and_absent_data_are_exempt() {
    let text = r#"g () => (w, v) <float[1000] w = ["location": "w.bin"], float[3] v = > { }"#;
    assert!(on_graph(text).is_empty());
    assert!(on_node("y = Foo <t = float[3] t> ()").is_empty());
}

#[test]
fn negative_dims_point_at_the_type() {
    let text = "y = Foo <t = float[2, -1] {1}> ()";
    assert_eq!(
        show(text, &on_node(text)),
        [(
            Some(Check::NegativeDim),
            "the tensor has the negative dim -1 at axis 1: the IR makes a dim a size, 0 or \
             more; write an unknown size as a name or `?`"
                .to_owned(),
            "float[2, -1]"
        )]
    );
}

#[test]
fn negative_dims_of_declared_types_are_errors_wherever_written() {
    let why = "the IR makes a dim a size, 0 or more; write an unknown size as a name or `?`";
    let text = "g (float[2, -1] x) => (seq(float[-3]) y) <int64[-2] v> { y = Foo <t: type_proto = float[N, -4], g = b () => (float[-5] r) { r = Bar () }> (x) }";
    let found: Vec<_> = show(text, &on_graph(text))
        .into_iter()
        .filter(|f| f.0 == Some(Check::NegativeDim))
        .collect();
    let expected = [
        ("the type of `x` has the negative dim -1 at axis 1", "-1"),
        ("the type of `y` has the negative dim -3 at axis 0", "-3"),
        ("the type of `v` has the negative dim -2 at axis 0", "-2"),
        (
            "the attribute's type value has the negative dim -4 at axis 1",
            "-4",
        ),
        ("the type of `r` has the negative dim -5 at axis 0", "-5"),
    ];
    let expected: Vec<_> = (expected.iter())
        .map(|&(m, at)| (Some(Check::NegativeDim), format!("{m}: {why}"), at))
        .collect();
    assert_eq!(found, expected);
    let function = "F (float[-1] x) => (y) { y = Abs(x) }";
    assert_eq!(show(function, &on_function(function))[0].2, "-1");
    assert!(on_graph("g (float[0, N, ?] x) => (y) { y = Abs(x) }").is_empty());
}

#[test]
fn tensors_in_lists_and_subgraphs_and_defaults_are_counted() {
    let text = "F <d: tensor = float[2] {1}> (x) => (y) { y = Foo <ts = [float[1] {1, 2}], g = a () => (r) { r = Constant <value = int8[2] {1}> () }> (x) }";
    let found = on_function(text);
    assert_eq!(found.len(), 3);
    assert!(
        found
            .iter()
            .all(|d| d.check() == Some(Check::ElementCountMismatch))
    );
}

// ---- literal_out_of_range ----

#[test]
fn each_out_of_range_literal_is_pointed_at() {
    let text =
        "y = Foo <a = uint8[4] {1, 256, -1, 255}, b = int8[2] {-128, 128}, c = bool[2] {1, 2}> ()";
    assert_eq!(
        show(text, &on_node(text)),
        [
            (
                Some(Check::LiteralOutOfRange),
                "`256` is out of range for uint8: expected 0..=255".to_owned(),
                "256"
            ),
            (
                Some(Check::LiteralOutOfRange),
                "`-1` is out of range for uint8: expected 0..=255".to_owned(),
                "-1"
            ),
            (
                Some(Check::LiteralOutOfRange),
                "`128` is out of range for int8: expected -128..=127".to_owned(),
                "128"
            ),
            (
                Some(Check::LiteralOutOfRange),
                "`2` is out of range for bool: expected 0 or 1".to_owned(),
                "2"
            ),
        ]
    );
}

#[test]
fn bit_patterns_and_packed_values_are_checked_against_their_width() {
    let ok = "y = Foo <a = float16[1] {65535}, b = bfloat16[1] {0}, c = float8e4m3fn[1] {255}, d = float6e2m3[1] {63}, e = int4[2] {255}, f = uint2[4] {255}, g = int16[1] {-32768}, h = uint16[1] {65535}, i = int32[1] {-2147483648}> ()";
    assert!(on_node(ok).is_empty());
    let text = "y = Foo <a = float16[1] {65536}, b = float8e5m2[1] {256}, c = float6e3m2[1] {64}, d = int4[2] {-1}, e = int2[4] {256}> ()";
    let found: Vec<String> = on_node(text)
        .iter()
        .map(|d| d.message().to_owned())
        .collect();
    assert_eq!(
        found,
        [
            "`65536` is out of range for float16, whose values are 16-bit patterns: expected 0..=65535",
            "`256` is out of range for float8e5m2, whose values are 8-bit patterns: expected 0..=255",
            "`64` is out of range for float6e3m2, whose values are 6-bit patterns: expected 0..=63",
            "`-1` is out of range for int4, whose values are bytes of two 4-bit elements: expected 0..=255",
            "`256` is out of range for int2, whose values are bytes of four 2-bit elements: expected 0..=255",
        ]
    );
}

#[test]
fn unsigned_64_and_32_bit_values_flag_minus_signs_and_overflow() {
    let text = "y = Foo <a = uint64[3] {1, -1, -0}, b = uint32[3] {4294967295, 4294967296, -1}> ()";
    assert_eq!(
        show(text, &on_node(text)),
        [
            (
                Some(Check::LiteralOutOfRange),
                "`-1` is out of range for uint64: expected 0..=18446744073709551615 (a minus sign \
                 wraps around to 18446744073709551615)"
                    .to_owned(),
                "-1"
            ),
            (
                Some(Check::LiteralOutOfRange),
                "`4294967296` is out of range for uint32: expected 0..=4294967295".to_owned(),
                "4294967296"
            ),
            (
                Some(Check::LiteralOutOfRange),
                "`-1` is out of range for uint32: expected 0..=4294967295".to_owned(),
                "-1"
            ),
        ]
    );
    // A minus sign in a comment is not a literal's.
    let text = "y = Foo <a = uint64[2] {1, # -1\n 2}> ()";
    assert!(on_node(text).is_empty());
}

#[test]
fn elements_are_located_across_lines_and_comments() {
    let text = "g () => (w) <uint8[3] w = {\n  1, # one\n  2,\n  300 # big\n}> { }";
    let found = on_graph(text);
    assert_eq!(show(text, &found)[0].2, "300");
    assert_eq!(
        found[0].render(text, None),
        "\
error[literal_out_of_range]: `300` is out of range for uint8: expected 0..=255
 --> 4:3
  |
4 |   300 # big
  |   ^^^
"
    );
}

// ---- options ----

#[test]
fn each_check_can_be_switched_off_alone() {
    let text = r#"<opset_import: ["" : 21, "local" : 1]>
g (x, x, int64 n) => (y, out) <float[2] w = {1}, uint8[1] b = {300}, float[-1] d> {
  t = Abs(q)
  t = Foo <a = @r, k = 1, k = 2> (u)
  u = Abs(x)
  y = com.z.Bar(t)
  v = local.Nope(x)
  a1 = Relu(x, x)
  a2 = Cast(x)
  a3 = Relu <alpah = 1.0> (x)
  a4 = Elu <alpha = 1> (x)
  a5 = Add(w, n)
  a6 = local.F(x, x)
}
<domain: "local", opset_import: ["" : 21]> F (x) => (y) { y = Abs(x) }"#;
    // The shape checks run only on a model without other problems, so they have a text of
    // their own.
    let shapes = r#"<opset_import: ["" : 21]>
g (float[2, 3] x, float[4, 5] w) => (float[9] y, z) { y = Relu (x) z = MatMul (x, w) }"#;
    // The main graph's types are checked where inference succeeds, for its suggestion.
    let untyped = r#"<opset_import: ["" : 21]> g (float[2, 3] x) => (y) { y = Relu (x) }"#;
    let checks = Check::ALL.len() - Check::ALL.iter().filter(|c| c.is_binary_only()).count();
    switch_off_each(text, checks - 3);
    switch_off_each(shapes, 2);
    switch_off_each(untyped, 1);
}

/// Checks that `text` fires `expected` checks, each of which turns off alone.
fn switch_off_each(text: &str, expected: usize) {
    let tree = Parser::new(text).and_then(Parser::model).unwrap();
    let all = model(&tree, text, &CheckOptions::default());
    let fired: HashSet<Check> = all.iter().filter_map(Diagnostic::check).collect();
    assert_eq!(fired.len(), expected, "{all:#?}");
    for check in fired {
        let without = model(&tree, text, &CheckOptions::default().allow(check));
        assert!(without.iter().all(|d| d.check() != Some(check)), "{check}");
        assert!(without.len() < all.len(), "{check}");
        let only = model(&tree, text, &CheckOptions::none().deny(check));
        assert!(
            !only.is_empty() && only.iter().all(|d| d.check() == Some(check)),
            "{check}"
        );
    }
    assert!(model(&tree, text, &CheckOptions::none()).is_empty());
}

#[test]
fn check_names_round_trip_and_are_snake_case() {
    for check in Check::ALL {
        assert_eq!(Check::from_name(check.name()), Some(check));
        assert!(
            check
                .name()
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b == b'_')
        );
        assert!(!check.description().is_empty());
    }
    assert_eq!(Check::from_name("unchecked"), None);
}

#[test]
fn text_level_methods_turn_parse_errors_into_diagnostics() {
    let err = CheckOptions::default()
        .check_node("y = Relu(x);")
        .unwrap_err();
    let parse = onnx_syntax::parse_node("y = Relu(x);").unwrap_err();
    assert_eq!(err.len(), 1);
    assert_eq!(err[0].check(), None);
    assert_eq!(err.to_string(), parse.to_string());
    assert_eq!(
        Diagnostics::from(parse.clone()).to_string(),
        parse.to_string()
    );
    let parse = parse.with_origin("n.onnxtxt");
    assert_eq!(
        Diagnostics::from(parse.clone()).to_string(),
        parse.to_string()
    );
}

#[test]
fn diagnostics_display_every_problem_in_source_order() {
    let text = "g (x) => (y) {\n  y = Add(p, x)\n  z = Neg(q)\n}";
    let err = CheckOptions::default().check_graph(text).unwrap_err();
    assert_eq!(
        err.to_string(),
        "\
error[undefined_value]: value `p` is used but never defined
 --> 2:11
  |
2 |   y = Add(p, x)
  |           ^

error[undefined_value]: value `q` is used but never defined
 --> 3:11
  |
3 |   z = Neg(q)
  |           ^
"
    );
}

// ---- robustness ----

#[test]
fn hand_built_trees_with_bogus_spans_do_not_panic() {
    let text = "g (x) => (y) <uint8[2] w = {1, 2}> { y = Foo <a = @b, t = int4[-3] {1}> (w) }";
    let mut tree = Parser::new(text).and_then(Parser::graph).unwrap();
    // Data that no longer matches the source, and spans past its end or reversed.
    if let Some(init) = &mut tree.locals[0].initializer {
        init.data = TensorData::Values(
            TensorValues::Int32(vec![1, 999, -5]),
            Span::new(5000, 10),
            vec![Span::new(7000, 3)],
        );
        init.span = Span::new(9000, 1);
    }
    tree.nodes[0].outputs[0].span = Span::new(70000, 70001);
    let found = graph(&tree, text, &CheckOptions::default());
    assert!(found.len() >= 4, "{found:#?}");
    let shown = Diagnostics::new(text, found.clone()).to_string();
    assert!(shown.contains("999"));
    for d in &found {
        let _ = d.render(text, Some("x"));
        let _ = d.render("", None);
    }
}

#[test]
fn hand_built_trees_nested_past_the_parser_limit_do_not_overflow() {
    let mut inner = Parser::new("b () => (r) { r = Abs(q) }")
        .and_then(Parser::graph)
        .unwrap();
    for _ in 0..200 {
        let mut outer = Parser::new("b () => (r) { r = If <g = x () => () {}> () }")
            .and_then(Parser::graph)
            .unwrap();
        outer.nodes[0].attributes[0].value = Some(AttrValue::Graph(Box::new(inner)));
        inner = outer;
    }
    // The innermost graphs are deeper than the checks go; the outer ones are checked.
    let found = graph(&inner, "", &CheckOptions::default());
    assert!(found.is_empty());
}

#[test]
fn large_inputs_check_in_linear_time() {
    // A long chain, with one reused name per node in a subgraph, and a big tensor.
    let n = 20_000;
    let mut text = String::from("g (x0) => (y) <uint8[30000] w = {");
    text.push_str(&vec!["7"; 30_000].join(","));
    text.push_str("}> {\n");
    for i in 1..=n {
        text.push_str(&format!("x{i} = Add(x{}, w)\n", i - 1));
    }
    text.push_str(&format!("y = Identity(x{n})\n}}"));
    let tree = Parser::new(&text).and_then(Parser::graph).unwrap();
    let start = std::time::Instant::now();
    assert!(graph(&tree, &text, &CheckOptions::default()).is_empty());
    // Quadratic work here would be 4e8 map operations; linear work takes milliseconds.
    assert!(start.elapsed().as_secs() < 5, "{:?}", start.elapsed());
}

#[test]
fn a_lone_function_does_not_resolve_calls_but_a_library_of_one_does() {
    let text = r#"<domain: "my"> F (x) => (y) { y = my.G(x) }"#;
    assert!(on_function(text).is_empty());
    assert_eq!(
        show(text, &on_functions(text)),
        [(
            Some(Check::UnresolvedFunction),
            "no function `my.G` is defined in domain \"my\"; the functions there are `F`"
                .to_owned(),
            "my.G"
        )]
    );
}

#[test]
fn shape_checks_put_errors_on_the_operand_and_the_declared_type() {
    let text = r#"<ir_version: 10, opset_import: ["" : 21]>
g (float[N, 128] x, float[64, 10] w) => (float[N, 10] y) { y = MatMul (x, w) }"#;
    let found = CheckOptions::default().check_model(text).unwrap_err();
    assert_eq!(found.len(), 1, "{found}");
    let d = &found[0];
    assert_eq!(d.check(), Some(Check::IncompatibleShapes));
    assert_eq!(&text[d.span().start as usize..d.span().end as usize], "w");
    assert!(
        d.message().contains("[N, 128] by [64, 10]"),
        "{}",
        d.message()
    );

    let text = r#"<ir_version: 10, opset_import: ["" : 21]>
g (float[N, 3] x) => (float[N, 4] y) { y = Relu (x) }"#;
    let found = CheckOptions::default().check_model(text).unwrap_err();
    let d = &found[0];
    assert_eq!(d.check(), Some(Check::ShapeMismatch));
    assert_eq!(
        &text[d.span().start as usize..d.span().end as usize],
        "float[N, 4]"
    );
    assert_eq!(d.labels().len(), 1);

    // Symbols and unknown dims are no mismatch.
    for output in ["float[M, 3] y", "float[?, 3] y", "float[N, ?] y"] {
        let text = format!(
            r#"<ir_version: 10, opset_import: ["" : 21]> g (float[N, 3] x) => ({output}) {{ y = Relu (x) }}"#
        );
        assert!(CheckOptions::default().check_model(&text).is_ok(), "{text}");
    }
    // A shapeless declaration is none either, but the main graph's outputs need a shape
    // (`missing_type`), and the message gives the inferred one.
    for output in ["float[] y", "y"] {
        let text = format!(
            r#"<ir_version: 10, opset_import: ["" : 21]> g (float[N, 3] x) => ({output}) {{ y = Relu (x) }}"#
        );
        let found = CheckOptions::default().check_model(&text).unwrap_err();
        assert_eq!(found.len(), 1, "{found}");
        assert_eq!(found[0].check(), Some(Check::MissingType));
        assert!(
            found[0].message().ends_with("write `float[N, 3] y`"),
            "{found}"
        );
    }
    // Switched off, the checks are silent.
    let options = CheckOptions::default().allow(Check::ShapeMismatch);
    assert!(options.check_model(text).is_ok());
}

#[test]
fn a_functions_typed_output_is_checked_against_its_body() {
    let text = r#"<ir_version: 10, opset_import: ["" : 21, "local" : 1]>
g (float[N, 3] x) => (float[N, 3] y) { y = local.F (x) }
<domain: "local", opset_import: ["" : 21]>
F (float[N, 3] a) => (float[N, 4] b) { b = Relu (a) }"#;
    let found = CheckOptions::default().check_model(text).unwrap_err();
    assert_eq!(found.len(), 1, "{found}");
    let d = &found[0];
    assert_eq!(d.check(), Some(Check::ShapeMismatch));
    assert_eq!(
        &text[d.span().start as usize..d.span().end as usize],
        "float[N, 4]"
    );
    assert!(
        d.message()
            .contains("the function body computes float[N, 3] (`Relu` at line 4)"),
        "{}",
        d.message()
    );
    // The same function alone, as `onnx_function!` takes it.
    let function = r#"<domain: "local", opset_import: ["" : 21]>
F (float[N, 3] a) => (float[N, 4] b) { b = Relu (a) }"#;
    assert!(CheckOptions::default().check_function(function).is_err());
    let fixed = function.replace("float[N, 4] b", "float[N, 3] b");
    assert!(CheckOptions::default().check_function(&fixed).is_ok());
    // Without types on its inputs, a body is not inferred.
    let untyped = function.replace("float[N, 3] a", "a");
    assert!(CheckOptions::default().check_function(&untyped).is_ok());
}

// ---- missing_type ----

#[test]
fn the_main_graphs_inputs_and_outputs_need_a_type_with_a_shape() {
    let check = |io: &str| {
        let text =
            format!(r#"<ir_version: 10, opset_import: ["" : 21]> g {io} {{ y = MatMul (x, w) }}"#);
        match CheckOptions::default().check_model(&text) {
            Ok(_) => Vec::new(),
            Err(found) => found
                .iter()
                .map(|d| {
                    (
                        d.check(),
                        d.message().to_owned(),
                        text[d.span().start as usize..d.span().end as usize].to_owned(),
                    )
                })
                .collect(),
        }
    };
    assert!(check("(float[N, 3] x, float[3, 4] w) => (float[N, 4] y)").is_empty());
    // Scalars and unknown dims have a shape.
    assert!(check("(float[N, ?] x, float[?, 4] w) => (float[N, 4] y)").is_empty());
    let missing = |list: &str, name: &str, fix: &str| {
        let message = format!("the main graph's {list} `{name}` has no {fix}");
        (Some(Check::MissingType), message, name.to_owned())
    };
    assert_eq!(
        check("(float[N, 3] x, float[3, 4] w) => (y)"),
        [missing(
            "output",
            "y",
            "type, which the IR requires: write `float[N, 4] y`"
        )]
    );
    assert_eq!(
        check("(float[N, 3] x, float[] w) => (float[N, 4] y)"),
        [missing(
            "input",
            "w",
            "shape, which the IR requires: write its rank, with `?` or a name for unknown dims \
             (`float[N, 10] w`; `float w` is a scalar)"
        )]
    );
    assert_eq!(
        check("(x, float[3, 4] w) => (float[N, 4] y)"),
        [missing(
            "input",
            "x",
            "type, which the IR requires: write a type with a shape (`float[N, 10] x`; `float x` \
             is a scalar)"
        )]
    );
    // Subgraphs and functions may leave shapes out, and `allow` turns the rule off.
    let text = r#"<ir_version: 10, opset_import: ["" : 21]>
g (bool c, float[2] x) => (float[2] y) {
    y = If (c) <then_branch = t () => (a) { a = Identity (x) }, else_branch = e () => (b) { b = Neg (x) }>
}"#;
    assert!(CheckOptions::default().check_model(text).is_ok());
    let untyped = r#"<ir_version: 10, opset_import: ["" : 21]> g (x) => (y) { y = Relu (x) }"#;
    assert!(
        CheckOptions::default()
            .allow(Check::MissingType)
            .check_model(untyped)
            .is_ok()
    );
}

/// A library of `com.acme` functions, as an opset crate would hold it.
fn acme() -> crate::library::FunctionLibrary {
    let text = r#"
        <domain: "com.acme", opset_import: ["" : 21]>
        Swish2 <beta: float = 1.0> (x) => (y) {
            b = Constant <value_float: float = @beta> ()
            bx = Mul (b, x)
            s = Sigmoid (bx)
            y = Mul (x, s)
        }
        <domain: "com.acme", opset_import: ["" : 21]>
        Scale <alpha: float> (x) => (y) { a = Constant <value_float: float = @alpha> ()  y = Mul (x, a) }
        <domain: "com.acme", opset_import: ["" : 21, "com.acme" : 1]>
        Dense (x, w) => (y) { t = MatMul (x, w)  y = com.acme.Swish2 (t) }
    "#;
    crate::library::FunctionLibrary::from_functions(onnx_syntax::parse_functions(text).unwrap())
        .unwrap()
}

/// What checking `graph` (in a model importing `com.acme`) with `acme()` in view finds, but
/// `missing_type`: the graphs leave their outputs untyped for brevity.
fn with_acme(graph: &str) -> Vec<(Option<Check>, String, String)> {
    let text = format!(
        "<ir_version: 10, opset_import: [\"\" : 21, \"com.acme\" : 1, \"local\" : 1]>\n{graph}\n\
         <domain: \"local\", opset_import: [\"\" : 21]> Own (x) => (y) {{ y = Abs (x) }}"
    );
    let acme = acme();
    let found = match onnx_syntax::Entry::Model.check_with(
        &text,
        &CheckOptions::default().allow(Check::MissingType),
        &[("acme", &acme)],
    ) {
        Ok(_) => return Vec::new(),
        Err(found) => found,
    };
    (0..found.len())
        .map(|i| {
            let d = &found[i];
            let at = text
                .get(d.span().range())
                .unwrap_or("<bad span>")
                .to_owned();
            (d.check(), d.message().to_owned(), at)
        })
        .collect()
}

#[test]
fn calls_into_a_library_in_view_are_checked_as_calls_of_local_functions() {
    assert_eq!(
        with_acme("g (float[N, 8] x) => (float[N, 8] y) { y = com.acme.Swish2 <beta = 2.0> (x) }"),
        []
    );
    let sig = Some(Check::FunctionSignature);
    assert_eq!(
        with_acme(
            "g (float[N, 8] x) => (y, z, w) {\n  y = com.acme.Swish2 <bta = 2.0> (x, x)\n  \
             z = com.acme.Swish2 <beta = 2> (x)\n  w = com.acme.Scale (x)\n}"
        ),
        [
            (
                sig,
                "function `com.acme.Swish2` (library `acme`) has no attribute `bta`; did you mean `beta`?"
                    .to_owned(),
                "bta".to_owned()
            ),
            (
                sig,
                "function `com.acme.Swish2` (library `acme`) declares 1 input, found 2".to_owned(),
                "x".to_owned()
            ),
            (
                sig,
                "attribute `beta` of function `com.acme.Swish2` (library `acme`) is declared float, \
                 found int"
                    .to_owned(),
                "2".to_owned()
            ),
            (
                sig,
                "function `com.acme.Scale` (library `acme`) requires attribute `alpha`, which has \
                 no default"
                    .to_owned(),
                "com.acme.Scale".to_owned()
            ),
        ]
    );
}

#[test]
fn a_call_into_a_library_domain_must_name_one_of_its_functions() {
    let unresolved = Some(Check::UnresolvedFunction);
    assert_eq!(
        with_acme("g (x) => (y) { y = com.acme.Swish3 (x) }"),
        [(
            unresolved,
            "no function `com.acme.Swish3` is defined in domain \"com.acme\"; did you mean \
             `Swish2` (library `acme`)?"
                .to_owned(),
            "com.acme.Swish3".to_owned()
        )]
    );
    assert_eq!(
        with_acme("g (x) => (y) { y = com.acme.Gelu (x) }"),
        [(
            unresolved,
            "no function `com.acme.Gelu` is defined in domain \"com.acme\"; the functions there \
             are `Swish2` (library `acme`), `Scale` (library `acme`), `Dense` (library `acme`)"
                .to_owned(),
            "com.acme.Gelu".to_owned()
        )]
    );
}

#[test]
fn shapes_are_inferred_through_library_bodies_nested_calls_included() {
    let found = with_acme(
        "g (float[N, 8] x, float[4, 8] w) => (float[N, 8] y, float[N, 3] z) {\n  \
         y = com.acme.Dense (x, w)\n  z = com.acme.Swish2 (x)\n}",
    );
    assert_eq!(
        found,
        [
            (
                Some(Check::ShapeMismatch),
                "`z` is declared float[N, 3] but the graph computes float[N, 8] (`Swish2` at line 4)"
                    .to_owned(),
                "float[N, 3]".to_owned()
            ),
            (
                Some(Check::IncompatibleShapes),
                "in the body of `com.acme.Dense`: MatMul: inner dims differ: [N, 8] by [4, 8] (8 \
                 against 4)"
                    .to_owned(),
                "com.acme.Dense".to_owned()
            ),
        ]
    );
}

#[test]
fn libraries_are_seen_by_lone_graphs_and_nodes_and_hidden_by_local_functions() {
    let acme = acme();
    let view = [("acme", &acme)];
    let options = CheckOptions::default();
    let graph = "g (x) => (y) { y = com.acme.Scale <alpah = 1.0> (x) }";
    let err = onnx_syntax::Entry::Graph
        .check_with(graph, &options, &view)
        .unwrap_err();
    let messages: Vec<&str> = (0..err.len()).map(|i| err[i].message()).collect();
    assert_eq!(
        messages,
        [
            "function `com.acme.Scale` (library `acme`) requires attribute `alpha`, which has no \
             default",
            "function `com.acme.Scale` (library `acme`) has no attribute `alpah`; did you mean \
             `alpha`?"
        ]
    );
    assert!(onnx_syntax::Entry::Graph.check(graph, &options).is_ok());
    let node = "y = com.acme.Swish2 (x, x)";
    assert!(
        onnx_syntax::Entry::Node
            .check_with(node, &options, &view)
            .is_err()
    );
    // A model's own `com.acme.Scale` (taking no attribute) hides the library's.
    let text = r#"<ir_version: 10, opset_import: ["" : 21, "com.acme" : 1]>
        g (float[N] x) => (float[N] y) { y = com.acme.Scale (x) }
        <domain: "com.acme", opset_import: ["" : 21]> Scale (x) => (y) { y = Abs (x) }"#;
    assert!(options.check_model_with(text, &view).is_ok());
}

#[test]
fn operand_types_are_checked_through_called_bodies() {
    // `Swish2` multiplies its input by a float constant: an int64 input breaks `Mul`'s `T`,
    // which the body's own walk cannot see (its input is untyped there).
    let found = with_acme("g (int64[N, 8] x) => (y) { y = com.acme.Swish2 (x) }");
    let first = &found[0];
    assert_eq!(
        (first.0, first.1.as_str(), first.2.as_str()),
        (
            Some(Check::TypeConstraint),
            "in the body of `com.acme.Swish2`: input `x` of `Mul` is tensor(int64), but `T` is \
             already tensor(float) from input `b`",
            "com.acme.Swish2"
        )
    );
    // Through a nested call, on the outer call; and model-local functions alike.
    let found = with_acme("g (int64[N, 8] x, int64[8, 8] w) => (y) { y = com.acme.Dense (x, w) }");
    assert_eq!(
        found[0].1,
        "in the body of `com.acme.Swish2`: input `x` of `Mul` is tensor(int64), but `T` is already tensor(float) from input `b`"
    );
    assert_eq!(found[0].2, "com.acme.Dense");
    let found = with_acme("g (string[N] x) => (y) { y = local.Own (x) }");
    assert_eq!(
        found,
        [(
            Some(Check::TypeConstraint),
            "in the body of `local.Own`: input `x` of `Abs` is tensor(string), which `T` does not \
             allow: it allows tensor(uint8), tensor(uint16), tensor(uint32), tensor(uint64), \
             tensor(int8), tensor(int16), tensor(int32), tensor(int64), …"
                .to_owned(),
            "local.Own".to_owned()
        )]
    );
    assert_eq!(with_acme("g (float[N] x) => (y) { y = local.Own (x) }"), []);
}

#[test]
fn a_call_may_leave_out_only_inputs_its_function_reads_as_optional() {
    let text = r#"<ir_version: 10, opset_import: ["" : 21, "local" : 1]>
g (float[2] x, float[2] w) => (y1, y2, y3, y4) {
  y1 = local.Dense (x, w)
  y2 = local.Dense (x, w, "")
  y3 = local.Clamp (x)
  y4 = local.Captured (x)
}
<domain: "local", opset_import: ["" : 21]> Dense (x, w, b) => (y) { t = Mul (x, w)  y = Add (t, b) }
<domain: "local", opset_import: ["" : 21]> Clamp (x, lo, hi) => (y) { y = Clip (x, lo, hi) }
<domain: "local", opset_import: ["" : 21]> Captured (x, c) => (y) { y = If (x) <then_branch = t () => (a) { a = Identity (c) }, else_branch = e () => (b) { b = Identity (x) }> }"#;
    let found: Vec<_> = show(text, &on_model(text))
        .into_iter()
        .filter(|f| f.0 == Some(Check::FunctionSignature))
        .collect();
    let dense = "of function `local.Dense`, which its body reads as a required operand of `Add`";
    assert_eq!(
        found,
        [
            (
                Some(Check::FunctionSignature),
                format!("the call leaves out input 3 (`b`) {dense}"),
                "local.Dense"
            ),
            (
                Some(Check::FunctionSignature),
                format!("the call gives `\"\"` for input 3 (`b`) {dense}"),
                "\"\""
            ),
            // Clip's `min` and `max` are optional: leaving them out is fine.
            (
                Some(Check::FunctionSignature),
                "the call leaves out input 2 (`c`) of function `local.Captured`, which its body \
                 reads as a required operand of `If`"
                    .to_owned(),
                "local.Captured"
            ),
        ]
    );
}

#[test]
fn a_call_into_a_library_may_not_leave_out_a_required_input() {
    let found = with_acme("g (float[N, 8] x) => (y) { y = com.acme.Dense (x) }");
    assert_eq!(
        found,
        [(
            Some(Check::FunctionSignature),
            "the call leaves out input 2 (`w`) of function `com.acme.Dense` (library `acme`), \
             which its body reads as a required operand of `MatMul`"
                .to_owned(),
            "com.acme.Dense".to_owned()
        )]
    );
}

#[test]
fn importing_a_librarys_domain_at_another_version_is_an_error() {
    let text = "<ir_version: 10, opset_import: [\"\" : 21, \"com.acme\" : 2]>\n\
                g (float[N, 8] x) => (y) { y = com.acme.Swish2 (x) }";
    let acme = acme();
    assert_eq!(acme.provided_domains(), [("com.acme".to_owned(), 1)]);
    let options = CheckOptions::default().allow(Check::MissingType);
    let found = onnx_syntax::Entry::Model
        .check_with(text, &options, &[("acme", &acme)])
        .unwrap_err();
    let found: Vec<_> = (0..found.len()).map(|i| &found[i]).collect();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].check(), Some(Check::UnresolvedFunction));
    assert_eq!(
        found[0].message(),
        "library `acme` provides domain \"com.acme\" at version 1, but the model imports version 2"
    );
    assert_eq!(&text[found[0].span().range()], "\"com.acme\" : 2");
    // At the library's version, nothing to say.
    let fixed = text.replace("\"com.acme\" : 2", "\"com.acme\" : 1");
    assert!(
        onnx_syntax::Entry::Model
            .check_with(&fixed, &options, &[("acme", &acme)])
            .is_ok()
    );
}

/// The text with every edit of `fix` made (edits do not overlap; the later ones first).
fn fixed(text: &str, fix: &Fix) -> String {
    let mut edits = fix.edits.clone();
    edits.sort_by_key(|edit| std::cmp::Reverse(edit.span.start));
    let mut text = text.to_owned();
    for edit in edits {
        text.replace_range(edit.span.range(), &edit.text);
    }
    text
}

/// Each fix the checks suggest makes the problem go away: applied to the text, the check it
/// came from finds nothing more.
#[test]
fn fixes_repair_what_they_are_attached_to() {
    let cases: [(&str, Check, &str); 7] = [
        (
            r#"<opset_import: ["" : 21]> g (float conv1_bn) => (float y) { y = Relu(conv1_bx) }"#,
            Check::UndefinedValue,
            "Replace with `conv1_bn`",
        ),
        (
            r#"<opset_import: ["" : 21]> g (float x) => (float y) { y = Rleu(x) }"#,
            Check::UnknownOperator,
            "Replace with `Relu`",
        ),
        (
            r#"<opset_import: ["" : 21]> g (int64 x) => (string y) { y = LabelEncoder(x) }"#,
            Check::UnknownOperator,
            "Replace with `ai.onnx.ml.LabelEncoder`",
        ),
        (
            r#"<opset_import: ["" : 21]> g (float x) => (float y) { y = Elu <alpah = 1.0> (x) }"#,
            Check::UnknownAttribute,
            "Replace with `alpha`",
        ),
        (
            r#"<opset_import: ["" : 21, "local" : 1]> g (float x) => (float y) { y = local.Scale <factr = 2.0> (x) }
<domain: "local", opset_import: ["" : 21]> Scale <factor: float = 1.0> (x) => (y) { y = Identity(x) }"#,
            Check::FunctionSignature,
            "Replace with `factor`",
        ),
        (
            r#"<opset_import: ["" : 21]> g (float[2, 3] x) => (y) { y = Relu(x) }"#,
            Check::MissingType,
            "Write `float[2, 3] y`",
        ),
        (
            r#"<opset_import: ["" : 21]> g (float[2] x) => (float[2] y) { y = com.acme.Swish(x) }"#,
            Check::UndeclaredDomain,
            "Import domain \"com.acme\"",
        ),
    ];
    for (text, check, title) in cases {
        let found = CheckOptions::default().check_model(text).unwrap_err();
        let diagnostic = found
            .iter()
            .find(|d| d.check() == Some(check))
            .unwrap_or_else(|| panic!("{check} not found in {text}"));
        assert_eq!(diagnostic.fixes().len(), 1, "{text}");
        let fix = &diagnostic.fixes()[0];
        assert_eq!(fix.title, title, "{text}");
        let repaired = fixed(text, fix);
        let remaining = match CheckOptions::default().check_model(&repaired) {
            Ok(_) => Vec::new(),
            Err(found) => {
                assert!(found.iter().all(|d| d.check().is_some()), "{found}");
                found.iter().filter_map(|d| d.check()).collect()
            }
        };
        assert!(!remaining.contains(&check), "{repaired}: {remaining:?}");
    }
}

/// A big text is checked on two threads (`check_and_lower_split`), each with a parse of its own;
/// what it finds and gives must be what the checks in turn give, on one thread.
mod split {
    use super::*;
    use onnx_syntax::{Entry, Proto};

    /// A chain of `nodes` nodes, big enough to be split, with `body` at its end.
    fn chain(nodes: usize, output: &str, body: &str) -> String {
        let mut text = format!(
            "<opset_import: [\"\" : 21, \"local\" : 1]> g (float[N] x0) => ({output}) {{\n"
        );
        for i in 0..nodes {
            text += &format!("  x{} = LeakyRelu <alpha = 0.5> (x{i})\n", i + 1);
        }
        text += body;
        text += "}\n<domain: \"local\", opset_import: [\"\" : 21]> Twice (a) => (b) { b = Add (a, a) }\n";
        assert!(text.len() >= BIG_TEXT);
        text
    }

    fn in_turn_and_split(text: &str, options: &CheckOptions) -> [(Vec<String>, Vec<u8>); 2] {
        let nodes = |tree: &Tree| match tree {
            Tree::Model(model) => model.graph.nodes.len(),
            _ => 0,
        };
        let tree = Entry::Model.parse(text).unwrap();
        let node_count = nodes(&tree);
        let (report, proto) = tree.check_and_lower_with(text, options, &[]);
        let messages = |report: &Report| {
            let diagnostics = report.diagnostics.iter();
            diagnostics
                .map(|d| format!("{:?} {}", d.span(), d.message()))
                .collect()
        };
        let parse = || Entry::Model.parse(text);
        let (count, split, split_proto, bytes) =
            check_and_lower_split(parse, text, options, &[], nodes, Proto::encode).unwrap();
        assert_eq!(count, node_count, "`inspect` sees the tree");
        assert_eq!(bytes, split_proto.encode(), "`beside` sees the lowering");
        [
            (messages(&report), proto.encode()),
            (messages(&split), bytes),
        ]
    }

    #[test]
    fn a_clean_text_gives_the_same_messages() {
        let text = chain(2000, "float[N] y", "  y = local.Twice (x2000)\n");
        let [in_turn, split] = in_turn_and_split(&text, &CheckOptions::default());
        assert!(in_turn.0.is_empty());
        assert_eq!(in_turn, split);
    }

    #[test]
    fn shape_errors_come_from_the_thread_that_lowers() {
        let text = chain(2000, "float[N, 3] y", "  y = local.Twice (x2000)\n");
        let [in_turn, split] = in_turn_and_split(&text, &CheckOptions::default());
        assert!(
            in_turn.0[0].contains("is declared float[N, 3]"),
            "{:?}",
            in_turn.0
        );
        assert_eq!(in_turn, split);
    }

    #[test]
    fn shape_errors_do_not_count_after_other_problems() {
        // `Relu` has no attribute `bogus`, and `y`'s declared shape is wrong (which the shape
        // checks find on their own: see above): only the first is reported.
        let body = "  t = Relu <bogus = 1> (x0)\n  y = local.Twice (x2000)\n";
        let text = chain(2000, "float[N, 3] y", body);
        let [in_turn, split] = in_turn_and_split(&text, &CheckOptions::default());
        assert_eq!(in_turn.0.len(), 1, "{:?}", in_turn.0);
        assert!(in_turn.0[0].contains("bogus"), "{:?}", in_turn.0);
        assert_eq!(in_turn, split);
    }

    #[test]
    fn shape_checks_switched_off_stay_off() {
        let text = chain(2000, "float[N, 3] y", "  y = local.Twice (x2000)\n");
        let off = [Check::TypeConstraint, Check::MissingType];
        let options = Check::ALL
            .iter()
            .filter(|check| check.category() == Category::Shapes || off.contains(check))
            .fold(CheckOptions::default(), |options, &check| {
                options.allow(check)
            });
        let [in_turn, split] = in_turn_and_split(&text, &options);
        assert!(in_turn.0.is_empty(), "{:?}", in_turn.0);
        assert_eq!(in_turn, split);
    }

    #[test]
    fn a_syntax_error_is_the_error() {
        let text = chain(2000, "float[N] y", "  y = Relu (x2000\n");
        let parse = || Entry::Model.parse(&text);
        let options = CheckOptions::default();
        let error = check_and_lower_split(parse, &text, &options, &[], |_| (), |_| ()).unwrap_err();
        assert_eq!(error, Entry::Model.parse(&text).unwrap_err());
    }
}
