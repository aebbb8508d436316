//! The language server driven as an editor drives it, one capability after another: in process
//! (`onnx_text_cli::lsp::serve` over an in-memory connection) for the capabilities, and once as
//! `onnx-text lsp`, JSON-RPC with `Content-Length` headers over the child's standard input and
//! output, for the command and its transport. Positions are checked against conversions done
//! here the slow way, from the start of each line.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread::JoinHandle;
use std::time::Duration;

use lsp_server::{Connection, Message};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_onnx-text");
const URI: &str = "file:///work/model.onnxtxt";
/// A reply slower than this is a hang (the server answers in milliseconds).
const PATIENCE: Duration = Duration::from_secs(60);

/// How the client reaches the server.
enum Link {
    /// `lsp::serve` on a thread of this process, over an in-memory connection.
    InProcess {
        connection: Connection,
        server: JoinHandle<()>,
    },
    /// `onnx-text lsp` as a child process, over its standard input and output.
    Process {
        child: Child,
        stdin: ChildStdin,
        incoming: Receiver<Value>,
    },
}

/// A server and what it has sent.
struct Client {
    link: Link,
    next_id: i64,
    /// Notifications seen while waiting for responses.
    notifications: Vec<Value>,
}

impl Client {
    fn start() -> Client {
        Client::start_with(json!(null))
    }

    /// A server in process given these `initializationOptions`.
    fn start_with(options: Value) -> Client {
        let (server, connection) = Connection::memory();
        let server = std::thread::spawn(move || {
            onnx_text_cli::lsp::serve(&server).expect("the server stops cleanly")
        });
        Client::initialized(Link::InProcess { connection, server }, options)
    }

    /// `onnx-text lsp`, the command, as an editor starts it.
    fn spawn() -> Client {
        let mut child = Command::new(BIN)
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("onnx-text lsp starts");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (send, incoming) = channel();
        std::thread::spawn(move || {
            while let Some(message) = read_message(&mut stdout) {
                if send.send(message).is_err() {
                    break;
                }
            }
        });
        let link = Link::Process {
            child,
            stdin,
            incoming,
        };
        Client::initialized(link, json!(null))
    }

    /// The client of a server on `link`, after the initialize handshake.
    fn initialized(link: Link, options: Value) -> Client {
        let mut client = Client {
            link,
            next_id: 0,
            notifications: Vec::new(),
        };
        let result = client.request(
            "initialize",
            json!({ "capabilities": {}, "initializationOptions": options }),
        );
        assert_eq!(result["capabilities"]["positionEncoding"], "utf-16");
        // Incremental synchronisation.
        assert_eq!(result["capabilities"]["textDocumentSync"], 2);
        client.notify("initialized", json!({}));
        client
    }

    fn send(&mut self, message: Value) {
        match &mut self.link {
            Link::InProcess { connection, .. } => {
                let message: Message = serde_json::from_value(message).expect("a JSON-RPC message");
                connection
                    .sender
                    .send(message)
                    .expect("the server is running");
            }
            Link::Process { stdin, .. } => {
                let body = message.to_string();
                write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
                stdin.flush().unwrap();
            }
        }
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// The response to a request: its result, or its error as `{"error": …}`.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let message = self.receive();
            if message["id"] == id {
                return match message.get("error") {
                    Some(error) => json!({ "error": error }),
                    None => message["result"].clone(),
                };
            }
            self.notifications.push(message);
        }
    }

    fn receive(&mut self) -> Value {
        // Whether the wait timed out, where the channel says why it failed.
        let received = match &self.link {
            Link::InProcess { connection, .. } => connection
                .receiver
                .recv_timeout(PATIENCE)
                .map(|message| serde_json::to_value(message).expect("messages encode"))
                .map_err(|e| e.is_timeout()),
            Link::Process { incoming, .. } => incoming
                .recv_timeout(PATIENCE)
                .map_err(|e| e == RecvTimeoutError::Timeout),
        };
        match received {
            Ok(message) => message,
            Err(true) => panic!("the server did not answer in {PATIENCE:?}"),
            Err(false) => panic!("the server exited"),
        }
    }

    /// The next diagnostics published for the document.
    fn diagnostics(&mut self) -> Value {
        self.diagnostics_of(URI)
    }

    /// The next diagnostics published for the document `uri`.
    fn diagnostics_of(&mut self, uri: &str) -> Value {
        let of_uri = |m: &Value| is_diagnostics(m) && m["params"]["uri"] == uri;
        if let Some(i) = self.notifications.iter().position(of_uri) {
            return self.notifications.remove(i)["params"].clone();
        }
        loop {
            let message = self.receive();
            if of_uri(&message) {
                return message["params"].clone();
            }
            self.notifications.push(message);
        }
    }

    fn open(&mut self, text: &str) -> Value {
        self.open_as(URI, text)
    }

    fn open_as(&mut self, uri: &str, text: &str) -> Value {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "onnxtxt", "version": 1, "text": text } }),
        );
        self.diagnostics_of(uri)
    }

    /// A change of the whole text.
    fn change(&mut self, version: i64, text: &str) -> Value {
        self.change_as(URI, version, text)
    }

    fn change_as(&mut self, uri: &str, version: i64, text: &str) -> Value {
        self.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [{ "text": text }] }),
        );
        self.diagnostics_of(uri)
    }

    /// Changes of ranges (`contentChanges` as LSP writes them), applied in order.
    fn edit(&mut self, version: i64, changes: Value) -> Value {
        self.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": URI, "version": version }, "contentChanges": changes }),
        );
        self.diagnostics()
    }

    /// The messages the server showed the user so far.
    fn shown(&mut self) -> Vec<String> {
        // A request and its answer: everything sent before is in.
        self.request(
            "textDocument/documentSymbol",
            json!({ "textDocument": { "uri": URI } }),
        );
        self.notifications
            .iter()
            .filter(|m| m["method"] == "window/showMessage")
            .map(|m| {
                m["params"]["message"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned()
            })
            .collect()
    }

    /// A request about the position of the `nth` occurrence of `needle` in `text`, `into` bytes
    /// into it (ASCII text).
    fn at(
        &mut self,
        method: &str,
        text: &str,
        needle: &str,
        nth: usize,
        into: usize,
        extra: Value,
    ) -> Value {
        let mut params = json!({ "textDocument": { "uri": URI }, "position": position(text, needle, nth, into) });
        if let (Value::Object(params), Value::Object(extra)) = (&mut params, extra) {
            params.extend(extra);
        }
        self.request(method, params)
    }

    fn shutdown(mut self) {
        assert_eq!(self.request("shutdown", Value::Null), Value::Null);
        self.notify("exit", Value::Null);
        match self.link {
            Link::InProcess { server, .. } => server.join().expect("the server thread ends"),
            Link::Process { mut child, .. } => {
                let status = child.wait().unwrap();
                assert!(status.success(), "{status}");
            }
        }
    }
}

