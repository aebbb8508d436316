//! The values a case feeds and expects: tensors, and what onnx stores as `SequenceProto`,
//! `OptionalProto` and `MapProto`.

use crate::Element;
use crate::data_proto::{MapProto, OptionalProto, SequenceProto, elem_type};
use crate::elements;
use onnx_runtime_types::prost::Message;
use onnx_runtime_types::tensor_proto::DataType;
use onnx_runtime_types::{TensorProto, TypeProto, type_proto};
use std::fmt;

/// One value of a model: an input, an output, or what flows between nodes.
///
/// ```
/// use onnx_value::Value;
///
/// let x = Value::tensor(&[1i64, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
/// let Value::Tensor(proto) = &x else { unreachable!() };
/// assert_eq!(proto.dims, [2, 3]);
/// assert_eq!(x.to_vec::<i64>().unwrap(), [1, 2, 3, 4, 5, 6]);
/// ```
// The tensor is held by value, as the API promises (`Value::Tensor(TensorProto)`); a case has a
// handful of values, so the enum's size costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A tensor, its data in `raw_data` or a typed field, as whoever made it chose.
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
/// use onnx_value::{Map, MapKey, Value};
/// use onnx_runtime_types::{TensorProto, tensor_proto::DataType};
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
/// let key = onnx_value::MapKey::String(b"a".to_vec());
/// assert_ne!(key, onnx_value::MapKey::Int(0));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MapKey {
    /// An integer key.
    Int(i64),
    /// A string key, as bytes.
    String(Vec<u8>),
}

/// Why a value could not be built, read or converted.
///
/// ```
/// let error = onnx_value::Value::tensor(&[1.0f32], &[2]).unwrap_err();
/// assert_eq!(error.to_string(), "1 elements where dims [2] give 2");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueError(pub(crate) String);

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ValueError {}

impl From<String> for ValueError {
    fn from(message: String) -> Self {
        ValueError(message)
    }
}

type DecodeError = String;

impl Value {
    /// A tensor of `data`, row-major, with `dims`.
    ///
    /// ```
    /// use onnx_value::Value;
    ///
    /// let x = Value::tensor(&[1.5f32, 2.5], &[1, 2]).unwrap();
    /// assert_eq!(x.dims(), Some(vec![1, 2]));
    /// // A scalar has no dims.
    /// assert_eq!(Value::tensor(&[true], &[]).unwrap().to_vec::<bool>().unwrap(), [true]);
    /// ```
    pub fn tensor<T: Element>(data: &[T], dims: &[usize]) -> Result<Value, ValueError> {
        let count = dims.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
        if count != Some(data.len()) {
            return Err(ValueError(format!(
                "{} elements where dims {dims:?} give {}",
                data.len(),
                count.map_or("more than fit in memory".to_string(), |c| c.to_string())
            )));
        }
        let mut proto = TensorProto {
            dims: dims.iter().map(|&d| d as i64).collect(),
            data_type: Some(T::DATA_TYPE as i32),
            ..Default::default()
        };
        T::store(data, &mut proto);
        Ok(Value::Tensor(proto))
    }

    /// The elements of a tensor of element type `T`, row-major. An error says what the value is
    /// instead (not a tensor, another element type, data that does not match its dims).
    ///
    /// ```
    /// use onnx_value::Value;
    ///
    /// let x = Value::tensor(&[1i32, 2], &[2]).unwrap();
    /// assert_eq!(x.to_vec::<i32>().unwrap(), [1, 2]);
    /// assert_eq!(x.to_vec::<f32>().unwrap_err().to_string(), "a tensor of INT32, not of FLOAT");
    /// ```
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>, ValueError> {
        let Value::Tensor(tensor) = self else {
            return Err(ValueError(format!("a {}, not a tensor", self.kind())));
        };
        let data_type = tensor.data_type.unwrap_or(0);
        if data_type != T::DATA_TYPE as i32 {
            return Err(ValueError(format!(
                "a tensor of {}, not of {}",
                crate::compare::type_name(data_type),
                T::DATA_TYPE.as_str_name()
            )));
        }
        if !tensor.external_data.is_empty() {
            return Err(ValueError("a tensor with external data".to_string()));
        }
        let count = elements::element_count(tensor)?;
        T::load(tensor, count).ok_or_else(|| {
            ValueError(format!(
                "a tensor whose data does not hold the {count} elements of dims {:?}",
                tensor.dims
            ))
        })
    }

