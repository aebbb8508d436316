//! The generated impls (`src/generated/onnx_impls.rs`) against prost's derive macros, which
//! they replace: prost-build's own output for the same schema, derives and all, is committed
//! under `tests/prost_derive/` (`tests/generated_code/` keeps it current) and compiled here
//! with prost's `derive` feature, a dev-dependency.
//!
//! Every message type decodes the same random wire data, well-formed and not, with both; the
//! results must be the same: the same bytes when encoded again, the same `encoded_len`, the same
//! `Debug` text, or the same `DecodeError`. The data comes from the schema's descriptors, so it
//! exercises every field of every message: packed and unpacked repeated numbers (either form for
//! any repeated number, as decoders accept both), oneofs (with a member repeated or replaced),
//! boxed fields, enums (with numbers outside the enum), nested messages, fields given twice,
//! unknown fields, wrong wire types, invalid UTF-8, truncation.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Debug;

use prost::Message;
use prost::encoding::{WireType, encode_key, encode_varint};
use prost_types::field_descriptor_proto::{Label, Type};
use prost_types::{DescriptorProto, FieldDescriptorProto, FileDescriptorSet};

/// prost-build's output, with prost's derives.
#[allow(clippy::all, dead_code)]
mod derived {
    include!("prost_derive/onnx.rs");
}

/// Runs `$check!(name, type path)` for each message type, by its fully qualified proto name.
macro_rules! for_each_message {
    ($check:ident) => {
        $check!("onnx.AttributeProto", AttributeProto);
        $check!("onnx.ValueInfoProto", ValueInfoProto);
        $check!("onnx.NodeProto", NodeProto);
        $check!("onnx.IntIntListEntryProto", IntIntListEntryProto);
        $check!(
            "onnx.NodeDeviceConfigurationProto",
            NodeDeviceConfigurationProto
        );
        $check!("onnx.ShardingSpecProto", ShardingSpecProto);
        $check!("onnx.ShardedDimProto", ShardedDimProto);
        $check!("onnx.SimpleShardedDimProto", SimpleShardedDimProto);
        $check!("onnx.TrainingInfoProto", TrainingInfoProto);
        $check!("onnx.ModelProto", ModelProto);
        $check!("onnx.DeviceConfigurationProto", DeviceConfigurationProto);
        $check!("onnx.StringStringEntryProto", StringStringEntryProto);
        $check!("onnx.TensorAnnotation", TensorAnnotation);
        $check!("onnx.GraphProto", GraphProto);
        $check!("onnx.TensorProto", TensorProto);
        $check!("onnx.TensorProto.Segment", tensor_proto::Segment);
        $check!("onnx.SparseTensorProto", SparseTensorProto);
        $check!("onnx.TensorShapeProto", TensorShapeProto);
        $check!(
            "onnx.TensorShapeProto.Dimension",
            tensor_shape_proto::Dimension
        );
        $check!("onnx.TypeProto", TypeProto);
        $check!("onnx.TypeProto.Tensor", type_proto::Tensor);
        $check!("onnx.TypeProto.Sequence", type_proto::Sequence);
        $check!("onnx.TypeProto.Map", type_proto::Map);
        $check!("onnx.TypeProto.Optional", type_proto::Optional);
        $check!("onnx.TypeProto.SparseTensor", type_proto::SparseTensor);
        $check!("onnx.TypeProto.Opaque", type_proto::Opaque);
        $check!("onnx.OperatorSetIdProto", OperatorSetIdProto);
        $check!("onnx.FunctionProto", FunctionProto);
    };
}

/// Random inputs for each message type.
const CASES: usize = 400;

