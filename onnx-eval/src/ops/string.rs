//! Operators on strings: StringConcat, StringSplit, RegexFullMatch (RE2's syntax, on the
//! `regex` crate, behind onnx-eval's `regex` feature), StringNormalizer, and TfIdfVectorizer
//! (n-gram counts of strings or integers).

use super::elementwise::zip_broadcast;
use super::{Ctx, Registry, one, tensor};
use crate::error::KernelResult;
use crate::tensor::{Data, Tensor};
use crate::value::Val;
use ndarray::{ArrayD, IxDyn};
use std::collections::HashMap;

pub(super) fn register(r: &mut Registry) {
    r.add("", "StringConcat", 20, string_concat);
    r.add("", "StringSplit", 20, string_split);
    r.add("", "RegexFullMatch", 20, regex_full_match);
    r.add("", "StringNormalizer", 10, string_normalizer);
    r.add("", "TfIdfVectorizer", 9, tfidf_vectorizer);
}

/// The strings of a string tensor.
fn strings<'t>(t: &'t Tensor, what: &str) -> KernelResult<&'t ArrayD<String>> {
    match &t.data {
        Data::Str(a) => Ok(a),
        _ => Err(format!("{what} must be strings, got {}", t.type_name())),
    }
}

fn string_tensor(shape: &[usize], values: Vec<String>) -> KernelResult<Tensor> {
    Ok(Tensor::from_data(Data::Str(
        ArrayD::from_shape_vec(IxDyn(shape), values).map_err(|e| e.to_string())?,
    )))
}

fn string_concat(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = strings(tensor(inputs, 0)?, "X")?;
    let y = strings(tensor(inputs, 1)?, "Y")?;
    one(Tensor::from_data(Data::Str(zip_broadcast(
        x,
        y,
        &|a, b| format!("{a}{b}"),
    )?)))
}

/// Python's `str.split()`: runs of whitespace separate, none at either end counts; after
/// `maxsplit` splits the rest (its leading whitespace dropped) is the last part.
fn split_on_whitespace(s: &str, maxsplit: Option<usize>) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut rest = s.trim_start();
    while !rest.is_empty() {
        if maxsplit == Some(parts.len()) {
            parts.push(rest);
            break;
        }
        match rest.find(char::is_whitespace) {
            Some(end) => {
                parts.push(&rest[..end]);
                rest = rest[end..].trim_start();
            }
            None => {
                parts.push(rest);
                break;
            }
        }
    }
    parts
}

/// StringSplit: each string split on `delimiter` (every occurrence delimits, empty parts
/// included) or, without one, on runs of whitespace; at most `maxsplit` splits. The parts pad
/// with "" to the most any string has, along a new last axis; the counts are the second output.
fn string_split(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = strings(tensor(inputs, 0)?, "X")?;
    let delimiter = ctx.string("delimiter").unwrap_or_default();
    let maxsplit = ctx
        .int_opt("maxsplit")
        .filter(|&m| m >= 0)
        .map(|m| m as usize);
    let split: Vec<Vec<&str>> = x
        .iter()
        .map(|s| match (delimiter.as_str(), maxsplit) {
            ("", m) => split_on_whitespace(s, m),
            (d, Some(m)) => s.splitn(m.saturating_add(1), d).collect(),
            (d, None) => s.split(d).collect(),
        })
        .collect();
    let widest = split.iter().map(Vec::len).max().unwrap_or(0);
    let mut shape = x.shape().to_vec();
    shape.push(widest);
    ctx.checked_count(&shape)?;
    let mut padded = Vec::with_capacity(split.len() * widest);
    for parts in &split {
        padded.extend(parts.iter().map(|p| p.to_string()));
        padded.extend(std::iter::repeat_n(String::new(), widest - parts.len()));
    }
    let counts: Vec<i64> = split.iter().map(|p| p.len() as i64).collect();
    let counts = ArrayD::from_shape_vec(IxDyn(x.shape()), counts).map_err(|e| e.to_string())?;
    Ok(vec![
        Val::Tensor(string_tensor(&shape, padded)?),
        Val::Tensor(Tensor::from_data(Data::I64(counts))),
    ])
}

