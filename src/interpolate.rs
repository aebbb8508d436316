//! Rust values in macro literals: one trait per position a hole can take.
//!
//! `#x` and `#(expr)` put one value into a literal, `..#xs` and `..#(expr)` every item of an
//! `IntoIterator`. The macros call the trait of the hole's position on a reference to the
//! value, so a value of the wrong type is a compile error on the hole, naming the position and
//! what it takes:
//!
//! ```
//! use onnx_text::onnx;
//!
//! let (batch, alpha, perm) = (8_i64, 0.2_f32, [1_i64, 0]);
//! let model = onnx! {
//!     <ir_version: 10, opset_import: ["" : 21]>
//!     g (float[#batch, 4] x) => (float[4, #batch] y) {
//!         t = LeakyRelu <alpha = #alpha> (x)
//!         y = Transpose <perm = #perm> (t)
//!     }
//! };
//! let graph = model.graph.unwrap();
//! assert_eq!(graph.node[0].attribute[0].f, Some(0.2));
//! assert_eq!(graph.node[1].attribute[0].ints, [1, 0]);
//! ```
//!
//! Attribute values take their type from the operator's schema (at the imported opset), else
//! from the annotation (`alpha: float = #a`), else from the Rust type ([`AttributeValue`]).
//! Conversions that can lose information (an `f64` into `float` data, a `u64` dimension) are not
//! offered, or fail when the literal is evaluated, as an index out of bounds does.

use crate::{
    AttributeProto, FunctionProto, GraphProto, NodeProto, SparseTensorProto, TensorProto,
    TypeProto, tensor_shape_proto::dimension,
};

/// Attribute type numbers (`AttributeProto.AttributeType`).
mod kind {
    pub const FLOAT: i32 = 1;
    pub const INT: i32 = 2;
    pub const STRING: i32 = 3;
    pub const TENSOR: i32 = 4;
    pub const GRAPH: i32 = 5;
    pub const FLOATS: i32 = 6;
    pub const INTS: i32 = 7;
    pub const STRINGS: i32 = 8;
    pub const TENSORS: i32 = 9;
    pub const GRAPHS: i32 = 10;
    pub const SPARSE_TENSOR: i32 = 11;
    pub const SPARSE_TENSORS: i32 = 12;
    pub const TYPE_PROTO: i32 = 13;
    pub const TYPE_PROTOS: i32 = 14;
}

/// Every trait is implemented for references to its implementors too: spreads hand out
/// references to their items.
macro_rules! by_reference {
    ($trait:ident :: $method:ident -> $out:ty) => {
        impl<T: $trait + ?Sized> $trait for &T {
            fn $method(&self) -> $out {
                (**self).$method()
            }
        }
    };
}

/// An integer that fits `i64`, or says why not.
fn int64<T: TryInto<i64> + Copy + std::fmt::Display>(value: T, what: &str) -> Result<i64, String> {
    value
        .try_into()
        .map_err(|_| format!("{value} does not fit {what} (int64)"))
}

/// A dimension: `float[#n, ..#dims]`.
///
/// ```
/// use onnx_text::interpolate::Dimension;
/// use onnx_text::tensor_shape_proto::dimension::Value;
/// assert_eq!(3_usize.dimension(), Ok(Value::DimValue(3)));
/// assert_eq!("N".dimension(), Ok(Value::DimParam("N".into())));
/// assert!(u64::MAX.dimension().is_err());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a dimension",
    label = "not a dimension",
    note = "a dimension takes an integer (`dim_value`) or a `&str`/`String` (`dim_param`)"
)]
pub trait Dimension {
    /// The dimension's value, or why the value cannot be one.
    fn dimension(&self) -> Result<dimension::Value, String>;
}

