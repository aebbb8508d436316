//! Unit tests of the expansion, outside the compiler (proc-macro2 runs on its own there).

use proc_macro2::TokenStream;

use crate::codegen::Output;
use crate::expand::{expand, include, settings};
use crate::tokens::{Layout, Source};

fn tokens(text: &str) -> TokenStream {
    text.parse().expect("test input lexes as Rust")
}

#[test]
fn compact_layout_rejoins_only_where_spacing_matters() {
    let source = Source::from_tokens(
        tokens("y = Foo <a = -5, b = 1.e5, c = - 5> (x) => z"),
        Layout::Compact,
    )
    .unwrap_or_else(|_| panic!("lexable"));
    assert_eq!(
        source.text,
        "y = Foo < a = -5 , b = 1.e5 , c = - 5 > ( x ) => z"
    );
}

#[test]
fn faithful_layout_keeps_lines_and_columns() {
    let source = Source::from_tokens(tokens("g (x)\n  => (y) {\n}"), Layout::Faithful)
        .unwrap_or_else(|_| panic!());
    assert_eq!(source.text, "g (x)\n  => (y) {\n}");
}

#[test]
fn spans_cover_the_tokens_of_a_range() {
    let source =
        Source::from_tokens(tokens("y = Foo(x)"), Layout::Compact).unwrap_or_else(|_| panic!());
    assert_eq!(source.pieces.len(), 6);
    assert!(source.spans(4, 7).is_some());
    assert!(
        source.spans(100, 100).is_some(),
        "a position past the end maps to the last token"
    );
    let empty =
        Source::from_tokens(TokenStream::new(), Layout::Compact).unwrap_or_else(|_| panic!());
    assert!(empty.spans(0, 0).is_none());
}

#[test]
fn settings_are_split_off() {
    let (settings, body) = settings(tokens(
        "#![allow(undefined_value, ssa)] #![unchecked] y = Relu(x)",
    ))
    .unwrap();
    assert!(settings.unchecked);
    assert_eq!(
        settings
            .allowed
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>(),
        ["undefined_value", "ssa"]
    );
    assert_eq!(body.to_string(), "y = Relu (x)");
}

#[test]
fn valid_input_expands_to_a_decode_of_bytes() {
    let expansion = expand(Output::Node, tokens("y = Relu(x)")).to_string();
    assert!(
        expansion
            .starts_with(":: onnx_text :: __private :: decode :: < :: onnx_text :: NodeProto >"),
        "{expansion}"
    );
    let list = expand(Output::Nodes, tokens("a = F() b = G(a)")).to_string();
    assert!(list.contains("decode_list"), "{list}");
}

#[test]
fn errors_expand_to_compile_errors_and_a_default_value() {
    let expansion = expand(
        Output::Graph,
        tokens("g (x) => (y) { t = Abs(q) t = Neg(r) }"),
    )
    .to_string();
    assert_eq!(expansion.matches("compile_error").count(), 4, "{expansion}");
    assert!(expansion.contains("value `q` is used but never defined"));
    assert!(
        expansion.contains(
            "< :: onnx_text :: GraphProto as :: core :: default :: Default > :: default ()"
        )
    );
}

#[test]
fn include_errors_name_the_file_line_and_column() {
    let expansion = include(tokens("\"tests/data/broken.onnxtxt\"")).to_string();
    assert!(
        expansion.contains("--> tests/data/broken.onnxtxt:4:16"),
        "{expansion}"
    );
    assert!(
        expansion.contains("include_bytes"),
        "the file is a dependency: {expansion}"
    );
    let missing = include(tokens("\"tests/data/missing.onnxtxt\"")).to_string();
    assert!(missing.contains("cannot read"), "{missing}");
}

/// A fixed-seed xorshift, so that failures reproduce.
struct XorShift(u64);

impl XorShift {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

#[test]
fn mutated_token_streams_never_panic() {
    let seeds = [
        r#"<ir_version: 10, opset_import: ["" : 21, "local" : 1]>
           g (float[N] x, float[2] w = {1, 2}) => (float[N] y) <int4[2] p = {33}> {
               t = local.F <a: floats = [1, 2.5], g = b (c) => (d) { d = Id(c) }> (x, "", w)
               y = Add (t, x)
           }
           <domain: "local", opset_import: ["" : 21]>
           F <a, g> (x, u, w) => (y) { y = Scan <body: graph = @g, alpha: float = @a> (x) }"#,
        "y = Foo <t = seq(map(int64, optional(float[N, ?, \"M\"]))), o = opaque(a.b, T)> (x)",
        "#![allow(undefined_value)] g => (y) { [n] y, , z = com.ms.Foo:ov <s = \"a\\\"b\"> (,x,) }",
    ];
    let fragments = [
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        "<",
        ">",
        ",",
        ":",
        "=",
        ".",
        "@",
        "?",
        "-",
        "=>",
        "#",
        "!",
        "0",
        "1.5",
        "-inf",
        "float",
        "seq",
        "x",
        "\"s\"",
        "2u8",
        "'c'",
        "#![unchecked]",
        "#![allow(x)]",
    ];
    let mut rng = XorShift(0x2545_f491_4f6c_dd1d);
    let outputs = [
        Output::Model,
        Output::Graph,
        Output::Function,
        Output::Functions,
        Output::Node,
        Output::Nodes,
    ];
    for seed in seeds {
        let words: Vec<&str> = seed
            .split_inclusive(|c: char| !c.is_alphanumeric())
            .collect();
        for _ in 0..300 {
            let mut mutant: Vec<&str> = words.clone();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(mutant.len() + 1);
                match rng.below(3) {
                    0 if at < mutant.len() => {
                        mutant.remove(at);
                    }
                    1 => mutant.insert(at, fragments[rng.below(fragments.len())]),
                    _ => mutant.insert(at, " "),
                }
            }
            // Only what Rust can lex reaches a proc macro.
            let Ok(stream) = mutant.concat().parse::<TokenStream>() else {
                continue;
            };
            for output in outputs {
                let _ = expand(output, stream.clone());
            }
        }
    }
}
