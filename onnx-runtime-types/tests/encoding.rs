//! The generated impls on small messages, against bytes worked out by hand from the protobuf
//! encoding: a key is the varint `number << 3 | wire type` (0 varint, 1 fixed 64-bit, 2
//! length-delimited, 5 fixed 32-bit), fields go in number order (prost writes a oneof at its
//! lowest number), and an int32 or int64 below zero is a ten-byte varint. One test for each kind
//! of field; `tests/derive_equivalence.rs` compares the impls with prost's derive at large.

use onnx_runtime_types::prost::Message;
use onnx_runtime_types::prost::UnknownEnumValue;
use onnx_runtime_types::{
    AttributeProto, NodeProto, TensorProto, TensorShapeProto, TypeProto,
    attribute_proto::AttributeType,
    tensor_proto::{DataLocation, DataType, Segment},
    tensor_shape_proto::{Dimension, dimension},
    type_proto,
};

/// Encodes `message`, checks the bytes, `encoded_len`, and that they decode to `message` again.
fn assert_encodes<M: Message + Default + PartialEq + std::fmt::Debug>(
    message: &M,
    expected: &[u8],
) {
    let bytes = message.encode_to_vec();
    assert_eq!(bytes, expected, "{message:?}");
    assert_eq!(message.encoded_len(), expected.len());
    assert_eq!(&M::decode(expected).unwrap(), message);
}

#[test]
fn scalars_optional_and_repeated_packed_or_not() {
    let tensor = TensorProto {
        dims: vec![2, 3],
        data_type: Some(DataType::Float as i32),
        float_data: vec![1.0, -2.0],
        name: Some("x".to_owned()),
        data_location: Some(DataLocation::External as i32),
        ..Default::default()
    };
    #[rustfmt::skip]
    let expected = [
        0x08, 2, 0x08, 3, // dims (1): repeated int64, not packed in onnx.proto
        0x10, 1, // data_type (2): int32
        0x22, 8, 0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0xc0, // float_data (4): packed f32 LE, 1.0, -2.0
        0x42, 1, b'x', // name (8): string
        0x70, 1, // data_location (14): an enum, as int32
    ];
    assert_encodes(&tensor, &expected);

    // A negative int64 takes ten bytes; packed int64_data (7) and uint64_data (11), a double (10).
    let tensor = TensorProto {
        int64_data: vec![-1],
        double_data: vec![0.5],
        uint64_data: vec![300],
        ..Default::default()
    };
    #[rustfmt::skip]
    let expected = [
        0x3a, 10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, // int64_data (7): packed
        0x52, 8, 0, 0, 0, 0, 0, 0, 0xe0, 0x3f, // double_data (10): packed, 0.5 as f64 LE
        0x5a, 2, 0xac, 0x02, // uint64_data (11): packed, 300 = 0b10_0101100
    ];
    assert_encodes(&tensor, &expected);

    // Presence: an empty string is written, an unset one is not.
    let node = NodeProto {
        domain: Some(String::new()),
        ..Default::default()
    };
    assert_encodes(&node, &[0x3a, 0]); // domain (7)
    assert_encodes(&NodeProto::default(), &[]);
}

#[test]
fn messages_nested_boxed_and_repeated() {
    let attribute = AttributeProto {
        name: Some("a".to_owned()),
        t: Some(Box::new(TensorProto {
            dims: vec![1],
            ..Default::default()
        })),
        ints: vec![1, 2],
        strings: vec![b"s".to_vec(), vec![]],
        r#type: Some(AttributeType::Tensor as i32),
        ..Default::default()
    };
    assert_encodes(
        &attribute,
        &[
            0x0a, 1, b'a', // name (1)
            0x2a, 2, 0x08, 1, // t (5): a boxed TensorProto holding dims [1]
            0x40, 1, 0x40, 2, // ints (8): repeated int64, not packed
            0x4a, 1, b's', 0x4a, 0, // strings (9): repeated bytes, one of them empty
            0xa0, 0x01, 4, // type (20): key 160 takes two bytes
        ],
    );

    let tensor = TensorProto {
        segment: Some(Segment {
            begin: Some(0),
            end: Some(5),
        }),
        ..Default::default()
    };
    assert_encodes(&tensor, &[0x1a, 4, 0x08, 0, 0x10, 5]); // segment (3), begin 0 is written
}

