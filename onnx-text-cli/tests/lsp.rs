//! `onnx-text lsp` driven as an editor drives it: JSON-RPC with `Content-Length` headers over
//! the child's standard input and output, one capability after another.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_onnx-text");
const URI: &str = "file:///work/model.onnxtxt";
/// A reply slower than this is a hang (the server answers in milliseconds).
const PATIENCE: Duration = Duration::from_secs(60);

/// A server process and what it has sent.
struct Client {
    child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
    next_id: i64,
    /// Notifications seen while waiting for responses.
    notifications: Vec<Value>,
}

impl Client {
    fn start() -> Client {
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
        let mut client = Client {
            child,
            stdin,
            incoming,
            next_id: 0,
            notifications: Vec::new(),
        };
        let result = client.request("initialize", json!({ "capabilities": {} }));
        assert_eq!(result["capabilities"]["positionEncoding"], "utf-16");
        client.notify("initialized", json!({}));
        client
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
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
        match self.incoming.recv_timeout(PATIENCE) {
            Ok(message) => message,
            Err(RecvTimeoutError::Timeout) => panic!("the server did not answer in {PATIENCE:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("the server exited"),
        }
    }

    /// The next diagnostics published for the document.
    fn diagnostics(&mut self) -> Value {
        if let Some(i) = self.notifications.iter().position(is_diagnostics) {
            return self.notifications.remove(i)["params"].clone();
        }
        loop {
            let message = self.receive();
            if is_diagnostics(&message) {
                return message["params"].clone();
            }
            self.notifications.push(message);
        }
    }

    fn open(&mut self, text: &str) -> Value {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": URI, "languageId": "onnxtxt", "version": 1, "text": text } }),
        );
        self.diagnostics()
    }

    fn change(&mut self, version: i64, text: &str) -> Value {
        self.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": URI, "version": version }, "contentChanges": [{ "text": text }] }),
        );
        self.diagnostics()
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
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}");
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
    let formatting = client.request(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": URI }, "options": { "tabSize": 4, "insertSpaces": true } }),
    );
    let formatted = formatting[0]["newText"].as_str().unwrap();
    let model = onnx_text::parse_model(&fixed).unwrap();
    // Comments stay where they are.
    let commented = fixed.replace(
        "    y = Neg (t)",
        "    # then negate\n    y = Neg (t) // the output",
    );
    client.change(3, &commented);
    let kept = client.request(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": URI }, "options": { "tabSize": 4, "insertSpaces": true } }),
    );
    let kept = kept[0]["newText"].as_str().unwrap();
    assert!(
        kept.contains("   # then negate\n   y = Neg (t) // the output\n"),
        "{kept}"
    );
    assert_eq!(formatted, format!("{}\n", onnx_text::to_text(&model)));
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
    let mut client = Client::start();
    client.open(MODEL);
    let pieces = [
        "(", ")", "{", "}", "<", ">", "=", ",", "\"", "#", "//", "\n", " ", "x", "é", "Relu",
        "1.5", "[", "]", "@", "=>", ".",
    ];
    let mut rng = Lcg(19);
    let mut text = MODEL.to_owned();
    for version in 2..300 {
        // Insert or delete at a character boundary.
        let boundaries: Vec<usize> = text
            .char_indices()
            .map(|(i, _)| i)
            .chain([text.len()])
            .collect();
        let at = boundaries[rng.below(boundaries.len())];
        if rng.below(2) == 0 {
            text.insert_str(at, pieces[rng.below(pieces.len())]);
        } else if let Some(&end) = boundaries.iter().find(|&&b| b > at) {
            let end = boundaries
                .iter()
                .copied()
                .filter(|&b| b >= end)
                .nth(rng.below(3))
                .unwrap_or(end);
            text.replace_range(at..end, "");
        }
        let published = client.change(version, &text);
        assert_eq!(
            published["version"], version,
            "diagnostics of the latest text"
        );
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
        for method in [
            "textDocument/semanticTokens/full",
            "textDocument/documentSymbol",
            "textDocument/foldingRange",
        ] {
            client.request(method, json!({ "textDocument": { "uri": URI } }));
        }
    }
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
