//! ONNX protobuf message types, generated with [prost] from `proto/onnx.proto`,
//! a proto2 schema identical in messages, fields, numbers, labels, types and
//! enums to onnx 1.23.2's `onnx-ml.proto` (IR version 14).
//!
//! Every message type is available at the crate root (`ModelProto`,
//! `GraphProto`, `NodeProto`, ...); nested messages, enums and oneofs live in
//! the snake-case module named after their parent message, as prost lays them
//! out: [`tensor_proto::DataType`], [`attribute_proto::AttributeType`],
//! [`type_proto::Value`], [`type_proto::Tensor`], [`tensor_shape_proto::dimension::Value`].
//!
//! The schema is proto2, so field presence is kept: optional scalars and
//! strings are `Option<T>` (a node with `domain: Some(String::new())` encodes
//! differently from one with `domain: None`), repeated fields are `Vec<T>`,
//! and enum-typed fields are `Option<i32>` (use the enum's `TryFrom<i32>`, or
//! the generated typed getters such as [`TensorProto::data_location()`], to
//! interpret them).
//!
//! # Example
//!
//! ```
//! use onnx_runtime_types::prost::Message;
//! use onnx_runtime_types::{
//!     GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TypeProto, ValueInfoProto,
//!     tensor_proto::DataType, type_proto,
//! };
//!
//! let float_tensor = |name: &str| ValueInfoProto {
//!     name: Some(name.to_owned()),
//!     r#type: Some(TypeProto {
//!         value: Some(type_proto::Value::TensorType(type_proto::Tensor {
//!             elem_type: Some(DataType::Float as i32),
//!             shape: None,
//!         })),
//!         ..Default::default()
//!     }),
//!     ..Default::default()
//! };
//! let model = ModelProto {
//!     ir_version: Some(10),
//!     opset_import: vec![OperatorSetIdProto { domain: Some(String::new()), version: Some(21) }],
//!     graph: Some(GraphProto {
//!         name: Some("g".to_owned()),
//!         input: vec![float_tensor("x")],
//!         output: vec![float_tensor("y")],
//!         node: vec![NodeProto {
//!             input: vec!["x".to_owned()],
//!             output: vec!["y".to_owned()],
//!             op_type: Some("Relu".to_owned()),
//!             domain: Some(String::new()),
//!             ..Default::default()
//!         }],
//!         ..Default::default()
//!     }),
//!     ..Default::default()
//! };
//!
//! let bytes = model.encode_to_vec();
//! let decoded = ModelProto::decode(bytes.as_slice()).unwrap();
//! assert_eq!(decoded, model);
//! // Presence survives the round trip: the empty domain is still there.
//! assert_eq!(decoded.graph.unwrap().node[0].domain.as_deref(), Some(""));
//! ```
//!
//! # Encoding order
//!
//! prost writes fields in field-number order, like the reference serializer,
//! with one exception: a oneof is written at the position of its lowest
//! field number, whichever member is set. The only message where this can
//! matter is [`TypeProto`]: its `denotation` (6) is numbered between the
//! members of the `value` oneof, so a `TypeProto` with both `denotation` and
//! an `opaque_type`, `sparse_tensor_type` or `optional_type` encodes those
//! two fields in the opposite order from the reference. Decoding is unaffected.

#![warn(missing_docs)]

pub use prost;

/// The prost-generated code for package `onnx`, re-exported at the crate root.
#[allow(missing_docs, clippy::all)]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/onnx.rs"));
}

pub use generated::*;

/// The encoded `google.protobuf.FileDescriptorSet` of `proto/onnx.proto`,
/// as compiled by protox at build time (one file, `onnx.proto`, package
/// `onnx`, no source info).
///
/// Decode it with `prost_types::FileDescriptorSet::decode`, or feed it to a
/// reflection library such as `prost-reflect`.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/onnx_descriptor_set.bin"));
