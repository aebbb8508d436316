//! The protobuf bytes of a model or graph, as prost writes them, without prost's repeated
//! measuring of nested messages. The fields of models, graphs, nodes and attributes are written
//! here in field-number order, as prost's generated `encode_raw` writes them.
//!
//! prost writes a nested message after its length, and finds the length by walking the message.
//! The walk happens again at every level of nesting: a node of a model's graph is measured for
//! the model, again for the graph, and again for itself, and its attributes once more. In the
//! macros, which the default dev profile builds without optimization, that measuring was half of
//! the encoding time of a big literal. Here the graph is written to a buffer of its own, each node
//! and attribute too, so their lengths are known once written. The fields of nodes and of
//! attributes without message values are written here (prost's general code costs several times
//! as much without optimization), the rest by prost; the bytes are prost's (tests check this on
//! the whole conformance corpus and on edge values).
//!
//! The bytes are written through [`Writer`], whose single-byte writes are plain pushes: through
//! a `Vec<u8>`, prost writes each byte of every key and length as a one-byte slice copy, hundreds
//! of instructions each without optimization.
//!
//! This uses prost's low-level encoding functions (`encode_raw`, `prost::encoding`), which are
//! hidden from its documentation but are what every generated message calls.

use onnx_runtime_types::{AttributeProto, GraphProto, ModelProto, NodeProto};
use prost::Message;
use prost::bytes::BufMut;
use prost::bytes::buf::UninitSlice;
use prost::encoding::{
    WireType, encode_key, encode_varint, encoded_len_varint, int64, key_len, message, string,
};

/// The bytes of `model`, the same as `model.encode_to_vec()`. It takes a reference, so that the
/// macros can encode a big literal on one thread while its shapes are checked on another.
///
/// The bytes are written once, to a buffer of their final size: the fields are measured first
/// (the nodes are written, the rest measured as prost measures it, which for tensors is a few
/// additions each). A buffer grown as it is written, and a graph written apart and then copied
/// into the model, took three more copies of the weights, each into memory new to the process,
/// which is most of the time of a 100 MB model.
pub(crate) fn model(model: &ModelProto) -> Vec<u8> {
    let Some(graph) = &model.graph else {
        return model.encode_to_vec();
    };
    let nodes = nodes(&graph.node);
    let mut size = Measure(0);
    model_fields(model, &nodes, &mut size);
    let mut bytes = Writer(Vec::with_capacity(size.0));
    model_fields(model, &nodes, &mut bytes);
    debug_assert_eq!(bytes.0.len(), size.0, "the model was measured as written");
    bytes.0
}

/// The fields of `model` in field-number order, as prost writes them, its graph's nodes already
/// written as `nodes`.
fn model_fields(model: &ModelProto, nodes: &[u8], out: &mut impl Fields) {
    // Every field named, so that a field added to onnx.proto is a compile error here rather
    // than one this encoder leaves out.
    let ModelProto {
        ir_version,
        producer_name,
        producer_version,
        domain,
        model_version,
        doc_string,
        graph,
        opset_import,
        metadata_props,
        training_info,
        functions,
        configuration,
    } = model;
    out.int64(1, ir_version);
    out.text(2, producer_name);
    out.text(3, producer_version);
    out.text(4, domain);
    out.int64(5, model_version);
    out.text(6, doc_string);
    if let Some(graph) = graph {
        out.graph(7, graph, nodes);
    }
    out.messages(8, opset_import);
    out.messages(14, metadata_props);
    out.messages(20, training_info);
    out.messages(25, functions);
    out.messages(26, configuration);
}

/// The bytes of `graph`, the same as `graph.encode_to_vec()`, written once as for a model.
pub(crate) fn graph(graph: &GraphProto) -> Vec<u8> {
    let nodes = nodes(&graph.node);
    let mut size = Measure(nodes.len());
    graph_rest(graph, &mut size);
    let mut bytes = Writer(Vec::with_capacity(size.0));
    bytes.put_slice(&nodes);
    graph_rest(graph, &mut bytes);
    debug_assert_eq!(bytes.0.len(), size.0, "the graph was measured as written");
    bytes.0
}

