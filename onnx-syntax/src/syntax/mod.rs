//! The syntax tree: what the text says, with a span on every node, before lowering to protobuf.
//!
//! Literal values are already converted for the context they appear in (a tensor's element type
//! or an attribute's annotation), so lowering never fails and the checks can inspect typed data.

mod form;

pub use form::{Entry, Tree, UnknownEntry};

use onnx_runtime_types::NodeProto;
pub use onnx_runtime_types::attribute_proto::AttributeType;

use crate::hole::{Hole, ListHole};
use crate::span::Span;

/// A name: a plain identifier or a quoted string, with escapes resolved.
///
/// ```
/// use onnx_syntax::parse::Parser;
/// let node = Parser::new(r#"y = Foo("a\"b")"#)?.node()?;
/// assert_eq!(node.inputs[0].text, "a\"b"); // escapes resolved
/// assert_eq!(node.inputs[0].span.len(), 6); // the span covers the quotes
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Name {
    /// The name itself (possibly empty, from `""`).
    pub text: String,
    /// Where it was written, quotes included.
    pub span: Span,
}

/// A model: an optional header, the main graph, then model-local functions.
///
/// ```
/// use onnx_syntax::parse::Parser;
/// let model = Parser::new("<ir_version: 10> g () => () {}")?.model()?;
/// assert_eq!(model.header.len(), 1);
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
///
/// Its node lists hold [`Node`]s; see [`NodeForm`] for the other form they can take.
#[derive(Clone, Debug, PartialEq)]
pub struct Model<N = Node> {
    /// `<key: value, …>` entries, in text order. Keys may repeat.
    pub header: Vec<ModelHeaderEntry>,
    /// The main graph.
    pub graph: Graph<N>,
    /// Functions after the graph, in text order.
    pub functions: Vec<Function<N>>,
}

/// One `key: value` entry of a model header.
///
/// ```
/// use onnx_syntax::parse::Parser;
/// let model = Parser::new("<doc_string: \"d\"> g () => () {}")?.model()?;
/// assert_eq!(model.header[0].key_span.len(), "doc_string".len());
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ModelHeaderEntry {
    /// The span of the key.
    pub key_span: Span,
    /// The key and its value.
    pub value: ModelHeaderValue,
}

/// The value of a model header entry, by key.
///
/// ```
/// use onnx_syntax::parse::Parser;
/// use onnx_syntax::syntax::ModelHeaderValue;
/// let model = Parser::new("<model_version: 3> g () => () {}")?.model()?;
/// assert_eq!(model.header[0].value, ModelHeaderValue::ModelVersion(3));
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum ModelHeaderValue {
    /// `ir_version: 10`
    IrVersion(i64),
    /// `opset_import: ["" : 21, …]` (appends)
    OpsetImport(Vec<OpsetImport>),
    /// `producer_name: "…"`
    ProducerName(String),
    /// `producer_version: "…"`
    ProducerVersion(String),
    /// `domain: "…"`
    Domain(String),
    /// `model_version: 3`
    ModelVersion(i64),
    /// `doc_string: "…"`
    DocString(String),
    /// `metadata_props: ["k" : "v", …]` (appends)
    MetadataProps(Vec<(String, String)>),
    /// `ir_version: #v` in a macro literal: the value comes from Rust.
    IrVersionHole(Hole),
    /// `model_version: #v` in a macro literal: the value comes from Rust.
    ModelVersionHole(Hole),
}

/// `"domain" : version` in an `opset_import` list.
///
/// ```
/// use onnx_syntax::parse::Parser;
/// use onnx_syntax::syntax::ModelHeaderValue;
/// let model = Parser::new("<opset_import: [\"\" : 21]> g () => () {}")?.model()?;
/// let ModelHeaderValue::OpsetImport(imports) = &model.header[0].value else { panic!() };
/// assert_eq!((imports[0].domain.as_str(), imports[0].version), ("", 21));
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct OpsetImport {
    /// The domain (`""` is the default ONNX domain).
    pub domain: String,
    /// The imported version (0 when it is a hole).
    pub version: i64,
    /// `"" : #v` in a macro literal: the version comes from Rust.
    pub version_hole: Option<Hole>,
    /// The span of the whole entry.
    pub span: Span,
}

