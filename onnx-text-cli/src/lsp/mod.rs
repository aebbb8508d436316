//! `onnx-text lsp`: a language server for `.onnxtxt` and `.onnxtext` files over standard input
//! and output (LSP 3.17, positions in UTF-16 code units), on lsp-server and lsp-types, the small
//! synchronous stack of rust-analyzer.
//!
//! Each request is answered from the document's last analysis ([`document`]); each change of a
//! document re-analyses it whole and publishes its diagnostics.

mod docs;
mod document;
mod features;
mod index;
mod position;

use std::collections::HashMap;
use std::error::Error;

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, Notification as _,
    PublishDiagnostics,
};
use lsp_types::request::{
    CodeActionRequest, Completion, DocumentHighlightRequest, DocumentSymbolRequest,
    FoldingRangeRequest, Formatting, GotoDefinition, HoverRequest, InlayHintRequest,
    PrepareRenameRequest, References, Rename, Request as _, SemanticTokensFullRequest,
};
use lsp_types::{
    CodeActionProviderCapability, CompletionOptions, DiagnosticRelatedInformation,
    DiagnosticSeverity, FoldingRangeProviderCapability, HoverProviderCapability, Location,
    NumberOrString, OneOf, PositionEncodingKind, PublishDiagnosticsParams, RenameOptions,
    SemanticTokens, SemanticTokensFullOptions, SemanticTokensLegend, SemanticTokensOptions,
    SemanticTokensServerCapabilities, ServerCapabilities, TextDocumentSyncCapability,
    TextDocumentSyncKind, TextEdit, Uri,
};
use onnx_print::format_message;
use onnx_syntax::Entry;
use onnx_syntax::check::Severity;
use serde_json::Value;

use document::Document;

type Failure = Box<dyn Error + Send + Sync>;

/// Serves until the client says `exit`.
pub fn run() -> Result<(), Failure> {
    let (connection, threads) = Connection::stdio();
    serve(&connection)?;
    drop(connection);
    threads.join()?;
    Ok(())
}

/// The initialize handshake, then the requests and notifications until shutdown.
pub fn serve(connection: &Connection) -> Result<(), Failure> {
    let capabilities = serde_json::to_value(capabilities())?;
    connection.initialize(capabilities)?;
    let mut server = Server {
        connection,
        documents: HashMap::new(),
    };
    for message in &connection.receiver {
        match message {
            Message::Request(request) => {
                if connection.handle_shutdown(&request)? {
                    return Ok(());
                }
                server.request(request)?;
            }
            Message::Notification(notification) => server.notification(notification)?,
            Message::Response(_) => {}
        }
    }
    Ok(())
}

fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(PositionEncodingKind::UTF16),
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        document_highlight_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: Default::default(),
        })),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![
                ".".into(),
                "(".into(),
                ",".into(),
                "<".into(),
                "[".into(),
            ]),
            ..CompletionOptions::default()
        }),
        document_symbol_provider: Some(OneOf::Left(true)),
        folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
        inlay_hint_provider: Some(OneOf::Left(true)),
        document_formatting_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
        semantic_tokens_provider: Some(SemanticTokensServerCapabilities::SemanticTokensOptions(
            SemanticTokensOptions {
                legend: SemanticTokensLegend {
                    token_types: features::TOKEN_TYPES.iter().map(|&t| t.into()).collect(),
                    token_modifiers: Vec::new(),
                },
                full: Some(SemanticTokensFullOptions::Bool(true)),
                ..SemanticTokensOptions::default()
            },
        )),
        ..ServerCapabilities::default()
    }
}

struct Server<'c> {
    connection: &'c Connection,
    /// By URI.
    documents: HashMap<String, Document>,
}

