//! Inlining: calls replaced by the bodies of the functions they call, recursively, in graphs,
//! subgraphs and function bodies; and attaching: the functions a model calls copied into it.
//!
//! # Names
//!
//! A call's formal inputs and outputs take the names the call gives (a missing optional input
//! is `""`; an output the call leaves out gets a fresh name). Every other name of the body, in
//! its subgraphs too, gets a fresh name `F__t` (`F` the function's name, `t` the name in the
//! body), or `F__t_1`, `F__t_2`, … if that is taken. Fresh names are unique against every name
//! of the model (graph, subgraphs, training graphs, local functions) and every name made
//! before, so two calls of one function never share a name. A name that a subgraph of the body
//! defines is renamed within that subgraph, so sibling subgraphs (an `If`'s two branches) that
//! reuse a name get two names, as onnx's inliner gives them. Named body nodes get fresh node
//! names the same way.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;

use onnx_runtime_types::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
    ValueInfoProto,
};

use super::names::{NameGenerator, Scopes, graph_names, node_names};
use super::{
    FunctionKey, FunctionLibrary, LibraryError, Operands, imported_version, merge_imports,
};
use onnx_schema::{STANDARD_FUNCTION_OPERATORS, standard_function};

/// The most nodes inlining makes by default: a guard against libraries whose calls multiply
/// (each function calling the one before twice doubles the size at each level).
const DEFAULT_MAX_NODES: usize = 1 << 22;

/// Replaces calls by function bodies. By default every model-local function and every function
/// of the libraries given is inlined; [`only`](Inliner::only) and [`except`](Inliner::except)
/// narrow that, and [`expand`](Inliner::expand) also expands standard operators through their
/// function bodies.
///
/// ```
/// use onnx_check::library::Inliner;
///
/// let mut model = onnx_syntax::parse_model(r#"
///     <ir_version: 10, opset_import: ["" : 21, "local" : 1]>
///     g (float[N] x) => (float[N] y) { t = local.Scale <alpha = 2.0> (x)  y = local.Scale (t) }
///     <domain: "local", opset_import: ["" : 21]>
///     Scale <alpha: float = 0.5> (x) => (y) { a = Constant <value_float: float = @alpha> ()  y = Mul(x, a) }
/// "#)?;
/// let report = Inliner::new().model(&mut model)?;
/// assert_eq!(report.total(), 2);
/// assert!(model.functions.is_empty()); // no longer called
/// assert_eq!(onnx_print::to_text(&model.graph.unwrap()), r#"g (float[N] x) => (float[N] y) {
///    Scale__a = Constant <value_float: float = 2> ()
///    t = Mul (x, Scale__a)
///    Scale__a_1 = Constant <value_float: float = 0.5> ()
///    y = Mul (t, Scale__a_1)
/// }"#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Inliner<'a> {
    libraries: Vec<&'a FunctionLibrary>,
    only: Option<Vec<(String, String)>>,
    except: Vec<(String, String)>,
    expand: Vec<String>,
    max_nodes: usize,
}

impl Default for Inliner<'_> {
    fn default() -> Self {
        Inliner::new()
    }
}

