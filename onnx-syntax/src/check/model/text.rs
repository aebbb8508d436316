//! The checks of the syntax (structure, declarations, operator schemas, shapes) on a binary
//! model, through its printed text, where their findings are positioned.
//!
//! The text is printed from a lean copy of the model ([`Lean`]), made so that the syntax can
//! read it back and the checks find what they would in the model:
//! - a tensor's data is left out when it breaks a data rule (already reported by `tensor`; the
//!   printer shows `...` for some of it), and when it is large (over [`LEAN_BYTES`]: weights,
//!   which none of these checks reads; shape inference follows only small constants);
//! - an operator, domain, attribute or function name that is no identifier (`../x`), which the
//!   syntax cannot write, becomes a placeholder (`unprintable_1`), the same for each use: an
//!   operator or attribute that no schema has is still reported, a domain not imported still is;
//! - an attribute without a `type` takes the type of its value field, one without either is
//!   left out, and one without a name gets a placeholder;
//! - a declared type whose element type does not exist (`0` is onnx's "unknown") is left out;
//!   a type held by an attribute that cannot be printed so becomes the empty opaque type.
//!
//! Element counts are the rules' business here, so `element_count_mismatch` is off for the
//! text.

use std::collections::HashMap;

use onnx_runtime_types::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
    SparseTensorProto, TensorProto, TypeProto, ValueInfoProto, attribute_proto::AttributeType,
    type_proto,
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
    // The rules report an untyped main-graph input or output on the message itself.
    let options = options
        .allow(Check::ElementCountMismatch)
        .allow(Check::MissingType);
    let text = to_text_with(&Lean::default().model(model), Style::Lossless);
    match Entry::Model.check(&text, &options) {
        Ok(_) => None,
        // Text the syntax cannot read back is a gap of the printer (or of the lean copy), not
        // a problem of the model: the model's own problems are the rules' to report (the gaps
        // are listed in docs/divergences.md).
        Err(diagnostics) if diagnostics.iter().any(|d| d.check().is_none()) => None,
        Err(diagnostics) => Some(diagnostics),
    }
}

/// Makes the lean copy; it keeps the placeholders given to unprintable words.
#[derive(Default)]
struct Lean {
    placeholders: HashMap<String, String>,
}

impl Lean {
    /// `word` if the syntax can write it as an identifier (a domain: dotted identifiers),
    /// else its placeholder.
    fn word(&mut self, word: &Option<String>, dotted: bool) -> Option<String> {
        let text = word.as_deref()?;
        let printable = match dotted {
            true => text.is_empty() || text.split('.').all(is_identifier),
            false => text.is_empty() || is_identifier(text),
        };
        if printable {
            return word.clone();
        }
        Some(self.placeholder(text))
    }

    /// The placeholder of `text`, the same for each use.
    fn placeholder(&mut self, text: &str) -> String {
        let next = self.placeholders.len() + 1;
        let placeholder = self
            .placeholders
            .entry(text.to_owned())
            .or_insert_with(|| format!("unprintable_{next}"));
        placeholder.clone()
    }

    /// A value's name: quoted, the syntax writes any name but one with a control character
    /// (a NUL included), which gets a placeholder.
    fn value(&mut self, name: &str) -> String {
        if !name.chars().any(char::is_control) {
            return name.to_owned();
        }
        self.placeholder(name)
    }

    fn values(&mut self, names: &[String]) -> Vec<String> {
        names.iter().map(|name| self.value(name)).collect()
    }

    fn named(&mut self, name: &Option<String>) -> Option<String> {
        name.as_deref().map(|name| self.value(name))
    }

    fn tensor(&mut self, tensor: &TensorProto) -> TensorProto {
        TensorProto {
            name: self.named(&tensor.name),
            ..lean_tensor(tensor)
        }
    }

    fn sparse(&mut self, sparse: &SparseTensorProto) -> SparseTensorProto {
        SparseTensorProto {
            values: sparse.values.as_ref().map(|t| self.tensor(t)),
            indices: sparse.indices.as_ref().map(lean_tensor),
            dims: sparse.dims.clone(),
        }
    }

    /// Value infos, untyped where their type has an element type that does not exist (`0`,
    /// which onnx reads as unknown, or a number no type has, which the rules report).
    fn infos(&mut self, infos: &[ValueInfoProto]) -> Vec<ValueInfoProto> {
        infos
            .iter()
            .map(|info| ValueInfoProto {
                name: self.named(&info.name),
                r#type: info.r#type.clone().filter(known_elem_types),
                ..info.clone()
            })
            .collect()
    }

    fn words(&mut self, words: &[String]) -> Vec<String> {
        words
            .iter()
            .map(|w| self.word(&Some(w.clone()), false).unwrap_or_default())
            .collect()
    }

    fn imports(&mut self, imports: &[OperatorSetIdProto]) -> Vec<OperatorSetIdProto> {
        imports
            .iter()
            .map(|i| OperatorSetIdProto {
                domain: self.word(&i.domain, true),
                version: i.version,
            })
            .collect()
    }

