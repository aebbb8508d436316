//! Calls to model-local functions against the function's signature.
//!
//! - At most as many inputs and outputs as the function declares. Fewer are allowed: trailing
//!   inputs left out are absent, as `""` is, and trailing outputs left out are unused. An
//!   absent input must be one the body takes as optional: every node that reads it reads it as
//!   an optional operand of a standard operator; anything else would inline to an invalid node.
//! - Only attributes the function declares, of the declared type where the declaration has one.
//! - Every attribute declared without a default (`F <a>`, or `F <a: int>`) is given.
//!
//! onnx's checker verifies none of this (it does not look into calls); these are the mistakes
//! that make the inlined body wrong or silently drop what the caller wrote.

use onnx_runtime_types::{AttributeProto, FunctionProto, GraphProto, NodeProto};

use super::lookup::with_replacement;
use super::operator::{bounds, covering};
use crate::declarations::Callee;
use crate::imports::function_imports;
use crate::{Check, Checker, Diagnostic};
use onnx_schema::similar::closest;
use onnx_schema::table::{Arity, table};
use onnx_schema::{AtVersion, at_version};
use onnx_syntax::diagnostic::message::{backticks, list, operator};
use onnx_syntax::domain::{Imports, canonical as canonical_domain};
use onnx_syntax::hole::{is_marker, is_spread};
use onnx_syntax::syntax::{
    AttrValue, Attribute, AttributeType, AttributeTypeSyntax, Function, FunctionAttribute, Graph,
    Node,
};

/// What a call is checked against, read from the function written in the text or from a
/// library's `FunctionProto` alike.
struct Signature<'t> {
    inputs: usize,
    /// The body, to see how it reads an input a call leaves out.
    body: Body<'t>,
    outputs: usize,
    /// Each declared attribute: its name, its type where declared, and whether it has a
    /// default.
    attributes: Vec<(&'t str, Option<AttributeType>, bool)>,
    /// How messages name the function: `` `d.F` ``, with its library if it has one.
    subject: String,
}

