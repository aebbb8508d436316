//! Diagnostics: errors at byte ranges of the rebuilt text, reported on the Rust tokens they came
//! from, so that rustc underlines the offending tokens in the user's file.

use proc_macro2::{Ident, Span, TokenStream};
use quote::ToTokens;

use crate::tokens::Source;

/// An error covering the tokens behind `span` of the rebuilt text.
pub fn at_text(source: &Source, span: onnx_syntax::Span, message: &str) -> syn::Error {
    match source.spans(span.start, span.end) {
        Some((first, last)) => between(first, last, message),
        None => syn::Error::new(Span::call_site(), message),
    }
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
