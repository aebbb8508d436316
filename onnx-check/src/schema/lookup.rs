//! Which schema applies to a node: the newest version of its operator at or below the version
//! its domain is imported at. Reports `unknown_operator` when there is none.

use crate::imports::Import;
use crate::{Check, Checker, Diagnostic, Fix};
use onnx_schema::similar::closest;
use onnx_schema::table::{Schema, Table, table};
use onnx_schema::{AtVersion, at_version};
use onnx_syntax::Span;
use onnx_syntax::diagnostic::message::operator;
use onnx_syntax::domain;
use onnx_syntax::syntax::Node;

impl<'t> Checker<'t> {
    /// The schema a node is checked against, if its domain is a standard one imported here and
    /// its operator exists at that version; otherwise reports why not (unless the domain is
    /// unknown or not imported, which are not this module's business).
    /// `import` is that of the node's domain.
    pub(super) fn lookup(
        &mut self,
        node: &'t Node,
        import: Option<Import>,
    ) -> Option<&'static Schema> {
        let Import { version, deferred } = import?;
        // Other domains than the standard ones are not checked here.
        let table = table()?;
        let operators = table.domain(&node.domain)?;
        let versions = match operators.get(node.op_type.as_str()) {
            // An operator whose data is malformed is not checked, as none is when the table is.
            Some(operator) => Some(operator.versions(table)?),
            None => None, // not in this standard domain at all
        };
        if deferred {
            // The version is a hole: the schema is chosen when its value is known, but an
            // operator that no version has is misspelt whatever the value.
            if versions.is_none() && self.on(Check::UnknownOperator) {
                let (message, fix) = unknown(table, node, i64::MAX);
                let diagnostic = Diagnostic::new(Check::UnknownOperator, node.op_span, message);
                self.report(with_replacement(diagnostic, node.op_span, fix));
            }
            return None;
        }
        let found = match versions {
            Some(versions) => Some(at_version(versions, version)?),
            None => None, // not in this standard domain at all
        };
        if let Some(AtVersion::Found(schema)) = found {
            return Some(schema);
        }
        if self.on(Check::UnknownOperator) {
            let (message, fix) = match found {
                Some(at) => (
                    self.not_at_version(node, versions.unwrap_or_default(), version, at),
                    None,
                ),
                None => unknown(table, node, version),
            };
            let span = if node.op_span.is_empty() {
                node.span
            } else {
                node.op_span
            };
            let diagnostic = Diagnostic::new(Check::UnknownOperator, span, message);
            self.report(with_replacement(diagnostic, node.op_span, fix));
        }
        None
    }

    /// Why an operator that the domain has is not in effect at `version`.
    fn not_at_version(
        &self,
        node: &Node,
        versions: &[Schema],
        version: i64,
        at: AtVersion<'_>,
    ) -> String {
        let op = operator(node);
        let domain = domain::display(domain::canonical(&node.domain));
        let owner = self.owner();
        match at {
            AtVersion::Found(_) => String::new(),
            AtVersion::NotYet(since) => format!(
                "`{op}` does not exist in {domain} opset {version}, which {owner} imports: it was \
                 added in opset {since}"
            ),
            AtVersion::Removed(schema) => {
                let mut message = format!(
                    "`{op}` was removed from {domain} in opset {} (deprecated), and {owner} \
                     imports opset {version}",
                    schema.since
                );
                // GroupNormalization-18 was deprecated, and a new version came in 21.
                let back = versions.iter().find(|s| s.since > version && !s.deprecated);
                if let Some(back) = back {
                    message += &format!("; a new version exists from opset {}", back.since);
                }
                message
            }
        }
    }

    /// Who imports the domains: "the model", "function `F`".
    pub(super) fn owner(&self) -> String {
        self.declarations
            .imports
            .as_ref()
            .map_or_else(|| "the text".to_owned(), |i| i.owner().to_owned())
    }
}

/// `diagnostic`, with the fix that writes `replacement` over `span`, if there is one.
pub(crate) fn with_replacement(
    diagnostic: Diagnostic,
    span: Span,
    replacement: Option<String>,
) -> Diagnostic {
    match replacement {
        Some(text) if !span.is_empty() => diagnostic.with_fix(Fix::replace(span, text)),
        _ => diagnostic,
    }
}

/// The message for an operator that no version of the domain has: a suggestion from the
/// operators in effect at `version`, or the standard domain that has this exact name; and the
/// operator name to write instead, if the message suggests one.
fn unknown(table: &Table, node: &Node, version: i64) -> (String, Option<String>) {
    let domain = domain::canonical(&node.domain);
    if node.op_type.is_empty() {
        let message = format!(
            "a node without an operator name: {} has no such operator",
            domain::display(domain)
        );
        return (message, None);
    }
    let mut message = format!(
        "`{}` is not an operator of {}",
        operator(node),
        domain::display(domain)
    );
    let elsewhere = table
        .domain_names()
        .into_iter()
        .filter(|&other| other != domain)
        .find(|&other| table.versions(other, &node.op_type).is_some());
    if let Some(other) = elsewhere {
        let qualified = match other {
            "" => node.op_type.clone(),
            _ => format!("{other}.{}", node.op_type),
        };
        message += &format!(", but of {}: write `{qualified}`", domain::display(other));
        return (message, Some(qualified));
    }
    let current = table
        .sorted_operators(domain)
        .into_iter()
        .filter_map(|(name, versions)| {
            matches!(at_version(versions, version), Some(AtVersion::Found(_))).then_some(name)
        });
    let Some(suggestion) = closest(&node.op_type, current) else {
        return (message, None);
    };
    let prefix = if node.domain.is_empty() {
        String::new()
    } else {
        format!("{}.", node.domain)
    };
    message += &format!("; did you mean `{prefix}{suggestion}`?");
    (message, Some(format!("{prefix}{suggestion}")))
}
