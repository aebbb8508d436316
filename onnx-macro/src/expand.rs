//! Expansion: macro input tokens to the expression that builds the value, or to spanned errors.
//!
//! This is the library entry point of every macro. It takes and returns `proc_macro2` tokens, so
//! it runs (and is tested) outside the compiler too.

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use prost::Message;
use quote::quote;

use onnx_syntax::check::{self, Check, Diagnostic, Diagnostics, Options};
use onnx_syntax::parse::Parser;
use onnx_syntax::{ParseError, lower};

use crate::codegen::{self, Output};
use crate::tokens::{Layout, Source, TokenError};
use crate::{diagnostics, encode};

/// What the `#![…]` attributes at the start of a literal ask for.
#[derive(Debug, Default)]
pub struct Settings {
    /// `#![unchecked]`: no semantic checks, syntax only.
    pub unchecked: bool,
    /// `#![allow(name, …)]`: checks switched off by name.
    pub allowed: Vec<(String, Span)>,
}

/// Expands a macro whose input is ONNX text as Rust tokens.
pub fn expand(output: Output, input: TokenStream) -> TokenStream {
    match expand_tokens(output, input) {
        Ok(tokens) => tokens,
        Err(errors) => codegen::failed(output, errors),
    }
}

fn expand_tokens(output: Output, input: TokenStream) -> Result<TokenStream, syn::Error> {
    let (settings, body) = settings(input)?;
    let options = settings.options()?;
    let token_error = |e: TokenError| syn::Error::new(e.span, e.message);
    let compact = Source::from_tokens(body.clone(), Layout::Compact).map_err(token_error)?;
    if let Ok(tokens) = build(output, &compact.text, &options) {
        return Ok(tokens);
    }
    // Report from the faithful layout, whose line numbers (quoted in some messages) are the
    // file's, and which is built from the tokens alone. The compact text takes groups' source
    // text as a shortcut (see `verbatim`); should it ever disagree with the tokens, the tokens
    // decide.
    let faithful = Source::from_tokens(body, Layout::Faithful).map_err(token_error)?;
    let problems = match build(output, &faithful.text, &options) {
        Ok(tokens) => return Ok(tokens),
        Err(problems) => problems,
    };
    let errors = problems
        .iter()
        .map(|d| diagnostics::at_text(&faithful, d.span(), d.message()));
    Err(diagnostics::combine(errors)
        .unwrap_or_else(|| syn::Error::new(Span::call_site(), "invalid ONNX text")))
}

/// Parses `text` as `output` requires, runs the checks that `options` enable, and generates the
/// code that builds the value. On failure, returns every problem found.
pub fn build(
    output: Output,
    text: &str,
    options: &Options,
) -> Result<TokenStream, Vec<Diagnostic>> {
    let parser = Parser::new(text).map_err(|e| vec![Diagnostic::from(&e)])?;
    Ok(match output {
        Output::Model => {
            let tree = checked(parser.model(), |t| check::model(t, text, options))?;
            codegen::single(output, &encode::model(lower::model(tree)))
        }
        Output::Graph => {
            let tree = checked(parser.graph(), |t| check::graph(t, text, options))?;
            codegen::single(output, &encode::graph(lower::graph(tree)))
        }
        Output::Function => {
            let tree = checked(parser.function(), |t| check::function(t, text, options))?;
            codegen::single(output, &lower::function(tree).encode_to_vec())
        }
        Output::Node => {
            let tree = checked(parser.node(), |t| check::node(t, text, options))?;
            codegen::single(output, &lower::node(tree).encode_to_vec())
        }
        Output::Functions => {
            let tree = checked(parser.functions(), |t| check::functions(t, text, options))?;
            codegen::list(
                output,
                &tree.into_iter().map(lower::function).collect::<Vec<_>>(),
            )
        }
        Output::Nodes => {
            let tree = checked(parser.nodes(), |t| check::nodes(t, text, options))?;
            codegen::list(
                output,
                &tree.into_iter().map(lower::node).collect::<Vec<_>>(),
            )
        }
    })
}

/// The parsed tree if it parsed and `check` finds nothing wrong with it, else every problem.
fn checked<T>(
    parsed: Result<T, ParseError>,
    check: impl FnOnce(&T) -> Vec<Diagnostic>,
) -> Result<T, Vec<Diagnostic>> {
    let tree = parsed.map_err(|e| vec![Diagnostic::from(&e)])?;
    let problems = check(&tree);
    if problems.is_empty() {
        Ok(tree)
    } else {
        Err(problems)
    }
}

