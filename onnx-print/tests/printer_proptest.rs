//! Property tests of the printer.
//!
//! * Round trip: for generated messages in the subset the syntax can express (every field the
//!   parser can set, set the way the parser sets it), `parse(to_text(m))` encodes to the same
//!   bytes as `m`.
//! * No panics: for generated messages with anything in them (unknown enum numbers, missing
//!   fields, random `raw_data`, odd dims), both styles print without panicking.
//!
//! Case counts are kept modest so that the suite stays fast on two cores.

use onnx_print::{Style, to_text, to_text_with};
use onnx_runtime_types::prost::Message;
use onnx_runtime_types::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
    StringStringEntryProto, TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
    tensor_shape_proto::{Dimension, dimension},
    type_proto,
};
use onnx_syntax::dtype::{ELEM_TYPES, Storage, elem_type_by_number};
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------------
// Names and scalars

/// Any name: quoted where needed, with quotes, backslashes, spaces and non-ASCII text.
fn any_name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-zA-Z_][a-zA-Z0-9_]{0,6}",
        1 => "[a-z \"\\\\./#:é\\n]{0,6}",
        1 => Just(String::new()),
        1 => prop::sample::select(vec!["float", "seq", "map", "opaque", "inf", "nan", "int64"])
            .prop_map(str::to_owned),
    ]
}

/// A plain identifier (attribute names, op types: positions where quotes are not allowed).
fn identifier() -> impl Strategy<Value = String> {
    "[a-zA-Z_][a-zA-Z0-9_]{0,6}"
}

/// The name of a graph that is an attribute value: an identifier that does not read as a type or
/// a float word.
fn graph_attribute_name() -> impl Strategy<Value = String> {
    "g_[a-z0-9_]{0,5}"
}

/// Bytes of a string value: UTF-8 text.
fn text_bytes() -> impl Strategy<Value = Vec<u8>> {
    "[a-z \"\\\\é#\\n]{0,6}".prop_map(String::into_bytes)
}

/// Floats the parser can produce: anything but NaN payloads (NaN reads back as the quiet NaN).
fn any_f32() -> impl Strategy<Value = f32> {
    prop_oneof![
        6 => any::<f32>().prop_filter("no NaN payloads", |v| !v.is_nan()),
        1 => prop::sample::select(vec![f32::NAN, -f32::NAN, f32::INFINITY, -0.0, 1e-45, 1.5e6]),
    ]
}

fn any_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        6 => any::<f64>().prop_filter("no NaN payloads", |v| !v.is_nan()),
        1 => prop::sample::select(vec![f64::NAN, -f64::NAN, f64::NEG_INFINITY, -0.0, 5e-324]),
    ]
}

fn elem_type() -> impl Strategy<Value = i32> {
    1..=ELEM_TYPES.len() as i32
}

fn string_pairs() -> impl Strategy<Value = Vec<StringStringEntryProto>> {
    vec((any_name(), any_name()), 0..3).prop_map(|pairs| {
        pairs
            .into_iter()
            .map(|(k, v)| StringStringEntryProto {
                key: Some(k),
                value: Some(v),
            })
            .collect()
    })
}

fn opsets() -> impl Strategy<Value = Vec<OperatorSetIdProto>> {
    vec((any_name(), any::<i64>()), 0..3).prop_map(|list| {
        list.into_iter()
            .map(|(domain, version)| OperatorSetIdProto {
                domain: Some(domain),
                version: Some(version),
            })
            .collect()
    })
}

// ---------------------------------------------------------------------------------------------
// Types

fn shape() -> impl Strategy<Value = Option<TensorShapeProto>> {
    let dim = prop_oneof![
        any::<i64>().prop_map(|v| Some(dimension::Value::DimValue(v))),
        any_name().prop_map(|p| Some(dimension::Value::DimParam(p))),
        Just(None),
    ];
    option::of(vec(dim, 0..4).prop_map(|dims| {
        TensorShapeProto {
            dim: dims
                .into_iter()
                .map(|value| Dimension {
                    value,
                    ..Dimension::default()
                })
                .collect(),
        }
    }))
}

