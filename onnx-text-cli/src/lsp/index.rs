//! What an editor asks of a parsed document: which name is which value or function, where each
//! is defined and used, what is in scope at an offset, and which operator a node calls.
//!
//! Values are SSA names: a graph's inputs, initializers and node outputs define them, and node
//! inputs and graph outputs use them. A subgraph (an `If` branch, a `Loop` body) sees the names
//! of the graphs around it, so a use resolves in its own graph first, then outwards. A value info
//! (`<float[N] t>`) declares a type for a value defined elsewhere.

use std::collections::HashMap;

use onnx_syntax::Span;
use onnx_syntax::syntax::{
    AttrValue, Function, FunctionHeaderValue, Graph, Model, ModelHeaderValue, Name, Node,
    OpsetImport, Type,
};

/// A value or a function of the document.
#[derive(Clone, Debug, PartialEq)]
pub struct Symbol {
    pub name: String,
    pub kind: SymbolKind,
    /// Where it is defined, if anywhere.
    pub definition: Option<Span>,
    /// The scope (graph or function body) it belongs to.
    pub scope: usize,
    /// The type written for it (at its definition or in a value info), as written.
    pub declared: Option<Span>,
    /// Where the node that defines it ends: only text after that may use it. `None` for a
    /// graph's inputs and initializers, which the whole graph may use.
    pub usable_after: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolKind {
    Value,
    Function,
}

/// One written name and the symbol it stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occurrence {
    pub span: Span,
    pub symbol: usize,
    pub role: Role,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Definition,
    Use,
    /// A value info's name, or a graph output: it names the value without defining or reading it.
    Declaration,
}

/// A graph or function body.
#[derive(Clone, Debug)]
pub struct Scope {
    pub span: Span,
    pub parent: Option<usize>,
    /// The opset imports in force.
    pub imports: Imports,
    /// The symbols it defines, in text order.
    pub symbols: Vec<usize>,
    /// The same by name, for lookups (a 10,000-node graph has as many names).
    pub by_name: HashMap<String, usize>,
    /// Whether it is the main graph of a model, whose values shape inference types.
    pub main: bool,
}

/// The opset imports of a header (a model's, or a function's own).
#[derive(Clone, Debug, Default)]
pub struct Imports {
    /// `(domain, version)`, the default domain as `""`; a later entry of a domain wins.
    pub versions: Vec<(String, i64)>,
    /// Where the last entry of the header's import list ends, to write another after it.
    pub end: Option<u32>,
}

impl Imports {
    fn of<'a>(lists: impl IntoIterator<Item = &'a [OpsetImport]>) -> Imports {
        let mut imports = Imports::default();
        for import in lists.into_iter().flatten() {
            let domain = onnx_syntax::domain::canonical(&import.domain);
            match imports.versions.iter_mut().find(|(d, _)| d == domain) {
                Some(known) => known.1 = import.version,
                None => imports.versions.push((domain.to_owned(), import.version)),
            }
            imports.end = Some(import.span.end);
        }
        imports
    }

    /// The version of `domain` imported here.
    pub fn version(&self, domain: &str) -> Option<i64> {
        self.versions
            .iter()
            .find(|(d, _)| same_domain(d, domain))
            .map(|&(_, v)| v)
    }
}

/// A node's operator.
#[derive(Clone, Debug)]
pub struct OperatorSite {
    pub span: Span,
    /// `""` for the default domain.
    pub domain: String,
    pub op_type: String,
    pub scope: usize,
    /// The local function it calls, if it calls one.
    pub function: Option<usize>,
}

/// A function defined in the document, for hover and completion.
#[derive(Clone, Debug)]
pub struct FunctionSite {
    pub domain: String,
    pub name: String,
    pub symbol: usize,
    /// `name <attributes> (inputs) => (outputs)`, as written.
    pub signature: String,
}

