//! Lowering: syntax tree to ONNX protobuf messages, setting exactly the fields the reference sets.
//!
//! Lowering cannot fail: everything that can be wrong was rejected by the parser, and the values
//! were already converted for their context.

use onnx_runtime_types::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
    StringStringEntryProto, TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
    tensor_proto::DataLocation,
    tensor_shape_proto::{Dimension, dimension},
    type_proto,
};

pub(crate) mod encode;

use crate::hole::ListHoles;
use crate::syntax::{
    AttrValue, Attribute, DimValue, Function, FunctionAttribute, FunctionHeaderValue, Graph, Model,
    ModelHeaderValue, Name, Node, NodeForm, OpsetImport, Shape, Tensor, TensorData, TensorValues,
    Type, TypeKind, ValueInfo,
};

/// A model, whatever form its nodes take. Header keys apply in order: scalars overwrite, lists
/// append.
///
/// ```
/// let tree = onnx_syntax::parse::Parser::new("<ir_version: 9> g () => () {}")?.model()?;
/// assert_eq!(onnx_syntax::lower::model(tree).ir_version, Some(9));
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
pub fn model<N: NodeForm>(model: Model<N>) -> ModelProto {
    let mut proto = ModelProto::default();
    for entry in model.header {
        match entry.value {
            ModelHeaderValue::IrVersion(v) => proto.ir_version = Some(v),
            ModelHeaderValue::OpsetImport(imports) => proto.opset_import.extend(opsets(imports)),
            ModelHeaderValue::ProducerName(s) => proto.producer_name = Some(s),
            ModelHeaderValue::ProducerVersion(s) => proto.producer_version = Some(s),
            ModelHeaderValue::Domain(s) => proto.domain = Some(s),
            ModelHeaderValue::ModelVersion(v) => proto.model_version = Some(v),
            ModelHeaderValue::DocString(s) => proto.doc_string = Some(s),
            ModelHeaderValue::MetadataProps(props) => {
                proto.metadata_props.extend(string_pairs(props))
            }
            // The code generator sets these from the tree's header, after lowering.
            ModelHeaderValue::IrVersionHole(_) | ModelHeaderValue::ModelVersionHole(_) => {}
        }
    }
    proto.graph = Some(graph(model.graph));
    proto.functions = model.functions.into_iter().map(function).collect();
    proto
}

fn opsets(imports: Vec<OpsetImport>) -> impl Iterator<Item = OperatorSetIdProto> {
    imports.into_iter().map(|import| OperatorSetIdProto {
        domain: Some(import.domain),
        version: Some(import.version),
    })
}

fn string_pairs(pairs: Vec<(String, String)>) -> impl Iterator<Item = StringStringEntryProto> {
    pairs
        .into_iter()
        .map(|(key, value)| StringStringEntryProto {
            key: Some(key),
            value: Some(value),
        })
}

/// A graph. Input-list initializers are inputs and initializers; `<…>` initializers are
/// initializers only, and the other `<…>` entries are value infos.
///
/// ```
/// let tree = onnx_syntax::parse::Parser::new("g (float[1] w = {1}) => () {}")?.graph()?;
/// let graph = onnx_syntax::lower::graph(tree);
/// assert_eq!((graph.input.len(), graph.initializer.len()), (1, 1));
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
pub fn graph<N: NodeForm>(graph: Graph<N>) -> GraphProto {
    let mut proto = GraphProto {
        name: Some(graph.name.text),
        ..GraphProto::default()
    };
    for decl in graph.inputs {
        proto.initializer.extend(decl.initializer.map(tensor));
        proto.input.push(value_info(decl.info));
    }
    proto.output = graph.outputs.into_iter().map(value_info).collect();
    for decl in graph.locals {
        match decl.initializer {
            Some(tensor_constant) => proto.initializer.push(tensor(tensor_constant)),
            None => proto.value_info.push(value_info(decl.info)),
        }
    }
    proto.node = N::into_protos(graph.nodes);
    proto
}

