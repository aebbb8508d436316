//! The walk over a tree: one [`Checker`] visits every graph, function, node and value once, in
//! source order, and hands each to the checks that look at it. The state of each check is its
//! own ([`Scopes`] of the structure checks, [`Declarations`], the schema checks' [`Types`]); the
//! walk owns only what all of them share: the options, the source text and what was found.
//!
//! A new check adds its state as a field here and its visit as a call in the walk.

use super::declarations::{Declarations, LocalFunctions, RefContext};
use super::imports::{Imports, function_imports, model_imports};
use super::schema::Types;
use super::structure::{Frame, Scopes};
use super::{Category, Check, CheckOptions, Diagnostic, Libraries, Report};
use onnx_syntax::LineIndex;
use onnx_syntax::Span;
use onnx_syntax::hash::{HashSet, RandomKey};
use onnx_syntax::hole::is_marker;
use onnx_syntax::syntax::{
    AttrValue, Attribute, Function, FunctionAttribute, Graph, Model, Node, Type, ValueInfo,
};

/// Checks a model: its graph against the model's imports, its functions and those of
/// `libraries`, then each function.
pub(crate) fn model<'t>(
    model: &'t Model,
    source: &'t str,
    options: &CheckOptions,
    libraries: &Libraries<'t>,
) -> Report {
    let mut checker = Checker::new(source, options);
    let imported = model_imports(model);
    checker.declarations.locals = Some(LocalFunctions::new(&model.functions, libraries));
    checker.declarations.imports = Some(Imports::new(imported.clone(), "the model".to_owned()));
    checker.declarations.refs = RefContext::Forbidden;
    checker.library_versions(&imported, libraries);
    checker.graph(&model.graph);
    checker.finish_imports();
    for function in spelled_out(&model.functions) {
        let owner = match function_imports(function) {
            Some(own) => (own, format!("function `{}`", function.name.text)),
            None => (
                imported.clone(),
                format!(
                    "the model (whose opset_import function `{}` inherits, having none)",
                    function.name.text
                ),
            ),
        };
        checker.declarations.imports = Some(Imports::new(owner.0, owner.1));
        checker.function(function);
        checker.finish_imports();
    }
    checker.finish()
}

/// Checks a graph on its own: no imports are known, calls resolve only to `libraries`, and
/// `@ref` is invalid.
pub(crate) fn graph<'t>(
    graph: &'t Graph,
    source: &'t str,
    options: &CheckOptions,
    libraries: &Libraries<'t>,
) -> Report {
    let mut checker = Checker::new(source, options);
    checker.in_view(libraries);
    checker.declarations.refs = RefContext::Forbidden;
    checker.graph(graph);
    checker.finish()
}

/// Checks functions, each against its own imports; with `resolve`, calls into the domains of
/// `functions` must name one of them. Calls into the domains of `libraries` must name one of
/// theirs.
pub(crate) fn library<'t>(
    functions: &'t [Function],
    resolve: bool,
    source: &'t str,
    options: &CheckOptions,
    libraries: &Libraries<'t>,
) -> Report {
    let mut checker = Checker::new(source, options);
    if resolve {
        checker.declarations.locals = Some(LocalFunctions::new(functions, libraries));
    } else {
        checker.in_view(libraries);
    }
    for function in spelled_out(functions) {
        checker.declarations.imports = function_imports(function)
            .map(|own| Imports::new(own, format!("function `{}`", function.name.text)));
        checker.function(function);
        checker.finish_imports();
    }
    checker.finish()
}

/// Checks a node list on its own: names that no node defines are inputs of the unknown
/// enclosing context, but SSA and order are checked; calls resolve only to `libraries`.
pub(crate) fn nodes<'t>(
    nodes: &'t [Node],
    source: &'t str,
    options: &CheckOptions,
    libraries: &Libraries<'t>,
) -> Report {
    let mut checker = Checker::new(source, options);
    checker.in_view(libraries);
    checker.scopes.free = true;
    checker.declarations.refs = RefContext::Unknown;
    checker.push_frame(Frame::for_nodes(nodes));
    checker.types.push(nodes.len());
    checker.body(nodes);
    checker.types.pop();
    checker.scopes.frames.pop();
    checker.finish()
}

/// The functions written out, without those spliced in from Rust (`#f`, `..#library`).
fn spelled_out(functions: &[Function]) -> impl Iterator<Item = &Function> {
    functions.iter().filter(|f| !is_marker(&f.name.text))
}

/// How deep the checks follow nested graphs. The parser never nests deeper than
/// [`MAX_NESTING`](onnx_syntax::parse::MAX_NESTING); deeper hand-built trees are checked to this depth.
const MAX_DEPTH: u32 = 64;

/// The walk over a tree, with the state of every check.
pub(super) struct Checker<'t> {
    pub source: &'t str,
    options: CheckOptions,
    found: Vec<Diagnostic>,
    lines: Option<LineIndex>,
    /// The structure checks' state.
    pub scopes: Scopes<'t>,
    /// The declaration checks' state (imports, local functions, `@ref`).
    pub declarations: Declarations<'t>,
    /// The schema checks' state: the known types of values, and what they covered.
    pub types: Types<'t>,
    depth: u32,
}

