//! Decoding untrusted bytes: a walk over the wire format that bounds the nesting and the
//! memory the decoded messages would take, before `prost` decodes them.
//!
//! `prost` itself never allocates from a declared length (a length is checked against the
//! bytes present), but its messages are much larger than their encoding: an empty
//! `AttributeProto` is two bytes on the wire and hundreds of bytes decoded, so a few megabytes
//! can ask for gigabytes. The walk adds up what each message and each field will take, and stops
//! at the first limit crossed, without allocating anything itself.

use std::mem::size_of;

use onnx_runtime_types::{
    AttributeProto, DeviceConfigurationProto, FunctionProto, GraphProto, IntIntListEntryProto,
    ModelProto, NodeDeviceConfigurationProto, NodeProto, OperatorSetIdProto, ShardedDimProto,
    ShardingSpecProto, SimpleShardedDimProto, SparseTensorProto, StringStringEntryProto,
    TensorAnnotation, TensorProto, TensorShapeProto, TrainingInfoProto, TypeProto, ValueInfoProto,
    tensor_proto, tensor_shape_proto, type_proto,
};
use prost::Message;

use onnx_syntax::diagnostic::{Diagnostic, DiagnosticKind, Place};
use onnx_syntax::parse::MAX_NESTING;

/// The limits of decoding a binary model.
///
/// ```
/// use onnx_validate::DecodeLimits;
/// let limits = DecodeLimits::default();
/// assert_eq!(limits.depth(), onnx_syntax::parse::MAX_NESTING as usize);
/// assert_eq!(limits.memory(), 1 << 30);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeLimits {
    max_depth: usize,
    max_memory: u64,
}

impl Default for DecodeLimits {
    /// Graphs and types nested at most [`MAX_NESTING`] deep, as in text (so that every model
    /// that decodes prints to text that parses), and 1 GiB of decoded messages beyond twice
    /// the input's size.
    fn default() -> DecodeLimits {
        DecodeLimits {
            max_depth: MAX_NESTING as usize,
            max_memory: 1 << 30,
        }
    }
}

impl DecodeLimits {
    /// The same limits, with graphs and types nested at most `depth` deep (a graph in an
    /// attribute, a type in a sequence, map or optional type, each count one).
    ///
    /// ```
    /// assert_eq!(onnx_validate::DecodeLimits::default().max_depth(4).depth(), 4);
    /// ```
    pub fn max_depth(self, depth: usize) -> DecodeLimits {
        DecodeLimits {
            max_depth: depth,
            ..self
        }
    }

    /// The same limits, with at most `bytes` of decoded messages beyond twice the input's own
    /// size, which any decoding may take (an estimate from above: the size of each message,
    /// each byte of `raw_data` and strings once, eight bytes for each byte of other packed
    /// numbers or scalar fields).
    ///
    /// ```
    /// assert_eq!(onnx_validate::DecodeLimits::default().max_memory(1024).memory(), 1024);
    /// ```
    pub fn max_memory(self, bytes: u64) -> DecodeLimits {
        DecodeLimits {
            max_memory: bytes,
            ..self
        }
    }

    /// The nesting limit.
    ///
    /// ```
    /// assert!(onnx_validate::DecodeLimits::default().depth() > 0);
    /// ```
    pub fn depth(&self) -> usize {
        self.max_depth
    }

    /// The memory limit beyond twice the input's size, in bytes.
    ///
    /// ```
    /// assert!(onnx_validate::DecodeLimits::default().memory() > 0);
    /// ```
    pub fn memory(&self) -> u64 {
        self.max_memory
    }
}

/// Checks `bytes` against `limits`, then decodes them.
pub(super) fn decode(bytes: &[u8], limits: &DecodeLimits) -> Result<ModelProto, Diagnostic> {
    let input = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    let mut walk = Walk {
        depth: limits.max_depth,
        memory_limit: limits.max_memory.saturating_add(input.saturating_mul(2)),
        memory: size_of::<ModelProto>() as u64,
    };
    walk.message(bytes, Kind::Model, 0).map_err(problem)?;
    ModelProto::decode(bytes).map_err(|e| problem(format!("the bytes cannot be decoded: {e}")))
}

