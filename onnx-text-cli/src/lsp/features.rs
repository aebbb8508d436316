//! The answers to an editor's requests, each from a [`Document`] alone: no I/O here, so that the
//! unit tests run them directly and the server only converts positions and messages.

use lsp_types::{
    CodeAction, CodeActionKind, CompletionItem, CompletionItemKind, DocumentHighlight,
    DocumentHighlightKind, DocumentSymbol, FoldingRange, Hover, HoverContents, InlayHint,
    InlayHintLabel, Location, MarkupContent, MarkupKind, Position, Range, SemanticToken,
    SymbolKind as LspSymbolKind, TextEdit, Uri, WorkspaceEdit,
};
use onnx_check::{describe_operator, operators_at, standard_domains};
use onnx_syntax::Span;
use onnx_syntax::dtype::ELEM_TYPES;

use super::document::Document;
use super::index::{Outline, OutlineKind, Role, SymbolKind, same_domain};

/// The semantic token types, in the order of the legend the server announces.
pub const TOKEN_TYPES: [&str; 3] = ["variable", "function", "namespace"];

impl Document {
    fn range(&self, span: Span) -> Range {
        self.lines.range(&self.text, span)
    }

    pub fn offset(&self, position: Position) -> u32 {
        self.lines.offset(&self.text, position)
    }

    /// The version of `domain` imported where `scope` is.
    fn version(&self, scope: usize, domain: &str) -> Option<i64> {
        self.index.scopes[scope].imports.version(domain)
    }

    /// The type of a value: as written, else as inferred.
    fn value_type(&self, symbol: usize) -> Option<String> {
        let entry = &self.index.symbols[symbol];
        if let Some(span) = entry.declared {
            return self
                .text
                .get(span.start as usize..span.end as usize)
                .map(str::to_owned);
        }
        if self.index.scopes.get(entry.scope).is_some_and(|s| s.main) {
            return self.types.get(&entry.name).cloned();
        }
        None
    }