impl<'t> Checker<'t> {
    pub(super) fn new(source: &'t str, options: &CheckOptions) -> Checker<'t> {
        Checker {
            source,
            options: *options,
            found: Vec::new(),
            lines: None,
            scopes: Scopes::default(),
            declarations: Declarations::default(),
            types: Types::default(),
            depth: 0,
        }
    }

    /// Resolves calls to the functions of `libraries`, for texts without functions of their own.
    fn in_view(&mut self, libraries: &Libraries<'t>) {
        if !libraries.is_empty() {
            self.declarations.locals = Some(LocalFunctions::new(&[], libraries));
        }
    }

    pub(super) fn on(&self, check: Check) -> bool {
        self.options.is_enabled(check)
    }

    /// True if any check of `category` runs.
    pub(super) fn any_on(&self, category: Category) -> bool {
        self.options.any_enabled(category)
    }

    pub(super) fn report(&mut self, diagnostic: Diagnostic) {
        self.found.push(diagnostic);
    }

    /// The line number of a span's start, as messages show it.
    pub(super) fn line(&mut self, span: Span) -> usize {
        let source = self.source;
        let index = self.lines.get_or_insert_with(|| LineIndex::new(source));
        let line = index.line_column(span.start as usize).line;
        line.saturating_add(self.options.first_line)
            .saturating_sub(1)
    }

    /// The source text of a span, if the span is valid for it.
    pub(super) fn text(&self, span: Span) -> Option<&'t str> {
        self.source.get(span.range())
    }

    /// All diagnostics, in source order, and the coverage.
    pub(super) fn finish(mut self) -> Report {
        self.found.sort_by_key(|d| (d.span().start, d.span().end));
        Report {
            diagnostics: self.found,
            coverage: self.types.coverage,
        }
    }

    fn graph(&mut self, graph: &'t Graph) {
        if self.depth >= MAX_DEPTH {
            return;
        }
        self.depth += 1;
        let frame = self.graph_frame(graph);
        self.push_frame(frame);
        self.enter_graph_types(graph);
        for decl in graph.inputs.iter().chain(&graph.locals) {
            if let Some(tensor) = &decl.initializer {
                self.tensor(tensor);
            }
        }
        // An initializer's type is its tensor's, whose dims `tensor` checks.
        let declared = graph.inputs.iter().chain(&graph.locals);
        let infos = declared
            .filter(|d| d.initializer.is_none())
            .map(|d| &d.info);
        for info in infos.chain(&graph.outputs) {
            self.value_type(info);
        }
        self.body(&graph.nodes);
        self.produced(graph.outputs.iter().map(|o| &o.name), "graph");
        self.types.pop();
        self.scopes.frames.pop();
        self.depth -= 1;
    }

    fn function(&mut self, function: &'t Function) {
        let mut attributes =
            HashSet::with_capacity_and_hasher(function.attributes.len(), RandomKey::default());
        let names = function.attributes.iter().map(FunctionAttribute::name);
        attributes.extend(names.clone().map(|name| name.text.as_str()));
        if self.on(Check::DuplicateAttribute) {
            let owner = format!("by function `{}`", function.name.text);
            self.duplicate_names(names, &owner, "declared");
        }
        // Attribute defaults are values of their own: no scope, and no `@ref`.
        let saved = std::mem::take(&mut self.scopes.frames);
        self.declarations.refs = RefContext::Default;
        for entry in &function.attributes {
            if let FunctionAttribute::Proto(Attribute {
                value: Some(value), ..
            }) = entry
            {
                self.value(value);
            }
        }
        self.scopes.frames = saved;
        self.declarations.refs = RefContext::Function {
            function,
            attributes,
        };
        let frame = self.function_frame(function);
        self.push_frame(frame);
        self.enter_function_types(function);
        let infos = function.inputs.iter().chain(&function.outputs);
        for info in infos.chain(&function.value_infos) {
            self.value_type(info);
        }
        self.body(&function.nodes);
        self.produced(function.outputs.iter().map(|o| &o.name), "function");
        self.types.pop();
        self.scopes.frames.pop();
    }

    fn body(&mut self, nodes: &'t [Node]) {
        for (index, node) in nodes.iter().enumerate() {
            if let Some(frame) = self.scopes.frames.last_mut() {
                frame.current = index;
            }
            self.node(node, index);
        }
    }

    fn node(&mut self, node: &'t Node, index: usize) {
        // Nodes spliced in from Rust (`#node`, `..#nodes`): nothing is known of them; the frame
        // knows they may define names.
        if is_marker(&node.op_type) {
            return;
        }
        for input in &node.inputs {
            self.use_value(input);
        }
        let import = self.domain(node);
        let called = self.called_function(node);
        self.local_call(node, called);
        // (One attribute cannot repeat another.)
        if node.attributes.len() > 1 && self.on(Check::DuplicateAttribute) {
            self.duplicate_names(
                node.attributes.iter().map(|a| &a.name),
                "on this node",
                "set",
            );
        }
        for attribute in &node.attributes {
            if let Some(value) = &attribute.value {
                self.value(value);
            }
        }
        self.schema(node, import, called);
        self.define_outputs(node, index);
    }

    /// An attribute value: tensors, graphs and references.
    fn value(&mut self, value: &'t AttrValue) {
        match value {
            AttrValue::Tensor(tensor) => self.tensor(tensor),
            AttrValue::Tensors(tensors) => tensors.iter().for_each(|t| self.tensor(t)),
            AttrValue::Graph(graph) => self.graph(graph),
            AttrValue::Graphs(graphs) => graphs.iter().for_each(|g| self.graph(g)),
            AttrValue::Ref(name) => self.attribute_ref(name),
            AttrValue::TypeProto(ty) => self.type_value(ty),
            AttrValue::TypeProtos(types) => types.iter().for_each(|t| self.type_value(t)),
            _ => {}
        }
    }

    /// The declared type of a value, if written.
    fn value_type(&mut self, info: &ValueInfo) {
        if let Some(ty) = &info.ty {
            self.declared_type(&|| format!("the type of `{}`", info.name.text), ty);
        }
    }

    fn type_value(&mut self, ty: &Type) {
        self.declared_type(&|| "the attribute's type value".to_owned(), ty);
    }
}
