//! The protobuf bytes of a model or graph, as prost writes them, without prost's repeated
//! measuring of nested messages.
//!
//! prost writes a nested message after its length, and finds the length by walking the message.
//! The walk happens again at every level of nesting: a node of a model's graph is measured for
//! the model, again for the graph, and again for itself, and its attributes once more. In the
//! macros, which the default dev profile builds without optimization, that measuring was half of
//! the encoding time of a big literal. Here the graph is written to a buffer of its own, each node
//! too, so their lengths are known once written; prost still writes every field, so the bytes are
//! prost's (a test checks this on the whole conformance corpus).
//!
//! The bytes are written through [`Writer`], whose single-byte writes are plain pushes: through
//! a `Vec<u8>`, prost writes each byte of every key and length as a one-byte slice copy, hundreds
//! of instructions each without optimization.
//!
//! This uses prost's low-level encoding functions (`encode_raw`, `prost::encoding`), which are
//! hidden from its documentation but are what every generated message calls.

use onnx_runtime_types::{GraphProto, ModelProto};
use prost::Message;
use prost::bytes::buf::UninitSlice;
use prost::bytes::{Buf, BufMut};
use prost::encoding::{WireType, decode_key, decode_varint, encode_key, encode_varint};

/// `ModelProto.graph` in onnx.proto.
const MODEL_GRAPH: u32 = 7;
/// `GraphProto.node` in onnx.proto.
const GRAPH_NODE: u32 = 1;

/// The bytes of `model`, the same as `model.encode_to_vec()`.
pub(crate) fn model(mut model: ModelProto) -> Vec<u8> {
    let Some(graph) = model.graph.take() else {
        return model.encode_to_vec();
    };
    let rest = model.encode_to_vec();
    // prost writes fields in field-number order: the graph goes between the fields numbered below
    // it and the others.
    let Some(split) = fields_before(&rest, MODEL_GRAPH) else {
        // prost's bytes always decode; should they not, prost's own encoding is still right.
        model.graph = Some(graph);
        return model.encode_to_vec();
    };
    let graph = self::graph(graph);
    let mut bytes = Writer(Vec::with_capacity(rest.len() + graph.len() + 8));
    bytes.put_slice(&rest[..split]);
    length_delimited(MODEL_GRAPH, &graph, &mut bytes);
    bytes.put_slice(&rest[split..]);
    bytes.0
}

/// The bytes of `graph`, the same as `graph.encode_to_vec()`.
pub(crate) fn graph(mut graph: GraphProto) -> Vec<u8> {
    let nodes = std::mem::take(&mut graph.node);
    let rest = graph.encode_to_vec();
    let Some(split) = fields_before(&rest, GRAPH_NODE) else {
        graph.node = nodes;
        return graph.encode_to_vec();
    };
    let mut bytes = Writer(Vec::with_capacity(rest.len() + 64 * nodes.len()));
    bytes.put_slice(&rest[..split]);
    let mut node_bytes = Writer(Vec::new());
    for node in &nodes {
        node_bytes.0.clear();
        node.encode_raw(&mut node_bytes);
        length_delimited(GRAPH_NODE, &node_bytes.0, &mut bytes);
    }
    bytes.put_slice(&rest[split..]);
    bytes.0
}

/// Appends field `field` holding the encoded message `message`.
fn length_delimited(field: u32, message: &[u8], bytes: &mut Writer) {
    encode_key(field, WireType::LengthDelimited, bytes);
    encode_varint(message.len() as u64, bytes);
    bytes.put_slice(message);
}

/// The length of the leading fields of an encoded message whose numbers are below `field`, or
/// `None` if the bytes do not decode.
fn fields_before(message: &[u8], field: u32) -> Option<usize> {
    let mut rest = message;
    while !rest.is_empty() {
        let before = rest;
        let (number, wire_type) = decode_key(&mut rest).ok()?;
        if number >= field {
            return Some(message.len() - before.len());
        }
        let skip = match wire_type {
            WireType::Varint => decode_varint(&mut rest).map(|_| 0).ok()?,
            WireType::SixtyFourBit => 8,
            WireType::ThirtyTwoBit => 4,
            WireType::LengthDelimited => usize::try_from(decode_varint(&mut rest).ok()?).ok()?,
            // onnx.proto has no groups.
            WireType::StartGroup | WireType::EndGroup => return None,
        };
        if skip > rest.len() {
            return None;
        }
        rest.advance(skip);
    }
    Some(message.len())
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
