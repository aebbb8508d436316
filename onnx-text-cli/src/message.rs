//! What a file holds, read and written: the text or protobuf bytes of one of the syntax's entry
//! points (a model, a graph, a function, a function library, a node, nodes), and the two
//! formats on disk.

use clap::ValueEnum;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use onnx_check::CheckEntry;
use onnx_syntax::{Entry, Proto, Tree};
use onnx_text::{CheckOptions, Diagnostics, ParseError, Style};

/// The values of `--kind`: the names of the entry points.
pub fn entry_parser() -> impl TypedValueParser<Value = Entry> {
    PossibleValuesParser::new(Entry::ALL.map(Entry::name)).try_map(|name| name.parse::<Entry>())
}

/// Parses `text` as `entry` gives it.
pub fn parse(entry: Entry, text: &str) -> Result<Proto, ParseError> {
    entry.parse(text).map(Tree::lower)
}

/// Parses `text` as `entry` gives it and runs the checks `options` enable.
pub fn check(entry: Entry, text: &str, options: &CheckOptions) -> Result<Proto, Diagnostics> {
    entry.check(text, options)
}

/// Why a list of messages cannot be read or written as protobuf bytes, which hold one message.
fn no_binary_form(entry: Entry) -> Option<&'static str> {
    match entry {
        Entry::Functions => Some("a function library has no binary form; use --kind function"),
        Entry::Nodes | Entry::NodeList => {
            Some("a list of nodes has no binary form; use --kind node")
        }
        Entry::Model | Entry::Graph | Entry::Function | Entry::Node => None,
    }
}

/// Decodes protobuf bytes as `entry` gives them.
pub fn decode(entry: Entry, bytes: &[u8]) -> Result<Proto, String> {
    if let Some(reason) = no_binary_form(entry) {
        return Err(reason.into());
    }
    let what = match entry {
        Entry::Model => "ONNX model (ModelProto)",
        Entry::Graph => "GraphProto",
        Entry::Function | Entry::Functions => "FunctionProto",
        Entry::Node | Entry::Nodes | Entry::NodeList => "NodeProto",
    };
    entry
        .decode(bytes)
        .map_err(|e| format!("not a valid {what}: {e}"))
}

/// The text of the message, ending with a newline.
pub fn text(proto: &Proto, style: Style) -> String {
    onnx_print::file_text(proto, style)
}

/// The protobuf encoding of the message.
pub fn encode(proto: Proto, entry: Entry) -> Result<Vec<u8>, String> {
    match no_binary_form(entry) {
        Some(reason) => Err(reason.into()),
        None => Ok(proto.encode()),
    }
}

/// The two forms of a message on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// ONNX text (`.onnxtxt`).
    Text,
    /// Protobuf bytes (`.onnx`).
    Binary,
}

impl Format {
    /// The format a file name implies: `.onnxtxt`, `.onnxtext` and `.txt` are text, `.onnx` and
    /// `.pb` are binary.
    pub fn from_extension(path: &std::path::Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "onnxtxt" | "onnxtext" | "txt" => Some(Format::Text),
            "onnx" | "pb" => Some(Format::Binary),
            _ => None,
        }
    }

    /// The format of `data` by its content: text is UTF-8 without control characters (other than
    /// white space) and starts like ONNX text; protobuf bytes almost always start with a control
    /// byte (a field tag such as 0x08 or a length).
    pub fn sniff(data: &[u8]) -> Format {
        let head = &data[..data.len().min(4096)];
        let head = match std::str::from_utf8(head) {
            Ok(s) => s,
            // The cut may split a character at the end.
            Err(e) if e.error_len().is_none() => {
                std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or("")
            }
            Err(_) => return Format::Binary,
        };
        let controls = head
            .chars()
            .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t' | '\x0b' | '\x0c'));
        let first = head.trim_start().chars().next();
        // A byte order mark starts text that is wrong only in that: the parser names it.
        let starts_like_text = first.is_none_or(|c| {
            c.is_ascii_alphabetic() || matches!(c, '<' | '#' | '"' | '_' | '[' | '\u{feff}')
        });
        if controls || !starts_like_text {
            Format::Binary
        } else {
            Format::Text
        }
    }

    /// The usual extension of the format.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Text => "onnxtxt",
            Format::Binary => "onnx",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_text_and_binary() {
        assert_eq!(
            Format::sniff(b"<ir_version: 8>\ng () => () {}"),
            Format::Text
        );
        assert_eq!(Format::sniff(b"  # comment\ng () => () {}"), Format::Text);
        assert_eq!(
            Format::sniff("\u{feff}g () => () {}".as_bytes()),
            Format::Text
        );
        assert_eq!(Format::sniff(b"\x08\x0a\x12\x04test"), Format::Binary);
        assert_eq!(Format::sniff(&[0xff, 0xfe, 0x00]), Format::Binary);
    }

    #[test]
    fn extensions() {
        use std::path::Path;
        assert_eq!(
            Format::from_extension(Path::new("a.onnxtxt")),
            Some(Format::Text)
        );
        assert_eq!(
            Format::from_extension(Path::new("a.ONNX")),
            Some(Format::Binary)
        );
        assert_eq!(Format::from_extension(Path::new("a.bin")), None);
    }
}