/// A problem if graphs and types in `model` (decoded already, or built in memory) nest deeper
/// than `limits` allow, counted as the walk over bytes counts them; an explicit stack, so that
/// no depth overflows ours.
pub(super) fn too_deep(model: &ModelProto, limits: &DecodeLimits) -> Option<Diagnostic> {
    use type_proto::Value;
    enum Item<'a> {
        Graph(&'a GraphProto),
        Type(&'a TypeProto),
    }
    let mut stack: Vec<(Item<'_>, usize)> = Vec::new();
    fn infos(graph: &GraphProto) -> impl Iterator<Item = &TypeProto> {
        let infos = graph
            .input
            .iter()
            .chain(&graph.output)
            .chain(&graph.value_info);
        infos.filter_map(|i| i.r#type.as_ref())
    }
    let nodes = model.functions.iter().flat_map(|f| &f.node);
    let defaults = model.functions.iter().flat_map(|f| &f.attribute_proto);
    let attributes = nodes.flat_map(|n| &n.attribute).chain(defaults);
    for a in attributes {
        stack.extend(
            a.g.as_deref()
                .into_iter()
                .chain(&a.graphs)
                .map(|g| (Item::Graph(g), 1)),
        );
        stack.extend(
            a.tp.as_deref()
                .into_iter()
                .chain(&a.type_protos)
                .map(|t| (Item::Type(t), 1)),
        );
    }
    let function_infos = model.functions.iter().flat_map(|f| &f.value_info);
    stack.extend(
        function_infos
            .filter_map(|i| i.r#type.as_ref())
            .map(|t| (Item::Type(t), 1)),
    );
    stack.extend(model.graph.iter().map(|g| (Item::Graph(g), 1)));
    while let Some((item, depth)) = stack.pop() {
        if depth > limits.max_depth {
            let message = format!(
                "graphs and types nest more than {} levels deep",
                limits.max_depth
            );
            return Some(problem(message));
        }
        match item {
            Item::Graph(graph) => {
                stack.extend(infos(graph).map(|t| (Item::Type(t), depth + 1)));
                for a in graph.node.iter().flat_map(|n| &n.attribute) {
                    let graphs = a.g.as_deref().into_iter().chain(&a.graphs);
                    stack.extend(graphs.map(|g| (Item::Graph(g), depth + 1)));
                    let types = a.tp.as_deref().into_iter().chain(&a.type_protos);
                    stack.extend(types.map(|t| (Item::Type(t), depth + 1)));
                }
            }
            Item::Type(ty) => {
                let inner = match &ty.value {
                    Some(Value::SequenceType(t)) => t.elem_type.as_deref(),
                    Some(Value::OptionalType(t)) => t.elem_type.as_deref(),
                    Some(Value::MapType(t)) => t.value_type.as_deref(),
                    _ => None,
                };
                stack.extend(inner.map(|t| (Item::Type(t), depth + 1)));
            }
        }
    }
    None
}

fn problem(message: String) -> Diagnostic {
    Diagnostic::in_message(DiagnosticKind::Decode, Place::default(), message)
}

/// The messages of onnx.proto, as the walk tells their fields apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Model,
    Graph,
    Node,
    Attribute,
    Tensor,
    Segment,
    Sparse,
    ValueInfo,
    Type,
    TensorType,
    SequenceType,
    MapType,
    OptionalType,
    SparseType,
    OpaqueType,
    Shape,
    Dimension,
    OpsetId,
    Function,
    Entry,
    Annotation,
    TrainingInfo,
    NodeDevice,
    Sharding,
    IntList,
    ShardedDim,
    SimpleShardedDim,
    Device,
}

impl Kind {
    /// The message type of field `number`, if that field is a message.
    fn field(self, number: u64) -> Option<Kind> {
        use Kind::*;
        Some(match (self, number) {
            (Model, 7) => Graph,
            (Model, 8) => OpsetId,
            (Model, 14) => Entry,
            (Model, 20) => TrainingInfo,
            (Model, 25) => Function,
            (Model, 26) => Device,
            (Graph, 1) => Node,
            (Graph, 5) => Tensor,
            (Graph, 11..=13) => ValueInfo,
            (Graph, 14) => Annotation,
            (Graph, 15) => Sparse,
            (Graph, 16) => Entry,
            (Node, 5) => Attribute,
            (Node, 9) => Entry,
            (Node, 10) => NodeDevice,
            (Attribute, 5 | 10) => Tensor,
            (Attribute, 6 | 11) => Graph,
            (Attribute, 14 | 15) => Type,
            (Attribute, 22 | 23) => Sparse,
            (Tensor, 3) => Segment,
            (Tensor, 13 | 16) => Entry,
            (Sparse, 1 | 2) => Tensor,
            (ValueInfo, 2) => Type,
            (ValueInfo, 4) => Entry,
            (Type, 1) => TensorType,
            (Type, 4) => SequenceType,
            (Type, 5) => MapType,
            (Type, 7) => OpaqueType,
            (Type, 8) => SparseType,
            (Type, 9) => OptionalType,
            (TensorType | SparseType, 2) => Shape,
            (SequenceType | OptionalType, 1) => Type,
            (MapType, 2) => Type,
            (Shape, 1) => Dimension,
            (Function, 7) => Node,
            (Function, 11) => Attribute,
            (Function, 12) => ValueInfo,
            (Function, 14) => Entry,
            (Annotation, 2) => Entry,
            (TrainingInfo, 1 | 2) => Graph,
            (TrainingInfo, 3 | 4) => Entry,
            (NodeDevice, 2) => Sharding,
            (Sharding, 3) => IntList,
            (Sharding, 4) => ShardedDim,
            (ShardedDim, 2) => SimpleShardedDim,
            _ => return None,
        })
    }

    /// What one decoded message of this kind takes, not counting its fields' heap data.
    fn size(self) -> u64 {
        use Kind::*;
        let size = match self {
            Model => size_of::<ModelProto>(),
            Graph => size_of::<GraphProto>(),
            Node => size_of::<NodeProto>(),
            Attribute => size_of::<AttributeProto>(),
            Tensor => size_of::<TensorProto>(),
            Segment => size_of::<tensor_proto::Segment>(),
            Sparse => size_of::<SparseTensorProto>(),
            ValueInfo => size_of::<ValueInfoProto>(),
            Type => size_of::<TypeProto>(),
            TensorType => size_of::<type_proto::Tensor>(),
            SequenceType => size_of::<type_proto::Sequence>(),
            MapType => size_of::<type_proto::Map>(),
            OptionalType => size_of::<type_proto::Optional>(),
            SparseType => size_of::<type_proto::SparseTensor>(),
            OpaqueType => size_of::<type_proto::Opaque>(),
            Shape => size_of::<TensorShapeProto>(),
            Dimension => size_of::<tensor_shape_proto::Dimension>(),
            OpsetId => size_of::<OperatorSetIdProto>(),
            Function => size_of::<FunctionProto>(),
            Entry => size_of::<StringStringEntryProto>(),
            Annotation => size_of::<TensorAnnotation>(),
            TrainingInfo => size_of::<TrainingInfoProto>(),
            NodeDevice => size_of::<NodeDeviceConfigurationProto>(),
            Sharding => size_of::<ShardingSpecProto>(),
            IntList => size_of::<IntIntListEntryProto>(),
            ShardedDim => size_of::<ShardedDimProto>(),
            SimpleShardedDim => size_of::<SimpleShardedDimProto>(),
            Device => size_of::<DeviceConfigurationProto>(),
        };
        size as u64
    }

    /// Bytes decoded per byte of field `number`, a length-delimited field that is no message:
    /// once for bytes and strings that hold data (`raw_data`, `string_data`, attribute
    /// strings) and for packed floats, [`PACKED_GROWTH`] for the rest (packed varints, names).
    fn growth(self, number: u64) -> u64 {
        match (self, number) {
            (Kind::Tensor, 4 | 6 | 9 | 10) | (Kind::Attribute, 4 | 7 | 9) => 1,
            _ => PACKED_GROWTH,
        }
    }

    /// True for the messages that count as one level of nesting, as in text.
    fn nests(self) -> bool {
        matches!(self, Kind::Graph | Kind::Type)
    }
}

/// Bytes decoded per byte of a packed or string field, at most (a one-byte varint becomes an
/// eight-byte integer).
const PACKED_GROWTH: u64 = 8;

/// The walk's limits and running total.
struct Walk {
    depth: usize,
    memory_limit: u64,
    memory: u64,
}

impl Walk {
    /// Walks the fields of one message of `kind`, at nesting `depth`.
    fn message(&mut self, mut bytes: &[u8], kind: Kind, depth: usize) -> Result<(), String> {
        while !bytes.is_empty() {
            let key = varint(&mut bytes)?;
            let number = key >> 3;
            match key & 7 {
                0 => {
                    varint(&mut bytes)?;
                    self.take(PACKED_GROWTH)?;
                }
                1 => {
                    skip(&mut bytes, 8)?;
                    self.take(PACKED_GROWTH)?;
                }
                5 => {
                    skip(&mut bytes, 4)?;
                    self.take(PACKED_GROWTH)?;
                }
                2 => {
                    let len = varint(&mut bytes)?;
                    let len = usize::try_from(len)
                        .ok()
                        .filter(|&len| len <= bytes.len())
                        .ok_or("the bytes cannot be decoded: a length runs past the end")?;
                    let (field, rest) = bytes.split_at(len);
                    bytes = rest;
                    match kind.field(number) {
                        Some(child) => {
                            let depth = depth + usize::from(child.nests());
                            if depth > self.depth {
                                return Err(format!(
                                    "graphs and types nest more than {} levels deep",
                                    self.depth
                                ));
                            }
                            self.take(child.size())?;
                            self.message(field, child, depth)?;
                        }
                        None => self.take(kind.growth(number).saturating_mul(len as u64))?,
                    }
                }
                3 => self.group(&mut bytes, number, depth)?,
                _ => {
                    return Err(format!(
                        "the bytes cannot be decoded: wire type {}",
                        key & 7
                    ));
                }
            }
        }
        Ok(())
    }

    /// Skips an unknown group (wire types 3 and 4), counting it as a level of nesting, as
    /// `prost` skips it.
    fn group(&mut self, bytes: &mut &[u8], number: u64, depth: usize) -> Result<(), String> {
        let depth = depth + 1;
        if depth > self.depth {
            return Err(format!("groups nest more than {} levels deep", self.depth));
        }
        loop {
            if bytes.is_empty() {
                return Err("the bytes cannot be decoded: a group does not end".into());
            }
            let key = varint(bytes)?;
            match key & 7 {
                0 => {
                    varint(bytes)?;
                }
                1 => skip(bytes, 8)?,
                5 => skip(bytes, 4)?,
                2 => {
                    let len = usize::try_from(varint(bytes)?).unwrap_or(usize::MAX);
                    skip(bytes, len)?;
                }
                3 => self.group(bytes, key >> 3, depth)?,
                4 if key >> 3 == number => return Ok(()),
                _ => return Err("the bytes cannot be decoded: a group ends badly".into()),
            }
        }
    }

    fn take(&mut self, bytes: u64) -> Result<(), String> {
        self.memory = self.memory.saturating_add(bytes);
        if self.memory > self.memory_limit {
            return Err(format!(
                "decoding would take more than {} bytes of memory",
                self.memory_limit
            ));
        }
        Ok(())
    }
}

/// Reads a varint of at most ten bytes.
fn varint(bytes: &mut &[u8]) -> Result<u64, String> {
    let mut value = 0u64;
    for i in 0..10 {
        let Some((&byte, rest)) = bytes.split_first() else {
            break;
        };
        *bytes = rest;
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte < 0x80 {
            return Ok(value);
        }
    }
    Err("the bytes cannot be decoded: a varint is cut short or too long".into())
}

fn skip(bytes: &mut &[u8], len: usize) -> Result<(), String> {
    if len > bytes.len() {
        return Err("the bytes cannot be decoded: a field runs past the end".into());
    }
    *bytes = &bytes[len..];
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested_graphs(levels: usize) -> Vec<u8> {
        // graph { node { attribute { g: graph { ... } } } }, from the inside out.
        let mut graph = Vec::new();
        for _ in 1..levels {
            let attribute = AttributeProto {
                g: Some(Box::new(GraphProto::decode(graph.as_slice()).unwrap())),
                ..Default::default()
            };
            let node = NodeProto {
                attribute: vec![attribute],
                ..Default::default()
            };
            graph = GraphProto {
                node: vec![node],
                ..Default::default()
            }
            .encode_to_vec();
        }
        ModelProto {
            graph: Some(GraphProto::decode(graph.as_slice()).unwrap()),
            ..Default::default()
        }
        .encode_to_vec()
    }

    #[test]
    fn nesting_at_the_limit_decodes_and_one_more_is_an_error() {
        let limits = DecodeLimits::default();
        assert!(decode(&nested_graphs(MAX_NESTING as usize), &limits).is_ok());
        let err = decode(&nested_graphs(MAX_NESTING as usize + 1), &limits).unwrap_err();
        assert_eq!(
            err.message(),
            "graphs and types nest more than 32 levels deep"
        );
    }

    #[test]
    fn small_encodings_of_large_messages_are_bounded() {
        // 100,000 empty attributes: 200 KB of bytes, 100,000 times an `AttributeProto` decoded.
        let node = NodeProto {
            attribute: vec![AttributeProto::default(); 100_000],
            ..Default::default()
        };
        let graph = GraphProto {
            node: vec![node],
            ..Default::default()
        };
        let bytes = ModelProto {
            graph: Some(graph),
            ..Default::default()
        }
        .encode_to_vec();
        assert!(bytes.len() < 300_000);
        let decoded = 100_000 * size_of::<AttributeProto>() as u64;
        assert!(decoded > 100 * bytes.len() as u64, "{decoded}");
        let limits = DecodeLimits::default().max_memory(decoded / 2);
        let err = decode(&bytes, &limits).unwrap_err();
        let limit = decoded / 2 + 2 * bytes.len() as u64; // beyond twice the input
        let expected = format!("decoding would take more than {limit} bytes of memory");
        assert_eq!(err.message(), expected);
        assert!(decode(&bytes, &DecodeLimits::default()).is_ok());
    }

    #[test]
    fn models_in_memory_nest_within_the_limit_too() {
        let limits = DecodeLimits::default();
        let at_limit = ModelProto::decode(nested_graphs(MAX_NESTING as usize).as_slice()).unwrap();
        assert!(too_deep(&at_limit, &limits).is_none());
        // Built in memory, past anything the bytes could carry: no recursion measures it.
        let mut ty = TypeProto::default();
        for _ in 0..100_000 {
            let sequence = type_proto::Sequence {
                elem_type: Some(Box::new(ty)),
            };
            ty = TypeProto {
                value: Some(type_proto::Value::SequenceType(Box::new(sequence))),
                ..Default::default()
            };
        }
        let graph = GraphProto {
            input: vec![ValueInfoProto {
                r#type: Some(ty),
                ..Default::default()
            }],
            ..Default::default()
        };
        let model = ModelProto {
            graph: Some(graph),
            ..Default::default()
        };
        let err = too_deep(&model, &limits).unwrap();
        assert_eq!(
            err.message(),
            "graphs and types nest more than 32 levels deep"
        );
        // Dropping such a type recurses in prost's generated code: leak it instead.
        std::mem::forget(model);
    }

    #[test]
    fn truncated_and_malformed_bytes_are_errors() {
        let good = nested_graphs(3);
        for end in 0..good.len() {
            // Every prefix either decodes (a shorter message) or is an error, never a panic.
            let _ = decode(&good[..end], &DecodeLimits::default());
        }
        let err = decode(
            &[0x3a, 0xff, 0xff, 0xff, 0xff, 0x0f],
            &DecodeLimits::default(),
        );
        assert!(err.unwrap_err().message().contains("past the end"));
        let err = decode(&[0x0b], &DecodeLimits::default()).unwrap_err();
        assert!(err.message().contains("group does not end"), "{err:?}");
        let err = decode(&[0x0f], &DecodeLimits::default()).unwrap_err();
        assert!(err.message().contains("wire type 7"), "{err:?}");
    }

    #[test]
    fn deep_groups_are_bounded() {
        let mut bytes = vec![0x1b; 100_000]; // field 3, start group, again and again
        bytes.extend([0x1c; 100_000]);
        let err = decode(&bytes, &DecodeLimits::default()).unwrap_err();
        assert_eq!(err.message(), "groups nest more than 32 levels deep");
    }

    #[test]
    fn weights_count_once_against_the_limit() {
        // 200 MB of raw data: decodes under the default limit (1 GiB beyond twice the input).
        let tensor = TensorProto {
            raw_data: Some(vec![0; 200 << 20]),
            ..Default::default()
        };
        let graph = GraphProto {
            initializer: vec![tensor],
            ..Default::default()
        };
        let bytes = ModelProto {
            graph: Some(graph),
            ..Default::default()
        }
        .encode_to_vec();
        assert!(decode(&bytes, &DecodeLimits::default()).is_ok());
        // The same bytes as packed int64s could be 8 times larger decoded.
        let mut walk = Walk {
            depth: 32,
            memory_limit: u64::MAX,
            memory: 0,
        };
        walk.take(Kind::Tensor.growth(7) * 100).unwrap();
        assert_eq!(walk.memory, 800);
    }
}