fn is_diagnostics(message: &Value) -> bool {
    message["method"] == "textDocument/publishDiagnostics"
}

fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length: ") {
            length = value.parse().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// The LSP position of byte `offset` of `text`: its line, and the UTF-16 units before it on the
/// line.
fn position_of(text: &str, offset: usize) -> Value {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    json!({
        "line": text[..offset].matches('\n').count(),
        "character": text[line_start..offset].encode_utf16().count(),
    })
}

/// The byte offset of an LSP position of `text`.
fn offset_of(text: &str, position: &Value) -> usize {
    let line = position["line"].as_u64().unwrap() as usize;
    let character = position["character"].as_u64().unwrap() as usize;
    let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
    let mut units = 0;
    for (i, c) in text[start..].char_indices() {
        if units >= character || c == '\n' {
            return start + i;
        }
        units += c.len_utf16();
    }
    text.len()
}

/// `text` with LSP text edits (of `text`, none overlapping) applied.
fn with_edits(text: &str, edits: &Value) -> String {
    let mut edits: Vec<(usize, usize, &str)> = edits
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let start = offset_of(text, &e["range"]["start"]);
            let end = offset_of(text, &e["range"]["end"]);
            (start, end, e["newText"].as_str().unwrap())
        })
        .collect();
    edits.sort_by_key(|&(start, _, _)| std::cmp::Reverse(start));
    let mut text = text.to_owned();
    for (start, end, new_text) in edits {
        text.replace_range(start..end, new_text);
    }
    text
}

/// A change of `text` (which it makes): `by` for the bytes `from..to`.
fn replace(text: &mut String, from: usize, to: usize, by: &str) -> Value {
    let range = json!({ "start": position_of(text, from), "end": position_of(text, to) });
    text.replace_range(from..to, by);
    json!({ "range": range, "text": by })
}

/// Semantic tokens as `(line, column, length, type)`, from their relative encoding.
fn tokens(data: &Value) -> Vec<[u64; 4]> {
    let data: Vec<u64> = data["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .collect();
    let (mut line, mut column) = (0, 0);
    data.chunks(5)
        .map(|t| {
            if t[0] > 0 {
                column = 0;
            }
            line += t[0];
            column += t[1];
            [line, column, t[2], t[3]]
        })
        .collect()
}

/// The LSP position of byte `into` of the `nth` `needle` in an ASCII `text`.
fn position(text: &str, needle: &str, nth: usize, into: usize) -> Value {
    let offset = text
        .match_indices(needle)
        .nth(nth)
        .expect("needle in text")
        .0
        + into;
    let line = text[..offset].matches('\n').count();
    let column = offset - text[..offset].rfind('\n').map_or(0, |i| i + 1);
    json!({ "line": line, "character": column })
}

const MODEL: &str = r#"<ir_version: 10, opset_import: ["" : 21]>
g (float[N, 128] x, float[128, 10] w, bool c) => (float[N, 10] y) {
    t = MatMul (x, w)
    r = Relu (t)
    y = If (c) <then_branch = g1 () => (float[N, 10] a) { a = Identity (r) },
                else_branch = g2 () => (float[N, 10] b) { b = Neg (t) }>
}
"#;

/// The command, as an editor starts it: the handshake, a document and its diagnostics, a
/// request, and a clean exit, over framed standard input and output.
#[test]
fn the_command_serves_over_standard_input_and_output() {
    let mut client = Client::spawn();
    let text = "<ir_version: 10, opset_import: [\"\" : 21]>\ng (float[2] x) => (float[2] y) {\n    y = Relu (q)\n}\n";
    let published = client.open(text);
    assert_eq!(published["diagnostics"][0]["code"], "undefined_value");
    let hover = client.at("textDocument/hover", text, "Relu", 0, 1, json!({}));
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("Relu"),
        "{hover}"
    );
    client.shutdown();
}

