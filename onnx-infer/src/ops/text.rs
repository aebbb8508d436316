//! Strings: `StringSplit`, `RegexFullMatch`, `StringNormalizer`, `TfIdfVectorizer`.

use crate::node::{Node, Rule, conflict, dtype};
use crate::ty::{Dim, Ty, show_shape};

/// `StringSplit`: strings one dim longer, and int64 counts of the input's shape.
pub fn string_split(node: &mut Node) -> Rule {
    let shape = node.shape_of(0);
    let longer = shape.clone().map(|mut s| {
        s.push(Dim::Unknown);
        s
    });
    node.set_tensor(0, Some(dtype::STRING), longer);
    node.set_tensor(1, Some(dtype::INT64), shape);
    Ok(())
}

/// `RegexFullMatch`: a bool of the operand's shape.
pub fn regex_full_match(node: &mut Node) -> Rule {
    let shape = node.shape_of(0);
    node.set(0, Ty::tensor(dtype::BOOL, shape));
    Ok(())
}

/// `StringNormalizer`: strings of the operand's rank, `[C]` or `[1, C]`; stop words can remove
/// any number of them, so the last dim is unknown.
pub fn string_normalizer(node: &mut Node) -> Rule {
    if let Some(dims) = node.ranked(0, "X", &[1, 2])?
        && let [first, _] = dims
        && !first.compatible(&Dim::Known(1))
    {
        let message = format!(
            "operand 0 (X) must be [C] or [1, C], found {}",
            show_shape(dims)
        );
        return Err(conflict(0, message));
    }
    let shape = node.dims(0).map(|dims| {
        let mut out = dims.to_vec();
        if let Some(last) = out.last_mut() {
            *last = Dim::Unknown;
        }
        out
    });
    node.set(0, Ty::tensor(dtype::STRING, shape));
    Ok(())
}

/// `TfIdfVectorizer`: float, the input's batch (if 2-D) and one entry per n-gram index. Where
/// the input's shape is known, onnx requires rank 1 or 2 and n-gram indexes, none negative.
pub fn tf_idf(node: &mut Node) -> Rule {
    let Some(dims) = node.ranked(0, "X", &[1, 2])? else {
        node.set_tensor(0, Some(dtype::FLOAT), None);
        return Ok(());
    };
    let indexes = node.int_list("ngram_indexes").unwrap_or_default();
    let Some(&last) = indexes
        .iter()
        .max()
        .filter(|_| indexes.iter().all(|&i| i >= 0))
    else {
        return Err(conflict(
            0,
            format!(
                "the attribute ngram_indexes must be non-empty and not negative, found {indexes:?}"
            ),
        ));
    };
    let width = last.checked_add(1).map_or(Dim::Unknown, Dim::Known);
    let shape = match dims {
        [_] => vec![width],
        [n, ..] => vec![n.clone(), width],
        [] => Vec::new(),
    };
    node.set_tensor(0, Some(dtype::FLOAT), Some(shape));
    Ok(())
}