    pub fn hover(&self, position: Position) -> Option<Hover> {
        let offset = self.offset(position);
        let (text, span) = if let Some(site) = self.index.operator_at(offset) {
            let text = match site.function {
                Some(symbol) => {
                    let function = self.index.functions.iter().find(|f| f.symbol == symbol)?;
                    format!(
                        "```onnx\n{}\n```\nfunction of domain `{}`",
                        function.signature,
                        onnx_syntax::domain::display(&function.domain)
                    )
                }
                None => {
                    let version = self.version(site.scope, &site.domain)?;
                    let doc = describe_operator(&site.domain, &site.op_type, version)?;
                    operator_markdown(&doc, version)
                }
            };
            (text, site.span)
        } else {
            let occurrence = self.index.occurrence_at(offset)?;
            let symbol = &self.index.symbols[occurrence.symbol];
            let text = match symbol.kind {
                SymbolKind::Value => match self.value_type(occurrence.symbol) {
                    Some(ty) => format!("```onnx\n{ty} {}\n```", symbol.name),
                    None => format!("`{}`: type unknown", symbol.name),
                },
                SymbolKind::Function => {
                    let function = self
                        .index
                        .functions
                        .iter()
                        .find(|f| f.symbol == occurrence.symbol)?;
                    format!("```onnx\n{}\n```", function.signature)
                }
            };
            (text, occurrence.span)
        };
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: text,
            }),
            range: Some(self.range(span)),
        })
    }

    pub fn definition(&self, uri: &Uri, position: Position) -> Option<Location> {
        let occurrence = self.index.occurrence_at(self.offset(position))?;
        let span = self.index.symbols[occurrence.symbol].definition?;
        Some(Location::new(uri.clone(), self.range(span)))
    }

    pub fn references(&self, uri: &Uri, position: Position, declaration: bool) -> Vec<Location> {
        let Some(occurrence) = self.index.occurrence_at(self.offset(position)) else {
            return Vec::new();
        };
        self.index
            .occurrences_of(occurrence.symbol)
            .filter(|o| declaration || o.role != Role::Definition)
            .map(|o| Location::new(uri.clone(), self.range(o.span)))
            .collect()
    }

    pub fn highlights(&self, position: Position) -> Vec<DocumentHighlight> {
        let Some(occurrence) = self.index.occurrence_at(self.offset(position)) else {
            return Vec::new();
        };
        self.index
            .occurrences_of(occurrence.symbol)
            .map(|o| DocumentHighlight {
                range: self.range(o.span),
                kind: Some(match o.role {
                    Role::Definition => DocumentHighlightKind::WRITE,
                    Role::Use => DocumentHighlightKind::READ,
                    Role::Declaration => DocumentHighlightKind::TEXT,
                }),
            })
            .collect()
    }

    /// The range of the name at `position`, if it can be renamed.
    pub fn prepare_rename(&self, position: Position) -> Option<Range> {
        let occurrence = self.index.occurrence_at(self.offset(position))?;
        Some(self.range(occurrence.span))
    }

    /// Renames the value or function at `position` everywhere; refuses a name that is not an
    /// identifier, or one that a value or function it could meet already has.
    pub fn rename(
        &self,
        uri: &Uri,
        position: Position,
        new_name: &str,
    ) -> Result<WorkspaceEdit, String> {
        let occurrence = self
            .index
            .occurrence_at(self.offset(position))
            .ok_or("no value or function here")?;
        if !onnx_syntax::lex::is_identifier(new_name) {
            return Err(format!(
                "`{new_name}` is not a name the text can write without quotes"
            ));
        }
        let symbol = &self.index.symbols[occurrence.symbol];
        let clash = match symbol.kind {
            SymbolKind::Function => self.index.functions.iter().any(|f| f.name == new_name),
            SymbolKind::Value => self.meets(symbol.scope, new_name),
        };
        if clash {
            return Err(format!(
                "`{new_name}` is already a name here: renaming would merge two values"
            ));
        }
        let edits = self
            .index
            .occurrences_of(occurrence.symbol)
            .map(|o| TextEdit::new(self.range(o.span), new_name.to_owned()))
            .collect();
        Ok(WorkspaceEdit {
            changes: Some([(uri.clone(), edits)].into_iter().collect()),
            ..WorkspaceEdit::default()
        })
    }

    /// Whether a value named `name` is visible in `scope` or in a scope nested in it.
    fn meets(&self, scope: usize, name: &str) -> bool {
        let index = &self.index;
        let nested = |mut s: usize| loop {
            if s == scope {
                return true;
            }
            match index.scopes[s].parent {
                Some(parent) => s = parent,
                None => return false,
            }
        };
        index.resolve(scope, name).is_some()
            || index
                .symbols
                .iter()
                .any(|sym| sym.kind == SymbolKind::Value && sym.name == name && nested(sym.scope))
    }

    pub fn completion(&self, position: Position) -> Vec<CompletionItem> {
        let offset = self.offset(position) as usize;
        let line_start = self.lines.line_start(offset as u32) as usize;
        let line = &self.text[line_start..offset];
        let scope = self.index.scope_at(offset as u32);
        match completion_context(line) {
            Context::Operator { domain } => self.operator_items(scope, domain),
            Context::Operand => scope
                .map(|s| self.value_items(s, offset as u32))
                .unwrap_or_default(),
            Context::Attribute { domain, op_type } => {
                let version = scope
                    .and_then(|s| self.version(s, &domain))
                    .unwrap_or(i64::MAX);
                describe_operator(&domain, &op_type, version)
                    .map(|doc| {
                        let default = |a: &str| {
                            super::docs::default_of(doc.domain, doc.name, doc.since_version, a)
                        };
                        doc.attributes
                            .iter()
                            .map(|a| {
                                let detail = match default(a.name) {
                                    Some(value) => format!("{a} = {value}"),
                                    None => a.to_string(),
                                };
                                item(a.name, CompletionItemKind::PROPERTY, detail)
                            })
                            .collect()
                    })
                    .unwrap_or_default()
            }
            Context::Type => ELEM_TYPES
                .iter()
                .map(|t| {
                    item(
                        t.name,
                        CompletionItemKind::TYPE_PARAMETER,
                        "element type".into(),
                    )
                })
                .collect(),
        }
    }

    fn operator_items(&self, scope: Option<usize>, domain: Option<String>) -> Vec<CompletionItem> {
        let imports = scope.map_or(&[][..], |s| &self.index.scopes[s].imports.versions[..]);
        let mut items = Vec::new();
        for (imported, version) in imports {
            if domain.as_deref().is_some_and(|d| !same_domain(d, imported)) {
                continue;
            }
            let known = standard_domains().iter().any(|d| same_domain(d, imported));
            if !known {
                continue;
            }
            for name in operators_at(imported, *version) {
                let detail = describe_operator(imported, name, *version)
                    .map(|d| {
                        format!(
                            "{} (since {} {})",
                            d.signature(),
                            onnx_syntax::domain::display(imported),
                            d.since_version
                        )
                    })
                    .unwrap_or_default();
                items.push(item(name, CompletionItemKind::FUNCTION, detail));
            }
        }
        for function in &self.index.functions {
            if domain
                .as_deref()
                .is_some_and(|d| !same_domain(d, &function.domain))
            {
                continue;
            }
            let label = match domain {
                Some(_) => function.name.clone(),
                None if function.domain.is_empty() => function.name.clone(),
                None => format!("{}.{}", function.domain, function.name),
            };
            items.push(item(
                &label,
                CompletionItemKind::METHOD,
                function.signature.clone(),
            ));
        }
        items
    }

    /// The values an operand at `offset` may name: those of `scope` and the scopes around it
    /// that are defined before the node being written (its own outputs and later ones would be
    /// `use_before_definition`).
    fn value_items(&self, scope: usize, offset: u32) -> Vec<CompletionItem> {
        self.index
            .visible(scope)
            .into_iter()
            .filter(|&symbol| {
                self.index.symbols[symbol]
                    .usable_after
                    .is_none_or(|end| end <= offset)
            })
            .map(|symbol| {
                let detail = self.value_type(symbol).unwrap_or_default();
                item(
                    &self.index.symbols[symbol].name,
                    CompletionItemKind::VARIABLE,
                    detail,
                )
            })
            .collect()
    }

    /// The inferred type after each value defined without one (node outputs, mostly).
    pub fn inlay_hints(&self, range: Range) -> Vec<InlayHint> {
        let (from, to) = (self.offset(range.start), self.offset(range.end));
        self.index
            .occurrences
            .iter()
            .filter(|o| o.role == Role::Definition && from <= o.span.start && o.span.end <= to)
            .filter(|o| self.index.symbols[o.symbol].kind == SymbolKind::Value)
            .filter(|o| self.index.symbols[o.symbol].declared.is_none())
            .filter_map(|o| {
                let ty = self.value_type(o.symbol)?;
                Some(InlayHint {
                    position: self.lines.position(&self.text, o.span.end),
                    label: InlayHintLabel::String(format!(": {ty}")),
                    kind: Some(lsp_types::InlayHintKind::TYPE),
                    text_edits: None,
                    tooltip: None,
                    padding_left: None,
                    padding_right: None,
                    data: None,
                })
            })
            .collect()
    }

    /// The outline: the main graph and the functions, their nodes by outputs, and the graphs of
    /// nodes' attributes.
    pub fn symbols(&self) -> Vec<DocumentSymbol> {
        self.index
            .outline
            .iter()
            .map(|entry| self.symbol(entry))
            .collect()
    }

    #[allow(deprecated)] // `DocumentSymbol::deprecated` must still be written.
    fn symbol(&self, entry: &Outline) -> DocumentSymbol {
        let children: Vec<DocumentSymbol> = entry.children.iter().map(|c| self.symbol(c)).collect();
        DocumentSymbol {
            name: if entry.name.is_empty() {
                "(unnamed)".into()
            } else {
                entry.name.clone()
            },
            detail: (!entry.detail.is_empty()).then(|| entry.detail.clone()),
            kind: match entry.kind {
                OutlineKind::Graph => LspSymbolKind::MODULE,
                OutlineKind::Function => LspSymbolKind::FUNCTION,
                OutlineKind::Node => LspSymbolKind::VARIABLE,
            },
            tags: None,
            deprecated: None,
            range: self.range(entry.span),
            selection_range: self.range(entry.selection),
            children: (!children.is_empty()).then_some(children),
        }
    }

    pub fn folding_ranges(&self) -> Vec<FoldingRange> {
        self.index
            .scopes
            .iter()
            .map(|scope| {
                (
                    self.range(scope.span).start.line,
                    self.range(scope.span).end.line,
                )
            })
            .filter(|(start, end)| start < end)
            .map(|(start_line, end_line)| FoldingRange {
                start_line,
                end_line,
                ..FoldingRange::default()
            })
            .collect()
    }

    /// Semantic tokens: values, functions and operators, and the domains of operators; of the
    /// whole text, or of the tokens that start in `range`. The work is in proportion to the
    /// tokens given.
    pub fn semantic_tokens(&self, range: Option<Range>) -> Vec<SemanticToken> {
        let (from, to) = match range {
            Some(range) => (self.offset(range.start), self.offset(range.end)),
            None => (0, u32::MAX),
        };
        let index = &self.index;
        let within = |start: u32| from <= start && start < to;
        let first = index.occurrences.partition_point(|o| o.span.start < from);
        let mut marks: Vec<(Span, u32)> = Vec::new();
        for occurrence in index.occurrences[first..]
            .iter()
            .take_while(|o| within(o.span.start))
        {
            let kind = match index.symbols[occurrence.symbol].kind {
                SymbolKind::Value => 0,
                SymbolKind::Function => 1,
            };
            marks.push((occurrence.span, kind));
        }
        // An operator's domain starts where it does; its name comes later.
        let first = index.operators.partition_point(|o| o.span.start < from);
        for site in index.operators[first..]
            .iter()
            .take_while(|o| within(o.span.start))
        {
            if site.function.is_some() {
                continue; // marked as the function's occurrence
            }
            let name = Span::new(site.span.end - site.op_type.len() as u32, site.span.end);
            if name.start > site.span.start {
                marks.push((Span::new(site.span.start, name.start - 1), 2));
            }
            if within(name.start) {
                marks.push((name, 1));
            }
        }
        marks.sort_by_key(|(span, _)| span.start);
        marks.dedup_by_key(|(span, _)| span.start);
        let mut tokens = Vec::with_capacity(marks.len());
        let (mut line, mut column) = (0, 0);
        for (span, kind) in marks {
            let Range { start, end } = self.range(span);
            if start.line != end.line {
                continue; // a token may not span lines
            }
            let delta_line = start.line - line;
            let delta_start = if delta_line == 0 {
                start.character - column
            } else {
                start.character
            };
            tokens.push(SemanticToken {
                delta_line,
                delta_start,
                length: end.character - start.character,
                token_type: kind,
                token_modifiers_bitset: 0,
            });
            (line, column) = (start.line, start.character);
        }
        tokens
    }

    /// Quick fixes: the fixes of the diagnostics in `range` ("did you mean" suggestions, the
    /// inferred type of an untyped main-graph value, a missing opset import), as the checks
    /// built them.
    pub fn code_actions(&self, uri: &Uri, range: Range) -> Vec<CodeAction> {
        let (from, to) = (self.offset(range.start), self.offset(range.end));
        let mut actions = Vec::new();
        for diagnostic in &self.diagnostics {
            let span = diagnostic.span();
            if span.end < from || span.start > to {
                continue;
            }
            for fix in diagnostic.fixes() {
                let edits = fix
                    .edits
                    .iter()
                    .map(|edit| TextEdit::new(self.range(edit.span), edit.text.clone()))
                    .collect();
                actions.push(CodeAction {
                    title: fix.title.clone(),
                    kind: Some(CodeActionKind::QUICKFIX),
                    edit: Some(WorkspaceEdit {
                        changes: Some([(uri.clone(), edits)].into_iter().collect()),
                        ..WorkspaceEdit::default()
                    }),
                    is_preferred: Some(true),
                    ..CodeAction::default()
                });
            }
        }
        actions
    }
}