fn dotted() -> impl Strategy<Value = String> {
    vec(identifier(), 1..3).prop_map(|parts| parts.join("."))
}

fn wrap(value: type_proto::Value) -> TypeProto {
    TypeProto {
        value: Some(value),
        ..TypeProto::default()
    }
}

fn type_proto() -> impl Strategy<Value = TypeProto> {
    let leaf = prop_oneof![
        4 => (elem_type(), shape()).prop_map(|(elem_type, shape)| {
            type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(elem_type),
                shape,
            })
        }),
        1 => (elem_type(), shape()).prop_map(|(elem_type, shape)| {
            type_proto::Value::SparseTensorType(type_proto::SparseTensor {
                elem_type: Some(elem_type),
                shape,
            })
        }),
        1 => prop_oneof![
            Just(type_proto::Opaque::default()),
            dotted().prop_map(|name| type_proto::Opaque { domain: None, name: Some(name) }),
            (dotted(), identifier()).prop_map(|(domain, name)| type_proto::Opaque {
                domain: Some(domain),
                name: Some(name),
            }),
        ]
        .prop_map(type_proto::Value::OpaqueType),
    ];
    leaf.prop_map(wrap).prop_recursive(3, 8, 2, move |inner| {
        prop_oneof![
            inner
                .clone()
                .prop_map(|t| wrap(type_proto::Value::SequenceType(Box::new(
                    type_proto::Sequence {
                        elem_type: Some(Box::new(t)),
                    }
                )))),
            inner
                .clone()
                .prop_map(|t| wrap(type_proto::Value::OptionalType(Box::new(
                    type_proto::Optional {
                        elem_type: Some(Box::new(t)),
                    }
                )))),
            (elem_type(), inner).prop_map(|(key, t)| wrap(type_proto::Value::MapType(Box::new(
                type_proto::Map {
                    key_type: Some(key),
                    value_type: Some(Box::new(t)),
                }
            )))),
        ]
    })
}

fn value_info() -> impl Strategy<Value = ValueInfoProto> {
    (any_name(), option::of(type_proto())).prop_map(|(name, ty)| ValueInfoProto {
        name: Some(name),
        r#type: ty,
        ..ValueInfoProto::default()
    })
}

// ---------------------------------------------------------------------------------------------
// Tensors

/// A tensor as the parser makes it: type, numeric dims, a name, and data in the field of its
/// element type, or external data, or none.
fn tensor(name: BoxedStrategy<String>) -> impl Strategy<Value = TensorProto> {
    (elem_type(), vec(-1i64..5, 0..3), name, 0..8usize, 0..6u8).prop_flat_map(
        |(data_type, dims, name, len, data_kind)| {
            let base = TensorProto {
                data_type: Some(data_type),
                dims,
                name: Some(name),
                ..TensorProto::default()
            };
            let storage = elem_type_by_number(data_type).map(|t| t.storage);
            let with = move |f: fn(&mut TensorProto, Values)| {
                let base = base.clone();
                move |values: Values| {
                    let mut t = base.clone();
                    f(&mut t, values);
                    t
                }
            };
            let values: BoxedStrategy<Values> = match storage {
                _ if data_kind == 0 => Just(Values::None).boxed(),
                _ if data_kind == 1 => string_pairs()
                    .prop_filter("external data has entries", |p| !p.is_empty())
                    .prop_map(Values::External)
                    .boxed(),
                Some(Storage::Int32) => vec(any::<i32>(), len).prop_map(Values::Int32).boxed(),
                Some(Storage::Int64) => vec(any::<i64>(), len).prop_map(Values::Int64).boxed(),
                Some(Storage::Uint64) => vec(any::<u64>(), len).prop_map(Values::Uint64).boxed(),
                Some(Storage::Float) => vec(any_f32(), len).prop_map(Values::Float).boxed(),
                Some(Storage::Double) => vec(any_f64(), len).prop_map(Values::Double).boxed(),
                Some(Storage::String) | None => {
                    vec(text_bytes(), len).prop_map(Values::String).boxed()
                }
            };
            values.prop_map(with(Values::store))
        },
    )
}