/// A function, whatever form its nodes take. Typed inputs and outputs also add value infos, before the `<…>` list.
///
/// ```
/// let tree = onnx_syntax::parse::Parser::new("F (float x) => (y) {}")?.function()?;
/// assert_eq!(onnx_syntax::lower::function(tree).value_info.len(), 1);
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
pub fn function<N: NodeForm>(function: Function<N>) -> FunctionProto {
    let mut proto = FunctionProto {
        name: Some(function.name.text),
        ..FunctionProto::default()
    };
    for entry in function.header {
        match entry.value {
            FunctionHeaderValue::Domain(s) => proto.domain = Some(s),
            FunctionHeaderValue::OpsetImport(imports) => proto.opset_import.extend(opsets(imports)),
            FunctionHeaderValue::DocString(s) => proto.doc_string = Some(s),
            FunctionHeaderValue::Overload(s) => proto.overload = Some(s),
        }
    }
    for entry in function.attributes {
        match entry {
            FunctionAttribute::Name(name) => proto.attribute.push(name.text),
            FunctionAttribute::Proto(attr) => proto.attribute_proto.push(attribute(attr)),
        }
    }
    let typed_io: Vec<ValueInfo> = function
        .inputs
        .iter()
        .chain(&function.outputs)
        .filter(|info| info.ty.is_some())
        .cloned()
        .collect();
    proto.input = function
        .inputs
        .into_iter()
        .map(|info| info.name.text)
        .collect();
    proto.output = function
        .outputs
        .into_iter()
        .map(|info| info.name.text)
        .collect();
    proto.value_info = typed_io
        .into_iter()
        .chain(function.value_infos)
        .map(value_info)
        .collect();
    proto.node = N::into_protos(function.nodes);
    proto
}

/// A node: `op_type` and `domain` are always present, `name` only with a label.
///
/// ```
/// let tree = onnx_syntax::parse::Parser::new("y = Foo(x)")?.node()?;
/// assert_eq!(onnx_syntax::lower::node(tree).domain.as_deref(), Some(""));
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
pub fn node(node: Node) -> NodeProto {
    let mut attributes = Vec::with_capacity(node.attributes.len());
    for attr in node.attributes {
        attributes.push(attribute(attr));
    }
    // Every field named: `..NodeProto::default()` would make and drop the ones set here too.
    NodeProto {
        input: texts(node.inputs),
        output: texts(node.outputs),
        name: node.label.map(|label| label.text),
        op_type: Some(node.op_type),
        attribute: attributes,
        doc_string: None,
        domain: Some(node.domain),
        overload: node.overload.map(|overload| overload.text),
        metadata_props: Vec::new(),
        device_configurations: Vec::new(),
    }
}

/// Nodes as the tree has them: lowered when their body is.
impl NodeForm for Node {
    fn from_node(node: Node) -> Node {
        node
    }

    /// In a plain loop (see `texts`).
    fn into_protos(nodes: Vec<Node>) -> Vec<NodeProto> {
        let mut protos = Vec::with_capacity(nodes.len());
        for one in nodes {
            protos.push(node(one));
        }
        protos
    }
}

/// Nodes lowered as soon as they are parsed: their body is lowered already.
impl NodeForm for NodeProto {
    fn from_node(one: Node) -> NodeProto {
        node(one)
    }

    fn into_protos(nodes: Vec<NodeProto>) -> Vec<NodeProto> {
        nodes
    }
}

/// The texts of names. A plain loop: the macros run this unoptimized for every node, where an
/// iterator chain's `collect` costs several times as much.
fn texts(names: Vec<Name>) -> Vec<String> {
    let mut texts = Vec::with_capacity(names.len());
    for name in names {
        texts.push(name.text);
    }
    texts
}

/// An attribute: the type from the value or the annotation, and the value's field.
///
/// ```
/// let mut node = onnx_syntax::parse::Parser::new("y = Foo <a: float = 2> (x)")?.node()?;
/// let attr = onnx_syntax::lower::attribute(node.attributes.remove(0));
/// assert_eq!(attr.f, Some(2.0));
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
pub fn attribute(attr: Attribute) -> AttributeProto {
    let mut proto = AttributeProto {
        name: Some(attr.name.text),
        r#type: attr.ty.map(|ty| ty as i32),
        ..AttributeProto::default()
    };
    if !attr.holes.is_empty() {
        proto.doc_string = Some(ListHoles::note(&attr.holes));
    }
    let Some(value) = attr.value else {
        return proto;
    };
    match value {
        AttrValue::Float(v) => proto.f = Some(v),
        AttrValue::Int(v) => proto.i = Some(v),
        AttrValue::String(v) => proto.s = Some(v),
        AttrValue::Tensor(t) => proto.t = Some(Box::new(tensor(*t))),
        AttrValue::Graph(g) => proto.g = Some(Box::new(graph(*g))),
        AttrValue::TypeProto(t) => proto.tp = Some(Box::new(type_proto(*t))),
        AttrValue::Ref(name) => proto.ref_attr_name = Some(name.text),
        AttrValue::Floats(v) => proto.floats = v,
        AttrValue::Ints(v) => proto.ints = v,
        AttrValue::Strings(v) => proto.strings = v,
        AttrValue::Tensors(v) => proto.tensors = v.into_iter().map(tensor).collect(),
        AttrValue::Graphs(v) => proto.graphs = v.into_iter().map(graph).collect(),
        AttrValue::TypeProtos(v) => proto.type_protos = v.into_iter().map(type_proto).collect(),
        AttrValue::EmptyList => {}
        AttrValue::Hole(hole) => proto.doc_string = Some(hole.marker()),
    }
    proto
}