impl<'a> Inliner<'a> {
    /// An inliner of model-local functions, with no libraries.
    ///
    /// ```
    /// let inliner = onnx_check::library::Inliner::new();
    /// # let _ = inliner;
    /// ```
    pub fn new() -> Inliner<'a> {
        Inliner {
            libraries: Vec::new(),
            only: None,
            except: Vec::new(),
            expand: Vec::new(),
            max_nodes: DEFAULT_MAX_NODES,
        }
    }

    /// Also inlines the functions of `library`. A model's own function with the same key takes
    /// precedence, and so does a library added before.
    ///
    /// ```
    /// use onnx_check::library::{FunctionLibrary, Inliner};
    /// let lib = FunctionLibrary::from_functions(onnx_syntax::parse_functions(
    ///     r#"<domain: "my", opset_import: ["" : 21]> Sq (x) => (y) { y = Mul(x, x) }"#)?)?;
    /// let mut model = onnx_syntax::parse_model(
    ///     r#"<opset_import: ["" : 21, "my" : 1]> g (x) => (y) { y = my.Sq(x) }"#)?;
    /// Inliner::new().library(&lib).model(&mut model)?;
    /// assert_eq!(model.graph.unwrap().node[0].input, ["x", "x"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn library(mut self, library: &'a FunctionLibrary) -> Inliner<'a> {
        self.libraries.push(library);
        self
    }

    /// Inlines only the functions named (every overload of `name` in `domain`), and no others.
    /// Naming a function that neither the model nor a library defines is an error.
    ///
    /// ```
    /// use onnx_check::library::Inliner;
    /// let mut model = onnx_syntax::parse_model(r#"
    ///     <opset_import: ["" : 21, "my" : 1]> g (x) => (y) { t = my.A(x)  y = my.B(t) }
    ///     <domain: "my", opset_import: ["" : 21]> A (x) => (y) { y = Abs(x) }
    ///     <domain: "my", opset_import: ["" : 21]> B (x) => (y) { y = Neg(x) }
    /// "#)?;
    /// Inliner::new().only("my", "A").model(&mut model)?;
    /// let ops: Vec<_> = model.graph.unwrap().node.iter().map(|n| n.op_type.clone().unwrap()).collect();
    /// assert_eq!(ops, ["Abs", "B"]);
    /// assert_eq!(model.functions.len(), 1); // B is still called
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn only(mut self, domain: &str, name: &str) -> Inliner<'a> {
        self.only
            .get_or_insert_with(Vec::new)
            .push(selection_key(domain, name));
        self
    }

    /// Leaves the function named (every overload of `name` in `domain`) as calls. Naming a
    /// function that neither the model nor a library defines is an error.
    ///
    /// ```
    /// use onnx_check::library::Inliner;
    /// let mut model = onnx_syntax::parse_model(r#"
    ///     <opset_import: ["" : 21, "my" : 1]> g (x) => (y) { t = my.A(x)  y = my.B(t) }
    ///     <domain: "my", opset_import: ["" : 21]> A (x) => (y) { y = Abs(x) }
    ///     <domain: "my", opset_import: ["" : 21]> B (x) => (y) { y = Neg(x) }
    /// "#)?;
    /// Inliner::new().except("my", "A").model(&mut model)?;
    /// let ops: Vec<_> = model.graph.unwrap().node.iter().map(|n| n.op_type.clone().unwrap()).collect();
    /// assert_eq!(ops, ["A", "Neg"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn except(mut self, domain: &str, name: &str) -> Inliner<'a> {
        self.except.push(selection_key(domain, name));
        self
    }

    /// Also expands the standard operator `operator` (of the default domain) through its
    /// function body, the newest at or below the default domain's version in use (see
    /// [`standard_function`]). An operator without a static body is an error.
    ///
    /// ```
    /// use onnx_check::library::Inliner;
    /// let mut model = onnx_syntax::parse_model(
    ///     r#"<opset_import: ["" : 21]> g (float[N] x) => (float[N] y) { y = LeakyRelu(x) }"#)?;
    /// Inliner::new().expand("LeakyRelu").model(&mut model)?;
    /// let graph = model.graph.unwrap();
    /// assert!(graph.node.iter().all(|n| n.op_type.as_deref() != Some("LeakyRelu")));
    /// // The schema's default alpha, 0.01, is in the body: no `Constant ()` without a value.
    /// assert!(onnx_print::to_text(&graph).contains("value_float: float = 0.01"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn expand(mut self, operator: &str) -> Inliner<'a> {
        self.expand.push(operator.to_owned());
        self
    }

    /// Sets the most nodes that inlining may make (4,194,304 by default); past it, inlining
    /// fails instead of running out of memory.
    ///
    /// ```
    /// use onnx_check::library::{Inliner, LibraryError};
    /// let mut model = onnx_syntax::parse_model(r#"
    ///     <opset_import: ["" : 21, "my" : 1]> g (x) => (y) { y = my.F(x) }
    ///     <domain: "my", opset_import: ["" : 21]> F (x) => (y) { t = Abs(x)  y = Neg(t) }
    /// "#)?;
    /// let err = Inliner::new().max_nodes(1).model(&mut model).unwrap_err();
    /// assert!(matches!(err, LibraryError::TooLarge { limit: 1, .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn max_nodes(mut self, limit: usize) -> Inliner<'a> {
        self.max_nodes = limit;
        self
    }

    /// Inlines the calls of `model`'s graph, its subgraphs, its training graphs, and the
    /// bodies of the local functions that stay (those left out of the selection); merges the
    /// inlined functions' opset imports into the model's; removes the local functions that are
    /// no longer called. On error the model is unchanged.
    ///
    /// ```
    /// use onnx_check::library::{Inliner, LibraryError};
    /// let mut model = onnx_syntax::parse_model(r#"
    ///     <opset_import: ["" : 21, "my" : 1]> g (x) => (y) { y = my.F(x) }
    ///     <domain: "my", opset_import: ["" : 21, "my" : 1]> F (x) => (y) { y = my.G(x) }
    ///     <domain: "my", opset_import: ["" : 21, "my" : 1]> G (x) => (y) { y = my.F(x) }
    /// "#)?;
    /// let err = Inliner::new().model(&mut model).unwrap_err();
    /// assert!(matches!(err, LibraryError::Recursion { .. }));
    /// assert_eq!(err.to_string(), "recursive function call `my.F` -> `my.G` -> `my.F` at \
    ///     graph \"g\" > node 0 (y = my.F) > function `my.F` > node 0 (y = my.G) > function `my.G` > node 0 (y = my.F)");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn model(&self, model: &mut ModelProto) -> Result<InlineReport, LibraryError> {
        let local = FunctionLibrary::from_model(model)?;
        self.check_selection(Some(&local))?;
        let mut work = model.clone();
        let mut names = NameGenerator::default();
        let mut take = |name: &mut String| names.take(name);
        for graph in model_graphs(&mut work) {
            graph_names(graph, &mut take);
        }
        for function in &mut work.functions {
            function_names(function, &mut take);
        }
        let mut lists: Vec<&[NodeProto]> =
            work.functions.iter().map(|f| f.node.as_slice()).collect();
        lists.extend(work.graph.iter().map(|g| g.node.as_slice()));
        for info in &work.training_info {
            let graphs = info.initialization.iter().chain(&info.algorithm);
            lists.extend(graphs.map(|g| g.node.as_slice()));
        }
        let node_names = node_name_generator(&lists);
        let imports = std::mem::take(&mut work.opset_import);
        let mut run = Run::new(self, Some(&local), [names, node_names], imports);
        for graph in model_graphs(&mut work) {
            run.graph(graph)?;
        }
        work.opset_import = std::mem::take(&mut run.imports);
        let mut functions = std::mem::take(&mut work.functions);
        // Functions that are not inlined stay; calls in their bodies are inlined.
        for function in &mut functions {
            let key = FunctionKey::of_function(function);
            if !self.selected(&key) {
                run.function(function, key)?;
            }
        }
        let mut graphs: Vec<&GraphProto> = Vec::new();
        if let Some(graph) = &work.graph {
            graphs.push(graph);
        }
        for info in &work.training_info {
            graphs.extend(info.initialization.iter().chain(&info.algorithm));
        }
        let called = called_functions(&graphs, &functions);
        let mut report = run.report;
        functions.retain(|f| {
            let key = FunctionKey::of_function(f);
            let keep = !self.selected(&key) || called.contains(&key);
            if !keep {
                report.removed.push(key);
            }
            keep
        });
        work.functions = functions;
        *model = work;
        Ok(report)
    }

    /// Inlines the calls of `graph` and its subgraphs, with the libraries only (a graph has no
    /// local functions); `opset_import` is the graph's context, into which the inlined
    /// functions' imports are merged. On error nothing is changed.
    ///
    /// ```
    /// use onnx_check::library::{FunctionLibrary, Inliner};
    /// let lib = FunctionLibrary::from_functions(onnx_syntax::parse_functions(
    ///     r#"<domain: "my", opset_import: ["" : 21, "ai.onnx.ml" : 5]> F (x) => (y) { y = ai.onnx.ml.Binarizer(x) }"#)?)?;
    /// let mut graph = onnx_syntax::parse_graph("g (x) => (y) { y = my.F(x) }")?;
    /// let mut imports = onnx_syntax::parse_model(r#"<opset_import: ["" : 21]> g () => () {}"#)?.opset_import;
    /// Inliner::new().library(&lib).graph(&mut graph, &mut imports)?;
    /// assert_eq!(imports.len(), 2); // ai.onnx.ml came with the body
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn graph(
        &self,
        graph: &mut GraphProto,
        opset_import: &mut Vec<OperatorSetIdProto>,
    ) -> Result<InlineReport, LibraryError> {
        self.check_selection(None)?;
        let mut work = graph.clone();
        let mut names = NameGenerator::default();
        graph_names(&mut work, &mut |name| names.take(name));
        let node_names = node_name_generator(&[&work.node]);
        let mut run = Run::new(self, None, [names, node_names], opset_import.clone());
        run.graph(&mut work)?;
        *opset_import = std::mem::take(&mut run.imports);
        *graph = work;
        Ok(run.report)
    }

    /// Inlines the calls in `function`'s body (and its subgraphs), with the libraries; the
    /// inlined functions' imports are merged into the function's. A call of the function itself
    /// is recursion. On error nothing is changed.
    ///
    /// ```
    /// use onnx_check::library::{FunctionLibrary, Inliner};
    /// let lib = FunctionLibrary::from_functions(onnx_syntax::parse_functions(
    ///     r#"<domain: "my", opset_import: ["" : 21]> Sq (x) => (y) { y = Mul(x, x) }"#)?)?;
    /// let mut quad = onnx_syntax::parse_function(
    ///     r#"<domain: "my", opset_import: ["" : 21, "my" : 1]> Quad (x) => (y) { s = my.Sq(x)  y = my.Sq(s) }"#)?;
    /// assert_eq!(Inliner::new().library(&lib).function(&mut quad)?.total(), 2);
    /// assert!(quad.node.iter().all(|n| n.op_type.as_deref() == Some("Mul")));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn function(&self, function: &mut FunctionProto) -> Result<InlineReport, LibraryError> {
        self.check_selection(None)?;
        let mut work = function.clone();
        let mut names = NameGenerator::default();
        function_names(&mut work, &mut |name| names.take(name));
        let node_names = node_name_generator(&[&work.node]);
        let mut run = Run::new(self, None, [names, node_names], Vec::new());
        let key = FunctionKey::of_function(&work);
        run.function(&mut work, key)?;
        *function = work;
        Ok(run.report)
    }

    /// True if calls of `key` are to be inlined, by the selection.
    fn selected(&self, key: &FunctionKey) -> bool {
        let name = (key.domain.clone(), key.name.clone());
        self.only.as_ref().is_none_or(|only| only.contains(&name)) && !self.except.contains(&name)
    }

    /// Every name in the selection must name a function, and every operator to expand must
    /// have a standard body.
    fn check_selection(&self, local: Option<&FunctionLibrary>) -> Result<(), LibraryError> {
        let defined: HashSet<(&str, &str)> = local
            .into_iter()
            .chain(self.libraries.iter().copied())
            .flat_map(|library| library.iter())
            .map(|f| {
                (
                    super::normalise_domain(f.domain.as_deref().unwrap_or("")),
                    f.name.as_deref().unwrap_or(""),
                )
            })
            .collect();
        for (domain, name) in self.only.iter().flatten().chain(&self.except) {
            if !defined.contains(&(domain.as_str(), name.as_str())) {
                let key = FunctionKey::new(domain, name, "");
                return Err(LibraryError::UnknownFunction(key.to_string()));
            }
        }
        for operator in &self.expand {
            if !STANDARD_FUNCTION_OPERATORS.contains(&operator.as_str()) {
                return Err(LibraryError::UnknownStandardOperator(operator.clone()));
            }
        }
        Ok(())
    }
}

