//! `onnx-text lsp`: a language server for `.onnxtxt` and `.onnxtext` files over standard input
//! and output (LSP 3.17, positions in UTF-16 code units), on lsp-server and lsp-types, the small
//! synchronous stack of rust-analyzer.
//!
//! Documents are synchronised incrementally: a change sends only the edited ranges, which edit
//! the text and its line index in place. A document is analysed again (`document`) when the
//! messages that arrived together are handled, once for a burst of changes, or before a request
//! that reads it; then its diagnostics are published.
//!
//! Every request takes time in proportion to the document or the range it asks about, and a
//! document over [`LARGE_FILE_LIMIT`] (or the client's `initializationOptions.largeFileLimit`, in
//! bytes) keeps to what a parse gives, and the user is told so once.

mod docs;
mod document;
mod edits;
mod features;
mod index;
mod position;
mod settled;
mod transport;

use std::collections::{HashMap, HashSet};
use std::error::Error;

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, Notification as _,
    PublishDiagnostics, ShowMessage,
};
use lsp_types::request::{
    CodeActionRequest, Completion, DocumentHighlightRequest, DocumentSymbolRequest,
    FoldingRangeRequest, Formatting, GotoDefinition, HoverRequest, InlayHintRequest,
    PrepareRenameRequest, References, Rename, Request as _, SemanticTokensFullRequest,
    SemanticTokensRangeRequest,
};
use lsp_types::{
    CodeActionProviderCapability, CompletionOptions, DiagnosticRelatedInformation,
    DiagnosticSeverity, FoldingRangeProviderCapability, HoverProviderCapability, Location,
    MessageType, NumberOrString, OneOf, PositionEncodingKind, PublishDiagnosticsParams,
    RenameOptions, SemanticTokens, SemanticTokensFullOptions, SemanticTokensLegend,
    SemanticTokensOptions, SemanticTokensServerCapabilities, ServerCapabilities, ShowMessageParams,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextEdit, Uri,
};
use onnx_check::Severity;
use onnx_print::format_message;
use onnx_syntax::Entry;
use serde_json::Value;

use document::Document;

/// What stops the server: the connection broke, or a message could not be encoded.
///
/// ```
/// let failure: onnx_text_cli::lsp::Failure = "the client went away".into();
/// assert_eq!(failure.to_string(), "the client went away");
/// ```
pub type Failure = Box<dyn Error + Send + Sync>;

/// The size over which a document is large: parsed and indexed, not checked. A model with its
/// weights inline (ResNet-50: 313 MB) takes seconds to check and gigabytes to hold checked; its
/// architecture with the weights in external data is a few hundred kilobytes.
///
/// ```
/// assert_eq!(onnx_text_cli::lsp::LARGE_FILE_LIMIT, 32 << 20);
/// ```
pub const LARGE_FILE_LIMIT: usize = 32 * 1024 * 1024;

/// Serves over standard input and output until the client says `exit`: `onnx-text lsp`.
///
/// ```no_run
/// // Blocks, reading JSON-RPC from standard input, until the editor says `exit`.
/// onnx_text_cli::lsp::run().unwrap();
/// ```
pub fn run() -> Result<(), Failure> {
    let (connection, threads) = transport::stdio();
    serve(&connection)?;
    drop(connection);
    threads.join()?;
    Ok(())
}