#[derive(Clone, Debug)]
enum Values {
    None,
    External(Vec<StringStringEntryProto>),
    Int32(Vec<i32>),
    Int64(Vec<i64>),
    Uint64(Vec<u64>),
    Float(Vec<f32>),
    Double(Vec<f64>),
    String(Vec<Vec<u8>>),
}

impl Values {
    fn store(t: &mut TensorProto, values: Values) {
        match values {
            Values::None => {}
            Values::External(entries) => {
                t.external_data = entries;
                t.data_location = Some(1);
            }
            Values::Int32(v) => t.int32_data = v,
            Values::Int64(v) => t.int64_data = v,
            Values::Uint64(v) => t.uint64_data = v,
            Values::Float(v) => t.float_data = v,
            Values::Double(v) => t.double_data = v,
            Values::String(v) => t.string_data = v,
        }
    }
}

fn attribute_tensor() -> impl Strategy<Value = TensorProto> {
    tensor(prop_oneof![Just(String::new()), identifier()].boxed())
}

fn initializer() -> impl Strategy<Value = TensorProto> {
    tensor(any_name().boxed())
}

// ---------------------------------------------------------------------------------------------
// Attributes, nodes, graphs, functions, models

/// An attribute value as the parser makes it. `graph` generates nested graphs.
fn attribute(graph: BoxedStrategy<GraphProto>) -> impl Strategy<Value = AttributeProto> {
    let base = |name: String, ty: i32| AttributeProto {
        name: Some(name),
        r#type: Some(ty),
        ..AttributeProto::default()
    };
    let value = prop_oneof![
        any::<i64>().prop_map(move |i| AttributeProto {
            i: Some(i),
            ..base(String::new(), 2)
        }),
        any_f32().prop_map(move |f| AttributeProto {
            f: Some(f),
            ..base(String::new(), 1)
        }),
        text_bytes().prop_map(move |s| AttributeProto {
            s: Some(s),
            ..base(String::new(), 3)
        }),
        vec(any::<i64>(), 0..4).prop_map(move |ints| AttributeProto {
            ints,
            ..base(String::new(), 7)
        }),
        vec(any_f32(), 0..4).prop_map(move |floats| AttributeProto {
            floats,
            ..base(String::new(), 6)
        }),
        vec(text_bytes(), 0..3).prop_map(move |strings| AttributeProto {
            strings,
            ..base(String::new(), 8)
        }),
        attribute_tensor().prop_map(move |t| AttributeProto {
            t: Some(Box::new(t)),
            ..base(String::new(), 4)
        }),
        vec(attribute_tensor(), 0..3).prop_map(move |tensors| AttributeProto {
            tensors,
            ..base(String::new(), 9)
        }),
        type_proto().prop_map(move |tp| AttributeProto {
            tp: Some(Box::new(tp)),
            ..base(String::new(), 13)
        }),
        vec(type_proto(), 0..3).prop_map(move |type_protos| AttributeProto {
            type_protos,
            ..base(String::new(), 14)
        }),
        graph.clone().prop_map(move |g| AttributeProto {
            g: Some(Box::new(g)),
            ..base(String::new(), 5)
        }),
        vec(graph, 0..3).prop_map(move |graphs| AttributeProto {
            graphs,
            ..base(String::new(), 10)
        }),
        Just(base(String::new(), 12)), // sparse_tensors = []
        (option::of(1..=14i32), any_name()).prop_map(|(ty, target)| AttributeProto {
            r#type: ty,
            ref_attr_name: Some(target),
            ..AttributeProto::default()
        }),
    ];
    (identifier(), value).prop_map(|(name, mut attr)| {
        attr.name = Some(name);
        attr
    })
}

