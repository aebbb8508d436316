//! The walk: a graph's nodes in order, each through its operator's rule, with the values that
//! are in scope; subgraphs see the values around them, and calls of local functions are
//! inferred through the function's body.

use std::sync::Arc;

use onnx_runtime_types::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
};

use onnx_syntax::hash::{HashMap, NameMap};
use onnx_syntax::hole::{ListHole, ListHoles, Site, has_reserved, is_spread};

use super::node::{Conflict, Node, Subgraphs, tensor_ints, tensor_type};
use super::ty::{Dim, Ty};
use super::{Against, Mismatch, ShapeError, ops};

/// How deep subgraphs and calls may nest before inference stops following them.
const MAX_DEPTH: usize = 64;

/// What is known of one value, shared by the nodes that read it.
#[derive(Clone, Debug, Default)]
pub(super) struct Value {
    pub(super) ty: Option<Arc<Ty>>,
    data: Option<Arc<Vec<Dim>>>,
    /// The type the main graph or function declares for the value (an output's or a value
    /// info's), which the node that computes it is checked against. It is in the scope before
    /// the value is computed, so that defining a value looks its name up once.
    declared: Option<Arc<Ty>>,
}

/// The values of one graph, by names borrowed from its messages, and the scope around it.
pub struct Scope<'p> {
    values: NameMap<'p, Value>,
    parent: Option<&'p Scope<'p>>,
}

impl<'p> Scope<'p> {
    /// A scope for about `capacity` values (sized up front: growing a big map rehashes it).
    fn new(parent: Option<&'p Scope<'p>>, capacity: usize) -> Scope<'p> {
        Scope {
            values: NameMap::with_capacity(capacity),
            parent,
        }
    }

    /// A scope sized for the values of a graph's nodes, inputs and initializers.
    fn for_graph(parent: Option<&'p Scope<'p>>, graph: &GraphProto) -> Scope<'p> {
        let outputs: usize = graph.node.iter().map(|n| n.output.len()).sum();
        let capacity = outputs + graph.input.len() + graph.initializer.len();
        Scope::new(parent, capacity)
    }

    fn get(&self, name: &str) -> Option<&Value> {
        self.values
            .get(name)
            .or_else(|| self.parent.and_then(|p| p.get(name)))
    }

    fn ty(&self, name: &str) -> Option<Arc<Ty>> {
        self.get(name)?.ty.clone()
    }

    fn define(&mut self, name: &'p str, ty: Option<Ty>, data: Option<Vec<Dim>>) {
        let value = Value {
            ty: ty.map(Arc::new),
            data: data.map(Arc::new),
            declared: None,
        };
        *self.values.slot(name).0 = value;
    }

    /// Records the type declared for `name` (the last declaration wins).
    fn declare(&mut self, name: &'p str, ty: Ty) {
        self.values.slot(name).0.declared = Some(Arc::new(ty));
    }

    /// Binds a graph's initializers (with their values) and its declared inputs; gives the
    /// inputs whose declared type does not fit their initializer's, as onnx merges the two.
    fn bind_graph(&mut self, graph: &'p GraphProto) -> Vec<Mismatch> {
        let mut mismatches = Vec::new();
        for tensor in &graph.initializer {
            let name = tensor.name.as_deref().unwrap_or("");
            if let Some(note) = tensor.doc_string.as_deref().filter(|d| has_reserved(d)) {
                // A macro literal's tensor whose dims or data hold Rust values: its data is not
                // known yet, its type is as far as the holes allow.
                let ty = ListHoles::from_note(note).map(|holes| type_around_holes(tensor, &holes));
                self.define(name, ty, None);
            } else {
                self.define(name, Some(tensor_type(tensor)), ints_data(tensor));
            }
        }
        for input in &graph.input {
            let declared = input.r#type.as_ref().and_then(Ty::from_proto);
            let name = input.name.as_deref().unwrap_or("");
            let (value, made) = self.values.slot(name);
            if let (Some(declared), Some(initial), false) = (&declared, &value.ty, made)
                && !declared.fits(initial)
            {
                mismatches.push(Mismatch {
                    name: name.to_owned(),
                    against: Against::Initializer,
                    declared: declared.clone(),
                    inferred: (**initial).clone(),
                });
            }
            if declared.is_some() || made {
                *value = Value {
                    ty: declared.map(Arc::new),
                    data: value.data.take(),
                    declared: None,
                };
            }
        }
        mismatches
    }

    /// Records the types a graph declares for its outputs and value infos, which what its
    /// nodes compute is checked against.
    fn declare_graph(&mut self, graph: &'p GraphProto) {
        for info in graph.value_info.iter().chain(&graph.output) {
            let ty = info.r#type.as_ref().and_then(Ty::from_proto);
            if let (Some(name), Some(ty)) = (&info.name, ty) {
                self.declare(name, ty);
            }
        }
    }
}

