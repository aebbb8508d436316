//! Graphs resolved once and run many times: each node's kernel or function body is found when
//! the evaluator is made, each value is dropped after its last use, and subgraphs see the
//! values of the scopes around them.

use crate::Limits;
use crate::error::{Error, KernelResult};
use crate::ops::{self, Ctx, Kernel, Prepared};
use crate::tensor::Tensor;
use crate::value::Val;
use onnx_runtime_types::{AttributeProto, FunctionProto, GraphProto, NodeProto};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};

/// The opset version each domain is imported at (`ai.onnx` spelled `""`).
pub(crate) type Opsets = HashMap<String, i64>;

/// The model-local functions, by (domain, name, overload).
pub(crate) type Functions = HashMap<(String, String, String), FunctionProto>;

pub(crate) fn normalize(domain: &str) -> &str {
    if domain == "ai.onnx" { "" } else { domain }
}

pub(crate) fn opsets_of(imports: &[onnx_runtime_types::OperatorSetIdProto]) -> Opsets {
    imports
        .iter()
        .map(|o| (normalize(o.domain()).to_string(), o.version()))
        .collect()
}

/// What the model gives every graph: its functions and its limits.
pub(crate) struct Model {
    pub functions: Functions,
    pub limits: Limits,
}

/// How a node computes.
pub(crate) enum Op {
    Kernel(Kernel),
    /// A function body: model-local, or a standard operator's.
    Function(Arc<Function>),
}

/// A node, resolved.
pub(crate) struct Step {
    pub node: NodeProto,
    pub op: Op,
    /// The schema version of the operator (for kernels).
    pub since: i64,
    /// Subgraph attributes, compiled, by attribute name.
    pub subgraphs: HashMap<String, Arc<Graph>>,
    /// Where it is, for messages: "graph `g`, node 3 (Add, outputs `y`)".
    pub place: String,
    /// What its kernel prepared from its own attributes on the first run (`Ctx::prepared`).
    pub prepared: OnceLock<Prepared>,
}

/// What a graph input is declared to hold, as far as optionals go.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Declared {
    /// No type (a function's inputs): the value as given.
    Any,
    /// `optional(T)`.
    Optional,
    /// A tensor, sequence, map or sparse tensor.
    Plain,
}

impl Declared {
    fn of(input: &onnx_runtime_types::ValueInfoProto) -> Declared {
        use onnx_runtime_types::type_proto::Value as Type;
        match input.r#type.as_ref().and_then(|t| t.value.as_ref()) {
            None => Declared::Any,
            Some(Type::OptionalType(_)) => Declared::Optional,
            Some(_) => Declared::Plain,
        }
    }

    /// The value as the input's declared kind: a `T` fed to an `optional(T)` input is a
    /// present optional, and a present optional fed to a `T` input is its value. Loop carries
    /// values this way when its body takes `optional(T)` and gives back `T`, and a graph
    /// input of `optional(T)` may be given its value.
    fn coerce(self, value: Val) -> Val {
        match (self, value) {
            (Declared::Optional, value @ Val::Optional(_)) => value,
            (Declared::Optional, value) => Val::Optional(Some(Box::new(value))),
            (Declared::Plain, Val::Optional(Some(inner))) => *inner,
            (_, value) => value,
        }
    }
}

/// A graph (or a function's body), resolved.
pub(crate) struct Graph {
    pub name: String,
    pub inputs: Vec<String>,
    /// What each input is declared to hold.
    pub declared: Vec<Declared>,
    pub outputs: Vec<String>,
    /// Read in place by the scope of each run (`Scope::get`), never copied into it: a model's
    /// weights are most of its memory.
    pub initializers: HashMap<String, Val>,
    pub steps: Vec<Step>,
    /// The values to drop after each step: those whose last use it is.
    pub frees: Vec<Vec<String>>,
}

/// A function body with its signature.
pub(crate) struct Function {
    pub proto: FunctionProto,
    pub body: Graph,
}

pub(crate) fn node_place(graph: &str, index: usize, node: &NodeProto) -> String {
    let outputs: Vec<String> = node.output.iter().map(|o| format!("`{o}`")).collect();
    format!(
        "graph `{graph}`, node {index} ({}, outputs {})",
        node.op_type(),
        outputs.join(", ")
    )
}

