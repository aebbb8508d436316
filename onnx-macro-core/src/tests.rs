//! Unit tests of the expansion, outside the compiler (proc-macro2 runs on its own there).

use proc_macro2::{Span, TokenStream};

use crate::expand::{expand, include, include_bytes, settings};
use crate::tokens::{Layout, Source};
use onnx_syntax::Entry;

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
    // The group `(x)` was read from source, so its text is taken whole.
    assert_eq!(
        source.text,
        "y = Foo < a = -5 , b = 1.e5 , c = - 5 > (x) => z"
    );
}

#[test]
fn compact_layout_takes_groups_read_from_source_whole() {
    let source = Source::from_tokens(
        tokens("g (x) => (y) {\n  y = Foo <a = [1,  2]> (x)  // done\n}"),
        Layout::Compact,
    )
    .unwrap_or_else(|_| panic!("lexable"));
    assert_eq!(
        source.text,
        "g (x) => (y) {\n  y = Foo <a = [1,  2]> (x)         \n}"
    );
    // A group that the token walk must judge (here for its `#`) is walked token by token.
    let walked = Source::from_tokens(tokens("g { a = F(r#type) }"), Layout::Compact)
        .unwrap_or_else(|_| panic!("lexable"));
    assert_eq!(walked.text, "g { a = F ( type ) }");
}

#[test]
fn verbatim_text_blanks_comments_and_refuses_what_tokens_must_judge() {
    use crate::verbatim::without_comments;
    let (block, line) = ("/* x /* nested */ y */", "// c");
    assert_eq!(
        without_comments(&format!("{{ a {block} b {line}\n d }}")),
        Some(format!(
            "{{ a {} b {}\n d }}",
            " ".repeat(block.len()),
            " ".repeat(line.len())
        ))
    );
    // Comment markers and `#` inside strings are string contents.
    assert_eq!(
        without_comments(r#"{ s = "// /* # $ ' é" }"#).as_deref(),
        Some(r#"{ s = "// /* # $ ' é" }"#)
    );
    for refused in [
        "{ # }",
        "{ $x }",
        "{ 'a' }",
        r#"{ r"raw" }"#,
        r#"{ b"bytes" }"#,
        "{ /// doc\n }",
        "{ //! doc\n }",
        "{ /** doc */ }",
        "{ /*! doc */ }",
        "{ café }",
        r#"{ "open }"#,
        "{ /* open }",
    ] {
        assert_eq!(without_comments(refused), None, "{refused}");
    }
}

/// `without_comments` against a byte-by-byte model of it (its first version, before it searched
/// with memchr), on texts made of the bytes it decides on.
mod verbatim_model {
    use proptest::prelude::*;

    use crate::verbatim::without_comments;

    fn model(text: &str) -> Option<String> {
        let bytes = text.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            let c = bytes[i];
            let next = bytes.get(i + 1).copied();
            let after = bytes.get(i + 2).copied();
            match (c, next) {
                (b'"', _) => {
                    if i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_') {
                        return None;
                    }
                    let mut end = i + 1;
                    loop {
                        match bytes.get(end) {
                            Some(b'\\') => end += 2,
                            Some(b'"') => break,
                            Some(_) => end += 1,
                            None => return None,
                        }
                    }
                    out.extend_from_slice(&bytes[i..=end]);
                    i = end + 1;
                }
                (b'/', Some(b'/')) => {
                    if matches!(after, Some(b'/' | b'!')) {
                        return None;
                    }
                    while i < bytes.len() && bytes[i] != b'\n' {
                        out.push(b' ');
                        i += 1;
                    }
                }
                (b'/', Some(b'*')) => {
                    if matches!(after, Some(b'*' | b'!')) {
                        return None;
                    }
                    let mut depth = 0;
                    loop {
                        if i + 1 >= bytes.len() {
                            return None;
                        }
                        let pair = (bytes[i], bytes[i + 1]);
                        if pair == (b'/', b'*') || pair == (b'*', b'/') {
                            depth += if pair.0 == b'/' { 1 } else { -1 };
                            out.extend_from_slice(b"  ");
                            i += 2;
                            if depth == 0 {
                                break;
                            }
                        } else {
                            out.push(if bytes[i] == b'\n' { b'\n' } else { b' ' });
                            i += 1;
                        }
                    }
                }
                (b'#' | b'$' | b'\'' | 0x80.., _) => return None,
                _ => {
                    out.push(c);
                    i += 1;
                }
            }
        }
        String::from_utf8(out).ok()
    }

    /// Texts of up to 40 pieces: mostly characters that `without_comments` keeps or decides on,
    /// and strings, now and then a stray quote or backslash, or a character that it refuses
    /// outside strings.
    fn text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            20 => "[ a_1\n/*!]",
            3 => "\"[a #$'é/*\\\\]{0,4}\"",
            2 => "[\"\\\\]",
            1 => "[#$'é]",
        ];
        proptest::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

        #[test]
        fn without_comments_matches_a_byte_by_byte_model(text in text()) {
            prop_assert_eq!(without_comments(&text), model(&text));
        }
    }
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
    assert_eq!(source.pieces.len(), 4); // `y`, `=`, `Foo` and the group `(x)`, whole
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
        "#![allow(undefined_value, duplicate_definition)] #![unchecked] y = Relu(x)",
    ))
    .unwrap();
    assert!(settings.unchecked);
    assert_eq!(
        settings
            .allowed
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>(),
        ["undefined_value", "duplicate_definition"]
    );
    assert_eq!(body.to_string(), "y = Relu (x)");
}