/// The nodes of a graph (field 1), written by hand, each to a buffer of its own so that its
/// length is known once written.
fn nodes(nodes: &[NodeProto]) -> Vec<u8> {
    let mut bytes = Writer(Vec::with_capacity(64 * nodes.len()));
    let (mut node_bytes, mut scratch) = (Writer(Vec::new()), Writer(Vec::new()));
    for node in nodes {
        node_bytes.0.clear();
        self::node(node, &mut node_bytes, &mut scratch);
        length_delimited(1, &node_bytes.0, &mut bytes);
    }
    bytes.0
}

/// The fields of `graph` after its nodes, in field-number order, as prost writes them.
fn graph_rest(graph: &GraphProto, out: &mut impl Fields) {
    // Every field named, as for the model.
    let GraphProto {
        node: _,
        name,
        initializer,
        doc_string,
        input,
        output,
        value_info,
        quantization_annotation,
        sparse_initializer,
        metadata_props,
    } = graph;
    out.text(2, name);
    out.messages(5, initializer);
    out.text(10, doc_string);
    out.messages(11, input);
    out.messages(12, output);
    out.messages(13, value_info);
    out.messages(14, quantization_annotation);
    out.messages(15, sparse_initializer);
    out.messages(16, metadata_props);
}

/// Where the fields of a model or graph go: written, or only measured. Each list of fields is
/// written once ([`model_fields`], [`graph_rest`]) for both, so that the size measured is the
/// size written.
trait Fields {
    fn int64(&mut self, field: u32, value: &Option<i64>);
    fn text(&mut self, field: u32, value: &Option<String>);
    fn messages<M: Message>(&mut self, field: u32, messages: &[M]);
    /// A graph whose nodes are written as `nodes`.
    fn graph(&mut self, field: u32, graph: &GraphProto, nodes: &[u8]);
}

/// The length of the fields given, in bytes.
struct Measure(usize);

impl Fields for Measure {
    fn int64(&mut self, field: u32, value: &Option<i64>) {
        self.0 += value.as_ref().map_or(0, |v| int64::encoded_len(field, v));
    }

    fn text(&mut self, field: u32, value: &Option<String>) {
        self.0 += value.as_ref().map_or(0, |v| string::encoded_len(field, v));
    }

    fn messages<M: Message>(&mut self, field: u32, messages: &[M]) {
        self.0 += message::encoded_len_repeated(field, messages);
    }

    fn graph(&mut self, field: u32, graph: &GraphProto, nodes: &[u8]) {
        let length = graph_length(graph, nodes);
        self.0 += key_len(field) + encoded_len_varint(length as u64) + length;
    }
}

impl Fields for Writer {
    fn int64(&mut self, field: u32, value: &Option<i64>) {
        if let Some(value) = value {
            int64::encode(field, value, self);
        }
    }

    fn text(&mut self, field: u32, value: &Option<String>) {
        optional_string(field, value, self);
    }

    fn messages<M: Message>(&mut self, field: u32, messages: &[M]) {
        message::encode_repeated(field, messages, self);
    }

    fn graph(&mut self, field: u32, graph: &GraphProto, nodes: &[u8]) {
        key(field, WireType::LengthDelimited, self);
        encode_varint(graph_length(graph, nodes) as u64, self);
        self.put_slice(nodes);
        graph_rest(graph, self);
    }
}

/// The length of `graph` encoded, its nodes written as `nodes`.
fn graph_length(graph: &GraphProto, nodes: &[u8]) -> usize {
    let mut size = Measure(nodes.len());
    graph_rest(graph, &mut size);
    size.0
}

/// Appends the fields of `node`, as `node.encode_raw` does: its attributes are written once
/// each (to `scratch`, then copied) instead of measured first, and the fields of a plain node are
/// written here, for a fraction of what prost's general code costs without optimization.
fn node(node: &NodeProto, bytes: &mut Writer, scratch: &mut Writer) {
    if !node.metadata_props.is_empty() || !node.device_configurations.is_empty() {
        return node.encode_raw(bytes);
    }
    // `NodeProto`'s fields in onnx.proto, written in field-number order as prost does.
    for input in &node.input {
        string(1, input, bytes);
    }
    for output in &node.output {
        string(2, output, bytes);
    }
    optional_string(3, &node.name, bytes);
    optional_string(4, &node.op_type, bytes);
    for attribute in &node.attribute {
        scratch.0.clear();
        self::attribute(attribute, scratch);
        length_delimited(5, &scratch.0, bytes);
    }
    optional_string(6, &node.doc_string, bytes);
    optional_string(7, &node.domain, bytes);
    optional_string(8, &node.overload, bytes);
}