    /// The tensor, if this is one.
    ///
    /// ```
    /// let x = onnx_value::Value::tensor(&[1u8], &[1]).unwrap();
    /// assert_eq!(x.as_tensor().unwrap().raw_data.as_deref(), Some(&[1u8][..]));
    /// ```
    pub fn as_tensor(&self) -> Option<&TensorProto> {
        match self {
            Value::Tensor(tensor) => Some(tensor),
            _ => None,
        }
    }

    /// A tensor's dims, as [`Value::tensor`] takes them; `None` for other values, and for a
    /// tensor with a negative dim (which no tensor has; the proto's `dims` show it as it is).
    ///
    /// ```
    /// use onnx_value::Value;
    ///
    /// let x = Value::tensor(&[0i8; 6], &[2, 3]).unwrap();
    /// assert_eq!(x.dims(), Some(vec![2, 3]));
    /// // What a runtime gives back goes straight into a value of the same shape.
    /// let y = Value::tensor(&[1i8; 6], &x.dims().unwrap()).unwrap();
    /// assert_eq!(y.dims(), x.dims());
    /// assert_eq!(Value::Sequence(vec![]).dims(), None);
    /// ```
    pub fn dims(&self) -> Option<Vec<usize>> {
        let tensor = self.as_tensor()?;
        tensor
            .dims
            .iter()
            .map(|&d| usize::try_from(d).ok())
            .collect()
    }

    /// A tensor's element type; `None` for other values, and for a tensor of a type this
    /// version of onnx does not define.
    ///
    /// ```
    /// use onnx_runtime_types::tensor_proto::DataType;
    /// use onnx_value::Value;
    ///
    /// let x = Value::tensor(&[1.5f64], &[1]).unwrap();
    /// assert_eq!(x.element_type(), Some(DataType::Double));
    /// assert_eq!(Value::Optional(None).element_type(), None);
    /// ```
    pub fn element_type(&self) -> Option<DataType> {
        DataType::try_from(self.as_tensor()?.data_type?).ok()
    }

    /// What the value is, in a word: `tensor`, `sequence`, `optional` or `map`.
    ///
    /// ```
    /// assert_eq!(onnx_value::Value::Sequence(vec![]).kind(), "sequence");
    /// ```
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Tensor(_) => "tensor",
            Value::Sequence(_) => "sequence",
            Value::Optional(_) => "optional",
            Value::Map(_) => "map",
        }
    }

    /// Reads a value from the bytes of onnx's `.pb` test files: a `TensorProto`, or a
    /// `SequenceProto`, `OptionalProto` or `MapProto` when `ty` (the graph's type of the value)
    /// says so.
    ///
    /// ```
    /// use onnx_value::Value;
    ///
    /// let x = Value::tensor(&[1.0f64, 2.0], &[2]).unwrap();
    /// let bytes = x.encode();
    /// assert_eq!(Value::decode(None, &bytes).unwrap(), x);
    /// ```
    pub fn decode(ty: Option<&TypeProto>, bytes: &[u8]) -> Result<Value, ValueError> {
        Ok(decode(ty, bytes)?)
    }

    /// The bytes of the value as onnx writes its `.pb` test files: a `TensorProto`, or a
    /// `SequenceProto`, `OptionalProto` or `MapProto`.
    ///
    /// ```
    /// use onnx_value::Value;
    ///
    /// let items = Value::Sequence(vec![Value::tensor(&[1i64], &[1]).unwrap()]);
    /// let ty = onnx_runtime_types::TypeProto {
    ///     value: Some(onnx_runtime_types::type_proto::Value::SequenceType(Default::default())),
    ///     ..Default::default()
    /// };
    /// assert_eq!(Value::decode(Some(&ty), &items.encode()).unwrap(), items);
    /// ```
    pub fn encode(&self) -> Vec<u8> {
        match self {
            Value::Tensor(tensor) => tensor.encode_to_vec(),
            Value::Sequence(items) => to_sequence(items).encode_to_vec(),
            Value::Optional(inner) => to_optional(inner.as_deref()).encode_to_vec(),
            Value::Map(map) => to_map(map).encode_to_vec(),
        }
    }
}