/// The type of a macro literal's tensor whose dims or data hold holes: the written dims stay
/// known, a hole among them is a dim of its own (named by its marker, which the macro shows as
/// the hole's expression), and a spread among them makes the rank unknown.
fn type_around_holes(tensor: &onnx_runtime_types::TensorProto, holes: &[ListHole]) -> Ty {
    let mut ty = tensor_type(tensor);
    if let Ty::Tensor { shape, .. } = &mut ty {
        let in_dims = || holes.iter().filter(|h| h.site == Site::Dims);
        if in_dims().any(|h| h.hole.spread) {
            *shape = None;
        } else if let Some(dims) = shape {
            // Last first, so that each index still counts the written dims before the hole.
            for hole in in_dims().collect::<Vec<_>>().into_iter().rev() {
                let at = hole.index.min(dims.len());
                dims.insert(at, Dim::Symbol(hole.hole.marker()));
            }
        }
    }
    ty
}

fn ints_data(tensor: &onnx_runtime_types::TensorProto) -> Option<Vec<Dim>> {
    Some(tensor_ints(tensor)?.into_iter().map(Dim::Known).collect())
}

/// The operand types in the schemas' spelling, where known.
fn schema_names(types: &[Option<Arc<Ty>>]) -> Vec<Option<String>> {
    let names = types
        .iter()
        .map(|ty| ty.as_deref().and_then(Ty::schema_name));
    names.collect()
}

/// The canonical name of a node's or function's domain.
fn domain(name: Option<&str>) -> &str {
    onnx_syntax::domain::canonical(name.unwrap_or(""))
}

/// The state of one inference run.
pub struct Engine<'a> {
    /// The imported opset version of each domain, for the graph or function being walked.
    opsets: onnx_syntax::domain::Imports<'a, i64>,
    /// The model's local functions, by domain, name and overload.
    functions: HashMap<(String, String, String), &'a FunctionProto>,
    /// The index of the main graph's node being inferred.
    top_node: usize,
    depth: usize,
    /// The function whose body is being inferred through a call, if any.
    callee: Option<&'a FunctionProto>,
    errors: Vec<ShapeError>,
    /// Checks the operand types of a node inside a called function's body, if a caller gave
    /// one.
    body_types: Option<BodyTypeCheck>,
    /// Operand types that break a type constraint inside a called function's body.
    type_errors: Vec<ShapeError>,
    mismatches: Vec<Mismatch>,
    /// The operand list of the last node, kept for the next one: one allocation fewer a node.
    spare_inputs: Vec<Option<Arc<Ty>>>,
}

impl<'a> Engine<'a> {
    /// An engine for a graph or function that imports `imports`, with these local functions
    /// and those of libraries in view (`library`; a local function hides a library's with its
    /// key).
    fn new(
        imports: &'a [OperatorSetIdProto],
        functions: &'a [FunctionProto],
        library: &[&'a FunctionProto],
        body_types: Option<BodyTypeCheck>,
    ) -> Engine<'a> {
        Engine {
            body_types,
            opsets: onnx_syntax::domain::Imports::of_protos(imports),
            functions: library
                .iter()
                .copied()
                .chain(functions)
                .map(|f| {
                    let key = (
                        domain(f.domain.as_deref()).to_owned(),
                        f.name.clone().unwrap_or_default(),
                        f.overload.clone().unwrap_or_default(),
                    );
                    (key, f)
                })
                .collect(),
            top_node: 0,
            depth: 0,
            callee: None,
            errors: Vec::new(),
            type_errors: Vec::new(),
            mismatches: Vec::new(),
            spare_inputs: Vec::new(),
        }
    }