impl Server<'_> {
    fn notification(&mut self, notification: Notification) -> Result<(), Failure> {
        match notification.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let params: lsp_types::DidOpenTextDocumentParams =
                    serde_json::from_value(notification.params)?;
                let document = params.text_document;
                self.update(document.uri, document.text, document.version)?;
            }
            DidChangeTextDocument::METHOD => {
                let params: lsp_types::DidChangeTextDocumentParams =
                    serde_json::from_value(notification.params)?;
                // Full synchronisation: the last change holds the whole text.
                if let Some(change) = params.content_changes.into_iter().last() {
                    self.update(
                        params.text_document.uri,
                        change.text,
                        params.text_document.version,
                    )?;
                }
            }
            DidCloseTextDocument::METHOD => {
                let params: lsp_types::DidCloseTextDocumentParams =
                    serde_json::from_value(notification.params)?;
                self.documents.remove(params.text_document.uri.as_str());
                self.publish(&params.text_document.uri, Vec::new(), None)?;
            }
            _ => {}
        }
        Ok(())
    }

    fn update(&mut self, uri: Uri, text: String, version: i32) -> Result<(), Failure> {
        let document = Document::new(text);
        let diagnostics = diagnostics(&uri, &document);
        self.documents.insert(uri.as_str().to_owned(), document);
        self.publish(&uri, diagnostics, Some(version))
    }

    fn publish(
        &self,
        uri: &Uri,
        diagnostics: Vec<lsp_types::Diagnostic>,
        version: Option<i32>,
    ) -> Result<(), Failure> {
        let params = PublishDiagnosticsParams {
            uri: uri.clone(),
            diagnostics,
            version,
        };
        let notification = Notification::new(PublishDiagnostics::METHOD.to_owned(), params);
        self.connection
            .sender
            .send(Message::Notification(notification))?;
        Ok(())
    }

    fn request(&mut self, request: Request) -> Result<(), Failure> {
        let id = request.id.clone();
        let response = match self.answer(request) {
            Ok(result) => Response::new_ok(id, result),
            Err(Answer::Refused(message)) => {
                Response::new_err(id, ErrorCode::RequestFailed as i32, message)
            }
            Err(Answer::Unknown(method)) => Response::new_err(
                id,
                ErrorCode::MethodNotFound as i32,
                format!("onnx-text lsp does not answer `{method}`"),
            ),
            Err(Answer::Invalid(message)) => {
                Response::new_err(id, ErrorCode::InvalidParams as i32, message)
            }
        };
        self.connection.sender.send(Message::Response(response))?;
        Ok(())
    }

    /// The result of one request.
    fn answer(&self, request: Request) -> Result<Value, Answer> {
        let params = request.params;
        let result: Value = match request.method.as_str() {
            HoverRequest::METHOD => {
                let p: lsp_types::HoverParams = parse(params)?;
                let (_, doc) = self.document(&p.text_document_position_params.text_document.uri)?;
                json(&doc.hover(p.text_document_position_params.position))
            }
            GotoDefinition::METHOD => {
                let p: lsp_types::GotoDefinitionParams = parse(params)?;
                let at = p.text_document_position_params;
                let (uri, doc) = self.document(&at.text_document.uri)?;
                json(&doc.definition(uri, at.position))
            }
            References::METHOD => {
                let p: lsp_types::ReferenceParams = parse(params)?;
                let at = p.text_document_position;
                let (uri, doc) = self.document(&at.text_document.uri)?;
                json(&doc.references(uri, at.position, p.context.include_declaration))
            }
            DocumentHighlightRequest::METHOD => {
                let p: lsp_types::DocumentHighlightParams = parse(params)?;
                let at = p.text_document_position_params;
                let (_, doc) = self.document(&at.text_document.uri)?;
                json(&doc.highlights(at.position))
            }
            PrepareRenameRequest::METHOD => {
                let p: lsp_types::TextDocumentPositionParams = parse(params)?;
                let (_, doc) = self.document(&p.text_document.uri)?;
                json(&doc.prepare_rename(p.position))
            }
            Rename::METHOD => {
                let p: lsp_types::RenameParams = parse(params)?;
                let at = p.text_document_position;
                let (uri, doc) = self.document(&at.text_document.uri)?;
                json(
                    &doc.rename(uri, at.position, &p.new_name)
                        .map_err(Answer::Refused)?,
                )
            }
            Completion::METHOD => {
                let p: lsp_types::CompletionParams = parse(params)?;
                let at = p.text_document_position;
                let (_, doc) = self.document(&at.text_document.uri)?;
                json(&doc.completion(at.position))
            }
            InlayHintRequest::METHOD => {
                let p: lsp_types::InlayHintParams = parse(params)?;
                let (_, doc) = self.document(&p.text_document.uri)?;
                json(&doc.inlay_hints(p.range))
            }
            DocumentSymbolRequest::METHOD => {
                let p: lsp_types::DocumentSymbolParams = parse(params)?;
                let (_, doc) = self.document(&p.text_document.uri)?;
                json(&doc.symbols())
            }
            FoldingRangeRequest::METHOD => {
                let p: lsp_types::FoldingRangeParams = parse(params)?;
                let (_, doc) = self.document(&p.text_document.uri)?;
                json(&doc.folding_ranges())
            }
            SemanticTokensFullRequest::METHOD => {
                let p: lsp_types::SemanticTokensParams = parse(params)?;
                let (_, doc) = self.document(&p.text_document.uri)?;
                json(&SemanticTokens {
                    result_id: None,
                    data: doc.semantic_tokens(),
                })
            }
            CodeActionRequest::METHOD => {
                let p: lsp_types::CodeActionParams = parse(params)?;
                let (uri, doc) = self.document(&p.text_document.uri)?;
                json(&doc.code_actions(uri, p.range))
            }
            Formatting::METHOD => {
                let p: lsp_types::DocumentFormattingParams = parse(params)?;
                let (_, doc) = self.document(&p.text_document.uri)?;
                let edits = formatted(&doc.text).map(|text| {
                    let end = doc.lines.position(&doc.text, doc.text.len() as u32);
                    let whole = lsp_types::Range::new(lsp_types::Position::new(0, 0), end);
                    vec![TextEdit::new(whole, text)]
                });
                json(&edits)
            }
            method => return Err(Answer::Unknown(method.to_owned())),
        };
        Ok(result)
    }

    fn document<'a>(&'a self, uri: &'a Uri) -> Result<(&'a Uri, &'a Document), Answer> {
        match self.documents.get(uri.as_str()) {
            Some(document) => Ok((uri, document)),
            None => Err(Answer::Refused(format!("{} is not open", uri.as_str()))),
        }
    }
}