#[test]
fn valid_input_expands_to_a_decode_of_bytes() {
    let expansion = expand(Entry::Node, tokens("y = Relu(x)")).to_string();
    assert!(
        expansion
            .starts_with(":: onnx_text :: __private :: decode :: < :: onnx_text :: NodeProto >"),
        "{expansion}"
    );
    let list = expand(Entry::Nodes, tokens("a = F() b = G(a)")).to_string();
    assert!(list.contains("decode_list"), "{list}");
}

#[test]
fn errors_expand_to_compile_errors_and_a_default_value() {
    let expansion = expand(
        Entry::Graph,
        tokens("g (x) => (y) { t = Abs(q) t = Neg(r) }"),
    )
    .to_string();
    // q and r undefined, t defined twice (and its label, "first defined here"), y never made.
    assert_eq!(expansion.matches("compile_error").count(), 5, "{expansion}");
    assert!(expansion.contains("value `q` is used but never defined"));
    assert!(expansion.contains("[duplicate_definition] first defined here"));
    assert!(
        expansion.contains(
            "< :: onnx_text :: GraphProto as :: core :: default :: Default > :: default ()"
        )
    );
}

// The files are the proc-macro crate's, whose doc examples include them too.
#[test]
fn include_errors_name_the_file_line_and_column() {
    let expansion = include(tokens("\"../onnx-macro/tests/data/broken.onnxtxt\"")).to_string();
    assert!(
        expansion.contains("--> ../onnx-macro/tests/data/broken.onnxtxt:4:16"),
        "{expansion}"
    );
    assert!(
        expansion.contains("include_bytes"),
        "the file is a dependency: {expansion}"
    );
    let missing = include(tokens("\"../onnx-macro/tests/data/missing.onnxtxt\"")).to_string();
    assert!(missing.contains("cannot read"), "{missing}");
}

#[test]
fn include_refuses_external_data_unless_allowed() {
    let expansion = include(tokens("\"../onnx-macro/tests/data/external.onnxtxt\"")).to_string();
    assert!(expansion.contains("compile_error"), "{expansion}");
    assert!(
        expansion.contains(
            "tensor `w` of `../onnx-macro/tests/data/external.onnxtxt` keeps its data in a file, which \
             `include_onnx!` does not read"
        ),
        "{expansion}"
    );
    // Allowed, the model keeps the reference, as `onnx!` and the runtime parser do.
    let allowed = "#![allow(external_data)] \"../onnx-macro/tests/data/external.onnxtxt\"";
    let expansion = include(tokens(allowed)).to_string();
    assert!(!expansion.contains("compile_error"), "{expansion}");
    assert!(expansion.contains("include_bytes"), "{expansion}");
}