    fn model(&mut self, model: &ModelProto) -> ModelProto {
        ModelProto {
            ir_version: model.ir_version,
            // Header strings mean nothing to the checks; one with a control character cannot
            // be written.
            producer_name: writable(&model.producer_name),
            producer_version: writable(&model.producer_version),
            domain: writable(&model.domain),
            model_version: model.model_version,
            doc_string: model.doc_string.clone(),
            graph: model.graph.as_ref().map(|g| self.graph(g)),
            opset_import: self.imports(&model.opset_import),
            metadata_props: model.metadata_props.clone(),
            // The text has no training information.
            training_info: Vec::new(),
            functions: model.functions.iter().map(|f| self.function(f)).collect(),
            configuration: model.configuration.clone(),
        }
    }

    fn graph(&mut self, graph: &GraphProto) -> GraphProto {
        GraphProto {
            node: graph.node.iter().map(|n| self.node(n)).collect(),
            // A graph's name means nothing to these checks: one the syntax cannot write
            // becomes `graph`.
            name: graph.name.as_ref().map(|name| match is_identifier(name) {
                true => name.clone(),
                false => "graph".to_owned(),
            }),
            initializer: graph.initializer.iter().map(|t| self.tensor(t)).collect(),
            doc_string: graph.doc_string.clone(),
            input: self.infos(&graph.input),
            output: self.infos(&graph.output),
            value_info: self.infos(&graph.value_info),
            quantization_annotation: graph.quantization_annotation.clone(),
            sparse_initializer: (graph.sparse_initializer.iter())
                .map(|s| self.sparse(s))
                .collect(),
            metadata_props: graph.metadata_props.clone(),
        }
    }

    fn function(&mut self, function: &FunctionProto) -> FunctionProto {
        FunctionProto {
            name: self.word(&function.name, false),
            input: self.values(&function.input),
            output: self.values(&function.output),
            attribute: self.words(&function.attribute),
            node: function.node.iter().map(|n| self.node(n)).collect(),
            doc_string: function.doc_string.clone(),
            opset_import: self.imports(&function.opset_import),
            domain: self.word(&function.domain, true),
            attribute_proto: (function.attribute_proto.iter())
                .map(|a| self.attribute(a))
                .collect(),
            value_info: self.infos(&function.value_info),
            overload: self.word(&function.overload, false),
            metadata_props: function.metadata_props.clone(),
        }
    }

    fn node(&mut self, node: &NodeProto) -> NodeProto {
        NodeProto {
            // An attribute with neither type nor value cannot be written; the rules report it.
            attribute: (node.attribute.iter())
                .filter(|a| known_attribute_type(a.r#type).is_some() || value_type(a).is_some())
                .map(|a| self.attribute(a))
                .collect(),
            input: self.values(&node.input),
            output: self.values(&node.output),
            name: node.name.clone(),
            op_type: self.word(&node.op_type, false),
            domain: self.word(&node.domain, true),
            overload: self.word(&node.overload, false),
            doc_string: node.doc_string.clone(),
            metadata_props: node.metadata_props.clone(),
            device_configurations: node.device_configurations.clone(),
        }
    }

    fn attribute(&mut self, a: &AttributeProto) -> AttributeProto {
        AttributeProto {
            t: a.t.as_deref().map(|t| Box::new(unnamed(lean_tensor(t)))),
            g: a.g.as_deref().map(|g| Box::new(self.graph(g))),
            sparse_tensor: a.sparse_tensor.as_deref().map(|s| Box::new(self.sparse(s))),
            tensors: a.tensors.iter().map(|t| unnamed(lean_tensor(t))).collect(),
            graphs: a.graphs.iter().map(|g| self.graph(g)).collect(),
            sparse_tensors: a.sparse_tensors.iter().map(|s| self.sparse(s)).collect(),
            name: match a.name.as_deref() {
                None | Some("") => self.word(&Some("<empty>".to_owned()), false),
                Some(_) => self.word(&a.name, false),
            },
            ref_attr_name: self.word(&a.ref_attr_name, false),
            doc_string: a.doc_string.clone(),
            r#type: known_attribute_type(a.r#type).or_else(|| value_type(a)),
            f: a.f,
            i: a.i,
            s: a.s.clone(),
            tp: a.tp.as_deref().map(|t| Box::new(printable_type(t))),
            floats: a.floats.clone(),
            ints: a.ints.clone(),
            strings: a.strings.clone(),
            type_protos: a.type_protos.iter().map(printable_type).collect(),
        }
    }
}

/// `text` if it has no control character.
fn writable(text: &Option<String>) -> Option<String> {
    text.clone().filter(|t| !t.chars().any(char::is_control))
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

/// An attribute's tensor without its name, which the syntax cannot write there (and which
/// means nothing).
fn unnamed(tensor: TensorProto) -> TensorProto {
    TensorProto {
        name: None,
        ..tensor
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
