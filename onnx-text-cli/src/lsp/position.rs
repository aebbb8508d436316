//! Byte offsets of the text against LSP positions: a zero-based line and a column counted in
//! UTF-16 code units, as LSP 3.17 requires unless the client negotiates otherwise.

use lsp_types::{Position, Range};
use onnx_syntax::Span;

/// Where each line of a text starts: the syntax's line index, with LSP positions.
#[derive(Clone, Debug)]
pub struct LineIndex(onnx_syntax::LineIndex);

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        LineIndex(onnx_syntax::LineIndex::new(text))
    }

    /// The position of byte `offset` (clamped to the text, and back to a character boundary).
    pub fn position(&self, text: &str, offset: u32) -> Position {
        let mut offset = (offset as usize).min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.0.line_of(offset);
        let start = self.0.line_start(line).unwrap_or(0);
        let character = text[start..offset].encode_utf16().count();
        Position::new(line as u32, character as u32)
    }

    /// The byte offset of `position`; past the end of its line, the line's end; past the last
    /// line, the end of the text.
    pub fn offset(&self, text: &str, position: Position) -> u32 {
        let line = position.line as usize;
        let (Some(start), Some(line_end)) = (self.0.line_start(line), self.0.line_end(line)) else {
            return text.len() as u32;
        };
        let mut units = 0;
        for (i, c) in text[start..line_end].char_indices() {
            if units >= position.character as usize {
                return (start + i) as u32;
            }
            units += c.len_utf16();
        }
        line_end as u32
    }

    pub fn range(&self, text: &str, span: Span) -> Range {
        Range::new(
            self.position(text, span.start),
            self.position(text, span.end),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_utf16_code_units() {
        // `é` is one UTF-16 unit and two bytes; `𝑥` is two units and four bytes.
        let text = "a\n\"é𝑥\" = b\nlast";
        let index = LineIndex::new(text);
        let b = text.find(" b").unwrap() as u32 + 1;
        assert_eq!(index.position(text, b), Position::new(1, 8));
        assert_eq!(index.offset(text, Position::new(1, 8)), b);
        assert_eq!(
            index.offset(text, Position::new(1, 99)),
            text.find("\nlast").unwrap() as u32
        );
        assert_eq!(index.offset(text, Position::new(9, 0)), text.len() as u32);
        // Inside a character: back to its start.
        let inside = text.find('é').unwrap() as u32 + 1;
        assert_eq!(index.position(text, inside), Position::new(1, 1));
    }
}
