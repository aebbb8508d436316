//! Operator summaries and attribute defaults for hover and completion, generated from the onnx
//! wheel by `scripts/gen_schema_docs.py`. The signatures come from the checks' table
//! (`onnx_check::describe_operator`); this adds only what the checks never need.

use std::collections::HashMap;
use std::sync::LazyLock;

const SOURCE: &str = include_str!("schema_docs.txt");

/// What the documentation says of one schema version.
#[derive(Debug, Default)]
pub struct SchemaDocs {
    pub summary: &'static str,
    /// `(attribute, default as the text syntax writes it)`.
    pub defaults: Vec<(&'static str, &'static str)>,
}

/// By `domain name since_version`, as the `op` line writes them (the default domain as
/// `ai.onnx`).
static DOCS: LazyLock<HashMap<&'static str, SchemaDocs>> = LazyLock::new(|| {
    let mut docs = HashMap::new();
    let mut current: Option<(&str, SchemaDocs)> = None;
    for line in SOURCE.lines() {
        let (kind, rest) = line.split_once(' ').unwrap_or((line, ""));
        match kind {
            "op" => {
                if let Some((key, entry)) = current.take() {
                    docs.insert(key, entry);
                }
                current = Some((rest, SchemaDocs::default()));
            }
            "summary" => {
                if let Some((_, entry)) = &mut current {
                    entry.summary = rest;
                }
            }
            "default" => {
                if let (Some((_, entry)), Some(pair)) = (&mut current, rest.split_once(' ')) {
                    entry.defaults.push(pair);
                }
            }
            _ => {}
        }
    }
    if let Some((key, entry)) = current {
        docs.insert(key, entry);
    }
    docs
});

/// The documentation of the schema of `domain` (`ai.onnx` for the default) `name` since `since`.
pub fn docs(domain: &str, name: &str, since: i64) -> Option<&'static SchemaDocs> {
    DOCS.get(format!("{domain} {name} {since}").as_str())
}

/// The default of an attribute, as written.
pub fn default_of(domain: &str, name: &str, since: i64, attribute: &str) -> Option<&'static str> {
    docs(domain, name, since)?
        .defaults
        .iter()
        .find(|(a, _)| *a == attribute)
        .map(|&(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_and_defaults_of_the_wheel() {
        let leaky = docs("ai.onnx", "LeakyRelu", 16).unwrap();
        assert!(leaky.summary.starts_with("LeakyRelu takes input data"));
        assert_eq!(
            default_of("ai.onnx", "LeakyRelu", 16, "alpha"),
            Some("0.01")
        );
        assert_eq!(
            default_of("ai.onnx", "Conv", 22, "auto_pad"),
            Some("\"NOTSET\"")
        );
        // Every schema of the checks' table has its entry.
        for name in onnx_check::operators_at("", 21) {
            let doc = onnx_check::describe_operator("", name, 21).unwrap();
            assert!(
                docs(doc.domain, name, doc.since_version).is_some(),
                "{name}"
            );
        }
    }
}
