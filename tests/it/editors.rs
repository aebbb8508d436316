//! The VS Code grammar (editors/vscode/syntaxes/onnxtxt.tmLanguage.json) names every keyword the
//! parser knows, so that it does not fall behind the syntax: element types, type constructors and
//! attribute types. Its scopes are tested by editors/vscode/test.sh (vscode-tmgrammar-test).

use onnx_syntax::dtype::{ELEM_TYPES, TYPE_KEYWORDS};
use onnx_syntax::syntax::ATTRIBUTE_TYPES;

fn grammar() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/editors/vscode/syntaxes/onnxtxt.tmLanguage.json"
    );
    std::fs::read_to_string(path).expect("the grammar")
}

/// The words of the grammar's alternations `(a|b|c)` that start with `first`.
fn alternation(grammar: &str, first: &str) -> Vec<String> {
    let start = grammar
        .find(&format!("({first}|"))
        .unwrap_or_else(|| panic!("no alternation starting with `{first}`"));
    let rest = &grammar[start + 1..];
    let end = rest.find(')').expect("a closed alternation");
    rest[..end].split('|').map(str::to_owned).collect()
}

fn sorted(mut words: Vec<String>) -> Vec<String> {
    words.sort();
    words
}

#[test]
fn the_grammar_knows_every_element_type() {
    let grammar = grammar();
    // Longest first in the grammar, so that `float16` is not read as `float`.
    let words = alternation(&grammar, "float8e4m3fnuz");
    let expected: Vec<String> = ELEM_TYPES.iter().map(|t| t.name.to_owned()).collect();
    assert_eq!(sorted(words), sorted(expected));
}

#[test]
fn the_grammar_knows_every_type_constructor_and_attribute_type() {
    let grammar = grammar();
    let constructors = alternation(&grammar, "sparse_tensor");
    let expected: Vec<String> = TYPE_KEYWORDS.iter().map(|k| (*k).to_owned()).collect();
    assert_eq!(sorted(constructors), sorted(expected));
    let attribute_types = alternation(&grammar, "type_protos");
    let mut expected: Vec<String> = ATTRIBUTE_TYPES
        .iter()
        .map(|(_, k)| (*k).to_owned())
        .collect();
    expected.push("undefined".to_owned()); // what the reference prints for an untyped `@ref`
    assert_eq!(sorted(attribute_types), sorted(expected));
}
