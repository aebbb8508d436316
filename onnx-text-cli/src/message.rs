//! What a file holds (a model, a graph, a function, a function library or a node) and the
//! operations on it: parse, check, decode, print and encode.

use clap::ValueEnum;
use onnx_text::prost::Message as _;
use onnx_text::{
    Diagnostics, FunctionProto, GraphProto, ModelProto, NodeProto, ParseError, Style, to_text_with,
};

/// The kind of message in a file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    /// A model: an optional `<…>` header, a graph, then functions (`ModelProto`).
    #[default]
    Model,
    /// A graph (`GraphProto`).
    Graph,
    /// One function, with an optional header (`FunctionProto`).
    Function,
    /// A function library: functions one after the other (text only).
    Functions,
    /// One node (`NodeProto`).
    Node,
}

/// A parsed or decoded message.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    Model(ModelProto),
    Graph(GraphProto),
    Function(FunctionProto),
    Functions(Vec<FunctionProto>),
    Node(NodeProto),
}

impl Kind {
    /// Parses `text` as this kind.
    pub fn parse(self, text: &str) -> Result<Message, ParseError> {
        Ok(match self {
            Kind::Model => Message::Model(onnx_text::parse_model(text)?),
            Kind::Graph => Message::Graph(onnx_text::parse_graph(text)?),
            Kind::Function => Message::Function(onnx_text::parse_function(text)?),
            Kind::Functions => Message::Functions(onnx_text::parse_functions(text)?),
            Kind::Node => Message::Node(onnx_text::parse_node(text)?),
        })
    }

    /// Parses `text` as this kind and runs every check on it.
    pub fn check(self, text: &str) -> Result<Message, Diagnostics> {
        Ok(match self {
            Kind::Model => Message::Model(onnx_text::check_model(text)?),
            Kind::Graph => Message::Graph(onnx_text::check_graph(text)?),
            Kind::Function => Message::Function(onnx_text::check_function(text)?),
            Kind::Functions => Message::Functions(onnx_text::check_functions(text)?),
            Kind::Node => Message::Node(onnx_text::check_node(text)?),
        })
    }

    /// Decodes protobuf bytes as this kind.
    pub fn decode(self, bytes: &[u8]) -> Result<Message, String> {
        let what = self.proto_name();
        let decoded = match self {
            Kind::Model => ModelProto::decode(bytes).map(Message::Model),
            Kind::Graph => GraphProto::decode(bytes).map(Message::Graph),
            Kind::Function => FunctionProto::decode(bytes).map(Message::Function),
            Kind::Node => NodeProto::decode(bytes).map(Message::Node),
            Kind::Functions => {
                return Err("a function library has no binary form; use --kind function".into());
            }
        };
        decoded.map_err(|e| format!("not a valid {what}: {e}"))
    }

    fn proto_name(self) -> &'static str {
        match self {
            Kind::Model => "ONNX model (ModelProto)",
            Kind::Graph => "GraphProto",
            Kind::Function | Kind::Functions => "FunctionProto",
            Kind::Node => "NodeProto",
        }
    }
}

impl Message {
    /// The text of the message, ending with a newline.
    pub fn to_text(&self, style: Style) -> String {
        let mut text = match self {
            Message::Model(m) => to_text_with(m, style),
            Message::Graph(g) => to_text_with(g, style),
            Message::Function(f) => to_text_with(f, style),
            Message::Functions(fs) => to_text_with(fs.as_slice(), style),
            // A node prints indented, as in a graph; on its own it stands at the margin.
            Message::Node(n) => to_text_with(n, style).trim_start().to_owned(),
        };
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text
    }

    /// The protobuf encoding of the message.
    pub fn encode(&self) -> Result<Vec<u8>, String> {
        Ok(match self {
            Message::Model(m) => m.encode_to_vec(),
            Message::Graph(g) => g.encode_to_vec(),
            Message::Function(f) => f.encode_to_vec(),
            Message::Node(n) => n.encode_to_vec(),
            Message::Functions(_) => {
                return Err("a function library has no binary form; use --kind function".into());
            }
        })
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