/// A graph: `name (inputs) => (outputs) <locals> { nodes }`.
///
/// ```
/// use onnx_syntax::parse::Parser;
/// let graph = Parser::new("g (x) => (y) <float[1] k = {1}> { y = Add(x, k) }")?.graph()?;
/// assert_eq!((graph.inputs.len(), graph.locals.len(), graph.nodes.len()), (1, 1, 1));
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
///
/// Its nodes are [`Node`]s; see [`NodeForm`] for the other form they can take. The graphs of
/// attribute values are always of `Node`s.
#[derive(Clone, Debug, PartialEq)]
pub struct Graph<N = Node> {
    /// The graph's name.
    pub name: Name,
    /// The input list, in order; entries with `= data` are also initializers.
    pub inputs: Vec<ValueDecl>,
    /// The output list.
    pub outputs: Vec<ValueInfo>,
    /// The `<…>` list: entries with `=` are initializers only, the rest are value infos.
    pub locals: Vec<ValueDecl>,
    /// The nodes, in order.
    pub nodes: Vec<N>,
    /// From the name to the closing brace.
    pub span: Span,
}

/// A value name with an optional type.
///
/// ```
/// use onnx_syntax::parse::Parser;
/// let graph = Parser::new("g (float x, y) => () {}")?.graph()?;
/// assert!(graph.inputs[0].info.ty.is_some() && graph.inputs[1].info.ty.is_none());
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ValueInfo {
    /// The type, when written.
    pub ty: Option<Type>,
    /// The value's name.
    pub name: Name,
}

/// A value info that may carry an initializer: `float[2] w = {1, 2}`.
///
/// ```
/// use onnx_syntax::parse::Parser;
/// let graph = Parser::new("g (float[2] w = {1, 2}) => () {}")?.graph()?;
/// assert_eq!(graph.inputs[0].initializer.as_ref().unwrap().dims, [2]);
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ValueDecl {
    /// The value info.
    pub info: ValueInfo,
    /// `Some` when `=` was written; the tensor takes its name, type and dims from the value info.
    pub initializer: Option<Tensor>,
}

/// A type, as written.
///
/// ```
/// use onnx_syntax::parse::Parser;
/// use onnx_syntax::syntax::TypeKind;
/// let graph = Parser::new("g (seq(float) s) => () {}")?.graph()?;
/// assert!(matches!(graph.inputs[0].info.ty.as_ref().unwrap().kind, TypeKind::Sequence(_)));
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Type {
    /// What kind of type.
    pub kind: TypeKind,
    /// Where it was written.
    pub span: Span,
}

/// The kinds of types.
///
/// ```
/// use onnx_syntax::parse::Parser;
/// use onnx_syntax::syntax::TypeKind;
/// let graph = Parser::new("g (float s, float[] u) => () {}")?.graph()?;
/// let kinds: Vec<_> = graph.inputs.iter().map(|d| d.info.ty.clone().unwrap().kind).collect();
/// assert_eq!(kinds[0], TypeKind::Tensor(1, Some(vec![]))); // a scalar
/// assert_eq!(kinds[1], TypeKind::Tensor(1, None)); // unknown rank
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum TypeKind {
    /// `float[N, 3]`, `float[]`, `float`
    Tensor(ElemType, Option<Shape>),
    /// `seq(T)`
    Sequence(Box<Type>),
    /// `map(K, V)`
    Map(ElemType, Box<Type>),
    /// `optional(T)`
    Optional(Box<Type>),
    /// `sparse_tensor(float[N])`
    SparseTensor(ElemType, Option<Shape>),
    /// `opaque(domain, name)`, with either part possibly absent.
    Opaque {
        domain: Option<String>,
        name: Option<String>,
    },
}

/// A tensor element type, as its `TensorProto.DataType` number.
///
/// ```
/// let float: onnx_syntax::syntax::ElemType = 1;
/// assert_eq!(onnx_syntax::dtype::elem_type_by_number(float).unwrap().name, "float");
/// ```
pub type ElemType = i32;

/// A tensor shape: `None` in [`TypeKind::Tensor`] means unknown rank (`float[]`), an empty shape
/// is a scalar (`float`).
///
/// ```
/// let scalar: onnx_syntax::syntax::Shape = Vec::new();
/// assert!(scalar.is_empty());
/// ```
pub type Shape = Vec<Dim>;

