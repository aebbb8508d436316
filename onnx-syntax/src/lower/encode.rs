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
use prost::encoding::{WireType, encode_key, encode_varint, int64, message, string};

/// The bytes of `model`, the same as `model.encode_to_vec()`. It takes a reference, so that the
/// macros can encode a big literal on one thread while its shapes are checked on another.
pub(crate) fn model(model: &ModelProto) -> Vec<u8> {
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
    let Some(graph) = graph else {
        return model.encode_to_vec();
    };
    let graph = self::graph(graph);
    let mut bytes = Writer(Vec::with_capacity(graph.len() + 256));
    // In field-number order, as prost writes them; only the graph is written by hand.
    if let Some(value) = ir_version {
        int64::encode(1, value, &mut bytes);
    }
    if let Some(value) = producer_name {
        string::encode(2, value, &mut bytes);
    }
    if let Some(value) = producer_version {
        string::encode(3, value, &mut bytes);
    }
    if let Some(value) = domain {
        string::encode(4, value, &mut bytes);
    }
    if let Some(value) = model_version {
        int64::encode(5, value, &mut bytes);
    }
    if let Some(value) = doc_string {
        string::encode(6, value, &mut bytes);
    }
    length_delimited(7, &graph, &mut bytes);
    message::encode_repeated(8, opset_import, &mut bytes);
    message::encode_repeated(14, metadata_props, &mut bytes);
    message::encode_repeated(20, training_info, &mut bytes);
    message::encode_repeated(25, functions, &mut bytes);
    message::encode_repeated(26, configuration, &mut bytes);
    bytes.0
}

/// The bytes of `graph`, the same as `graph.encode_to_vec()`.
pub(crate) fn graph(graph: &GraphProto) -> Vec<u8> {
    // Every field named, as for the model.
    let GraphProto {
        node: nodes,
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
    let mut bytes = Writer(Vec::with_capacity(64 * nodes.len() + 256));
    // In field-number order, as prost writes them: the nodes (field 1) by hand, each to a buffer
    // of its own so that its length is known once written.
    let (mut node_bytes, mut scratch) = (Writer(Vec::new()), Writer(Vec::new()));
    for node in nodes {
        node_bytes.0.clear();
        self::node(node, &mut node_bytes, &mut scratch);
        length_delimited(1, &node_bytes.0, &mut bytes);
    }
    if let Some(value) = name {
        string::encode(2, value, &mut bytes);
    }
    message::encode_repeated(5, initializer, &mut bytes);
    if let Some(value) = doc_string {
        string::encode(10, value, &mut bytes);
    }
    message::encode_repeated(11, input, &mut bytes);
    message::encode_repeated(12, output, &mut bytes);
    message::encode_repeated(13, value_info, &mut bytes);
    message::encode_repeated(14, quantization_annotation, &mut bytes);
    message::encode_repeated(15, sparse_initializer, &mut bytes);
    message::encode_repeated(16, metadata_props, &mut bytes);
    bytes.0
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
