//! Libraries seen across crates: `#![library(path, …)]`, `#![attach(…)]` and `#![inline(…)]`.
//!
//! A proc macro cannot read a static of another crate, but it can expand to a call of another
//! crate's macro. `onnx_library!` (see [`crate::opset`]) defines, beside its static, a hidden
//! `macro_rules!` that holds the library's text, and re-exports it under the static's name. A
//! literal that names the library expands to a *request*, a call of that macro:
//!
//! ```text
//! acme::ACME! { @onnx_text_library 1 "0.1.0" [::onnx_text::onnx] { the literal's tokens } }
//! ```
//!
//! and the library's macro calls back, prepending what it holds as a setting:
//!
//! ```text
//! ::onnx_text::onnx! { #![__onnx_text_library(1, "0.1.0", "text", …)] the literal's tokens }
//! ```
//!
//! With every named library answered this way (one round per path, in order), the literal is
//! checked with the libraries' functions in view. The user's tokens pass through `macro_rules!`
//! unchanged, so every error still points at them. The request names the library format (`1`)
//! and this crate's version: a library made by an onnx-text with another format answers with a
//! `compile_error!` naming both versions, on the path.

use proc_macro2::{Delimiter, Group, Literal, Punct, Spacing, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};

use onnx_check::library::{FunctionKey, FunctionLibrary, attach, inline};
use onnx_runtime_types::{FunctionProto, ModelProto};
use onnx_syntax::Entry;
use onnx_syntax::Proto;

use crate::diagnostics;

/// The layout of requests and answers. A library's macro answers requests of its own format
/// and reports any other as a version mismatch; the request's first three tokens
/// (`@onnx_text_library FORMAT "VERSION"`) never change, so that every version can tell.
pub const FORMAT: u32 = 1;

/// The onnx-text version that made a library or reads it, as mismatch errors show it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The setting an answer prepends: `#![__onnx_text_library(FORMAT, "VERSION", "text", …)]`.
pub const ANSWER: &str = "__onnx_text_library";

/// A library path as a literal names it.
#[derive(Debug)]
pub struct LibraryPath {
    /// The path's tokens.
    pub tokens: TokenStream,
    /// The path as messages name the library (`acme::ACME`).
    pub name: String,
    /// The spans of its first and last tokens, for errors about the path.
    pub first: Span,
    pub last: Span,
}

impl LibraryPath {
    /// An error on the path.
    pub fn error(&self, message: &str) -> syn::Error {
        diagnostics::between(self.first, self.last, message)
    }
}

/// What the value does with the libraries' functions, besides checking calls against them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Finish {
    /// `#![library]`: nothing.
    #[default]
    Check,
    /// `#![attach]`: the model carries the functions it calls, as `onnx_text::attach` gives.
    Attach,
    /// `#![inline]`: the calls are replaced by their bodies, as `onnx_text::inline` gives.
    Inline,
}

impl Finish {
    /// The setting's name.
    pub fn name(self) -> &'static str {
        match self {
            Finish::Check => "library",
            Finish::Attach => "attach",
            Finish::Inline => "inline",
        }
    }
}

/// Reads the paths of `#![library(a::B, c::D)]`: `::`-separated identifiers, separated by
/// commas.
pub fn paths(list: &Group) -> Result<Vec<LibraryPath>, syn::Error> {
    let mut paths = Vec::new();
    let mut current: Vec<TokenTree> = Vec::new();
    for token in list.stream() {
        match &token {
            TokenTree::Punct(comma) if comma.as_char() == ',' => {
                paths.push(path(std::mem::take(&mut current), comma.span())?);
            }
            TokenTree::Punct(colon) if colon.as_char() == ':' => current.push(token),
            TokenTree::Ident(_) => current.push(token),
            other => {
                return Err(syn::Error::new(
                    other.span(),
                    "expected a library path, such as `acme::ACME`",
                ));
            }
        }
    }
    if !current.is_empty() || paths.is_empty() {
        paths.push(path(current, list.span_close())?);
    }
    Ok(paths)
}

/// One path of a list; `at` is where the list goes on, for an error about an empty path.
fn path(tokens: Vec<TokenTree>, at: Span) -> Result<LibraryPath, syn::Error> {
    let (Some(first), Some(last)) = (tokens.first(), tokens.last()) else {
        return Err(syn::Error::new(
            at,
            "expected a library path, such as `acme::ACME`",
        ));
    };
    if matches!(last, TokenTree::Punct(_)) {
        return Err(syn::Error::new(
            last.span(),
            "expected a name after `::` in this library path",
        ));
    }
    let (first, last) = (first.span(), last.span());
    let tokens: TokenStream = tokens.into_iter().collect();
    let name = tokens.to_string().replace(' ', "");
    Ok(LibraryPath {
        tokens,
        name,
        first,
        last,
    })
}

/// The word a library whose own macro failed answers with instead of its texts: its error is
/// reported where it is written, and what builds on it checks nothing, so that one mistake
/// gives one error.
pub const BROKEN: &str = "broken";