fn selection_key(domain: &str, name: &str) -> (String, String) {
    (super::normalise_domain(domain).to_owned(), name.to_owned())
}

/// Inlines every model-local function and every function of `libraries` in `model`, as
/// [`Inliner::model`] does.
///
/// ```
/// let mut model = onnx_syntax::parse_model(r#"
///     <opset_import: ["" : 21, "my" : 1]> g (x) => (y) { y = my.F(x) }
///     <domain: "my", opset_import: ["" : 21]> F (x) => (y) { y = Abs(x) }
/// "#)?;
/// let report = onnx_check::library::inline(&mut model, &[])?;
/// assert_eq!(report.to_string(), "inlined 1 call of `my.F`\nremoved `my.F`\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn inline(
    model: &mut ModelProto,
    libraries: &[&FunctionLibrary],
) -> Result<InlineReport, LibraryError> {
    libraries
        .iter()
        .fold(Inliner::new(), |inliner, library| inliner.library(library))
        .model(model)
}

/// Copies into `model.functions` the functions of `library` that the model calls, directly or
/// through other functions, and are not there yet; merges their opset imports into the
/// model's. Returns the keys of the functions copied, in the order they were found. On error
/// the model is unchanged.
///
/// ```
/// use onnx_check::library::{FunctionLibrary, attach};
/// let lib = FunctionLibrary::from_functions(onnx_syntax::parse_functions(r#"
///     <domain: "my", opset_import: ["" : 21]> Sq (x) => (y) { y = Mul(x, x) }
///     <domain: "my", opset_import: ["" : 21, "my" : 1]> Quad (x) => (y) { s = my.Sq(x)  y = my.Sq(s) }
///     <domain: "my", opset_import: ["" : 21]> Unused (x) => (y) { y = Abs(x) }
/// "#)?)?;
/// let mut model = onnx_syntax::parse_model(r#"<opset_import: ["" : 21, "my" : 1]> g (x) => (y) { y = my.Quad(x) }"#)?;
/// let attached = attach(&mut model, &lib)?;
/// let names: Vec<_> = attached.iter().map(|k| k.to_string()).collect();
/// assert_eq!(names, ["my.Quad", "my.Sq"]);
/// assert_eq!(model.functions.len(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn attach(
    model: &mut ModelProto,
    library: &FunctionLibrary,
) -> Result<Vec<FunctionKey>, LibraryError> {
    let mut present: HashSet<FunctionKey> = model
        .functions
        .iter()
        .map(FunctionKey::of_function)
        .collect();
    let mut pending: Vec<FunctionKey> = Vec::new();
    let mut graphs: Vec<&GraphProto> = model.graph.iter().collect();
    for info in &model.training_info {
        graphs.extend(info.initialization.iter().chain(&info.algorithm));
    }
    for graph in graphs {
        for_each_node(&graph.node, &mut |node| {
            pending.push(FunctionKey::of_node(node))
        });
    }
    for function in &model.functions {
        for_each_node(&function.node, &mut |node| {
            pending.push(FunctionKey::of_node(node))
        });
    }
    pending.reverse(); // a stack: the first call found is attached first
    let mut imports = model.opset_import.clone();
    let mut attached = Vec::new();
    let mut functions = Vec::new();
    while let Some(key) = pending.pop() {
        if present.contains(&key) {
            continue;
        }
        let Some(function) = library.get(&key) else {
            continue;
        };
        present.insert(key.clone());
        merge_imports(&mut imports, &function.opset_import, None, &|| {
            format!("function `{key}`")
        })?;
        let mut calls = Vec::new();
        for_each_node(&function.node, &mut |node| {
            calls.push(FunctionKey::of_node(node))
        });
        pending.extend(calls.into_iter().rev());
        functions.push(function.clone());
        attached.push(key);
    }
    model.opset_import = imports;
    model.functions.extend(functions);
    Ok(attached)
}

