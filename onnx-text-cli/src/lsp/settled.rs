//! The number lists of a large document's initializers that parsed and that no edit has touched
//! since: the next parse reads a copy of the text with them blanked.
//!
//! Parsing ResNet-50 with its weights inline (317 MB, 25.6 million numbers) takes seconds; the
//! same text with the inside of each number list turned into spaces parses ten times faster,
//! and the editor's edits are almost all outside them. The copy parses exactly when the text
//! does, with the same errors at the same offsets: a list is blanked only if nothing from its
//! type to its closing brace changed (the element type decides which numbers it takes), and only
//! if it holds nothing but ASCII number text, without a quote or a comment (`"`, `#`, `/`) that
//! could start or end a string or a comment differently in the copy. Line breaks stay.

use std::ops::Range;

use onnx_syntax::syntax::{Graph, TensorData, TensorValues};
use onnx_syntax::{Span, Tree};

/// The settled lists, in text order.
#[derive(Clone, Debug, Default)]
pub struct Settled {
    lists: Vec<List>,
}

/// One list: from its tensor's type to its closing brace, and its braces.
#[derive(Clone, Copy, Debug, PartialEq)]
struct List {
    tensor: Span,
    data: Span,
}

impl Settled {
    pub fn clear(&mut self) {
        self.lists.clear();
    }

    /// Follows the bytes `replaced` becoming `inserted` bytes: the lists they touch are no longer
    /// settled, those after them move.
    pub fn edit(&mut self, replaced: Range<usize>, inserted: usize) {
        let (from, to) = (replaced.start as u32, replaced.end as u32);
        let shift = |offset: u32| (offset as i64 + inserted as i64 - (to - from) as i64) as u32;
        self.lists.retain_mut(|list| {
            let Span { start, end } = list.tensor;
            if from < end && to > start {
                return false;
            }
            if to <= start {
                list.tensor = Span::new(shift(start), shift(end));
                list.data = Span::new(shift(list.data.start), shift(list.data.end));
            }
            true
        });
    }

    /// The text with the inside of each settled list blanked; `None` if there is none.
    pub fn masked(&self, text: &str) -> Option<String> {
        if self.lists.is_empty() {
            return None;
        }
        let mut bytes = text.as_bytes().to_vec();
        for list in &self.lists {
            let inside = list.data.start as usize + 1..(list.data.end as usize).saturating_sub(1);
            for byte in bytes.get_mut(inside).unwrap_or_default() {
                if *byte != b'\n' {
                    *byte = b' ';
                }
            }
        }
        // Only ASCII bytes became spaces.
        String::from_utf8(bytes).ok()
    }

    /// The lists of the main graph's initializers after a parse of the text (or of its masked
    /// copy, whose blanked lists were settled already).
    pub fn record(&mut self, tree: &Tree, text: &str) {
        let graph: &Graph = match tree {
            Tree::Model(model) => &model.graph,
            Tree::Graph(graph) => graph,
            _ => {
                self.lists.clear();
                return;
            }
        };
        let known = std::mem::take(&mut self.lists);
        let was_settled = |list: &List| {
            known
                .binary_search_by_key(&list.data.start, |k| k.data.start)
                .is_ok_and(|i| known[i] == *list)
        };
        let tensors = graph
            .inputs
            .iter()
            .chain(&graph.locals)
            .filter_map(|d| d.initializer.as_ref());
        for tensor in tensors {
            let TensorData::Values(values, data, _) = &tensor.data else {
                continue;
            };
            if matches!(values, TensorValues::String(_)) {
                continue;
            }
            let list = List {
                tensor: tensor.span.to(*data),
                data: *data,
            };
            if was_settled(&list) || plain(text.as_bytes().get(data.range()).unwrap_or_default()) {
                self.lists.push(list);
            }
        }
        self.lists.sort_by_key(|list| list.data.start);
    }
}

/// Whether a list's text is ASCII without a quote or a comment character.
fn plain(list: &[u8]) -> bool {
    list.iter()
        .all(|&b| b.is_ascii() && !matches!(b, b'"' | b'#' | b'/'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use onnx_syntax::Entry;

    const TEXT: &str = "<ir_version: 10, opset_import: [\"\" : 21]>\ng (float[2] x, float[2] a = {1, 2}) => (float[2] y)\n   <float[2] b = {3,\n 4}, int64[1] c = {5}, string[1] s = {\"6\"}, float[1] d = {7 # seven\n}>\n{\n   y = Add (x, a)\n}\n";

    fn settled(text: &str) -> Settled {
        let mut settled = Settled::default();
        settled.record(&Entry::Model.parse(text).unwrap(), text);
        settled
    }

    #[test]
    fn plain_numeric_lists_are_blanked_and_parse_alike() {
        let settled = settled(TEXT);
        // Not the strings, nor the list with a comment.
        assert_eq!(settled.lists.len(), 3);
        let masked = settled.masked(TEXT).unwrap();
        assert_eq!(masked.len(), TEXT.len());
        assert!(
            masked.contains("a = {    }") && masked.contains("b = {  \n  }"),
            "{masked}"
        );
        assert!(
            masked.contains("c = { }")
                && masked.contains("{\"6\"}")
                && masked.contains("{7 # seven\n}")
        );
        assert!(Entry::Model.parse(&masked).is_ok());
    }

    #[test]
    fn edits_unsettle_the_lists_they_touch_and_move_the_rest() {
        let mut settled = settled(TEXT);
        let b = TEXT.find("float[2] b").unwrap();
        // A change of `c`'s type: its numbers must be read again.
        let c = TEXT.find("int64[1] c").unwrap();
        settled.edit(c..c + 5, 5);
        assert_eq!(settled.lists.len(), 2);
        // An insertion just before `b`'s type moves it; one just after `a`'s brace leaves it.
        settled.edit(b..b, 3);
        let a_end = TEXT.find("2})").unwrap() + 2;
        settled.edit(a_end..a_end, 1);
        let starts: Vec<u32> = settled.lists.iter().map(|l| l.tensor.start).collect();
        let a = TEXT.find("float[2] a").unwrap() as u32;
        assert_eq!(starts, [a, b as u32 + 4]);
        // A whole-text change forgets them all.
        settled.clear();
        assert!(settled.masked(TEXT).is_none());
    }
}
