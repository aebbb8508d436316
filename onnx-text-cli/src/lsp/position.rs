//! Byte offsets of the text against LSP positions: a zero-based line and a column counted in
//! UTF-16 code units, as LSP 3.17 requires unless the client negotiates otherwise.
//!
//! Every conversion takes time in the logarithm of the text's size, whatever the length of its
//! lines: `print` writes a model's initializers on one line, which can hold hundreds of
//! megabytes, and counting UTF-16 units from the start of the line at each of its names made
//! semantic tokens quadratic in the line's length. Instead the index knows where each line
//! starts and where each non-ASCII character is, with the units saved by it and every one before
//! it; between two of those, a byte is a unit.

use std::ops::Range as Bytes;

use lsp_types::{Position, Range};
use onnx_syntax::Span;

/// Where each line of a text starts (the syntax's [`onnx_syntax::LineIndex`]), and where its
/// characters take fewer UTF-16 units than UTF-8 bytes.
#[derive(Clone, Debug)]
pub struct LineIndex {
    lines: onnx_syntax::LineIndex,
    /// The non-ASCII characters, in text order.
    wide: Vec<Wide>,
}

/// A non-ASCII character: where it starts, and the bytes-minus-units of it and of every
/// non-ASCII character before it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Wide {
    offset: u32,
    saved: u32,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut index = LineIndex {
            lines: onnx_syntax::LineIndex::new(""),
            wide: Vec::new(),
        };
        index.edit(0..0, text);
        index
    }

    /// The line holding byte `offset`, and where it starts and ends (before its `\n`).
    fn line(&self, offset: u32) -> (usize, u32, u32) {
        let line = self.lines.line_of(offset as usize);
        let start = self.lines.line_start(line).unwrap_or(0) as u32;
        let end = self.lines.line_end(line).unwrap_or(0) as u32;
        (line, start, end)
    }

    /// The position of byte `offset` (clamped to the text, and back to a character boundary).
    pub fn position(&self, text: &str, offset: u32) -> Position {
        let mut offset = (offset as usize).min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let offset = offset as u32;
        let (line, start, _) = self.line(offset);
        let saved = self.saved_before(offset) - self.saved_before(start);
        Position::new(line as u32, offset - start - saved)
    }

    /// The byte offset of `position`; inside a character (between the two units of a surrogate
    /// pair), the character's start; past the end of its line, the line's end; past the last
    /// line, the end of the text.
    pub fn offset(&self, text: &str, position: Position) -> u32 {
        let line = position.line as usize;
        let (Some(start), Some(line_end)) =
            (self.lines.line_start(line), self.lines.line_end(line))
        else {
            return text.len() as u32;
        };
        let (start, line_end) = (start as u32, line_end as u32);
        let wanted = position.character;
        let base = self.saved_before(start);
        // The units before a character that starts on this line.
        let units_at = |offset: u32| offset - start - (self.saved_before(offset) - base);
        let first = self.wide.partition_point(|w| w.offset < start);
        let on_line = &self.wide[first..self.wide.partition_point(|w| w.offset < line_end)];
        // The non-ASCII characters of the line that start before the wanted column.
        let before = on_line.partition_point(|w| units_at(w.offset) < wanted);
        let (from, from_units) = match before.checked_sub(1).map(|i| on_line[i].offset) {
            None => (start, 0),
            Some(last) => {
                let c = text[last as usize..].chars().next().unwrap_or(' ');
                let units = units_at(last);
                if wanted < units + c.len_utf16() as u32 {
                    return last;
                }
                (last + c.len_utf8() as u32, units + c.len_utf16() as u32)
            }
        };
        // ASCII from there to the next non-ASCII character, or to the line's end.
        (from + (wanted - from_units)).min(line_end)
    }

    /// Where the line holding byte `offset` starts.
    pub fn line_start(&self, offset: u32) -> u32 {
        self.line(offset).1
    }

    pub fn range(&self, text: &str, span: Span) -> Range {
        Range::new(
            self.position(text, span.start),
            self.position(text, span.end),
        )
    }

    /// The byte range of an LSP range.
    pub fn bytes(&self, text: &str, range: Range) -> Bytes<usize> {
        let start = self.offset(text, range.start) as usize;
        let end = self.offset(text, range.end) as usize;
        start..end.max(start)
    }

    /// Follows the text's bytes `replaced` (character boundaries) becoming `inserted`: the lines
    /// and characters of the rest only move.
    pub fn edit(&mut self, replaced: Bytes<usize>, inserted: &str) {
        self.lines.edit(replaced.clone(), inserted);
        let (from, to) = (replaced.start as u32, replaced.end as u32);
        let shift =
            |offset: u32| (offset as i64 + inserted.len() as i64 - (to - from) as i64) as u32;
        // Non-ASCII characters: those inside the replaced bytes go, those of the inserted text
        // come, those after move, and what they save adds up again from the first.
        let base = self.saved_before(from);
        let removed = self.saved_before(to) - base;
        let first = self.wide.partition_point(|w| w.offset < from);
        let last = self.wide.partition_point(|w| w.offset < to);
        let mut saved = base;
        let wide: Vec<Wide> = inserted
            .char_indices()
            .filter(|(_, c)| !c.is_ascii())
            .map(|(i, c)| {
                saved += (c.len_utf8() - c.len_utf16()) as u32;
                Wide {
                    offset: from + i as u32,
                    saved,
                }
            })
            .collect();
        let added = wide.len();
        let gained = saved - base;
        self.wide.splice(first..last, wide);
        for w in &mut self.wide[first + added..] {
            w.offset = shift(w.offset);
            w.saved = w.saved - removed + gained;
        }
    }

    /// What the non-ASCII characters before byte `offset` save.
    fn saved_before(&self, offset: u32) -> u32 {
        match self.wide.partition_point(|w| w.offset < offset) {
            0 => 0,
            n => self.wide[n - 1].saved,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Positions counted the slow way, from the start of the line.
    fn counted(text: &str, offset: usize) -> Position {
        let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        Position::new(
            text[..offset].matches('\n').count() as u32,
            text[line_start..offset].encode_utf16().count() as u32,
        )
    }

    fn assert_agrees(index: &LineIndex, text: &str) {
        for (offset, _) in text.char_indices().chain([(text.len(), ' ')]) {
            let position = counted(text, offset);
            assert_eq!(index.position(text, offset as u32), position, "{offset}");
            assert_eq!(index.offset(text, position), offset as u32, "{position:?}");
        }
    }

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
        let pair = text.find('𝑥').unwrap() as u32;
        assert_eq!(index.offset(text, Position::new(1, 3)), pair);
        assert_agrees(&index, text);
    }

    #[test]
    fn edits_keep_the_index_that_of_the_edited_text() {
        let mut text = String::from("ab\n\"é𝑥\" = b\n中文 x\nlast");
        let mut index = LineIndex::new(&text);
        // (start, bytes replaced, inserted), moved to character boundaries.
        let edits = [
            (4, 2, "ü\n"),    // a character for another and a new line
            (0, 0, "𝑥𝑥\r\n"), // before everything
            (7, 5, ""),       // across a line end and characters
            (3, 0, "\n\n"),   // empty lines
            (0, 0, ""),       // nothing
            (2, 0, "中"),
            (99, 0, "tail é"),
        ];
        for (start, len, inserted) in edits {
            let boundary = |mut i: usize| {
                i = i.min(text.len());
                while !text.is_char_boundary(i) {
                    i += 1;
                }
                i
            };
            let (start, end) = (boundary(start), boundary(start + len));
            text.replace_range(start..end, inserted);
            index.edit(start..end, inserted);
            let fresh = LineIndex::new(&text);
            assert_eq!(index.lines, fresh.lines, "{text:?}");
            assert_eq!(index.wide, fresh.wide, "{text:?}");
            assert_agrees(&index, &text);
        }
    }
}