#[test]
fn oneofs() {
    // tensor_type (1) holds a Tensor, whose shape holds one dimension of each kind; the oneof,
    // numbered 1, comes before denotation (6).
    let shape = TensorShapeProto {
        dim: vec![
            Dimension {
                value: Some(dimension::Value::DimValue(3)),
                denotation: None,
            },
            Dimension {
                value: Some(dimension::Value::DimParam("N".to_owned())),
                denotation: None,
            },
        ],
    };
    let ty = TypeProto {
        value: Some(type_proto::Value::TensorType(type_proto::Tensor {
            elem_type: Some(1),
            shape: Some(shape),
        })),
        denotation: Some("d".to_owned()),
    };
    assert_encodes(
        &ty,
        &[
            0x0a, 13, // tensor_type (1)
            0x08, 1, // elem_type (1)
            0x12, 9, // shape (2)
            0x0a, 2, 0x08, 3, // dim (1): dim_value (1) 3
            0x0a, 3, 0x12, 1, b'N', // dim (1): dim_param (2) "N"
            0x32, 1, b'd', // denotation (6)
        ],
    );

    // A oneof goes where its lowest number would, whichever member is set: opaque_type (7)
    // before denotation (6), where the reference writes 6 first (see the crate's docs).
    let ty = TypeProto {
        value: Some(type_proto::Value::OpaqueType(type_proto::Opaque {
            domain: Some("d".to_owned()),
            name: None,
        })),
        denotation: Some("d".to_owned()),
    };
    assert_encodes(&ty, &[0x3a, 3, 0x0a, 1, b'd', 0x32, 1, b'd']);

    // A boxed member (sequence_type, 4) holding a TypeProto.
    let element = TypeProto {
        value: Some(type_proto::Value::TensorType(type_proto::Tensor {
            elem_type: Some(1),
            shape: None,
        })),
        denotation: None,
    };
    let ty = TypeProto {
        value: Some(type_proto::Value::SequenceType(Box::new(
            type_proto::Sequence {
                elem_type: Some(Box::new(element)),
            },
        ))),
        denotation: None,
    };
    assert_encodes(&ty, &[0x22, 6, 0x0a, 4, 0x0a, 2, 0x08, 1]);
}

#[test]
fn decoding_merges_skips_and_accepts_both_forms() {
    // Unknown fields (99, a varint; 100, length-delimited) are skipped, and not written again.
    let bytes = [
        0x22, 4, b'R', b'e', b'l', b'u', 0x98, 0x06, 5, 0xa2, 0x06, 2, 0xaa, 0xbb,
    ];
    let node = NodeProto::decode(bytes.as_slice()).unwrap();
    assert_eq!(
        node,
        NodeProto {
            op_type: Some("Relu".to_owned()),
            ..Default::default()
        }
    );
    assert_eq!(node.encode_to_vec(), &bytes[..6]);

    // Repeated numbers decode packed or not, whatever the schema says, and are written as it says.
    let tensor = TensorProto::decode([0x0a, 2, 2, 3, 0x25, 0, 0, 0x80, 0x3f].as_slice()).unwrap();
    assert_eq!(
        (tensor.dims.as_slice(), tensor.float_data.as_slice()),
        (&[2, 3][..], &[1.0][..])
    );
    assert_eq!(
        tensor.encode_to_vec(),
        [0x08, 2, 0x08, 3, 0x22, 4, 0, 0, 0x80, 0x3f]
    );

    // A scalar given twice: the last wins. A message given twice: merged.
    let node = NodeProto::decode([0x1a, 1, b'a', 0x1a, 1, b'b'].as_slice()).unwrap();
    assert_eq!(node.name.as_deref(), Some("b"));
    let tensor = TensorProto::decode([0x1a, 2, 0x08, 1, 0x1a, 2, 0x10, 2].as_slice()).unwrap();
    assert_eq!(
        tensor.segment,
        Some(Segment {
            begin: Some(1),
            end: Some(2)
        })
    );

    // A oneof: another member replaces the one set; the same member merges into it.
    let dim = Dimension::decode([0x08, 3, 0x12, 1, b'N'].as_slice()).unwrap();
    assert_eq!(dim.value, Some(dimension::Value::DimParam("N".to_owned())));
    let ty = TypeProto::decode([0x0a, 2, 0x08, 1, 0x0a, 2, 0x12, 0].as_slice()).unwrap();
    let expected = type_proto::Tensor {
        elem_type: Some(1),
        shape: Some(TensorShapeProto::default()),
    };
    assert_eq!(ty.value, Some(type_proto::Value::TensorType(expected)));

    // An enum-typed field keeps a number the enum does not have.
    let tensor = TensorProto::decode([0x70, 9].as_slice()).unwrap();
    assert_eq!(tensor.data_location, Some(9));
}

