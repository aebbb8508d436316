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
        .map_err(|e| decode_error(what, bytes, &e))
}

/// The one message for bytes that do not decode, in every command: what was expected, the
/// path of the message and field where decoding broke (as prost names it), and the byte offset
/// of the field that is cut short or malformed, where the wire format shows it.
pub fn decode_error(what: &str, bytes: &[u8], error: &impl std::fmt::Display) -> String {
    let error = error.to_string();
    let path = error
        .strip_prefix("failed to decode Protobuf message: ")
        .unwrap_or(&error);
    match break_offset(bytes, 0) {
        Some((offset, why)) => format!("not a valid {what}: {path}, at byte {offset}: {why}"),
        None => format!("not a valid {what}: {path}"),
    }
}

/// Where protobuf `bytes` (starting at `base` in the file) stop being well formed, by the wire
/// format alone: the offset of the first field that is cut short or malformed, followed into a
/// field that runs past the end as far as its content still reads as fields.
fn break_offset(bytes: &[u8], base: usize) -> Option<(usize, String)> {
    let mut pos = 0;
    while pos < bytes.len() {
        let start = pos;
        let at = base + start;
        let Some(key) = varint(bytes, &mut pos) else {
            return Some((at, "a field key is cut short".into()));
        };
        let cut = |what: &str| Some((at, format!("field {} {what}", key >> 3)));
        match key & 7 {
            0 => {
                if varint(bytes, &mut pos).is_none() {
                    return cut("is cut short");
                }
            }
            1 | 5 => {
                let size = if key & 7 == 1 { 8 } else { 4 };
                if bytes.len() - pos < size {
                    return cut("is cut short");
                }
                pos += size;
            }
            2 => {
                let Some(len) = varint(bytes, &mut pos) else {
                    return cut("has a length that is cut short");
                };
                let left = bytes.len() - pos;
                if len > left as u64 {
                    // Inside it, a field that runs past the end is nearer the cut.
                    return break_offset(&bytes[pos..], base + pos)
                        .filter(|(_, why)| why.contains("bytes, and"))
                        .or_else(|| {
                            cut(&format!(
                                "takes {len} bytes, and the file has {left} after its length"
                            ))
                        });
                }
                pos += len as usize;
            }
            wire => {
                return cut(&format!(
                    "has wire type {wire}, which protobuf does not use"
                ));
            }
        }
    }
    None
}

/// Reads a varint at `pos` (at most ten bytes), advancing `pos`.
fn varint(bytes: &[u8], pos: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for i in 0..10 {
        let &byte = bytes.get(*pos)?;
        *pos += 1;
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte < 0x80 {
            return Some(value);
        }
    }
    None
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

/// Whether `data` looks like binary bytes rather than a text with a wrong byte: its first 4 KiB
/// hold a NUL or another control character that no text has (white space aside).
pub fn looks_binary(data: &[u8]) -> bool {
    let head = &data[..data.len().min(4096)];
    head.iter()
        .any(|&b| (b < 0x20 && !matches!(b, b'\n' | b'\r' | b'\t' | 0x0b | 0x0c)) || b == 0x7f)
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
    fn a_cut_model_is_named_by_its_path_and_the_offset_of_the_cut_field() {
        use onnx_text::prost::Message;
        let model = onnx_text::parse_model(
            "<ir_version: 10, opset_import: [\"\" : 21]> g (float[2] x) => (float[2] y) { y = Relu(x) }",
        )
        .unwrap()
        .encode_to_vec();
        let cut = &model[..model.len() - 3];
        let err = decode(Entry::Model, cut).unwrap_err();
        // prost writes the fields in number order: the opset import (8, a message of 4 bytes
        // after its key and length) comes last, and the cut is inside it.
        let key = model.len() - 6;
        assert_eq!(model[key], 8 << 3 | 2);
        assert_eq!(
            err,
            format!(
                "not a valid ONNX model (ModelProto): ModelProto.opset_import: buffer underflow, \
                 at byte {key}: field 8 takes 4 bytes, and the file has 1 after its length"
            )
        );
        // Cut inside the graph (field 7), the field inside it that is cut is named.
        let graph = model.iter().position(|&b| b == 7 << 3 | 2).unwrap();
        let err = decode(Entry::Model, &model[..graph + 12]).unwrap_err();
        assert!(err.contains("ModelProto.graph: "), "{err}");
        let offset: usize = (err.split(", at byte ").nth(1).unwrap().split(':').next())
            .unwrap()
            .parse()
            .unwrap();
        assert!(offset > graph && offset < graph + 12, "{err}");
        // Bytes that are no protobuf at all.
        let err = decode(Entry::Model, &[0x0f, 0x01]).unwrap_err();
        assert!(err.contains("at byte 0: field 1 has wire type 7"), "{err}");
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
