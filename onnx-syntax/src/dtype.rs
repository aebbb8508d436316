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

/// The element type names a mistyped `word` may have meant, for "did you mean": the name that
/// differs only in case (`Float`), else the names it begins (at most four: `int` → `int8`,
/// `int16`, `int32`, `int64`), else the nearest by edit distance (`flaot`), else none.
///
/// ```
/// use onnx_syntax::dtype::similar_elem_types;
/// assert_eq!(similar_elem_types("Float"), ["float"]);
/// assert_eq!(similar_elem_types("flaot"), ["float"]);
/// assert_eq!(similar_elem_types("int"), ["int8", "int16", "int32", "int64"]);
/// assert!(similar_elem_types("tensor").is_empty());
/// ```
pub fn similar_elem_types(word: &str) -> Vec<&'static str> {
    let names = || ELEM_TYPES.iter().map(|t| t.name);
    if let Some(name) = names().find(|name| name.eq_ignore_ascii_case(word)) {
        return vec![name];
    }
    let lower = word.to_ascii_lowercase();
    let begun: Vec<&str> = names()
        .filter(|name| !lower.is_empty() && name.starts_with(&lower))
        .take(4)
        .collect();
    if !begun.is_empty() {
        return begun;
    }
    crate::similar::closest(word, names()).into_iter().collect()
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

/// How many values the typed field of element type `number` ([`Storage`]) holds for
/// `elements` elements: one each, two per complex number (real and imaginary parts), and two
/// 4-bit or four 2-bit elements packed in each value. `None` for an unknown type or a count
/// that overflows.
///
/// ```
/// use onnx_syntax::dtype::typed_value_count;
/// assert_eq!(typed_value_count(1, 6), Some(6)); // float
/// assert_eq!(typed_value_count(14, 3), Some(6)); // complex64
/// assert_eq!(typed_value_count(22, 3), Some(2)); // int4
/// assert_eq!(typed_value_count(26, 5), Some(2)); // int2
/// assert_eq!(typed_value_count(99, 1), None);
/// ```
pub fn typed_value_count(number: i32, elements: u64) -> Option<u64> {
    elem_type_by_number(number)?;
    match number {
        14 | 15 => elements.checked_mul(2),
        21..=23 => Some(elements.div_ceil(2)),
        25 | 26 => Some(elements.div_ceil(4)),
        _ => Some(elements),
    }
}

/// How many bytes of `raw_data` hold `elements` elements of type `number`: little-endian
/// values of the type's width, 4-bit and 2-bit elements packed into bytes, 6-bit ones into a
/// bit stream. `None` for strings (never in `raw_data`), an unknown type, or an overflow.
///
/// ```
/// use onnx_syntax::dtype::raw_byte_count;
/// assert_eq!(raw_byte_count(1, 3), Some(12)); // float
/// assert_eq!(raw_byte_count(15, 1), Some(16)); // complex128
/// assert_eq!(raw_byte_count(21, 3), Some(2)); // uint4
/// assert_eq!(raw_byte_count(27, 5), Some(4)); // float6e2m3: 30 bits
/// assert_eq!(raw_byte_count(8, 1), None); // string
/// ```
pub fn raw_byte_count(number: i32, elements: u64) -> Option<u64> {
    let width: u64 = match number {
        2 | 3 | 9 | 17..=20 | 24 => 1,
        4 | 5 | 10 | 16 => 2,
        1 | 6 | 12 => 4,
        7 | 11 | 13 | 14 => 8,
        15 => 16,
        21..=23 => return Some(elements.div_ceil(2)),
        25 | 26 => return Some(elements.div_ceil(4)),
        27 | 28 => return elements.checked_mul(6).map(|bits| bits.div_ceil(8)),
        _ => return None,
    };
    elements.checked_mul(width)
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
