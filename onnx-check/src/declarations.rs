//! Declarations: calls to local functions, attribute references (`@name`) and duplicate
//! attributes of nodes and functions. Imported domains are in [`imports`](super::imports).

use std::collections::hash_map::Entry;

use onnx_runtime_types::FunctionProto;

use super::imports::Imports;
use super::{Check, Checker, Diagnostic, Libraries};
use onnx_schema::similar::closest;
use onnx_syntax::Span;
use onnx_syntax::diagnostic::message::{backticks, list, operator};
use onnx_syntax::domain::{self, canonical as canonical_domain};
use onnx_syntax::hash::{HashMap, HashSet, RandomKey};
use onnx_syntax::hole::is_marker;
use onnx_syntax::syntax::{Function, FunctionHeaderValue, Name, Node, OpsetImport};

/// The state of the declaration checks.
pub(super) struct Declarations<'t> {
    /// The imports that apply, if known.
    pub imports: Option<Imports<'t>>,
    /// The local functions, if known.
    pub locals: Option<LocalFunctions<'t>>,
    /// Where `@ref` may appear and what it may name.
    pub refs: RefContext<'t>,
}

impl Default for Declarations<'_> {
    fn default() -> Self {
        Declarations {
            imports: None,
            locals: None,
            refs: RefContext::Unknown,
        }
    }
}

/// The function a call resolves to: one written in the text, or one of a library in view.
#[derive(Clone, Copy, Debug)]
pub(super) enum Callee<'t> {
    /// A function of the text (a model's, or a library's being checked).
    Local(&'t Function),
    /// A function of the library named `library` (as the macro literal names it).
    Library {
        function: &'t FunctionProto,
        library: &'t str,
    },
}

impl<'t> Callee<'t> {
    /// The library the function comes from, if it is not the text's own.
    pub fn library(self) -> Option<&'t str> {
        match self {
            Callee::Local(_) => None,
            Callee::Library { library, .. } => Some(library),
        }
    }
}

/// A function's name, overload and library (`None` for the text's own), as messages list it.
type Listed<'t> = (&'t str, &'t str, Option<&'t str>);

/// The functions that calls may resolve to: the text's own, then those of the libraries in
/// view (a function of the text hides a library's with the same key).
pub(super) struct LocalFunctions<'t> {
    /// (domain, name, overload), the domain normalized, to the function (the first, if two
    /// share a key).
    keys: HashMap<(&'t str, &'t str, &'t str), Callee<'t>>,
    /// The functions of each non-standard domain.
    by_domain: HashMap<&'t str, Vec<Listed<'t>>>,
    /// Functions are spliced in from Rust (`..#library`): a call may resolve to one of them.
    open: bool,
}

impl<'t> LocalFunctions<'t> {
    pub fn new(functions: &'t [Function], libraries: &Libraries<'t>) -> LocalFunctions<'t> {
        let mut keys = HashMap::with_capacity_and_hasher(functions.len(), RandomKey::default());
        let mut by_domain: HashMap<&str, Vec<_>> = HashMap::default();
        let mut open = false;
        for function in functions {
            open |= is_marker(&function.name.text);
            let (mut domain, mut overload) = ("", "");
            for entry in &function.header {
                match &entry.value {
                    FunctionHeaderValue::Domain(d) => domain = canonical_domain(d),
                    FunctionHeaderValue::Overload(o) => overload = o,
                    _ => {}
                }
            }
            let name = function.name.text.as_str();
            keys.entry((domain, name, overload))
                .or_insert(Callee::Local(function));
            if !domain::STANDARD.contains(&domain) {
                by_domain
                    .entry(domain)
                    .or_default()
                    .push((name, overload, None));
            }
        }
        for &(library, functions) in libraries {
            for function in functions {
                let domain = canonical_domain(function.domain.as_deref().unwrap_or(""));
                let name = function.name.as_deref().unwrap_or("");
                let overload = function.overload.as_deref().unwrap_or("");
                keys.entry((domain, name, overload))
                    .or_insert(Callee::Library { function, library });
                if !domain::STANDARD.contains(&domain) {
                    let listed = (name, overload, Some(library));
                    by_domain.entry(domain).or_default().push(listed);
                }
            }
        }
        LocalFunctions {
            keys,
            by_domain,
            open,
        }
    }

    /// The function a node calls, if it names one of these.
    pub fn called_by(&self, node: &Node) -> Option<Callee<'t>> {
        if self.keys.is_empty() {
            return None;
        }
        let key = (
            canonical_domain(&node.domain),
            node.op_type.as_str(),
            overload(node),
        );
        self.keys.get(&key).copied()
    }
}

