//! Calls to model-local functions against the function's signature.
//!
//! - At most as many inputs and outputs as the function declares. Fewer are allowed: trailing
//!   inputs left out are absent, as `""` is, and trailing outputs left out are unused.
//! - Only attributes the function declares, of the declared type where the declaration has one.
//! - Every attribute declared without a default (`F <a>`, or `F <a: int>`) is given.
//!
//! onnx's checker verifies none of this (it does not look into calls); these are the mistakes
//! that make the inlined body wrong or silently drop what the caller wrote.

use onnx_runtime_types::{AttributeProto, FunctionProto};

use super::lookup::with_replacement;
use super::operator::{bounds, covering};
use super::similar::closest;
use crate::check::declarations::Callee;
use crate::check::message::{backticks, list, operator};
use crate::check::{Check, Checker, Diagnostic};
use crate::hole::is_spread;
use crate::syntax::{
    Attribute, AttributeType, AttributeTypeSyntax, Function, FunctionAttribute, Node,
};

/// What a call is checked against, read from the function written in the text or from a
/// library's `FunctionProto` alike.
struct Signature<'t> {
    inputs: usize,
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
            outputs: function.output.len(),
            attributes: untyped.chain(typed).collect(),
            subject,
        }
    }

    fn names(&self) -> impl Iterator<Item = &'t str> + '_ {
        self.attributes.iter().map(|&(name, ..)| name)
    }
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