/// One dimension of a shape.
///
/// ```
/// use onnx_syntax::parse::Parser;
/// use onnx_syntax::syntax::{DimValue, TypeKind};
/// let graph = Parser::new("g (float[N, 3, ?] x) => () {}")?.graph()?;
/// let TypeKind::Tensor(_, Some(dims)) = &graph.inputs[0].info.ty.as_ref().unwrap().kind else { panic!() };
/// assert_eq!(dims[1].value, DimValue::Value(3));
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Dim {
    /// What the dimension says.
    pub value: DimValue,
    /// Where it was written.
    pub span: Span,
}

/// The forms of a dimension.
///
/// ```
/// use onnx_syntax::syntax::DimValue;
/// assert_ne!(DimValue::Unknown, DimValue::Param("N".into()));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum DimValue {
    /// `?`: neither a value nor a parameter.
    Unknown,
    /// `128` or `-1`
    Value(i64),
    /// `N` or `"M + N"`
    Param(String),
}

/// A tensor constant: an initializer or an attribute value.
///
/// ```
/// use onnx_syntax::parse::Parser;
/// use onnx_syntax::syntax::AttrValue;
/// let node = Parser::new("y = Constant <value = float[2] t {1, 2}> ()")?.node()?;
/// let Some(AttrValue::Tensor(t)) = &node.attributes[0].value else { panic!() };
/// assert_eq!((t.name.as_str(), t.dims.as_slice()), ("t", &[2][..]));
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    /// `TensorProto.DataType` number.
    pub elem_type: ElemType,
    /// The dims (all numeric).
    pub dims: Vec<i64>,
    /// The tensor's name (`""` for an unnamed attribute tensor).
    pub name: String,
    /// The data, if any was written.
    pub data: TensorData,
    /// Holes among the dims and the data (macro literals only), in text order.
    pub holes: Vec<ListHole>,
    /// The type, `float[2, 3]`.
    pub type_span: Span,
    /// The whole constant, type included.
    pub span: Span,
}

/// Tensor data, already in the `TensorProto` field that the reference uses for its element type.
///
/// ```
/// use onnx_syntax::parse::Parser;
/// use onnx_syntax::syntax::TensorData;
/// let graph = Parser::new("g (float[2] w =) => () {}")?.graph()?;
/// assert_eq!(graph.inputs[0].initializer.as_ref().unwrap().data, TensorData::None);
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum TensorData {
    /// Nothing after the type (`float[2] w =`, or `float[2] t` in an attribute).
    None,
    /// `{…}`, stored as the element type requires; the block's span, and the span of each
    /// element written in it, value or hole (a `-` sign included), for the checks to point at.
    Values(TensorValues, Span, Vec<Span>),
    /// `["location": "f.bin", …]`: key/value pairs of external data.
    External(Vec<(String, String)>, Span),
}

/// The typed contents of `{…}`, one variant per `TensorProto` data field.
///
/// ```
/// use onnx_syntax::parse::Parser;
/// use onnx_syntax::syntax::{TensorData, TensorValues};
/// let graph = Parser::new("g (uint64[1] w = {-1}) => () {}")?.graph()?;
/// let TensorData::Values(values, _, _) = &graph.inputs[0].initializer.as_ref().unwrap().data else { panic!() };
/// assert_eq!(*values, TensorValues::Uint64(vec![u64::MAX])); // `stoull` wraps, as in the reference
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum TensorValues {
    /// `int32_data`: small integers, bool, bit patterns of 16- and 8-bit floats, packed 4- and
    /// 2-bit values.
    Int32(Vec<i32>),
    /// `int64_data`.
    Int64(Vec<i64>),
    /// `uint64_data`: uint32 and uint64.
    Uint64(Vec<u64>),
    /// `float_data`: float, and complex64 as interleaved pairs.
    Float(Vec<f32>),
    /// `double_data`: double, and complex128 as interleaved pairs.
    Double(Vec<f64>),
    /// `string_data`.
    String(Vec<Vec<u8>>),
}