/// What inlining did: how many calls of each function were inlined, and which local functions
/// were removed because nothing calls them any more.
///
/// ```
/// use onnx_check::library::{FunctionKey, Inliner};
/// let mut model = onnx_syntax::parse_model(r#"
///     <opset_import: ["" : 21, "my" : 1]> g (x) => (y) { t = my.F(x)  y = my.F(t) }
///     <domain: "my", opset_import: ["" : 21]> F (x) => (y) { y = Abs(x) }
/// "#)?;
/// let report = Inliner::new().model(&mut model)?;
/// assert_eq!(report.calls(&FunctionKey::new("my", "F", "")), 2);
/// assert_eq!(report.removed(), [FunctionKey::new("my", "F", "")]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InlineReport {
    calls: BTreeMap<FunctionKey, usize>,
    removed: Vec<FunctionKey>,
}

impl InlineReport {
    /// How many calls of `key` were inlined (nested calls count once per expansion).
    ///
    /// ```
    /// let report = onnx_check::library::InlineReport::default();
    /// assert_eq!(report.calls(&onnx_check::library::FunctionKey::new("", "F", "")), 0);
    /// ```
    pub fn calls(&self, key: &FunctionKey) -> usize {
        self.calls.get(key).copied().unwrap_or(0)
    }