#[test]
fn errors_name_the_fields_on_the_way_down() {
    // attribute (5) of a node holds name (1), three bytes that are not UTF-8.
    let error = NodeProto::decode([0x2a, 5, 0x0a, 3, 0xff, 0xfe, 0xfd].as_slice()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "failed to decode Protobuf message: AttributeProto.name: NodeProto.attribute: \
         invalid string value: data is not UTF-8 encoded"
    );
    // Cut short inside attribute (5).
    let error = NodeProto::decode([0x2a, 5, 0x0a].as_slice()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "failed to decode Protobuf message: NodeProto.attribute: buffer underflow"
    );
}

#[test]
fn debug_names_enum_values() {
    let tensor = TensorProto {
        data_location: Some(1),
        ..Default::default()
    };
    assert!(
        format!("{tensor:?}").contains("data_location: Some(External)"),
        "{tensor:?}"
    );
    let tensor = TensorProto {
        data_location: Some(9),
        ..Default::default()
    };
    assert!(
        format!("{tensor:?}").contains("data_location: Some(9)"),
        "{tensor:?}"
    );
    // prost's derive printed a raw field name as written.
    let attribute = AttributeProto {
        r#type: Some(6),
        ..Default::default()
    };
    assert!(
        format!("{attribute:?}").contains("r#type: Some(Floats)"),
        "{attribute:?}"
    );
    let dim = Dimension {
        value: Some(dimension::Value::DimValue(3)),
        denotation: None,
    };
    assert_eq!(
        format!("{dim:?}"),
        "Dimension { denotation: None, value: Some(DimValue(3)) }"
    );
}

#[test]
fn getters_setters_and_enums() {
    let mut tensor = TensorProto::default();
    assert_eq!(
        (tensor.name(), tensor.raw_data(), tensor.data_type()),
        ("", &[][..], 0)
    );
    assert_eq!(tensor.data_location(), DataLocation::Default);
    tensor.set_data_location(DataLocation::External);
    assert_eq!(tensor.data_location, Some(1));
    tensor.data_location = Some(9);
    assert_eq!(tensor.data_location(), DataLocation::Default); // not a variant: the default

    let mut attribute = AttributeProto::default();
    attribute.set_type(AttributeType::Graphs);
    assert_eq!(
        (attribute.r#type(), attribute.r#type),
        (AttributeType::Graphs, Some(10))
    );

    assert_eq!(DataType::try_from(28), Ok(DataType::Float6e3m2));
    assert_eq!(DataType::try_from(29), Err(UnknownEnumValue(29)));
    assert_eq!(i32::from(DataType::Bfloat16), 16);
    assert!(DataType::is_valid(0) && !DataType::is_valid(-1));
    assert_eq!(DataType::default(), DataType::Undefined);
    assert_eq!(
        DataType::from_str_name("FLOAT16").map(|t| t.as_str_name()),
        Some("FLOAT16")
    );

    // clear() empties every field.
    let mut node = NodeProto {
        name: Some("n".to_owned()),
        input: vec!["x".to_owned()],
        attribute: vec![AttributeProto::default()],
        ..Default::default()
    };
    node.clear();
    assert_eq!(node, NodeProto::default());
}