/// A function's name in a message, with the library it comes from: `` `F` `` or
/// `` `F` (library `acme::OPS`) ``.
fn listed(name: &str, library: Option<&str>) -> String {
    match library {
        None => format!("`{name}`"),
        Some(library) => format!("`{name}` (library `{library}`)"),
    }
}

/// The overload a node names, `""` for none (as a function without `overload` has).
fn overload(node: &Node) -> &str {
    node.overload.as_ref().map_or("", |o| o.text.as_str())
}

/// Where an `@ref` is being checked.
pub(super) enum RefContext<'t> {
    /// A node or node list on its own: it may be a function body, so nothing is checked.
    Unknown,
    /// A graph, outside any function: references are invalid.
    Forbidden,
    /// The default value of a function attribute: references are invalid.
    Default,
    /// The body of a function, with its attribute names.
    Function {
        function: &'t Function,
        attributes: HashSet<&'t str>,
    },
}

impl<'t> Checker<'t> {
    /// A library in view provides each of its domains at one version
    /// ([`FunctionLibrary::provided_domains`](crate::library::FunctionLibrary::provided_domains)):
    /// a model importing the domain at another version calls functions that are not there.
    pub(super) fn library_versions(
        &mut self,
        imports: &[&'t OpsetImport],
        libraries: &Libraries<'t>,
    ) {
        if !self.on(Check::UnresolvedFunction) {
            return;
        }
        // Each domain's entry as nodes resolve it, kept whole for its span.
        let entries = domain::Imports::new(imports.iter().map(|&i| (i.domain.as_str(), i)));
        for &(library, functions) in libraries {
            for (domain, version) in functions.provided_domains() {
                let entry = entries.get(&domain);
                let Some(entry) = entry.filter(|e| e.version_hole.is_none()) else {
                    continue;
                };
                if entry.version != version {
                    let message = format!(
                        "library `{library}` provides domain {domain:?} at version {version}, \
                         but the model imports version {}",
                        entry.version
                    );
                    self.report(Diagnostic::new(
                        Check::UnresolvedFunction,
                        entry.span,
                        message,
                    ));
                }
            }
        }
    }

    /// The function a node calls, if the local functions are known and it names one.
    pub(super) fn called_function(&self, node: &Node) -> Option<Callee<'t>> {
        self.declarations.locals.as_ref()?.called_by(node)
    }