/// A dimension of a tensor constant, which must be a number: `float[#n] w = {…}`.
///
/// ```
/// use onnx_text::interpolate::TensorDimension;
/// assert_eq!(2_u8.tensor_dimension(), Ok(2));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a dimension of a tensor constant",
    label = "not an integer",
    note = "the dims of a tensor constant are integers"
)]
pub trait TensorDimension {
    /// The dimension, or why the value cannot be one.
    fn tensor_dimension(&self) -> Result<i64, String>;
}

/// An integer in the header, or an integer attribute value: `ir_version: #v`, `axis = #a`.
///
/// ```
/// use onnx_text::interpolate::Int;
/// assert_eq!(7_u32.int(), Ok(7));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an `int` value here",
    label = "not an integer",
    note = "this position (an `int` attribute or list element, `ir_version`, `model_version` or an \
            opset version) takes an integer that fits `i64`"
)]
pub trait Int {
    /// The value, or why it does not fit `i64`.
    fn int(&self) -> Result<i64, String>;
}

macro_rules! integers {
    ($($t:ty),*) => {$(
        impl Dimension for $t {
            fn dimension(&self) -> Result<dimension::Value, String> {
                int64(*self, "a dimension").map(dimension::Value::DimValue)
            }
        }
        impl TensorDimension for $t {
            fn tensor_dimension(&self) -> Result<i64, String> {
                int64(*self, "a dimension")
            }
        }
        impl Int for $t {
            fn int(&self) -> Result<i64, String> {
                int64(*self, "an int")
            }
        }
        impl AttributeValue for $t {
            fn set_attribute(&self, attribute: &mut AttributeProto) -> Result<(), String> {
                attribute.r#type = Some(kind::INT);
                attribute.i = Some(self.int()?);
                Ok(())
            }
        }
        impl AttributeElement for $t {
            fn push_element(&self, attribute: &mut AttributeProto) -> Result<(), String> {
                attribute.r#type = Some(kind::INTS);
                attribute.ints.push(self.int()?);
                Ok(())
            }
        }
    )*};
}
integers!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl Dimension for str {
    fn dimension(&self) -> Result<dimension::Value, String> {
        Ok(dimension::Value::DimParam(self.to_owned()))
    }
}
impl Dimension for String {
    fn dimension(&self) -> Result<dimension::Value, String> {
        self.as_str().dimension()
    }
}
by_reference!(Dimension::dimension -> Result<dimension::Value, String>);
by_reference!(TensorDimension::tensor_dimension -> Result<i64, String>);
by_reference!(Int::int -> Result<i64, String>);

/// A value name: a graph input or output, an initializer, a value info, a node's input or
/// output (`#out = Relu (#x)`, `Concat <axis = 0> (..#xs)`).
///
/// ```
/// use onnx_text::interpolate::ValueName;
/// assert_eq!("x".value_name(), Ok("x".to_owned()));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a value name",
    label = "not a name",
    note = "a value name takes a `&str` or a `String`"
)]
pub trait ValueName {
    /// The name.
    fn value_name(&self) -> Result<String, String>;
}

/// A string in the header: `producer_name: #p`, `doc_string: #d`, a metadata key or value.
///
/// ```
/// use onnx_text::interpolate::HeaderString;
/// assert_eq!(String::from("me").header_string(), Ok("me".to_owned()));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a header string",
    label = "not a string",
    note = "`producer_name`, `producer_version`, `domain`, `doc_string`, `overload` and metadata \
            take a `&str` or a `String`"
)]
pub trait HeaderString {
    /// The string.
    fn header_string(&self) -> Result<String, String>;
}

/// A string attribute value or list element: `mode = #m`.
///
/// ```
/// use onnx_text::interpolate::Str;
/// assert_eq!("linear".string(), Ok(b"linear".to_vec()));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a `string` attribute value",
    label = "not a string",
    note = "a `string` attribute takes a `&str` or a `String`"
)]
pub trait Str {
    /// The string's bytes.
    fn string(&self) -> Result<Vec<u8>, String>;
}

