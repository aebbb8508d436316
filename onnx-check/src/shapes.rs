//! `incompatible_shapes` and `shape_mismatch`: shape inference ([`onnx_infer`]) over the
//! lowering of a model, a function or a function library whose other checks passed, with its
//! findings put on the tree's tokens. And `missing_type` for a model's main graph, whose inputs
//! and outputs the IR requires to have a type with a shape: its message suggests the inferred
//! type to write.
//!
//! Inference works on protobuf messages, and lowering consumes the tree. The macros lower the
//! tree anyway to generate their code, so the checks take what they need of the tree first
//! ([`Sites`]: where its nodes and declared types are) and infer on the lowering the caller
//! keeps, instead of lowering a copy.

use onnx_runtime_types::{FunctionProto, ModelProto, NodeProto, OperatorSetIdProto};

use onnx_infer::{Against, Run, infer_function, infer_model};
use onnx_schema::constraints::body_input_types;
use onnx_syntax::Span;
use onnx_syntax::syntax::{Function, Graph, Node, ValueInfo};
use onnx_syntax::{Proto, Tree};

use super::walk::Checker;
use super::{Category, Check, CheckOptions, Diagnostic, Edit, Fix, Libraries, Report};

/// Where the findings of the shape checks go in a tree: for each body inference walks, the
/// spans of its nodes and of the types it declares.
#[derive(Debug)]
pub(crate) struct Sites {
    /// A model's graph.
    graph: Option<Body>,
    /// The functions, in tree order.
    functions: Vec<Body>,
    /// The main graph's inputs and outputs without a type with a shape.
    untyped: Vec<Untyped>,
}

/// A main-graph input or output without a type with a shape.
#[derive(Debug)]
struct Untyped {
    /// `input` or `output`.
    list: &'static str,
    name: String,
    /// The name's span, where the message goes.
    span: Span,
    /// The element type written (`float[]`), if a type is written at all.
    written: Option<String>,
}

/// The sites of one graph or function body.
#[derive(Debug)]
struct Body {
    /// How messages name the body.
    what: &'static str,
    /// Each node's operator span, with the index of its first input in `inputs`.
    nodes: Vec<(Span, usize)>,
    /// The spans of every node's inputs, node after node.
    inputs: Vec<Span>,
    /// The names the body declares a type for, with the span of that type (the first such
    /// declaration of a name comes first).
    declared: Vec<(String, Span)>,
}

impl Sites {
    /// The sites of `tree`, if the shape checks are to run on it: one of them is on, it is a
    /// model, a function or functions, and `report` (the other checks) found nothing, since
    /// inference over a malformed graph would report what those problems cause.
    pub(crate) fn wanted(tree: &Tree, report: &Report, options: &CheckOptions) -> Option<Sites> {
        if !Sites::enabled(options) || !report.diagnostics.is_empty() {
            return None;
        }
        Sites::of(tree)
    }

    /// Whether `options` enable a check that the shape checks make.
    pub(crate) fn enabled(options: &CheckOptions) -> bool {
        // `type_constraint` too: inference through calls knows the types in called bodies.
        options.any_enabled(Category::Shapes)
            || options.is_enabled(Check::TypeConstraint)
            || options.is_enabled(Check::MissingType)
    }

    /// The sites of `tree`, if it is a form the shape checks run on: a model, a function or
    /// functions.
    pub(crate) fn of(tree: &Tree) -> Option<Sites> {
        let functions = |functions: &[Function]| functions.iter().map(Body::function).collect();
        match tree {
            Tree::Model(model) => Some(Sites {
                graph: Some(Body::graph(&model.graph)),
                functions: functions(&model.functions),
                untyped: untyped(&model.graph),
            }),
            Tree::Function(function) => Some(Sites {
                graph: None,
                functions: vec![Body::function(function)],
                untyped: Vec::new(),
            }),
            Tree::Functions(list) => Some(Sites {
                graph: None,
                functions: functions(list),
                untyped: Vec::new(),
            }),
            Tree::Graph(_) | Tree::Node(_) | Tree::Nodes(_) | Tree::NodeList(_) => None,
        }
    }

    /// Runs the shape checks on `proto`, the lowering of the tree these sites were taken
    /// from, and adds what they find to `report`. Calls may go to the functions of
    /// `libraries`, whose bodies are inferred as those of the text's own functions are.
    pub(crate) fn check(
        &self,
        proto: &Proto,
        report: &mut Report,
        source: &str,
        options: &CheckOptions,
        libraries: &Libraries<'_>,
    ) {
        let mut checker = Checker::new(source, options);
        let library: Vec<&FunctionProto> = libraries.iter().flat_map(|(_, l)| l.iter()).collect();
        match proto {
            Proto::Model(model) => self.model(&mut checker, model, &library),
            Proto::Function(function) => {
                let function = std::slice::from_ref(function);
                self.functions(&mut checker, function, &[], &library);
            }
            Proto::Functions(functions) => {
                self.functions(&mut checker, functions, &[], &library);
            }
            _ => {}
        }
        report.diagnostics.extend(checker.finish().diagnostics);
    }

