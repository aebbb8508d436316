//! What a model holds that no text expresses (docs/divergences.md, "What no text can express"),
//! said before a binary model is written as text: weights (`sparse_initializer`, and the
//! initializers of `training_info`) are refused unless `--lossy`, and the rest is warned of. A
//! user's weights never disappear without a word.

use std::sync::atomic::{AtomicBool, Ordering};

use onnx_syntax::Proto;
use onnx_text::{GraphProto, ModelProto, attribute_proto::AttributeType};

static ALLOWED: AtomicBool = AtomicBool::new(false);

/// `--lossy`: write text even where it loses weights.
pub fn allow(lossy: bool) {
    ALLOWED.store(lossy, Ordering::Relaxed);
}

/// What the text of a model leaves out.
#[derive(Debug, Default, PartialEq, Eq)]
struct Losses {
    /// Weights: sparse initializers, by name.
    sparse: Vec<String>,
    /// `training_info` entries.
    training: usize,
    /// Graphs with a doc string, by name.
    graph_docs: Vec<String>,
    /// Graphs with quantization annotations, by name.
    annotated: Vec<String>,
}

fn losses(model: &ModelProto) -> Losses {
    let mut found = Losses {
        training: model.training_info.len(),
        ..Losses::default()
    };
    if let Some(graph) = &model.graph {
        walk(graph, &mut found);
    }
    found
}

fn walk(graph: &GraphProto, found: &mut Losses) {
    let name = || graph.name.clone().unwrap_or_default();
    (found.sparse).extend(graph.sparse_initializer.iter().map(|s| {
        let values = s.values.as_ref();
        values.and_then(|v| v.name.clone()).unwrap_or_default()
    }));
    if graph.doc_string.as_deref().is_some_and(|d| !d.is_empty()) {
        found.graph_docs.push(name());
    }
    if !graph.quantization_annotation.is_empty() {
        found.annotated.push(name());
    }
    // The attribute's declared type says which field holds the graph, as onnx reads it.
    for attribute in graph.node.iter().flat_map(|n| &n.attribute) {
        if attribute.r#type == Some(AttributeType::Graph as i32)
            && let Some(g) = &attribute.g
        {
            walk(g, found);
        }
        if attribute.r#type == Some(AttributeType::Graphs as i32) {
            attribute.graphs.iter().for_each(|g| walk(g, found));
        }
    }
}

fn listed(names: &[String]) -> String {
    let shown: Vec<String> = names.iter().take(5).map(|n| format!("`{n}`")).collect();
    let more = names.len().saturating_sub(5);
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// Says what the text of `message` (a model read from `name`) will leave out: `Err` with the
/// report if it would lose weights and `--lossy` was not given, else the warnings (empty if
/// nothing is lost).
pub fn check(message: &Proto, name: &str) -> Result<Vec<String>, String> {
    let Proto::Model(model) = message else {
        return Ok(Vec::new());
    };
    let found = losses(model);
    let mut weights = Vec::new();
    if !found.sparse.is_empty() {
        weights.push(format!(
            "{} sparse initializer{} ({})",
            found.sparse.len(),
            if found.sparse.len() == 1 { "" } else { "s" },
            listed(&found.sparse)
        ));
    }
    if found.training > 0 {
        weights.push(format!(
            "training_info ({} entr{}, with their initializers)",
            found.training,
            if found.training == 1 { "y" } else { "ies" }
        ));
    }
    let mut warnings = Vec::new();
    if !weights.is_empty() {
        let what = weights.join(" and ");
        if !ALLOWED.load(Ordering::Relaxed) {
            return Err(format!(
                "`{name}` holds {what}, which no text can express: its text would lose these \
                 weights. Keep the model binary, or pass --lossy to write the text without them"
            ));
        }
        warnings.push(format!("`{name}`: the text leaves out {what} (--lossy)"));
    }
    if !found.graph_docs.is_empty() {
        warnings.push(format!(
            "`{name}`: the text leaves out the doc_string of graph {}, which no text can express",
            listed(&found.graph_docs)
        ));
    }
    if !found.annotated.is_empty() {
        warnings.push(format!(
            "`{name}`: the text leaves out the quantization_annotation of graph {}, which no \
             text can express",
            listed(&found.annotated)
        ));
    }
    Ok(warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use onnx_text::{SparseTensorProto, TensorProto};

    #[test]
    fn weights_are_refused_and_doc_strings_warned_of() {
        let mut model = onnx_text::parse_model(
            "<ir_version: 10, opset_import: [\"\" : 21]> g (float x) => (float y) { y = Relu(x) }",
        )
        .unwrap();
        let message = |m: &ModelProto| Proto::Model(m.clone());
        assert_eq!(check(&message(&model), "m.onnx"), Ok(Vec::new()));
        let graph = model.graph.as_mut().unwrap();
        graph.doc_string = Some("the main graph".into());
        assert_eq!(
            check(&message(&model), "m.onnx"),
            Ok(vec![
                "`m.onnx`: the text leaves out the doc_string of graph `g`, which no text can \
                 express"
                    .to_owned()
            ])
        );
        let graph = model.graph.as_mut().unwrap();
        graph.sparse_initializer.push(SparseTensorProto {
            values: Some(TensorProto {
                name: Some("w".into()),
                ..TensorProto::default()
            }),
            ..SparseTensorProto::default()
        });
        let refused = check(&message(&model), "m.onnx").unwrap_err();
        assert!(
            refused.starts_with("`m.onnx` holds 1 sparse initializer (`w`), which no text"),
            "{refused}"
        );
        assert!(refused.ends_with("pass --lossy to write the text without them"));
    }
}