macro_rules! strings {
    ($($t:ty),*) => {$(
        impl ValueName for $t {
            fn value_name(&self) -> Result<String, String> {
                Ok(AsRef::<str>::as_ref(self).to_owned())
            }
        }
        impl HeaderString for $t {
            fn header_string(&self) -> Result<String, String> {
                Ok(AsRef::<str>::as_ref(self).to_owned())
            }
        }
        impl Str for $t {
            fn string(&self) -> Result<Vec<u8>, String> {
                Ok(AsRef::<str>::as_ref(self).as_bytes().to_vec())
            }
        }
        impl AttributeValue for $t {
            fn set_attribute(&self, attribute: &mut AttributeProto) -> Result<(), String> {
                attribute.r#type = Some(kind::STRING);
                attribute.s = Some(self.string()?);
                Ok(())
            }
        }
        impl AttributeElement for $t {
            fn push_element(&self, attribute: &mut AttributeProto) -> Result<(), String> {
                attribute.r#type = Some(kind::STRINGS);
                attribute.strings.push(self.string()?);
                Ok(())
            }
        }
        impl StringElement for $t {
            fn element(&self) -> Result<Vec<u8>, String> {
                self.string()
            }
        }
    )*};
}
strings!(str, String);
by_reference!(ValueName::value_name -> Result<String, String>);
by_reference!(HeaderString::header_string -> Result<String, String>);
by_reference!(Str::string -> Result<Vec<u8>, String>);

/// A `float` attribute value or list element: `alpha = #a`.
///
/// ```
/// use onnx_text::interpolate::Float;
/// assert_eq!(0.5_f64.float(), Ok(0.5_f32));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a `float` attribute value",
    label = "not an f32 or f64",
    note = "a `float` attribute takes an `f32`, or an `f64` rounded to the nearest `f32`"
)]
pub trait Float {
    /// The value as `f32`.
    fn float(&self) -> Result<f32, String>;
}
impl Float for f32 {
    fn float(&self) -> Result<f32, String> {
        Ok(*self)
    }
}
impl Float for f64 {
    fn float(&self) -> Result<f32, String> {
        Ok(*self as f32)
    }
}
by_reference!(Float::float -> Result<f32, String>);
macro_rules! floats {
    ($($t:ty),*) => {$(
        impl AttributeValue for $t {
            fn set_attribute(&self, attribute: &mut AttributeProto) -> Result<(), String> {
                attribute.r#type = Some(kind::FLOAT);
                attribute.f = Some(self.float()?);
                Ok(())
            }
        }
        impl AttributeElement for $t {
            fn push_element(&self, attribute: &mut AttributeProto) -> Result<(), String> {
                attribute.r#type = Some(kind::FLOATS);
                attribute.floats.push(self.float()?);
                Ok(())
            }
        }
    )*};
}
floats!(f32, f64);

