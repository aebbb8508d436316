//! The checks of the syntax (structure, declarations, operator schemas, shapes) on a binary
//! model, through its printed text, where their findings are positioned.
//!
//! The text is printed from a lean copy of the model: a tensor's data is left out when it
//! breaks a data rule (already reported by `tensor`; the printer would show `...` for some of
//! it), and when it is large (over [`LEAN_BYTES`]: weights, which none of these checks reads;
//! shape inference follows only small constants). Element counts are the rules' business
//! here, so `element_count_mismatch` is off for the text.

use onnx_runtime_types::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, SparseTensorProto,
    TensorProto, TypeProto, ValueInfoProto, type_proto,
};

use super::tensor::data_problem;
use crate::check::{Check, CheckOptions, Diagnostics};
use crate::dtype::elem_type_by_number;
use crate::entry::Entry;
use crate::print::{Style, is_identifier, to_text_with};

/// Tensors with more bytes of data than this are printed without it.
pub(super) const LEAN_BYTES: usize = 4096;

/// Runs the checks of the syntax on the text of `model`; `None` if they find nothing, if the
/// model has no graph to print (which the rules report), or if the text does not parse.
pub(super) fn check(model: &ModelProto, options: &CheckOptions) -> Option<Diagnostics> {
    model.graph.as_ref()?;
    let options = options.allow(Check::ElementCountMismatch);
    let text = to_text_with(&lean_model(model), Style::Lossless);
    match Entry::Model.check(&text, &options) {
        Ok(_) => None,
        // Text the syntax cannot read back is a gap of the printer (or of the lean copy), not
        // a problem of the model: the model's own problems are the rules' to report (a model
        // whose messages break none prints to text that parses, but for the gaps listed in
        // docs/divergences.md).
        Err(diagnostics) if diagnostics.iter().any(|d| d.check().is_none()) => None,
        Err(diagnostics) => Some(diagnostics),
    }
}

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
        // The text has no training information.
        training_info: Vec::new(),
        functions: model.functions.iter().map(lean_function).collect(),
        configuration: model.configuration.clone(),
    }
}

fn lean_graph(graph: &GraphProto) -> GraphProto {
    GraphProto {
        node: graph.node.iter().map(lean_node).collect(),
        // The syntax writes a graph's name as an identifier: another (which means nothing to
        // these checks) becomes `graph`.
        name: graph.name.as_ref().map(|name| match is_identifier(name) {
            true => name.clone(),
            false => "graph".to_owned(),
        }),
        initializer: graph.initializer.iter().map(lean_tensor).collect(),
        doc_string: graph.doc_string.clone(),
        input: lean_infos(&graph.input),
        output: lean_infos(&graph.output),
        value_info: lean_infos(&graph.value_info),
        quantization_annotation: graph.quantization_annotation.clone(),
        sparse_initializer: graph.sparse_initializer.iter().map(lean_sparse).collect(),
        metadata_props: graph.metadata_props.clone(),
    }
}

fn lean_function(function: &FunctionProto) -> FunctionProto {
    FunctionProto {
        name: function.name.clone(),
        input: function.input.clone(),
        output: function.output.clone(),
        attribute: function.attribute.clone(),
        node: function.node.iter().map(lean_node).collect(),
        doc_string: function.doc_string.clone(),
        opset_import: function.opset_import.clone(),
        domain: function.domain.clone(),
        attribute_proto: function
            .attribute_proto
            .iter()
            .map(lean_attribute)
            .collect(),
        value_info: lean_infos(&function.value_info),
        overload: function.overload.clone(),
        metadata_props: function.metadata_props.clone(),
    }
}

fn lean_node(node: &NodeProto) -> NodeProto {
    NodeProto {
        attribute: node.attribute.iter().map(lean_attribute).collect(),
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

fn lean_attribute(attribute: &AttributeProto) -> AttributeProto {
    AttributeProto {
        t: attribute
            .t
            .as_deref()
            .map(|t| Box::new(unnamed(lean_tensor(t)))),
        g: attribute.g.as_deref().map(|g| Box::new(lean_graph(g))),
        sparse_tensor: (attribute.sparse_tensor.as_deref()).map(|s| Box::new(lean_sparse(s))),
        tensors: attribute
            .tensors
            .iter()
            .map(|t| unnamed(lean_tensor(t)))
            .collect(),
        graphs: attribute.graphs.iter().map(lean_graph).collect(),
        sparse_tensors: attribute.sparse_tensors.iter().map(lean_sparse).collect(),
        name: attribute.name.clone(),
        ref_attr_name: attribute.ref_attr_name.clone(),
        doc_string: attribute.doc_string.clone(),
        r#type: attribute.r#type,
        f: attribute.f,
        i: attribute.i,
        s: attribute.s.clone(),
        tp: attribute.tp.clone(),
        floats: attribute.floats.clone(),
        ints: attribute.ints.clone(),
        strings: attribute.strings.clone(),
        type_protos: attribute.type_protos.clone(),
    }
}

fn lean_sparse(sparse: &SparseTensorProto) -> SparseTensorProto {
    SparseTensorProto {
        values: sparse.values.as_ref().map(lean_tensor),
        indices: sparse.indices.as_ref().map(lean_tensor),
        dims: sparse.dims.clone(),
    }
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
        segment: tensor.segment.clone(),
        name: tensor.name.clone(),
        doc_string: tensor.doc_string.clone(),
        external_data: tensor.external_data.clone(),
        data_location: tensor.data_location,
        metadata_props: tensor.metadata_props.clone(),
        ..TensorProto::default()
    }
}

/// An attribute's tensor without its name, which the syntax cannot write there (and which
/// means nothing).
fn unnamed(tensor: TensorProto) -> TensorProto {
    TensorProto {
        name: None,
        ..tensor
    }
}

/// Value infos, untyped where their type has an element type that does not exist (`0`, which
/// onnx reads as unknown, or a number no type has, which the rules report): the syntax cannot
/// write it.
fn lean_infos(infos: &[ValueInfoProto]) -> Vec<ValueInfoProto> {
    infos
        .iter()
        .map(|info| ValueInfoProto {
            r#type: info.r#type.clone().filter(known_elem_types),
            ..info.clone()
        })
        .collect()
}

/// True if `ty` is complete enough to print: every element type in it (nested ones included)
/// given and existing, every nested type given.
fn known_elem_types(ty: &TypeProto) -> bool {
    use type_proto::Value;
    let known = |elem: Option<i32>| elem.is_some_and(|n| elem_type_by_number(n).is_some());
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