/// A node: `[label] outputs = domain.Op:overload <attributes> (inputs)`.
///
/// ```
/// use onnx_syntax::parse::Parser;
/// let node = Parser::new("y = com.ms.Foo:v2 (x)")?.node()?;
/// assert_eq!((node.domain.as_str(), node.op_type.as_str()), ("com.ms", "Foo"));
/// assert_eq!(node.overload.unwrap().text, "v2");
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// `[name]`, when written.
    pub label: Option<Name>,
    /// Output names; `""` is a missing optional output.
    pub outputs: Vec<Name>,
    /// The domain: every dotted part of the operator name but the last, `""` without a prefix.
    pub domain: String,
    /// The operator name.
    pub op_type: String,
    /// The span of the dotted operator name (empty if no name was written).
    pub op_span: Span,
    /// `:overload`, when written.
    pub overload: Option<Name>,
    /// Attributes, in text order.
    pub attributes: Vec<Attribute>,
    /// Input names; `""` is a missing optional input.
    pub inputs: Vec<Name>,
    /// The whole node.
    pub span: Span,
}

/// The form the nodes of a parsed body take: the tree's own [`Node`], or a `NodeProto`, lowered
/// as soon as the parser has read the node.
///
/// Checks need the tree of every node; a caller that wants only the protobuf messages (the
/// runtime `parse_*` functions, through [`Entry::parse_proto`](crate::Entry::parse_proto)) has
/// each node lowered on the spot instead. Its tree is then freed before the next node is read,
/// and the memory is used again for the next one, rather than a tree of the whole model being
/// built and then lowered (on a 100,000-node chain, the peak heap of a parse went from 124 MB to
/// 88 MB, and its time from 1.7 to 1.25 times that of cloning the result). The messages are the
/// same either way.
///
/// ```
/// use onnx_runtime_types::NodeProto;
/// use onnx_syntax::syntax::{Node, NodeForm};
/// let node = onnx_syntax::parse::Parser::new("y = Neg(x)")?.node()?;
/// let proto = NodeProto::from_node(node.clone());
/// assert_eq!(proto, onnx_syntax::lower::node(node.clone()));
/// assert_eq!(Node::into_protos(vec![node]), [proto]);
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
pub trait NodeForm: Sized {
    /// A node just parsed, in this form.
    fn from_node(node: Node) -> Self;

    /// The nodes of a body as protobuf messages.
    fn into_protos(nodes: Vec<Self>) -> Vec<NodeProto>;
}

/// An attribute `name: type = value` of a node, or an entry of a function's attribute list.
///
/// ```
/// use onnx_syntax::parse::Parser;
/// use onnx_syntax::syntax::{AttributeType, AttrValue};
/// let node = Parser::new("y = Foo <a: float = 2> (x)")?.node()?;
/// assert_eq!(node.attributes[0].ty, Some(AttributeType::Float));
/// assert_eq!(node.attributes[0].value, Some(AttrValue::Float(2.0))); // int literal, float annotation
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Attribute {
    /// The attribute name.
    pub name: Name,
    /// The annotation after `:`, when written.
    pub annotation: Option<(AttributeType, Span)>,
    /// The type recorded in the proto: from the value, or the annotation. `None` is UNDEFINED (an
    /// `@ref` without annotation).
    pub ty: Option<AttributeType>,
    /// The value; `None` only in a function attribute list (`F <a: float>`).
    pub value: Option<AttrValue>,
    /// The value's text (empty, where the value would stand, when there is none).
    pub value_span: Span,
    /// Holes among the elements of a list value (macro literals only), in text order.
    pub holes: Vec<ListHole>,
    /// The whole attribute.
    pub span: Span,
}

/// What the syntax says of an attribute type (prost's `AttributeProto.AttributeType`, which the
/// tree uses as it is): its keyword in annotations (`alpha: float`), and its list type.
///
/// ```
/// use onnx_syntax::syntax::{AttributeType, AttributeTypeSyntax};
/// assert_eq!(AttributeType::TypeProtos.keyword(), "type_protos");
/// assert_eq!(AttributeType::Int.list_of(), Some(AttributeType::Ints));
/// assert!(AttributeType::Graphs.is_list());
/// ```
pub trait AttributeTypeSyntax: Copy {
    /// The keyword of this type (`""` for `UNDEFINED`, which has none).
    ///
    /// ```
    /// use onnx_syntax::syntax::{AttributeType, AttributeTypeSyntax};
    /// assert_eq!(AttributeType::SparseTensor.keyword(), "sparse_tensor");
    /// ```
    fn keyword(self) -> &'static str;