#[test]
fn diagnostics_are_the_checks_with_related_information_and_utf16_columns() {
    let mut client = Client::start();
    // `é` is two bytes but one UTF-16 unit, `𝑥` four bytes and two units.
    let text = "<ir_version: 10, opset_import: [\"\" : 21]>\ng (float[2] x) => (float[2] y) {\n    \"é𝑥\" = Abs (x)  t = Neg (x)\n    t = Relu (q)\n    y = Identity (t)\n}\n";
    let published = client.open(text);
    assert_eq!(published["uri"], URI);
    let diagnostics = published["diagnostics"].as_array().unwrap();
    let codes: Vec<&str> = diagnostics
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["duplicate_definition", "undefined_value"]);
    let duplicate = &diagnostics[0];
    assert_eq!(duplicate["message"], "`t` is already defined at line 3");
    assert_eq!(
        duplicate["range"]["start"],
        json!({ "line": 3, "character": 4 })
    );
    let related = &duplicate["relatedInformation"][0];
    assert_eq!(related["message"], "first defined here");
    // Byte column 24 on that line, but 21 UTF-16 units.
    assert_eq!(
        related["location"]["range"]["start"],
        json!({ "line": 2, "character": 21 })
    );
    assert_eq!(
        diagnostics[1]["message"],
        "value `q` is used but never defined"
    );
    // A fixed text publishes no diagnostics.
    let fixed = text.replace("t = Relu (q)", "u = Relu (t)");
    assert_eq!(client.change(2, &fixed)["diagnostics"], json!([]));
    client.shutdown();
}

#[test]
fn hover_shows_operator_schemas_and_inferred_types() {
    let mut client = Client::start();
    assert_eq!(client.open(MODEL)["diagnostics"], json!([]));
    let hover = client.at("textDocument/hover", MODEL, "MatMul", 0, 2, json!({}));
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(text.contains("MatMul(A: T, B: T) -> (Y: T)"), "{text}");
    assert!(
        text.contains("opset 21 (this schema since version 13)"),
        "{text}"
    );
    assert!(
        text.contains("- `T`: tensor(float16), tensor(float)"),
        "{text}"
    );
    assert!(
        text.contains("Matrix product that behaves like numpy.matmul."),
        "{text}"
    );
    let hover = client.at("textDocument/hover", MODEL, "(t)", 0, 1, json!({}));
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("float[N, 10] t"),
        "{hover}"
    );
    // Declared types as written.
    let hover = client.at("textDocument/hover", MODEL, "w)", 0, 0, json!({}));
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("float[128, 10] w"),
        "{hover}"
    );
    let hints = client.request(
        "textDocument/inlayHint",
        json!({ "textDocument": { "uri": URI }, "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 9, "character": 0 } } }),
    );
    let labels: Vec<&str> = hints
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, [": float[N, 10]", ": float[N, 10]"], "t and r");
    client.shutdown();
}

#[test]
fn definition_references_highlights_and_rename_across_subgraphs() {
    let mut client = Client::start();
    client.open(MODEL);
    let definition = client.at("textDocument/definition", MODEL, "(t)", 0, 1, json!({}));
    assert_eq!(
        definition["range"]["start"],
        position(MODEL, "t = MatMul", 0, 0)
    );
    // `t` is defined in the main graph and used there and in the else branch.
    let references = client.at(
        "textDocument/references",
        MODEL,
        "t = MatMul",
        0,
        0,
        json!({ "context": { "includeDeclaration": true } }),
    );
    assert_eq!(references.as_array().unwrap().len(), 3);
    let highlights = client.at(
        "textDocument/documentHighlight",
        MODEL,
        "(r)",
        0,
        1,
        json!({}),
    );
    let kinds: Vec<i64> = highlights
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["kind"].as_i64().unwrap())
        .collect();
    assert_eq!(kinds, [3, 2], "written, then read");
    let edit = client.at(
        "textDocument/rename",
        MODEL,
        "t = MatMul",
        0,
        0,
        json!({ "newName": "product" }),
    );
    let edits = edit["changes"][URI].as_array().unwrap();
    assert_eq!(edits.len(), 3);
    assert!(edits.iter().all(|e| e["newText"] == "product"));
    // Renaming `t` to `r` would merge two values; `1x` is not a name.
    let clash = client.at(
        "textDocument/rename",
        MODEL,
        "t = MatMul",
        0,
        0,
        json!({ "newName": "r" }),
    );
    assert!(
        clash["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already a name"),
        "{clash}"
    );
    let bad = client.at(
        "textDocument/rename",
        MODEL,
        "t = MatMul",
        0,
        0,
        json!({ "newName": "1x" }),
    );
    assert!(bad["error"].is_object());
    client.shutdown();
}

#[test]
fn completion_of_operators_attributes_values_and_types() {
    let mut client = Client::start();
    let text = MODEL.replace(
        "    r = Relu (t)\n",
        "    r = Relu (t)\n    s = LeakyRelu <al> (r)\n    v = Re\n",
    );
    client.open(&text);
    let labels = |items: &Value| -> Vec<String> {
        items
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["label"].as_str().unwrap().to_owned())
            .collect()
    };
    let operators = client.at("textDocument/completion", &text, "v = Re", 0, 6, json!({}));
    let names = labels(&operators);
    assert!(names.contains(&"Relu".to_owned()) && names.contains(&"Reshape".to_owned()));
    assert!(
        !names.contains(&"Scatter".to_owned()),
        "removed before opset 21"
    );
    let attributes = client.at("textDocument/completion", &text, "<al>", 0, 3, json!({}));
    let alpha = &attributes.as_array().unwrap()[0];
    assert_eq!(
        (alpha["label"].as_str(), alpha["detail"].as_str()),
        (Some("alpha"), Some("alpha: float = 0.01"))
    );
    let values = labels(&client.at("textDocument/completion", &text, "(r)", 1, 1, json!({})));
    for name in ["x", "w", "c", "t", "r"] {
        assert!(values.contains(&name.to_owned()), "{name} in {values:?}");
    }
    // What is in scope at that operand, and nothing else: not the node's own output `s`, nor
    // `v` and `y`, defined after it.
    for name in ["s", "v", "y"] {
        assert!(!values.contains(&name.to_owned()), "{name} in {values:?}");
    }
    let types = labels(&client.at(
        "textDocument/completion",
        &text,
        "float[N, 128]",
        0,
        0,
        json!({}),
    ));
    assert!(types.contains(&"float".to_owned()) && types.contains(&"int64".to_owned()));
    client.shutdown();
}