/// RE2's pattern in the `regex` crate's syntax. The two agree but for the Perl classes, which
/// RE2 keeps to ASCII (`\d`, `\w`, `\s`, `\b` and their negations) and the crate reads as Unicode:
/// each is written out as its ASCII class.
#[cfg(feature = "regex")]
fn re2_to_regex(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut chars = pattern.chars();
    let mut class_depth = 0usize;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(next) = chars.next() else {
                    out.push('\\');
                    break;
                };
                let class = match next {
                    'd' => Some("0-9"),
                    'w' => Some("0-9A-Za-z_"),
                    's' => Some("\\t\\n\\f\\r "),
                    'D' => Some("^0-9"),
                    'W' => Some("^0-9A-Za-z_"),
                    'S' => Some("^\\t\\n\\f\\r "),
                    _ => None,
                };
                match (class, next) {
                    (Some(class), _) => {
                        out.push('[');
                        out.push_str(class);
                        out.push(']');
                    }
                    (None, 'b' | 'B') if class_depth == 0 => {
                        out.push_str("(?-u:\\");
                        out.push(next);
                        out.push(')');
                    }
                    _ => {
                        out.push('\\');
                        out.push(next);
                    }
                }
            }
            '[' => {
                class_depth += 1;
                out.push(c);
                // A `]` right after `[` or `[^` is a literal member, not the end.
                if chars.clone().next() == Some('^') {
                    chars.next();
                    out.push('^');
                }
                if chars.clone().next() == Some(']') {
                    chars.next();
                    out.push_str("\\]");
                }
            }
            ']' if class_depth > 0 => {
                class_depth -= 1;
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// RegexFullMatch: whether each string matches the `pattern` as a whole.
fn regex_full_match(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = strings(tensor(inputs, 0)?, "X")?;
    let pattern = ctx
        .string("pattern")
        .ok_or("RegexFullMatch needs its `pattern`")?;
    one(Tensor::from_data(Data::Bool(full_matches(&pattern, x)?)))
}

/// Whether each string matches `pattern` as a whole.
#[cfg(feature = "regex")]
fn full_matches(pattern: &str, x: &ArrayD<String>) -> KernelResult<ArrayD<bool>> {
    let anchored = format!(r"\A(?:{})\z", re2_to_regex(pattern));
    let regex = regex::Regex::new(&anchored)
        .map_err(|e| format!("pattern {pattern:?} is not a valid regex: {e}"))?;
    Ok(x.map(|s| regex.is_match(s)))
}

/// Without the `regex` crate (off by default: a large share of the evaluator's cold build), the
/// operator is an error that names the feature.
#[cfg(not(feature = "regex"))]
fn full_matches(_: &str, _: &ArrayD<String>) -> KernelResult<ArrayD<bool>> {
    Err(
        "RegexFullMatch needs onnx-eval's `regex` feature (the `regex` crate), which this \
         build leaves out"
            .to_string(),
    )
}

/// StringNormalizer: a [C] or [1, C] tensor with its `stopwords` dropped (compared as given, or
/// lowercased unless `is_case_sensitive`), then lowercased or uppercased by
/// `case_change_action`; with nothing left, one empty string.
fn string_normalizer(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = strings(tensor(inputs, 0)?, "X")?;
    let two_dims = match x.shape() {
        [_] => false,
        [1, _] => true,
        shape => {
            return Err(format!(
                "StringNormalizer takes a [C] or [1, C] tensor, got {shape:?}"
            ));
        }
    };
    let case_sensitive = ctx.int("is_case_sensitive", 0) != 0;
    let fold = |s: &str| {
        if case_sensitive {
            s.to_string()
        } else {
            s.to_lowercase()
        }
    };
    let stopwords: Vec<String> = ctx
        .strings("stopwords")
        .unwrap_or_default()
        .iter()
        .map(|s| fold(s))
        .collect();
    let action = ctx.string("case_change_action").unwrap_or("NONE".into());
    let change: fn(&str) -> String = match action.as_str() {
        "NONE" => |s| s.to_string(),
        "LOWER" => str::to_lowercase,
        "UPPER" => str::to_uppercase,
        other => return Err(format!("unknown case_change_action {other:?}")),
    };
    let mut kept: Vec<String> = x
        .iter()
        .filter(|s| !stopwords.contains(&fold(s)))
        .map(|s| change(s))
        .collect();
    if kept.is_empty() {
        kept.push(String::new());
    }
    let shape = if two_dims {
        vec![1, kept.len()]
    } else {
        vec![kept.len()]
    };
    one(string_tensor(&shape, kept)?)
}

/// The n-grams of TfIdfVectorizer's pool: each as its tokens, with its pool index.
struct Pool {
    grams: HashMap<Vec<i64>, usize>,
    /// String tokens by their id (integer pools use the integers themselves).
    string_ids: HashMap<String, i64>,
    count: usize,
}

impl Pool {
    /// The pool, read from `pool_int64s` or `pool_strings` sectioned by `ngram_counts` (the
    /// start of the 1-grams, of the 2-grams, ...).
    fn read(ctx: &Ctx<'_>) -> KernelResult<Pool> {
        let mut string_ids = HashMap::new();
        let tokens: Vec<i64> = match (ctx.ints("pool_int64s"), ctx.strings("pool_strings")) {
            (Some(ints), None) => ints.to_vec(),
            (None, Some(strings)) => strings
                .into_iter()
                .map(|s| {
                    let next = string_ids.len() as i64;
                    *string_ids.entry(s).or_insert(next)
                })
                .collect(),
            _ => return Err("give exactly one of pool_int64s and pool_strings".to_string()),
        };
        let starts = ctx.ints("ngram_counts").ok_or("ngram_counts is required")?;
        let mut grams = HashMap::new();
        let mut index = 0;
        for (i, &start) in starts.iter().enumerate() {
            let n = i + 1;
            let end = starts.get(i + 1).copied().unwrap_or(tokens.len() as i64);
            if start < 0 || end < start || end as usize > tokens.len() {
                return Err(format!("ngram_counts {starts:?} do not section the pool"));
            }
            let section = &tokens[start as usize..end as usize];
            if !section.len().is_multiple_of(n) {
                return Err(format!(
                    "the pool's {n}-grams hold {} tokens, not a multiple of {n}",
                    section.len()
                ));
            }
            for gram in section.chunks(n) {
                grams.insert(gram.to_vec(), index);
                index += 1;
            }
        }
        Ok(Pool {
            grams,
            string_ids,
            count: index,
        })
    }

    /// A row's tokens: strings by their pool id (-1 for one not in the pool).
    fn tokens(&self, t: &Tensor) -> KernelResult<Vec<i64>> {
        match &t.data {
            Data::Str(a) if !self.string_ids.is_empty() || self.count == 0 => Ok(a
                .iter()
                .map(|s| self.string_ids.get(s).copied().unwrap_or(-1))
                .collect()),
            Data::Str(_) => Err("string input with an integer pool".to_string()),
            _ if !self.string_ids.is_empty() => Err("integer input with a string pool".to_string()),
            _ => t.to_i64_vec(),
        }
    }
}

/// TfIdfVectorizer: for each row, counts of the pool's n-grams (of `min_gram_length` to
/// `max_gram_length` tokens, tokens `skip + 1` apart for each skip up to `max_skip_count`;
/// 1-grams counted once), placed by `ngram_indexes`, then weighted by `mode`.
fn tfidf_vectorizer(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let pool = Pool::read(ctx)?;
    let indexes = ctx
        .ints("ngram_indexes")
        .ok_or("ngram_indexes is required")?;
    if indexes.len() != pool.count || indexes.iter().any(|&i| i < 0) {
        return Err(format!(
            "ngram_indexes has {} entries for {} n-grams, or a negative one",
            indexes.len(),
            pool.count
        ));
    }
    let width = indexes.iter().max().map_or(0, |&m| m as usize + 1);
    let weights = ctx.floats("weights").unwrap_or_default();
    if !weights.is_empty() && weights.len() != pool.count {
        return Err(format!(
            "weights has {} entries for {} n-grams",
            weights.len(),
            pool.count
        ));
    }
    let min = ctx.int("min_gram_length", 1).max(1) as usize;
    let max = ctx.int("max_gram_length", 1).max(0) as usize;
    let max_skip = ctx.int("max_skip_count", 0).max(0) as usize;
    let mode = ctx.string("mode").unwrap_or_default();
    let tokens = pool.tokens(x)?;
    let (rows, row_len, shape) = match x.shape() {
        [] => (1, 1, vec![width]),
        [c] => (1, *c, vec![width]),
        [n, c] => (*n, *c, vec![*n, width]),
        shape => {
            return Err(format!(
                "TfIdfVectorizer takes [C] or [N, C], got {shape:?}"
            ));
        }
    };
    ctx.checked_count(&shape)?;
    let mut y = vec![0f32; rows * width];
    for (row, out) in tokens
        .chunks(row_len.max(1))
        .zip(y.chunks_mut(width.max(1)))
    {
        let counts = count_grams(row, &pool, min, max, max_skip);
        for (gram, &count) in counts.iter().enumerate() {
            if count == 0 {
                continue;
            }
            let weight = weights.get(gram).copied().unwrap_or(1.0);
            let value = match mode.as_str() {
                "TF" => count as f32,
                "IDF" => weight,
                "TFIDF" => count as f32 * weight,
                other => return Err(format!("unknown mode {other:?}")),
            };
            out[indexes[gram] as usize] += value;
        }
    }
    one(Tensor::from_data(Data::F32(
        ArrayD::from_shape_vec(IxDyn(&shape), y).map_err(|e| e.to_string())?,
    )))
}

/// How often each pool n-gram occurs in one row.
fn count_grams(row: &[i64], pool: &Pool, min: usize, max: usize, max_skip: usize) -> Vec<u64> {
    let mut counts = vec![0u64; pool.count];
    for n in min..=max {
        // 1-grams do not depend on the skip.
        let skips = if n == 1 { 0 } else { max_skip };
        for skip in 0..=skips {
            let step = skip + 1;
            let span = (n - 1) * step;
            for start in 0..row.len().saturating_sub(span) {
                let gram: Vec<i64> = (0..n).map(|k| row[start + k * step]).collect();
                if let Some(&index) = pool.grams.get(&gram) {
                    counts[index] += 1;
                }
            }
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use crate::Value;

    /// RE2's `\w` and `\d` are ASCII: "é" is no word character, where Unicode would say it is.
    #[cfg(feature = "regex")]
    #[test]
    fn perl_classes_are_ascii_as_in_re2() {
        use super::re2_to_regex;
        let regex =
            regex::Regex::new(&format!(r"\A(?:{})\z", re2_to_regex(r"[\w.]+\b-\d"))).unwrap();
        assert!(regex.is_match("ab.c-1"));
        assert!(!regex.is_match("é-1"));
        assert_eq!(re2_to_regex(r"[]a]\\w"), r"[\]a]\\w");
    }

    /// Without the `regex` crate the operator says which feature brings it.
    #[cfg(not(feature = "regex"))]
    #[test]
    fn without_the_feature_the_error_names_it() {
        let model = onnx_text::parse_model(
            r#"<ir_version: 9, opset_import: ["" : 20]>
            g (string[1] x) => (bool[1] y) { y = RegexFullMatch <pattern: string = "a+"> (x) }"#,
        )
        .unwrap();
        let x = Value::tensor(&["aa".to_string()], &[1]).unwrap();
        let error = crate::run(&model, &[x]).unwrap_err().to_string();
        assert!(error.contains("onnx-eval's `regex` feature"), "{error}");
    }

    /// By hand from the spec: in [1, 2, 1, 2], the bigram (1, 2) occurs twice at skip 0 and
    /// (1, 1), (2, 2) once each at skip 1; unigrams count once whatever the skip.
    #[test]
    fn tfidf_counts_skip_grams_and_unigrams_once() {
        let model = onnx_text::parse_model(
            "<ir_version: 4, opset_import: [\"\" : 9]>
            g (int64[4] x) => (float[4] y) {
                y = TfIdfVectorizer <max_gram_length: int = 2, max_skip_count: int = 1,
                    min_gram_length: int = 1, mode: string = \"TF\", ngram_counts: ints = [0, 1],
                    ngram_indexes: ints = [0, 1, 2, 3], pool_int64s: ints = [1, 1, 2, 1, 1, 2, 2]> (x)
            }",
        )
        .unwrap();
        let x = Value::tensor(&[1i64, 2, 1, 2], &[4]).unwrap();
        let y = crate::run(&model, &[x]).unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), [2.0, 2.0, 1.0, 1.0]);
    }
}