/// Appends the fields of `attribute`, as `attribute.encode_raw` does. Values that are messages
/// (tensors, graphs, types) are left to prost.
fn attribute(attribute: &AttributeProto, bytes: &mut Writer) {
    let holds_messages = attribute.t.is_some()
        || attribute.g.is_some()
        || attribute.tp.is_some()
        || attribute.sparse_tensor.is_some()
        || !attribute.tensors.is_empty()
        || !attribute.graphs.is_empty()
        || !attribute.type_protos.is_empty()
        || !attribute.sparse_tensors.is_empty();
    if holds_messages {
        return attribute.encode_raw(bytes);
    }
    // `AttributeProto`'s fields in onnx.proto, in field-number order.
    optional_string(1, &attribute.name, bytes);
    if let Some(f) = attribute.f {
        key(2, WireType::ThirtyTwoBit, bytes);
        bytes.put_slice(&f.to_le_bytes());
    }
    if let Some(i) = attribute.i {
        key(3, WireType::Varint, bytes);
        encode_varint(i as u64, bytes);
    }
    if let Some(s) = &attribute.s {
        length_delimited(4, s, bytes);
    }
    for f in &attribute.floats {
        key(7, WireType::ThirtyTwoBit, bytes);
        bytes.put_slice(&f.to_le_bytes());
    }
    for &i in &attribute.ints {
        key(8, WireType::Varint, bytes);
        encode_varint(i as u64, bytes);
    }
    for s in &attribute.strings {
        length_delimited(9, s, bytes);
    }
    optional_string(13, &attribute.doc_string, bytes);
    if let Some(ty) = attribute.r#type {
        key(20, WireType::Varint, bytes);
        // An enum is an `int32`: a negative one is sign-extended to ten bytes.
        encode_varint(i64::from(ty) as u64, bytes);
    }
    optional_string(21, &attribute.ref_attr_name, bytes);
}

/// Appends field `field` holding `text`.
fn string(field: u32, text: &str, bytes: &mut Writer) {
    length_delimited(field, text.as_bytes(), bytes);
}

/// Appends field `field` holding `text`, if set (an empty text is set).
fn optional_string(field: u32, text: &Option<String>, bytes: &mut Writer) {
    if let Some(text) = text {
        string(field, text, bytes);
    }
}

/// Appends the key of field `field`: a single push for the fields below 16.
fn key(field: u32, wire_type: WireType, bytes: &mut Writer) {
    if field < 16 {
        bytes.put_u8((field << 3) as u8 | wire_type as u8);
    } else {
        encode_key(field, wire_type, bytes);
    }
}

/// Appends field `field` holding the encoded message `message`.
fn length_delimited(field: u32, message: &[u8], bytes: &mut Writer) {
    key(field, WireType::LengthDelimited, bytes);
    match u8::try_from(message.len()) {
        Ok(short) if short < 0x80 => bytes.put_u8(short),
        _ => encode_varint(message.len() as u64, bytes),
    }
    bytes.put_slice(message);
}

/// A `Vec<u8>` that takes single bytes as pushes.
struct Writer(Vec<u8>);

// SAFETY: every method is the `Vec<u8>` implementation's, or has the same effect as it.
unsafe impl BufMut for Writer {
    fn remaining_mut(&self) -> usize {
        self.0.remaining_mut()
    }

    unsafe fn advance_mut(&mut self, count: usize) {
        // SAFETY: the caller's guarantees are the same for the vector.
        unsafe { self.0.advance_mut(count) }
    }

    fn chunk_mut(&mut self) -> &mut UninitSlice {
        self.0.chunk_mut()
    }

    fn put_u8(&mut self, byte: u8) {
        self.0.push(byte);
    }

    fn put_slice(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }
}
