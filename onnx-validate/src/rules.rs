//! The rules of the IR spec and of onnx's checker that only protobuf messages can break, over
//! a whole model: its header, graphs (subgraphs included), nodes, attributes, local functions
//! and metadata. Tensors are `tensor`'s, their external data `external`'s.
//!
//! What the syntax can write too (SSA, order, scopes, domains, operator schemas, shapes) is
//! left to the checks of the syntax, which run on the model's raised tree (`syntax`).

use std::collections::HashSet;
use std::path::Path;

use onnx_runtime_types::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
    TensorShapeProto, TypeProto, ValueInfoProto, attribute_proto::AttributeType,
    tensor_shape_proto::dimension::Value as Dimension, type_proto,
};

use super::NEWEST_IR_VERSION;
use super::place::{named_step, node_step, quoted};
use onnx_check::{Check, CheckOptions, negative_dim, since_version};
use onnx_syntax::diagnostic::{Diagnostic, Place};
use onnx_syntax::domain::{self, canonical as canonical_domain};
use onnx_syntax::dtype::elem_type_by_number;

/// Runs every rule on `model`; external data is looked for in `model_dir`.
pub(super) fn check(
    model: &ModelProto,
    options: &CheckOptions,
    model_dir: Option<&Path>,
) -> Vec<Diagnostic> {
    let mut rules = Rules {
        options,
        model_dir,
        ir_version: model.ir_version.unwrap_or(0),
        steps: Vec::new(),
        problems: Vec::new(),
    };
    rules.model(model);
    rules.problems
}

/// The walk: the rules' context and findings.
pub(super) struct Rules<'a> {
    options: &'a CheckOptions,
    pub model_dir: Option<&'a Path>,
    ir_version: i64,
    /// Where the walk is, as [`Place`] steps.
    steps: Vec<String>,
    pub problems: Vec<Diagnostic>,
}

/// Whether a graph is the model's main graph, whose inputs and outputs need types.
#[derive(Clone, Copy, PartialEq, Eq)]
enum GraphKind {
    Main,
    Sub,
}

