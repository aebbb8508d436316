//! Calls to model-local functions against the function's signature.
//!
//! - At most as many inputs and outputs as the function declares. Fewer are allowed: trailing
//!   inputs left out are absent, as `""` is, and trailing outputs left out are unused.
//! - Only attributes the function declares, of the declared type where the declaration has one.
//! - Every attribute declared without a default (`F <a>`, or `F <a: int>`) is given.
//!
//! onnx's checker verifies none of this (it does not look into calls); these are the mistakes
//! that make the inlined body wrong or silently drop what the caller wrote.

use super::operator::{bounds, covering};
use super::similar::closest;
use crate::check::message::{backticks, list, operator};
use crate::check::{Check, Checker, Diagnostic};
use crate::hole::is_spread;
use crate::syntax::{Attribute, AttributeTypeSyntax, Function, FunctionAttribute, Name, Node};

/// A declared attribute of a function: its name, and its typed entry if it has one.
fn declared(function: &Function) -> impl Iterator<Item = (&Name, Option<&Attribute>)> {
    function.attributes.iter().map(|entry| {
        let typed = match entry {
            FunctionAttribute::Name(_) => None,
            FunctionAttribute::Proto(attribute) => Some(attribute),
        };
        (entry.name(), typed)
    })
}

impl<'t> Checker<'t> {
    pub(super) fn signature(&mut self, node: &'t Node, function: &'t Function) {
        if !self.on(Check::FunctionSignature) {
            return;
        }
        self.call_counts(node, function);
        for attribute in &node.attributes {
            self.call_attribute(node, function, attribute);
        }
        self.call_missing_attributes(node, function);
    }

    fn call_counts(&mut self, node: &Node, function: &Function) {
        let sides = [
            ("input", &node.inputs, function.inputs.len()),
            ("output", &node.outputs, function.outputs.len()),
        ];
        for (noun, operands, declared) in sides {
            // A spread (`..#xs`) may stand for no operand at all.
            if operands.len() <= declared || operands.iter().any(|o| is_spread(&o.text)) {
                continue;
            }
            let message = format!(
                "function `{}` declares {}, found {}",
                operator(node),
                bounds(declared, declared, noun),
                operands.len()
            );
            let span = covering(&operands[declared..]).unwrap_or(node.op_span);
            self.report(Diagnostic::new(Check::FunctionSignature, span, message));
        }
    }

    fn call_attribute(&mut self, node: &Node, function: &Function, attribute: &Attribute) {
        let name = &attribute.name.text;
        let Some((_, entry)) = declared(function).find(|(declared, _)| declared.text == *name)
        else {
            let names = || declared(function).map(|(name, _)| name.text.as_str());
            let mut message = format!("function `{}` has no attribute `{name}`", operator(node));
            if let Some(suggestion) = closest(name, names()) {
                message += &format!("; did you mean `{suggestion}`?");
            } else if function.attributes.is_empty() {
                message += "; it declares none";
            } else {
                message += &format!("; it declares {}", list(names(), backticks));
            }
            self.report(Diagnostic::new(
                Check::FunctionSignature,
                attribute.name.span,
                message,
            ));
            return;
        };
        let expected = entry.and_then(|entry| entry.ty);
        if let (Some(expected), Some(found)) = (expected, attribute.ty)
            && expected != found
        {
            let message = format!(
                "attribute `{name}` of function `{}` is declared {}, found {}",
                operator(node),
                expected.keyword(),
                found.keyword()
            );
            self.report(Diagnostic::new(
                Check::FunctionSignature,
                attribute.name.span,
                message,
            ));
        }
    }

    fn call_missing_attributes(&mut self, node: &Node, function: &Function) {
        let given = |name: &str| node.attributes.iter().any(|a| a.name.text == name);
        let missing: Vec<&str> = declared(function)
            .filter(|(_, entry)| entry.is_none_or(|entry| entry.value.is_none()))
            .map(|(name, _)| name.text.as_str())
            .filter(|name| !given(name))
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
            "function `{}` requires {noun} {}, which {} no default",
            operator(node),
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