    /// The functions inlined and their numbers of calls, ordered by key.
    ///
    /// ```
    /// assert_eq!(onnx_check::library::InlineReport::default().iter().count(), 0);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = (&FunctionKey, usize)> {
        self.calls.iter().map(|(key, &n)| (key, n))
    }

    /// How many calls were inlined in all.
    ///
    /// ```
    /// assert_eq!(onnx_check::library::InlineReport::default().total(), 0);
    /// ```
    pub fn total(&self) -> usize {
        self.calls.values().sum()
    }

    /// The local functions removed from the model, in the model's order.
    ///
    /// ```
    /// assert!(onnx_check::library::InlineReport::default().removed().is_empty());
    /// ```
    pub fn removed(&self) -> &[FunctionKey] {
        &self.removed
    }
}

impl fmt::Display for InlineReport {
    /// One line per function inlined, then one per function removed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (key, n) in self.iter() {
            let s = if n == 1 { "" } else { "s" };
            writeln!(f, "inlined {n} call{s} of `{key}`")?;
        }
        for key in &self.removed {
            writeln!(f, "removed `{key}`")?;
        }
        Ok(())
    }
}

/// A model's graphs: the main graph and the training graphs.
fn model_graphs(model: &mut ModelProto) -> impl Iterator<Item = &mut GraphProto> {
    model.graph.iter_mut().chain(
        model
            .training_info
            .iter_mut()
            .flat_map(|info| info.initialization.iter_mut().chain(&mut info.algorithm)),
    )
}

