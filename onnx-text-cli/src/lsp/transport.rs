//! Standard input and output as an lsp-server [`Connection`], with a reader that holds a large
//! message's text once.
//!
//! lsp-server's own reader gives serde_json the message's body, and serde_json unescapes a
//! string into a buffer and then copies it out: opening a 300 MB document held the body, the
//! buffer and the copy at once, four times the file at the peak with what the reader had freed.
//! Here, in a body over [`LIFT_OVER`] bytes, the longest string (the document's text, in a
//! `didOpen` or a whole-text change) is unescaped where it is, moved to the front of the body's
//! own buffer, and becomes the `String` the message holds; serde_json parses the rest, with a
//! placeholder in its place, and the message is built from that value without another copy.

use std::io::{self, BufRead, Write};
use std::thread::{self, JoinHandle};

use lsp_server::{Connection, Message, Notification, Request};
use serde_json::Value;

/// Bodies over this many bytes have their longest string lifted out.
const LIFT_OVER: usize = 64 * 1024;

/// What stands for the lifted string while serde_json parses the rest (a NUL cannot be in a
/// JSON string unescaped, and nothing an editor sends holds this one).
const PLACEHOLDER: &str = "\u{0}onnx-text: lifted\u{0}";

/// The reader and writer threads.
pub struct Threads {
    reader: JoinHandle<io::Result<()>>,
    writer: JoinHandle<io::Result<()>>,
}

impl Threads {
    pub fn join(self) -> io::Result<()> {
        let reader = self
            .reader
            .join()
            .map_err(|_| io::Error::other("reader panicked"))?;
        let writer = self
            .writer
            .join()
            .map_err(|_| io::Error::other("writer panicked"))?;
        reader.and(writer)
    }
}

/// The server's end of a connection over standard input and output; the reader stops after
/// the `exit` notification, the writer when the server's end is dropped.
pub fn stdio() -> (Connection, Threads) {
    let (server, client) = Connection::memory();
    let Connection { sender, receiver } = client;
    let reader = thread::spawn(move || {
        let mut input = io::stdin().lock();
        while let Some(message) = read(&mut input, LIFT_OVER)? {
            let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
            if sender.send(message).is_err() || exit {
                break;
            }
        }
        Ok(())
    });
    let writer = thread::spawn(move || {
        let mut output = io::stdout().lock();
        for message in receiver {
            message.write(&mut output)?;
        }
        output.flush()
    });
    (server, Threads { reader, writer })
}

/// The next message, `None` at the end of the input.
fn read(input: &mut impl BufRead, lift_over: usize) -> io::Result<Option<Message>> {
    let Some(body) = body(input)? else {
        return Ok(None);
    };
    if body.len() > lift_over
        && let Some(string) = longest_string(&body)
    {
        return lifted(body, string).map(Some);
    }
    serde_json::from_slice(&body).map(Some).map_err(invalid)
}

/// The bytes of the next message, after its `Content-Length` header.
fn body(input: &mut impl BufRead) -> io::Result<Option<Vec<u8>>> {
    let mut length = None;
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = Some(value.trim().parse::<usize>().map_err(invalid)?);
        }
    }
    let length = length.ok_or_else(|| invalid("a message without Content-Length"))?;
    let mut body = vec![0; length];
    input.read_exact(&mut body)?;
    Ok(Some(body))
}

/// The bytes between the quotes of the longest string value (not a key) of a JSON text.
fn longest_string(json: &[u8]) -> Option<(usize, usize)> {
    let mut longest: Option<(usize, usize)> = None;
    let mut i = 0;
    while i < json.len() {
        if json[i] != b'"' {
            i += 1;
            continue;
        }
        let start = i + 1;
        i = start;
        while i < json.len() && json[i] != b'"' {
            i += if json[i] == b'\\' { 2 } else { 1 };
        }
        let end = i.min(json.len());
        i += 1;
        let after = json[i.min(json.len())..]
            .iter()
            .find(|b| !b.is_ascii_whitespace());
        let key = after == Some(&b':');
        if !key && longest.is_none_or(|(s, e)| end - start > e - s) {
            longest = Some((start, end));
        }
    }
    longest
}

/// The message, its string at `start..end` of the body unescaped in place and moved into it.
fn lifted(mut body: Vec<u8>, (start, end): (usize, usize)) -> io::Result<Message> {
    let mut rest = Vec::with_capacity(body.len() - (end - start) + PLACEHOLDER.len() + 8);
    rest.extend_from_slice(&body[..start]);
    rest.extend_from_slice(
        serde_json::to_string(PLACEHOLDER)?
            .trim_matches('"')
            .as_bytes(),
    );
    rest.extend_from_slice(&body[end..]);
    let mut message: Value = serde_json::from_slice(&rest).map_err(invalid)?;
    drop(rest);
    let length = unescape(&mut body[start..end])?;
    body.copy_within(start..start + length, 0);
    body.truncate(length);
    let mut text = Some(String::from_utf8(body).map_err(invalid)?);
    put_back(&mut message, &mut text);
    if text.is_some() {
        return Err(invalid("the lifted string has no place in the message"));
    }
    message_of(message)
}

