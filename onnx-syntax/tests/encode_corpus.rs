//! The encoder of models and graphs, which the macros use for big literals, gives prost's bytes.

use onnx_runtime_types::prost::Message;
use onnx_syntax::{Entry, Proto};

/// `Proto::encode` (the macros' encoder) gives prost's bytes for every model and graph of the conformance corpus
/// that parses (subgraphs, functions, initializers and all).
#[test]
fn encoder_matches_prost_on_the_corpus() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus");
    let (mut models, mut graphs) = (0, 0);
    for dir in std::fs::read_dir(root).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for path in std::fs::read_dir(&dir).unwrap() {
            let path = path.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            if name.ends_with(".model.onnxtxt")
                && let Ok(tree) = Entry::Model.parse(&text)
            {
                let Proto::Model(model) = tree.lower() else {
                    unreachable!("a model entry lowers to a model")
                };
                let expected = model.encode_to_vec();
                assert!(Proto::Model(model).encode() == expected, "{name}");
                models += 1;
            } else if name.ends_with(".graph.onnxtxt")
                && let Ok(tree) = Entry::Graph.parse(&text)
            {
                let Proto::Graph(graph) = tree.lower() else {
                    unreachable!("a graph entry lowers to a graph")
                };
                let expected = graph.encode_to_vec();
                assert!(Proto::Graph(graph).encode() == expected, "{name}");
                graphs += 1;
            }
        }
    }
    assert!(
        models > 2000 && graphs > 10,
        "{models} models, {graphs} graphs"
    );
}