fn node(graph: BoxedStrategy<GraphProto>) -> impl Strategy<Value = NodeProto> {
    (
        option::of(any_name()),
        vec(any_name(), 0..3),
        vec(any_name(), 0..3),
        prop_oneof![Just(String::new()), dotted()],
        prop_oneof![1 => Just(String::new()), 6 => identifier()],
        option::of(identifier()),
        vec(attribute(graph), 0..3),
    )
        .prop_map(
            |(name, input, output, domain, op_type, overload, attribute)| NodeProto {
                name,
                input,
                output,
                // `a.b.` cannot be written: an empty op type has no domain.
                op_type: Some(if domain.is_empty() {
                    op_type
                } else {
                    format!("{op_type}X")
                }),
                domain: Some(domain),
                overload,
                attribute,
                ..NodeProto::default()
            },
        )
}

/// A graph with the given name strategy; attribute graphs nest up to `depth` levels.
fn graph_named(name: BoxedStrategy<String>, depth: u32) -> BoxedStrategy<GraphProto> {
    let nested = if depth == 0 {
        // No graph attributes at the bottom: an empty graphs list is all that is left.
        Just(GraphProto {
            name: Some("g_leaf".into()),
            ..GraphProto::default()
        })
        .boxed()
    } else {
        graph_named(graph_attribute_name().boxed(), depth - 1)
    };
    (
        name,
        vec(value_info(), 0..3),
        vec(value_info(), 0..3),
        vec(initializer(), 0..2),
        vec(value_info(), 0..2),
        vec(node(nested), 0..3),
    )
        .prop_map(
            |(name, input, output, initializer, value_info, node)| GraphProto {
                name: Some(name),
                input,
                output,
                initializer,
                value_info,
                node,
                ..GraphProto::default()
            },
        )
        .boxed()
}

fn graph() -> BoxedStrategy<GraphProto> {
    graph_named(any_name().boxed(), 1)
}

/// A function attribute with a default, or a typed one without.
fn function_attribute() -> impl Strategy<Value = AttributeProto> {
    prop_oneof![
        3 => (any_name(), attribute(graph_named(graph_attribute_name().boxed(), 0))).prop_map(
            |(name, mut attr)| {
                attr.name = Some(name);
                attr
            }
        ),
        1 => (any_name(), prop::sample::select(vec![1, 2, 3, 4, 5, 11, 13])).prop_map(
            |(name, ty)| AttributeProto {
                name: Some(name),
                r#type: Some(ty),
                ..AttributeProto::default()
            }
        ),
    ]
}

fn function() -> impl Strategy<Value = FunctionProto> {
    (
        (
            any_name(),
            option::of(any_name()),
            option::of(any_name()),
            option::of(any_name()),
            opsets(),
        ),
        vec(any_name(), 0..3),
        vec(function_attribute(), 0..3),
        vec(any_name(), 0..3),
        vec(any_name(), 0..3),
        vec(value_info(), 0..4),
        vec(node(graph_named(graph_attribute_name().boxed(), 0)), 0..3),
    )
        .prop_map(
            |(
                (name, domain, overload, doc_string, opset_import),
                attribute,
                attribute_proto,
                input,
                output,
                value_info,
                node,
            )| FunctionProto {
                name: Some(name),
                domain,
                overload,
                doc_string,
                opset_import,
                attribute,
                attribute_proto,
                input,
                output,
                value_info,
                node,
                ..FunctionProto::default()
            },
        )
}

/// Function value infos that start with the names of its inputs, as typed inputs give.
fn function_with_typed_io() -> impl Strategy<Value = FunctionProto> {
    (function(), vec(type_proto(), 0..3)).prop_map(|(mut f, types)| {
        let typed: Vec<ValueInfoProto> = f
            .input
            .iter()
            .chain(&f.output)
            .zip(types)
            .map(|(name, ty)| ValueInfoProto {
                name: Some(name.clone()),
                r#type: Some(ty),
                ..ValueInfoProto::default()
            })
            .collect();
        f.value_info.splice(0..0, typed);
        f
    })
}