/// The initialize handshake, then the requests and notifications until shutdown, over any
/// connection: standard input and output for [`run`], or memory, in process.
///
/// ```
/// use lsp_server::{Connection, Message, Notification, Request, RequestId};
/// use serde_json::json;
///
/// let (server, client) = Connection::memory();
/// let serving = std::thread::spawn(move || onnx_text_cli::lsp::serve(&server).unwrap());
/// let request = |id: i32, method: &str, params| {
///     Message::Request(Request::new(RequestId::from(id), method.to_owned(), params))
/// };
/// let notify = |method: &str, params| Message::Notification(Notification::new(method.to_owned(), params));
///
/// client.sender.send(request(1, "initialize", json!({ "capabilities": {} }))).unwrap();
/// let Message::Response(answer) = client.receiver.recv().unwrap() else { panic!() };
/// assert_eq!(answer.result.unwrap()["capabilities"]["positionEncoding"], "utf-16");
/// client.sender.send(notify("initialized", json!({}))).unwrap();
///
/// let text = r#"<ir_version: 10, opset_import: ["" : 21]> g (float x) => (float y) { y = Relu(q) }"#;
/// let document = json!({ "uri": "file:///m.onnxtxt", "languageId": "onnxtxt", "version": 1, "text": text });
/// client.sender.send(notify("textDocument/didOpen", json!({ "textDocument": document }))).unwrap();
/// let Message::Notification(published) = client.receiver.recv().unwrap() else { panic!() };
/// assert_eq!(published.params["diagnostics"][0]["code"], "undefined_value");
///
/// client.sender.send(request(2, "shutdown", json!(null))).unwrap();
/// client.receiver.recv().unwrap();
/// client.sender.send(notify("exit", json!(null))).unwrap();
/// serving.join().unwrap();
/// ```
pub fn serve(connection: &Connection) -> Result<(), Failure> {
    let capabilities = serde_json::to_value(capabilities())?;
    let initialize = connection.initialize(capabilities)?;
    let limit = initialize["initializationOptions"]["largeFileLimit"]
        .as_u64()
        .map_or(LARGE_FILE_LIMIT, |limit| limit as usize);
    let mut server = Server {
        connection,
        documents: HashMap::new(),
        limit,
        told: HashSet::new(),
    };
    loop {
        // What has arrived is handled before any analysis: a burst of changes costs one.
        let message = match connection.receiver.try_recv() {
            Ok(message) => message,
            Err(error) if error.is_empty() => {
                server.analyse()?;
                match connection.receiver.recv() {
                    Ok(message) => message,
                    Err(_) => return Ok(()),
                }
            }
            Err(_) => return Ok(()),
        };
        match message {
            Message::Request(request) => {
                if connection.handle_shutdown(&request)? {
                    return Ok(());
                }
                server.analyse()?;
                server.request(request)?;
            }
            Message::Notification(notification) => server.notification(notification)?,
            Message::Response(_) => {}
        }
    }
}

fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(PositionEncodingKind::UTF16),
        text_document_sync: Some(TextDocumentSyncCapability::Kind(
            TextDocumentSyncKind::INCREMENTAL,
        )),
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
                range: Some(true),
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
    /// The size over which a document is large.
    limit: usize,
    /// The large documents the user was told of since they were opened, by URI.
    told: HashSet<String>,
}

