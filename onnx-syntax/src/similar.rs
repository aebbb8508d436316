//! "Did you mean": the closest known name by edit distance (the parser's unknown element types,
//! and every check's unknown names).

/// The edit distance between `a` and `b`: Levenshtein's insertions, deletions and substitutions
/// of characters, plus swaps of two neighbours (`Rleu` is one edit from `Relu`), each costing 1.
/// Three rows of the usual table are kept.
///
/// ```
/// use onnx_syntax::similar::edit_distance;
/// assert_eq!(edit_distance("flaot", "float"), 1);
/// assert_eq!(edit_distance("kitten", "sitting"), 3);
/// ```
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for i in 0..a.len() {
        current[0] = i + 1;
        for j in 0..b.len() {
            let substitute = previous[j] + usize::from(a[i] != b[j]);
            let mut best = substitute.min(previous[j + 1] + 1).min(current[j] + 1);
            if i > 0 && j > 0 && a[i] == b[j - 1] && a[i - 1] == b[j] {
                best = best.min(before[j - 1] + 1);
            }
            current[j + 1] = best;
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

/// The candidate closest to `word`, compared without case, if it is close enough: at most a
/// third of the word's length apart (at least 1). Ties go to the first candidate. Candidates
/// whose length alone rules them out are skipped, so a huge word costs little.
///
/// ```
/// use onnx_syntax::similar::closest;
/// assert_eq!(closest("Rleu", ["Relu", "Selu"]), Some("Relu"));
/// assert_eq!(closest("Conv", ["Relu", "Selu"]), None);
/// ```
pub fn closest<'c>(word: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    let length = word.chars().count();
    let limit = (length / 3).max(1);
    let lower = word.to_lowercase();
    let mut best: Option<(usize, &'c str)> = None;
    for candidate in candidates {
        if candidate == word || candidate.chars().count().abs_diff(length) > limit {
            continue;
        }
        let distance = edit_distance(&lower, &candidate.to_lowercase());
        if distance <= limit && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_counts_single_character_edits() {
        assert_eq!(edit_distance("", ""), 0);
        assert_eq!(edit_distance("abc", ""), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("Rleu", "Relu"), 1);
        assert_eq!(edit_distance("ab", "ba"), 1);
        assert_eq!(edit_distance("abc", "ca"), 3);
        assert_eq!(edit_distance("axis", "axes"), 1);
        assert_eq!(edit_distance("ÄÖ", "AÖ"), 1); // characters, not bytes
    }

    #[test]
    fn closest_prefers_the_nearest_and_ignores_case() {
        let ops = ["Relu", "Reshape", "LeakyRelu", "Selu"];
        assert_eq!(closest("Rleu", ops), Some("Relu"));
        assert_eq!(closest("relu", ops), Some("Relu"));
        assert_eq!(closest("Reshap", ops), Some("Reshape"));
        assert_eq!(closest("Conv", ops), None);
        assert_eq!(closest("Relu", ["Relu"]), None); // the word itself is no suggestion
        assert_eq!(closest(&"x".repeat(100_000), ops), None);
    }

    #[test]
    fn short_words_allow_one_edit() {
        assert_eq!(closest("to", ["ro", "axis"]), Some("ro"));
        assert_eq!(closest("ab", ["xy"]), None);
    }
}