#[test]
fn generated_impls_decode_and_encode_as_prosts_derive_does() {
    let schema = Schema::new();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut checked = BTreeSet::new();
    macro_rules! check {
        ($name:literal, $($ty:tt)*) => {{
            checked.insert($name.to_owned());
            for case in 0..CASES {
                let bytes = schema.message(&mut rng, $name, 0);
                let bytes = match case % 8 {
                    // Well-formed, mostly.
                    0..=4 => bytes,
                    // The same twice: a message merges into itself, repeated fields append, a
                    // oneof's member merges into the one that is set.
                    5 => [bytes.as_slice(), bytes.as_slice()].concat(),
                    // Cut short: an error, or a message with fewer fields.
                    6 => bytes[..rng.below(bytes.len() as u64 + 1) as usize].to_vec(),
                    // A byte changed.
                    _ => {
                        let mut bytes = bytes;
                        if !bytes.is_empty() {
                            let at = rng.below(bytes.len() as u64) as usize;
                            bytes[at] = rng.next() as u8;
                        }
                        bytes
                    }
                };
                compare::<derived::$($ty)*, onnx_runtime_types::$($ty)*>($name, &bytes);
            }
        }};
    }
    for_each_message!(check);
    assert_eq!(
        checked,
        schema.messages.keys().cloned().collect(),
        "a message is not checked"
    );
}

/// Decodes `bytes` as `D` (prost's derive) and as `G` (ours) and compares what each makes of them.
fn compare<D: Message + Default + Debug, G: Message + Default + Debug>(name: &str, bytes: &[u8]) {
    let context = || format!("{name} from {bytes:02x?}");
    match (D::decode(bytes), G::decode(bytes)) {
        (Ok(mut d), Ok(mut g)) => {
            assert_eq!(d.encode_to_vec(), g.encode_to_vec(), "{}", context());
            assert_eq!(d.encoded_len(), g.encoded_len(), "{}", context());
            assert_eq!(format!("{d:?}"), format!("{g:?}"), "{}", context());
            d.clear();
            g.clear();
            assert_eq!(g.encoded_len(), 0, "{}", context());
            assert_eq!(format!("{d:?}"), format!("{g:?}"), "{}", context());
        }
        (Err(d), Err(g)) => assert_eq!(d, g, "{}", context()),
        (d, g) => panic!("{}: prost's derive gives {d:?}, ours {g:?}", context()),
    }
}

#[test]
fn enums_convert_and_name_as_prosts_derive_does() {
    use derived::{attribute_proto as d_attr, tensor_proto as d_tensor};
    use onnx_runtime_types::{attribute_proto as g_attr, tensor_proto as g_tensor};
    macro_rules! check {
        ($d:ty, $g:ty) => {
            assert_eq!(<$d>::default() as i32, <$g>::default() as i32);
            for value in -2..40 {
                let d = <$d>::try_from(value);
                let g = <$g>::try_from(value);
                assert_eq!(d.map(i32::from), g.map(i32::from));
                assert_eq!(<$d>::is_valid(value), <$g>::is_valid(value));
                #[allow(deprecated)]
                let (d_old, g_old) = (<$d>::from_i32(value), <$g>::from_i32(value));
                assert_eq!(d_old.map(|v| v as i32), g_old.map(|v| v as i32));
                if let (Ok(d), Ok(g)) = (d, g) {
                    assert_eq!(d.as_str_name(), g.as_str_name());
                    assert_eq!(format!("{d:?}"), format!("{g:?}"));
                }
            }
        };
    }
    check!(d_tensor::DataType, g_tensor::DataType);
    check!(d_tensor::DataLocation, g_tensor::DataLocation);
    check!(d_attr::AttributeType, g_attr::AttributeType);
    check!(derived::Version, onnx_runtime_types::Version);
    check!(derived::OperatorStatus, onnx_runtime_types::OperatorStatus);
}

