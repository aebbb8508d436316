//! Expansion: macro input tokens to the expression that builds the value, or to spanned errors.
//!
//! This is the library entry point of every macro. It takes and returns `proc_macro2` tokens, so
//! it runs (and is tested) outside the compiler too.

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use quote::quote;

use onnx_check::{
    BIG_TEXT, Check, CheckOptions, CheckTree, Diagnostic, Diagnostics, Libraries,
    check_and_lower_split,
};
use onnx_runtime_types::ModelProto;
use onnx_syntax::parse::Parser;
use onnx_syntax::syntax::Function;
use onnx_syntax::{Entry, ParseError, Proto, Tree};

use crate::codegen;
use crate::diagnostics;
use crate::holes::{HeaderHoles, Patcher};
use crate::libraries::{self, Finish, InView, LibraryPath};
use crate::tokens::{Layout, Source, TokenError};

/// What the `#![…]` attributes at the start of a literal ask for.
#[derive(Debug, Default)]
pub struct Settings {
    /// `#![library(path, …)]`, `#![attach(…)]`, `#![inline(…)]`: the libraries in view, in
    /// the order written.
    pub libraries: Vec<LibraryPath>,
    /// What `#![attach]` or `#![inline]` asks done with them, and where it is written.
    pub finish: Finish,
    pub finish_span: Option<Span>,
    /// The libraries' answers so far (see [`libraries`]), in the order of `libraries`.
    pub answers: Vec<Vec<String>>,
    /// A library in view failed to build: its own error says why, and this value checks
    /// nothing and stays a placeholder rather than pile up follow-on errors.
    pub broken_library: bool,
    /// `#![unchecked]`: no semantic checks, syntax only.
    pub unchecked: bool,
    /// `#![allow(name, …)]`: checks switched off by name.
    pub allowed: Vec<(String, Span)>,
    /// `#![fallible]`: the value is a `Result` whose error lists what the checks that wait for
    /// the holes' values found, instead of a panic.
    pub fallible: bool,
}

/// Expands a macro whose input is ONNX text as Rust tokens: `onnx!` for [`Entry::Model`],
/// `onnx_graph!` for [`Entry::Graph`], and so on. A text that fails its checks expands to the
/// errors, on the offending tokens, and a placeholder value.
///
/// ```
/// use onnx_syntax::Entry;
/// let input: proc_macro2::TokenStream = "y = Relu(x)".parse().unwrap();
/// let expansion = onnx_macro_core::expand(Entry::Node, input).to_string();
/// assert!(expansion.contains("decode"), "{expansion}");
///
/// let wrong: proc_macro2::TokenStream = "g (x) => (y) { y = Relu(q) }".parse().unwrap();
/// let expansion = onnx_macro_core::expand(Entry::Graph, wrong).to_string();
/// assert!(expansion.contains("compile_error"), "{expansion}");
/// ```
pub fn expand(entry: Entry, input: TokenStream) -> TokenStream {
    let fallible = matches!(settings(input.clone()), Ok((settings, _)) if settings.fallible);
    match expand_tokens(entry, input) {
        Ok(tokens) => tokens,
        Err(errors) => codegen::failed(entry, fallible, errors),
    }
}

/// The path of the macro that expands `entry`, for libraries to call back.
fn callback(entry: Entry) -> TokenStream {
    match entry {
        Entry::Model => quote!(::onnx_text::onnx),
        Entry::Graph => quote!(::onnx_text::onnx_graph),
        Entry::Function => quote!(::onnx_text::onnx_function),
        Entry::Functions => quote!(::onnx_text::onnx_functions),
        Entry::Node => quote!(::onnx_text::onnx_node),
        Entry::Nodes | Entry::NodeList => quote!(::onnx_text::onnx_nodes),
    }
}