#[test]
fn symbols_folding_tokens_formatting_and_quick_fixes() {
    let mut client = Client::start();
    let text = "<ir_version: 10, opset_import: [\"\" : 21]>\ng (float[2] x) => (float[2] y) {\n    t = Rleu (x)\n    y = com.acme.Swish (t)\n}\n";
    let diagnostics = client.open(text)["diagnostics"].clone();
    assert_eq!(diagnostics.as_array().unwrap().len(), 2, "{diagnostics}");
    let document = json!({ "textDocument": { "uri": URI } });
    let symbols = client.request("textDocument/documentSymbol", document.clone());
    assert_eq!(symbols[0]["name"], "g");
    let folding = client.request("textDocument/foldingRange", document.clone());
    assert_eq!(folding[0]["startLine"], 1);
    assert_eq!(folding[0]["endLine"], 4);
    let tokens = client.request("textDocument/semanticTokens/full", document.clone());
    assert!(tokens["data"].as_array().unwrap().len() >= 5 * 5);
    let range =
        json!({ "start": { "line": 2, "character": 0 }, "end": { "line": 4, "character": 0 } });
    let actions = client.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": URI }, "range": range, "context": { "diagnostics": diagnostics } }),
    );
    let titles: Vec<&str> = actions
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        ["Replace with `Relu`", "Import domain \"com.acme\""]
    );
    let import = &actions[1]["edit"]["changes"][URI][0];
    assert_eq!(import["newText"], ", \"com.acme\" : 1");
    // Formatting gives the printer's layout, ending in a newline as `onnx-text fmt` writes it.
    let fixed = text
        .replace("Rleu", "Relu")
        .replace("com.acme.Swish", "Neg");
    client.change(2, &fixed);
    let format = json!({ "textDocument": { "uri": URI }, "options": { "tabSize": 4, "insertSpaces": true } });
    let formatted = with_edits(
        &fixed,
        &client.request("textDocument/formatting", format.clone()),
    );
    let model = onnx_text::parse_model(&fixed).unwrap();
    assert_eq!(formatted, format!("{}\n", onnx_text::to_text(&model)));
    // Comments stay where they are.
    let commented = fixed.replace(
        "    y = Neg (t)",
        "    # then negate\n    y = Neg (t) // the output",
    );
    client.change(3, &commented);
    let kept = with_edits(
        &commented,
        &client.request("textDocument/formatting", format.clone()),
    );
    assert!(
        kept.contains("   # then negate\n   y = Neg (t) // the output\n"),
        "{kept}"
    );
    client.shutdown();
}

#[test]
fn formatting_edits_only_what_the_formatter_changes() {
    let mut client = Client::start();
    let model = onnx_text::parse_model(MODEL).unwrap();
    let formatted = format!("{}\n", onnx_text::to_text(&model));
    client.open(&formatted);
    let format = json!({ "textDocument": { "uri": URI }, "options": { "tabSize": 4, "insertSpaces": true } });
    assert_eq!(
        client.request("textDocument/formatting", format.clone()),
        json!([])
    );
    // Two lines spaced otherwise: two edits, each within its line, of what differs.
    let node = formatted.lines().find(|l| l.contains("MatMul")).unwrap();
    let last = formatted.lines().rfind(|l| l.contains("Neg")).unwrap();
    let respaced = formatted
        .replace(node, &node.replace(" = ", "  =  "))
        .replace(last, &last.replace("(t)", "( t )"));
    client.change(2, &respaced);
    let edits = client.request("textDocument/formatting", format.clone());
    assert_eq!(with_edits(&respaced, &edits), formatted);
    let edits = edits.as_array().unwrap();
    assert_eq!(edits.len(), 2, "{edits:?}");
    for edit in edits {
        let range = &edit["range"];
        assert_eq!(range["start"]["line"], range["end"]["line"], "{edit}");
        let replaced =
            &respaced[offset_of(&respaced, &range["start"])..offset_of(&respaced, &range["end"])];
        assert!(replaced.len() <= 5, "{replaced:?}");
    }
    client.shutdown();
}

#[test]
fn a_syntax_error_does_not_blind_the_rest_of_the_file() {
    let mut client = Client::start();
    client.open(MODEL);
    let broken = MODEL.replace("r = Relu (t)", "r = Relu (t");
    let diagnostics = client.change(2, &broken)["diagnostics"].clone();
    assert_eq!(diagnostics.as_array().unwrap().len(), 1);
    assert_eq!(diagnostics[0]["code"], "unexpected");
    // The lines around the error are still understood.
    let definition = client.at(
        "textDocument/definition",
        &broken,
        "(x, w)",
        0,
        1,
        json!({}),
    );
    assert_eq!(definition["range"]["start"], position(&broken, "x,", 0, 0));
    let hover = client.at("textDocument/hover", &broken, "Neg", 0, 1, json!({}));
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("Neg(X: T) -> (Y: T)")
    );
    client.shutdown();
}

/// A deterministic generator, so that a failure can be replayed.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