fn item(label: &str, kind: CompletionItemKind, detail: String) -> CompletionItem {
    CompletionItem {
        label: label.to_owned(),
        kind: Some(kind),
        detail: (!detail.is_empty()).then_some(detail),
        ..CompletionItem::default()
    }
}

fn operator_markdown(doc: &onnx_check::OperatorDoc, imported: i64) -> String {
    let docs = super::docs::docs(doc.domain, doc.name, doc.since_version);
    let mut text = format!("```onnx\n{}\n```\n", doc.signature());
    if let Some(docs) = docs.filter(|d| !d.summary.is_empty()) {
        text.push_str(docs.summary);
        text.push_str("\n\n");
    }
    text.push_str(&format!(
        "`{}` operator, opset {} (this schema since version {})\n",
        doc.domain, imported, doc.since_version
    ));
    for attribute in &doc.attributes {
        let default =
            super::docs::default_of(doc.domain, doc.name, doc.since_version, attribute.name);
        match default {
            Some(value) => text.push_str(&format!("\n- `{attribute}`, default `{value}`")),
            None => text.push_str(&format!("\n- `{attribute}`")),
        }
    }
    for (param, types) in &doc.constraints {
        text.push_str(&format!("\n- `{param}`: {}", types.join(", ")));
    }
    text
}