    /// A node in the domain of a local (or library) function must call one of them; `called`
    /// is the one it calls, if any.
    pub(super) fn local_call(&mut self, node: &'t Node, called: Option<Callee<'t>>) {
        if called.is_some() || !self.on(Check::UnresolvedFunction) {
            return;
        }
        let Some(locals) = self
            .declarations
            .locals
            .as_ref()
            .filter(|locals| !locals.open && !locals.by_domain.is_empty())
        else {
            return;
        };
        let domain = canonical_domain(&node.domain);
        let Some(defined) = locals.by_domain.get(domain) else {
            return;
        };
        let overload = overload(node);
        let op = operator(node);
        let overloads = || {
            defined
                .iter()
                .filter(|(name, ..)| *name == node.op_type)
                .map(|&(_, overload, _)| overload)
        };
        let message = if overloads().next().is_none() {
            let names = defined.iter().map(|(name, ..)| *name);
            // Names of one or two letters are all within an edit of each other: no suggestion.
            let close = (node.op_type.len() > 2).then(|| closest(&node.op_type, names));
            let rest = match close.flatten() {
                Some(close) => {
                    let library = defined.iter().find(|(name, ..)| *name == close);
                    let shown = listed(close, library.and_then(|&(.., library)| library));
                    format!("did you mean {shown}?")
                }
                None => {
                    let all = defined
                        .iter()
                        .map(|&(name, _, library)| listed(name, library));
                    let all: Vec<String> = all.collect();
                    let all = list(all.iter().map(String::as_str), str::to_owned);
                    format!("the functions there are {all}")
                }
            };
            format!(
                "no function `{op}` is defined in domain {:?}; {rest}",
                node.domain
            )
        } else if overload.is_empty() {
            let first = overloads().next().unwrap_or_default();
            format!(
                "function `{op}` is defined only with overloads {}: name one, as in `{op}:{first}`",
                list(overloads(), backticks)
            )
        } else {
            let shown = |o: &str| {
                if o.is_empty() {
                    "none".to_owned()
                } else {
                    backticks(o)
                }
            };
            format!(
                "function `{op}` has no overload `{overload}`; its overloads are {}",
                list(overloads(), shown)
            )
        };
        let span = match &node.overload {
            Some(overload) => node.op_span.to(overload.span),
            None => node.op_span,
        };
        self.report(Diagnostic::new(Check::UnresolvedFunction, span, message));
    }

    /// `@name` must be in a function body and name one of its attributes.
    pub(super) fn attribute_ref(&mut self, name: &'t Name) {
        if !self.on(Check::InvalidAttributeRef) {
            return;
        }
        // Point at `@name` when the `@` is right before the name.
        let at = name.span.start.saturating_sub(1);
        let span = if self.source.as_bytes().get(at as usize) == Some(&b'@') {
            Span::new(at, name.span.end)
        } else {
            name.span
        };
        let message = match &self.declarations.refs {
            RefContext::Unknown => return,
            RefContext::Forbidden => format!(
                "attribute reference `@{}` outside a function body: only the nodes of a function \
                 can refer to its attributes",
                name.text
            ),
            RefContext::Default => format!(
                "the default value of a function attribute cannot be a reference, found `@{}`",
                name.text
            ),
            RefContext::Function {
                function,
                attributes,
            } => {
                if attributes.contains(name.text.as_str()) {
                    return;
                }
                let declared = function.attributes.iter().map(|a| a.name().text.as_str());
                if attributes.is_empty() {
                    format!(
                        "`@{}` names no attribute of function `{}`, which has no attributes",
                        name.text, function.name.text
                    )
                } else {
                    format!(
                        "`@{}` names no attribute of function `{}`; its attributes are {}",
                        name.text,
                        function.name.text,
                        list(declared, backticks)
                    )
                }
            }
        };
        self.report(Diagnostic::new(Check::InvalidAttributeRef, span, message));
    }

    /// Reports each name that repeats an earlier one of `names`, e.g. the attributes of a node.
    /// Short lists (the usual case) are compared pairwise, without allocating.
    pub(super) fn duplicate_names(
        &mut self,
        names: impl Iterator<Item = &'t Name> + Clone,
        owner: &str,
        verb: &str,
    ) {
        const SHORT: usize = 8;
        let count = names.clone().count();
        if count < 2 {
            return;
        }
        let mut seen: HashMap<&str, Span> = HashMap::default();
        for (index, name) in names.clone().enumerate() {
            let first = if count <= SHORT {
                names
                    .clone()
                    .take(index)
                    .find(|earlier| earlier.text == name.text)
                    .map(|earlier| earlier.span)
            } else {
                match seen.entry(name.text.as_str()) {
                    Entry::Occupied(entry) => Some(*entry.get()),
                    Entry::Vacant(entry) => {
                        entry.insert(name.span);
                        None
                    }
                }
            };
            if let Some(first) = first {
                let diagnostic = Diagnostic::new(
                    Check::DuplicateAttribute,
                    name.span,
                    format!("attribute `{}` is already {verb} {owner}", name.text),
                )
                .with_label(first, format!("first {verb} here"));
                self.report(diagnostic);
            }
        }
    }
}
