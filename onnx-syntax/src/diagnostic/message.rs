//! How messages name things, the same in every layer: lists of names, quoted names, operators.

use crate::hash::HashSet;
use crate::syntax::Node;

/// At most this many names are listed in a message.
const LIST_LIMIT: usize = 8;

/// `` `a`, `b` `` (deduplicated, at most `LIST_LIMIT`, then `…`), with `quote` around each.
pub fn list<'a>(items: impl Iterator<Item = &'a str>, quote: fn(&str) -> String) -> String {
    let mut seen = HashSet::default();
    let mut shown = Vec::new();
    let mut more = false;
    for item in items {
        if seen.insert(item) {
            if shown.len() == LIST_LIMIT {
                more = true;
                break;
            }
            shown.push(quote(item));
        }
    }
    if more {
        shown.push("…".to_owned());
    }
    shown.join(", ")
}

pub fn backticks(item: &str) -> String {
    format!("`{item}`")
}

pub fn quoted(item: &str) -> String {
    format!("{item:?}")
}

/// How a node's operator reads in a message: `domain.Op`, or `Op` in the default domain.
pub fn operator(node: &Node) -> String {
    if node.domain.is_empty() {
        node.op_type.clone()
    } else {
        format!("{}.{}", node.domain, node.op_type)
    }
}
