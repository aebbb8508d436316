//! The checks of the syntax (structure, declarations, operator schemas, shapes) on a binary
//! model: on its syntax tree, raised from its messages (`raise`), with their findings
//! positioned in its printed text. Nothing is parsed again.
//!
//! The tree is raised from a lean copy of the model, so that the checks find what they would
//! in the model and nothing the rules already report:
//! - a tensor's data is left out when it breaks a data rule (reported by `tensor`), and when
//!   it is large (over [`LEAN_BYTES`]: weights, which none of these checks reads; shape
//!   inference follows only small constants);
//! - an attribute without a `type` takes the type of its value field, and one without either
//!   is left out;
//! - a declared type with an element type that does not exist (which the rules report), or a
//!   nested type left out, is left out; a type held by an attribute becomes the empty opaque
//!   type then. Element type 0, onnx's "unknown", stays unknown: the shape still counts.
//!
//! Element counts are the rules' business here, so `element_count_mismatch` is off for the
//! tree.

use onnx_runtime_types::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, SparseTensorProto,
    TensorProto, TypeProto, ValueInfoProto, attribute_proto::AttributeType, type_proto,
};

use super::raise::raise;
use super::tensor::data_problem;
use onnx_check::{Check, CheckOptions, CheckTree, Diagnostics};
use onnx_syntax::dtype::elem_type_by_number;
use onnx_syntax::{Proto, Tree};

/// Tensors with more bytes of data than this are raised without it.
pub(super) const LEAN_BYTES: usize = 4096;

/// Runs the checks of the syntax on `model`; `None` if they find nothing, or if the model has
/// no graph (which the rules report).
pub(super) fn check(model: &ModelProto, options: &CheckOptions) -> Option<Diagnostics> {
    model.graph.as_ref()?;
    // The rules report an untyped main-graph input or output, and a negative dim, on the
    // message itself.
    let options = options
        .allow(Check::ElementCountMismatch)
        .allow(Check::MissingType)
        .allow(Check::NegativeDim);
    // With only the rules on (the CLI's check of a text's external data), there is nothing to
    // raise and print the model for.
    if Check::ALL
        .iter()
        .all(|&c| c.is_binary_only() || !options.is_enabled(c))
    {
        return None;
    }
    let lean = lean_model(model);
    let (text, tree) = raise(&lean);
    let report = Tree::Model(tree).check_lowered(&text, &options, || Proto::Model(lean));
    (!report.diagnostics.is_empty()).then(|| Diagnostics::new(&text, report.diagnostics))
}

/// The lean copy of a model (see the module's documentation).
fn lean_model(model: &ModelProto) -> ModelProto {
    ModelProto {
        ir_version: model.ir_version,
        producer_name: model.producer_name.clone(),
        producer_version: model.producer_version.clone(),
        domain: model.domain.clone(),
        model_version: model.model_version,
        doc_string: model.doc_string.clone(),
        graph: model.graph.as_ref().map(lean_graph),
        opset_import: model.opset_import.clone(),
        metadata_props: model.metadata_props.clone(),
        // The syntax has no training information.
        training_info: Vec::new(),
        functions: model.functions.iter().map(lean_function).collect(),
        configuration: model.configuration.clone(),
    }
}

fn lean_graph(graph: &GraphProto) -> GraphProto {
    GraphProto {
        node: graph.node.iter().map(lean_node).collect(),
        name: graph.name.clone(),
        initializer: graph.initializer.iter().map(lean_tensor).collect(),
        doc_string: graph.doc_string.clone(),
        input: lean_infos(&graph.input),
        output: lean_infos(&graph.output),
        value_info: lean_infos(&graph.value_info),
        quantization_annotation: graph.quantization_annotation.clone(),
        sparse_initializer: (graph.sparse_initializer.iter()).map(lean_sparse).collect(),
        metadata_props: graph.metadata_props.clone(),
    }
}

fn lean_function(function: &FunctionProto) -> FunctionProto {
    FunctionProto {
        node: function.node.iter().map(lean_node).collect(),
        attribute_proto: (function.attribute_proto.iter())
            .map(lean_attribute)
            .collect(),
        value_info: lean_infos(&function.value_info),
        name: function.name.clone(),
        input: function.input.clone(),
        output: function.output.clone(),
        attribute: function.attribute.clone(),
        doc_string: function.doc_string.clone(),
        opset_import: function.opset_import.clone(),
        domain: function.domain.clone(),
        overload: function.overload.clone(),
        metadata_props: function.metadata_props.clone(),
    }
}