#[test]
fn random_edits_never_crash_hang_or_desynchronise_it() {
    random_edits(Client::start(), MODEL, 19);
}

#[test]
fn random_edits_of_a_large_document_find_what_a_whole_parse_finds() {
    // Initializers whose number lists stay settled while the edits are elsewhere; the document
    // sent whole is parsed whole each time.
    let text = "<ir_version: 10, opset_import: [\"\" : 21]>\ng (float[N] x, float[2] a = {0.5, 1.5}) => (float[N] y)\n   <float[2] b = {2.5,\n 3.5}, int64[2] c = {1, 2}, float[1] d = {-1e-3}, string[1] s = {\"é\"}>\n{\n    t = Add (x, a)\n    y = Mul (t, b)\n}\n";
    random_edits(
        Client::start_with(json!({ "largeFileLimit": 10 })),
        text,
        23,
    );
}

/// Replays random edits of `start`, each change of one to three edits, and checks that the
/// server answers as it does for the same text sent whole.
fn random_edits(mut client: Client, start: &str, seed: u64) {
    client.open(start);
    // The same text, sent whole each time: what the server knows of it is the truth.
    const WHOLE: &str = "file:///work/whole.onnxtxt";
    client.open_as(WHOLE, start);
    let pieces = [
        "(", ")", "{", "}", "<", ">", "=", ",", "\"", "#", "//", "\n", " ", "x", "é", "Relu",
        "1.5", "[", "]", "@", "=>", ".", "𝑥", "\r\n", "中",
    ];
    let mut rng = Lcg(seed);
    let mut text = start.to_owned();
    for version in 2..300 {
        // One to three edits in one change, each an insertion or a deletion at character
        // boundaries, its range in the text the edits before it left.
        let mut changes = Vec::new();
        let mut at = 0;
        for _ in 0..1 + rng.below(3) {
            let boundaries: Vec<usize> = text
                .char_indices()
                .map(|(i, _)| i)
                .chain([text.len()])
                .collect();
            at = boundaries[rng.below(boundaries.len())];
            if rng.below(2) == 0 {
                changes.push(replace(&mut text, at, at, pieces[rng.below(pieces.len())]));
            } else {
                let end = boundaries
                    .iter()
                    .copied()
                    .filter(|&b| b > at)
                    .nth(rng.below(3))
                    .unwrap_or(text.len());
                changes.push(replace(&mut text, at, end, ""));
            }
        }
        let published = client.edit(version, Value::Array(changes));
        assert_eq!(
            published["version"], version,
            "diagnostics of the latest text"
        );
        let whole = client.change_as(WHOLE, version, &text);
        assert_eq!(published["diagnostics"], whole["diagnostics"], "{text:?}");
        for method in [
            "textDocument/semanticTokens/full",
            "textDocument/documentSymbol",
            "textDocument/foldingRange",
        ] {
            let edited = client.request(method, json!({ "textDocument": { "uri": URI } }));
            let sent = client.request(method, json!({ "textDocument": { "uri": WHOLE } }));
            assert_eq!(edited, sent, "{method} of {text:?}");
        }
        // Every request still gets an answer, wherever it lands.
        let line = text[..at].matches('\n').count();
        let params = json!({ "textDocument": { "uri": URI }, "position": { "line": line, "character": rng.below(80) } });
        for method in [
            "textDocument/hover",
            "textDocument/completion",
            "textDocument/definition",
            "textDocument/documentHighlight",
        ] {
            client.request(method, params.clone());
        }
    }
    client.shutdown();
}

#[test]
fn incremental_changes_apply_in_order_in_utf16_units() {
    let mut client = Client::start();
    let mut text = "<ir_version: 10, opset_import: [\"\" : 21]>\ng (float[2] x) => (float[2] y) {\n    \"é𝑥\" = Abs (x)\n    y = Neg (q)\n}\n".to_owned();
    let published = client.open(&text);
    assert_eq!(published["diagnostics"][0]["code"], "undefined_value");
    // In one change: a name after the non-ASCII one renamed (its column counts `é` as one unit
    // and `𝑥` as two), a node added after it on a new line, then the undefined use fixed, its
    // line number moved by the line added.
    let abs = text.find("Abs").unwrap();
    let first = replace(&mut text, abs, abs + 3, "Relu");
    let end_of_node = text.find("(x)").unwrap() + 3;
    let second = replace(
        &mut text,
        end_of_node,
        end_of_node,
        "\n    \"中\" = Neg (\"é𝑥\")",
    );
    let q = text.find("(q)").unwrap() + 1;
    let third = replace(&mut text, q, q + 1, "\"中\"");
    assert_eq!(
        first["range"]["start"],
        json!({ "line": 2, "character": 12 })
    );
    assert_eq!(
        third["range"]["start"],
        json!({ "line": 4, "character": 13 })
    );
    let published = client.edit(2, json!([first, second, third]));
    assert_eq!(published["diagnostics"], json!([]), "{text}");
    assert_eq!(published["version"], 2);
    // The server's text is ours: the definition of the last use is on the added line, after
    // `"中" = `, and a hover names the operator written in the first edit.
    let used = text.rfind("\"中\"").unwrap() + 1;
    let definition = client.request(
        "textDocument/definition",
        json!({ "textDocument": { "uri": URI }, "position": position_of(&text, used) }),
    );
    let defined = text.find("\"中\"").unwrap();
    assert_eq!(definition["range"]["start"], position_of(&text, defined));
    assert_eq!(
        definition["range"]["start"],
        json!({ "line": 3, "character": 4 })
    );
    let hover = client.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": URI }, "position": position_of(&text, text.find("Relu").unwrap()) }),
    );
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("Relu(X: T)"),
        "{hover}"
    );
    // A whole-text change still replaces everything.
    assert_eq!(client.change(3, MODEL)["diagnostics"], json!([]));
    client.shutdown();
}