/// The names a node reads, its subgraphs' free names included.
fn uses(node: &NodeProto, into: &mut Vec<String>) {
    into.extend(node.input.iter().filter(|i| !i.is_empty()).cloned());
    for attribute in &node.attribute {
        for graph in attribute.g.iter().map(|g| &**g).chain(&attribute.graphs) {
            let mut defined: HashSet<&str> = graph.input.iter().map(|i| i.name()).collect();
            defined.extend(graph.initializer.iter().map(|t| t.name()));
            let mut inner = Vec::new();
            for node in &graph.node {
                uses(node, &mut inner);
                defined.extend(node.output.iter().map(String::as_str));
            }
            inner.extend(graph.output.iter().map(|o| o.name().to_string()));
            into.extend(inner.into_iter().filter(|n| !defined.contains(n.as_str())));
        }
    }
}

impl Graph {
    /// Resolves a graph whose nodes import `opsets`.
    pub fn compile(proto: &GraphProto, opsets: &Opsets, model: &Model) -> Result<Graph, Error> {
        let name = proto.name().to_string();
        let initializers = proto
            .initializer
            .iter()
            .map(|t| {
                let value = Tensor::from_proto(t).map_err(|e| {
                    Error::new(format!("graph `{name}`, initializer `{}`", t.name()), e)
                })?;
                Ok((t.name().to_string(), Val::Tensor(value)))
            })
            .collect::<Result<HashMap<_, _>, Error>>()?;
        let steps = proto
            .node
            .iter()
            .enumerate()
            .map(|(index, node)| Step::compile(&name, index, node, opsets, model))
            .collect::<Result<Vec<_>, Error>>()?;
        let outputs: Vec<String> = proto.output.iter().map(|o| o.name().to_string()).collect();
        let inputs = proto.input.iter().map(|i| i.name().to_string()).collect();
        let mut graph = Graph::with_frees(name, inputs, outputs, initializers, steps);
        graph.declared = proto.input.iter().map(Declared::of).collect();
        Ok(graph)
    }

    fn with_frees(
        name: String,
        inputs: Vec<String>,
        outputs: Vec<String>,
        initializers: HashMap<String, Val>,
        steps: Vec<Step>,
    ) -> Graph {
        let mut last_use: HashMap<String, usize> = HashMap::new();
        for (index, step) in steps.iter().enumerate() {
            // A value no one reads goes right after it is made.
            for output in &step.node.output {
                last_use.entry(output.clone()).or_insert(index);
            }
            let mut names = Vec::new();
            uses(&step.node, &mut names);
            for name in names {
                last_use.insert(name, index);
            }
        }
        let mut frees = vec![Vec::new(); steps.len()];
        for (value, index) in last_use {
            if !outputs.contains(&value) {
                frees[index].push(value);
            }
        }
        Graph {
            declared: vec![Declared::Any; inputs.len()],
            name,
            inputs,
            outputs,
            initializers,
            steps,
            frees,
        }
    }

    /// Runs each step in `scope`, with the attributes `attributes` gives it, keeping what each
    /// makes and dropping each value after its last use.
    fn execute<'s>(
        &'s self,
        scope: &mut Scope<'_>,
        model: &Model,
        attributes: impl Fn(&'s Step) -> Cow<'s, [AttributeProto]>,
    ) -> Result<(), Error> {
        for (step, frees) in self.steps.iter().zip(&self.frees) {
            let outputs = step.run(scope, model, &attributes(step), &self.steps)?;
            for (name, value) in step.node.output.iter().zip(outputs) {
                if !name.is_empty() {
                    scope.values.insert(name.clone(), value);
                }
            }
            for name in frees {
                scope.values.remove(name);
            }
        }
        Ok(())
    }

    /// Runs the graph on its inputs, in a scope inside `outer` (for subgraphs). An input given
    /// `None` is not fed: an initializer of its name gives its value.
    pub fn run(
        &self,
        inputs: Vec<Option<Val>>,
        outer: Option<&Scope<'_>>,
        model: &Model,
    ) -> Result<Vec<Val>, Error> {
        let mut scope = Scope {
            values: HashMap::with_capacity(self.steps.len() + inputs.len()),
            initializers: Some(&self.initializers),
            parent: outer,
        };
        for ((name, declared), value) in self.inputs.iter().zip(&self.declared).zip(inputs) {
            if let Some(value) = value {
                scope.values.insert(name.clone(), declared.coerce(value));
            }
        }
        self.execute(&mut scope, model, |step| {
            Cow::Borrowed(&step.node.attribute)
        })?;
        self.outputs
            .iter()
            .map(|name| {
                scope
                    .values
                    .remove(name)
                    .or_else(|| scope.get(name).cloned())
                    .ok_or_else(|| {
                        Error::new(
                            format!("graph `{}`", self.name),
                            format!("output `{name}` was never computed"),
                        )
                    })
            })
            .collect()
    }
}

