//! Declarations: imported domains, calls to local functions, attribute references.
//! (Duplicate attributes are in the parent module, shared by nodes and functions.)

use crate::hole::is_marker;
use std::collections::hash_map::Entry;

use super::hash::{HashMap, HashSet, RandomKey};
use super::schema::{Operators, operators};
use super::{Check, Checker, Diagnostic};
use crate::span::Span;
use crate::syntax::{Function, FunctionAttribute, FunctionHeaderValue, Name, Node, OpsetImport};

/// The domains that onnx itself defines operators in: nodes there may be standard operators, so
/// a local function in one of them does not make the other names unresolved.
const STANDARD_DOMAINS: [&str; 5] = [
    "",
    "ai.onnx",
    "ai.onnx.ml",
    "ai.onnx.preview",
    "ai.onnx.preview.training",
];

/// At most this many names are listed in a message.
const LIST_LIMIT: usize = 8;

/// `ai.onnx` and `""` name the same domain.
fn normalize(domain: &str) -> &str {
    if domain == "ai.onnx" { "" } else { domain }
}

/// `` `a`, `b` `` (deduplicated, at most [`LIST_LIMIT`], then `…`), with `quote` around each.
pub(super) fn list<'a>(items: impl Iterator<Item = &'a str>, quote: fn(&str) -> String) -> String {
    let mut seen = HashSet::default();
    let mut shown = Vec::new();
    let mut more = false;
    for item in items {
        if seen.insert(item) {
            if shown.len() == LIST_LIMIT {
                more = true;
                break;
            }
            shown.push(quote(item));
        }
    }
    if more {
        shown.push("…".to_owned());
    }
    shown.join(", ")
}

pub(super) fn backticks(item: &str) -> String {
    format!("`{item}`")
}

fn quoted(item: &str) -> String {
    format!("{item:?}")
}

/// How a node's operator reads in a message: `domain.Op`, or `Op` in the default domain.
pub(super) fn operator(node: &Node) -> String {
    if node.domain.is_empty() {
        node.op_type.clone()
    } else {
        format!("{}.{}", node.domain, node.op_type)
    }
}

/// What the imports say about a domain that nodes name.
#[derive(Clone, Copy)]
pub(super) struct Import {
    /// The imported version.
    pub version: i64,
    /// The version is a hole (`"" : #v`): the checks that depend on it wait for its value.
    pub deferred: bool,
    /// The operators of a standard domain.
    pub operators: Option<&'static Operators>,
}

/// The imports that apply to the nodes being checked, and the domains found missing so far.
pub(super) struct Imports<'t> {
    listed: Vec<&'t str>,
    /// The import of each domain as nodes may write it: the last entry of a domain wins, as in
    /// onnx's checker, and `""` and `ai.onnx` stand for each other when only one is listed. A node
    /// needs one lookup here for both its domain check and its schema.
    imports: HashMap<&'t str, Import>,
    /// Who imports: "the model", "function `F`".
    owner: String,
    missing: Vec<(&'t Node, usize)>,
    index: HashMap<&'t str, usize>,
}

impl<'t> Imports<'t> {
    pub fn new(entries: Vec<&'t OpsetImport>, owner: String) -> Imports<'t> {
        let listed: Vec<&str> = entries.iter().map(|i| i.domain.as_str()).collect();
        let import = |domain: &str, version, deferred| Import {
            version,
            deferred,
            operators: operators(domain),
        };
        let mut imports: HashMap<&str, Import> = entries
            .iter()
            .map(|i| {
                let deferred = i.version_hole.is_some();
                (i.domain.as_str(), import(&i.domain, i.version, deferred))
            })
            .collect();
        for (name, other) in [("", "ai.onnx"), ("ai.onnx", "")] {
            if !imports.contains_key(name)
                && let Some(&Import {
                    version, deferred, ..
                }) = imports.get(other)
            {
                imports.insert(name, import(name, version, deferred));
            }
        }
        Imports {
            listed,
            imports,
            owner,
            missing: Vec::new(),
            index: HashMap::default(),
        }
    }
}

impl Imports<'_> {
    /// Who imports: "the model", "function `F`".
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// The import of `domain`: its own entry, else that of its other name when it is the default
    /// domain (`""` and `ai.onnx`, as onnx's checker resolves them).
    pub fn get(&self, domain: &str) -> Option<Import> {
        self.imports.get(domain).copied()
    }
}