#[test]
fn semantic_tokens_of_a_range_are_those_of_the_whole_text_there() {
    let mut client = Client::start();
    // Initializers on one line, as `print` writes them, with a non-ASCII name among them; over
    // 64 KiB, so that the server reads the text in place (its transport's lifted string).
    let weights: Vec<String> = (0..3000)
        .map(|i| format!("float[1] w{i} = {{0.5}}"))
        .collect();
    let text = format!(
        "<ir_version: 10, opset_import: [\"\" : 21]>\ng (float[1] x) => (float[1] y)\n   <{}, float[1] \"é𝑥\" = {{1}}, {}>\n{{\n   t = Add (x, w7)\n   y = Add (t, \"é𝑥\")\n}}\n",
        weights[..1500].join(", "),
        weights[1500..].join(", ")
    );
    client.open(&text);
    let whole = tokens(&client.request(
        "textDocument/semanticTokens/full",
        json!({ "textDocument": { "uri": URI } }),
    ));
    // Every name, where it is written: the 201 initializers, x, y, t, the operators and uses.
    let named = |needle: &str, nth: usize| {
        let offset = text.match_indices(needle).nth(nth).unwrap().0;
        let at = position_of(&text, offset);
        (
            at["line"].as_u64().unwrap(),
            at["character"].as_u64().unwrap(),
        )
    };
    assert!(text.len() > 64 * 1024);
    let w150 = named("w150", 0);
    assert!(
        whole.iter().any(|t| (t[0], t[1]) == w150 && t[2] == 4),
        "{w150:?}"
    );
    let quoted = named("\"é𝑥\"", 1);
    assert!(
        whole.iter().any(|t| (t[0], t[1]) == quoted && t[2] == 5),
        "{quoted:?}"
    );
    // x and y in the signature, then `t = Add (x, w7)` and `y = Add (t, "é𝑥")`.
    assert_eq!(whole.len(), 3001 + 2 + 4 + 4, "{whole:?}");
    // Ranges: within the long line, across lines, and all of it.
    let ranges = [
        (
            position_of(&text, text.find("w50 ").unwrap()),
            position_of(&text, text.find("w2150 ").unwrap()),
        ),
        (
            json!({ "line": 2, "character": 9000 }),
            json!({ "line": 5, "character": 6 }),
        ),
        (
            json!({ "line": 0, "character": 0 }),
            json!({ "line": 99, "character": 0 }),
        ),
    ];
    for (start, end) in ranges {
        let from = (
            start["line"].as_u64().unwrap(),
            start["character"].as_u64().unwrap(),
        );
        let to = (
            end["line"].as_u64().unwrap(),
            end["character"].as_u64().unwrap(),
        );
        let range = json!({ "start": start, "end": end });
        let part = tokens(&client.request(
            "textDocument/semanticTokens/range",
            json!({ "textDocument": { "uri": URI }, "range": range }),
        ));
        let expected: Vec<[u64; 4]> = whole
            .iter()
            .copied()
            .filter(|t| from <= (t[0], t[1]) && (t[0], t[1]) < to)
            .collect();
        assert!(!part.is_empty());
        assert_eq!(part, expected, "{range}");
    }
    client.shutdown();
}

#[test]
fn symbols_list_nodes_by_outputs_under_their_graph_or_function() {
    let mut client = Client::start();
    let text = r#"<ir_version: 10, opset_import: ["" : 21, "local" : 1]>
g (float[N] x, bool c) => (float[N] y) {
    t, u = local.Split2 (x)
    y = If (c) <then_branch = g1 () => (float[N] a) { a = Identity (t) },
                else_branch = g2 () => (float[N] b) { b = Neg (u) }>
}
<domain: "local", opset_import: ["" : 21]>
Split2 (x) => (a, b) { a = Identity (x)  b = Neg (x) }
"#;
    client.open(text);
    let symbols = client.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": URI } }),
    );
    /// `name (detail) [children]`, nested.
    fn outline(symbols: &Value) -> String {
        let entries: Vec<String> = symbols
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| {
                let mut entry = format!(
                    "{} ({})",
                    s["name"].as_str().unwrap(),
                    s["detail"].as_str().unwrap_or("")
                );
                if s["children"].is_array() {
                    entry.push_str(&format!(" [{}]", outline(&s["children"])));
                }
                entry
            })
            .collect();
        entries.join(", ")
    }
    assert_eq!(
        outline(&symbols),
        "g (graph) [t, u (local.Split2), y (If) [g1 (graph) [a (Identity)], g2 (graph) [b (Neg)]]], \
         Split2 (Split2 (x) => (a, b)) [a (Identity), b (Neg)]"
    );
    // A node's selection is its outputs; its range the whole node.
    let node = &symbols[0]["children"][0];
    assert_eq!(
        node["selectionRange"]["start"],
        position(text, "t, u", 0, 0)
    );
    assert_eq!(node["selectionRange"]["end"], position(text, "t, u", 0, 4));
    assert_eq!(node["range"]["end"], position(text, "(x)\n", 0, 3));
    assert_eq!(node["kind"], 13, "variable");
    client.shutdown();
}

