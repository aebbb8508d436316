//! What a node's conversion can know of its surroundings: the types of values, the constant
//! tensors in scope, and fresh names for the values an adapter adds.

use std::collections::{HashMap, HashSet};

use onnx_runtime_types::attribute_proto::AttributeType;
use onnx_runtime_types::{AttributeProto, GraphProto, NodeProto, TensorProto, ValueInfoProto};
use onnx_schema::table::Schema;

use crate::fold::Folds;

/// What is known of a value's type: its element type (a `TensorProto.DataType`) and rank.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ValueType {
    pub elem: Option<i32>,
    pub rank: Option<usize>,
}

/// The surroundings of the nodes being converted.
#[derive(Default)]
pub(crate) struct Context {
    pub types: HashMap<String, ValueType>,
    /// The dimensions inference knows (`None` for a symbolic or unknown one).
    pub dims: HashMap<String, Vec<Option<i64>>>,
    pub constants: Constants,
    /// The first outputs of Resize nodes that were Upsample, whose scales are at least 1 even
    /// when they are computed at run time.
    pub upsampling: HashSet<String>,
    /// Where the nodes being converted are: a graph, whose initializers can hold what a
    /// Constant of the target cannot, or a function, which has none.
    pub in_graph: bool,
    /// The values of the Constants moved to the current graph's initializers.
    pub initializers: Vec<TensorProto>,
    /// The names of every such initializer, of any graph (before IR 4 one must also be a
    /// graph input, so the model's IR version is raised to 4 when there is one).
    pub moved_to_initializers: HashSet<String>,
    /// The opset of the default domain that the converted model has: the helpers an
    /// ai.onnx.ml adapter writes in the default domain are converted to it.
    pub default_opset: i64,
    /// Whether such a helper was written (a model without a default-domain import gets one).
    pub default_used: bool,
    names: HashSet<String>,
    counter: usize,
}