/// `include_onnx_bytes!` runs the checks of `include_onnx!` on the file and reports the same
/// errors; what it expands to is the byte string that `include_onnx!`'s expansion decodes.
#[test]
fn include_bytes_checks_as_include_does_and_expands_to_its_bytes() {
    let file = "\"../onnx-macro/tests/data/relu.onnxtxt\"";
    let value = include(tokens(file)).to_string();
    let bytes = include_bytes(tokens(file)).to_string();
    // `match include_bytes!("…") { _ => b"…" as &'static [u8], }`: the arm is the encoding.
    let (_, literal) = bytes.rsplit_once("_ => ").expect("the arm");
    let (literal, _) = literal.split_once(" as ").expect("the cast");
    assert!(literal.starts_with("b\"") && literal.len() > 10, "{bytes}");
    assert!(value.contains(literal), "{value}\n{bytes}");
    assert!(
        bytes.starts_with("match :: core :: include_bytes !"),
        "{bytes}"
    );
    assert!(!bytes.contains("onnx_text"), "{bytes}");
    assert!(!bytes.contains("decode"), "{bytes}");
    for broken in [
        "\"../onnx-macro/tests/data/broken.onnxtxt\"",
        "\"../onnx-macro/tests/data/external.onnxtxt\"",
        "\"../onnx-macro/tests/data/missing.onnxtxt\"",
    ] {
        let errors = |expansion: String| {
            expansion
                .split("compile_error")
                .skip(1)
                .map(|e| e.split(')').next().unwrap_or_default().to_string())
                .collect::<Vec<_>>()
        };
        let bytes = include_bytes(tokens(broken)).to_string();
        assert!(!errors(bytes.clone()).is_empty(), "{bytes}");
        assert_eq!(errors(bytes), errors(include(tokens(broken)).to_string()));
    }
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
        "#![fallible]",
        "#x",
        "..#xs",
        "#(1 + 2)",
        "..#(v.iter())",
    ];
    let mut rng = XorShift(0x2545_f491_4f6c_dd1d);
    let outputs = MACRO_ENTRIES;
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

#[test]
fn deeply_nested_groups_are_an_error_not_a_stack_overflow() {
    let limit = crate::tokens::MAX_GROUP_NESTING;
    let deepest = format!("y = Foo {}x{}", "(".repeat(limit), ")".repeat(limit));
    let expansion = expand(Entry::Node, tokens(&deepest)).to_string();
    assert!(!expansion.contains("brackets nest"), "{expansion}");
    for (open, close) in [("(", ")"), ("[", "]"), ("{", "}")] {
        let text = format!("y = Foo {}x{}", open.repeat(100_000), close.repeat(100_000));
        let stream = tokens(&text);
        for output in [Entry::Node, Entry::Model] {
            let expansion = expand(output, stream.clone()).to_string();
            assert!(
                expansion.contains("brackets nest more than 64 levels deep here"),
                "{}",
                &expansion[..200]
            );
        }
    }
}

/// Mutants of the conformance corpus texts that Rust can lex: every handwritten case, mutated
/// as the mutation test above mutates its seeds.
#[test]
fn mutated_corpus_texts_as_tokens_never_panic() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/handwritten");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "onnxtxt"))
        .collect();
    paths.sort();
    let mut rng = XorShift(0x51_7cc1_b727_220a);
    let mut expanded = 0;
    for path in paths {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let words: Vec<&str> = text
            .split_inclusive(|c: char| !c.is_alphanumeric())
            .collect();
        for _ in 0..2 {
            let mut mutant = words.clone();
            let at = rng.below(mutant.len() + 1);
            match rng.below(3) {
                0 if at < mutant.len() => {
                    mutant.remove(at);
                }
                1 => mutant.insert(
                    at,
                    ["(", "}", "<", "-", "=", ",", "\"s\"", "1.5"][rng.below(8)],
                ),
                _ => {}
            }
            let Ok(stream) = mutant.concat().parse::<TokenStream>() else {
                continue;
            };
            let output = MACRO_ENTRIES[rng.below(MACRO_ENTRIES.len())];
            let _ = expand(output, stream);
            expanded += 1;
        }
    }
    assert!(expanded > 1000, "{expanded} mutants lexed as Rust");
}