/// Protobuf messages that stand as attribute values: tensors, graphs, types, sparse tensors.
macro_rules! messages {
    ($($trait:ident :: $method:ident for $t:ty, $one:ident . $field:ident, $many:ident . $list:ident, $what:literal, $message:literal, $note:literal;)*) => {$(
        #[doc = concat!("A `", $what, "` attribute value or list element: a `", stringify!($t), "`.")]
        ///
        /// ```
        #[doc = concat!("use onnx_text::interpolate::", stringify!($trait), ";")]
        #[doc = concat!("let value = onnx_text::", stringify!($t), "::default();")]
        #[doc = concat!("assert_eq!(value.", stringify!($method), "(), Ok(value.clone()));")]
        /// ```
        #[diagnostic::on_unimplemented(message = $message, label = "wrong type", note = $note)]
        pub trait $trait {
            /// The message.
            fn $method(&self) -> Result<$t, String>;
        }
        impl $trait for $t {
            fn $method(&self) -> Result<$t, String> {
                Ok(self.clone())
            }
        }
        by_reference!($trait::$method -> Result<$t, String>);
        impl AttributeValue for $t {
            fn set_attribute(&self, attribute: &mut AttributeProto) -> Result<(), String> {
                attribute.r#type = Some(kind::$one);
                attribute.$field = Some(Box::new(self.clone()));
                Ok(())
            }
        }
        impl AttributeElement for $t {
            fn push_element(&self, attribute: &mut AttributeProto) -> Result<(), String> {
                attribute.r#type = Some(kind::$many);
                attribute.$list.push(self.clone());
                Ok(())
            }
        }
    )*};
}
messages! {
    Tensor::tensor for TensorProto, TENSOR.t, TENSORS.tensors, "tensor",
        "`{Self}` cannot be a `tensor` attribute value", "a `tensor` attribute takes a `TensorProto`";
    Graph::graph for GraphProto, GRAPH.g, GRAPHS.graphs, "graph",
        "`{Self}` cannot be a `graph` attribute value", "a `graph` attribute takes a `GraphProto`";
    Type::type_proto for TypeProto, TYPE_PROTO.tp, TYPE_PROTOS.type_protos, "type_proto",
        "`{Self}` cannot be a `type_proto` attribute value", "a `type_proto` attribute takes a `TypeProto`";
    SparseTensor::sparse_tensor for SparseTensorProto, SPARSE_TENSOR.sparse_tensor, SPARSE_TENSORS.sparse_tensors, "sparse_tensor",
        "`{Self}` cannot be a `sparse_tensor` attribute value", "a `sparse_tensor` attribute takes a `SparseTensorProto`";
}

/// Whole list attribute values, typed by the schema or an annotation (`perm = #perm`): slices,
/// arrays and `Vec`s of the element type.
macro_rules! lists_of {
    ($($list:ident :: $method:ident of $trait:ident . $each:ident -> $out:ty, $what:literal, $example:literal, $message:literal;)*) => {$(
        #[doc = concat!("A whole `", $what, "` attribute value: a slice, array or `Vec` of [`", stringify!($trait), "`] values.")]
        ///
        /// ```
        #[doc = concat!("use onnx_text::interpolate::", stringify!($list), ";")]
        #[doc = concat!("assert_eq!(", $example, ".", stringify!($method), "().map(|v| v.len()), Ok(1));")]
        /// ```
        #[diagnostic::on_unimplemented(
            message = $message,
            label = "not a list of the attribute's element type",
            note = "a list attribute takes a slice, an array or a `Vec` of its element type"
        )]
        pub trait $list {
            /// The elements.
            fn $method(&self) -> Result<Vec<$out>, String>;
        }
        impl<X: $trait> $list for [X] {
            fn $method(&self) -> Result<Vec<$out>, String> {
                self.iter().map(|x| x.$each()).collect()
            }
        }
        impl<X: $trait> $list for Vec<X> {
            fn $method(&self) -> Result<Vec<$out>, String> {
                self.as_slice().$method()
            }
        }
        impl<X: $trait, const N: usize> $list for [X; N] {
            fn $method(&self) -> Result<Vec<$out>, String> {
                self.as_slice().$method()
            }
        }
        by_reference!($list::$method -> Result<Vec<$out>, String>);
    )*};
}
lists_of! {
    Ints::ints of Int.int -> i64, "ints", "[1_i64]", "`{Self}` cannot be a `ints` attribute value";
    Floats::floats of Float.float -> f32, "floats", "vec![0.5_f32]", "`{Self}` cannot be a `floats` attribute value";
    Strs::strings of Str.string -> Vec<u8>, "strings", "[\"a\"]", "`{Self}` cannot be a `strings` attribute value";
    Tensors::tensors of Tensor.tensor -> TensorProto, "tensors", "vec![onnx_text::TensorProto::default()]", "`{Self}` cannot be a `tensors` attribute value";
    Graphs::graphs of Graph.graph -> GraphProto, "graphs", "vec![onnx_text::GraphProto::default()]", "`{Self}` cannot be a `graphs` attribute value";
    Types::type_protos of Type.type_proto -> TypeProto, "type_protos", "vec![onnx_text::TypeProto::default()]", "`{Self}` cannot be a `type_protos` attribute value";
    SparseTensors::sparse_tensors of SparseTensor.sparse_tensor -> SparseTensorProto, "sparse_tensors", "vec![onnx_text::SparseTensorProto::default()]", "`{Self}` cannot be a `sparse_tensors` attribute value";
}