impl Context {
    /// A context whose fresh names avoid every name of `graphs` (and their subgraphs).
    pub fn new<'a>(graphs: impl IntoIterator<Item = &'a GraphProto>) -> Context {
        let mut context = Context::default();
        for graph in graphs {
            context.take_names(graph);
        }
        context
    }

    fn take_names(&mut self, graph: &GraphProto) {
        let infos = graph
            .input
            .iter()
            .chain(&graph.output)
            .chain(&graph.value_info);
        self.names.extend(infos.filter_map(|v| v.name.clone()));
        self.names
            .extend(graph.initializer.iter().filter_map(|t| t.name.clone()));
        for node in &graph.node {
            self.take_node_names(node);
        }
    }

    pub fn take_node_names(&mut self, node: &NodeProto) {
        self.names.extend(node.input.iter().cloned());
        self.names.extend(node.output.iter().cloned());
        for attribute in &node.attribute {
            for graph in attribute.g.iter().map(|g| &**g).chain(&attribute.graphs) {
                self.take_names(graph);
            }
        }
    }

    /// A name no value of the model has, from `base`.
    pub fn fresh(&mut self, base: &str) -> String {
        loop {
            self.counter += 1;
            let name = format!("{base}_vc{}", self.counter);
            if self.names.insert(name.clone()) {
                return name;
            }
        }
    }

    /// Records the declared types of `infos` (graph inputs, outputs, value infos).
    pub fn declare(&mut self, infos: &[ValueInfoProto]) {
        for info in infos {
            let (Some(name), Some(ty)) = (&info.name, &info.r#type) else {
                continue;
            };
            if let Some(onnx_runtime_types::type_proto::Value::TensorType(tensor)) = &ty.value {
                let elem = tensor.elem_type.filter(|&e| e != 0);
                let rank = tensor.shape.as_ref().map(|s| s.dim.len());
                let known = self.types.entry(name.clone()).or_default();
                known.elem = known.elem.or(elem);
                known.rank = known.rank.or(rank);
            }
        }
    }

    /// Records the constants of `graph`: its initializers that are not inputs (an input may
    /// be fed another value), and the outputs of its `Constant` nodes. The initializers move
    /// into the context until [`Constants::end_graph`] gives them back.
    pub fn collect_constants(&mut self, graph: &mut GraphProto) {
        let inputs: HashSet<&str> = graph
            .input
            .iter()
            .filter_map(|i| i.name.as_deref())
            .collect();
        let mut names = HashMap::new();
        for (index, tensor) in graph.initializer.iter().enumerate() {
            if let Some(name) = tensor.name.as_deref().filter(|n| !inputs.contains(n)) {
                names.insert(name.to_owned(), index);
                self.types.entry(name.to_owned()).or_insert(ValueType {
                    elem: tensor.data_type,
                    rank: Some(tensor.dims.len()),
                });
            }
        }
        let tensors = std::mem::take(&mut graph.initializer);
        self.constants.initializers.push((tensors, names));
        for node in &graph.node {
            self.record_constant(node);
        }
        for node in &graph.node {
            if node.op_type() != "Constant" {
                // A name a sibling subgraph's Constant had is this node's now.
                for output in &node.output {
                    self.constants.nodes.remove(output);
                }
            }
            let all_constant = (node.input.iter()).all(|i| {
                i.is_empty()
                    || self.constants.in_scope(i).is_some()
                    || self.constants.folds.computes(i)
            });
            let input_dims = node.input.first().and_then(|i| self.dims.get(i));
            (self.constants.folds).record(node, all_constant, input_dims.map(Vec::as_slice));
        }
    }

    /// Forgets every type, shape and constant value known, and keeps the names taken.
    pub fn forget_facts(&mut self) {
        self.types.clear();
        self.dims.clear();
        self.constants.nodes.clear();
        self.constants.folds.forget();
        self.upsampling.clear();
    }

    /// Records the value of a `Constant` node of the default domain.
    pub fn record_constant(&mut self, node: &NodeProto) {
        let default_domain = matches!(node.domain.as_deref(), None | Some("" | "ai.onnx"));
        if node.op_type.as_deref() != Some("Constant") || !default_domain {
            return;
        }
        let (Some(output), Some(attribute)) = (node.output.first(), node.attribute.first()) else {
            return;
        };
        let tensor = match attribute.name.as_deref() {
            Some("value") => attribute.t.as_deref().cloned(),
            Some("value_ints") => Some(int64_tensor(&attribute.ints, &[attribute.ints.len()])),
            Some("value_int") => attribute.i.map(|i| int64_tensor(&[i], &[])),
            Some("value_floats") => {
                Some(float_tensor(&attribute.floats, &[attribute.floats.len()]))
            }
            Some("value_float") => attribute.f.map(|f| float_tensor(&[f], &[])),
            _ => None,
        };
        if let Some(tensor) = tensor {
            self.types.insert(
                output.clone(),
                ValueType {
                    elem: tensor.data_type,
                    rank: Some(tensor.dims.len()),
                },
            );
            self.constants.insert(output.clone(), tensor);
        }
    }

    /// The element type of `value`, if known.
    pub fn elem(&self, value: &str) -> Option<i32> {
        self.types.get(value).and_then(|t| t.elem)
    }

    /// The rank of `value`, if known.
    pub fn rank(&self, value: &str) -> Option<usize> {
        self.types.get(value).and_then(|t| t.rank)
    }

    /// The integers of a constant `value`, if it is a constant integer tensor.
    pub fn constant_ints(&self, value: &str) -> Option<Vec<i64>> {
        tensor_ints(self.constants.get(value)?)
    }

    /// The floats of a constant `value`, if it is a constant float tensor.
    pub fn constant_floats(&self, value: &str) -> Option<Vec<f32>> {
        tensor_floats(self.constants.get(value)?)
    }

    /// Gives the outputs of `node` the types its schema binds them to, from its inputs' known
    /// types: enough for the checks of the nodes after it (inside an expanded body, or an
    /// adapter's rewrite) when no inference saw them.
    pub fn propagate(&mut self, node: &NodeProto, schema: &Schema) {
        let mut bound: HashMap<&str, i32> = HashMap::new();
        for (index, input) in node.input.iter().enumerate() {
            let Some(formal) = formal_at(&schema.inputs, index) else {
                continue;
            };
            if let Some(elem) = self.elem(input) {
                bound.entry(formal.type_str).or_insert(elem);
            }
        }
        for (index, output) in node.output.iter().enumerate() {
            let Some(formal) = formal_at(&schema.outputs, index) else {
                continue;
            };
            let elem = declared_output_type(node)
                .or_else(|| bound.get(formal.type_str).copied())
                .or_else(|| {
                    // A fixed type, or a parameter that allows one (Shape's `T1`).
                    let only = match formal.allowed.as_deref() {
                        None => formal.type_str,
                        Some([only]) => only,
                        Some(_) => return None,
                    };
                    let name = only.strip_prefix("tensor(")?.strip_suffix(')')?;
                    onnx_syntax::dtype::elem_type_by_name(name).map(|t| t.number)
                });
            if let Some(elem) = elem {
                let known = self.types.entry(output.clone()).or_default();
                known.elem = known.elem.or(Some(elem));
            }
        }
    }
}