/// What the text before the cursor, on its line, asks to complete.
#[derive(Debug, PartialEq)]
enum Context {
    /// After `outputs =`: an operator, of this domain if one is written (`com.acme.`).
    Operator { domain: Option<String> },
    /// In a node's operand list.
    Operand,
    /// In a node's attribute list, before an `=`.
    Attribute { domain: String, op_type: String },
    /// Anywhere else: a type.
    Type,
}

fn completion_context(line: &str) -> Context {
    // The innermost bracket still open on the line.
    let mut open: Vec<(char, usize)> = Vec::new();
    let mut quoted = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => quoted = !quoted,
            _ if quoted => {}
            '(' | '<' | '[' | '{' => open.push((c, i)),
            ')' | '>' | ']' | '}' => {
                open.pop();
            }
            _ => {}
        }
    }
    let assignment = line.find('=').filter(|&i| !line[i..].starts_with("=>"));
    match (open.last(), assignment) {
        (None, Some(eq)) if !line[eq + 1..].contains(['(', '<']) => {
            let written = line[eq + 1..].trim();
            let domain = written.rfind('.').map(|dot| written[..dot].to_owned());
            Context::Operator { domain }
        }
        (Some(('(', _)), Some(eq)) if eq < open[0].1 => Context::Operand,
        (Some(('<', at)), Some(eq)) if eq < *at => {
            let inside = &line[at + 1..];
            let entry = inside.rsplit(',').next().unwrap_or(inside);
            if entry.contains('=') {
                return Context::Type;
            }
            let op = line[eq + 1..*at].trim();
            let (domain, op_type) = match op.rfind('.') {
                Some(dot) => (op[..dot].to_owned(), op[dot + 1..].to_owned()),
                None => (String::new(), op.to_owned()),
            };
            Context::Attribute { domain, op_type }
        }
        _ => Context::Type,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_before_the_cursor_says_what_to_complete() {
        assert_eq!(
            completion_context("    y = Re"),
            Context::Operator { domain: None }
        );
        assert_eq!(
            completion_context("    y = com.acme.Sw"),
            Context::Operator {
                domain: Some("com.acme".into())
            }
        );
        assert_eq!(completion_context("    y = Relu (x, "), Context::Operand);
        assert_eq!(
            completion_context("    y = LeakyRelu <al"),
            Context::Attribute {
                domain: String::new(),
                op_type: "LeakyRelu".into()
            }
        );
        assert_eq!(completion_context("g (flo"), Context::Type);
    }

    #[test]
    fn a_missing_import_is_added_to_the_imports_in_force_at_the_node() {
        // The function has imports of its own: the fix goes there, not into the model's.
        let text = r#"<ir_version: 10, opset_import: ["" : 21, "local" : 1]>
g (float[2] x) => (float[2] y) { y = local.F (x) }
<domain: "local", opset_import: ["" : 21]>
F (x) => (y) { y = com.acme.Swish (x) }"#;
        let document = Document::analysed(text);
        let uri: Uri = "file:///m.onnxtxt".parse().unwrap();
        let whole = Range::new(Position::new(0, 0), Position::new(4, 0));
        let actions = document.code_actions(&uri, whole);
        let import = actions
            .iter()
            .find(|a| a.title.starts_with("Import"))
            .unwrap();
        // One document's edits (the map is keyed by `Uri`, which clippy will not have bound).
        let edits = import
            .edit
            .as_ref()
            .and_then(|e| e.changes.as_ref()?.values().next());
        let edit = &edits.unwrap()[0];
        assert_eq!(edit.new_text, ", \"com.acme\" : 1");
        let in_function = text.rfind("21]").unwrap() as u32 + 2;
        assert_eq!(edit.range.start, document.lines.position(text, in_function));
    }
}