impl Server<'_> {
    fn notification(&mut self, notification: Notification) -> Result<(), Failure> {
        match notification.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let params: lsp_types::DidOpenTextDocumentParams =
                    serde_json::from_value(notification.params)?;
                let document = params.text_document;
                let folder = file_path(&document.uri)
                    .and_then(|path| path.parent().map(std::path::Path::to_path_buf));
                let open =
                    Document::new(document.text, document.version, self.limit).in_folder(folder);
                self.documents
                    .insert(document.uri.as_str().to_owned(), open);
            }
            DidChangeTextDocument::METHOD => {
                let params: lsp_types::DidChangeTextDocumentParams =
                    serde_json::from_value(notification.params)?;
                let uri = params.text_document.uri.as_str();
                let Some(document) = self.documents.get_mut(uri) else {
                    return Ok(()); // not open: nothing to apply the changes to
                };
                // Each change's range is in the text as the changes before it left it.
                for change in params.content_changes {
                    document.change(change.range, change.text);
                }
                document.version = params.text_document.version;
            }
            DidCloseTextDocument::METHOD => {
                let params: lsp_types::DidCloseTextDocumentParams =
                    serde_json::from_value(notification.params)?;
                self.documents.remove(params.text_document.uri.as_str());
                self.told.remove(params.text_document.uri.as_str());
                self.publish(&params.text_document.uri, Vec::new(), None)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// Analyses the documents changed since their last analysis, publishes their diagnostics,
    /// and tells the user, once per document, when one is too large for the checks.
    fn analyse(&mut self) -> Result<(), Failure> {
        let mut changed = Vec::new();
        for (uri, document) in &mut self.documents {
            if document.analyse() {
                changed.push(uri.clone());
            }
        }
        for key in changed {
            let document = &self.documents[&key];
            if document.is_large() {
                release_freed_memory();
            }
            let uri: Uri = key.parse()?;
            if document.is_large() && !self.told.contains(&key) {
                self.tell(&uri, document.text.len())?;
                self.told.insert(key.clone());
            }
            self.publish(&uri, diagnostics(&uri, document), Some(document.version))?;
        }
        Ok(())
    }

    fn tell(&self, uri: &Uri, size: usize) -> Result<(), Failure> {
        let mib = |bytes: usize| bytes as f64 / (1024.0 * 1024.0);
        let message = format!(
            "onnx-text: {} is {:.0} MiB, over the language server's limit of {:.0} MiB: it shows \
             syntax errors, symbols and navigation only, no checks, inferred types or \
             formatting (`onnx-text check` and `onnx-text fmt` still do them; keeping the \
             weights in external data makes the text small)",
            uri.as_str().rsplit('/').next().unwrap_or_default(),
            mib(size),
            mib(self.limit),
        );
        self.notify::<ShowMessage>(ShowMessageParams {
            typ: MessageType::WARNING,
            message,
        })
    }

    fn publish(
        &self,
        uri: &Uri,
        diagnostics: Vec<lsp_types::Diagnostic>,
        version: Option<i32>,
    ) -> Result<(), Failure> {
        self.notify::<PublishDiagnostics>(PublishDiagnosticsParams {
            uri: uri.clone(),
            diagnostics,
            version,
        })
    }

    fn notify<N: lsp_types::notification::Notification>(
        &self,
        params: N::Params,
    ) -> Result<(), Failure> {
        let notification = Notification::new(N::METHOD.to_owned(), params);
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
                    data: doc.semantic_tokens(None),
                })
            }
            SemanticTokensRangeRequest::METHOD => {
                let p: lsp_types::SemanticTokensRangeParams = parse(params)?;
                let (_, doc) = self.document(&p.text_document.uri)?;
                json(&SemanticTokens {
                    result_id: None,
                    data: doc.semantic_tokens(Some(p.range)),
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
                if doc.is_large() {
                    return Err(Answer::Refused(format!(
                        "the document is over {} bytes: format it with `onnx-text fmt`",
                        self.limit
                    )));
                }
                let edits = formatted(&doc.text).map(|text| {
                    edits::between(&doc.text, &text)
                        .into_iter()
                        .map(|(span, new_text)| {
                            let range = doc.lines.range(&doc.text, span);
                            TextEdit::new(range, new_text.to_owned())
                        })
                        .collect::<Vec<_>>()
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

/// Returns the memory freed so far to the system. The binary's allocator, mimalloc, keeps freed
/// pages for a while: a large document's tree, freed once indexed, stayed resident while the
/// next edit's tree was built, and the peak grew by a tree (ResNet-50 with inline weights: 3.3
/// times the text instead of 2.2).
fn release_freed_memory() {
    // SAFETY: `mi_collect` only walks mimalloc's own structures; the global allocator is
    // mimalloc (main.rs), and without it the call finds nothing to collect.
    unsafe { libmimalloc_sys::mi_collect(true) }
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

/// The path of the file a `file:` URI names (percent escapes decoded), or `None` for another
/// scheme (an editor's `untitled:` buffer) or a host other than this machine.
fn file_path(uri: &Uri) -> Option<std::path::PathBuf> {
    let rest = uri.as_str().strip_prefix("file://")?;
    // `file:///p` or `file://localhost/p`: the path starts at the first `/`.
    let (host, path) = rest.split_at(rest.find('/')?);
    if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
        return None;
    }
    let mut bytes = Vec::with_capacity(path.len());
    let mut rest = path.as_bytes();
    while let Some((&byte, tail)) = rest.split_first() {
        let escaped = (byte == b'%')
            .then(|| tail.get(..2))
            .flatten()
            .and_then(|hex| u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok());
        match escaped {
            Some(decoded) => {
                bytes.push(decoded);
                rest = &tail[2..];
            }
            None => {
                bytes.push(byte);
                rest = tail;
            }
        }
    }
    // A Windows path: `/C:/models/m.onnxtxt`.
    #[cfg(windows)]
    if bytes.get(2) == Some(&b':') {
        bytes.remove(0);
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        Some(std::ffi::OsString::from_vec(bytes).into())
    }
    #[cfg(not(unix))]
    {
        String::from_utf8(bytes).ok().map(Into::into)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_name_paths_and_other_schemes_none() {
        let path = |uri: &str| file_path(&uri.parse().unwrap());
        assert_eq!(
            path("file:///home/me/my%20models/m.onnxtxt"),
            Some("/home/me/my models/m.onnxtxt".into())
        );
        assert_eq!(
            path("file://localhost/m.onnxtxt"),
            Some("/m.onnxtxt".into())
        );
        assert_eq!(path("file://elsewhere/m.onnxtxt"), None);
        assert_eq!(path("untitled:Untitled-1"), None);
    }
}
