//! `onnx_library!`: a function library in a static, checked as `onnx_functions!` is, documented
//! with every function's signature, and exported so that literals in other crates can name it
//! in `#![library(…)]` (see [`crate::libraries`] for how they see it).
//!
//! ```text
//! /// docs
//! pub static ACME;
//! <domain: "com.acme", opset_import: ["" : 21]>
//! Swish2 <beta: float = 1.0> (x) => (y) { … }
//! ```
//!
//! expands to the static, a hidden `#[macro_export] macro_rules!` that holds the library's
//! text (its own functions', after those of the libraries it builds on), and a `use` of that
//! macro under the static's name: macros and statics live in different namespaces, so
//! `acme::ACME` names both.

use std::hash::{DefaultHasher, Hash, Hasher};

use proc_macro2::{Delimiter, Ident, Literal, Span, TokenStream, TokenTree};
use quote::{format_ident, quote};

use onnx_check::library::{FunctionKey, FunctionLibrary};
use onnx_runtime_types::FunctionProto;
use onnx_syntax::syntax::Function;
use onnx_syntax::{Entry, Proto, Tree};

use crate::expand::{Bytes, Settings, checked_source, settings};
use crate::libraries::{self, ANSWER, FORMAT, Finish, VERSION};

/// Expands `onnx_library!`. A library that fails to build is still declared, empty and
/// marked broken, so that what names it reports nothing more than its own error.
///
/// ```
/// let input: proc_macro2::TokenStream = r#"
///     pub static ACME;
///     <domain: "com.acme", opset_import: ["" : 21]> Sq (x) => (y) { y = Mul(x, x) }
/// "#.parse().unwrap();
/// let expansion = onnx_macro_core::library(input).to_string();
/// // The library's static, decoding the functions encoded at compile time.
/// assert!(expansion.contains("pub static ACME"), "{expansion}");
/// ```
pub fn library(input: TokenStream) -> TokenStream {
    let (settings, body) = match settings(input.clone()) {
        Ok(split) => split,
        Err(errors) => return errors.to_compile_error(),
    };
    if let Some(request) = settings.request(quote!(::onnx_text::onnx_library), input) {
        return request;
    }
    let declaration = match Declaration::parse(body) {
        Ok(declaration) => declaration,
        Err(errors) => return errors.to_compile_error(),
    };
    if settings.broken_library {
        return broken(&declaration);
    }
    match library_tokens(&settings, &declaration) {
        Ok(tokens) => tokens,
        Err(errors) => {
            let errors = errors.to_compile_error();
            let broken = broken(&declaration);
            quote!(#errors #broken)
        }
    }
}

/// The items of a library that failed: the static, empty, and a macro that answers every
/// literal naming it that it is broken.
fn broken(declaration: &Declaration) -> TokenStream {
    let name = &declaration.name;
    let hidden = hidden_name(name, &[]);
    let broken = format_ident!("{}", libraries::BROKEN);
    let answer = answer_macro(&hidden, name, quote!(#broken));
    let attributes = &declaration.attributes;
    let visibility = &declaration.visibility;
    quote! {
        #(#attributes)*
        #(#visibility)* static #name: ::std::sync::LazyLock<::onnx_text::FunctionLibrary> =
            ::std::sync::LazyLock::new(::onnx_text::FunctionLibrary::new);
        #answer
        #[doc(hidden)]
        #[allow(unused_imports)]
        #(#visibility)* use #hidden as #name;
    }
}

/// The static's declaration: `#[attributes] vis static NAME;`, and the text after it.
struct Declaration {
    attributes: Vec<TokenTree>,
    visibility: Vec<TokenTree>,
    name: Ident,
    text: TokenStream,
}

const EXPECTED: &str =
    "expected the library's static first: `pub static NAME;`, then its functions";

impl Declaration {
    fn parse(body: TokenStream) -> Result<Declaration, syn::Error> {
        let mut tokens = body.into_iter().peekable();
        let mut attributes = Vec::new();
        // Outer attributes, `///` comments included (they arrive as `#[doc = "…"]`).
        while let Some(TokenTree::Punct(hash)) = tokens.peek() {
            if hash.as_char() != '#' {
                break;
            }
            attributes.extend(tokens.next());
            match tokens.next() {
                Some(group @ TokenTree::Group(_)) => attributes.push(group),
                other => return Err(error_at(other.as_ref(), EXPECTED)),
            }
        }
        let mut visibility = Vec::new();
        if let Some(TokenTree::Ident(word)) = tokens.peek()
            && word == "pub"
        {
            visibility.extend(tokens.next());
            if let Some(TokenTree::Group(scope)) = tokens.peek()
                && scope.delimiter() == Delimiter::Parenthesis
            {
                visibility.extend(tokens.next());
            }
        }
        match tokens.next() {
            Some(TokenTree::Ident(word)) if word == "static" => {}
            other => return Err(error_at(other.as_ref(), EXPECTED)),
        }
        let name = match tokens.next() {
            Some(TokenTree::Ident(name)) => name,
            other => return Err(error_at(other.as_ref(), "expected the static's name")),
        };
        match tokens.next() {
            Some(TokenTree::Punct(semi)) if semi.as_char() == ';' => {}
            other => {
                let message = "expected `;` after the static's name (its type is the library's)";
                return Err(error_at(other.as_ref(), message));
            }
        }
        Ok(Declaration {
            attributes,
            visibility,
            name,
            text: tokens.collect(),
        })
    }
}

fn error_at(token: Option<&TokenTree>, message: &str) -> syn::Error {
    syn::Error::new(token.map_or_else(Span::call_site, TokenTree::span), message)
}

fn library_tokens(
    settings: &Settings,
    declaration: &Declaration,
) -> Result<TokenStream, syn::Error> {
    if settings.finish != Finish::Check || settings.fallible {
        return Err(syn::Error::new(
            settings.finish_span.unwrap_or_else(Span::call_site),
            "a library takes `#![library(…)]` (to build on other libraries), `#![allow(…)]` and \
             `#![unchecked]`; `#![attach]`, `#![inline]` and `#![fallible]` are for literals",
        ));
    }
    let options = settings.options()?;
    let in_view = settings.in_view()?;
    let text = documented_functions(declaration.text.clone())?;
    let (checked, source) =
        checked_source(Entry::Functions, text, &options, &in_view, Bytes::Later)?;
    if let Some(hole) = source.holes.first() {
        return Err(syn::Error::new(
            hole.span,
            "a library is read by other crates at compile time, so it cannot hold Rust values \
             (`#x`): write the value",
        ));
    }
    let Proto::Functions(own) = checked.proto else {
        return Err(syn::Error::new(Span::call_site(), "expected functions"));
    };
    let name = &declaration.name;
    // The static holds the functions of the libraries it builds on, then its own, as the text
    // its macro hands to literals does.
    let mut all = in_view.all.clone();
    if let Err(e) = all.extend(own.iter().cloned()) {
        return Err(syn::Error::new(
            name.span(),
            format!("{e}: a library's functions may not repeat those it builds on"),
        ));
    }
    let mut texts = in_view.texts.clone();
    texts.push(source.text.clone());
    let functions: Vec<FunctionProto> = all.into_functions();
    let bytes = Literal::byte_string(&Proto::Functions(functions).encode());
    let listing = documentation(&source.text, &own, &settings.libraries_named());
    let hidden = hidden_name(name, &texts);
    let literals = texts.iter().map(|text| Literal::string(text));
    let answer = answer_macro(&hidden, name, quote!(#(#literals),*));
    let attributes = &declaration.attributes;
    let visibility = &declaration.visibility;
    Ok(quote! {
        #(#attributes)*
        #[doc = #listing]
        #(#visibility)* static #name: ::std::sync::LazyLock<::onnx_text::FunctionLibrary> =
            ::std::sync::LazyLock::new(|| ::onnx_text::__private::library(#bytes));
        #answer
        #[doc(hidden)]
        #[allow(unused_imports)]
        #(#visibility)* use #hidden as #name;
    })
}

/// The functions' text with each function's `///` comments (they arrive as `#[doc = "…"]`)
/// made its header's `doc_string`, so that the static, the text other crates read and rustdoc
/// all carry them: `/// Squares.` before `<domain: "d"> Square …` reads as
/// `<doc_string: "Squares.", domain: "d"> Square …`. Lines are joined with line ends, each
/// without the one space after `///`.
fn documented_functions(text: TokenStream) -> Result<TokenStream, syn::Error> {
    let mut out: Vec<TokenTree> = Vec::new();
    let mut lines: Vec<(String, Span)> = Vec::new();
    let mut tokens = text.into_iter().peekable();
    while let Some(token) = tokens.next() {
        if let TokenTree::Punct(hash) = &token
            && hash.as_char() == '#'
            && let Some(TokenTree::Group(group)) = tokens.peek()
            && group.delimiter() == Delimiter::Bracket
            && let Some(line) = doc_line(group.stream())
        {
            lines.push((line, hash.span()));
            tokens.next();
            continue;
        }
        if let Some(&(_, first)) = lines.first() {
            let doc: Vec<&str> = lines.iter().map(|(line, _)| line.as_str()).collect();
            let doc = onnx_string(&doc.join("\n"), first)?;
            lines.clear();
            match &token {
                TokenTree::Punct(open) if open.as_char() == '<' => {
                    if header_has_doc_string(tokens.clone()) {
                        return Err(syn::Error::new(
                            first,
                            "this function has `///` comments and a `doc_string` in its header: \
                             keep one",
                        ));
                    }
                    out.push(token);
                    out.extend(quote!(doc_string: #doc,));
                }
                TokenTree::Ident(_) => {
                    out.extend(quote!(<doc_string: #doc>));
                    out.push(token);
                }
                _ => {
                    return Err(syn::Error::new(
                        first,
                        "a `///` comment documents the function that follows it: write it \
                         before the function's header or name",
                    ));
                }
            }
            continue;
        }
        out.push(token);
    }
    if let Some(&(_, first)) = lines.first() {
        return Err(syn::Error::new(
            first,
            "a `///` comment documents the function that follows it, and none follows",
        ));
    }
    Ok(out.into_iter().collect())
}

/// `text` as a string literal of the syntax: `\` and `"` escaped as ONNX escapes them (a
/// backslash before the character), line ends kept as they are, since the syntax has no `\n`.
fn onnx_string(text: &str, span: Span) -> Result<Literal, syn::Error> {
    let escaped = text.replace('\\', "\\\\").replace('"', "\\\"");
    let mut literal: Literal = format!("\"{escaped}\"")
        .parse()
        .map_err(|_| syn::Error::new(span, "this `///` comment cannot be a doc string"))?;
    literal.set_span(span);
    Ok(literal)
}

/// The text of `doc = "…"`, the inside of a `///` comment's attribute, without its first space.
fn doc_line(attribute: TokenStream) -> Option<String> {
    let tokens: Vec<TokenTree> = attribute.into_iter().collect();
    let [
        TokenTree::Ident(doc),
        TokenTree::Punct(eq),
        TokenTree::Literal(text),
    ] = &tokens[..]
    else {
        return None;
    };
    if doc != "doc" || eq.as_char() != '=' {
        return None;
    }
    let text = syn::parse2::<syn::LitStr>(TokenTree::Literal(text.clone()).into()).ok()?;
    let line = text.value();
    Some(line.strip_prefix(' ').map(str::to_owned).unwrap_or(line))
}

/// Whether the header that the tokens after its `<` open sets `doc_string`.
fn header_has_doc_string(tokens: impl Iterator<Item = TokenTree>) -> bool {
    let mut depth = 0;
    let mut key_next = true;
    for token in tokens {
        match &token {
            TokenTree::Punct(p) if p.as_char() == '<' => depth += 1,
            TokenTree::Punct(p) if p.as_char() == '>' && depth == 0 => return false,
            TokenTree::Punct(p) if p.as_char() == '>' => depth -= 1,
            TokenTree::Punct(p) if p.as_char() == ',' && depth == 0 => key_next = true,
            TokenTree::Ident(key) if key_next && depth == 0 => {
                if key == "doc_string" {
                    return true;
                }
                key_next = false;
            }
            _ => key_next = false,
        }
    }
    false
}

/// A name no other library's macro has: `macro_export` puts every one at the crate root.
fn hidden_name(name: &Ident, texts: &[String]) -> Ident {
    let mut hasher = DefaultHasher::new();
    name.to_string().hash(&mut hasher);
    texts.hash(&mut hasher);
    std::env::var("CARGO_CRATE_NAME").ok().hash(&mut hasher);
    let start = name.span().start();
    (start.line, start.column).hash(&mut hasher);
    format_ident!("__onnx_text_library_{}_{:016x}", name, hasher.finish())
}

/// The library's macro: it answers a request of its format by calling the requester back with
/// `answer` (the library's texts, or the word that it is broken), and any other request with an
/// error naming both versions.
fn answer_macro(hidden: &Ident, name: &Ident, answer_tokens: TokenStream) -> TokenStream {
    let format = Literal::u32_unsuffixed(FORMAT);
    let version = Literal::string(VERSION);
    let answer = format_ident!("{}", ANSWER);
    let mismatch_start = format!(
        "`{name}` was made by onnx-text {VERSION} (library format {FORMAT}), but this literal is \
         read by onnx-text "
    );
    let misuse = format!(
        "`{name}` is an onnx-text library: name it in `#![library({name})]` of an onnx-text macro"
    );
    quote! {
        #[doc(hidden)]
        #[macro_export]
        macro_rules! #hidden {
            (@onnx_text_library #format $version:literal [$($callback:tt)*] { $($input:tt)* }) => {
                $($callback)*! { #![#answer(#format, #version, #answer_tokens)] $($input)* }
            };
            (@onnx_text_library $format:tt $version:literal $($rest:tt)*) => {
                ::core::compile_error!(::core::concat!(
                    #mismatch_start, $version, " (library format ", ::core::stringify!($format),
                    "); build both crates with one onnx-text version"
                ))
            };
            ($($misuse:tt)*) => {
                ::core::compile_error!(#misuse)
            };
        }
    }
}

/// The rustdoc section that lists the library's own functions: each one's key, signature and
/// doc string.
fn documentation(text: &str, own: &[FunctionProto], bases: &[String]) -> String {
    let mut doc = String::from("\n\n# Functions\n");
    let provided = FunctionLibrary::from_functions(own.to_vec())
        .map(|library| library.provided_domains())
        .unwrap_or_default();
    for (domain, version) in provided {
        doc += &format!(
            "\nProvides domain `{domain:?}` at version {version}: a model calling these functions \
             imports `{domain:?} : {version}`.\n"
        );
    }
    let trees = match Entry::Functions.parse(text) {
        Ok(Tree::Functions(trees)) => trees,
        _ => Vec::new(),
    };
    for (index, function) in own.iter().enumerate() {
        let key = FunctionKey::of_function(function);
        doc += &format!("\n## `{key}`\n");
        if let Some(signature) = trees.get(index).and_then(|tree| signature(text, tree)) {
            doc += &format!("\n```text\n{signature}\n```\n");
        }
        let imports: Vec<String> = function
            .opset_import
            .iter()
            .map(|i| format!("`{:?} : {}`", i.domain(), i.version()))
            .collect();
        if !imports.is_empty() {
            doc += &format!("\nImports {}.\n", imports.join(", "));
        }
        if let Some(text) = function.doc_string.as_deref() {
            doc += &format!("\n{text}\n");
        }
    }
    if !bases.is_empty() {
        let bases: Vec<String> = bases.iter().map(|b| format!("`{b}`")).collect();
        doc += &format!(
            "\nThe library also holds the functions of {}, which it builds on.\n",
            bases.join(", ")
        );
    }
    doc
}

/// A function's signature as written: from its name to its outputs' closing parenthesis, on
/// one line. `None` if the spans do not fit the text.
fn signature(text: &str, function: &Function) -> Option<String> {
    let start = function.name.span.start as usize;
    let after = match function.outputs.last() {
        Some(output) => output.name.span.end as usize,
        None => start + text.get(start..)?.find("=>")?,
    };
    let end = after + text.get(after..)?.find(')')? + 1;
    let written = text.get(start..end)?;
    // The text rebuilt from tokens has a space wherever the source had a gap, and between
    // tokens read one by one: print it tight, as one writes it.
    let mut line = written.split_whitespace().collect::<Vec<_>>().join(" ");
    for (spaced, tight) in [
        ("< ", "<"),
        (" >", ">"),
        ("( ", "("),
        (" )", ")"),
        ("[ ", "["),
        (" ]", "]"),
        (" ,", ","),
        (" :", ":"),
    ] {
        line = line.replace(spaced, tight);
    }
    Some(line)
}
