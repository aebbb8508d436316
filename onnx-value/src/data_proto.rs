//! The three messages of onnx's `onnx-data.proto` that hold a case's non-tensor values, with
//! their field numbers as onnx 1.23.2 defines them (checked against the wheel's descriptors).

use onnx_runtime_types::{SparseTensorProto, TensorProto};

/// What a `SequenceProto` or an `OptionalProto` holds (`elem_type`).
pub(crate) mod elem_type {
    pub const TENSOR: i32 = 1;
    pub const SPARSE_TENSOR: i32 = 2;
    pub const SEQUENCE: i32 = 3;
    pub const MAP: i32 = 4;
    pub const OPTIONAL: i32 = 5;
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct SequenceProto {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(int32, optional, tag = "2")]
    pub elem_type: Option<i32>,
    #[prost(message, repeated, tag = "3")]
    pub tensor_values: Vec<TensorProto>,
    #[prost(message, repeated, tag = "4")]
    pub sparse_tensor_values: Vec<SparseTensorProto>,
    #[prost(message, repeated, tag = "5")]
    pub sequence_values: Vec<SequenceProto>,
    #[prost(message, repeated, tag = "6")]
    pub map_values: Vec<MapProto>,
    #[prost(message, repeated, tag = "7")]
    pub optional_values: Vec<OptionalProto>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct MapProto {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(int32, optional, tag = "2")]
    pub key_type: Option<i32>,
    #[prost(int64, repeated, tag = "3")]
    pub keys: Vec<i64>,
    #[prost(bytes = "vec", repeated, tag = "4")]
    pub string_keys: Vec<Vec<u8>>,
    #[prost(message, optional, tag = "5")]
    pub values: Option<SequenceProto>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct OptionalProto {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(int32, optional, tag = "2")]
    pub elem_type: Option<i32>,
    #[prost(message, optional, tag = "3")]
    pub tensor_value: Option<TensorProto>,
    #[prost(message, optional, tag = "4")]
    pub sparse_tensor_value: Option<SparseTensorProto>,
    #[prost(message, optional, tag = "5")]
    pub sequence_value: Option<SequenceProto>,
    #[prost(message, optional, tag = "6")]
    pub map_value: Option<MapProto>,
    #[prost(message, optional, boxed, tag = "7")]
    pub optional_value: Option<Box<OptionalProto>>,
}