fn lean_node(node: &NodeProto) -> NodeProto {
    NodeProto {
        // An attribute with neither type nor value means nothing to the syntax; the rules
        // report it.
        attribute: (node.attribute.iter())
            .filter(|a| known_attribute_type(a.r#type).is_some() || value_type(a).is_some())
            .map(lean_attribute)
            .collect(),
        input: node.input.clone(),
        output: node.output.clone(),
        name: node.name.clone(),
        op_type: node.op_type.clone(),
        domain: node.domain.clone(),
        overload: node.overload.clone(),
        doc_string: node.doc_string.clone(),
        metadata_props: node.metadata_props.clone(),
        device_configurations: node.device_configurations.clone(),
    }
}

/// The attribute with a type, and the value field of that type set: one left unset holds its
/// default (0, empty), as protobuf reads it, and as the tree shows it.
fn lean_attribute(a: &AttributeProto) -> AttributeProto {
    let ty = known_attribute_type(a.r#type).or_else(|| value_type(a));
    let unset = |field: AttributeType| a.ref_attr_name.is_none() && ty == Some(field as i32);
    let t = a.t.as_deref().map(lean_tensor);
    let g = a.g.as_deref().map(lean_graph);
    AttributeProto {
        f: a.f.or_else(|| unset(AttributeType::Float).then_some(0.0)),
        i: a.i.or_else(|| unset(AttributeType::Int).then_some(0)),
        s: a.s
            .clone()
            .or_else(|| unset(AttributeType::String).then(Vec::new)),
        t: t.or_else(|| unset(AttributeType::Tensor).then(TensorProto::default))
            .map(Box::new),
        g: g.or_else(|| unset(AttributeType::Graph).then(GraphProto::default))
            .map(Box::new),
        sparse_tensor: a.sparse_tensor.as_deref().map(|s| Box::new(lean_sparse(s))),
        tensors: a.tensors.iter().map(lean_tensor).collect(),
        graphs: a.graphs.iter().map(lean_graph).collect(),
        sparse_tensors: a.sparse_tensors.iter().map(lean_sparse).collect(),
        r#type: ty,
        tp: a.tp.as_deref().map(|t| Box::new(printable_type(t))),
        type_protos: a.type_protos.iter().map(printable_type).collect(),
        name: a.name.clone(),
        ref_attr_name: a.ref_attr_name.clone(),
        doc_string: a.doc_string.clone(),
        floats: a.floats.clone(),
        ints: a.ints.clone(),
        strings: a.strings.clone(),
    }
}

fn lean_sparse(sparse: &SparseTensorProto) -> SparseTensorProto {
    SparseTensorProto {
        values: sparse.values.as_ref().map(lean_tensor),
        indices: sparse.indices.as_ref().map(lean_tensor),
        dims: sparse.dims.clone(),
    }
}

/// Value infos, untyped where their type has an element type that does not exist (a number
/// no type has, which the rules report) or a nested type left out.
fn lean_infos(infos: &[ValueInfoProto]) -> Vec<ValueInfoProto> {
    (infos.iter())
        .map(|info| ValueInfoProto {
            r#type: info.r#type.clone().filter(known_elem_types),
            ..info.clone()
        })
        .collect()
}

/// `ty` if it names an attribute type (not UNDEFINED).
fn known_attribute_type(ty: Option<i32>) -> Option<i32> {
    ty.filter(|&t| t != 0 && AttributeType::try_from(t).is_ok())
}

/// The type of the first value field an attribute holds, for one without a `type`.
fn value_type(a: &AttributeProto) -> Option<i32> {
    let (_, ty, _) = super::rules::value_fields(a)
        .into_iter()
        .find(|&(set, _, _)| set)?;
    Some(ty as i32)
}

/// The tensor, without its data if that breaks a rule or is large.
fn lean_tensor(tensor: &TensorProto) -> TensorProto {
    let size = tensor.raw_data.as_ref().map_or(0, Vec::len)
        + 4 * (tensor.float_data.len() + tensor.int32_data.len())
        + 8 * (tensor.int64_data.len() + tensor.double_data.len() + tensor.uint64_data.len())
        + tensor.string_data.iter().map(Vec::len).sum::<usize>();
    if size <= LEAN_BYTES && data_problem(tensor).is_none() {
        return tensor.clone();
    }
    TensorProto {
        dims: tensor.dims.clone(),
        data_type: tensor.data_type,
        segment: tensor.segment,
        name: tensor.name.clone(),
        doc_string: tensor.doc_string.clone(),
        external_data: tensor.external_data.clone(),
        data_location: tensor.data_location,
        metadata_props: tensor.metadata_props.clone(),
        ..TensorProto::default()
    }
}

/// An attribute's type as it is if it can be printed, else the empty opaque type (`opaque()`)
/// in its place: the checks look at the attribute's name and kind, not at the type it holds.
fn printable_type(ty: &TypeProto) -> TypeProto {
    if known_elem_types(ty) {
        return ty.clone();
    }
    TypeProto {
        value: Some(type_proto::Value::OpaqueType(type_proto::Opaque::default())),
        ..TypeProto::default()
    }
}

/// True if `ty` is complete enough for the checks: every nested type given, every element type
/// in it (nested ones included) existing, or unknown (0 or missing, as onnx reads it: the rest
/// of the type, its shape, still counts).
fn known_elem_types(ty: &TypeProto) -> bool {
    use type_proto::Value;
    let known = |elem: Option<i32>| elem.is_none_or(|n| n == 0 || elem_type_by_number(n).is_some());
    let nested = |ty: &Option<Box<TypeProto>>| ty.as_deref().is_some_and(known_elem_types);
    match &ty.value {
        None => false,
        Some(Value::OpaqueType(_)) => true,
        Some(Value::TensorType(t)) => known(t.elem_type),
        Some(Value::SparseTensorType(t)) => known(t.elem_type),
        Some(Value::SequenceType(t)) => nested(&t.elem_type),
        Some(Value::OptionalType(t)) => nested(&t.elem_type),
        Some(Value::MapType(t)) => known(t.key_type) && nested(&t.value_type),
    }
}