/// Reads an answer's setting: the format, the version and the texts of the library's
/// functions, or `None` for a library that failed ([`BROKEN`]). An answer of another format is
/// an error on `at` (the path asked).
pub fn answer(arguments: &Group) -> Result<Option<Vec<String>>, syn::Error> {
    let malformed = || {
        syn::Error::new(
            arguments.span(),
            "malformed answer of an onnx-text library: `__onnx_text_library` is written by \
             `onnx_library!`, not by hand",
        )
    };
    let mut parts = arguments
        .stream()
        .into_iter()
        .filter(|token| !matches!(token, TokenTree::Punct(comma) if comma.as_char() == ','));
    let format = parts.next().ok_or_else(malformed)?.to_string();
    let version = parts.next().ok_or_else(malformed)?;
    let version = syn::parse2::<syn::LitStr>(version.into_token_stream())
        .map_err(|_| malformed())?
        .value();
    if format != FORMAT.to_string() {
        return Err(syn::Error::new(
            arguments.span(),
            format!(
                "this library was made by onnx-text {version} (library format {format}), but the \
                 literal is read by onnx-text {VERSION} (library format {FORMAT}); build both \
                 crates with one onnx-text version"
            ),
        ));
    }
    let mut parts = parts.peekable();
    if matches!(parts.peek(), Some(TokenTree::Ident(word)) if word == BROKEN) {
        return Ok(None);
    }
    parts
        .map(|text| {
            syn::parse2::<syn::LitStr>(text.into_token_stream())
                .map(|text| text.value())
                .map_err(|_| malformed())
        })
        .collect::<Result<Vec<String>, syn::Error>>()
        .map(Some)
}

/// The request that asks the library at `path` for its text; it answers by calling
/// `callback` (a macro path) with `input` and the answer prepended.
pub fn request(path: &LibraryPath, callback: TokenStream, input: TokenStream) -> TokenStream {
    let span = path.last;
    let tokens = &path.tokens;
    let version = Literal::string(VERSION);
    let format = Literal::u32_unsuffixed(FORMAT);
    let mut bang = Punct::new('!', Spacing::Alone);
    bang.set_span(span);
    let arguments = quote_spanned!(span=>
        @onnx_text_library #format #version [#callback] { #input }
    );
    let mut group = Group::new(Delimiter::Brace, arguments);
    group.set_span(span);
    quote!(#tokens #bang #group)
}

/// The libraries in view of a literal, read from their answers, in the order the paths name
/// them.
#[derive(Debug, Default)]
pub struct InView {
    /// Each library's name and functions.
    pub libraries: Vec<(String, FunctionLibrary)>,
    /// The texts the libraries were read from, in order, each once (a library built on others
    /// holds theirs first, and two libraries may build on one).
    pub texts: Vec<String>,
    /// Every function of the libraries, in order, each once: a library and one built on it
    /// share the base's functions.
    pub all: FunctionLibrary,
}

impl InView {
    /// Reads the answers to `paths`, `answers[i]` being the texts of `paths[i]`. Two libraries
    /// that define one function differently are an error on the second path.
    pub fn read(paths: &[LibraryPath], answers: Vec<Vec<String>>) -> Result<InView, syn::Error> {
        let mut in_view = InView::default();
        for (path, texts) in paths.iter().zip(answers) {
            let mut functions = Vec::new();
            for text in &texts {
                functions.extend(library_functions(text).map_err(|e| {
                    path.error(&format!(
                        "the text of library `{}` does not parse: {e}",
                        path.name
                    ))
                })?);
            }
            for function in &functions {
                let key = FunctionKey::of_function(function);
                match in_view.all.get(&key) {
                    Some(known) if known == function => {}
                    Some(_) => {
                        return Err(path.error(&format!(
                            "library `{}` defines `{key}` otherwise than a library named before it",
                            path.name
                        )));
                    }
                    None => {
                        let added = in_view.all.insert(function.clone());
                        added.map_err(|e| path.error(&e.to_string()))?;
                    }
                }
            }
            let library = FunctionLibrary::from_functions(functions)
                .map_err(|e| path.error(&format!("library `{}`: {e}", path.name)))?;
            in_view.libraries.push((path.name.clone(), library));
            for text in texts {
                if !in_view.texts.contains(&text) {
                    in_view.texts.push(text);
                }
            }
        }
        Ok(in_view)
    }

    /// The libraries as the checks take them.
    pub fn view(&self) -> Vec<(&str, &FunctionLibrary)> {
        self.libraries
            .iter()
            .map(|(name, l)| (name.as_str(), l))
            .collect()
    }

    /// Attaches or inlines the libraries' functions into `model`, as the runtime `attach` and
    /// `inline` do with their union ([`InView::all`], which is the library itself when there
    /// is one); what went wrong, as the library error says it.
    pub fn finish(&self, finish: Finish, model: &mut ModelProto) -> Result<(), String> {
        let done = match finish {
            Finish::Check => return Ok(()),
            Finish::Attach => attach(model, &self.all).map(drop),
            Finish::Inline => inline(model, &[&self.all]).map(drop),
        };
        done.map_err(|e| e.to_string())
    }
}

/// The functions of a library's text, as `onnx_library!` lowered them for its static.
fn library_functions(text: &str) -> Result<Vec<FunctionProto>, onnx_syntax::ParseError> {
    match Entry::Functions.parse(text)?.lower() {
        Proto::Functions(functions) => Ok(functions),
        _ => Ok(Vec::new()),
    }
}
