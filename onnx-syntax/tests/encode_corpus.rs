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

/// The encoder's own writing of nodes and plain attributes gives prost's bytes at the edges:
/// negative and extreme integers, an enum out of range, NaN, empty and long texts, every list,
/// and the nodes and attributes it leaves to prost.
#[test]
fn encoder_matches_prost_on_edge_values() {
    use onnx_runtime_types::{
        AttributeProto, GraphProto, NodeProto, StringStringEntryProto, TensorProto,
    };
    let long = "n".repeat(300);
    let attributes = vec![
        AttributeProto {
            name: Some(String::new()),
            f: Some(f32::NAN),
            i: Some(i64::MIN),
            s: Some(long.clone().into_bytes()),
            floats: vec![-0.0, f32::INFINITY, 1.5],
            ints: vec![-1, 0, i64::MAX, 300],
            strings: vec![Vec::new(), b"x".to_vec(), long.clone().into_bytes()],
            doc_string: Some("doc".into()),
            r#type: Some(-7),
            ref_attr_name: Some("r".into()),
            ..AttributeProto::default()
        },
        AttributeProto {
            name: Some("i".into()),
            i: Some(-1),
            r#type: Some(2),
            ..AttributeProto::default()
        },
        AttributeProto {
            name: Some("t".into()),
            t: Some(Box::new(TensorProto {
                dims: vec![1],
                float_data: vec![2.0],
                data_type: Some(1),
                ..TensorProto::default()
            })),
            r#type: Some(4),
            ..AttributeProto::default()
        },
    ];
    let plain = NodeProto {
        input: vec![String::new(), long.clone()],
        output: vec!["y".into()],
        name: Some(String::new()),
        op_type: Some("Op".into()),
        attribute: attributes,
        doc_string: Some(long),
        domain: Some("d".into()),
        overload: Some("o".into()),
        ..NodeProto::default()
    };
    let with_metadata = NodeProto {
        metadata_props: vec![StringStringEntryProto {
            key: Some("k".into()),
            value: Some("v".into()),
        }],
        ..plain.clone()
    };
    let graph = GraphProto {
        name: Some("g".into()),
        node: vec![plain, with_metadata, NodeProto::default()],
        ..GraphProto::default()
    };
    let expected = graph.encode_to_vec();
    assert!(Proto::Graph(graph).encode() == expected);
}