/// Calls `f` on every name of `function`: inputs, outputs, value infos, and its nodes' names.
fn function_names(function: &mut FunctionProto, f: &mut impl FnMut(&mut String)) {
    for name in function.input.iter_mut().chain(&mut function.output) {
        f(name);
    }
    for info in &mut function.value_info {
        if let Some(name) = &mut info.name {
            f(name);
        }
    }
    for node in &mut function.node {
        node_names(node, f);
    }
}

/// A generator of node names that knows every node name of `lists`, subgraphs included.
fn node_name_generator(lists: &[&[NodeProto]]) -> NameGenerator {
    let mut names = NameGenerator::default();
    for nodes in lists {
        for_each_node(nodes, &mut |node| {
            if let Some(name) = node.name.as_deref().filter(|n| !n.is_empty()) {
                names.take(name);
            }
        });
    }
    names
}

/// Calls `f` on every node of `nodes` and of their subgraphs, at any depth.
fn for_each_node(nodes: &[NodeProto], f: &mut impl FnMut(&NodeProto)) {
    for node in nodes {
        f(node);
        for attribute in &node.attribute {
            for graph in attribute.g.iter().map(|g| &**g).chain(&attribute.graphs) {
                for_each_node(&graph.node, f);
            }
        }
    }
}

/// The keys of `functions` that `graphs` call, directly or through those functions.
fn called_functions(graphs: &[&GraphProto], functions: &[FunctionProto]) -> HashSet<FunctionKey> {
    let bodies: HashMap<FunctionKey, &FunctionProto> = functions
        .iter()
        .map(|f| (FunctionKey::of_function(f), f))
        .collect();
    let mut pending = Vec::new();
    for graph in graphs {
        for_each_node(&graph.node, &mut |node| {
            pending.push(FunctionKey::of_node(node))
        });
    }
    let mut called = HashSet::new();
    while let Some(key) = pending.pop() {
        if let Some(body) = bodies.get(&key)
            && called.insert(key)
        {
            for_each_node(&body.node, &mut |node| {
                pending.push(FunctionKey::of_node(node))
            });
        }
    }
    called
}

/// What a call resolves to.
struct Callee<'f> {
    key: FunctionKey,
    function: &'f FunctionProto,
    /// A standard operator's body: its default-domain import is the caller's.
    standard: bool,
}

/// One inlining run over one target (a model, a graph or a function).
struct Run<'r> {
    inliner: &'r Inliner<'r>,
    /// The model's local functions, then the inliner's libraries.
    libraries: Vec<&'r FunctionLibrary>,
    names: NameGenerator,
    node_names: NameGenerator,
    /// The imports of the target being inlined into.
    imports: Vec<OperatorSetIdProto>,
    /// The functions being expanded, outermost first.
    stack: Vec<FunctionKey>,
    report: InlineReport,
    /// The value infos of the bodies inlined into the graph being processed.
    value_info: Vec<ValueInfoProto>,
    nodes_made: usize,
    /// Where the node being processed is, outermost first.
    path: Vec<String>,
}

