//! The three messages of onnx's `onnx-data.proto` that hold a case's non-tensor values, with
//! their field numbers as onnx 1.23.2 defines them (checked against the wheel's descriptors).
//!
//! Their `prost::Message` impls are written here by hand rather than derived, so that this
//! crate (and the conformance kit, which every runtime's test build compiles) does not turn on
//! prost's `derive` feature: that feature would build syn and prost-derive, and make cargo
//! compile prost and the whole onnx stack a second time in a build that also holds the
//! macro side. The impls do what `#[derive(prost::Message)]` does with the attributes written
//! beside each field; the tests below check them against a derived copy, byte for byte.

use onnx_runtime_types::prost::bytes::{Buf, BufMut};
use onnx_runtime_types::prost::encoding::{self, DecodeContext, WireType};
use onnx_runtime_types::prost::{DecodeError, Message};
use onnx_runtime_types::{SparseTensorProto, TensorProto};

/// What a `SequenceProto` or an `OptionalProto` holds (`elem_type`).
pub(crate) mod elem_type {
    pub const TENSOR: i32 = 1;
    pub const SPARSE_TENSOR: i32 = 2;
    pub const SEQUENCE: i32 = 3;
    pub const MAP: i32 = 4;
    pub const OPTIONAL: i32 = 5;
}

