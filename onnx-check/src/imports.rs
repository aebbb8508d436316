//! Imports: which domains, at which versions, the nodes being checked may use; and the
//! `undeclared_domain` check of each node's domain against them.

use std::collections::hash_map::Entry;

use super::{Check, Checker, Diagnostic, Edit, Fix};
use onnx_syntax::Span;
use onnx_syntax::diagnostic::message::{list, operator, quoted};
use onnx_syntax::domain;
use onnx_syntax::hash::HashMap;
use onnx_syntax::syntax::{
    Function, FunctionHeaderValue, Model, ModelHeaderValue, Node, OpsetImport,
};

/// What the imports say about a domain that nodes name.
#[derive(Clone, Copy)]
pub(super) struct Import {
    /// The imported version.
    pub version: i64,
    /// The version is a hole (`"" : #v`): the checks that depend on it wait for its value.
    pub deferred: bool,
}

/// The imports that apply to the nodes being checked, and the domains found missing so far.
pub(super) struct Imports<'t> {
    listed: Vec<&'t str>,
    /// The import of each domain as nodes may write it. A node needs one lookup here for both
    /// its domain check and its schema.
    imports: domain::Imports<'t, Import>,
    /// The import of the default domain (`""`), which nearly every node names: without a lookup.
    default: Option<Import>,
    /// Who imports: "the model", "function `F`".
    owner: String,
    /// Where the last entry of the list ends: a fix writes a missing import after it.
    end: Option<u32>,
    missing: Vec<(&'t Node, usize)>,
    index: HashMap<&'t str, usize>,
}

impl<'t> Imports<'t> {
    pub fn new(entries: Vec<&'t OpsetImport>, owner: String) -> Imports<'t> {
        let listed: Vec<&str> = entries.iter().map(|i| i.domain.as_str()).collect();
        let imports = domain::Imports::new(entries.iter().map(|i| {
            let deferred = i.version_hole.is_some();
            let import = Import {
                version: i.version,
                deferred,
            };
            (i.domain.as_str(), import)
        }));
        let default = imports.get("");
        Imports {
            listed,
            imports,
            default,
            owner,
            end: entries.last().map(|entry| entry.span.end),
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
        if domain.is_empty() {
            return self.default;
        }
        self.imports.get(domain)
    }
}

/// The fix that imports `domain` with an entry after the one that ends at `end`: at the newest
/// version of a standard domain, else at version 1.
fn import_fix(domain: &str, end: u32) -> Fix {
    let version = match domain::STANDARD.contains(&domain) {
        true => super::newest_opset(domain).unwrap_or(1),
        false => 1,
    };
    Fix {
        title: format!("Import domain {domain:?}"),
        edits: vec![Edit {
            span: Span::at(end),
            text: format!(", {domain:?} : {version}"),
        }],
    }
}

/// The entries of a model's `opset_import`, in order.
pub(super) fn model_imports(model: &Model) -> Vec<&OpsetImport> {
    model
        .header
        .iter()
        .filter_map(|entry| match &entry.value {
            ModelHeaderValue::OpsetImport(list) => Some(list),
            _ => None,
        })
        .flatten()
        .collect()
}

/// The entries of a function's own `opset_import`, or `None` if it has no such header entry.
pub(super) fn function_imports(function: &Function) -> Option<Vec<&OpsetImport>> {
    let mut found = None;
    for entry in &function.header {
        if let FunctionHeaderValue::OpsetImport(list) = &entry.value {
            found.get_or_insert_with(Vec::new).extend(list);
        }
    }
    found
}

impl<'t> Checker<'t> {
    /// The import of the node's domain, where the imports are known; the domain must be imported.
    /// Each missing domain is reported once, at its first node, by [`Checker::finish_imports`].
    pub(super) fn domain(&mut self, node: &'t Node) -> Option<Import> {
        let check = self.on(Check::UndeclaredDomain);
        let imports = self.declarations.imports.as_mut()?;
        let import = imports.get(&node.domain);
        if import.is_some() || !check {
            return import;
        }
        match imports.index.entry(domain::canonical(&node.domain)) {
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
        let Some(imports) = self.declarations.imports.take() else {
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
            let diagnostic = Diagnostic::new(
                Check::UndeclaredDomain,
                node.op_span,
                format!(
                    "operator `{}` is in domain {:?}, which {} does not import: its opset_import {have}{others}",
                    operator(node),
                    node.domain,
                    imports.owner
                ),
            );
            self.report(match imports.end {
                Some(end) => diagnostic.with_fix(import_fix(&node.domain, end)),
                None => diagnostic,
            });
        }
    }
}