impl<'r> Run<'r> {
    fn new(
        inliner: &'r Inliner<'r>,
        local: Option<&'r FunctionLibrary>,
        [names, node_names]: [NameGenerator; 2],
        imports: Vec<OperatorSetIdProto>,
    ) -> Run<'r> {
        Run {
            inliner,
            libraries: local
                .into_iter()
                .chain(inliner.libraries.iter().copied())
                .collect(),
            names,
            node_names,
            imports,
            stack: Vec::new(),
            report: InlineReport::default(),
            value_info: Vec::new(),
            nodes_made: 0,
            path: Vec::new(),
        }
    }

    fn at(&self) -> String {
        self.path.join(" > ")
    }

    /// Inlines the calls of `graph`; the inlined bodies' value infos join the graph's.
    fn graph(&mut self, graph: &mut GraphProto) -> Result<(), LibraryError> {
        self.path
            .push(format!("graph \"{}\"", graph.name.as_deref().unwrap_or("")));
        let outer_value_info = std::mem::take(&mut self.value_info);
        let nodes = std::mem::take(&mut graph.node);
        graph.node = self.nodes(nodes)?;
        graph.value_info.append(&mut self.value_info);
        self.value_info = outer_value_info;
        self.path.pop();
        Ok(())
    }

    /// Inlines the calls in the body of `function` (known as `key`), into its own imports.
    fn function(
        &mut self,
        function: &mut FunctionProto,
        key: FunctionKey,
    ) -> Result<(), LibraryError> {
        self.path.push(format!("function `{key}`"));
        std::mem::swap(&mut self.imports, &mut function.opset_import);
        self.stack.push(key);
        let outer_value_info = std::mem::take(&mut self.value_info);
        let nodes = std::mem::take(&mut function.node);
        let result = self.nodes(nodes);
        self.stack.pop();
        std::mem::swap(&mut self.imports, &mut function.opset_import);
        function.node = result?;
        function.value_info.append(&mut self.value_info);
        self.value_info = outer_value_info;
        self.path.pop();
        Ok(())
    }

    /// `nodes` with every call inlined, in order.
    fn nodes(&mut self, nodes: Vec<NodeProto>) -> Result<Vec<NodeProto>, LibraryError> {
        let mut out = Vec::with_capacity(nodes.len());
        for (i, mut node) in nodes.into_iter().enumerate() {
            self.path.push(describe_node(i, &node));
            for attribute in &mut node.attribute {
                self.path.push(format!(
                    "attribute `{}`",
                    attribute.name.as_deref().unwrap_or("")
                ));
                for graph in attribute
                    .g
                    .iter_mut()
                    .map(|g| &mut **g)
                    .chain(&mut attribute.graphs)
                {
                    self.graph(graph)?;
                }
                self.path.pop();
            }
            match self.resolve(&node)? {
                Some(callee) => {
                    let body = self.expand_call(&node, callee)?;
                    out.extend(body);
                }
                None => out.push(node),
            }
            self.path.pop();
        }
        Ok(out)
    }

    /// The function `node` calls, if it is to be inlined.
    fn resolve(&self, node: &NodeProto) -> Result<Option<Callee<'r>>, LibraryError> {
        let key = FunctionKey::of_node(node);
        if key.domain.is_empty()
            && key.overload.is_empty()
            && self.inliner.expand.contains(&key.name)
        {
            let opset = imported_version(&self.imports, "");
            return match opset.and_then(|v| standard_function(&key.name, v)) {
                Some(function) => Ok(Some(Callee {
                    key,
                    function,
                    standard: true,
                })),
                None => Err(LibraryError::NoStandardBody {
                    operator: key.name,
                    opset,
                    at: self.at(),
                }),
            };
        }
        if !self.inliner.selected(&key) {
            return Ok(None);
        }
        let libraries = &self.libraries;
        Ok(libraries.iter().find_map(|library| {
            library.get(&key).map(|function| Callee {
                key: key.clone(),
                function,
                standard: false,
            })
        }))
    }

    /// The nodes that replace the call `call` of `callee`, with their own calls inlined.
    fn expand_call(
        &mut self,
        call: &NodeProto,
        callee: Callee<'r>,
    ) -> Result<Vec<NodeProto>, LibraryError> {
        let Callee {
            key,
            function,
            standard,
        } = callee;
        if let Some(first) = self.stack.iter().position(|k| *k == key) {
            let mut chain = self.stack[first..].to_vec();
            chain.push(key);
            return Err(LibraryError::Recursion {
                chain,
                at: self.at(),
            });
        }
        for (what, given, declared) in [
            (Operands::Inputs, call.input.len(), function.input.len()),
            (Operands::Outputs, call.output.len(), function.output.len()),
        ] {
            if given > declared {
                return Err(LibraryError::Arity {
                    function: key,
                    what,
                    declared,
                    given,
                    at: self.at(),
                });
            }
        }
        let at = self.at();
        merge_imports(
            &mut self.imports,
            &function.opset_import,
            standard.then_some(""),
            &|| format!("function `{key}` (called at {at})"),
        )?;

        // Formal names bound to actual ones; an input bound twice takes the first binding.
        let mut binding: HashMap<String, String> = HashMap::new();
        for (i, formal) in function.input.iter().enumerate() {
            let actual = call.input.get(i).cloned().unwrap_or_default();
            binding.entry(formal.clone()).or_insert(actual);
        }
        let produced: HashSet<&str> = function
            .node
            .iter()
            .flat_map(|n| n.output.iter().map(String::as_str))
            .collect();
        let prefix = key.name.clone();
        let mut outputs = Vec::with_capacity(function.output.len());
        for (i, formal) in function.output.iter().enumerate() {
            let actual = match call.output.get(i).filter(|name| !name.is_empty()) {
                Some(name) => name.clone(),
                None => self.names.fresh(&prefix, formal),
            };
            if !produced.contains(formal.as_str()) && !binding.contains_key(formal) {
                return Err(LibraryError::UnproducedOutput {
                    function: key,
                    output: formal.clone(),
                    at,
                });
            }
            outputs.push((formal, actual));
        }
        let mut passthrough = Vec::new();
        for (formal, actual) in outputs {
            if produced.contains(formal.as_str()) {
                binding.entry(formal.clone()).or_insert(actual);
            } else {
                // An output that is an input of the function: copy it.
                passthrough.push(NodeProto {
                    input: vec![binding[formal].clone()],
                    output: vec![actual],
                    op_type: Some("Identity".to_owned()),
                    domain: Some(String::new()),
                    ..Default::default()
                });
            }
        }

        self.nodes_made += function.node.len() + passthrough.len();
        if self.nodes_made > self.inliner.max_nodes {
            return Err(LibraryError::TooLarge {
                limit: self.inliner.max_nodes,
                at,
            });
        }
        let names = &mut self.names;
        let mut fresh = |base: &str| names.fresh(&prefix, base);
        let mut scopes = Scopes::new(binding, &mut fresh);
        let mut body = function.node.clone();
        for node in &mut body {
            scopes.rename_node(node);
            bind_attributes(&mut node.attribute, &call.attribute, function);
        }
        // The body's value infos of its own values (not of the formals, which are the caller's).
        for info in &function.value_info {
            let Some(name) = info.name.as_deref() else {
                continue;
            };
            if function
                .input
                .iter()
                .chain(&function.output)
                .any(|f| f == name)
            {
                continue;
            }
            let mut info = info.clone();
            if let Some(name) = &mut info.name {
                scopes.rename(name);
            }
            self.value_info.push(info);
        }
        drop(scopes);
        for node in &mut body {
            if let Some(name) = node.name.as_mut().filter(|name| !name.is_empty()) {
                *name = self.node_names.fresh(&prefix, name);
            }
        }
        body.extend(passthrough);

        self.stack.push(key.clone());
        self.path.push(format!("function `{key}`"));
        let body = self.nodes(body)?;
        self.path.pop();
        self.stack.pop();
        *self.report.calls.entry(key).or_insert(0) += 1;
        Ok(body)
    }
}