    /// Walks the top-level nodes and gives what was found.
    fn run<'p>(mut self, nodes: &'p [NodeProto], mut scope: Scope<'p>) -> Run<'p> {
        for (index, node) in nodes.iter().enumerate() {
            self.top_node = index;
            self.node(node, &mut scope);
        }
        Run {
            values: scope.values,
            errors: self.errors,
            type_errors: self.type_errors,
            mismatches: self.mismatches,
        }
    }
}

/// What inference of a graph or function found: the values of its top scope, by names borrowed
/// from its messages, and the problems. The shape checks read the problems alone; an
/// [`Inference`](super::Inference) copies the names it keeps.
pub struct Run<'p> {
    pub(super) values: NameMap<'p, Value>,
    pub errors: Vec<ShapeError>,
    /// Operand types inside called functions' bodies that break a type constraint (the
    /// `type_constraint` check of what only the call knows).
    pub type_errors: Vec<ShapeError>,
    pub mismatches: Vec<Mismatch>,
}

impl Run<'_> {
    /// The type inferred (or declared) for the value `name` of the graph inferred.
    pub fn ty(&self, name: &str) -> Option<&Ty> {
        self.values.get(name)?.ty.as_deref()
    }
}

/// What checks the operand types of a node inside a called function's body against its
/// operator's type constraints, which only inference through the call knows: given the node's
/// standard domain, operator, imported opset version, input names and the types inference
/// found for them (in the schemas' spelling, `tensor(float)`), the problem, if any. The checks
/// give `onnx_schema::constraints::body_input_types`; inference alone looks for none, so that
/// it needs no schemas (and builds beside them).
pub type BodyTypeCheck = fn(
    domain: &str,
    op: &str,
    version: i64,
    inputs: &[String],
    types: &[Option<String>],
) -> Option<String>;

/// Infers the main graph of `model`; calls may also go to `library`; `body_types` checks the
/// operands inside called bodies (their problems are [`Run::type_errors`]).
pub fn infer_model<'a>(
    model: &'a ModelProto,
    library: &[&'a FunctionProto],
    body_types: Option<BodyTypeCheck>,
) -> Run<'a> {
    let engine = Engine::new(&model.opset_import, &model.functions, library, body_types);
    let Some(graph) = &model.graph else {
        return Run {
            values: NameMap::with_capacity(0),
            errors: Vec::new(),
            type_errors: Vec::new(),
            mismatches: Vec::new(),
        };
    };
    let mut scope = Scope::for_graph(None, graph);
    let mut initializers = scope.bind_graph(graph);
    redeclared_outputs(graph, &scope, &mut initializers);
    scope.declare_graph(graph);
    let mut run = engine.run(&graph.node, scope);
    run.mismatches.splice(0..0, initializers);
    run
}

/// The graph outputs named as a graph input or an initializer whose declared type does not fit
/// that value's: onnx takes the output's type for the value, and checks the initializer
/// against it.
fn redeclared_outputs(graph: &GraphProto, scope: &Scope<'_>, mismatches: &mut Vec<Mismatch>) {
    for output in &graph.output {
        let name = output.name.as_deref().unwrap_or("");
        let declared = output.r#type.as_ref().and_then(Ty::from_proto);
        let (Some(declared), Some(bound)) = (declared, scope.ty(name)) else {
            continue;
        };
        if declared.fits(&bound) {
            continue;
        }
        let input = graph.input.iter().any(|i| i.name.as_deref() == Some(name));
        // Named in the order the graph declares them: an input before the outputs, the outputs
        // before the initializers.
        let (against, declared, other) = match input {
            true => (Against::Declaration, (*bound).clone(), declared),
            false => (Against::Initializer, declared, (*bound).clone()),
        };
        mismatches.push(Mismatch {
            name: name.to_owned(),
            against,
            declared,
            inferred: other,
        });
    }
}

/// Infers the body of `function` from the types its signature gives its inputs (its
/// `value_info`), under its own imports, or else `imports`; calls may go to `functions` and
/// `library`.
pub fn infer_function<'a>(
    function: &'a FunctionProto,
    imports: &'a [OperatorSetIdProto],
    functions: &'a [FunctionProto],
    library: &[&'a FunctionProto],
    body_types: Option<BodyTypeCheck>,
) -> Run<'a> {
    let own = if function.opset_import.is_empty() {
        imports
    } else {
        &function.opset_import
    };
    let engine = Engine::new(own, functions, library, body_types);
    let mut scope = Scope::new(None, function.input.len() + function.node.len());
    for info in &function.value_info {
        let (Some(name), Some(ty)) = (&info.name, info.r#type.as_ref().and_then(Ty::from_proto))
        else {
            continue;
        };
        if function.input.contains(name) {
            scope.define(name, Some(ty), None);
        } else {
            scope.declare(name, ty);
        }
    }
    engine.run(&function.node, scope)
}