    fn model(&self, checker: &mut Checker<'_>, model: &ModelProto, library: &[&FunctionProto]) {
        if let (Some(graph), Some(proto)) = (&self.graph, &model.graph) {
            let inferred = infer_model(model, library, Some(body_input_types));
            checker.report_shapes(&inferred, graph, &proto.node);
            checker.report_untyped(&inferred, &self.untyped);
        }
        self.functions(checker, &model.functions, &model.opset_import, library);
    }

    /// Infers each function of `lowered` (under `imports` when it has none of its own); calls
    /// may go to any of them, or to `library`.
    fn functions(
        &self,
        checker: &mut Checker<'_>,
        lowered: &[FunctionProto],
        imports: &[OperatorSetIdProto],
        library: &[&FunctionProto],
    ) {
        // Spliced functions (`..#library`) have no tree of their own: then nothing lines up.
        if self.functions.len() != lowered.len() {
            return;
        }
        for (body, proto) in self.functions.iter().zip(lowered) {
            let inferred = infer_function(proto, imports, lowered, library, Some(body_input_types));
            checker.report_shapes(&inferred, body, &proto.node);
        }
    }
}

impl Body {
    fn new(what: &'static str, nodes: &[Node], declared: Vec<(String, Span)>) -> Body {
        let mut body = Body {
            what,
            nodes: Vec::with_capacity(nodes.len()),
            inputs: Vec::with_capacity(nodes.len()),
            declared,
        };
        for node in nodes {
            body.nodes.push((node.op_span, body.inputs.len()));
            for input in &node.inputs {
                body.inputs.push(input.span);
            }
        }
        body
    }

    /// A graph's sites; it declares types for its inputs, outputs, initializers and value
    /// infos (an input's first: an initializer named as it comes after it).
    fn graph(graph: &Graph) -> Body {
        let inputs = graph.inputs.iter().map(|input| &input.info);
        let locals = graph.locals.iter().map(|local| &local.info);
        let declared = typed(inputs.chain(&graph.outputs).chain(locals));
        Body::new("the graph", &graph.nodes, declared)
    }

    /// A function's sites; it declares types for its typed outputs and value infos.
    fn function(function: &Function) -> Body {
        let declared = typed(function.outputs.iter().chain(&function.value_infos));
        Body::new("the function body", &function.nodes, declared)
    }

    /// The span of node `node`'s operator, and of its input `input` if given and written.
    fn node(&self, node: usize, input: Option<usize>) -> Option<Span> {
        let &(op, first) = self.nodes.get(node)?;
        let end = self
            .nodes
            .get(node + 1)
            .map_or(self.inputs.len(), |&(_, next)| next);
        let input = input.filter(|i| first + i < end);
        Some(input.map_or(op, |i| self.inputs[first + i]))
    }

    /// The span of the type first declared for `name`.
    fn declared(&self, name: &str) -> Option<Span> {
        self.declarations(name).next()
    }

    /// The spans of the types declared for `name`, in order.
    fn declarations<'b>(&'b self, name: &'b str) -> impl Iterator<Item = Span> + 'b {
        let found = self
            .declared
            .iter()
            .filter(move |(declared, _)| declared == name);
        found.map(|&(_, span)| span)
    }
}

/// The names among `infos` that have a type, with the type's span.
/// The main graph's inputs and outputs that the IR's rule misses: no type, or a tensor type
/// without a shape (`float[]`).
fn untyped(graph: &Graph) -> Vec<Untyped> {
    use onnx_syntax::syntax::TypeKind;
    let inputs = graph.inputs.iter().map(|d| ("input", &d.info));
    let outputs = graph.outputs.iter().map(|info| ("output", info));
    inputs
        .chain(outputs)
        // A spread of names (`..#outs`) cannot carry types: a hole never causes an error.
        .filter(|(_, info)| !onnx_syntax::hole::is_spread(&info.name.text))
        .filter_map(|(list, info)| {
            let written = match info.ty.as_ref().map(|t| &t.kind) {
                None => None,
                Some(TypeKind::Tensor(elem, None) | TypeKind::SparseTensor(elem, None)) => {
                    Some(onnx_syntax::dtype::elem_type_by_number(*elem).map_or("float", |t| t.name))
                }
                Some(_) => return None,
            };
            Some(Untyped {
                list,
                name: info.name.text.clone(),
                span: info.name.span,
                written: written.map(str::to_owned),
            })
        })
        .collect()
}