impl<'t> Signature<'t> {
    fn of(callee: Callee<'t>, node: &Node) -> Signature<'t> {
        let mut subject = format!("function `{}`", operator(node));
        if let Some(library) = callee.library() {
            subject += &format!(" (library `{library}`)");
        }
        match callee {
            Callee::Local(function) => Signature::of_text(function, subject),
            Callee::Library { function, .. } => Signature::of_proto(function, subject),
        }
    }

    fn of_text(function: &'t Function, subject: String) -> Signature<'t> {
        let attributes = function.attributes.iter().map(|entry| match entry {
            FunctionAttribute::Name(name) => (name.text.as_str(), None, false),
            FunctionAttribute::Proto(attribute) => (
                attribute.name.text.as_str(),
                attribute.ty,
                attribute.value.is_some(),
            ),
        });
        Signature {
            inputs: function.inputs.len(),
            body: Body::Text(function),
            outputs: function.outputs.len(),
            attributes: attributes.collect(),
            subject,
        }
    }

    /// A lowered function: `attribute` lists the names declared without type or default,
    /// `attribute_proto` the others.
    fn of_proto(function: &'t FunctionProto, subject: String) -> Signature<'t> {
        let untyped = function
            .attribute
            .iter()
            .map(|name| (name.as_str(), None, false));
        let typed = function.attribute_proto.iter().map(|attribute| {
            let ty = attribute
                .r#type
                .and_then(|ty| AttributeType::try_from(ty).ok())
                .filter(|&ty| ty != AttributeType::Undefined);
            let name = attribute.name.as_deref().unwrap_or("");
            (name, ty, has_default(attribute, ty))
        });
        Signature {
            inputs: function.input.len(),
            body: Body::Proto(function),
            outputs: function.output.len(),
            attributes: untyped.chain(typed).collect(),
            subject,
        }
    }

    fn names(&self) -> impl Iterator<Item = &'t str> + '_ {
        self.attributes.iter().map(|&(name, ..)| name)
    }
}

/// A function's body, as written in the text or as a library holds it.
#[derive(Clone, Copy)]
enum Body<'t> {
    Text(&'t Function),
    Proto(&'t FunctionProto),
}

/// A node that reads an input of the function: what it is, and whether it reads it only as
/// optional operands.
struct Reader {
    operator: String,
    optional: bool,
}

impl Body<'_> {
    /// The declared name of input `index`.
    fn input(&self, index: usize) -> Option<&str> {
        match self {
            Body::Text(f) => f.inputs.get(index).map(|i| i.name.text.as_str()),
            Body::Proto(f) => f.input.get(index).map(String::as_str),
        }
    }

    /// Every node of the body that reads `name`, directly or in one of its subgraphs (which
    /// read it as a captured value, never as an optional operand).
    fn readers(&self, name: &str) -> Vec<Reader> {
        let imports = match self {
            Body::Text(f) => {
                let entries = function_imports(f).unwrap_or_default();
                Imports::new(entries.into_iter().map(|i| (i.domain.as_str(), i.version)))
            }
            Body::Proto(f) => Imports::of_protos(&f.opset_import),
        };
        let version = |domain: &str| imports.get(domain);
        let reader = |domain: &str, op_type: &str, inputs: Vec<&str>, captured: bool| {
            let positions = inputs.iter().enumerate().filter(|(_, i)| **i == name);
            let positions: Vec<usize> = positions.map(|(p, _)| p).collect();
            if positions.is_empty() && !captured {
                return None;
            }
            let optional = !captured
                && positions
                    .iter()
                    .all(|&p| optional_operand(domain, op_type, version(domain), p));
            let operator = match canonical_domain(domain) {
                "" => op_type.to_owned(),
                domain => format!("{domain}.{op_type}"),
            };
            Some(Reader { operator, optional })
        };
        match self {
            Body::Text(f) => (f.nodes.iter())
                .filter_map(|n| {
                    let inputs = n.inputs.iter().map(|i| i.text.as_str()).collect();
                    reader(&n.domain, &n.op_type, inputs, text_captures(n, name))
                })
                .collect(),
            Body::Proto(f) => (f.node.iter())
                .filter_map(|n| {
                    let inputs = n.input.iter().map(String::as_str).collect();
                    reader(n.domain(), n.op_type(), inputs, proto_captures(n, name))
                })
                .collect(),
        }
    }
}

/// Whether operand `position` of `op_type` in `domain`, at `version`, is an optional parameter
/// of its schema. Not for an operator without a known schema: a function, a custom domain.
fn optional_operand(domain: &str, op_type: &str, version: Option<i64>, position: usize) -> bool {
    let Some(table) = table() else { return false };
    let versions = table.versions(domain, op_type);
    let at = versions
        .zip(version)
        .and_then(|(v, version)| at_version(v, version));
    let Some(AtVersion::Found(schema)) = at else {
        return false;
    };
    schema
        .inputs
        .get(position)
        .is_some_and(|formal| formal.arity == Arity::Optional)
}

/// Whether a subgraph of `node` reads `name`.
fn text_captures(node: &Node, name: &str) -> bool {
    fn graph(g: &Graph, name: &str) -> bool {
        g.nodes
            .iter()
            .any(|n| n.inputs.iter().any(|i| i.text == name) || text_captures(n, name))
    }
    node.attributes.iter().any(|a| match &a.value {
        Some(AttrValue::Graph(g)) => graph(g, name),
        Some(AttrValue::Graphs(gs)) => gs.iter().any(|g| graph(g, name)),
        _ => false,
    })
}

/// Whether a subgraph of `node` reads `name`.
fn proto_captures(node: &NodeProto, name: &str) -> bool {
    fn graph(g: &GraphProto, name: &str) -> bool {
        g.node
            .iter()
            .any(|n| n.input.iter().any(|i| i == name) || proto_captures(n, name))
    }
    node.attribute.iter().any(|a| {
        a.g.as_deref().is_some_and(|g| graph(g, name)) || a.graphs.iter().any(|g| graph(g, name))
    })
}

/// Whether a lowered function attribute has a default. Lowering writes no value for an empty
/// list (`a: ints = []`) as for no default (`a: ints`): a list type counts as defaulted, so that
/// no call is wrongly asked for it.
fn has_default(attribute: &AttributeProto, ty: Option<AttributeType>) -> bool {
    let a = attribute;
    let scalar = a.f.is_some()
        || a.i.is_some()
        || a.s.is_some()
        || a.t.is_some()
        || a.g.is_some()
        || a.sparse_tensor.is_some()
        || a.tp.is_some();
    scalar || ty.is_some_and(AttributeTypeSyntax::is_list)
}

impl<'t> Checker<'t> {
    pub(super) fn signature(&mut self, node: &'t Node, callee: Callee<'t>) {
        if !self.on(Check::FunctionSignature) {
            return;
        }
        let signature = Signature::of(callee, node);
        self.call_counts(node, &signature);
        self.call_absent_inputs(node, &signature);
        for attribute in &node.attributes {
            self.call_attribute(attribute, &signature);
        }
        self.call_missing_attributes(node, &signature);
    }

    fn call_counts(&mut self, node: &Node, signature: &Signature<'_>) {
        let sides = [
            ("input", &node.inputs, signature.inputs),
            ("output", &node.outputs, signature.outputs),
        ];
        for (noun, operands, declared) in sides {
            // A spread (`..#xs`) may stand for no operand at all.
            if operands.len() <= declared || operands.iter().any(|o| is_spread(&o.text)) {
                continue;
            }
            let message = format!(
                "{} declares {}, found {}",
                signature.subject,
                bounds(declared, declared, noun),
                operands.len()
            );
            let span = covering(&operands[declared..]).unwrap_or(node.op_span);
            self.report(Diagnostic::new(Check::FunctionSignature, span, message));
        }
    }

    /// Each input the call leaves out (or gives as `""`) that a node of the body reads as a
    /// required operand.
    fn call_absent_inputs(&mut self, node: &Node, signature: &Signature<'_>) {
        // Holes and spreads may stand for any number of operands.
        if node.inputs.iter().any(|o| is_marker(&o.text)) {
            return;
        }
        for index in 0..signature.inputs {
            let given = node.inputs.get(index);
            if given.is_some_and(|o| !o.text.is_empty()) {
                continue;
            }
            let Some(name) = signature.body.input(index) else {
                continue;
            };
            let readers = signature.body.readers(name);
            let Some(required) = readers.iter().find(|r| !r.optional) else {
                continue;
            };
            let how = match given {
                Some(_) => "gives `\"\"` for",
                None => "leaves out",
            };
            let message = format!(
                "the call {how} input {} (`{name}`) of {}, which its body reads as a required \
                 operand of `{}`",
                index + 1,
                signature.subject,
                required.operator
            );
            let span = given.map_or(node.op_span, |o| o.span);
            self.report(Diagnostic::new(Check::FunctionSignature, span, message));
        }
    }

    fn call_attribute(&mut self, attribute: &Attribute, signature: &Signature<'_>) {
        let name = &attribute.name.text;
        let subject = &signature.subject;
        let Some(&(_, expected, _)) = signature.attributes.iter().find(|(n, ..)| n == name) else {
            let mut message = format!("{subject} has no attribute `{name}`");
            let suggestion = closest(name, signature.names());
            if let Some(suggestion) = suggestion {
                message += &format!("; did you mean `{suggestion}`?");
            } else if signature.attributes.is_empty() {
                message += "; it declares none";
            } else {
                message += &format!("; it declares {}", list(signature.names(), backticks));
            }
            let span = attribute.name.span;
            let diagnostic = Diagnostic::new(Check::FunctionSignature, span, message);
            let replacement = suggestion.map(str::to_owned);
            self.report(with_replacement(diagnostic, span, replacement));
            return;
        };
        if let (Some(expected), Some(found)) = (expected, attribute.ty)
            && expected != found
        {
            let message = format!(
                "attribute `{name}` of {subject} is declared {}, found {}",
                expected.keyword(),
                found.keyword()
            );
            // On the value, as `attribute_type` puts an operator's, with the name as the reason.
            let label = format!("{} expected due to this attribute", expected.keyword());
            let diagnostic =
                Diagnostic::new(Check::FunctionSignature, attribute.value_span, message)
                    .with_label(attribute.name.span, label);
            self.report(diagnostic);
        }
    }

    fn call_missing_attributes(&mut self, node: &Node, signature: &Signature<'_>) {
        let given = |name: &str| node.attributes.iter().any(|a| a.name.text == name);
        let missing: Vec<&str> = signature
            .attributes
            .iter()
            .filter(|&&(name, _, default)| !default && !given(name))
            .map(|&(name, ..)| name)
            .collect();
        if missing.is_empty() {
            return;
        }
        let noun = if missing.len() == 1 {
            "attribute"
        } else {
            "attributes"
        };
        let message = format!(
            "{} requires {noun} {}, which {} no default",
            signature.subject,
            list(missing.iter().copied(), backticks),
            if missing.len() == 1 { "has" } else { "have" }
        );
        self.report(Diagnostic::new(
            Check::FunctionSignature,
            node.op_span,
            message,
        ));
    }
}