/// Holes (`#x`, `..#xs`, `#(expr)`, and `#` misused) inserted at random token positions of every
/// handwritten corpus text: the macro reports misplaced holes and never panics, and holes that
/// land where values may go expand.
#[test]
fn holes_inserted_into_corpus_texts_never_panic() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/handwritten");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "onnxtxt"))
        .collect();
    paths.sort();
    let holes = [
        "#x",
        "..#xs",
        "#(1 + 2)",
        "..#(v.iter())",
        "#(\"n\")",
        "#",
        "..#",
        "#[x]",
        "#3",
        "# x",
    ];
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let (mut expanded, mut clean) = (0, 0);
    for path in paths {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let entry = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let output = match entry.rsplit('.').next() {
            Some("graph") => Entry::Graph,
            Some("function") => Entry::Function,
            Some("node") => Entry::Node,
            _ => Entry::Model,
        };
        let words: Vec<&str> = text
            .split_inclusive(|c: char| !c.is_alphanumeric())
            .collect();
        for _ in 0..4 {
            let mut mutant = words.clone();
            for _ in 0..1 + rng.below(3) {
                // Replace a word (a likely name or number) or insert between words.
                let at = rng.below(mutant.len() + 1);
                let hole = holes[rng.below(holes.len())];
                if at < mutant.len() && rng.below(2) == 0 {
                    mutant[at] = hole;
                } else {
                    mutant.insert(at, hole);
                }
                mutant.insert(at + 1, " ");
            }
            // The snippets leave the main graph's outputs untyped: `missing_type` is off, so
            // that the mutants that are valid otherwise expand.
            let text = format!("#![allow(missing_type)] {}", mutant.concat());
            let Ok(stream) = text.parse::<TokenStream>() else {
                continue;
            };
            let expansion = expand(output, stream).to_string();
            expanded += 1;
            clean += usize::from(!expansion.contains("compile_error"));
        }
    }
    assert!(expanded > 1000, "{expanded} mutants lexed as Rust");
    // This seed gives 48 mutants without errors; most random positions are not value positions.
    assert!(
        clean > 40,
        "only {clean} of {expanded} mutants expanded without errors"
    );
}

/// The entry points that the macros serve (every one but the braced node list).
const MACRO_ENTRIES: [Entry; 6] = [
    Entry::Model,
    Entry::Graph,
    Entry::Function,
    Entry::Functions,
    Entry::Node,
    Entry::Nodes,
];

/// Random token trees: identifiers and punctuation that ONNX text uses (and some it does not),
/// literals of every Rust kind, and groups of every delimiter, nested.
mod random_trees {
    use proc_macro2::{
        Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree,
    };
    use proptest::prelude::*;

    use super::MACRO_ENTRIES;
    use crate::expand::{expand, include, settings};
    use crate::tokens::{Layout, Source};

    const WORDS: &[&str] = &[
        "g",
        "x",
        "y",
        "Foo",
        "Relu",
        "float",
        "int64",
        "int4",
        "string",
        "seq",
        "map",
        "optional",
        "sparse_tensor",
        "opaque",
        "ir_version",
        "opset_import",
        "domain",
        "doc_string",
        "overload",
        "inf",
        "nan",
        "NaN",
        "infinity",
        "unchecked",
        "allow",
        "duplicate_definition",
        "undefined_value",
        "ints",
        "tensor",
        "graph",
        "_",
        "e5",
    ];
    const PUNCTS: &[char] = &[
        '=', '<', '>', ',', ':', '.', '@', '?', '-', '#', '!', ';', '+', '*', '/', '&', '|', '^',
        '%', '~', '$', '\'',
    ];
    const LITERALS: &[&str] = &[
        "0",
        "1",
        "007",
        "1.5",
        "1e5",
        "1E-5",
        "2.",
        "1e309",
        "9223372036854775808",
        "2u8",
        "1.5f32",
        "0x10",
        "1_000",
        "'c'",
        "b'c'",
        "b\"bytes\"",
        "c\"c\"",
        "r\"raw\"",
        "r#\"raw\"#",
        "\"\"",
        "\"a\\\"b\"",
        "\"\\0\"",
        "\"\\u{feff}\"",
        "\"multi\nline\"",
    ];