impl Rules<'_> {
    /// Reports a problem found by `check` at the current place, if `check` is on.
    pub fn report(&mut self, check: Check, message: String) {
        if self.options.is_enabled(check) {
            let place = Place::new(self.steps.clone());
            let problem = Diagnostic::in_message(check, place, message);
            self.problems.push(problem);
        }
    }

    /// Runs `f` one step further down, at `step`.
    pub fn at<R>(&mut self, step: String, f: impl FnOnce(&mut Self) -> R) -> R {
        self.steps.push(step);
        let result = f(self);
        self.steps.pop();
        result
    }

    fn model(&mut self, model: &ModelProto) {
        match model.ir_version {
            None | Some(0) => self.report(Check::IrVersion, "the model has no ir_version".into()),
            Some(v) if v < 0 => self.report(
                Check::IrVersion,
                format!("ir_version {v} is negative: IR versions count from 1"),
            ),
            Some(v) if v > NEWEST_IR_VERSION => self.report(
                Check::IrVersion,
                format!("ir_version {v} is newer than IR {NEWEST_IR_VERSION}, the newest onnx 1.23.2 knows"),
            ),
            Some(_) => {}
        }
        self.metadata(model);
        self.imports(&model.opset_import, "the model");
        if self.ir_version >= 3 && model.opset_import.is_empty() {
            let message = "a model of IR 3 or later must have an opset_import".into();
            self.report(Check::OpsetImport, message);
        } else if (1..3).contains(&self.ir_version) && !model.opset_import.is_empty() {
            let message = format!(
                "a model of IR {} cannot have an opset_import (it came with IR 3)",
                self.ir_version
            );
            self.report(Check::OpsetImport, message);
        }
        match &model.graph {
            Some(graph) => self.graph(graph, GraphKind::Main),
            None => self.report(Check::MissingField, "the model has no graph".into()),
        }
        if self.ir_version >= 8 {
            self.functions(model);
        }
    }

    fn metadata(&mut self, model: &ModelProto) {
        let mut keys = HashSet::new();
        for entry in &model.metadata_props {
            let key = entry.key.as_deref().unwrap_or_default();
            if !keys.insert(key) {
                let message = format!("metadata_props has the key {} twice", quoted(key));
                self.report(Check::DuplicateMetadata, message);
            }
        }
    }

    /// One version per domain, each in the 32-bit range onnx's checker takes. `""` and
    /// `ai.onnx` are one domain.
    fn imports(&mut self, imports: &[OperatorSetIdProto], owner: &str) {
        let mut seen = HashSet::new();
        for import in imports {
            let domain = import.domain.as_deref().unwrap_or_default();
            let version = import.version.unwrap_or(0);
            let step = format!("opset_import {}", quoted(domain));
            self.at(step, |rules| {
                if i32::try_from(version).is_err() {
                    let message = format!("opset version {version} is out of the 32-bit range");
                    rules.report(Check::OpsetImport, message);
                }
                if !seen.insert(canonical_domain(domain)) {
                    let message = format!(
                        "{owner} imports the domain {} twice: one version per domain",
                        quoted(domain)
                    );
                    rules.report(Check::OpsetImport, message);
                }
            });
        }
    }

    fn graph(&mut self, graph: &GraphProto, kind: GraphKind) {
        let name = graph.name.as_deref().unwrap_or_default();
        self.at(format!("graph {}", quoted(name)), |rules| {
            if name.is_empty() {
                rules.report(Check::MissingField, "the graph has no name".into());
            }
            for (list, infos) in [("input", &graph.input), ("output", &graph.output)] {
                for (index, info) in infos.iter().enumerate() {
                    rules.value_info(list, index, info, kind);
                }
            }
            for info in &graph.value_info {
                let step = format!(
                    "value_info {}",
                    quoted(info.name.as_deref().unwrap_or_default())
                );
                rules.at(step, |rules| rules.declared_type(info));
            }
            rules.initializers(graph);
            for (index, node) in graph.node.iter().enumerate() {
                rules.node(index, node);
            }
        });
    }

    /// A graph input's or output's name, and in the main graph its type.
    fn value_info(&mut self, list: &str, index: usize, info: &ValueInfoProto, kind: GraphKind) {
        let name = info.name.as_deref().unwrap_or_default();
        let step = named_step(list, index, name);
        self.at(step, |rules| {
            if name.is_empty() {
                rules.report(
                    Check::MissingField,
                    format!("graph {list} {index} has no name"),
                );
            }
            if kind == GraphKind::Main {
                rules.main_graph_type(list, info);
            }
            rules.declared_type(info);
            if list == "input" {
                rules.known_input_type(info);
            }
        });
    }

    /// The IR: "The main graph inputs and outputs are required to have a shape, indicating
    /// the rank, even though the exact dimensions need not be specified."
    fn main_graph_type(&mut self, list: &str, info: &ValueInfoProto) {
        use type_proto::Value;
        let name = quoted(info.name.as_deref().unwrap_or_default());
        let missing = |what: &str| format!("the main graph's {list} {name} has no {what}");
        let problem = match info.r#type.as_ref().map(|t| &t.value) {
            None => Some(missing("type")),
            Some(None) => Some(missing("type (its TypeProto is empty)")),
            Some(Some(Value::TensorType(t))) => match (t.elem_type, &t.shape) {
                (None, _) => Some(missing("element type")),
                (_, None) => Some(format!(
                    "the main graph's {list} {name} has no shape: write its rank, \
                     with `?` or a name for unknown dims (`float[N, 10]`; `float` is a scalar)"
                )),
                _ => None,
            },
            Some(Some(Value::SparseTensorType(t))) => match (t.elem_type, &t.shape) {
                (None, _) => Some(missing("element type")),
                (_, None) => Some(missing("shape")),
                _ => None,
            },
            // Their parts, required in every graph, are `declared_type`'s.
            Some(Some(Value::SequenceType(_) | Value::OptionalType(_) | Value::MapType(_))) => None,
            Some(Some(Value::OpaqueType(t))) => {
                let empty = t.name.as_deref().unwrap_or_default().is_empty();
                empty.then(|| missing("opaque type name"))
            }
        };
        if let Some(message) = problem {
            self.report(Check::MissingType, message);
        }
    }

    /// A declared type's element types exist (`0` is onnx's "unknown") and its dims are not
    /// negative.
    fn declared_type(&mut self, info: &ValueInfoProto) {
        let Some(ty) = &info.r#type else { return };
        let name = quoted(info.name.as_deref().unwrap_or_default());
        let mut problems = Vec::new();
        type_problems(ty, &mut problems);
        for (check, what) in problems {
            self.report(check, format!("the type of {name} has {what}"));
        }
    }

    /// A graph input's tensor type, if it has one, names its element type, also as the
    /// element of a sequence or optional: onnx's shape inference rejects an input of element
    /// type 0 (UNDEFINED), which is also what an element's tensor type without one reads as.
    fn known_input_type(&mut self, info: &ValueInfoProto) {
        use type_proto::Value;
        let mut value = info.r#type.as_ref().and_then(|t| t.value.as_ref());
        let mut nested = false;
        // The tensor inside any sequences and optionals.
        loop {
            let inner = match value {
                Some(Value::SequenceType(s)) => &s.elem_type,
                Some(Value::OptionalType(o)) => &o.elem_type,
                _ => break,
            };
            value = inner.as_deref().and_then(|t| t.value.as_ref());
            nested = true;
        }
        let elem = match value {
            Some(Value::TensorType(t)) => t.elem_type,
            Some(Value::SparseTensorType(t)) => t.elem_type,
            _ => return,
        };
        // A missing element type at the top is `missing_type` (`main_graph_type`).
        let name = quoted(info.name.as_deref().unwrap_or_default());
        let message = match elem {
            Some(0) => format!("the type of input {name} has the element type 0 (UNDEFINED)"),
            None if nested => format!("the type of input {name} has a tensor of no element type"),
            _ => return,
        };
        self.report(Check::DataType, message);
    }

    fn initializers(&mut self, graph: &GraphProto) {
        let inputs: HashSet<&str> = graph
            .input
            .iter()
            .filter_map(|i| i.name.as_deref())
            .collect();
        for (index, tensor) in graph.initializer.iter().enumerate() {
            let name = tensor.name.as_deref().unwrap_or_default();
            let step = named_step("initializer", index, name);
            self.at(step, |rules| {
                if name.is_empty() {
                    rules.report(Check::MissingField, "the initializer has no name".into());
                } else if rules.ir_version <= 3 && !inputs.contains(name) {
                    let message = format!(
                        "initializer {} is not a graph input, as IR {} requires (from IR 4 on, \
                         initializers need not be inputs)",
                        quoted(name),
                        rules.ir_version
                    );
                    rules.report(Check::InitializerNotInput, message);
                }
                rules.tensor(tensor);
            });
        }
        for (index, sparse) in graph.sparse_initializer.iter().enumerate() {
            let name = sparse.values.as_ref().and_then(|v| v.name.as_deref());
            let name = name.unwrap_or_default();
            let step = match name {
                "" => format!("sparse initializer {index}"),
                _ => format!("sparse initializer {}", quoted(name)),
            };
            self.at(step, |rules| {
                if name.is_empty() {
                    let message = "the sparse initializer has no name (its values' name)".into();
                    rules.report(Check::MissingField, message);
                }
                rules.sparse(sparse);
            });
        }
    }

    fn node(&mut self, index: usize, node: &NodeProto) {
        self.at(node_step(index, node), |rules| {
            let op_type = node.op_type.as_deref().unwrap_or_default();
            if op_type.is_empty() {
                rules.report(Check::EmptyOpType, "the node has no op_type".into());
            }
            if node.input.is_empty() && node.output.is_empty() {
                let message = format!("node `{op_type}` has neither inputs nor outputs");
                rules.report(Check::EmptyNode, message);
            }
            for attribute in &node.attribute {
                rules.attribute(attribute);
            }
            rules.constant_value(node);
            rules.data_type_attributes(node);
        });
    }

    /// A `Constant` has exactly one value attribute (its schema makes each optional, and its
    /// shape inference requires one), which holds its value: a single number, string or
    /// tensor is not read as a default there.
    fn constant_value(&mut self, node: &NodeProto) {
        let standard = domain::is_default(node.domain.as_deref().unwrap_or_default());
        if !standard || node.op_type.as_deref() != Some("Constant") {
            return;
        }
        let values: Vec<&AttributeProto> = (node.attribute.iter())
            .filter(|a| {
                let name = a.name.as_deref().unwrap_or_default();
                name == "value" || name == "sparse_value" || name.starts_with("value_")
            })
            .collect();
        if values.len() != 1 {
            let message = format!(
                "`Constant` needs exactly one of `value`, `value_*` and `sparse_value`, found {}",
                values.len()
            );
            self.report(Check::MissingAttribute, message);
            return;
        }
        let value = values[0];
        let name = value.name.as_deref().unwrap_or_default();
        let held = match name {
            "value" => value.t.is_some(),
            "sparse_value" => value.sparse_tensor.is_some(),
            "value_int" => value.i.is_some(),
            "value_float" => value.f.is_some(),
            "value_string" => value.s.is_some(),
            _ => true,
        };
        if !held && value.ref_attr_name.is_none() {
            let message = format!("`Constant`'s `{name}` holds no value");
            self.at(format!("attribute {}", quoted(name)), |rules| {
                rules.report(Check::AttributeFields, message);
            });
        }
    }

    /// The attributes of standard operators that name an element type (`Cast`'s `to`,
    /// `dtype`, `output_dtype`) name one that exists (`output_dtype` may be 0: "as the
    /// input").
    fn data_type_attributes(&mut self, node: &NodeProto) {
        let standard = domain::is_default(node.domain.as_deref().unwrap_or_default());
        let op_type = node.op_type.as_deref().unwrap_or_default();
        if !standard {
            return;
        }
        for attribute in &node.attribute {
            let name = attribute.name.as_deref().unwrap_or_default();
            let names_type = match name {
                "to" => matches!(op_type, "Cast" | "BitCast"),
                "dtype" => DTYPE_OPERATORS.contains(&op_type),
                "output_dtype" => matches!(op_type, "QuantizeLinear" | "DequantizeLinear"),
                _ => false,
            };
            // An INT attribute without its value reads as 0, as proto2 defaults it.
            let int = attribute.r#type == Some(AttributeType::Int as i32);
            if !names_type || attribute.ref_attr_name.is_some() || !(int || attribute.i.is_some()) {
                continue;
            }
            let value = attribute.i.unwrap_or(0);
            let exists = i32::try_from(value).is_ok_and(|n| elem_type_by_number(n).is_some());
            let default_output = name == "output_dtype" && value == 0;
            if !(exists || default_output) {
                let message =
                    format!("`{op_type}`'s `{name}` is {value}, which is no element type");
                self.at(format!("attribute {}", quoted(name)), |rules| {
                    rules.report(Check::AttributeFields, message);
                });
            }
        }
    }

    fn attribute(&mut self, attribute: &AttributeProto) {
        let name = attribute.name.as_deref().unwrap_or_default();
        self.at(format!("attribute {}", quoted(name)), |rules| {
            if name.is_empty() {
                rules.report(Check::MissingField, "the attribute has no name".into());
            }
            rules.attribute_fields(attribute);
            for ty in attribute
                .tp
                .as_deref()
                .into_iter()
                .chain(&attribute.type_protos)
            {
                let mut problems = Vec::new();
                type_problems(ty, &mut problems);
                for (check, what) in problems {
                    rules.report(check, format!("the attribute's type value has {what}"));
                }
            }
            for tensor in attribute.t.as_deref().into_iter().chain(&attribute.tensors) {
                rules.tensor(tensor);
            }
            let sparse = attribute.sparse_tensor.as_deref();
            for sparse in sparse.into_iter().chain(&attribute.sparse_tensors) {
                rules.sparse(sparse);
            }
            for graph in attribute.g.as_deref().into_iter().chain(&attribute.graphs) {
                rules.graph(graph, GraphKind::Sub);
            }
        });
    }

    /// Exactly one value field (or none: a proto2 default, or a reference), the one `type`
    /// names; `type` present from IR 2 on; no value beside `ref_attr_name`.
    fn attribute_fields(&mut self, a: &AttributeProto) {
        use AttributeType as T;
        let set = value_fields(a);
        let used: Vec<(T, &str)> = set.iter().filter(|s| s.0).map(|s| (s.1, s.2)).collect();
        let fields = || used.iter().map(|u| u.1).collect::<Vec<_>>().join(", ");
        match a.r#type {
            None if self.ir_version >= 2 => {
                let message = "the attribute has no type (required from IR 2 on)".into();
                self.report(Check::AttributeFields, message);
            }
            None => {}
            Some(ty) => match T::try_from(ty) {
                Ok(declared) => {
                    if let Some((_, field)) = used.iter().find(|u| u.0 != declared) {
                        let message = format!(
                            "the attribute's type is {} but it holds `{field}`",
                            declared.as_str_name()
                        );
                        self.report(Check::AttributeFields, message);
                        return;
                    }
                }
                Err(_) => {
                    let message = format!("the attribute's type {ty} is no attribute type");
                    self.report(Check::AttributeFields, message);
                    return;
                }
            },
        }
        // A missing number or string reads as its default (proto2); a missing message is no
        // value at all, as onnx's schema verification says.
        let declared = a.r#type.and_then(|t| T::try_from(t).ok());
        let message_type = matches!(
            declared,
            Some(T::Tensor | T::Graph | T::SparseTensor | T::TypeProto)
        );
        if used.is_empty() && message_type && a.ref_attr_name.is_none() {
            let ty = declared.unwrap_or(T::Undefined).as_str_name();
            let message = format!("the attribute's type is {ty} but it holds no value");
            self.report(Check::AttributeFields, message);
        } else if used.len() > 1 {
            let message = format!(
                "the attribute has {} value fields: {}",
                used.len(),
                fields()
            );
            self.report(Check::AttributeFields, message);
        } else if a.ref_attr_name.is_some() && !used.is_empty() {
            let message = format!(
                "the attribute refers to `@{}` and also holds `{}`",
                a.ref_attr_name.as_deref().unwrap_or_default(),
                fields()
            );
            self.report(Check::AttributeFields, message);
        }
    }

    /// Local functions: unique keys, their names and domains, and their imports against the
    /// model's (as onnx checks them from IR 8 on).
    fn functions(&mut self, model: &ModelProto) {
        let model_imports = domain::Imports::of_protos(&model.opset_import);
        let mut keys = HashSet::new();
        for (index, function) in model.functions.iter().enumerate() {
            let name = function.name.as_deref().unwrap_or_default();
            let domain = function.domain.as_deref().unwrap_or_default();
            let overload = function.overload.as_deref().unwrap_or_default();
            let key = if name.is_empty() {
                String::new()
            } else {
                key_text(domain, name, overload)
            };
            let step = named_step("function", index, &key);
            self.at(step, |rules| {
                if name.is_empty() {
                    rules.report(Check::MissingField, "the function has no name".into());
                }
                if function.domain.is_none() {
                    let message = "the function has no domain (required from IR 8 on)".into();
                    rules.report(Check::MissingField, message);
                }
                if !keys.insert((domain, name, overload)) {
                    let message = format!(
                        "another local function is {} (functions are keyed by domain, name and overload)",
                        quoted(&key_text(domain, name, overload))
                    );
                    rules.report(Check::DuplicateFunction, message);
                }
                rules.imports(&function.opset_import, "the function");
                for info in &function.value_info {
                    let step = format!("value_info {}", quoted(info.name.as_deref().unwrap_or_default()));
                    rules.at(step, |rules| rules.declared_type(info));
                }
                rules.function_body(function, &model_imports);
            });
        }
    }

    fn function_body(
        &mut self,
        function: &FunctionProto,
        model_imports: &domain::Imports<'_, i64>,
    ) {
        // onnx's checker looks a function's node domains up as written, without the default
        // domain's other name.
        let own = domain::Imports::of_protos(&function.opset_import);
        for (index, node) in function.node.iter().enumerate() {
            self.node(index, node);
            let domain = node.domain.as_deref().unwrap_or_default();
            let op_type = node.op_type.as_deref().unwrap_or_default();
            let step = node_step(index, node);
            let Some(version) = own.exact(domain) else {
                let message = format!(
                    "node `{op_type}` is in the domain {}, which the function does not import",
                    quoted(domain)
                );
                self.at(step, |rules| rules.report(Check::FunctionOpset, message));
                continue;
            };
            let Some(model_version) = model_imports.exact(domain) else {
                continue;
            };
            if version == model_version {
                continue;
            }
            let ours = since_version(domain, op_type, version);
            let theirs = since_version(domain, op_type, model_version);
            if ours != theirs {
                let message = format!(
                    "`{op_type}` is not the same operator at the function's {} version {version} \
                     as at the model's version {model_version}",
                    quoted(domain)
                );
                self.at(step, |rules| rules.report(Check::FunctionOpset, message));
            }
        }
    }
}