impl Settings {
    /// The check options these settings ask for; unknown check names are errors.
    fn options(&self) -> Result<Options, syn::Error> {
        if self.unchecked {
            return Ok(Options::none());
        }
        let mut options = Options::all();
        let mut unknown = Vec::new();
        for (name, span) in &self.allowed {
            match Check::from_name(name) {
                Some(check) => options = options.allow(check),
                None => {
                    let known: Vec<&str> = Check::ALL.iter().map(|c| c.name()).collect();
                    let message = format!(
                        "unknown check `{name}`; the checks are {}",
                        known.join(", ")
                    );
                    unknown.push(syn::Error::new(*span, message));
                }
            }
        }
        match diagnostics::combine(unknown) {
            Some(errors) => Err(errors),
            None => Ok(options),
        }
    }
}

/// Splits off the `#![unchecked]` and `#![allow(…)]` attributes that may open a literal.
pub fn settings(input: TokenStream) -> Result<(Settings, TokenStream), syn::Error> {
    let mut settings = Settings::default();
    let mut tokens: Vec<TokenTree> = input.into_iter().collect();
    let mut consumed = 0;
    while let [
        TokenTree::Punct(hash),
        TokenTree::Punct(bang),
        TokenTree::Group(group),
        ..,
    ] = &tokens[consumed..]
    {
        if hash.as_char() != '#' || bang.as_char() != '!' || group.delimiter() != Delimiter::Bracket
        {
            break;
        }
        let inner: Vec<TokenTree> = group.stream().into_iter().collect();
        match inner.as_slice() {
            [TokenTree::Ident(word)] if word == "unchecked" => settings.unchecked = true,
            [TokenTree::Ident(word), TokenTree::Group(names)]
                if word == "allow" && names.delimiter() == Delimiter::Parenthesis =>
            {
                for name in names.stream() {
                    match name {
                        TokenTree::Ident(name) => {
                            settings.allowed.push((name.to_string(), name.span()))
                        }
                        TokenTree::Punct(comma) if comma.as_char() == ',' => {}
                        other => {
                            return Err(syn::Error::new(
                                other.span(),
                                "expected a check name, such as `ssa`",
                            ));
                        }
                    }
                }
            }
            _ => {
                return Err(diagnostics::between(
                    hash.span(),
                    group.span_close(),
                    "expected `#![unchecked]` or `#![allow(check, …)]`",
                ));
            }
        }
        consumed += 3;
    }
    let body: TokenStream = tokens.drain(consumed..).collect();
    Ok((settings, body))
}

/// `include_onnx!("path")`: a model read from a `.onnxtxt` file, relative to the crate root.
pub fn include(input: TokenStream) -> TokenStream {
    let output = Output::Model;
    let literal: syn::LitStr = match syn::parse2(input) {
        Ok(literal) => literal,
        Err(e) => {
            return codegen::failed(
                output,
                syn::Error::new(
                    e.span(),
                    "expected a file path: `include_onnx!(\"model.onnxtxt\")`",
                ),
            );
        }
    };
    let relative = literal.value();
    let root = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_default();
    let path = root.join(&relative);
    let text = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) => {
            let message =
                format!("cannot read `{relative}` (paths are relative to the crate root): {e}");
            return codegen::failed(output, syn::Error::new(literal.span(), message));
        }
    };
    // Depending on the file makes cargo rebuild when it changes.
    let path_literal = path.to_string_lossy().into_owned();
    let dependency = quote!(
        const _: &[u8] = ::core::include_bytes!(#path_literal);
    );
    let result = onnx_syntax::text_from_bytes(&text)
        .map_err(|e| vec![e.with_origin(relative.clone()).to_string()])
        .and_then(|text| {
            build(output, text, &Options::all()).map_err(|problems| {
                let diagnostics = Diagnostics::new(text, problems).with_origin(relative.clone());
                (0..diagnostics.len())
                    .filter_map(|i| diagnostics.render(i))
                    .collect()
            })
        });
    match result {
        Ok(value) => quote!({ #dependency #value }),
        Err(messages) => {
            // One compiler error per problem, each with the snippet of the file.
            let errors = messages
                .iter()
                .map(|m| syn::Error::new(literal.span(), untitled(m)));
            let errors = diagnostics::combine(errors)
                .unwrap_or_else(|| syn::Error::new(literal.span(), "invalid ONNX text"))
                .to_compile_error();
            let ty = output.value_type();
            quote!({ #dependency #errors <#ty as ::core::default::Default>::default() })
        }
    }
}

/// A rendered snippet without its `error: ` or `error[check]: ` title (the compiler error that
/// carries it has its own), and without its final line end.
fn untitled(rendered: &str) -> &str {
    let body = rendered.split_once(": ").map_or(rendered, |(_, rest)| rest);
    body.trim_end()
}