#[test]
fn getters_and_setters_are_prosts_derives() {
    use onnx_runtime_types as g;
    // Unset, a variant, and a number that names none.
    for value in [None, Some(1), Some(77)] {
        let d = derived::TensorProto {
            data_location: value,
            ..Default::default()
        };
        let mut g = g::TensorProto {
            data_location: value,
            ..Default::default()
        };
        assert_eq!(d.data_location() as i32, g.data_location() as i32);
        assert_eq!(format!("{d:?}"), format!("{g:?}"));
        g.set_data_location(g::tensor_proto::DataLocation::External);
        assert_eq!(g.data_location, Some(1));

        let d = derived::AttributeProto {
            r#type: value,
            ..Default::default()
        };
        let mut g = g::AttributeProto {
            r#type: value,
            ..Default::default()
        };
        assert_eq!(d.r#type() as i32, g.r#type() as i32);
        assert_eq!(format!("{d:?}"), format!("{g:?}"));
        g.set_type(g::attribute_proto::AttributeType::Ints);
        assert_eq!(g.r#type, Some(7));
    }
    // Optional scalars: the value, or the type's default.
    let d = derived::TensorProto::default();
    let g = g::TensorProto::default();
    assert_eq!(
        (d.name(), d.raw_data(), d.data_type()),
        (g.name(), g.raw_data(), g.data_type())
    );
    let d = derived::TensorProto {
        name: Some("x".into()),
        raw_data: Some(vec![1, 2]),
        data_type: Some(7),
        ..Default::default()
    };
    let g = g::TensorProto::decode(d.encode_to_vec().as_slice()).unwrap();
    assert_eq!(
        (d.name(), d.raw_data(), d.data_type()),
        (g.name(), g.raw_data(), g.data_type())
    );
    let d = derived::AttributeProto {
        f: Some(1.5),
        i: Some(-3),
        ..Default::default()
    };
    let g = g::AttributeProto::decode(d.encode_to_vec().as_slice()).unwrap();
    assert_eq!((d.f(), d.i()), (g.f(), g.i()));
}

/// The schema's messages, by fully qualified name (without the leading dot).
struct Schema {
    messages: BTreeMap<String, DescriptorProto>,
}

impl Schema {
    fn new() -> Self {
        let set = FileDescriptorSet::decode(onnx_runtime_types::FILE_DESCRIPTOR_SET).unwrap();
        let mut messages = BTreeMap::new();
        fn add(
            prefix: &str,
            message: &DescriptorProto,
            messages: &mut BTreeMap<String, DescriptorProto>,
        ) {
            let name = format!("{prefix}.{}", message.name());
            for inner in &message.nested_type {
                add(&name, inner, messages);
            }
            messages.insert(name, message.clone());
        }
        for file in &set.file {
            for message in &file.message_type {
                add(file.package(), message, &mut messages);
            }
        }
        Schema { messages }
    }

    /// Random wire data for the message `name`, `depth` levels down.
    fn message(&self, rng: &mut Rng, name: &str, depth: u32) -> Vec<u8> {
        let descriptor = &self.messages[name];
        let mut parts: Vec<Vec<u8>> = Vec::new();
        for field in &descriptor.field {
            // Fewer fields further down, so that the data stays small.
            if !rng.chance(1, 2 + depth as u64) || (field.r#type() == Type::Message && depth >= 4) {
                continue;
            }
            let number = field.number() as u32;
            let repeated = field.label() == Label::Repeated;
            let count = if repeated {
                1 + rng.below(4)
            } else if rng.chance(1, 8) {
                2
            } else {
                1
            };
            if repeated && packable(field) && rng.chance(1, 2) {
                let mut values = Vec::new();
                for _ in 0..count {
                    self.value(rng, field, depth, &mut values);
                }
                let mut part = Vec::new();
                encode_key(number, WireType::LengthDelimited, &mut part);
                encode_varint(values.len() as u64, &mut part);
                part.extend(values);
                parts.push(part);
            } else {
                for _ in 0..count {
                    let mut part = Vec::new();
                    // Now and then the wrong wire type, which both must reject alike.
                    let wire_type = if rng.chance(1, 100) {
                        WireType::try_from(rng.below(6)).unwrap()
                    } else {
                        wire_type(field)
                    };
                    encode_key(number, wire_type, &mut part);
                    self.value(rng, field, depth, &mut part);
                    parts.push(part);
                }
            }
        }
        if rng.chance(1, 4) {
            // A field the schema does not have: skipped.
            let numbers: BTreeSet<u32> =
                descriptor.field.iter().map(|f| f.number() as u32).collect();
            let number = (1000..).find(|n| !numbers.contains(n)).unwrap() + rng.below(50) as u32;
            let mut part = Vec::new();
            match rng.below(4) {
                0 => {
                    encode_key(number, WireType::Varint, &mut part);
                    encode_varint(rng.next(), &mut part);
                }
                1 => {
                    encode_key(number, WireType::SixtyFourBit, &mut part);
                    part.extend(rng.next().to_le_bytes());
                }
                2 => {
                    encode_key(number, WireType::ThirtyTwoBit, &mut part);
                    part.extend((rng.next() as u32).to_le_bytes());
                }
                _ => {
                    encode_key(number, WireType::LengthDelimited, &mut part);
                    let bytes = rng.bytes(8);
                    encode_varint(bytes.len() as u64, &mut part);
                    part.extend(bytes);
                }
            }
            parts.push(part);
        }
        // Any order: fields need not come in number order, nor a repeated field's elements together.
        if rng.chance(1, 4) {
            for i in (1..parts.len()).rev() {
                parts.swap(i, rng.below(i as u64 + 1) as usize);
            }
        }
        parts.concat()
    }

    /// A random value of `field`'s type, without its key (packed values are the same).
    fn value(&self, rng: &mut Rng, field: &FieldDescriptorProto, depth: u32, out: &mut Vec<u8>) {
        match field.r#type() {
            Type::Int32 | Type::Int64 | Type::Uint32 | Type::Uint64 | Type::Bool => {
                encode_varint(rng.number(), out);
            }
            // Numbers of the enum and not: decoding keeps both.
            Type::Enum => encode_varint(rng.below(32).wrapping_sub(2), out),
            Type::Float | Type::Fixed32 | Type::Sfixed32 => {
                out.extend((rng.number() as u32).to_le_bytes());
            }
            Type::Double | Type::Fixed64 | Type::Sfixed64 => {
                out.extend(rng.number().to_le_bytes());
            }
            Type::String => {
                let mut text: Vec<u8> = "aé€𝄞x"
                    .bytes()
                    .cycle()
                    .take(rng.below(12) as usize)
                    .collect();
                // Valid UTF-8 unless cut inside a character; sometimes plainly invalid.
                if rng.chance(1, 20) {
                    text.push(0xff);
                }
                encode_varint(text.len() as u64, out);
                out.extend(text);
            }
            Type::Bytes => {
                let bytes = rng.bytes(12);
                encode_varint(bytes.len() as u64, out);
                out.extend(bytes);
            }
            Type::Message => {
                let name = field.type_name().trim_start_matches('.');
                let bytes = self.message(rng, name, depth + 1);
                encode_varint(bytes.len() as u64, out);
                out.extend(bytes);
            }
            other => panic!("{}: {other:?} is not in the schema", field.name()),
        }
    }
}

fn packable(field: &FieldDescriptorProto) -> bool {
    !matches!(field.r#type(), Type::String | Type::Bytes | Type::Message)
}

fn wire_type(field: &FieldDescriptorProto) -> WireType {
    match field.r#type() {
        Type::Float | Type::Fixed32 | Type::Sfixed32 => WireType::ThirtyTwoBit,
        Type::Double | Type::Fixed64 | Type::Sfixed64 => WireType::SixtyFourBit,
        Type::String | Type::Bytes | Type::Message => WireType::LengthDelimited,
        _ => WireType::Varint,
    }
}

/// xorshift64*: deterministic, so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }

    fn chance(&mut self, k: u64, n: u64) -> bool {
        self.below(n) < k
    }

    /// A number of any size: small, large, negative (as a 64-bit varint), or any bits.
    fn number(&mut self) -> u64 {
        match self.below(4) {
            0 => self.below(200),
            1 => self.below(1 << 40),
            2 => (self.below(1000) as i64).wrapping_neg() as u64,
            _ => self.next(),
        }
    }

    fn bytes(&mut self, max: u64) -> Vec<u8> {
        (0..self.below(max + 1))
            .map(|_| self.next() as u8)
            .collect()
    }
}
