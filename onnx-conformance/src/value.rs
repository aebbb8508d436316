//! The values a case feeds and expects: tensors, and what onnx stores as `SequenceProto`,
//! `OptionalProto` and `MapProto`.

use crate::data_proto::{MapProto, OptionalProto, SequenceProto, elem_type};
use onnx_text::prost::Message;
use onnx_text::{TensorProto, TypeProto, type_proto};

/// One input or output of a case.
///
/// ```
/// use onnx_conformance::Value;
///
/// let case = onnx_conformance::cases().iter().find(|c| c.name() == "test_abs").unwrap();
/// let Value::Tensor(x) = &case.inputs()[0] else { panic!("Abs takes a tensor") };
/// assert_eq!(x.dims, [3, 4, 5]);
/// ```
// The tensor is held by value, as the API promises (`Value::Tensor(TensorProto)`); a case has a
// handful of values, so the enum's size costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A tensor, exactly as onnx's generator wrote it (`raw_data` or a typed field).
    Tensor(TensorProto),
    /// A sequence (`SequenceProto`), item by item.
    Sequence(Vec<Value>),
    /// An optional (`OptionalProto`): `None` when it holds nothing.
    Optional(Option<Box<Value>>),
    /// A map (`MapProto`).
    Map(Map),
}

/// The entries of a [`Value::Map`], in onnx's order.
///
/// ```
/// use onnx_conformance::{Map, MapKey, Value};
/// use onnx_text::{TensorProto, tensor_proto::DataType};
///
/// let one = TensorProto { data_type: Some(DataType::Float as i32), float_data: vec![1.0], ..Default::default() };
/// let map = Map { key_type: DataType::Int64 as i32, entries: vec![(MapKey::Int(7), Value::Tensor(one))] };
/// assert_eq!(map.entries.len(), 1);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Map {
    /// The keys' element type, a `tensor_proto::DataType`.
    pub key_type: i32,
    /// Each key with its value.
    pub entries: Vec<(MapKey, Value)>,
}

/// A key of a [`Map`]: integer keys of every integer type, or strings.
///
/// ```
/// let key = onnx_conformance::MapKey::String(b"a".to_vec());
/// assert_ne!(key, onnx_conformance::MapKey::Int(0));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MapKey {
    /// An integer key.
    Int(i64),
    /// A string key, as bytes.
    String(Vec<u8>),
}

/// Why a stored value could not be read.
pub(crate) type DecodeError = String;

/// Reads one `.pb` file of a case, as the graph's type of that value says it is stored.
pub(crate) fn decode(ty: Option<&TypeProto>, bytes: &[u8]) -> Result<Value, DecodeError> {
    let error = |e: onnx_text::prost::DecodeError| e.to_string();
    match ty.and_then(|t| t.value.as_ref()) {
        Some(type_proto::Value::SequenceType(_)) => {
            sequence(SequenceProto::decode(bytes).map_err(error)?)
        }
        Some(type_proto::Value::OptionalType(_)) => {
            optional(OptionalProto::decode(bytes).map_err(error)?)
        }
        Some(type_proto::Value::MapType(_)) => map(MapProto::decode(bytes).map_err(error)?),
        Some(type_proto::Value::TensorType(_)) => {
            Ok(Value::Tensor(TensorProto::decode(bytes).map_err(error)?))
        }
        _ => Err("a value that is not a tensor, sequence, optional or map".to_string()),
    }
}

fn sequence(proto: SequenceProto) -> Result<Value, DecodeError> {
    let items: Vec<Value> = match proto.elem_type.unwrap_or(0) {
        elem_type::TENSOR | 0 => proto.tensor_values.into_iter().map(Value::Tensor).collect(),
        elem_type::SEQUENCE => proto
            .sequence_values
            .into_iter()
            .map(sequence)
            .collect::<Result<_, _>>()?,
        elem_type::MAP => proto
            .map_values
            .into_iter()
            .map(map)
            .collect::<Result<_, _>>()?,
        elem_type::OPTIONAL => proto
            .optional_values
            .into_iter()
            .map(optional)
            .collect::<Result<_, _>>()?,
        other => return Err(format!("a sequence of element type {other}")),
    };
    Ok(Value::Sequence(items))
}

fn optional(proto: OptionalProto) -> Result<Value, DecodeError> {
    let inner = match proto.elem_type.unwrap_or(0) {
        elem_type::TENSOR => proto.tensor_value.map(Value::Tensor),
        elem_type::SEQUENCE => proto.sequence_value.map(sequence).transpose()?,
        elem_type::MAP => proto.map_value.map(map).transpose()?,
        elem_type::OPTIONAL => proto.optional_value.map(|o| optional(*o)).transpose()?,
        elem_type::SPARSE_TENSOR => return Err("an optional sparse tensor".to_string()),
        // An empty optional says nothing of its element type.
        _ => None,
    };
    Ok(Value::Optional(inner.map(Box::new)))
}

fn map(proto: MapProto) -> Result<Value, DecodeError> {
    let key_type = proto.key_type.unwrap_or(0);
    let Value::Sequence(values) = sequence(proto.values.unwrap_or_default())? else {
        unreachable!("sequence() makes sequences")
    };
    let keys: Vec<MapKey> = if proto.string_keys.is_empty() {
        proto.keys.into_iter().map(MapKey::Int).collect()
    } else {
        proto.string_keys.into_iter().map(MapKey::String).collect()
    };
    if keys.len() != values.len() {
        return Err(format!(
            "a map of {} keys and {} values",
            keys.len(),
            values.len()
        ));
    }
    Ok(Value::Map(Map {
        key_type,
        entries: keys.into_iter().zip(values).collect(),
    }))
}