/// The constant tensors in scope, by name.
#[derive(Default)]
pub(crate) struct Constants {
    /// The values of `Constant` nodes, the model's and the converter's.
    nodes: HashMap<String, TensorProto>,
    /// The initializers of the graphs being converted, the innermost last, each with the
    /// indices of those that are not graph inputs by name. They are moved out of their graphs
    /// rather than copied: a model's weights can be hundreds of megabytes.
    initializers: Vec<(Vec<TensorProto>, HashMap<String, usize>)>,
    /// The nodes that compute from constants only, folded when their value is asked for.
    pub folds: Folds,
}

impl Constants {
    /// The tensor `name` holds, if it is constant: a Constant's or an initializer's value, or
    /// what a small computation from those folds to.
    pub fn get(&self, name: &str) -> Option<&TensorProto> {
        (self.in_scope(name)).or_else(|| self.folds.value(name, &|leaf| self.in_scope(leaf)))
    }

    /// The value of a `Constant` output or an initializer in scope named `name`.
    fn in_scope(&self, name: &str) -> Option<&TensorProto> {
        self.nodes.get(name).or_else(|| {
            (self.initializers.iter().rev())
                .find_map(|(tensors, names)| names.get(name).map(|&i| &tensors[i]))
        })
    }

    pub fn insert(&mut self, name: String, tensor: TensorProto) {
        self.nodes.insert(name, tensor);
    }

    /// The initializers of the innermost graph, given back once its nodes are converted.
    pub fn end_graph(&mut self) -> Vec<TensorProto> {
        self.initializers
            .pop()
            .map(|(tensors, _)| tensors)
            .unwrap_or_default()
    }
}

/// The element type an attribute gives the output (a Cast's `to`, a random operator's `dtype`),
/// which no input binds.
pub(crate) fn declared_output_type(node: &NodeProto) -> Option<i32> {
    let attribute_name = match node.op_type.as_deref()? {
        "Cast" => "to",
        // The operators whose `dtype` names their output's element type.
        "RandomUniform" | "RandomNormal" | "RandomUniformLike" | "RandomNormalLike" | "EyeLike"
        | "Multinomial" | "Bernoulli" => "dtype",
        _ => return None,
    };
    i32::try_from(attribute(node, attribute_name)?.i?).ok()
}

/// The formal parameter of `formals` that operand `index` binds to (the last one, if it is
/// variadic, for the rest).
pub(crate) fn formal_at(
    formals: &[onnx_schema::table::Formal],
    index: usize,
) -> Option<&onnx_schema::table::Formal> {
    formals.get(index).or_else(|| {
        formals
            .last()
            .filter(|f| f.arity == onnx_schema::table::Arity::Variadic)
    })
}

/// An int64 tensor.
pub(crate) fn int64_tensor(values: &[i64], dims: &[usize]) -> TensorProto {
    TensorProto {
        dims: dims.iter().map(|&d| d as i64).collect(),
        data_type: Some(7),
        int64_data: values.to_vec(),
        ..Default::default()
    }
}

/// A float tensor.
pub(crate) fn float_tensor(values: &[f32], dims: &[usize]) -> TensorProto {
    TensorProto {
        dims: dims.iter().map(|&d| d as i64).collect(),
        data_type: Some(1),
        float_data: values.to_vec(),
        ..Default::default()
    }
}

/// The values of an integer tensor (int32 or int64), from its typed field or raw data.
pub(crate) fn tensor_ints(tensor: &TensorProto) -> Option<Vec<i64>> {
    if tensor.data_location == Some(1) {
        return None; // external data
    }
    match tensor.data_type? {
        7 => match &tensor.raw_data {
            Some(raw) if raw.len() % 8 == 0 => Some(
                raw.chunks_exact(8)
                    .map(|c| i64::from_le_bytes(c.try_into().unwrap_or_default()))
                    .collect(),
            ),
            Some(_) => None,
            None => Some(tensor.int64_data.clone()),
        },
        6 => match &tensor.raw_data {
            Some(raw) if raw.len() % 4 == 0 => Some(
                raw.chunks_exact(4)
                    .map(|c| i64::from(i32::from_le_bytes(c.try_into().unwrap_or_default())))
                    .collect(),
            ),
            Some(_) => None,
            None => Some(tensor.int32_data.iter().map(|&v| i64::from(v)).collect()),
        },
        _ => None,
    }
}

/// A double tensor.
pub(crate) fn double_tensor(values: &[f64], dims: &[usize]) -> TensorProto {
    TensorProto {
        dims: dims.iter().map(|&d| d as i64).collect(),
        data_type: Some(11),
        double_data: values.to_vec(),
        ..Default::default()
    }
}