impl<'a> Engine<'a> {
    /// Infers one node and defines its results in `scope`.
    fn node<'p>(&mut self, node: &'p NodeProto, scope: &mut Scope<'p>) {
        let mut inputs = std::mem::take(&mut self.spare_inputs);
        inputs.clear();
        // Most operands carry no value: the list stays empty, or stops, where the rest have none.
        let mut data = Vec::new();
        for (i, name) in node.input.iter().enumerate() {
            let value = scope.get(name);
            inputs.push(value.and_then(|v| v.ty.clone()));
            if let Some(values) = value.and_then(|v| v.data.clone()) {
                data.resize(i, None);
                data.push(Some(values));
            }
        }
        let top = self.depth == 0;
        let (outputs, out_data) = self.results(node, inputs, data, scope);
        let mut out_data = out_data.into_iter();
        let parent = scope.parent;
        for (name, inferred) in node.output.iter().zip(outputs) {
            let data = out_data.next().flatten();
            if name.is_empty() {
                continue;
            }
            // One lookup finds the value the name may already have and where the result goes.
            let (slot, made) = scope.values.slot(name);
            let existing = (!made).then(|| slot.ty.clone());
            let declared_here = slot.declared.clone();
            // A subgraph's declared types are checked too, with the node that holds it.
            if let (Some(d), Some(t), false) = (&declared_here, &inferred, top)
                && !d.fits(t)
            {
                let op = node.op_type.as_deref().unwrap_or("");
                self.errors.push(ShapeError {
                    node: Some(self.top_node),
                    input: None,
                    message: format!(
                        "{op} (in a subgraph): `{name}` is declared {d} but computed as {t}"
                    ),
                });
            }
            // The main graph's declared types; in a subgraph, a declared output is in scope
            // when its name is also an input's.
            let declared = match declared_here.clone().filter(|_| top) {
                Some(ty) => Some(ty),
                None => match existing {
                    Some(ty) => ty,
                    None => parent.and_then(|p| p.ty(name)),
                },
            };
            let ty = match (declared, inferred) {
                (Some(d), Some(t)) => {
                    if top && !d.fits(&t) {
                        self.mismatches.push(Mismatch {
                            name: name.clone(),
                            against: Against::Computed(self.top_node),
                            declared: (*d).clone(),
                            inferred: (*t).clone(),
                        });
                    }
                    Some(Arc::new(merge(Some(&d), &t)))
                }
                (d, t) => t.or(d),
            };
            // A negative dim passed on from an operand's declared type (which `negative_dim`
            // reports) was only there to be compared.
            let ty = ty.map(|mut t| {
                if t.negative_dim().is_some() {
                    Arc::make_mut(&mut t).forget_negative_dims();
                }
                t
            });
            *slot = Value {
                ty,
                data: data.map(Arc::new),
                declared: declared_here,
            };
        }
    }

    /// The types and values of a node's results; the values may stop short (or be empty)
    /// where the rest are unknown.
    #[allow(clippy::type_complexity)]
    fn results(
        &mut self,
        node: &NodeProto,
        inputs: Vec<Option<Arc<Ty>>>,
        data: Vec<Option<Arc<Vec<Dim>>>>,
        scope: &Scope<'_>,
    ) -> (Vec<Option<Arc<Ty>>>, Vec<Option<Vec<Dim>>>) {
        let count = node.output.len();
        // No values: an empty list stands for none of any result.
        let none = || (vec![None; count], Vec::new());
        let dom = domain(node.domain.as_deref());
        let op = node.op_type.as_deref().unwrap_or("");
        if !self.functions.is_empty() {
            let key = (
                dom.to_owned(),
                op.to_owned(),
                node.overload.clone().unwrap_or_default(),
            );
            if let Some(&function) = self.functions.get(&key) {
                let outputs = self.call(function, node, &inputs);
                return (
                    outputs.into_iter().map(|t| t.map(Arc::new)).collect(),
                    Vec::new(),
                );
            }
        }
        let opset = self.opsets.get(dom);
        if let (Some(version), Some(within), Some(body_types)) =
            (opset, self.within_body(), self.body_types)
            && !holds_holes(node)
            && let Some(problem) = body_types(dom, op, version, &node.input, &schema_names(&inputs))
        {
            self.type_errors.push(ShapeError {
                node: Some(self.top_node),
                input: None,
                message: format!("{within}{problem}"),
            });
        }
        let (Some(opset), Some(rule)) = (opset, ops::rule(dom, op)) else {
            return none();
        };
        if holds_holes(node) {
            return none();
        }
        let mut view = Node {
            proto: node,
            opset,
            inputs,
            data,
            outputs: vec![None; count],
            out_data: Vec::new(),
            negative: None,
            scope,
            engine: self,
        };
        let ruled = rule(&mut view);
        let Node {
            inputs,
            outputs,
            out_data,
            negative,
            ..
        } = view;
        // A result with a negative dim that no operand has: the operands or attributes give
        // a size that cannot be (an attribute of -1, an axis of size 0 where the operator
        // takes one away, ...). `Node::set` keeps such a dim unknown.
        let negative = || {
            let (index, dim) = negative?;
            let operand_negative = (inputs.iter().flatten()).any(|ty| ty.negative_dim().is_some());
            (!operand_negative).then(|| Conflict {
                input: None,
                message: format!(
                    "its operands and attributes give result {index} the negative dim {dim}"
                ),
            })
        };
        let ruled = ruled.and_then(|()| negative().map_or(Ok(()), Err));
        self.spare_inputs = inputs;
        match ruled {
            Ok(()) => (outputs, out_data),
            Err(conflict) => {
                let op = node.op_type.as_deref().unwrap_or("");
                // Inside a subgraph or a function body, the operand is not one of the main
                // graph's node, so only the node that holds it (the call) is named, and the
                // message says which body the operator is in.
                let (input, message) = match (self.depth, self.within_body()) {
                    (0, _) => (conflict.input, format!("{op}: {}", conflict.message)),
                    (_, Some(within)) => (None, format!("{within}{op}: {}", conflict.message)),
                    (_, None) => (None, format!("{op} (in a subgraph): {}", conflict.message)),
                };
                let error = ShapeError {
                    node: Some(self.top_node),
                    input,
                    message,
                };
                self.errors.push(error);
                none()
            }
        }
    }

    /// `in the body of `com.acme.Dense`: `, the start of a message about a node of the
    /// function body being inferred, if it is one.
    fn within_body(&self) -> Option<String> {
        let callee = self.callee?;
        let name = callee.name.as_deref().unwrap_or_default();
        Some(match callee.domain.as_deref().unwrap_or_default() {
            "" => format!("in the body of `{name}`: "),
            domain => format!("in the body of `{domain}.{name}`: "),
        })
    }

    /// The result types of a call of a local function, inferred through its body.
    fn call(
        &mut self,
        function: &'a FunctionProto,
        call: &NodeProto,
        inputs: &[Option<Arc<Ty>>],
    ) -> Vec<Option<Ty>> {
        let count = call.output.len();
        if self.depth >= MAX_DEPTH {
            return vec![None; count];
        }
        self.depth += 1;
        let outer_callee = self.callee.replace(function);
        let outer_opsets = self.opsets.clone();
        // The body's nodes resolve under the function's own imports, as `infer_function` has
        // them, else under the caller's.
        if !function.opset_import.is_empty() {
            self.opsets = onnx_syntax::domain::Imports::of_protos(&function.opset_import);
        }
        let mut scope = Scope::new(None, function.input.len() + function.node.len());
        for (formal, ty) in function.input.iter().zip(inputs) {
            scope.define(formal, ty.as_deref().cloned(), None);
        }
        // Attribute references become the caller's values, else the function's defaults.
        let bound: Vec<NodeProto> = function
            .node
            .iter()
            .map(|node| bind_attributes(node, call, function))
            .collect();
        for node in &bound {
            self.node(node, &mut scope);
        }
        self.opsets = outer_opsets;
        self.callee = outer_callee;
        self.depth -= 1;
        (0..count)
            .map(|i| scope.ty(function.output.get(i)?).map(Arc::unwrap_or_clone))
            .collect()
    }
}