/// The values in view: this graph's, then the enclosing graphs'.
pub(crate) struct Scope<'a> {
    /// The graph's inputs and what its nodes made (an input shadows an initializer).
    values: HashMap<String, Val>,
    /// The graph's initializers, borrowed from it.
    initializers: Option<&'a HashMap<String, Val>>,
    parent: Option<&'a Scope<'a>>,
}

impl<'a> Scope<'a> {
    /// A scope of its own values inside `parent`.
    pub fn child(parent: &'a Scope<'a>, values: HashMap<String, Val>) -> Scope<'a> {
        Scope {
            values,
            initializers: None,
            parent: Some(parent),
        }
    }

    pub fn insert(&mut self, name: String, value: Val) {
        self.values.insert(name, value);
    }

    pub fn get(&self, name: &str) -> Option<&Val> {
        self.values
            .get(name)
            .or_else(|| self.initializers.and_then(|i| i.get(name)))
            .or_else(|| self.parent.and_then(|p| p.get(name)))
    }
}

impl Step {
    fn compile(
        graph: &str,
        index: usize,
        node: &NodeProto,
        opsets: &Opsets,
        model: &Model,
    ) -> Result<Step, Error> {
        let place = node_place(graph, index, node);
        let domain = normalize(node.domain());
        let opset = opsets.get(domain).copied();
        let key = (
            node.domain().to_string(),
            node.op_type().to_string(),
            node.overload().to_string(),
        );
        let mut subgraphs = HashMap::new();
        for attribute in &node.attribute {
            if let Some(g) = &attribute.g {
                subgraphs.insert(
                    attribute.name().to_string(),
                    Arc::new(Graph::compile(g, opsets, model)?),
                );
            }
        }
        let local = model.functions.get(&key).or_else(|| {
            model
                .functions
                .get(&(domain.to_string(), key.1.clone(), key.2.clone()))
        });
        let (op, since) = if let Some(function) = local {
            (
                Op::Function(Arc::new(Function::compile(function, opsets, model)?)),
                0,
            )
        } else {
            let Some(opset) = opset else {
                return Err(Error::new(
                    place,
                    format!("the model imports no version of domain `{domain}`"),
                ));
            };
            let since = onnx_schema::since_version(domain, node.op_type(), opset);
            match since.and_then(|since| ops::lookup(domain, node.op_type(), since)) {
                Some(kernel) => (Op::Kernel(kernel), since.unwrap_or(opset)),
                None => match standard_body(domain, node.op_type(), opset) {
                    Some(body) => (
                        Op::Function(Arc::new(Function::compile(body, opsets, model)?)),
                        opset,
                    ),
                    None => {
                        return Err(Error::new(
                            place,
                            format!(
                                "no operator {} in domain `{domain}` at opset {opset}",
                                node.op_type()
                            ),
                        ));
                    }
                },
            }
        };
        Ok(Step {
            node: node.clone(),
            op,
            since,
            subgraphs,
            place,
            prepared: OnceLock::new(),
        })
    }