/// An entry of the document's outline: a graph or a function with its nodes, a node (named by its
/// outputs) with the graphs of its attributes.
#[derive(Clone, Debug, PartialEq)]
pub struct Outline {
    pub name: String,
    pub kind: OutlineKind,
    /// `graph`, a function's signature, a node's operator as written.
    pub detail: String,
    pub span: Span,
    /// The name, or a node's outputs.
    pub selection: Span,
    pub children: Vec<Outline>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutlineKind {
    Graph,
    Function,
    Node,
}

/// Everything the editor features read.
#[derive(Clone, Debug, Default)]
pub struct Index {
    pub symbols: Vec<Symbol>,
    /// Sorted by start.
    pub occurrences: Vec<Occurrence>,
    pub scopes: Vec<Scope>,
    pub operators: Vec<OperatorSite>,
    pub functions: Vec<FunctionSite>,
    /// The main graph, then the functions, in text order.
    pub outline: Vec<Outline>,
}

impl Index {
    /// The index of a model.
    pub fn of_model(model: &Model, text: &str) -> Index {
        let imports = model_imports(model);
        let mut builder = Builder::new(text);
        builder.declare_functions(&model.functions);
        let graph = builder.graph(&model.graph, None, &imports, true);
        builder.index.outline.push(graph);
        builder.bodies(&model.functions, &imports);
        builder.finish()
    }

    /// The index of a function library (functions without a graph).
    pub fn of_functions(functions: &[Function], text: &str) -> Index {
        let mut builder = Builder::new(text);
        builder.declare_functions(functions);
        builder.bodies(functions, &Imports::default());
        builder.finish()
    }

    /// The index of a lone graph.
    pub fn of_graph(graph: &Graph, text: &str) -> Index {
        let mut builder = Builder::new(text);
        let graph = builder.graph(graph, None, &Imports::default(), false);
        builder.index.outline.push(graph);
        builder.finish()
    }

    /// The occurrence whose span holds `offset` (or ends there: the cursor just after a name).
    pub fn occurrence_at(&self, offset: u32) -> Option<&Occurrence> {
        let after = self.occurrences.partition_point(|o| o.span.start <= offset);
        self.occurrences[..after]
            .iter()
            .rev()
            .take(2)
            .find(|o| o.span.start <= offset && offset <= o.span.end)
    }

    /// Every occurrence of `symbol`, in text order.
    pub fn occurrences_of(&self, symbol: usize) -> impl Iterator<Item = &Occurrence> {
        self.occurrences.iter().filter(move |o| o.symbol == symbol)
    }

    /// The operator written at `offset`.
    pub fn operator_at(&self, offset: u32) -> Option<&OperatorSite> {
        let after = self.operators.partition_point(|o| o.span.start <= offset);
        self.operators[..after]
            .last()
            .filter(|o| offset <= o.span.end)
    }

    /// The innermost scope holding `offset`.
    pub fn scope_at(&self, offset: u32) -> Option<usize> {
        (0..self.scopes.len())
            .filter(|&i| self.scopes[i].span.start <= offset && offset <= self.scopes[i].span.end)
            .max_by_key(|&i| self.scopes[i].span.start)
    }

    /// The values visible in `scope`: its own, then those of the scopes around it, each name
    /// once (the innermost wins).
    pub fn visible(&self, scope: usize) -> Vec<usize> {
        let mut seen: Vec<usize> = Vec::new();
        let mut names = std::collections::HashSet::new();
        let mut at = Some(scope);
        while let Some(s) = at {
            for &symbol in &self.scopes[s].symbols {
                if names.insert(self.symbols[symbol].name.as_str()) {
                    seen.push(symbol);
                }
            }
            at = self.scopes[s].parent;
        }
        seen
    }

    /// The symbol named `name` as seen from `scope`.
    pub fn resolve(&self, scope: usize, name: &str) -> Option<usize> {
        let mut at = Some(scope);
        while let Some(s) = at {
            if let Some(&symbol) = self.scopes[s].by_name.get(name) {
                return Some(symbol);
            }
            at = self.scopes[s].parent;
        }
        None
    }