#[test]
fn a_large_document_keeps_to_syntax_symbols_and_navigation_and_says_so_once() {
    // A limit of 100 bytes stands for the 32 MB one.
    let mut client = Client::start_with(json!({ "largeFileLimit": 100 }));
    let text = "<ir_version: 10, opset_import: [\"\" : 21]>\ng (float[N, 128] x, float[128, 10] w) => (float[N, 10] y) {\n    t = MatMul (x, w)\n    y = Relu (q)\n    z = Rleu (t)\n}\n";
    assert!(text.len() > 100);
    // The checks would find an undefined value and an unknown operator: they do not run.
    assert_eq!(client.open(text)["diagnostics"], json!([]));
    let shown = client.shown();
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert!(
        shown[0].contains("model.onnxtxt is 0 MiB, over the language server's limit"),
        "{shown:?}"
    );
    // Syntax errors are still reported; the message is not repeated.
    let mut broken = text.to_owned();
    let end = broken.find("(t)").unwrap() + 3;
    let change = replace(&mut broken, end - 1, end, "");
    let published = client.edit(2, json!([change]));
    assert_eq!(
        published["diagnostics"][0]["code"], "unexpected",
        "{published}"
    );
    let change = replace(&mut broken, end - 1, end - 1, ")");
    assert_eq!(client.edit(3, json!([change]))["diagnostics"], json!([]));
    assert_eq!(client.shown().len(), 1);
    // Symbols, navigation and declared types; no formatting.
    let symbols = client.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": URI } }),
    );
    assert_eq!(symbols[0]["children"].as_array().unwrap().len(), 3);
    let definition = client.at("textDocument/definition", text, "(t)", 0, 1, json!({}));
    assert_eq!(definition["range"]["start"], position(text, "t = ", 0, 0));
    let hover = client.at("textDocument/hover", text, "(x, w)", 0, 1, json!({}));
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("float[N, 128] x"),
        "{hover}"
    );
    let formatting = client.request(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": URI }, "options": { "tabSize": 4, "insertSpaces": true } }),
    );
    assert!(
        formatting["error"]["message"]
            .as_str()
            .unwrap()
            .contains("onnx-text fmt"),
        "{formatting}"
    );
    // Back under the limit, the checks run again.
    let small = "<ir_version: 10, opset_import: [\"\" : 21]>\ng (float[2] x) => (float[2] y) {\n    y = Relu (q)\n}\n";
    assert_eq!(
        client.change(4, small)["diagnostics"][0]["code"],
        "undefined_value"
    );
    // Closed and opened again, large: the user is told again.
    client.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": URI } }),
    );
    assert_eq!(client.diagnostics()["diagnostics"], json!([]));
    client.open(text);
    assert_eq!(client.shown().len(), 2);
    client.shutdown();
}

#[test]
fn a_large_document_reports_syntax_errors_wherever_the_edits_are() {
    let mut client = Client::start_with(json!({ "largeFileLimit": 100 }));
    let mut text = "<ir_version: 10, opset_import: [\"\" : 21]>\ng (float[2] x) => (float[2] y)\n   <float[2] a = {0.5, 1.5}, float[2] b = {2.5,\n 3.5}>\n{\n   t = Add (x, a)\n   y = Mul (t, b)\n}\n".to_owned();
    assert_eq!(client.open(&text)["diagnostics"], json!([]));
    let mut version = 1;
    let mut edit = |client: &mut Client, text: &mut String, from: usize, to: usize, by: &str| {
        version += 1;
        let change = replace(text, from, to, by);
        client.edit(version, json!([change]))["diagnostics"].clone()
    };
    let codes = |diagnostics: &Value| -> Vec<String> {
        diagnostics
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["message"].as_str().unwrap().to_owned())
            .collect()
    };
    // Edits in the nodes: the lists, untouched, are not read again, and the errors are found.
    let t = text.find("t = Add").unwrap();
    let published = edit(&mut client, &mut text, t + 4, t + 7, "Add Add");
    assert_eq!(codes(&published).len(), 1, "{published}");
    let published = edit(&mut client, &mut text, t + 4, t + 11, "Sub");
    assert_eq!(published, json!([]));
    // A number broken inside a list.
    let b = text.find("3.5").unwrap();
    let published = edit(&mut client, &mut text, b + 1, b + 2, "..");
    // As a server that reads the whole text finds it.
    let mut whole = Client::start();
    assert_eq!(published, whole.open(&text)["diagnostics"]);
    assert_eq!(published[0]["range"]["start"], position_of(&text, b + 2));
    let published = edit(&mut client, &mut text, b + 1, b + 3, ".");
    assert_eq!(published, json!([]));
    // A type that no longer takes the list's numbers.
    let a = text.find("float[2] a").unwrap();
    let published = edit(&mut client, &mut text, a, a + 5, "int64");
    let messages = codes(&published);
    assert!(
        messages[0].contains("expected an integer element"),
        "{messages:?}"
    );
    assert_eq!(published, whole.change(2, &text)["diagnostics"]);
    whole.shutdown();
    let published = edit(&mut client, &mut text, a, a + 5, "float");
    assert_eq!(published, json!([]));
    // The symbols are those of the text as it is.
    let symbols = client.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": URI } }),
    );
    let nodes: Vec<&str> = symbols[0]["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["detail"].as_str().unwrap())
        .collect();
    assert_eq!(nodes, ["Sub", "Mul"]);
    client.shutdown();
}

