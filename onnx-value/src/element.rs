//! Rust element types and how a tensor stores them: the one conversion behind
//! [`Value::tensor`](crate::Value::tensor) and [`Value::to_vec`](crate::Value::to_vec).

use onnx_runtime_types::TensorProto;
use onnx_runtime_types::tensor_proto::DataType;

/// A Rust type that is an ONNX element type: `f32`, `f64`, the integers, `bool`, `String`, and
/// with the feature `half`, `half`'s `f16` and `bf16` (the feature is off by default, so that
/// the conformance kit, which every runtime's test build compiles, does not build `half` and
/// `zerocopy`; the kit reads float16 and bfloat16 itself, through `elements`).
///
/// ```
/// use onnx_value::Element;
/// use onnx_runtime_types::tensor_proto::DataType;
///
/// assert_eq!(<i64 as Element>::DATA_TYPE, DataType::Int64);
/// #[cfg(feature = "half")]
/// assert_eq!(<half::bf16 as Element>::DATA_TYPE, DataType::Bfloat16);
/// ```
pub trait Element: Sized {
    /// The element type of a tensor of these.
    const DATA_TYPE: DataType;

    /// Stores `values` in `tensor`'s data field (`raw_data`, or `string_data` for strings).
    #[doc(hidden)]
    fn store(values: &[Self], tensor: &mut TensorProto);

    /// Reads `count` values from `tensor`, whichever field holds them; `None` if the data does
    /// not hold exactly `count`.
    #[doc(hidden)]
    fn load(tensor: &TensorProto, count: usize) -> Option<Vec<Self>>;
}

/// Fixed-width numbers: little-endian in `raw_data`, else in the typed field onnx assigns them.
macro_rules! number {
    ($t:ty, $data_type:ident, $width:literal, $field:ident, $from_field:expr) => {
        impl Element for $t {
            const DATA_TYPE: DataType = DataType::$data_type;

            fn store(values: &[Self], tensor: &mut TensorProto) {
                let mut raw = Vec::with_capacity(values.len() * $width);
                for v in values {
                    raw.extend_from_slice(&v.to_le_bytes());
                }
                tensor.raw_data = Some(raw);
            }

            fn load(tensor: &TensorProto, count: usize) -> Option<Vec<Self>> {
                // Loops over `fn`s, not iterator chains per type (see `elements::each`).
                let values: Vec<Self> = match tensor.raw_data.as_deref() {
                    Some(raw) => {
                        crate::elements::from_chunks::<$width, Self>(raw, <$t>::from_le_bytes)
                    }
                    None => crate::elements::each(&tensor.$field, $from_field),
                };
                (values.len() == count).then_some(values)
            }
        }
    };
}

number!(f32, Float, 4, float_data, |v| v);
number!(f64, Double, 8, double_data, |v| v);
number!(i8, Int8, 1, int32_data, |v| v as i8);
number!(u8, Uint8, 1, int32_data, |v| v as u8);
number!(i16, Int16, 2, int32_data, |v| v as i16);
number!(u16, Uint16, 2, int32_data, |v| v as u16);
number!(i32, Int32, 4, int32_data, |v| v);
number!(i64, Int64, 8, int64_data, |v| v);
number!(u32, Uint32, 4, uint64_data, |v| v as u32);
number!(u64, Uint64, 8, uint64_data, |v| v);
// float16 and bfloat16 keep their bit patterns in int32_data.
#[cfg(feature = "half")]
number!(half::f16, Float16, 2, int32_data, |v| half::f16::from_bits(
    v as u16
));
#[cfg(feature = "half")]
number!(half::bf16, Bfloat16, 2, int32_data, |v| {
    half::bf16::from_bits(v as u16)
});

impl Element for bool {
    const DATA_TYPE: DataType = DataType::Bool;

    fn store(values: &[Self], tensor: &mut TensorProto) {
        tensor.raw_data = Some(crate::elements::each(values, u8::from));
    }

    fn load(tensor: &TensorProto, count: usize) -> Option<Vec<Self>> {
        let values: Vec<bool> = match tensor.raw_data.as_deref() {
            Some(raw) => crate::elements::each(raw, |b| b != 0),
            None => crate::elements::each(&tensor.int32_data, |v| v != 0),
        };
        (values.len() == count).then_some(values)
    }
}

/// Strings as Rust strings: reading fails on one that is not UTF-8 (read `string_data` for
/// those).
impl Element for String {
    const DATA_TYPE: DataType = DataType::String;

    fn store(values: &[Self], tensor: &mut TensorProto) {
        tensor.string_data = values.iter().map(|s| s.as_bytes().to_vec()).collect();
    }

    fn load(tensor: &TensorProto, count: usize) -> Option<Vec<Self>> {
        let values: Option<Vec<String>> = tensor
            .string_data
            .iter()
            .map(|s| String::from_utf8(s.clone()).ok())
            .collect();
        values.filter(|v| v.len() == count)
    }
}