    /// Runs the node on its inputs from `scope`, with `attributes` (its own, or a function
    /// body's with the references resolved); `steps` are those of its graph.
    pub fn run(
        &self,
        scope: &Scope<'_>,
        model: &Model,
        attributes: &[AttributeProto],
        steps: &[Step],
    ) -> Result<Vec<Val>, Error> {
        let mut inputs = Vec::with_capacity(self.node.input.len());
        for name in &self.node.input {
            if name.is_empty() {
                inputs.push(None);
                continue;
            }
            match scope.get(name) {
                Some(value) => inputs.push(Some(value)),
                None => {
                    return Err(Error::new(
                        &self.place,
                        format!("input `{name}` has no value"),
                    ));
                }
            }
        }
        let outputs = match &self.op {
            Op::Kernel(kernel) => {
                let ctx = Ctx {
                    op_type: self.node.op_type(),
                    attributes,
                    since: self.since,
                    outputs: self.node.output.len(),
                    subgraphs: &self.subgraphs,
                    scope,
                    model,
                    steps,
                    // Kept only for the node's own attributes: a function body's node is run
                    // with its references resolved, which may differ between calls.
                    prepared: std::ptr::eq(attributes, self.node.attribute.as_slice())
                        .then_some(&self.prepared),
                };
                kernel(&ctx, &inputs).map_err(|message| Error::new(&self.place, message))?
            }
            Op::Function(function) => {
                let inputs: Vec<Option<Val>> = inputs.iter().map(|v| v.cloned()).collect();
                function
                    .call(&self.node.attribute, inputs, model)
                    .map_err(|e| Error::new(&self.place, format!("in its function body: {e}")))?
            }
        };
        if outputs.len() < self.node.output.iter().filter(|o| !o.is_empty()).count() {
            return Err(Error::new(
                &self.place,
                format!("the kernel gave {} outputs", outputs.len()),
            ));
        }
        Ok(outputs)
    }
}

/// The body of a standard operator that onnx defines as a function, where no kernel is.
fn standard_body(domain: &str, op_type: &str, opset: i64) -> Option<&'static FunctionProto> {
    if domain.is_empty() {
        onnx_schema::standard_function(op_type, opset)
    } else {
        None
    }
}

impl Function {
    fn compile(proto: &FunctionProto, caller: &Opsets, model: &Model) -> Result<Function, Error> {
        let mut opsets = caller.clone();
        opsets.extend(opsets_of(&proto.opset_import));
        let name = proto.name().to_string();
        let steps = proto
            .node
            .iter()
            .enumerate()
            .map(|(index, node)| Step::compile(&name, index, node, &opsets, model))
            .collect::<Result<Vec<_>, Error>>()?;
        let body = Graph::with_frees(
            name,
            proto.input.clone(),
            proto.output.clone(),
            HashMap::new(),
            steps,
        );
        Ok(Function {
            proto: proto.clone(),
            body,
        })
    }

    /// Runs the body with the call's attributes: each reference takes the call's value, else the
    /// function's default; an attribute without either is left out, as if never given.
    fn call(
        &self,
        attributes: &[AttributeProto],
        inputs: Vec<Option<Val>>,
        model: &Model,
    ) -> Result<Vec<Val>, Error> {
        let lookup = |name: &str| {
            attributes
                .iter()
                .find(|a| a.name() == name)
                .or_else(|| self.proto.attribute_proto.iter().find(|a| a.name() == name))
        };
        let mut scope = Scope {
            values: HashMap::new(),
            initializers: None,
            parent: None,
        };
        for (name, value) in self.proto.input.iter().zip(inputs) {
            if let Some(value) = value {
                scope.values.insert(name.clone(), value);
            }
        }
        self.body.execute(&mut scope, model, |step| {
            if step
                .node
                .attribute
                .iter()
                .all(|a| a.ref_attr_name().is_empty())
            {
                return Cow::Borrowed(&step.node.attribute);
            }
            Cow::Owned(
                step.node
                    .attribute
                    .iter()
                    .filter_map(|a| match a.ref_attr_name() {
                        "" => Some(a.clone()),
                        reference => lookup(reference).map(|value| AttributeProto {
                            name: a.name.clone(),
                            ref_attr_name: None,
                            ..value.clone()
                        }),
                    })
                    .collect(),
            )
        })?;
        self.proto
            .output
            .iter()
            .map(|name| {
                scope.values.remove(name).ok_or_else(|| {
                    Error::new(
                        format!("function `{}`", self.proto.name()),
                        format!("output `{name}` was never computed"),
                    )
                })
            })
            .collect()
    }
}

/// Runs a subgraph for a kernel (If, Loop, Scan): `inputs` feed its inputs in order.
pub(crate) fn run_subgraph(
    ctx: &Ctx<'_>,
    attribute: &str,
    inputs: Vec<Val>,
) -> KernelResult<Vec<Val>> {
    let graph = ctx
        .subgraphs
        .get(attribute)
        .ok_or_else(|| format!("attribute `{attribute}` holds no graph"))?;
    graph
        .run(
            inputs.into_iter().map(Some).collect(),
            Some(ctx.scope),
            ctx.model,
        )
        .map_err(|e| format!("in its `{attribute}` subgraph: {e}"))
}