/// An attribute value whose type neither the schema nor an annotation gives: the Rust type
/// decides. Numbers, strings, the four message types, and slices, arrays and `Vec`s of them.
///
/// ```
/// use onnx_text::interpolate::AttributeValue;
/// let mut attribute = onnx_text::AttributeProto::default();
/// vec![1.5_f32, 2.0].set_attribute(&mut attribute).unwrap();
/// assert_eq!((attribute.r#type, attribute.floats), (Some(6), vec![1.5, 2.0]));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an attribute value",
    label = "no attribute type for this Rust type",
    note = "without a schema or an annotation, an attribute takes a number, a string, a \
            TensorProto, GraphProto, TypeProto or SparseTensorProto, or a list of one of these"
)]
pub trait AttributeValue {
    /// Sets the attribute's type and value.
    fn set_attribute(&self, attribute: &mut AttributeProto) -> Result<(), String>;
}

/// An element of a list attribute whose type neither the schema nor an annotation gives:
/// `<sizes = [..#xs]>` on a custom operator.
///
/// ```
/// use onnx_text::interpolate::AttributeElement;
/// let mut attribute = onnx_text::AttributeProto::default();
/// 3_i32.push_element(&mut attribute).unwrap();
/// assert_eq!((attribute.r#type, attribute.ints), (Some(7), vec![3]));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an element of a list attribute",
    label = "no attribute type for this Rust type",
    note = "a list element is a number, a string, or a TensorProto, GraphProto, TypeProto or \
            SparseTensorProto"
)]
pub trait AttributeElement {
    /// Sets the list's type and appends the element.
    fn push_element(&self, attribute: &mut AttributeProto) -> Result<(), String>;
}
impl<T: AttributeElement + ?Sized> AttributeElement for &T {
    fn push_element(&self, attribute: &mut AttributeProto) -> Result<(), String> {
        (**self).push_element(attribute)
    }
}

macro_rules! attribute_lists {
    ($($container:ty $(, const $n:ident)?);*) => {$(
        impl<X: AttributeElement $(, const $n: usize)?> AttributeValue for $container {
            fn set_attribute(&self, attribute: &mut AttributeProto) -> Result<(), String> {
                for x in self.iter() {
                    x.push_element(attribute)?;
                }
                if attribute.r#type.is_none() {
                    return Err("an empty list from Rust has no attribute type: annotate the \
                                attribute, as in `a: ints = #xs`".into());
                }
                Ok(())
            }
        }
    )*};
}
attribute_lists!([X]; Vec<X>; [X; N], const N);

impl<T: AttributeValue + ?Sized> AttributeValue for &T {
    fn set_attribute(&self, attribute: &mut AttributeProto) -> Result<(), String> {
        (**self).set_attribute(attribute)
    }
}