fn typed<'a>(infos: impl Iterator<Item = &'a ValueInfo>) -> Vec<(String, Span)> {
    infos
        .filter_map(|info| Some((info.name.text.clone(), info.ty.as_ref()?.span)))
        .collect()
}

impl Checker<'_> {
    /// `missing_type` for each main-graph input or output in `untyped`, suggesting the type to
    /// write: the inferred one where inference knows its shape, else a rank to fill in.
    fn report_untyped(&mut self, inferred: &Run<'_>, untyped: &[Untyped]) {
        // Where inference failed, the types it would suggest are unknown and the shape errors
        // come first.
        if !self.on(Check::MissingType) || !inferred.errors.is_empty() {
            return;
        }
        for value in untyped {
            let shown = match onnx_syntax::lex::is_identifier(&value.name) {
                true => value.name.clone(),
                false => format!("{:?}", value.name),
            };
            let lacks = if value.written.is_some() {
                "shape"
            } else {
                "type"
            };
            let known = inferred.ty(&value.name).filter(
                |ty| matches!(ty, onnx_infer::Ty::Tensor { shape: Some(_), elem } if *elem != 0),
            );
            // An untyped name whose type inference knows: the fix writes that type before it.
            let typed = match (known, &value.written) {
                (Some(ty), None) => Some(format!("{ty} {shown}")),
                _ => None,
            };
            let fix = match (known, &value.written) {
                (Some(ty), _) => format!("write `{ty} {shown}`"),
                (None, Some(elem)) => format!(
                    "write its rank, with `?` or a name for unknown dims (`{elem}[N, 10] {shown}`; \
                     `{elem} {shown}` is a scalar)"
                ),
                (None, None) => format!(
                    "write a type with a shape (`float[N, 10] {shown}`; `float {shown}` is a scalar)"
                ),
            };
            let message = format!(
                "the main graph's {} `{}` has no {lacks}, which the IR requires: {fix}",
                value.list, value.name
            );
            let diagnostic = Diagnostic::new(Check::MissingType, value.span, message);
            self.report(match typed {
                Some(typed) => diagnostic.with_fix(Fix {
                    title: format!("Write `{typed}`"),
                    edits: vec![Edit {
                        span: value.span,
                        text: typed,
                    }],
                }),
                None => diagnostic,
            });
        }
    }

    /// Puts what inference found on the nodes and declarations of `body` it concerns;
    /// `nodes` are the body's lowered nodes.
    fn report_shapes(&mut self, inferred: &Run<'_>, body: &Body, nodes: &[NodeProto]) {
        if self.on(Check::IncompatibleShapes) {
            for error in &inferred.errors {
                if let Some(span) = error.node.and_then(|node| body.node(node, error.input)) {
                    let check = Check::IncompatibleShapes;
                    self.report(Diagnostic::new(check, span, error.message.clone()));
                }
            }
        }
        if self.on(Check::TypeConstraint) {
            for error in &inferred.type_errors {
                if let Some(span) = error.node.and_then(|node| body.node(node, None)) {
                    let check = Check::TypeConstraint;
                    self.report(Diagnostic::new(check, span, error.message.clone()));
                }
            }
        }
        if self.on(Check::ShapeMismatch) {
            for found in &inferred.mismatches {
                let Some(declared) = body.declared(&found.name) else {
                    continue;
                };
                let Against::Computed(node) = found.against else {
                    // An input whose initializer has another type, or a graph output that
                    // declares an input's or initializer's name with another type: the
                    // other is the name's second declaration.
                    let (message, label) = match found.against {
                        Against::Initializer => (
                            format!(
                                "`{}` is declared {} but its initializer is {}",
                                found.name, found.declared, found.inferred
                            ),
                            format!("the initializer is {} here", found.inferred),
                        ),
                        _ => (
                            format!(
                                "`{}` is declared {} and also {}",
                                found.name, found.declared, found.inferred
                            ),
                            format!("declared {} here", found.inferred),
                        ),
                    };
                    let mut diagnostic = Diagnostic::new(Check::ShapeMismatch, declared, message);
                    if let Some(second) = body.declarations(&found.name).nth(1) {
                        diagnostic = diagnostic.with_label(second, label);
                    }
                    self.report(diagnostic);
                    continue;
                };
                let Some(op_span) = body.node(node, None) else {
                    continue;
                };
                let line = self.line(op_span);
                let op_type = nodes.get(node).and_then(|n| n.op_type.as_deref());
                let op_type = op_type.unwrap_or_default();
                let message = format!(
                    "`{}` is declared {} but {} computes {} (`{op_type}` at line {line})",
                    found.name, found.declared, body.what, found.inferred
                );
                let diagnostic = Diagnostic::new(Check::ShapeMismatch, declared, message)
                    .with_label(op_span, format!("computed as {} here", found.inferred));
                self.report(diagnostic);
            }
        }
    }
}