/// Why a request gets an error.
enum Answer {
    Refused(String),
    Unknown(String),
    Invalid(String),
}

fn parse<P: serde::de::DeserializeOwned>(params: Value) -> Result<P, Answer> {
    serde_json::from_value(params).map_err(|e| Answer::Invalid(e.to_string()))
}

/// An answer as JSON (every lsp-types answer serializes).
fn json(answer: &impl serde::Serialize) -> Value {
    serde_json::to_value(answer).unwrap_or(Value::Null)
}

/// The document's problems as LSP diagnostics: the same messages and check names as
/// `onnx-text check`, with each label as related information.
fn diagnostics(uri: &Uri, document: &Document) -> Vec<lsp_types::Diagnostic> {
    let range = |span| document.lines.range(&document.text, span);
    document
        .diagnostics
        .iter()
        .map(|d| {
            let related: Vec<_> = d
                .labels()
                .iter()
                .map(|label| DiagnosticRelatedInformation {
                    location: Location::new(uri.clone(), range(label.span)),
                    message: label.message.clone(),
                })
                .collect();
            lsp_types::Diagnostic {
                range: range(d.span()),
                severity: Some(match d.severity() {
                    Severity::Error => DiagnosticSeverity::ERROR,
                }),
                code: Some(NumberOrString::String(d.kind().to_string())),
                source: Some("onnx-text".into()),
                message: d.message().to_owned(),
                related_information: (!related.is_empty()).then_some(related),
                ..lsp_types::Diagnostic::default()
            }
        })
        .collect()
}

/// The text formatted as `onnx-text fmt` formats it, comments kept; `None` if it does not
/// parse (as a model, a function library or a graph).
fn formatted(text: &str) -> Option<String> {
    [Entry::Model, Entry::Functions, Entry::Graph]
        .into_iter()
        .find_map(|entry| format_message(text, entry).ok())
        .map(|(_, formatted)| formatted)
}