/// Tensor data: one trait per element type, implemented by the Rust types that convert to it
/// without loss.
macro_rules! elements {
    ($($trait:ident, $dtype:literal, $storage:ty, [$first:ty $(, $t:ty)*], $message:literal, $note:literal;)*) => {$(
        #[doc = concat!("An element of `", $dtype, "` tensor data: `", $dtype, "[2] {#a, ..#rest}`.")]
        ///
        /// ```
        #[doc = concat!("use onnx_text::interpolate::", stringify!($trait), ";")]
        #[doc = concat!("assert!(<", stringify!($first), ">::default().element().is_ok());")]
        /// ```
        #[diagnostic::on_unimplemented(message = $message, label = "wrong element type", note = $note)]
        pub trait $trait {
            /// The element, as its tensor stores it.
            fn element(&self) -> Result<$storage, String>;
        }
        $(impl $trait for $t {
            fn element(&self) -> Result<$storage, String> {
                Ok(<$storage>::from(*self))
            }
        })*
        impl $trait for $first {
            fn element(&self) -> Result<$storage, String> {
                Ok(<$storage>::from(*self))
            }
        }
        by_reference!($trait::element -> Result<$storage, String>);
    )*};
}
elements! {
    FloatElement, "float", f32, [f32],
        "`{Self}` cannot be an element of `float` tensor data", "`float` data takes f32, which convert without loss";
    DoubleElement, "double", f64, [f32, f64],
        "`{Self}` cannot be an element of `double` tensor data", "`double` data takes f32 or f64, which convert without loss";
    Int8Element, "int8", i32, [i8],
        "`{Self}` cannot be an element of `int8` tensor data", "`int8` data takes i8, which convert without loss";
    Int16Element, "int16", i32, [i8, i16, u8],
        "`{Self}` cannot be an element of `int16` tensor data", "`int16` data takes i8, i16 or u8, which convert without loss";
    Int32Element, "int32", i32, [i8, i16, i32, u8, u16],
        "`{Self}` cannot be an element of `int32` tensor data", "`int32` data takes i8, i16, i32, u8 or u16, which convert without loss";
    Int64Element, "int64", i64, [i8, i16, i32, i64, u8, u16, u32],
        "`{Self}` cannot be an element of `int64` tensor data", "`int64` data takes integers of at most 64 bits that fit i64 (not u64, usize or isize), which convert without loss";
    Uint8Element, "uint8", i32, [u8],
        "`{Self}` cannot be an element of `uint8` tensor data", "`uint8` data takes u8, which convert without loss";
    Uint16Element, "uint16", i32, [u8, u16],
        "`{Self}` cannot be an element of `uint16` tensor data", "`uint16` data takes u8 or u16, which convert without loss";
    Uint32Element, "uint32", u64, [u8, u16, u32],
        "`{Self}` cannot be an element of `uint32` tensor data", "`uint32` data takes u8, u16 or u32, which convert without loss";
    Uint64Element, "uint64", u64, [u8, u16, u32, u64],
        "`{Self}` cannot be an element of `uint64` tensor data", "`uint64` data takes u8, u16, u32 or u64, which convert without loss";
    BoolElement, "bool", i32, [bool],
        "`{Self}` cannot be an element of `bool` tensor data", "`bool` data takes bool, which convert without loss";
}

/// An element of `string` tensor data.
///
/// ```
/// use onnx_text::interpolate::StringElement;
/// assert_eq!("a".element(), Ok(b"a".to_vec()));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an element of `string` tensor data",
    label = "not a string",
    note = "`string` data takes a `&str` or a `String`"
)]
pub trait StringElement {
    /// The element's bytes.
    fn element(&self) -> Result<Vec<u8>, String>;
}
by_reference!(StringElement::element -> Result<Vec<u8>, String>);

/// A node in a node list: `{ #node ..#nodes y = Relu (t) }`.
///
/// ```
/// use onnx_text::interpolate::Node;
/// let node = onnx_text::onnx_node!(y = Relu (x));
/// assert_eq!(node.node(), Ok(node.clone()));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a node",
    label = "not a NodeProto",
    note = "a node list takes `NodeProto`s: `#node`, or `..#nodes` for each of a list"
)]
pub trait Node {
    /// The node.
    fn node(&self) -> Result<NodeProto, String>;
}
impl Node for NodeProto {
    fn node(&self) -> Result<NodeProto, String> {
        Ok(self.clone())
    }
}
by_reference!(Node::node -> Result<NodeProto, String>);