/// The local functions that calls may resolve to.
pub(super) struct LocalFunctions<'t> {
    /// (domain, name, overload), the domain normalized, to the function (the first, if two
    /// share a key).
    keys: HashMap<(&'t str, &'t str, &'t str), &'t Function>,
    /// The (name, overload) pairs of each non-standard domain.
    by_domain: HashMap<&'t str, Vec<(&'t str, &'t str)>>,
    /// Functions are spliced in from Rust (`..#library`): a call may resolve to one of them.
    open: bool,
}

impl<'t> LocalFunctions<'t> {
    pub fn new(functions: &'t [Function]) -> LocalFunctions<'t> {
        let mut keys = HashMap::with_capacity_and_hasher(functions.len(), RandomKey::default());
        let mut by_domain: HashMap<&str, Vec<_>> = HashMap::default();
        let mut open = false;
        for function in functions {
            open |= is_marker(&function.name.text);
            let (mut domain, mut overload) = ("", "");
            for entry in &function.header {
                match &entry.value {
                    FunctionHeaderValue::Domain(d) => domain = normalize(d),
                    FunctionHeaderValue::Overload(o) => overload = o,
                    _ => {}
                }
            }
            let name = function.name.text.as_str();
            keys.entry((domain, name, overload)).or_insert(function);
            if !STANDARD_DOMAINS.contains(&domain) {
                by_domain.entry(domain).or_default().push((name, overload));
            }
        }
        LocalFunctions {
            keys,
            by_domain,
            open,
        }
    }

    /// The function a node calls, if it names one of these.
    pub fn called_by(&self, node: &Node) -> Option<&'t Function> {
        if self.keys.is_empty() {
            return None;
        }
        let overload = node.overload.as_ref().map_or("", |o| o.text.as_str());
        let key = (normalize(&node.domain), node.op_type.as_str(), overload);
        self.keys.get(&key).copied()
    }
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
    /// The import of the node's domain, where the imports are known; the domain must be imported.
    /// Each missing domain is reported once, at its first node, by [`Checker::finish_imports`].
    pub(super) fn domain(&mut self, node: &'t Node) -> Option<Import> {
        let check = self.on(Check::UndeclaredDomain);
        let imports = self.imports.as_mut()?;
        let import = imports.get(&node.domain);
        if import.is_some() || !check {
            return import;
        }
        match imports.index.entry(normalize(&node.domain)) {
            Entry::Occupied(entry) => imports.missing[*entry.get()].1 += 1,
            Entry::Vacant(entry) => {
                entry.insert(imports.missing.len());
                imports.missing.push((node, 1));
            }
        }
        None
    }

    /// Reports the domains found missing from the current imports, and forgets the imports.
    pub(super) fn finish_imports(&mut self) {
        let Some(imports) = self.imports.take() else {
            return;
        };
        for (node, count) in imports.missing {
            let have = if imports.listed.is_empty() {
                "is empty".to_owned()
            } else {
                format!("has {}", list(imports.listed.iter().copied(), quoted))
            };
            let others = match count {
                1 => String::new(),
                2 => " (1 more node uses it)".to_owned(),
                n => format!(" ({} more nodes use it)", n - 1),
            };
            self.report(Diagnostic::new(
                Check::UndeclaredDomain,
                node.op_span,
                format!(
                    "operator `{}` is in domain {:?}, which {} does not import: its opset_import {have}{others}",
                    operator(node),
                    node.domain,
                    imports.owner
                ),
            ));
        }
    }

    /// A node in the domain of a local function must call one of them.
    pub(super) fn local_call(&mut self, node: &'t Node) {
        if !self.on(Check::UnresolvedFunction) {
            return;
        }
        let Some(locals) = self.locals.as_ref().filter(|locals| !locals.open) else {
            return;
        };
        let domain = normalize(&node.domain);
        let Some(defined) = locals.by_domain.get(domain) else {
            return;
        };
        let overload = node.overload.as_ref().map_or("", |o| o.text.as_str());
        if locals.called_by(node).is_some() {
            return;
        }
        let op = operator(node);
        let overloads = || {
            defined
                .iter()
                .filter(|(name, _)| *name == node.op_type)
                .map(|(_, overload)| *overload)
        };
        let message = if overloads().next().is_none() {
            format!(
                "no function `{op}` is defined in domain {:?}; the functions there are {}",
                node.domain,
                list(defined.iter().map(|(name, _)| *name), backticks)
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
        let message = match &self.refs {
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
                let declared = function.attributes.iter().map(|entry| match entry {
                    FunctionAttribute::Name(name) => name.text.as_str(),
                    FunctionAttribute::Proto(attr) => attr.name.text.as_str(),
                });
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
}