    /// The local function named by a call in `domain`, if one is defined.
    pub fn function(&self, domain: &str, name: &str) -> Option<&FunctionSite> {
        self.functions
            .iter()
            .find(|f| same_domain(&f.domain, domain) && f.name == name)
    }
}

/// `""` and `ai.onnx` are one domain.
pub fn same_domain(a: &str, b: &str) -> bool {
    use onnx_syntax::domain::canonical;
    canonical(a) == canonical(b)
}

fn model_imports(model: &Model) -> Imports {
    Imports::of(model.header.iter().filter_map(|entry| match &entry.value {
        ModelHeaderValue::OpsetImport(list) => Some(list.as_slice()),
        _ => None,
    }))
}

struct Builder<'t> {
    text: &'t str,
    index: Index,
}

impl<'t> Builder<'t> {
    fn new(text: &'t str) -> Builder<'t> {
        Builder {
            text,
            index: Index::default(),
        }
    }

    fn finish(mut self) -> Index {
        self.index.occurrences.sort_by_key(|o| o.span.start);
        self.index.operators.sort_by_key(|o| o.span.start);
        self.index
    }

    fn scope(&mut self, span: Span, parent: Option<usize>, imports: &Imports) -> usize {
        self.index.scopes.push(Scope {
            span,
            parent,
            imports: imports.clone(),
            symbols: Vec::new(),
            by_name: HashMap::new(),
            main: false,
        });
        self.index.scopes.len() - 1
    }

    fn new_symbol(&mut self, scope: usize, name: &Name, kind: SymbolKind) -> usize {
        self.index.symbols.push(Symbol {
            name: name.text.clone(),
            kind,
            definition: None,
            scope,
            declared: None,
            usable_after: None,
        });
        let symbol = self.index.symbols.len() - 1;
        if kind == SymbolKind::Value {
            let scope = &mut self.index.scopes[scope];
            scope.symbols.push(symbol);
            scope.by_name.insert(name.text.clone(), symbol);
        }
        symbol
    }

    fn occurrence(&mut self, span: Span, symbol: usize, role: Role) {
        self.index
            .occurrences
            .push(Occurrence { span, symbol, role });
    }

    /// Defines `name` in `scope` (a second definition is another occurrence of the first's
    /// symbol: the checks report it, navigation finds both).
    fn define(&mut self, scope: usize, name: &Name, ty: Option<&Type>) -> Option<usize> {
        if name.text.is_empty() {
            return None;
        }
        let own = self.index.scopes[scope].by_name.get(&name.text).copied();
        let symbol = own.unwrap_or_else(|| self.new_symbol(scope, name, SymbolKind::Value));
        let entry = &mut self.index.symbols[symbol];
        entry.definition.get_or_insert(name.span);
        if let Some(ty) = ty {
            entry.declared.get_or_insert(ty.span);
        }
        self.occurrence(name.span, symbol, Role::Definition);
        Some(symbol)
    }

    /// A use or declaration of `name` from `scope`; a name that nothing defines gets a symbol of
    /// its own in `scope`, so that its uses still find each other.
    fn refer(&mut self, scope: usize, name: &Name, role: Role, ty: Option<&Type>) {
        if name.text.is_empty() {
            return;
        }
        let symbol = match self.index.resolve(scope, &name.text) {
            Some(symbol) => symbol,
            None => self.new_symbol(scope, name, SymbolKind::Value),
        };
        if let Some(ty) = ty {
            self.index.symbols[symbol].declared.get_or_insert(ty.span);
        }
        self.occurrence(name.span, symbol, role);
    }

    /// Defines the functions first, so that calls before a function's text resolve.
    fn declare_functions(&mut self, functions: &[Function]) {
        for function in functions {
            let domain = function
                .header
                .iter()
                .rev()
                .find_map(|e| match &e.value {
                    FunctionHeaderValue::Domain(d) => Some(d.clone()),
                    _ => None,
                })
                .unwrap_or_default();
            let symbol = self.new_symbol(0, &function.name, SymbolKind::Function);
            self.index.symbols[symbol].definition = Some(function.name.span);
            self.occurrence(function.name.span, symbol, Role::Definition);
            // The head, up to the body's brace, with white space folded.
            let from = function.name.span.start as usize;
            let head = self.text.get(from..).unwrap_or_default();
            let head = head.split('{').next().unwrap_or_default();
            let signature = head.split_whitespace().collect::<Vec<_>>().join(" ");
            self.index.functions.push(FunctionSite {
                domain,
                name: function.name.text.clone(),
                symbol,
                signature,
            });
        }
    }

    fn bodies(&mut self, functions: &[Function], model_imports: &Imports) {
        for (i, function) in functions.iter().enumerate() {
            let own = Imports::of(
                function
                    .header
                    .iter()
                    .filter_map(|entry| match &entry.value {
                        FunctionHeaderValue::OpsetImport(list) => Some(list.as_slice()),
                        _ => None,
                    }),
            );
            // Without imports of its own, a model's function uses the model's.
            let imports = if own.versions.is_empty() {
                model_imports.clone()
            } else {
                own
            };
            let scope = self.scope(function.span, None, &imports);
            for input in &function.inputs {
                self.define(scope, &input.name, input.ty.as_ref());
            }
            let nodes = self.nodes(&function.nodes, scope, &imports);
            self.index.outline.push(Outline {
                name: function.name.text.clone(),
                kind: OutlineKind::Function,
                detail: self.index.functions[i].signature.clone(),
                span: function.span,
                selection: function.name.span,
                children: nodes,
            });
            for info in &function.value_infos {
                self.refer(scope, &info.name, Role::Declaration, info.ty.as_ref());
            }
            for output in &function.outputs {
                self.refer(scope, &output.name, Role::Declaration, output.ty.as_ref());
            }
        }
    }

    fn graph(
        &mut self,
        graph: &Graph,
        parent: Option<usize>,
        imports: &Imports,
        main: bool,
    ) -> Outline {
        let scope = self.scope(graph.span, parent, imports);
        self.index.scopes[scope].main = main;
        for decl in &graph.inputs {
            self.define(scope, &decl.info.name, decl.info.ty.as_ref());
        }
        for decl in &graph.locals {
            if decl.initializer.is_some() {
                self.define(scope, &decl.info.name, decl.info.ty.as_ref());
            }
        }
        let nodes = self.nodes(&graph.nodes, scope, imports);
        for decl in &graph.locals {
            if decl.initializer.is_none() {
                self.refer(
                    scope,
                    &decl.info.name,
                    Role::Declaration,
                    decl.info.ty.as_ref(),
                );
            }
        }
        for output in &graph.outputs {
            self.refer(scope, &output.name, Role::Declaration, output.ty.as_ref());
        }
        Outline {
            name: graph.name.text.clone(),
            kind: OutlineKind::Graph,
            detail: "graph".into(),
            span: graph.span,
            selection: graph.name.span,
            children: nodes,
        }
    }

    /// A list of nodes: every output is defined before any input is resolved, so that a use
    /// before its definition (an error the checks report) still finds it. Their outlines.
    fn nodes(&mut self, nodes: &[Node], scope: usize, imports: &Imports) -> Vec<Outline> {
        let mut outline = Vec::with_capacity(nodes.len());
        for node in nodes {
            for output in &node.outputs {
                if let Some(symbol) = self.define(scope, output, None) {
                    let entry = &mut self.index.symbols[symbol];
                    entry.usable_after.get_or_insert(node.span.end);
                }
            }
        }
        for node in nodes {
            let function = self
                .index
                .function(&node.domain, &node.op_type)
                .map(|f| f.symbol);
            if let Some(symbol) = function {
                // The function's name is the last part of `domain.Name`.
                let name = node.op_span.end.saturating_sub(node.op_type.len() as u32);
                self.occurrence(Span::new(name, node.op_span.end), symbol, Role::Use);
            }
            self.index.operators.push(OperatorSite {
                span: node.op_span,
                domain: node.domain.clone(),
                op_type: node.op_type.clone(),
                scope,
                function,
            });
            for input in &node.inputs {
                self.refer(scope, input, Role::Use, None);
            }
            let mut graphs = Vec::new();
            for attribute in &node.attributes {
                match &attribute.value {
                    Some(AttrValue::Graph(graph)) => {
                        graphs.push(self.graph(graph, Some(scope), imports, false));
                    }
                    Some(AttrValue::Graphs(list)) => {
                        for graph in list {
                            graphs.push(self.graph(graph, Some(scope), imports, false));
                        }
                    }
                    _ => {}
                }
            }
            outline.push(self.node_outline(node, graphs));
        }
        outline
    }

    /// A node, named by its outputs (`a, b`), or by its operator if it has none.
    fn node_outline(&self, node: &Node, graphs: Vec<Outline>) -> Outline {
        let op = self.text.get(node.op_span.range()).unwrap_or_default();
        let outputs: Vec<&Name> = node.outputs.iter().filter(|o| !o.text.is_empty()).collect();
        let (name, selection) = match (outputs.first(), outputs.last()) {
            (Some(first), Some(last)) => {
                let names: Vec<&str> = outputs.iter().map(|o| o.text.as_str()).collect();
                (names.join(", "), Span::new(first.span.start, last.span.end))
            }
            _ => (format!("({op})"), node.op_span),
        };
        Outline {
            name,
            kind: OutlineKind::Node,
            detail: op.to_owned(),
            span: node.span,
            selection,
            children: graphs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use onnx_syntax::parse::Parser;

    fn index(text: &str) -> Index {
        Index::of_model(&Parser::new(text).unwrap().model().unwrap(), text)
    }

    fn at(text: &str, needle: &str, nth: usize) -> u32 {
        text.match_indices(needle).nth(nth).unwrap().0 as u32
    }

    #[test]
    fn uses_find_their_definition_across_subgraph_scopes() {
        let text = r#"<ir_version: 10, opset_import: ["" : 21]>
g (float[N] x, bool c) => (float[N] y) {
    t = Relu (x)
    y = If (c) <then_branch = g1 () => (float[N] a) { a = Identity (t) },
                else_branch = g2 () => (float[N] a) { a = Neg (x) }>
}"#;
        let index = index(text);
        let use_of_t = index.occurrence_at(at(text, "(t)", 0) + 1).unwrap();
        let symbol = &index.symbols[use_of_t.symbol];
        assert_eq!(symbol.name, "t");
        assert_eq!(
            symbol.definition,
            Some(Span::new(at(text, "t = ", 0), at(text, "t = ", 0) + 1))
        );
        // The two branches' `a` are different values.
        let first = index.occurrence_at(at(text, "a = ", 0)).unwrap().symbol;
        let second = index.occurrence_at(at(text, "a = ", 1)).unwrap().symbol;
        assert_ne!(first, second);
        // `x` is used in the main graph's scope and the else branch.
        let x = index.occurrence_at(at(text, "x,", 0)).unwrap().symbol;
        assert_eq!(index.occurrences_of(x).count(), 3);
    }

    #[test]
    fn calls_resolve_to_local_functions_and_scopes_list_what_is_visible() {
        let text = r#"<ir_version: 10, opset_import: ["" : 21, "local" : 1]>
g (float[N] x) => (float[N] y) { t = local.Sq (x)  y = local.Sq (t) }
<domain: "local", opset_import: ["" : 21]>
Sq (x) => (y) { y = Mul (x, x) }"#;
        let index = index(text);
        let call = index.operator_at(at(text, "Sq (x)", 0)).unwrap();
        let function = call.function.unwrap();
        assert_eq!(index.occurrences_of(function).count(), 3);
        assert_eq!(index.functions[0].signature, "Sq (x) => (y)");
        let body = index.scope_at(at(text, "Mul", 0)).unwrap();
        let names: Vec<&str> = index
            .visible(body)
            .iter()
            .map(|&s| index.symbols[s].name.as_str())
            .collect();
        assert_eq!(names, ["x", "y"]);
    }
}