#[test]
fn a_missing_main_graph_type_gets_the_inferred_one_as_a_fix() {
    let mut client = Client::start();
    let text = "<ir_version: 10, opset_import: [\"\" : 21]>\ng (float[N, 128] x, float[128, 10] w) => (y) {\n    y = MatMul (x, w)\n}\n";
    let diagnostics = client.open(text)["diagnostics"].clone();
    assert_eq!(diagnostics[0]["code"], "missing_type");
    let range = diagnostics[0]["range"].clone();
    let actions = client.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": URI }, "range": range, "context": { "diagnostics": diagnostics } }),
    );
    assert_eq!(actions[0]["title"], "Write `float[N, 10] y`");
    let edit = &actions[0]["edit"]["changes"][URI][0];
    assert_eq!(edit["newText"], "float[N, 10] y");
    assert_eq!(edit["range"], range);
    client.shutdown();
}

#[test]
fn an_undefined_value_has_a_quick_fix_to_the_closest_defined_one() {
    let mut client = Client::start();
    let text = "<ir_version: 10, opset_import: [\"\" : 21]>\ng (float[2] conv1_bn) => (float[2] y) {\n    y = Relu (conv1_bx)\n}\n";
    let diagnostics = client.open(text)["diagnostics"].clone();
    assert_eq!(
        diagnostics[0]["message"],
        "value `conv1_bx` is used but never defined; did you mean `conv1_bn`?"
    );
    let range =
        json!({ "start": { "line": 2, "character": 0 }, "end": { "line": 3, "character": 0 } });
    let actions = client.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": URI }, "range": range, "context": { "diagnostics": diagnostics } }),
    );
    assert_eq!(actions[0]["title"], "Replace with `conv1_bn`");
    let edit = &actions[0]["edit"]["changes"][URI][0];
    assert_eq!(edit["newText"], "conv1_bn");
    assert_eq!(
        edit["range"],
        json!({ "start": { "line": 2, "character": 14 }, "end": { "line": 2, "character": 22 } })
    );
    client.shutdown();
}

/// A model whose external data is missing (`a`), past the end of its file and short (`b` and
/// `c` in an 8-byte `w.bin`).
const EXTERNAL_DATA: &str = r#"<ir_version: 10, opset_import: ["" : 21]>
g (float[4] x) => (float[4] y)
  <float[4] a = ["location": "missing.bin", "offset": "0", "length": "16"],
   float[4] b = ["location": "w.bin", "offset": "4096", "length": "16"],
   float[4] c = ["location": "w.bin", "offset": "0", "length": "16"]>
{
  s = Add(x, a)
  t = Add(s, b)
  y = Add(t, c)
}
"#;

/// `(message, line, column)` of each problem `onnx-text check` reports in `file`, 1-based.
fn check_reports(file: &std::path::Path) -> Vec<(String, u64, u64)> {
    let out = Command::new(BIN).arg("check").arg(file).output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let mut found = Vec::new();
    let mut message = None;
    for line in stderr.lines() {
        if let Some(rest) = line.strip_prefix("error[external_data]: ") {
            message = Some(rest.to_owned());
        } else if let (Some(at), Some(m)) = (line.strip_prefix(" --> "), message.take()) {
            let mut parts = at.rsplitn(3, ':');
            let column = parts.next().unwrap().parse().unwrap();
            let line = parts.next().unwrap().parse().unwrap();
            found.push((m, line, column));
        }
    }
    found
}

#[test]
fn external_data_problems_are_diagnostics_at_the_places_check_reports_them() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("model.onnxtxt");
    std::fs::write(&file, EXTERNAL_DATA).unwrap();
    std::fs::write(dir.path().join("w.bin"), b"12345678").unwrap();
    let expected = check_reports(&file);
    assert_eq!(expected.len(), 2, "{expected:?}");
    let mut client = Client::start();
    let uri = format!("file://{}", file.display()).replace(' ', "%20");
    let published = client.open_as(&uri, EXTERNAL_DATA);
    let found: Vec<(String, u64, u64)> = (published["diagnostics"].as_array().unwrap().iter())
        .filter(|d| d["code"] == "external_data")
        .map(|d| {
            let start = &d["range"]["start"];
            let message = d["message"].as_str().unwrap().to_owned();
            let (line, column) = (start["line"].as_u64(), start["character"].as_u64());
            (message, line.unwrap() + 1, column.unwrap() + 1)
        })
        .collect();
    assert_eq!(found, expected);
    // Once the data is there, the problems go.
    std::fs::write(dir.path().join("missing.bin"), [0; 16]).unwrap();
    std::fs::write(dir.path().join("w.bin"), [0; 4112]).unwrap();
    let published = client.change_as(&uri, 2, EXTERNAL_DATA);
    assert_eq!(published["diagnostics"], json!([]));
    // A document that is no file has no folder to look in: nothing is reported.
    let published = client.open_as("untitled:Untitled-1", EXTERNAL_DATA);
    assert_eq!(published["diagnostics"], json!([]));
    client.shutdown();
}

/// The error limit of the command is not the server's: an editor lists every problem, and the
/// server still answers.
#[test]
fn every_problem_is_a_diagnostic_with_no_limit() {
    let mut text =
        "<ir_version: 10, opset_import: [\"\" : 21]>\ng (float[2] x) => (float[2] y) {\n"
            .to_owned();
    let mut last = "x".to_owned();
    for i in 0..2000 {
        text.push_str(&format!("  v{i} = Relu <bad_a = 1, bad_b = 2> ({last})\n"));
        last = format!("v{i}");
    }
    text.push_str(&format!("  y = Identity({last})\n}}\n"));
    let mut client = Client::start();
    let published = client.open(&text);
    let diagnostics = published["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 4000);
    assert!(diagnostics.iter().all(|d| d["code"] == "unknown_attribute"));
    let hover = client.at("textDocument/hover", &text, "Relu", 1999, 1, json!({}));
    assert!(hover["contents"].to_string().contains("Relu"), "{hover}");
    client.shutdown();
}