/// The element type a sequence or optional records for a value.
fn elem_type_of(value: &Value) -> i32 {
    match value {
        Value::Tensor(_) => elem_type::TENSOR,
        Value::Sequence(_) => elem_type::SEQUENCE,
        Value::Optional(_) => elem_type::OPTIONAL,
        Value::Map(_) => elem_type::MAP,
    }
}

fn to_sequence(items: &[Value]) -> SequenceProto {
    let mut proto = SequenceProto {
        name: Some(String::new()),
        elem_type: Some(items.first().map_or(elem_type::TENSOR, elem_type_of)),
        ..Default::default()
    };
    for item in items {
        match item {
            Value::Tensor(t) => proto.tensor_values.push(t.clone()),
            Value::Sequence(s) => proto.sequence_values.push(to_sequence(s)),
            Value::Optional(o) => proto.optional_values.push(to_optional(o.as_deref())),
            Value::Map(m) => proto.map_values.push(to_map(m)),
        }
    }
    proto
}

fn to_optional(inner: Option<&Value>) -> OptionalProto {
    let mut proto = OptionalProto {
        name: Some(String::new()),
        elem_type: Some(inner.map_or(0, elem_type_of)),
        ..Default::default()
    };
    match inner {
        None => {}
        Some(Value::Tensor(t)) => proto.tensor_value = Some(t.clone()),
        Some(Value::Sequence(s)) => proto.sequence_value = Some(to_sequence(s)),
        Some(Value::Optional(o)) => {
            proto.optional_value = Some(Box::new(to_optional(o.as_deref())))
        }
        Some(Value::Map(m)) => proto.map_value = Some(to_map(m)),
    }
    proto
}

fn to_map(map: &Map) -> MapProto {
    let mut proto = MapProto {
        name: Some(String::new()),
        key_type: Some(map.key_type),
        ..Default::default()
    };
    for (key, _) in &map.entries {
        match key {
            MapKey::Int(k) => proto.keys.push(*k),
            MapKey::String(k) => proto.string_keys.push(k.clone()),
        }
    }
    let values: Vec<Value> = map.entries.iter().map(|(_, v)| v.clone()).collect();
    proto.values = Some(to_sequence(&values));
    proto
}

/// Reads one `.pb` file, as the graph's type of that value says it is stored.
fn decode(ty: Option<&TypeProto>, bytes: &[u8]) -> Result<Value, DecodeError> {
    let error = |e: onnx_runtime_types::prost::DecodeError| e.to_string();
    match ty.map(|t| t.value.as_ref()) {
        Some(None) => Err("a value of no type".to_string()),
        Some(Some(type_proto::Value::SequenceType(_))) => {
            sequence(SequenceProto::decode(bytes).map_err(error)?)
        }
        Some(Some(type_proto::Value::OptionalType(_))) => {
            optional(OptionalProto::decode(bytes).map_err(error)?)
        }
        Some(Some(type_proto::Value::MapType(_))) => map(MapProto::decode(bytes).map_err(error)?),
        Some(Some(type_proto::Value::TensorType(_))) => {
            Ok(Value::Tensor(TensorProto::decode(bytes).map_err(error)?))
        }
        // Without a type, a tensor: what onnx's test files hold unless the graph says otherwise.
        None => Ok(Value::Tensor(TensorProto::decode(bytes).map_err(error)?)),
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