fn model() -> impl Strategy<Value = ModelProto> {
    (
        (
            option::of(any::<i64>()),
            opsets(),
            option::of(any_name()),
            option::of(any_name()),
            option::of(any_name()),
            option::of(any::<i64>()),
            option::of(any_name()),
            string_pairs(),
        ),
        graph(),
        vec(function(), 0..2),
    )
        .prop_map(
            |(
                (
                    ir_version,
                    opset_import,
                    producer_name,
                    producer_version,
                    domain,
                    model_version,
                    doc_string,
                    metadata_props,
                ),
                graph,
                functions,
            )| ModelProto {
                ir_version,
                opset_import,
                producer_name,
                producer_version,
                domain,
                model_version,
                doc_string,
                metadata_props,
                graph: Some(graph),
                functions,
                ..ModelProto::default()
            },
        )
}

// ---------------------------------------------------------------------------------------------
// Round trips

fn check_round_trip<M: Message + Default>(
    message: &M,
    text: &str,
    parsed: Result<M, onnx_syntax::ParseError>,
) -> Result<(), TestCaseError> {
    match parsed {
        Ok(parsed) => {
            prop_assert_eq!(
                parsed.encode_to_vec(),
                message.encode_to_vec(),
                "the text reads back differently:\n{}",
                text
            );
            Ok(())
        }
        Err(e) => Err(TestCaseError::fail(format!("{e}\nin:\n{text}"))),
    }
}

