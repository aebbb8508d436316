//! Diagnostics: errors at byte ranges of the rebuilt text, reported on the Rust tokens they came
//! from, so that rustc underlines the offending tokens in the user's file.

use proc_macro2::{Ident, Span, TokenStream};
use quote::ToTokens;

use crate::tokens::{HoleExpr, Source};

/// An error covering the tokens behind `span` of the rebuilt text. A hole's marker in the
/// message (a shape that holds `#b`) is written as the user wrote the hole.
pub fn at_text(source: &Source, span: onnx_syntax::Span, message: &str) -> syn::Error {
    let message = &with_holes_shown(message, &source.holes);
    match source.spans(span.start, span.end) {
        Some((first, last)) => between(first, last, message),
        None => syn::Error::new(Span::call_site(), message),
    }
}

/// `message`, a problem of `diagnostic` or one of its labels, as the macros report it: a
/// check's starts with the check's name in brackets, the name `#![allow(...)]` takes (the CLI's
/// `error[name]:`, which `compile_error!` cannot write); a syntax error's is the message alone.
fn titled(diagnostic: &onnx_check::Diagnostic, message: &str) -> String {
    match diagnostic.check() {
        Some(check) => format!("[{check}] {message}"),
        None => message.to_owned(),
    }
}

/// `diagnostic` as errors on the tokens: the problem on its primary range, then each label on
/// its own range (stable proc macros cannot attach a note to a span, so a label is an error of
/// its own, which names the problem it belongs to).
pub fn on_tokens(source: &Source, diagnostic: &onnx_check::Diagnostic) -> Vec<syn::Error> {
    let title = titled(diagnostic, diagnostic.message());
    let mut errors = vec![at_text(source, diagnostic.span(), &title)];
    for label in diagnostic.labels() {
        let message = titled(diagnostic, &label.message);
        let message = format!("{message}\nnote: of the error: {}", diagnostic.message());
        errors.push(at_text(source, label.span, &message));
    }
    errors
}

/// An error from the token `first` to the token `last`.
///
/// `Span::join` is unstable, so the range is carried the way syn carries it: by a token stream
/// whose first token has the start span and whose last token has the end span.
pub fn between(first: Span, last: Span, message: &str) -> syn::Error {
    let mut ends = TokenStream::new();
    Ident::new("start", first).to_tokens(&mut ends);
    Ident::new("end", last).to_tokens(&mut ends);
    syn::Error::new_spanned(ends, message)
}

/// Joins errors into one, which reports each of them.
pub fn combine(errors: impl IntoIterator<Item = syn::Error>) -> Option<syn::Error> {
    errors.into_iter().reduce(|mut all, next| {
        all.combine(next);
        all
    })
}

/// `message` with each hole marker (a private-use character and the hole's number) replaced by
/// the hole as written, or by `?` if no hole has that number.
pub fn with_holes_shown(message: &str, holes: &[HoleExpr]) -> String {
    let mut shown = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find(['\u{E000}', '\u{E001}']) {
        shown.push_str(&rest[..at]);
        // Both markers are three bytes in UTF-8, followed by the hole's number.
        let after = &rest[at + 3..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let hole = after[..digits]
            .parse::<usize>()
            .ok()
            .and_then(|i| holes.get(i));
        match hole {
            Some(hole) => shown.push_str(&hole.shown()),
            None => shown.push('?'),
        }
        rest = &after[digits..];
    }
    shown.push_str(rest);
    shown
}