    /// The list type whose elements are of this type (`Int` → `Ints`); `None` for list types.
    ///
    /// ```
    /// use onnx_syntax::syntax::{AttributeType, AttributeTypeSyntax};
    /// assert_eq!(AttributeType::Ints.list_of(), None);
    /// ```
    fn list_of(self) -> Option<AttributeType>;

    /// True for the list types (`ints`, `floats`, …).
    ///
    /// ```
    /// use onnx_syntax::syntax::{AttributeType, AttributeTypeSyntax};
    /// assert!(!AttributeType::Float.is_list());
    /// ```
    fn is_list(self) -> bool;
}

/// Every attribute type that the syntax writes, with its keyword.
///
/// ```
/// use onnx_syntax::syntax::{ATTRIBUTE_TYPES, AttributeType};
/// assert_eq!(ATTRIBUTE_TYPES[0], (AttributeType::Float, "float"));
/// assert_eq!(AttributeType::Ints as i32, 7); // AttributeProto.AttributeType.INTS
/// ```
pub const ATTRIBUTE_TYPES: [(AttributeType, &str); 14] = [
    (AttributeType::Float, "float"),
    (AttributeType::Int, "int"),
    (AttributeType::String, "string"),
    (AttributeType::Tensor, "tensor"),
    (AttributeType::Graph, "graph"),
    (AttributeType::SparseTensor, "sparse_tensor"),
    (AttributeType::TypeProto, "type_proto"),
    (AttributeType::Floats, "floats"),
    (AttributeType::Ints, "ints"),
    (AttributeType::Strings, "strings"),
    (AttributeType::Tensors, "tensors"),
    (AttributeType::Graphs, "graphs"),
    (AttributeType::SparseTensors, "sparse_tensors"),
    (AttributeType::TypeProtos, "type_protos"),
];

/// The attribute type an annotation keyword names.
///
/// ```
/// use onnx_syntax::syntax::{AttributeType, attribute_type};
/// assert_eq!(attribute_type("ints"), Some(AttributeType::Ints));
/// assert_eq!(attribute_type("int64"), None);
/// ```
pub fn attribute_type(keyword: &str) -> Option<AttributeType> {
    ATTRIBUTE_TYPES
        .iter()
        .find(|(_, kw)| *kw == keyword)
        .map(|(ty, _)| *ty)
}

impl AttributeTypeSyntax for AttributeType {
    fn keyword(self) -> &'static str {
        ATTRIBUTE_TYPES
            .iter()
            .find(|(ty, _)| *ty == self)
            .map_or("", |(_, kw)| kw)
    }

    fn list_of(self) -> Option<AttributeType> {
        Some(match self {
            AttributeType::Float => AttributeType::Floats,
            AttributeType::Int => AttributeType::Ints,
            AttributeType::String => AttributeType::Strings,
            AttributeType::Tensor => AttributeType::Tensors,
            AttributeType::Graph => AttributeType::Graphs,
            AttributeType::SparseTensor => AttributeType::SparseTensors,
            AttributeType::TypeProto => AttributeType::TypeProtos,
            _ => return None,
        })
    }

    fn is_list(self) -> bool {
        matches!(
            self,
            AttributeType::Floats
                | AttributeType::Ints
                | AttributeType::Strings
                | AttributeType::Tensors
                | AttributeType::Graphs
                | AttributeType::SparseTensors
                | AttributeType::TypeProtos
        )
    }
}

/// An attribute value.
///
/// ```
/// use onnx_syntax::parse::Parser;
/// use onnx_syntax::syntax::AttrValue;
/// let node = Parser::new("y = Foo <a = [2.5, 1]> (x)")?.node()?;
/// assert_eq!(node.attributes[0].value, Some(AttrValue::Floats(vec![2.5, 1.0])));
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
///
/// Tensors, graphs and types are boxed: they are rare, and inline they would make every
/// attribute of every node several times larger (an attribute was 248 bytes with the tensor
/// inline, for values that are mostly a number or a short list).
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue {
    /// FLOAT
    Float(f32),
    /// INT
    Int(i64),
    /// STRING (bytes)
    String(Vec<u8>),
    /// TENSOR
    Tensor(Box<Tensor>),
    /// GRAPH
    Graph(Box<Graph>),
    /// TYPE_PROTO
    TypeProto(Box<Type>),
    /// `@name`: a reference to an attribute of the enclosing function.
    Ref(Name),
    /// FLOATS
    Floats(Vec<f32>),
    /// INTS
    Ints(Vec<i64>),
    /// STRINGS
    Strings(Vec<Vec<u8>>),
    /// TENSORS
    Tensors(Vec<Tensor>),
    /// GRAPHS
    Graphs(Vec<Graph>),
    /// TYPE_PROTOS
    TypeProtos(Vec<Type>),
    /// An empty `[]` of a type with no list syntax (`sparse_tensors`), or a list of holes only.
    EmptyList,
    /// `#a` in a macro literal: the whole value comes from Rust.
    Hole(Hole),
}

