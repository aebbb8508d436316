//! One open document: its text, the problems the checks find in it, and the index the editor
//! features read.
//!
//! Changes edit the text in place (the editor sends only what changed) and leave the analysis
//! stale until [`Document::analyse`]: the server analyses once for a burst of changes.
//!
//! A text with a syntax error still gets an index: the lines holding errors are blanked (their
//! bytes turned into spaces, so every other offset stays where it is) and the text is parsed
//! again, up to a few times. Hover, definition and completion keep working everywhere else; the
//! diagnostics are those of the text as written.
//!
//! A text over the size limit is only parsed and indexed: syntax errors, symbols and navigation;
//! no checks, types, recovery or formatting, which on a model of hundreds of megabytes of inline
//! weights take many seconds and gigabytes. Its number lists that no edit touched are not read
//! again ([`settled`](super::settled)).

use std::collections::HashMap;
use std::path::PathBuf;

use lsp_types::Range;
use onnx_check::{CheckOptions, CheckTree, Diagnostic};
use onnx_infer::Inference;
use onnx_syntax::{Entry, ParseError, Proto, Tree};

use super::index::Index;
use super::position::LineIndex;
use super::settled::Settled;
use crate::data_check::external_data_problems;

/// How many lines recovery blanks before it gives up.
const RECOVERY_ATTEMPTS: usize = 16;

/// An open document and what is known of it.
pub struct Document {
    pub text: String,
    pub lines: LineIndex,
    /// The editor's version of the text.
    pub version: i32,
    /// Over this many bytes, the document is large: parsed and indexed only.
    limit: usize,
    /// Whether what follows is of the text as it is.
    analysed: bool,
    /// Of a large document: the number lists the next parse need not read.
    settled: Settled,
    /// The problems of the text as written, in text order.
    pub diagnostics: Vec<Diagnostic>,
    /// The index, of the text as written or of its recovered form.
    pub index: Index,
    /// Inferred types of the main graph's values, as the text writes types (`float[N, 10]`).
    pub types: HashMap<String, String>,
    /// The folder of the document's file, where its external data is: `None` for a document
    /// that is no file (`untitled:`), whose external data is not looked for.
    folder: Option<PathBuf>,
}

impl Document {
    /// A document not analysed yet.
    pub fn new(text: String, version: i32, limit: usize) -> Document {
        let lines = LineIndex::new(&text);
        Document {
            text,
            lines,
            version,
            limit,
            analysed: false,
            settled: Settled::default(),
            diagnostics: Vec::new(),
            index: Index::default(),
            types: HashMap::new(),
            folder: None,
        }
    }

    /// The same document, its external data looked for in `folder`, as `check` looks for it
    /// beside the file.
    pub fn in_folder(mut self, folder: Option<PathBuf>) -> Document {
        self.folder = folder;
        self
    }

    /// Whether the document is over the size limit.
    pub fn is_large(&self) -> bool {
        self.text.len() > self.limit
    }

    /// Replaces `range` (UTF-16 positions, in the text as the changes before left it) with
    /// `text`; without a range, the whole text.
    pub fn change(&mut self, range: Option<Range>, text: String) {
        match range {
            Some(range) => {
                let bytes = self.lines.bytes(&self.text, range);
                self.text.replace_range(bytes.clone(), &text);
                self.settled.edit(bytes.clone(), text.len());
                self.lines.edit(bytes, &text);
            }
            None => {
                self.lines = LineIndex::new(&text);
                self.text = text;
                self.settled.clear();
            }
        }
        self.analysed = false;
    }

    /// Analyses the text if it changed since the last analysis; whether it did.
    pub fn analyse(&mut self) -> bool {
        if self.analysed {
            return false;
        }
        self.analysed = true;
        self.index = Index::default();
        self.types = HashMap::new();
        let large = self.is_large();
        let masked = if large {
            self.settled.masked(&self.text)
        } else {
            self.settled.clear();
            None
        };
        match parse(masked.as_deref().unwrap_or(&self.text)) {
            Ok(tree) => {
                self.index = index_of(&tree, &self.text);
                self.diagnostics = Vec::new();
                if large {
                    self.settled.record(&tree, &self.text);
                } else {
                    let (diagnostics, types) = check(tree, &self.text, self.folder.as_ref());
                    self.diagnostics = diagnostics;
                    self.types = types;
                }
            }
            Err(error) => {
                self.diagnostics = vec![Diagnostic::from(&error)];
                let recovered = if large {
                    None
                } else {
                    recover(&self.text, error)
                };
                if let Some((text, tree)) = recovered {
                    self.index = index_of(&tree, &text);
                    let (_, types) = check(tree, &text, None);
                    self.types = types;
                }
            }
        }
        true
    }
}

#[cfg(test)]
impl Document {
    /// A document of `text`, analysed, under the server's default limit.
    pub fn analysed(text: &str) -> Document {
        let mut document = Document::new(text.to_owned(), 1, super::LARGE_FILE_LIMIT);
        document.analyse();
        document
    }
}