/// The values of a float or double tensor as f64, from its typed field or raw data.
pub(crate) fn tensor_f64(tensor: &TensorProto) -> Option<Vec<f64>> {
    if tensor.data_type? == 1 {
        return tensor_floats(tensor).map(|v| v.into_iter().map(f64::from).collect());
    }
    if tensor.data_type? != 11 || tensor.data_location == Some(1) {
        return None;
    }
    match &tensor.raw_data {
        Some(raw) if raw.len() % 8 == 0 => Some(
            raw.chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap_or_default()))
                .collect(),
        ),
        Some(_) => None,
        None => Some(tensor.double_data.clone()),
    }
}

/// The values of a float tensor, from its typed field or raw data.
pub(crate) fn tensor_floats(tensor: &TensorProto) -> Option<Vec<f32>> {
    if tensor.data_type? != 1 || tensor.data_location == Some(1) {
        return None;
    }
    match &tensor.raw_data {
        Some(raw) if raw.len() % 4 == 0 => Some(
            raw.chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap_or_default()))
                .collect(),
        ),
        Some(_) => None,
        None => Some(tensor.float_data.clone()),
    }
}

/// The attribute `name` of `node`.
pub(crate) fn attribute<'a>(node: &'a NodeProto, name: &str) -> Option<&'a AttributeProto> {
    node.attribute
        .iter()
        .find(|a| a.name.as_deref() == Some(name))
}

/// Removes and returns the attribute `name` of `node`.
pub(crate) fn take_attribute(node: &mut NodeProto, name: &str) -> Option<AttributeProto> {
    let index = node
        .attribute
        .iter()
        .position(|a| a.name.as_deref() == Some(name))?;
    Some(node.attribute.remove(index))
}

/// An integer attribute.
pub(crate) fn int_attribute(name: &str, value: i64) -> AttributeProto {
    AttributeProto {
        name: Some(name.to_owned()),
        i: Some(value),
        r#type: Some(AttributeType::Int as i32),
        ..Default::default()
    }
}

/// An integer-list attribute.
pub(crate) fn ints_attribute(name: &str, values: Vec<i64>) -> AttributeProto {
    AttributeProto {
        name: Some(name.to_owned()),
        ints: values,
        r#type: Some(AttributeType::Ints as i32),
        ..Default::default()
    }
}

/// A float attribute.
pub(crate) fn float_attribute(name: &str, value: f32) -> AttributeProto {
    AttributeProto {
        name: Some(name.to_owned()),
        f: Some(value),
        r#type: Some(AttributeType::Float as i32),
        ..Default::default()
    }
}

/// A float-list attribute.
pub(crate) fn floats_attribute(name: &str, values: Vec<f32>) -> AttributeProto {
    AttributeProto {
        name: Some(name.to_owned()),
        floats: values,
        r#type: Some(AttributeType::Floats as i32),
        ..Default::default()
    }
}

/// A string-list attribute.
pub(crate) fn strings_attribute(name: &str, values: Vec<Vec<u8>>) -> AttributeProto {
    AttributeProto {
        name: Some(name.to_owned()),
        strings: values,
        r#type: Some(AttributeType::Strings as i32),
        ..Default::default()
    }
}

/// A tensor attribute.
pub(crate) fn tensor_attribute(name: &str, tensor: TensorProto) -> AttributeProto {
    AttributeProto {
        name: Some(name.to_owned()),
        t: Some(Box::new(tensor)),
        r#type: Some(AttributeType::Tensor as i32),
        ..Default::default()
    }
}

/// A string attribute.
pub(crate) fn string_attribute(name: &str, value: &str) -> AttributeProto {
    AttributeProto {
        name: Some(name.to_owned()),
        s: Some(value.as_bytes().to_vec()),
        r#type: Some(AttributeType::String as i32),
        ..Default::default()
    }
}

/// A node of the default domain.
pub(crate) fn node(
    op_type: &str,
    inputs: Vec<String>,
    outputs: Vec<String>,
    attributes: Vec<AttributeProto>,
) -> NodeProto {
    NodeProto {
        op_type: Some(op_type.to_owned()),
        input: inputs,
        output: outputs,
        attribute: attributes,
        ..Default::default()
    }
}

/// A `Constant` node whose output `name` holds `tensor`.
pub(crate) fn constant(name: String, tensor: TensorProto) -> NodeProto {
    node(
        "Constant",
        Vec::new(),
        vec![name],
        vec![tensor_attribute("value", tensor)],
    )
}