fn expand_tokens(entry: Entry, input: TokenStream) -> Result<TokenStream, syn::Error> {
    let (settings, body) = settings(input.clone())?;
    if let Some(request) = settings.request(callback(entry), input) {
        return Ok(request);
    }
    if settings.broken_library {
        return Ok(codegen::placeholder(entry, settings.fallible));
    }
    let options = settings.options()?;
    let in_view = settings.in_view()?;
    if settings.finish != Finish::Check && entry != Entry::Model {
        return Err(settings.finish_error(&format!(
            "`#![{}]` makes a model: use it in `onnx!` or `include_onnx!`; `#![library(…)]` \
             checks calls in any literal",
            settings.finish.name()
        )));
    }
    // `#![attach]` and `#![inline]` change the value after the checks: encode it then.
    let bytes = if settings.finish == Finish::Check {
        Bytes::Encode
    } else {
        Bytes::Later
    };
    let (checked, source) = checked_source(entry, body, &options, &in_view, bytes)?;
    match checked.headers {
        Some(headers) => {
            if settings.finish != Finish::Check {
                return Err(settings.finish_error(&format!(
                    "`#![{}]` works at compile time, on a literal without Rust values (`#x`); \
                     call `onnx_text::{}` on the value instead",
                    settings.finish.name(),
                    settings.finish.name()
                )));
            }
            with_holes(
                entry,
                &checked.proto,
                checked.bytes.as_deref(),
                &headers,
                &source,
                &settings,
            )
        }
        None => {
            let (proto, bytes) = match checked.bytes {
                Some(bytes) => (checked.proto, bytes),
                None => {
                    let proto = settings.finish(checked.proto, &in_view)?;
                    let bytes = proto.encode();
                    (proto, bytes)
                }
            };
            let expansion = without_holes(entry, &bytes, &settings);
            free_beside(proto, source.text.len());
            Ok(expansion)
        }
    }
}

/// Frees the messages of a big literal (a text of [`BIG_TEXT`] or more) on a thread of its own:
/// for a 10,000-node model that is a tenth of the expansion when unoptimized (a default dev
/// build), and nothing waits for it. A small one is freed here.
fn free_beside(proto: Proto, text_len: usize) {
    if text_len >= BIG_TEXT {
        // Should no thread be had, the closure, and the value with it, is freed here.
        let _ = std::thread::Builder::new().spawn(move || drop(proto));
    }
}

/// Rebuilds the text of `body` and checks it, with `in_view`'s libraries in view; the text
/// with what it checked to, or every problem as errors on the tokens.
pub fn checked_source(
    entry: Entry,
    body: TokenStream,
    options: &CheckOptions,
    in_view: &InView,
    bytes: Bytes,
) -> Result<(Checked, Source), syn::Error> {
    let view = in_view.view();
    let token_error = |e: TokenError| syn::Error::new(e.span, e.message);
    let compact = Source::from_tokens(body.clone(), Layout::Compact).map_err(token_error)?;
    let holes = !compact.holes.is_empty();
    if let Ok(checked) = checked(entry, &compact.text, holes, options, &view, bytes) {
        return Ok((checked, compact));
    }
    // Report from the faithful layout, whose line numbers (quoted in some messages) are the
    // file's, and which is built from the tokens alone. The compact text takes groups' source
    // text as a shortcut (see `verbatim`); should it ever disagree with the tokens, the tokens
    // decide.
    let faithful = Source::from_tokens(body, Layout::Faithful).map_err(token_error)?;
    let holes = !faithful.holes.is_empty();
    // The retry almost always fails again: its caller encodes, should it pass.
    let problems = match checked(entry, &faithful.text, holes, options, &view, Bytes::Later) {
        Ok(checked) => return Ok((checked, faithful)),
        Err(problems) => problems,
    };
    let errors = problems
        .iter()
        .flat_map(|d| diagnostics::on_tokens(&faithful, d));
    Err(diagnostics::combine(errors)
        .unwrap_or_else(|| syn::Error::new(Span::call_site(), "invalid ONNX text")))
}