impl Subgraphs for Engine<'_> {
    fn subgraph(
        &mut self,
        graph: &GraphProto,
        inputs: &[Option<Ty>],
        outer: &Scope<'_>,
    ) -> Vec<Option<Ty>> {
        if self.depth >= MAX_DEPTH {
            return vec![None; graph.output.len()];
        }
        self.depth += 1;
        let mut scope = Scope::for_graph(Some(outer), graph);
        // An initializer of a subgraph against its input is not looked at (onnx neither).
        let _ = scope.bind_graph(graph);
        scope.declare_graph(graph);
        for (input, ty) in graph.input.iter().zip(inputs) {
            let name = input.name.as_deref().unwrap_or("");
            if let Some(ty) = ty {
                let declared = scope.ty(name);
                // What the node passes must fit what the subgraph declares for it, as onnx
                // merges the two.
                if let Some(d) = declared.as_deref().filter(|d| !d.fits(ty)) {
                    let graph_name = graph.name.as_deref().unwrap_or("");
                    self.errors.push(ShapeError {
                        node: Some(self.top_node),
                        input: None,
                        message: format!(
                            "the subgraph `{graph_name}` declares its input `{name}` as {d}, \
                             but it receives {ty}"
                        ),
                    });
                }
                scope.define(name, Some(merge(declared.as_deref(), ty)), None);
            }
        }
        for node in &graph.node {
            self.node(node, &mut scope);
        }
        self.depth -= 1;
        graph
            .output
            .iter()
            .map(|output| {
                let declared = output.r#type.as_ref().and_then(Ty::from_proto);
                let inferred = scope
                    .ty(output.name.as_deref().unwrap_or(""))
                    .map(Arc::unwrap_or_clone);
                match (declared, inferred) {
                    (Some(d), Some(t)) => Some(merge(Some(&d), &t)),
                    (d, t) => t.or(d),
                }
            })
            .collect()
    }
}