/// What is wrong in a type: element types that do not exist, negative dims, element types of
/// sequences, optionals and maps that say nothing (onnx's inference rejects them).
fn type_problems(ty: &TypeProto, out: &mut Vec<(Check, String)>) {
    /// The type a sequence, optional or map holds, which onnx.proto says MUST be present, in
    /// every graph (onnx's checker looks only at the main graph's inputs and outputs).
    fn nested(ty: &Option<Box<TypeProto>>, missing: &str, out: &mut Vec<(Check, String)>) {
        match ty.as_deref() {
            Some(TypeProto { value: None, .. }) => {
                out.push((Check::MissingType, "an element type that is empty".into()));
            }
            Some(ty) => type_problems(ty, out),
            None => out.push((Check::MissingType, missing.into())),
        }
    }
    use type_proto::Value;
    let elem = |elem: Option<i32>, out: &mut Vec<(Check, String)>| {
        if let Some(n) = elem.filter(|&n| n != 0 && elem_type_by_number(n).is_none()) {
            out.push((
                Check::DataType,
                format!("the element type {n}, which does not exist"),
            ));
        }
    };
    let shape = |shape: &Option<TensorShapeProto>, out: &mut Vec<(Check, String)>| {
        let dims = shape.iter().flat_map(|s| &s.dim);
        for (axis, dim) in dims.enumerate() {
            if let Some(&Dimension::DimValue(v @ ..0)) = dim.value.as_ref() {
                out.push((Check::NegativeDim, negative_dim(v, axis)));
            }
        }
    };
    match &ty.value {
        None | Some(Value::OpaqueType(_)) => {}
        Some(Value::TensorType(t)) => {
            elem(t.elem_type, out);
            shape(&t.shape, out);
        }
        Some(Value::SparseTensorType(t)) => {
            elem(t.elem_type, out);
            shape(&t.shape, out);
        }
        Some(Value::SequenceType(t)) => {
            nested(&t.elem_type, "a sequence without its element type", out)
        }
        Some(Value::OptionalType(t)) => {
            nested(&t.elem_type, "an optional without its element type", out)
        }
        Some(Value::MapType(t)) => {
            if t.key_type.is_none() {
                out.push((Check::MissingType, "a map without its key type".into()));
            }
            elem(t.key_type, out);
            nested(&t.value_type, "a map without its value type", out);
        }
    }
}