/// The message a JSON value holds, its params moved into it. (lsp-server's `Message` is an
/// untagged enum, which serde reads from a copy of every string.)
fn message_of(mut value: Value) -> io::Result<Message> {
    let Value::Object(fields) = &mut value else {
        return Err(invalid("a message that is not an object"));
    };
    let Some(method) = fields.remove("method") else {
        return serde_json::from_value(value).map_err(invalid); // a response
    };
    let Value::String(method) = method else {
        return Err(invalid("a method that is not a string"));
    };
    let params = fields.remove("params").unwrap_or(Value::Null);
    Ok(match fields.remove("id") {
        Some(id) => Message::Request(Request {
            id: serde_json::from_value(id).map_err(invalid)?,
            method,
            params,
        }),
        None => Message::Notification(Notification { method, params }),
    })
}

/// Puts `text` where the placeholder is.
fn put_back(value: &mut Value, text: &mut Option<String>) {
    match value {
        Value::String(s) if s == PLACEHOLDER => {
            if let Some(text) = text.take() {
                *s = text;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| put_back(v, text)),
        Value::Object(fields) => fields.values_mut().for_each(|v| put_back(v, text)),
        _ => {}
    }
}

/// Unescapes the inside of a JSON string in place (every escape is longer than what it
/// stands for); its length after.
fn unescape(bytes: &mut [u8]) -> io::Result<usize> {
    let (mut read, mut written) = (0, 0);
    while read < bytes.len() {
        let byte = bytes[read];
        if byte != b'\\' {
            bytes[written] = byte;
            read += 1;
            written += 1;
            continue;
        }
        let escape = *bytes
            .get(read + 1)
            .ok_or_else(|| invalid("a string ends in `\\`"))?;
        read += 2;
        let c = match escape {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let high = hex4(bytes, read)?;
                read += 4;
                let code = if (0xD800..0xDC00).contains(&high) {
                    // A surrogate pair: `\uD835\uDC65`.
                    if bytes.get(read..read + 2) != Some(b"\\u") {
                        return Err(invalid("a lone surrogate in a string"));
                    }
                    let low = hex4(bytes, read + 2)?;
                    read += 6;
                    if !(0xDC00..0xE000).contains(&low) {
                        return Err(invalid("a lone surrogate in a string"));
                    }
                    0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                } else {
                    high
                };
                char::from_u32(code).ok_or_else(|| invalid("a lone surrogate in a string"))?
            }
            _ => return Err(invalid("an unknown escape in a string")),
        };
        written += c.encode_utf8(&mut bytes[written..]).len();
    }
    Ok(written)
}

/// The four hex digits at `at`.
fn hex4(bytes: &[u8], at: usize) -> io::Result<u32> {
    let digits = bytes
        .get(at..at + 4)
        .and_then(|d| std::str::from_utf8(d).ok())
        .ok_or_else(|| invalid("a short `\\u` escape"))?;
    u32::from_str_radix(digits, 16).map_err(invalid)
}

fn invalid(error: impl ToString) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(body: &str) -> Vec<u8> {
        format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
    }

    #[test]
    fn a_lifted_string_reads_as_serde_json_reads_it() {
        let text = "<ir_version: 10>\n\tg \"é𝑥\" \\ / \u{1} 中 \u{8}\u{c}\r\n".repeat(50);
        let open = serde_json::json!({
            "jsonrpc": "2.0",
            "method": "textDocument/didOpen",
            "params": { "textDocument": { "uri": "file:///m.onnxtxt", "languageId": "onnxtxt", "version": 1, "text": text } },
        });
        // serde_json writes `é` as it is: escape every non-ASCII character too, and `/`.
        let mut body = String::new();
        for c in open.to_string().chars() {
            match c {
                '/' => body.push_str("\\/"),
                c if c.is_ascii() => body.push(c),
                c => {
                    let mut units = [0; 2];
                    for unit in c.encode_utf16(&mut units) {
                        body.push_str(&format!("\\u{unit:04X}"));
                    }
                }
            }
        }
        let expected: Message = serde_json::from_str(&body).unwrap();
        let mut input = io::Cursor::new(
            [
                framed(&body),
                framed("{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}"),
            ]
            .concat(),
        );
        let message = read(&mut input, 0).unwrap().unwrap();
        let Message::Notification(notification) = &message else {
            panic!("{message:?}")
        };
        assert_eq!(notification.params["textDocument"]["text"], text);
        assert_eq!(format!("{message:?}"), format!("{expected:?}"));
        assert!(
            matches!(read(&mut input, 0), Ok(Some(Message::Notification(n))) if n.method == "exit")
        );
        assert!(read(&mut input, 0).unwrap().is_none());
    }

    #[test]
    fn bad_escapes_are_errors() {
        for bad in ["\\uD835x", "\\uDC65", "\\q", "\\u12"] {
            let body = format!(
                "{{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{{\"text\":\"{bad} and more text\"}}}}"
            );
            let error = read(&mut io::Cursor::new(framed(&body)), 0).unwrap_err();
            assert_eq!(error.kind(), io::ErrorKind::InvalidData, "{bad}");
        }
        let error = read(
            &mut io::Cursor::new(b"Content-Type: x\r\n\r\n{}".to_vec()),
            0,
        );
        assert!(error.is_err());
    }
}