/// A function after a model's graph, or in a function library: `..#library`.
///
/// ```
/// use onnx_text::interpolate::Function;
/// let f = onnx_text::onnx_function!(F (x) => (y) { y = Abs (x) });
/// assert_eq!(f.function(), Ok(f.clone()));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a function",
    label = "not a FunctionProto",
    note = "after a model's graph come `FunctionProto`s: `#f`, or `..#library` for each of a list"
)]
pub trait Function {
    /// The function.
    fn function(&self) -> Result<FunctionProto, String>;
}
impl Function for FunctionProto {
    fn function(&self) -> Result<FunctionProto, String> {
        Ok(self.clone())
    }
}
by_reference!(Function::function -> Result<FunctionProto, String>);

/// What a spread `..#xs` iterates when it is not an iterator itself: a slice, an array or a
/// `Vec`, behind any number of references. One trait per position, so that a value that is not a
/// list gets one error naming the position.
///
/// Spreads of named variables borrow, as `format!` does, so `..#dims` with `dims: &[i64]` sees a
/// `&&[i64]`; these traits look through the references. Anything that is `IntoIterator` (an
/// iterator, a `Vec` by value, `&Vec`, a range) is spread as it is, before they are asked.
macro_rules! spreads {
    ($($trait:ident, $what:literal, $message:literal;)*) => {$(
        #[doc = concat!("A spread of ", $what, " that is not an iterator: a slice, an array or a `Vec`, behind any number of references.")]
        ///
        /// ```
        #[doc = concat!("use onnx_text::interpolate::", stringify!($trait), ";")]
        /// let dims: &[i64] = &[2, 3];
        #[doc = concat!("assert_eq!(", stringify!($trait), "::map_items(&&dims, |d| d * 2), [4, 6]);")]
        /// ```
        #[diagnostic::on_unimplemented(
            message = $message,
            label = "not a list",
            note = "`..#` takes a slice, an array, a `Vec`, a reference to one of these, or any iterator"
        )]
        pub trait $trait {
            /// The type of each item.
            type Item;
            /// `f` of every item, in order.
            fn map_items<R>(&self, f: impl FnMut(&Self::Item) -> R) -> Vec<R>;
        }
        impl<T> $trait for [T] {
            type Item = T;
            fn map_items<R>(&self, f: impl FnMut(&T) -> R) -> Vec<R> {
                self.iter().map(f).collect()
            }
        }
        impl<T> $trait for Vec<T> {
            type Item = T;
            fn map_items<R>(&self, f: impl FnMut(&T) -> R) -> Vec<R> {
                $trait::map_items(self.as_slice(), f)
            }
        }
        impl<T, const N: usize> $trait for [T; N] {
            type Item = T;
            fn map_items<R>(&self, f: impl FnMut(&T) -> R) -> Vec<R> {
                $trait::map_items(self.as_slice(), f)
            }
        }
        impl<S: $trait + ?Sized> $trait for &S {
            type Item = S::Item;
            fn map_items<R>(&self, f: impl FnMut(&S::Item) -> R) -> Vec<R> {
                $trait::map_items(&**self, f)
            }
        }
    )*};
}
spreads! {
    SpreadDimensions, "dimensions", "`{Self}` cannot be spread into dimensions";
    SpreadValueNames, "value names", "`{Self}` cannot be spread into value names";
    SpreadAttributeList, "an attribute list", "`{Self}` cannot be spread into an attribute list";
    SpreadTensorData, "tensor data", "`{Self}` cannot be spread into tensor data";
    SpreadTensorDims, "the dims of a tensor constant", "`{Self}` cannot be spread into the dims of a tensor constant";
    SpreadNodes, "a node list", "`{Self}` cannot be spread into a node list";
    SpreadFunctions, "a list of functions", "`{Self}` cannot be spread into a list of functions";
}