/// Whether [`checked`] also encodes the messages: only when the value is the lowering as it
/// stands, since the encoding runs beside the shape checks (on a thread of its own for a big
/// text: see [`check_and_lower_split`]).
#[derive(Clone, Copy)]
pub enum Bytes {
    /// Encode the lowering: [`Checked::bytes`] holds it.
    Encode,
    /// The caller changes the messages first, and encodes them itself.
    Later,
}

/// A text that passed its checks.
pub struct Checked {
    /// Its protobuf messages.
    pub proto: Proto,
    /// Their bytes, if asked for with [`Bytes::Encode`] (`None` after the retry from the faithful
    /// layout: see [`checked_source`]).
    pub bytes: Option<Vec<u8>>,
    /// With holes, where the headers hold them (lowering does not keep that).
    pub headers: Option<Headers>,
}

/// Where the headers of a model and its functions hold holes.
pub struct Headers {
    model: HeaderHoles,
    functions: Vec<HeaderHoles>,
}

impl Headers {
    fn of(tree: &Tree) -> Headers {
        let functions =
            |functions: &[Function]| functions.iter().map(HeaderHoles::function).collect();
        let (model, functions) = match tree {
            Tree::Model(model) => (HeaderHoles::model(model), functions(&model.functions)),
            Tree::Function(function) => (HeaderHoles::function(function), Vec::new()),
            Tree::Functions(list) => (HeaderHoles::default(), functions(list)),
            _ => (HeaderHoles::default(), Vec::new()),
        };
        Headers { model, functions }
    }
}

/// Parses `text` as `entry` gives it (holes allowed with `holes`), checks it and lowers it;
/// every problem found on failure.
pub fn checked(
    entry: Entry,
    text: &str,
    holes: bool,
    options: &CheckOptions,
    libraries: &Libraries<'_>,
    bytes: Bytes,
) -> Result<Checked, Vec<Diagnostic>> {
    let syntax = |e: ParseError| vec![Diagnostic::from(&e)];
    let parse = || {
        let parser = if holes {
            Parser::with_holes(text)
        } else {
            Parser::new(text)
        };
        entry.parse_with(parser?)
    };
    let (headers, report, proto, bytes) = match bytes {
        Bytes::Encode => {
            let headers = |tree: &Tree| holes.then(|| Headers::of(tree));
            let encode = |proto: &Proto| Some(proto.encode());
            check_and_lower_split(parse, text, options, libraries, headers, encode)
                .map_err(syntax)?
        }
        Bytes::Later => {
            let tree = parse().map_err(syntax)?;
            let headers = holes.then(|| Headers::of(&tree));
            let (report, proto) = tree.check_and_lower_with(text, options, libraries);
            (headers, report, proto, None)
        }
    };
    if report.diagnostics.is_empty() {
        Ok(Checked {
            proto,
            bytes,
            headers,
        })
    } else {
        Err(report.diagnostics)
    }
}