    fn leaf() -> impl Strategy<Value = TokenTree> {
        prop_oneof![
            prop::sample::select(WORDS)
                .prop_map(|w| TokenTree::Ident(Ident::new(w, Span::call_site()))),
            Just(TokenTree::Ident(Ident::new_raw("type", Span::call_site()))),
            (prop::sample::select(PUNCTS), any::<bool>()).prop_map(|(c, joint)| {
                let spacing = if joint {
                    Spacing::Joint
                } else {
                    Spacing::Alone
                };
                TokenTree::Punct(Punct::new(c, spacing))
            }),
            prop::sample::select(LITERALS).prop_map(|text| {
                let stream: TokenStream = text.parse().expect("a Rust literal");
                stream.into_iter().next().expect("one token")
            }),
            any::<i64>().prop_map(|n| TokenTree::Literal(Literal::i64_unsuffixed(n))),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(|f| TokenTree::Literal(Literal::f64_unsuffixed(f))),
            any::<String>().prop_map(|s| TokenTree::Literal(Literal::string(&s))),
        ]
    }

    fn tree() -> impl Strategy<Value = TokenTree> {
        leaf().prop_recursive(6, 200, 12, |inner| {
            let delimiter = prop::sample::select(vec![
                Delimiter::Parenthesis,
                Delimiter::Brace,
                Delimiter::Bracket,
                Delimiter::None,
            ]);
            (delimiter, prop::collection::vec(inner, 0..12)).prop_map(|(delimiter, trees)| {
                TokenTree::Group(Group::new(delimiter, trees.into_iter().collect()))
            })
        })
    }

    fn stream() -> impl Strategy<Value = TokenStream> {
        prop::collection::vec(tree(), 0..40).prop_map(|trees| trees.into_iter().collect())
    }

    /// Valid literals, for random trees to be spliced into.
    const SEEDS: &[&str] = &[
        r#"<ir_version: 10, opset_import: ["" : 21]> g (float[N] x, float[2] w = {1, 2}) => (float[N] y) { t = Foo <a: floats = [1, 2.5], b = g2 () => (z) { z = Id() }> (x, "", w) y = Add (t, x) }"#,
        r#"<domain: "local"> F <a, b: int = 1> (x) => (y) { y = Foo <c = @a, t = seq(map(int64, optional(float[N, ?])))> (x) }"#,
        "[n] y, , z = com.ms.Foo:ov <s = \"a\", v = int4[3] {33, 3}, o = opaque(a.b, T)> (,x,)",
    ];

    #[test]
    fn the_seeds_are_valid_syntax() {
        use onnx_syntax::Entry;
        for (seed, output) in SEEDS
            .iter()
            .zip([Entry::Model, Entry::Function, Entry::Node])
        {
            let input: TokenStream = format!("#![unchecked] {seed}").parse().unwrap();
            let expansion = expand(output, input).to_string();
            assert!(!expansion.contains("compile_error"), "{expansion}");
        }
    }

    /// A valid literal's tokens with random trees put in, in place of some of its tokens.
    fn spliced() -> impl Strategy<Value = TokenStream> {
        let edits =
            prop::collection::vec((any::<prop::sample::Index>(), any::<bool>(), tree()), 1..4);
        (prop::sample::select(SEEDS), edits).prop_map(|(seed, edits)| {
            let mut tokens: Vec<TokenTree> = seed
                .parse::<TokenStream>()
                .expect("lexes")
                .into_iter()
                .collect();
            for (at, replace, tree) in edits {
                let at = at.index(tokens.len() + 1);
                if replace && at < tokens.len() {
                    tokens[at] = tree;
                } else {
                    tokens.insert(at, tree);
                }
            }
            tokens.into_iter().collect()
        })
    }

