//! Parses many texts in one process, for the differential test against the reference
//! (`scripts/differential.py`).
//!
//! Input on stdin: records `entry\nlength\nbytes`, where entry is model, graph, function or node.
//! Output: one line per record, `OK <hex of the encoded proto>` or `ERR <byte offset> <message>`.

use std::io::{Read, Write};

use onnx_text::prost::Message;

fn parse(entry: &str, text: &str) -> Result<Vec<u8>, (u32, String)> {
    let result = match entry {
        "model" => onnx_text::parse_model(text).map(|m| m.encode_to_vec()),
        "graph" => onnx_text::parse_graph(text).map(|m| m.encode_to_vec()),
        "function" => onnx_text::parse_function(text).map(|m| m.encode_to_vec()),
        "node" => onnx_text::parse_node(text).map(|m| m.encode_to_vec()),
        other => return Err((0, format!("unknown entry point `{other}`"))),
    };
    result.map_err(|e| (e.span().start, e.message().to_owned()))
}

/// The next `\n`-terminated field of `input` at `*pos`.
fn field<'a>(input: &'a [u8], pos: &mut usize) -> Option<&'a [u8]> {
    let end = *pos + input.get(*pos..)?.iter().position(|&b| b == b'\n')?;
    let field = &input[*pos..end];
    *pos = end + 1;
    Some(field)
}

fn main() -> std::io::Result<()> {
    let mut input = Vec::new();
    std::io::stdin().read_to_end(&mut input)?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut pos = 0;
    while let (Some(entry), Some(length)) = (field(&input, &mut pos), field(&input, &mut pos)) {
        let length: usize = String::from_utf8_lossy(length)
            .parse()
            .expect("a record length");
        let text = &input[pos..pos + length];
        pos += length;
        let entry = String::from_utf8_lossy(entry);
        // The runtime API takes `&str`: text that is not UTF-8 cannot reach it.
        let result = onnx_text::text_from_bytes(text)
            .map_err(|e| (e.span().start, e.message().to_owned()))
            .and_then(|t| parse(&entry, t));
        match result {
            Ok(bytes) => writeln!(
                out,
                "OK {}",
                bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
            )?,
            Err((offset, message)) => writeln!(out, "ERR {offset} {}", message.replace('\n', " "))?,
        }
    }
    out.flush()
}