/// The expansion of a literal without holes: the value, decoded (`Ok` if fallible).
fn without_holes(entry: Entry, bytes: &[u8], settings: &Settings) -> TokenStream {
    let value = codegen::decoded(entry, bytes);
    if settings.fallible {
        quote!(::core::result::Result::<_, ::onnx_text::Diagnostics>::Ok(#value))
    } else {
        value
    }
}

/// The expansion of a literal with holes: the skeleton, decoded, then patched with the holes'
/// values (see [`holes`]).
fn with_holes(
    entry: Entry,
    lowered: &Proto,
    bytes: Option<&[u8]>,
    headers: &Headers,
    source: &Source,
    settings: &Settings,
) -> Result<TokenStream, syn::Error> {
    let mut patcher = Patcher::new(&source.holes, !settings.unchecked);
    let (model_header, function_headers) = (&headers.model, &headers.functions);
    match lowered {
        Proto::Model(model) => patcher.model(model, model_header, function_headers),
        Proto::Graph(graph) => patcher.graph(graph, &Default::default()),
        Proto::Function(function) => patcher.function(function, model_header, None),
        Proto::Functions(functions) => patcher.functions(functions, function_headers, None),
        Proto::Node(node) => patcher.node(node, &Default::default()),
        Proto::Nodes(nodes) | Proto::NodeList(nodes) => patcher.node_list(nodes),
    }
    let expansion = patcher.finish()?;
    let bytes = match bytes {
        Some(bytes) => bytes,
        None => &lowered.encode(),
    };
    let skeleton = codegen::decoded(entry, bytes);
    let patches = expansion.patches;
    let verify = expansion.verify;
    let allowed = if settings.unchecked {
        quote!(::core::option::Option::None)
    } else {
        let names = settings.allowed.iter().map(|(name, _)| name);
        quote!(::core::option::Option::Some(&[#(#names),*]))
    };
    let finish = if settings.fallible {
        quote!(finish)
    } else {
        quote!(finish_or_panic)
    };
    Ok(quote!({
        let mut __onnx_value = #skeleton;
        let mut __onnx_holes = ::onnx_text::__private::Holes::new(::core::concat!(
            ::core::file!(), ":", ::core::line!(), ":", ::core::column!()
        ));
        #patches
        __onnx_holes.verify |= #verify;
        __onnx_holes.#finish(__onnx_value, #allowed)
    }))
}

impl Settings {
    /// While a library named here has not answered, the request to the next one (see
    /// [`libraries`]), which calls `callback` back with `input`.
    pub fn request(&self, callback: TokenStream, input: TokenStream) -> Option<TokenStream> {
        let next = self.libraries.get(self.answers.len())?;
        Some(libraries::request(next, callback, input))
    }

    /// The names of the libraries in view, as written.
    pub fn libraries_named(&self) -> Vec<String> {
        self.libraries
            .iter()
            .map(|path| path.name.clone())
            .collect()
    }

    /// The libraries in view, read from their answers.
    pub fn in_view(&self) -> Result<InView, syn::Error> {
        InView::read(&self.libraries, self.answers.clone())
    }

    /// Attaches or inlines the libraries' functions, as `#![attach]` or `#![inline]` asks.
    fn finish(&self, proto: Proto, in_view: &InView) -> Result<Proto, syn::Error> {
        match proto {
            Proto::Model(mut model) if self.finish != Finish::Check => {
                in_view
                    .finish(self.finish, &mut model)
                    .map_err(|e| self.finish_error(&e))?;
                Ok(Proto::Model(model))
            }
            other => Ok(other),
        }
    }

    /// An error on the `#![attach]` or `#![inline]` setting.
    fn finish_error(&self, message: &str) -> syn::Error {
        syn::Error::new(self.finish_span.unwrap_or_else(Span::call_site), message)
    }

    /// The check options these settings ask for; unknown check names are errors.
    pub fn options(&self) -> Result<CheckOptions, syn::Error> {
        if self.unchecked {
            return Ok(CheckOptions::none());
        }
        let mut options = CheckOptions::all();
        let mut unknown = Vec::new();
        for (name, span) in &self.allowed {
            match name.parse::<Check>() {
                Ok(check) => options = options.allow(check),
                Err(unknown_check) => {
                    unknown.push(syn::Error::new(*span, unknown_check.to_string()));
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
            [TokenTree::Ident(word)] if word == "fallible" => settings.fallible = true,
            [TokenTree::Ident(word), TokenTree::Group(list)]
                if list.delimiter() == Delimiter::Parenthesis
                    && (word == "library" || word == "attach" || word == "inline") =>
            {
                let finish = match word.to_string().as_str() {
                    "attach" => Finish::Attach,
                    "inline" => Finish::Inline,
                    _ => Finish::Check,
                };
                if finish != Finish::Check {
                    if settings.finish != Finish::Check {
                        return Err(syn::Error::new(
                            word.span(),
                            "a literal takes one of `#![attach(…)]` and `#![inline(…)]`: name \
                             all the libraries there",
                        ));
                    }
                    settings.finish = finish;
                    settings.finish_span = Some(word.span());
                }
                settings.libraries.extend(libraries::paths(list)?);
            }
            [TokenTree::Ident(word), TokenTree::Group(answer)]
                if word == libraries::ANSWER && answer.delimiter() == Delimiter::Parenthesis =>
            {
                // Answers come prepended: the last one read answers the first path.
                let texts = libraries::answer(answer)?;
                settings.broken_library |= texts.is_none();
                settings.answers.insert(0, texts.unwrap_or_default());
            }
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
                                "expected a check name, such as `duplicate_definition`",
                            ));
                        }
                    }
                }
            }
            _ => {
                return Err(diagnostics::between(
                    hash.span(),
                    group.span_close(),
                    "expected `#![unchecked]`, `#![allow(check, …)]`, `#![fallible]`, \
                     `#![library(path, …)]`, `#![attach(path, …)]` or `#![inline(path, …)]`",
                ));
            }
        }
        consumed += 3;
    }
    let body: TokenStream = tokens.drain(consumed..).collect();
    Ok((settings, body))
}

/// `include_onnx!("path")`: a model read from a `.onnxtxt` file, relative to the crate root.
/// Settings may come first: `include_onnx!(#![library(acme::ACME)] "model.onnxtxt")`.
///
/// ```
/// let input: proc_macro2::TokenStream = r#""no/such/file.onnxtxt""#.parse().unwrap();
/// let expansion = onnx_macro_core::include(input).to_string();
/// assert!(expansion.contains("compile_error"), "{expansion}");
/// ```
pub fn include(input: TokenStream) -> TokenStream {
    include_as(input, Form::Value)
}

/// `include_onnx_bytes!("path")`: the same file read and checked as by [`include()`], expanded to
/// the model's protobuf encoding, a `&'static [u8]` literal, instead of the expression that
/// decodes it. A catalog of many models keeps them as data this way: the compiler does not
/// type-check and generate a function for each, and a model is decoded only when asked for.
///
/// ```
/// let input: proc_macro2::TokenStream = r#""no/such/file.onnxtxt""#.parse().unwrap();
/// let expansion = onnx_macro_core::include_bytes(input).to_string();
/// assert!(expansion.contains("compile_error"), "{expansion}");
/// ```
pub fn include_bytes(input: TokenStream) -> TokenStream {
    include_as(input, Form::Bytes)
}

/// What an include macro expands to.
#[derive(Clone, Copy)]
enum Form {
    /// The `ModelProto` (`include_onnx!`).
    Value,
    /// Its encoding, `&'static [u8]` (`include_onnx_bytes!`).
    Bytes,
}

impl Form {
    /// The macro that expands this form, for libraries to call back.
    fn callback(self) -> TokenStream {
        match self {
            Form::Value => quote!(::onnx_text::include_onnx),
            Form::Bytes => quote!(::onnx_text::include_onnx_bytes),
        }
    }

    /// A value of the expansion's type, for an expansion that carries errors.
    fn placeholder(self) -> TokenStream {
        match self {
            Form::Value => codegen::placeholder(Entry::Model, false),
            // A slice, as the `match` gives, so that `&include_onnx_bytes!(…)` still has the
            // type its context expects and rustc reports nothing but the errors.
            Form::Bytes => quote!((&[] as &'static [u8])),
        }
    }
}

fn include_as(input: TokenStream, form: Form) -> TokenStream {
    let entry = Entry::Model;
    let failed_early = |errors: syn::Error| {
        let errors = errors.to_compile_error();
        let value = form.placeholder();
        quote!({ #errors #value })
    };
    let (settings, body) = match settings(input.clone()) {
        Ok(split) => split,
        Err(e) => return failed_early(e),
    };
    if let Some(request) = settings.request(form.callback(), input) {
        return request;
    }
    if settings.broken_library {
        return form.placeholder();
    }
    let literal: syn::LitStr = match syn::parse2(body) {
        Ok(literal) => literal,
        Err(e) => {
            return failed_early(syn::Error::new(
                e.span(),
                "expected a file path: `include_onnx!(\"model.onnxtxt\")`",
            ));
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
            return failed_early(syn::Error::new(literal.span(), message));
        }
    };
    // Depending on the file makes cargo rebuild when it changes.
    let path_literal = path.to_string_lossy().into_owned();
    let dependency = quote!(
        const _: &[u8] = ::core::include_bytes!(#path_literal);
    );
    let failed = |errors: syn::Error| {
        let errors = errors.to_compile_error();
        let value = form.placeholder();
        quote!({ #dependency #errors #value })
    };
    let read = settings
        .options()
        .and_then(|options| Ok((options, settings.in_view()?)));
    let (options, in_view) = match read {
        Ok(both) => both,
        Err(e) => return failed(e),
    };
    let checked = onnx_syntax::text_from_bytes(&text)
        .map_err(|e| vec![e.with_origin(relative.clone()).to_string()])
        .and_then(|text| {
            checked(entry, text, false, &options, &in_view.view(), Bytes::Later).map_err(
                |problems| {
                    let diagnostics =
                        Diagnostics::new(text, problems).with_origin(relative.clone());
                    (0..diagnostics.len())
                        .filter_map(|i| diagnostics.render(i))
                        .collect::<Vec<String>>()
                },
            )
        });
    let checked = checked.and_then(|mut checked| {
        if options.is_enabled(Check::ExternalData)
            && let Proto::Model(model) = &mut checked.proto
            && let Some(message) = external_data(model, &relative)
        {
            return Err(vec![message]);
        }
        Ok(checked)
    });
    match checked {
        Ok(checked) => match settings.finish(checked.proto, &in_view) {
            Ok(proto) => match form {
                Form::Value => {
                    let value = codegen::decoded(entry, &proto.encode());
                    quote!({ #dependency #value })
                }
                // No item in the expansion, so that it is a constant expression (a `static`'s
                // value) and costs rustc no body of its own; and no path into `onnx_text`, so
                // that a crate of data can take the macro from `onnx-macro` and compile as soon
                // as the macro is built. The file is named by `include_bytes!`, whose value the
                // `match` drops, so that cargo rebuilds when it changes.
                Form::Bytes => {
                    let bytes = proc_macro2::Literal::byte_string(&proto.encode());
                    quote!(match ::core::include_bytes!(#path_literal) {
                        _ => #bytes as &'static [u8],
                    })
                }
            },
            Err(e) => failed(e),
        },
        Err(messages) => {
            // One compiler error per problem, each with the snippet of the file.
            let errors = messages
                .iter()
                .map(|m| syn::Error::new(literal.span(), untitled(m)));
            failed(
                diagnostics::combine(errors)
                    .unwrap_or_else(|| syn::Error::new(literal.span(), "invalid ONNX text")),
            )
        }
    }
}

/// Why `include_onnx!` refuses a model whose tensors keep their data in files: the value is
/// built into the program, and a reference to a file beside the text would be resolved, if
/// ever, against whatever folder the program runs in.
fn external_data(model: &mut ModelProto, file: &str) -> Option<String> {
    let mut named = Vec::new();
    onnx_syntax::tensors::for_each_tensor(model, &mut |tensor| {
        if onnx_syntax::tensors::is_external(tensor) {
            named.push(format!("`{}`", tensor.name.as_deref().unwrap_or_default()));
        }
    });
    let first = named.first()?;
    let more = match named.len() {
        1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    };
    Some(format!(
        "[external_data]: tensor {first}{more} of `{file}` keeps its data in a file, which \
         `include_onnx!` does not read: write the data into the text with \
         `onnx-text convert {file} --inline-data -o OTHER.onnxtxt`, or keep the reference as it \
         is with `#![allow(external_data)]`"
    ))
}

/// A rendered snippet without its `error: ` or `error[check]: ` title (the compiler error that
/// carries it has its own), and without its final line end.
fn untitled(rendered: &str) -> &str {
    let body = rendered.split_once(": ").map_or(rendered, |(_, rest)| rest);
    body.trim_end()
}