/// The standard operators whose `dtype` attribute names an element type.
const DTYPE_OPERATORS: [&str; 8] = [
    "Bernoulli",
    "EyeLike",
    "Multinomial",
    "RandomNormal",
    "RandomNormalLike",
    "RandomUniform",
    "RandomUniformLike",
    "SequenceEmpty",
];

/// `domain.name` or `domain.name:overload`.
fn key_text(domain: &str, name: &str, overload: &str) -> String {
    let mut key = if domain.is_empty() {
        name.to_owned()
    } else {
        format!("{domain}.{name}")
    };
    if !overload.is_empty() {
        key.push(':');
        key.push_str(overload);
    }
    key
}

/// Each value field of an attribute: whether it is set, the attribute type it holds, its name.
pub(super) fn value_fields(a: &AttributeProto) -> [(bool, AttributeType, &'static str); 14] {
    use AttributeType as T;
    [
        (a.f.is_some(), T::Float, "f"),
        (a.i.is_some(), T::Int, "i"),
        (a.s.is_some(), T::String, "s"),
        (a.t.is_some(), T::Tensor, "t"),
        (a.g.is_some(), T::Graph, "g"),
        (a.tp.is_some(), T::TypeProto, "tp"),
        (a.sparse_tensor.is_some(), T::SparseTensor, "sparse_tensor"),
        (!a.floats.is_empty(), T::Floats, "floats"),
        (!a.ints.is_empty(), T::Ints, "ints"),
        (!a.strings.is_empty(), T::Strings, "strings"),
        (!a.tensors.is_empty(), T::Tensors, "tensors"),
        (!a.graphs.is_empty(), T::Graphs, "graphs"),
        (
            !a.sparse_tensors.is_empty(),
            T::SparseTensors,
            "sparse_tensors",
        ),
        (!a.type_protos.is_empty(), T::TypeProtos, "type_protos"),
    ]
}
