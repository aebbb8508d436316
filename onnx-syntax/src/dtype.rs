//! Tensor element types: their names in the syntax, their `TensorProto.DataType` numbers, and the
//! `TensorProto` field their literals are stored in.

/// The `TensorProto` data field that holds a tensor's literals.
///
/// ```
/// use onnx_syntax::dtype::{Storage, elem_type_by_name};
/// assert_eq!(elem_type_by_name("bfloat16").unwrap().storage, Storage::Int32);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// `int32_data`; only the int32 range is checked by the reference.
    Int32,
    /// `int64_data`
    Int64,
    /// `uint64_data`, with C `stoull` semantics (a minus sign wraps).
    Uint64,
    /// `float_data` (float, and complex64 interleaved)
    Float,
    /// `double_data` (double, and complex128 interleaved)
    Double,
    /// `string_data`
    String,
}

/// An element type known to the syntax.
///
/// ```
/// let info = onnx_syntax::dtype::elem_type_by_name("double").unwrap();
/// assert_eq!((info.name, info.number), ("double", 11));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElemTypeInfo {
    /// The keyword, e.g. `float16`.
    pub name: &'static str,
    /// The `TensorProto.DataType` number.
    pub number: i32,
    /// Where its literals go.
    pub storage: Storage,
}

const fn info(name: &'static str, number: i32, storage: Storage) -> ElemTypeInfo {
    ElemTypeInfo {
        name,
        number,
        storage,
    }
}

/// Every element type, by number (index `n - 1` holds type `n`).
///
/// ```
/// assert!(onnx_syntax::dtype::ELEM_TYPES.iter().enumerate().all(|(i, t)| t.number == i as i32 + 1));
/// ```
pub const ELEM_TYPES: [ElemTypeInfo; 28] = [
    info("float", 1, Storage::Float),
    info("uint8", 2, Storage::Int32),
    info("int8", 3, Storage::Int32),
    info("uint16", 4, Storage::Int32),
    info("int16", 5, Storage::Int32),
    info("int32", 6, Storage::Int32),
    info("int64", 7, Storage::Int64),
    info("string", 8, Storage::String),
    info("bool", 9, Storage::Int32),
    info("float16", 10, Storage::Int32),
    info("double", 11, Storage::Double),
    info("uint32", 12, Storage::Uint64),
    info("uint64", 13, Storage::Uint64),
    info("complex64", 14, Storage::Float),
    info("complex128", 15, Storage::Double),
    info("bfloat16", 16, Storage::Int32),
    info("float8e4m3fn", 17, Storage::Int32),
    info("float8e4m3fnuz", 18, Storage::Int32),
    info("float8e5m2", 19, Storage::Int32),
    info("float8e5m2fnuz", 20, Storage::Int32),
    info("uint4", 21, Storage::Int32),
    info("int4", 22, Storage::Int32),
    info("float4e2m1", 23, Storage::Int32),
    info("float8e8m0", 24, Storage::Int32),
    info("uint2", 25, Storage::Int32),
    info("int2", 26, Storage::Int32),
    info("float6e2m3", 27, Storage::Int32),
    info("float6e3m2", 28, Storage::Int32),
];

/// The element type named `name`, if it is one (case-sensitive).
///
/// ```
/// use onnx_syntax::dtype::elem_type_by_name;
/// assert_eq!(elem_type_by_name("float16").map(|t| t.number), Some(10));
/// assert!(elem_type_by_name("float32").is_none());
/// ```
pub fn elem_type_by_name(name: &str) -> Option<&'static ElemTypeInfo> {
    ELEM_TYPES.iter().find(|t| t.name == name)
}

/// The element type numbered `number`, if the syntax has a name for it.
///
/// ```
/// use onnx_syntax::dtype::elem_type_by_number;
/// assert_eq!(elem_type_by_number(7).map(|t| t.name), Some("int64"));
/// assert!(elem_type_by_number(0).is_none());
/// ```
pub fn elem_type_by_number(number: i32) -> Option<&'static ElemTypeInfo> {
    usize::try_from(number)
        .ok()
        .and_then(|n| n.checked_sub(1))
        .and_then(|i| ELEM_TYPES.get(i))
}

/// Words that start a type, besides the element type names.
///
/// ```
/// assert!(onnx_syntax::dtype::TYPE_KEYWORDS.contains(&"opaque"));
/// ```
pub const TYPE_KEYWORDS: [&str; 5] = ["seq", "map", "optional", "sparse_tensor", "opaque"];

/// True if `word` starts a type: an element type name or a type keyword.
///
/// ```
/// assert!(onnx_syntax::dtype::starts_type("seq"));
/// assert!(!onnx_syntax::dtype::starts_type("tensor"));
/// ```
pub fn starts_type(word: &str) -> bool {
    elem_type_by_name(word).is_some() || TYPE_KEYWORDS.contains(&word)
}