/// `n`, or `PROPTEST_CASES` when set (to run more cases by hand).
fn cases(n: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(n)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(256), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn models_round_trip(m in model()) {
        let text = to_text(&m);
        check_round_trip(&m, &text, onnx_syntax::parse_model(&text))?;
    }

    #[test]
    fn functions_round_trip(f in function_with_typed_io()) {
        let text = to_text(&f);
        check_round_trip(&f, &text, onnx_syntax::parse_function(&text))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(512), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn nodes_round_trip(n in node(graph_named(graph_attribute_name().boxed(), 1))) {
        let text = to_text(&n);
        check_round_trip(&n, &text, onnx_syntax::parse_node(&text))?;
    }

    #[test]
    fn graphs_with_every_tensor_and_type_round_trip(
        initializer in vec(initializer(), 1..4),
        value_info in vec(value_info(), 1..4),
    ) {
        let g = GraphProto {
            name: Some("g".into()),
            initializer,
            value_info,
            ..GraphProto::default()
        };
        let text = to_text(&g);
        check_round_trip(&g, &text, onnx_syntax::parse_graph(&text))?;
    }

    #[test]
    fn floats_print_as_their_shortest_round_trip_text(bits in any::<u32>(), bits64 in any::<u64>()) {
        let (f, d) = (f32::from_bits(bits), f64::from_bits(bits64));
        let node = NodeProto {
            attribute: vec![AttributeProto {
                name: Some("f".into()),
                r#type: Some(1),
                f: Some(f),
                ..AttributeProto::default()
            }],
            ..NodeProto::default()
        };
        let text = to_text(&node);
        let printed = text.split("f: float = ").nth(1).and_then(|t| t.split('>').next()).unwrap_or("");
        if f.is_nan() {
            prop_assert_eq!(printed, if f.is_sign_negative() { "-nan" } else { "nan" });
        } else {
            prop_assert_eq!(printed.parse::<f32>().ok().map(f32::to_bits), Some(bits), "{}", printed);
        }
        let g = GraphProto {
            name: Some("g".into()),
            initializer: vec![TensorProto {
                name: Some("d".into()),
                data_type: Some(11),
                double_data: vec![d],
                ..TensorProto::default()
            }],
            ..GraphProto::default()
        };
        let text = to_text(&g);
        let printed = text.split('{').nth(1).and_then(|t| t.split('}').next()).unwrap_or("");
        if !d.is_nan() {
            prop_assert_eq!(printed.parse::<f64>().ok().map(f64::to_bits), Some(bits64), "{}", printed);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// No panics on anything

/// A tensor with anything in it.
fn wild_tensor() -> impl Strategy<Value = TensorProto> {
    (
        option::of(any::<i32>().prop_map(|t| t % 32)),
        vec(any::<i64>(), 0..4),
        option::of(vec(any::<u8>(), 0..40)),
        option::of(0..3i32),
        vec(any::<i32>(), 0..3),
        vec(any::<f32>(), 0..3),
        vec(vec(any::<u8>(), 0..4), 0..2),
        option::of(any_name()),
    )
        .prop_map(
            |(
                data_type,
                dims,
                raw_data,
                data_location,
                int32_data,
                float_data,
                string_data,
                name,
            )| {
                TensorProto {
                    data_type,
                    dims,
                    raw_data,
                    data_location,
                    int32_data,
                    float_data,
                    string_data,
                    name,
                    ..TensorProto::default()
                }
            },
        )
}

fn wild_attribute() -> impl Strategy<Value = AttributeProto> {
    (
        option::of(any_name()),
        option::of(any::<i32>().prop_map(|t| t % 20)),
        option::of(wild_tensor()),
        option::of(any::<f32>()),
        option::of(vec(any::<u8>(), 0..4)),
        option::of(any_name()),
        prop::bool::ANY,
        vec(wild_tensor(), 0..2),
    )
        .prop_map(
            |(name, r#type, t, f, s, ref_attr_name, with_graph, tensors)| AttributeProto {
                name,
                r#type,
                t: t.map(Box::new),
                f,
                s,
                ref_attr_name,
                g: with_graph.then(Box::default),
                tp: with_graph.then(Box::default),
                tensors,
                ..AttributeProto::default()
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(512), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn anything_prints_without_panicking(
        tensors in vec(wild_tensor(), 0..4),
        attributes in vec(wild_attribute(), 0..4),
        elem in any::<i32>(),
        ir_version in option::of(any::<i64>()),
    ) {
        let weird_type = TypeProto {
            value: Some(type_proto::Value::MapType(Box::new(type_proto::Map {
                key_type: Some(elem),
                value_type: None,
            }))),
            ..TypeProto::default()
        };
        let g = GraphProto {
            initializer: tensors,
            value_info: vec![ValueInfoProto {
                r#type: Some(weird_type),
                ..ValueInfoProto::default()
            }],
            node: vec![NodeProto { attribute: attributes.clone(), ..NodeProto::default() }],
            ..GraphProto::default()
        };
        let f = FunctionProto {
            attribute_proto: attributes,
            value_info: g.value_info.clone(),
            ..FunctionProto::default()
        };
        let m = ModelProto { ir_version, graph: Some(g), functions: vec![f], ..ModelProto::default() };
        for style in [Style::Lossless, Style::Reference] {
            let text = to_text_with(&m, style);
            prop_assert!(text.starts_with("<\n"));
        }
    }

    #[test]
    fn mutated_corpus_messages_print_without_panicking(
        flips in vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
    ) {
        let mut bytes = CORPUS_MODEL.to_vec();
        for (at, value) in flips {
            let i = at.index(bytes.len());
            bytes[i] = value;
        }
        if let Ok(m) = ModelProto::decode(bytes.as_slice()) {
            let _ = to_text_with(&m, Style::Lossless);
            let _ = to_text_with(&m, Style::Reference);
        }
    }
}

/// A model with initializers, nested graphs and attributes of every kind.
const CORPUS_MODEL: &[u8] = include_bytes!("../../tests/corpus/printer/attributes.model.source.pb");