/// Whether a macro literal's node holds Rust values that inference cannot see: an attribute
/// value, or a spread among its operands or results, which moves the others.
fn holds_holes(node: &NodeProto) -> bool {
    node.attribute
        .iter()
        .any(|a| a.doc_string.as_deref().is_some_and(has_reserved))
        || node.input.iter().any(|n| is_spread(n))
        || node.output.iter().any(|n| is_spread(n))
}

/// `node` with each attribute that refers to a function attribute replaced by the caller's
/// value or the function's default, or dropped.
fn bind_attributes(node: &NodeProto, call: &NodeProto, function: &FunctionProto) -> NodeProto {
    let mut node = node.clone();
    node.attribute = node
        .attribute
        .into_iter()
        .filter_map(|attribute| {
            let Some(reference) = attribute.ref_attr_name.as_deref() else {
                return Some(attribute);
            };
            let find = |list: &[AttributeProto]| {
                list.iter()
                    .find(|a| a.name.as_deref() == Some(reference))
                    .cloned()
            };
            let mut value = find(&call.attribute).or_else(|| find(&function.attribute_proto))?;
            value.name = attribute.name.clone();
            Some(value)
        })
        .collect();
    node
}

/// A declared type completed by an inferred one: known dims win over symbols, symbols over
/// unknown dims; where they disagree the inferred one wins.
pub fn merge(declared: Option<&Ty>, inferred: &Ty) -> Ty {
    let Some(declared) = declared else {
        return inferred.clone();
    };
    match (declared, inferred) {
        (
            Ty::Tensor {
                elem: de,
                shape: ds,
            },
            Ty::Tensor {
                elem: ie,
                shape: is,
            },
        ) => Ty::Tensor {
            elem: if *ie != 0 { *ie } else { *de },
            shape: match (ds, is) {
                (Some(d), Some(i)) if d.len() == i.len() => Some(
                    d.iter()
                        .zip(i)
                        .map(|(d, i)| match (d, i) {
                            (_, Dim::Known(_)) => i.clone(),
                            (Dim::Known(_), _) => d.clone(),
                            (Dim::Symbol(_), _) => d.clone(),
                            _ => i.clone(),
                        })
                        .collect(),
                ),
                (_, Some(i)) => Some(i.clone()),
                (d, None) => d.clone(),
            },
        },
        (Ty::Sequence(d), Ty::Sequence(i)) => Ty::Sequence(Box::new(merge(Some(d), i))),
        (Ty::Optional(d), Ty::Optional(i)) => Ty::Optional(Box::new(merge(Some(d), i))),
        _ => inferred.clone(),
    }
}