/// Names the field where decoding failed, as the derive does (`SequenceProto.tensor_values: …`).
fn at(message: &'static str, field: &'static str) -> impl FnOnce(DecodeError) -> DecodeError {
    move |mut error| {
        error.push(message, field);
        error
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct SequenceProto {
    /// `string, optional, tag 1`
    pub name: Option<String>,
    /// `int32, optional, tag 2`
    pub elem_type: Option<i32>,
    /// `message, repeated, tag 3`
    pub tensor_values: Vec<TensorProto>,
    /// `message, repeated, tag 4`
    pub sparse_tensor_values: Vec<SparseTensorProto>,
    /// `message, repeated, tag 5`
    pub sequence_values: Vec<SequenceProto>,
    /// `message, repeated, tag 6`
    pub map_values: Vec<MapProto>,
    /// `message, repeated, tag 7`
    pub optional_values: Vec<OptionalProto>,
}

impl Message for SequenceProto {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        if let Some(name) = &self.name {
            encoding::string::encode(1, name, buf);
        }
        if let Some(elem_type) = &self.elem_type {
            encoding::int32::encode(2, elem_type, buf);
        }
        encoding::message::encode_repeated(3, &self.tensor_values, buf);
        encoding::message::encode_repeated(4, &self.sparse_tensor_values, buf);
        encoding::message::encode_repeated(5, &self.sequence_values, buf);
        encoding::message::encode_repeated(6, &self.map_values, buf);
        encoding::message::encode_repeated(7, &self.optional_values, buf);
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        const NAME: &str = "SequenceProto";
        match tag {
            1 => encoding::string::merge(
                wire_type,
                self.name.get_or_insert_with(String::new),
                buf,
                ctx,
            )
            .map_err(at(NAME, "name")),
            2 => encoding::int32::merge(wire_type, self.elem_type.get_or_insert(0), buf, ctx)
                .map_err(at(NAME, "elem_type")),
            3 => encoding::message::merge_repeated(wire_type, &mut self.tensor_values, buf, ctx)
                .map_err(at(NAME, "tensor_values")),
            4 => encoding::message::merge_repeated(
                wire_type,
                &mut self.sparse_tensor_values,
                buf,
                ctx,
            )
            .map_err(at(NAME, "sparse_tensor_values")),
            5 => encoding::message::merge_repeated(wire_type, &mut self.sequence_values, buf, ctx)
                .map_err(at(NAME, "sequence_values")),
            6 => encoding::message::merge_repeated(wire_type, &mut self.map_values, buf, ctx)
                .map_err(at(NAME, "map_values")),
            7 => encoding::message::merge_repeated(wire_type, &mut self.optional_values, buf, ctx)
                .map_err(at(NAME, "optional_values")),
            _ => encoding::skip_field(wire_type, tag, buf, ctx),
        }
    }

    fn encoded_len(&self) -> usize {
        self.name
            .as_ref()
            .map_or(0, |name| encoding::string::encoded_len(1, name))
            + self
                .elem_type
                .as_ref()
                .map_or(0, |elem_type| encoding::int32::encoded_len(2, elem_type))
            + encoding::message::encoded_len_repeated(3, &self.tensor_values)
            + encoding::message::encoded_len_repeated(4, &self.sparse_tensor_values)
            + encoding::message::encoded_len_repeated(5, &self.sequence_values)
            + encoding::message::encoded_len_repeated(6, &self.map_values)
            + encoding::message::encoded_len_repeated(7, &self.optional_values)
    }

    fn clear(&mut self) {
        *self = SequenceProto::default();
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct MapProto {
    /// `string, optional, tag 1`
    pub name: Option<String>,
    /// `int32, optional, tag 2`
    pub key_type: Option<i32>,
    /// `int64, repeated, tag 3`: written packed, as the derive writes a repeated number that is
    /// not marked `packed = "false"`; read packed or not.
    pub keys: Vec<i64>,
    /// `bytes, repeated, tag 4`
    pub string_keys: Vec<Vec<u8>>,
    /// `message, optional, tag 5`
    pub values: Option<SequenceProto>,
}

impl Message for MapProto {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        if let Some(name) = &self.name {
            encoding::string::encode(1, name, buf);
        }
        if let Some(key_type) = &self.key_type {
            encoding::int32::encode(2, key_type, buf);
        }
        encoding::int64::encode_packed(3, &self.keys, buf);
        encoding::bytes::encode_repeated(4, &self.string_keys, buf);
        if let Some(values) = &self.values {
            encoding::message::encode(5, values, buf);
        }
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        const NAME: &str = "MapProto";
        match tag {
            1 => encoding::string::merge(
                wire_type,
                self.name.get_or_insert_with(String::new),
                buf,
                ctx,
            )
            .map_err(at(NAME, "name")),
            2 => encoding::int32::merge(wire_type, self.key_type.get_or_insert(0), buf, ctx)
                .map_err(at(NAME, "key_type")),
            3 => encoding::int64::merge_repeated(wire_type, &mut self.keys, buf, ctx)
                .map_err(at(NAME, "keys")),
            4 => encoding::bytes::merge_repeated(wire_type, &mut self.string_keys, buf, ctx)
                .map_err(at(NAME, "string_keys")),
            5 => encoding::message::merge(
                wire_type,
                self.values.get_or_insert_with(SequenceProto::default),
                buf,
                ctx,
            )
            .map_err(at(NAME, "values")),
            _ => encoding::skip_field(wire_type, tag, buf, ctx),
        }
    }

    fn encoded_len(&self) -> usize {
        self.name
            .as_ref()
            .map_or(0, |name| encoding::string::encoded_len(1, name))
            + self
                .key_type
                .as_ref()
                .map_or(0, |key_type| encoding::int32::encoded_len(2, key_type))
            + encoding::int64::encoded_len_packed(3, &self.keys)
            + encoding::bytes::encoded_len_repeated(4, &self.string_keys)
            + self
                .values
                .as_ref()
                .map_or(0, |values| encoding::message::encoded_len(5, values))
    }

    fn clear(&mut self) {
        *self = MapProto::default();
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct OptionalProto {
    /// `string, optional, tag 1`
    pub name: Option<String>,
    /// `int32, optional, tag 2`
    pub elem_type: Option<i32>,
    /// `message, optional, tag 3`
    pub tensor_value: Option<TensorProto>,
    /// `message, optional, tag 4`
    pub sparse_tensor_value: Option<SparseTensorProto>,
    /// `message, optional, tag 5`
    pub sequence_value: Option<SequenceProto>,
    /// `message, optional, tag 6`
    pub map_value: Option<MapProto>,
    /// `message, optional, boxed, tag 7`
    pub optional_value: Option<Box<OptionalProto>>,
}

impl Message for OptionalProto {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        if let Some(name) = &self.name {
            encoding::string::encode(1, name, buf);
        }
        if let Some(elem_type) = &self.elem_type {
            encoding::int32::encode(2, elem_type, buf);
        }
        if let Some(value) = &self.tensor_value {
            encoding::message::encode(3, value, buf);
        }
        if let Some(value) = &self.sparse_tensor_value {
            encoding::message::encode(4, value, buf);
        }
        if let Some(value) = &self.sequence_value {
            encoding::message::encode(5, value, buf);
        }
        if let Some(value) = &self.map_value {
            encoding::message::encode(6, value, buf);
        }
        if let Some(value) = &self.optional_value {
            encoding::message::encode(7, &**value, buf);
        }
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        const NAME: &str = "OptionalProto";
        match tag {
            1 => encoding::string::merge(
                wire_type,
                self.name.get_or_insert_with(String::new),
                buf,
                ctx,
            )
            .map_err(at(NAME, "name")),
            2 => encoding::int32::merge(wire_type, self.elem_type.get_or_insert(0), buf, ctx)
                .map_err(at(NAME, "elem_type")),
            3 => encoding::message::merge(
                wire_type,
                self.tensor_value.get_or_insert_with(TensorProto::default),
                buf,
                ctx,
            )
            .map_err(at(NAME, "tensor_value")),
            4 => encoding::message::merge(
                wire_type,
                self.sparse_tensor_value
                    .get_or_insert_with(SparseTensorProto::default),
                buf,
                ctx,
            )
            .map_err(at(NAME, "sparse_tensor_value")),
            5 => encoding::message::merge(
                wire_type,
                self.sequence_value
                    .get_or_insert_with(SequenceProto::default),
                buf,
                ctx,
            )
            .map_err(at(NAME, "sequence_value")),
            6 => encoding::message::merge(
                wire_type,
                self.map_value.get_or_insert_with(MapProto::default),
                buf,
                ctx,
            )
            .map_err(at(NAME, "map_value")),
            7 => encoding::message::merge(
                wire_type,
                &mut **self.optional_value.get_or_insert_with(Box::default),
                buf,
                ctx,
            )
            .map_err(at(NAME, "optional_value")),
            _ => encoding::skip_field(wire_type, tag, buf, ctx),
        }
    }

    fn encoded_len(&self) -> usize {
        self.name
            .as_ref()
            .map_or(0, |name| encoding::string::encoded_len(1, name))
            + self
                .elem_type
                .as_ref()
                .map_or(0, |elem_type| encoding::int32::encoded_len(2, elem_type))
            + self
                .tensor_value
                .as_ref()
                .map_or(0, |value| encoding::message::encoded_len(3, value))
            + self
                .sparse_tensor_value
                .as_ref()
                .map_or(0, |value| encoding::message::encoded_len(4, value))
            + self
                .sequence_value
                .as_ref()
                .map_or(0, |value| encoding::message::encoded_len(5, value))
            + self
                .map_value
                .as_ref()
                .map_or(0, |value| encoding::message::encoded_len(6, value))
            + self
                .optional_value
                .as_ref()
                .map_or(0, |value| encoding::message::encoded_len(7, &**value))
    }

    fn clear(&mut self) {
        *self = OptionalProto::default();
    }
}

#[cfg(test)]
mod tests {
    //! The hand-written impls against `#[derive(prost::Message)]` on copies of the three
    //! messages (prost's `derive` feature is on for this crate's tests only).
    use super::*;
    use onnx_runtime_types::tensor_proto::DataType;

    mod derived {
        use onnx_runtime_types::{SparseTensorProto, TensorProto};

        #[derive(Clone, PartialEq, prost::Message)]
        pub struct SequenceProto {
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
        pub struct MapProto {
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
        pub struct OptionalProto {
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
    }

    // Field-by-field copies into the derived types, written without going through bytes.
    fn sequence(s: &SequenceProto) -> derived::SequenceProto {
        derived::SequenceProto {
            name: s.name.clone(),
            elem_type: s.elem_type,
            tensor_values: s.tensor_values.clone(),
            sparse_tensor_values: s.sparse_tensor_values.clone(),
            sequence_values: s.sequence_values.iter().map(sequence).collect(),
            map_values: s.map_values.iter().map(map).collect(),
            optional_values: s.optional_values.iter().map(optional).collect(),
        }
    }

    fn map(m: &MapProto) -> derived::MapProto {
        derived::MapProto {
            name: m.name.clone(),
            key_type: m.key_type,
            keys: m.keys.clone(),
            string_keys: m.string_keys.clone(),
            values: m.values.as_ref().map(sequence),
        }
    }

    fn optional(o: &OptionalProto) -> derived::OptionalProto {
        derived::OptionalProto {
            name: o.name.clone(),
            elem_type: o.elem_type,
            tensor_value: o.tensor_value.clone(),
            sparse_tensor_value: o.sparse_tensor_value.clone(),
            sequence_value: o.sequence_value.as_ref().map(sequence),
            map_value: o.map_value.as_ref().map(map),
            optional_value: o.optional_value.as_deref().map(|o| Box::new(optional(o))),
        }
    }

    fn tensor(name: &str, values: &[f32]) -> TensorProto {
        TensorProto {
            name: Some(name.to_string()),
            dims: vec![values.len() as i64],
            data_type: Some(DataType::Float as i32),
            float_data: values.to_vec(),
            ..Default::default()
        }
    }

    /// Messages with every field set at least once, nested three deep, and empty ones.
    fn samples() -> (Vec<SequenceProto>, Vec<MapProto>, Vec<OptionalProto>) {
        let sparse = SparseTensorProto {
            values: Some(tensor("v", &[1.5])),
            indices: Some(TensorProto {
                dims: vec![1],
                data_type: Some(DataType::Int64 as i32),
                int64_data: vec![3],
                ..Default::default()
            }),
            dims: vec![8],
        };
        let int_map = MapProto {
            name: Some("m".into()),
            key_type: Some(DataType::Int64 as i32),
            keys: vec![-1, 0, 300, i64::MAX],
            string_keys: vec![],
            values: Some(SequenceProto {
                elem_type: Some(elem_type::TENSOR),
                tensor_values: (0..4).map(|i| tensor("", &[i as f32])).collect(),
                ..Default::default()
            }),
        };
        let string_map = MapProto {
            name: None,
            key_type: Some(DataType::String as i32),
            keys: vec![],
            string_keys: vec![b"a".to_vec(), Vec::new(), vec![0xff; 200]],
            values: None,
        };
        let inner_optional = OptionalProto {
            name: Some(String::new()),
            elem_type: Some(elem_type::TENSOR),
            tensor_value: Some(tensor("t", &[])),
            ..Default::default()
        };
        let sequence_all = SequenceProto {
            name: Some("é s".into()),
            elem_type: Some(-7),
            tensor_values: vec![tensor("a", &[1.0, -0.5]), TensorProto::default()],
            sparse_tensor_values: vec![sparse.clone()],
            sequence_values: vec![SequenceProto::default()],
            map_values: vec![int_map.clone(), string_map.clone()],
            optional_values: vec![inner_optional.clone(), OptionalProto::default()],
        };
        let optional_all = OptionalProto {
            name: Some("o".into()),
            elem_type: Some(elem_type::OPTIONAL),
            tensor_value: Some(tensor("x", &[2.0; 40])),
            sparse_tensor_value: Some(sparse),
            sequence_value: Some(sequence_all.clone()),
            map_value: Some(int_map.clone()),
            optional_value: Some(Box::new(OptionalProto {
                optional_value: Some(Box::new(inner_optional.clone())),
                ..Default::default()
            })),
        };
        let nested = SequenceProto {
            elem_type: Some(elem_type::SEQUENCE),
            sequence_values: vec![sequence_all.clone(), SequenceProto::default()],
            optional_values: vec![optional_all.clone()],
            ..Default::default()
        };
        (
            vec![SequenceProto::default(), sequence_all, nested],
            vec![MapProto::default(), int_map, string_map],
            vec![OptionalProto::default(), inner_optional, optional_all],
        )
    }

    /// Encodes both ways, checks the bytes and lengths are the same, and that each side decodes
    /// the bytes back to the message.
    fn same<H, D>(hand: &H, derived: &D)
    where
        H: Message + Default + PartialEq + std::fmt::Debug,
        D: Message + Default + PartialEq + std::fmt::Debug,
    {
        let bytes = hand.encode_to_vec();
        assert_eq!(bytes, derived.encode_to_vec(), "{hand:?}");
        assert_eq!(hand.encoded_len(), derived.encoded_len());
        assert_eq!(hand.encoded_len(), bytes.len());
        assert_eq!(&H::decode(&bytes[..]).unwrap(), hand);
        assert_eq!(&D::decode(&bytes[..]).unwrap(), derived);
        // Merging into a message already read appends repeated fields and replaces the rest,
        // the same way on both sides.
        let (mut h, mut d) = (
            H::decode(&bytes[..]).unwrap(),
            D::decode(&bytes[..]).unwrap(),
        );
        h.merge(&bytes[..]).unwrap();
        d.merge(&bytes[..]).unwrap();
        assert_eq!(h.encode_to_vec(), d.encode_to_vec());
        // Every cut of the bytes fails (or not) alike, with the same message.
        for cut in 0..bytes.len() {
            let (h, d) = (H::decode(&bytes[..cut]), D::decode(&bytes[..cut]));
            match (h, d) {
                (Ok(h), Ok(d)) => assert_eq!(h.encode_to_vec(), d.encode_to_vec()),
                (Err(h), Err(d)) => assert_eq!(h.to_string(), d.to_string(), "cut at {cut}"),
                (h, d) => panic!("cut at {cut}: {h:?} against {d:?}"),
            }
        }
        let mut cleared = H::decode(&bytes[..]).unwrap();
        cleared.clear();
        assert_eq!(cleared, H::default());
    }

    #[test]
    fn the_hand_written_impls_encode_and_decode_as_the_derived_ones() {
        let (sequences, maps, optionals) = samples();
        for s in &sequences {
            same(s, &sequence(s));
        }
        for m in &maps {
            same(m, &map(m));
        }
        for o in &optionals {
            same(o, &optional(o));
        }
    }

    #[test]
    fn keys_are_read_packed_or_not_and_unknown_fields_are_skipped() {
        // keys 1 and 2 unpacked (as onnx's proto2 writes them), then field 9 (a varint) that
        // neither knows, then key 3 packed.
        let bytes = [0x18, 1, 0x18, 2, 0x48, 5, 0x1a, 1, 3];
        let hand = MapProto::decode(&bytes[..]).unwrap();
        assert_eq!(hand.keys, [1, 2, 3]);
        assert_eq!(map(&hand), derived::MapProto::decode(&bytes[..]).unwrap());
        // A field of the wrong wire type names where it failed, as the derive does.
        let bad = [0x12, 0x01, 0x00];
        let (h, d) = (
            SequenceProto::decode(&bad[..]).unwrap_err(),
            derived::SequenceProto::decode(&bad[..]).unwrap_err(),
        );
        assert_eq!(h.to_string(), d.to_string());
        assert!(h.to_string().contains("SequenceProto.elem_type"), "{h}");
    }
}