/// A tensor constant; the parser never writes `raw_data`.
///
/// ```
/// let mut graph = onnx_syntax::parse::Parser::new("g (int8[2] w = {1, 2}) => () {}")?.graph()?;
/// let tensor = onnx_syntax::lower::tensor(graph.inputs.remove(0).initializer.unwrap());
/// assert_eq!(tensor.int32_data, [1, 2]); // int8 data is stored in int32_data
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
pub fn tensor(tensor: Tensor) -> TensorProto {
    let mut proto = TensorProto {
        dims: tensor.dims,
        data_type: Some(tensor.elem_type),
        name: Some(tensor.name),
        doc_string: (!tensor.holes.is_empty()).then(|| ListHoles::note(&tensor.holes)),
        ..TensorProto::default()
    };
    match tensor.data {
        TensorData::None => {}
        TensorData::Values(values, _, _) => match values {
            TensorValues::Int32(v) => proto.int32_data = v,
            TensorValues::Int64(v) => proto.int64_data = v,
            TensorValues::Uint64(v) => proto.uint64_data = v,
            TensorValues::Float(v) => proto.float_data = v,
            TensorValues::Double(v) => proto.double_data = v,
            TensorValues::String(v) => proto.string_data = v,
        },
        TensorData::External(entries, _) => {
            proto.external_data = string_pairs(entries).collect();
            proto.data_location = Some(DataLocation::External as i32);
        }
    }
    proto
}

/// A value info: the name, and the type only if written.
///
/// ```
/// let mut graph = onnx_syntax::parse::Parser::new("g (x) => () {}")?.graph()?;
/// let info = onnx_syntax::lower::value_info(graph.inputs.remove(0).info);
/// assert_eq!(info.r#type, None); // untyped
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
pub fn value_info(info: ValueInfo) -> ValueInfoProto {
    ValueInfoProto {
        name: Some(info.name.text),
        r#type: info.ty.map(type_proto),
        ..ValueInfoProto::default()
    }
}

/// A type.
///
/// ```
/// let mut graph = onnx_syntax::parse::Parser::new("g (float[] x) => () {}")?.graph()?;
/// let ty = onnx_syntax::lower::type_proto(graph.inputs.remove(0).info.ty.unwrap());
/// let Some(onnx_runtime_types::type_proto::Value::TensorType(tensor)) = ty.value else { panic!() };
/// assert_eq!(tensor.shape, None); // `[]` is unknown rank
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
pub fn type_proto(ty: Type) -> TypeProto {
    let value = match ty.kind {
        TypeKind::Tensor(elem_type, shape) => type_proto::Value::TensorType(type_proto::Tensor {
            elem_type: Some(elem_type),
            shape: shape.map(tensor_shape),
        }),
        TypeKind::Sequence(elem) => {
            type_proto::Value::SequenceType(Box::new(type_proto::Sequence {
                elem_type: Some(Box::new(type_proto(*elem))),
            }))
        }
        TypeKind::Map(key, value) => type_proto::Value::MapType(Box::new(type_proto::Map {
            key_type: Some(key),
            value_type: Some(Box::new(type_proto(*value))),
        })),
        TypeKind::Optional(elem) => {
            type_proto::Value::OptionalType(Box::new(type_proto::Optional {
                elem_type: Some(Box::new(type_proto(*elem))),
            }))
        }
        TypeKind::SparseTensor(elem_type, shape) => {
            type_proto::Value::SparseTensorType(type_proto::SparseTensor {
                elem_type: Some(elem_type),
                shape: shape.map(tensor_shape),
            })
        }
        TypeKind::Opaque { domain, name } => {
            type_proto::Value::OpaqueType(type_proto::Opaque { domain, name })
        }
    };
    TypeProto {
        value: Some(value),
        ..TypeProto::default()
    }
}

fn tensor_shape(shape: Shape) -> TensorShapeProto {
    let dim = shape
        .into_iter()
        .map(|dim| Dimension {
            value: match dim.value {
                DimValue::Unknown => None,
                DimValue::Value(v) => Some(dimension::Value::DimValue(v)),
                DimValue::Param(p) => Some(dimension::Value::DimParam(p)),
            },
            ..Dimension::default()
        })
        .collect();
    TensorShapeProto { dim }
}