/// A function: `<header> name <attributes> (inputs) => (outputs) <value infos> { nodes }`.
///
/// ```
/// use onnx_syntax::parse::Parser;
/// let f = Parser::new("F (float[N] x) => (y) <float t> { y = Foo(x) }")?.function()?;
/// assert_eq!((f.inputs.len(), f.value_infos.len()), (1, 1));
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
///
/// Its nodes are [`Node`]s; see [`NodeForm`] for the other form they can take.
#[derive(Clone, Debug, PartialEq)]
pub struct Function<N = Node> {
    /// Header entries, in order.
    pub header: Vec<FunctionHeaderEntry>,
    /// The function's name.
    pub name: Name,
    /// The attribute list: plain names, or entries with a type and/or default.
    pub attributes: Vec<FunctionAttribute>,
    /// Inputs, possibly typed.
    pub inputs: Vec<ValueInfo>,
    /// Outputs, possibly typed.
    pub outputs: Vec<ValueInfo>,
    /// The `<…>` value-info list.
    pub value_infos: Vec<ValueInfo>,
    /// The body.
    pub nodes: Vec<N>,
    /// From the header (or name) to the closing brace.
    pub span: Span,
}

/// An entry of a function's attribute list.
///
/// ```
/// use onnx_syntax::parse::Parser;
/// use onnx_syntax::syntax::FunctionAttribute;
/// let f = Parser::new("F <a, b: int = 1> () => () {}")?.function()?;
/// assert!(matches!(f.attributes[0], FunctionAttribute::Name(_)));
/// assert!(matches!(f.attributes[1], FunctionAttribute::Proto(_)));
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
// A function declares a handful of attributes: a box per typed one would cost more than the
// bytes a bare name leaves unused.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum FunctionAttribute {
    /// A bare name: `FunctionProto.attribute`.
    Name(Name),
    /// `name: type` or `name: type = default`: `FunctionProto.attribute_proto`.
    Proto(Attribute),
}

impl FunctionAttribute {
    /// The attribute's name, however it is declared.
    ///
    /// ```
    /// let f = onnx_syntax::parse::Parser::new("F <a, b: int = 1> () => () {}")?.function()?;
    /// let names: Vec<&str> = f.attributes.iter().map(|a| a.name().text.as_str()).collect();
    /// assert_eq!(names, ["a", "b"]);
    /// # Ok::<(), onnx_syntax::ParseError>(())
    /// ```
    pub fn name(&self) -> &Name {
        match self {
            FunctionAttribute::Name(name) => name,
            FunctionAttribute::Proto(attribute) => &attribute.name,
        }
    }
}

/// One `key: value` entry of a function header.
///
/// ```
/// use onnx_syntax::parse::Parser;
/// let f = Parser::new("<domain: \"d\"> F () => () {}")?.function()?;
/// assert_eq!(f.header.len(), 1);
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionHeaderEntry {
    /// The span of the key.
    pub key_span: Span,
    /// The key and its value.
    pub value: FunctionHeaderValue,
}

/// The value of a function header entry, by key.
///
/// ```
/// use onnx_syntax::parse::Parser;
/// use onnx_syntax::syntax::FunctionHeaderValue;
/// let f = Parser::new("<overload: \"o\"> F () => () {}")?.function()?;
/// assert_eq!(f.header[0].value, FunctionHeaderValue::Overload("o".into()));
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum FunctionHeaderValue {
    /// `domain: "…"`
    Domain(String),
    /// `opset_import: [...]` (appends)
    OpsetImport(Vec<OpsetImport>),
    /// `doc_string: "…"`
    DocString(String),
    /// `overload: "…"`
    Overload(String),
}