    fn expand_everything(input: TokenStream) {
        for layout in [Layout::Compact, Layout::Faithful] {
            if let Ok(source) = Source::from_tokens(input.clone(), layout) {
                let _ = source.spans(0, source.text.len() as u32);
            }
        }
        let _ = settings(input.clone());
        for output in MACRO_ENTRIES {
            let _ = expand(output, input.clone());
        }
        // include_onnx! with anything but a string literal.
        if !matches!(
            input.clone().into_iter().next(),
            Some(TokenTree::Literal(_))
        ) {
            let _ = include(input);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

        #[test]
        fn valid_literals_with_random_trees_spliced_in_never_panic(input in spliced()) {
            expand_everything(input);
        }

        #[test]
        fn random_token_trees_never_panic(input in stream()) {
            expand_everything(input);
        }
    }
}

#[test]
fn hole_markers_in_messages_are_written_as_the_holes() {
    use crate::diagnostics::with_holes_shown;
    use crate::tokens::HoleExpr;
    let hole = |expr: &str, spread, named| HoleExpr {
        expr: expr.parse().unwrap(),
        spread,
        span: Span::call_site(),
        named,
    };
    let holes = [hole("b", false, true), hole("dims . len ()", true, false)];
    assert_eq!(
        with_holes_shown("inner dims differ: [\u{E000}0, 3] by [4, 2]", &holes),
        "inner dims differ: [#b, 3] by [4, 2]"
    );
    assert_eq!(
        with_holes_shown("x \u{E001}1 and \u{E000}7, \u{E000}", &holes),
        "x ..#(dims . len ()) and ?, ?"
    );
    assert_eq!(with_holes_shown("no holes", &holes), "no holes");
}

/// A literal that names a library expands to a request to the library's macro, which calls the
/// same macro back with the input unchanged.
#[test]
fn a_library_path_expands_to_a_request_that_calls_back_with_the_input() {
    let input = "#![allow(undefined_value)] #![library(acme::ACME)] g (x) => (y) { y = Relu (x) }";
    let expanded = expand(Entry::Graph, tokens(input)).to_string();
    assert_eq!(
        expanded,
        tokens(&format!(
            "acme::ACME ! {{ @onnx_text_library 1 \"{}\" [::onnx_text::onnx_graph] {{ {input} }} }}",
            env!("CARGO_PKG_VERSION")
        ))
        .to_string()
    );
}

/// The answers come prepended, the last one read answering the first path; a second path is
/// asked for once the first has answered.
#[test]
fn answers_are_matched_to_paths_in_order() {
    let answer = |text: &str| format!("#![__onnx_text_library(1, \"0.1.0\", {text:?})]");
    let a = r#"<domain: "a"> F (x) => (y) { y = Abs (x) }"#;
    let input = format!(
        "{} #![library(p::A, q::B)] g (x) => (y) {{ y = a.F (x) }}",
        answer(a)
    );
    let expanded = expand(Entry::Graph, tokens(&input)).to_string();
    assert!(expanded.starts_with("q :: B !"), "{expanded}");
    let b = r#"<domain: "b"> G (x) => (y) { y = Neg (x) }"#;
    let both = format!("{} {input}", answer(b));
    let (settings, _) = settings(tokens(&both)).unwrap_or_else(|_| panic!("settings"));
    let in_view = settings
        .in_view()
        .unwrap_or_else(|_| panic!("answers parse"));
    let names: Vec<&str> = in_view.view().iter().map(|(name, _)| *name).collect();
    assert_eq!(names, ["p::A", "q::B"]);
    assert_eq!(in_view.texts, [a, b]);
    // With both answered, the call `b.G` with two inputs is checked against `q::B`.
    let call = both.replace("a.F (x)", "b.G (x, x)");
    let expanded = expand(Entry::Graph, tokens(&call)).to_string();
    assert!(
        expanded.contains("function `b.G` (library `q::B`) declares 1 input, found 2"),
        "{expanded}"
    );
}

/// An answer of another library format is an error naming both versions.
#[test]
fn an_answer_of_another_format_names_both_versions() {
    let input = "#![__onnx_text_library(2, \"9.0.0\", \"\")] #![library(p::A)] g (x) => (y) { y = Relu (x) }";
    let expanded = expand(Entry::Graph, tokens(input)).to_string();
    assert!(
        expanded.contains(&format!(
            "this library was made by onnx-text 9.0.0 (library format 2), but the literal is read \
             by onnx-text {} (library format 1)",
            env!("CARGO_PKG_VERSION")
        )),
        "{expanded}"
    );
}

/// `onnx_library!` expands to the static, the answering macro and its `use` under the static's
/// name; the macro carries the texts of the libraries it builds on, then its own.
#[test]
fn a_library_expands_to_its_static_and_the_macro_that_answers_for_it() {
    let base = r#"<domain: "a"> F (x) => (y) { y = Abs (x) }"#;
    let input = format!(
        "#![__onnx_text_library(1, \"0.1.0\", {base:?})] #![library(p::A)] \
         /// Mine.\n pub(crate) static MINE; <domain: \"b\", opset_import: [\"a\" : 1]> G (x) => (y) {{ y = a.F (x) }}"
    );
    let expanded = crate::opset::library(tokens(&input)).to_string();
    assert!(expanded.contains("pub (crate) static MINE"), "{expanded}");
    assert!(expanded.contains("macro_export"), "{expanded}");
    assert!(
        expanded.contains("pub (crate) use __onnx_text_library_MINE_"),
        "{expanded}"
    );
    assert!(expanded.contains(&format!("{base:?}")), "{expanded}");
    assert!(expanded.contains("## `b.G`"), "{expanded}");
    assert!(expanded.contains("G (x) => (y)"), "{expanded}");
    // A call the base library does not define is an error, as in a literal.
    let wrong = input.replace("a.F (x)", "a.E (x)");
    let expanded = crate::opset::library(tokens(&wrong)).to_string();
    assert!(expanded.contains("compile_error"), "{expanded}");
    assert!(
        expanded.contains("the functions there are `F` (library `p::A`)"),
        "{expanded}"
    );
}

/// Two libraries may share functions (one built on the other), but not define one differently.
#[test]
fn libraries_in_view_share_identical_functions_only() {
    let answer = |text: &str| format!("#![__onnx_text_library(1, \"0.1.0\", {text:?})]");
    let f = r#"<domain: "a"> F (x) => (y) { y = Abs (x) }"#;
    let g = r#"<domain: "a"> G (x) => (y) { y = Neg (x) }"#;
    let input = |second: &str| {
        format!(
            "#![__onnx_text_library(1, \"0.1.0\", {f:?}, {second:?})] {} #![library(p::A, q::B)] \
             g (x) => (y) {{ y = a.F (x) }}",
            answer(f)
        )
    };
    let (shared, _) = settings(tokens(&input(g))).unwrap_or_else(|_| panic!("settings"));
    let in_view = shared
        .in_view()
        .unwrap_or_else(|_| panic!("identical functions are shared"));
    assert_eq!(in_view.all.len(), 2);
    assert_eq!(in_view.texts, [f, g]);
    let other_f = r#"<domain: "a"> F (x) => (y) { y = Neg (x) }"#;
    let conflicting = input(other_f).replacen(&format!("{f:?}, "), "", 1);
    let (settings, _) = settings(tokens(&conflicting)).unwrap_or_else(|_| panic!("settings"));
    let error = settings.in_view().map(drop).unwrap_err().to_string();
    assert_eq!(
        error,
        "library `q::B` defines `a.F` otherwise than a library named before it"
    );
}

#[test]
fn doc_comments_in_a_library_become_doc_strings_or_say_what_is_wrong() {
    let library = |text: &str| crate::opset::library(tokens(text)).to_string();
    let both = library(
        "pub static L; /// Docs. \n <domain: \"d\", doc_string: \"also\"> F (x) => (y) { y = Abs(x) }",
    );
    assert!(
        both.contains("has `///` comments and a `doc_string` in its header: keep one"),
        "{both}"
    );
    let dangling = library("pub static L; <domain: \"d\"> F (x) => (y) { y = Abs(x) } /// Docs.");
    assert!(dangling.contains("and none follows"), "{dangling}");
    // The listing in rustdoc shows the doc string under the function.
    let listed = library(
        "pub static L; /// Squares.\n <domain: \"d\", opset_import: [\"\" : 21]> Sq (x) => (y) { y = Mul(x, x) }",
    );
    assert!(listed.starts_with("# [doc = "), "{listed}");
    assert!(listed.contains(r"\nSquares.\n"), "{listed}");
    assert!(
        listed.contains(r#"Provides domain `\"d\"` at version 1"#),
        "{listed}"
    );
}

#[test]
fn a_doc_comment_outside_a_library_says_what_it_is() {
    let expansion = expand(
        Entry::Graph,
        tokens("g (x) => (y) { /// Negates.\n y = Neg(x) }"),
    )
    .to_string();
    assert!(
        expansion.contains("a `///` doc comment is not available here"),
        "{expansion}"
    );
}

#[test]
fn a_broken_library_is_declared_and_what_names_it_says_nothing_more() {
    // The library has an error: it reports it, and still declares the static and its macro,
    // which answers that it is broken.
    let library = crate::opset::library(tokens(
        "pub static BASE; <domain: \"d\", opset_import: [\"\" : 21]> F (x) => (y) { y = Rleu(x) }",
    ))
    .to_string();
    assert!(library.contains("compile_error"), "{library}");
    assert!(library.contains("pub static BASE"), "{library}");
    assert!(
        library.contains("__onnx_text_library (1 , \"0.1.0\" , broken)"),
        "{library}"
    );
    // A literal that receives that answer is a placeholder with no error of its own.
    let answered = "#![__onnx_text_library(1, \"0.1.0\", broken)] #![library(crate::BASE)] \
                    <ir_version: 10, opset_import: [\"\" : 21, \"d\" : 1]> g (x) => (y) { y = d.F(x) }";
    let literal = expand(Entry::Model, tokens(answered)).to_string();
    assert!(!literal.contains("compile_error"), "{literal}");
    assert!(literal.contains("default"), "{literal}");
    // So is a library built on it, which passes the word on.
    let built_on = "#![__onnx_text_library(1, \"0.1.0\", broken)] #![library(crate::BASE)] \
                    pub static LAYERS; <domain: \"e\", opset_import: [\"d\" : 1]> G (x) => (y) { y = d.F(x) }";
    let layers = crate::opset::library(tokens(built_on)).to_string();
    // No error of its own: the expansion starts with the static.
    assert!(layers.starts_with("pub static LAYERS"), "{layers}");
    assert!(layers.contains("broken)"), "{layers}");
}

/// A big literal is parsed twice, on two threads (`onnx_check::check_and_lower_split`): the
/// holes' places come from this thread's tree, and errors are reported as for a small one.
#[test]
fn big_literals_expand_as_small_ones_do() {
    let literal = |header: &str, last: &str| {
        let mut text = format!("<{header}> g (float[N] x0) => (float[N] y) {{\n");
        for i in 0..2000 {
            text += &format!("  x{} = LeakyRelu <alpha = #alpha> (x{i})\n", i + 1);
        }
        text + last + "\n}"
    };
    let text = literal(
        "ir_version: #version, opset_import: [\"\" : 21]",
        "y = Identity (x2000)",
    );
    assert!(text.len() >= onnx_check::BIG_TEXT);
    let expansion = expand(Entry::Model, tokens(&text)).to_string();
    assert!(!expansion.contains("compile_error"), "{expansion}");
    assert!(
        expansion.contains("(version)"),
        "the header's hole is patched"
    );
    assert_eq!(expansion.matches("(alpha)").count(), 2000);

    let wrong = literal("opset_import: [\"\" : 21]", "y = Identity (x2001)");
    let expansion = expand(Entry::Model, tokens(&wrong)).to_string();
    assert!(
        expansion.contains("value `x2001` is used but never defined"),
        "{expansion}"
    );
}