/// Replaces each attribute reference in `attributes` (and in their subgraphs) by the caller's
/// attribute of that name, or else the function's default, or else drops it.
fn bind_attributes(
    attributes: &mut Vec<AttributeProto>,
    call: &[AttributeProto],
    function: &FunctionProto,
) {
    attributes.retain_mut(|attribute| {
        match attribute.ref_attr_name.as_deref().filter(|r| !r.is_empty()) {
            Some(reference) => {
                let named = |a: &&AttributeProto| a.name.as_deref() == Some(reference);
                let value = call
                    .iter()
                    .find(named)
                    .or_else(|| function.attribute_proto.iter().find(named));
                match value {
                    Some(value) => {
                        let name = attribute.name.take();
                        *attribute = value.clone();
                        attribute.name = name;
                        true
                    }
                    None => false,
                }
            }
            None => {
                for graph in attribute
                    .g
                    .iter_mut()
                    .map(|g| &mut **g)
                    .chain(&mut attribute.graphs)
                {
                    for node in &mut graph.node {
                        bind_attributes(&mut node.attribute, call, function);
                    }
                }
                true
            }
        }
    });
}

/// `node i (y = domain.Op)`: where a node is, for error messages.
fn describe_node(index: usize, node: &NodeProto) -> String {
    let output = node.output.first().map_or("", String::as_str);
    let domain = node.domain.as_deref().unwrap_or("");
    let op = node.op_type.as_deref().unwrap_or("");
    if domain.is_empty() {
        format!("node {index} ({output} = {op})")
    } else {
        format!("node {index} ({output} = {domain}.{op})")
    }
}