/// A model, or else a function library (`.onnxtxt` files hold either), or else a lone graph.
/// The error is the model's, unless the text is plainly one of the others.
fn parse(text: &str) -> Result<Tree, ParseError> {
    let model = match Entry::Model.parse(text) {
        Ok(tree) => return Ok(tree),
        Err(error) => error,
    };
    for other in [Entry::Functions, Entry::Graph] {
        if let Ok(tree) = other.parse(text) {
            return Ok(tree);
        }
    }
    Err(model)
}

/// Parses the text with the lines of its errors blanked, one more each time; the recovered text
/// and its tree.
fn recover(text: &str, mut error: ParseError) -> Option<(String, Tree)> {
    let mut bytes = text.as_bytes().to_vec();
    for _ in 0..RECOVERY_ATTEMPTS {
        let at = (error.span().start as usize).min(bytes.len());
        let (mut start, mut end) = line_around(&bytes, at);
        // An error at the first token of a line is most often the previous line's unfinished
        // node (`y = Relu (x` then the next node): blank that one.
        if bytes[start..at].iter().all(u8::is_ascii_whitespace) {
            let before = bytes[..start]
                .iter()
                .rposition(|b| !b.is_ascii_whitespace());
            if let Some(before) = before {
                (start, end) = line_around(&bytes, before);
            }
        }
        if bytes[start..end].iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        // Spaces keep every offset; a multi-byte character becomes several spaces.
        bytes[start..end].fill(b' ');
        let recovered = String::from_utf8(bytes.clone()).ok()?;
        match parse(&recovered) {
            Ok(tree) => return Some((recovered, tree)),
            Err(next) => error = next,
        }
    }
    None
}

/// The line holding byte `at`: from after the newline before it to the newline after it.
fn line_around(bytes: &[u8], at: usize) -> (usize, usize) {
    let start = bytes[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let end = bytes[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| at + i);
    (start, end)
}

fn index_of(tree: &Tree, text: &str) -> Index {
    match tree {
        Tree::Model(model) => Index::of_model(model, text),
        Tree::Functions(functions) => Index::of_functions(functions, text),
        Tree::Graph(graph) => Index::of_graph(graph, text),
        _ => Index::default(),
    }
}

/// Every check, as `onnx-text check` runs them (external data too, looked for in `folder`),
/// and the main graph's inferred types.
fn check(
    tree: Tree,
    text: &str,
    folder: Option<&PathBuf>,
) -> (Vec<Diagnostic>, HashMap<String, String>) {
    let options = CheckOptions::default();
    let (report, proto) = tree.check_and_lower(text, &options);
    let mut diagnostics = report.diagnostics;
    let mut types = HashMap::new();
    if let Proto::Model(model) = &proto {
        let inference = Inference::of_model(model);
        for (name, ty) in inference.iter() {
            types.insert(name.to_owned(), ty.to_string());
        }
        if let Some(folder) = folder
            && let Some(found) = external_data_problems(model, Some(folder), &options, Some(text))
        {
            diagnostics.extend(found);
            // In text order, as the checks give theirs (stable: equal starts keep their order).
            diagnostics.sort_by_key(|d| d.span().start);
        }
    }
    (diagnostics, types)
}

#[cfg(test)]
mod tests {
    use super::*;
    use onnx_check::DiagnosticKind;

    /// The text as written does not parse: its one diagnostic is the syntax error, and the
    /// index comes from the recovered text.
    fn recovered(document: &Document) -> bool {
        matches!(
            document.diagnostics.as_slice(),
            [only] if matches!(only.kind(), DiagnosticKind::Syntax(_))
        )
    }

    #[test]
    fn a_syntax_error_leaves_the_rest_of_the_file_indexed() {
        let text = r#"<ir_version: 10, opset_import: ["" : 21]>
g (float[N] x) => (float[N] y) {
    t = Relu (x)
    u = Abs (t
    y = Neg (t)
}"#;
        let document = Document::analysed(text);
        assert!(recovered(&document));
        assert_eq!(document.diagnostics.len(), 1);
        let use_of_t = text.rfind("(t)").unwrap() as u32 + 1;
        let symbol = document.index.occurrence_at(use_of_t).unwrap().symbol;
        assert_eq!(
            document.index.symbols[symbol].definition.map(|s| s.start),
            text.find("t = ").map(|i| i as u32)
        );
    }

    #[test]
    fn checks_and_inferred_types_of_a_model() {
        let text = r#"<ir_version: 10, opset_import: ["" : 21]>
g (float[N, 128] x, float[128, 10] w) => (float[N, 10] y) { t = MatMul (x, w)  y = Relu (q) }"#;
        let document = Document::analysed(text);
        assert!(!recovered(&document));
        assert_eq!(
            document.types.get("t").map(String::as_str),
            Some("float[N, 10]")
        );
        let kinds: Vec<String> = document
            .diagnostics
            .iter()
            .map(|d| d.kind().to_string())
            .collect();
        assert_eq!(kinds, ["undefined_value"]);
    }
}
