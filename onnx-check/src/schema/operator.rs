//! A node against its operator's schema: input and output counts, operands left out, and
//! attributes (required, unknown, of the wrong type), as onnx's checker verifies a node.

use super::lookup::with_replacement;
use crate::{Check, Checker, Diagnostic};
use onnx_schema::constraints::{Side, formal_at};
use onnx_schema::similar::closest;
use onnx_schema::table::{Arity, AttributeSpec, Formal, Schema, table};
use onnx_syntax::Span;
use onnx_syntax::diagnostic::message::operator;
use onnx_syntax::domain;
use onnx_syntax::hole::is_spread;
use onnx_syntax::syntax::{
    AttrValue, Attribute, AttributeType, AttributeTypeSyntax, Name, Node, TypeKind,
};

/// "2 inputs", "1 to 3 inputs", "at least 1 input".
pub(super) fn bounds(min: usize, max: usize, noun: &str) -> String {
    let plural = |n: usize| {
        if n == 1 {
            noun.to_owned()
        } else {
            format!("{noun}s")
        }
    };
    if max == usize::MAX {
        format!("at least {min} {}", plural(min))
    } else if min == max {
        format!("{min} {}", plural(min))
    } else {
        format!("{min} to {max} {}", plural(max))
    }
}

/// The span from the first to the last of `names`, if there are any.
pub(super) fn covering(names: &[Name]) -> Option<Span> {
    Some(names.first()?.span.to(names.last()?.span))
}

impl<'t> Checker<'t> {
    /// Input and output counts within the schema's bounds, and no `""` for an operand that is
    /// not optional.
    pub(super) fn arity(&mut self, node: &'t Node, schema: &Schema) {
        if !self.on(Check::OperatorArity) {
            return;
        }
        let (inputs, outputs) = (&schema.inputs, &schema.outputs);
        let bounds = (schema.min_inputs, schema.max_inputs);
        self.operand_count(node, Side::Input, &node.inputs, inputs, bounds);
        let bounds = (schema.min_outputs, schema.max_outputs);
        self.operand_count(node, Side::Output, &node.outputs, outputs, bounds);
    }

    /// The operands of one side against their formal parameters and `(min, max)` count.
    fn operand_count(
        &mut self,
        node: &'t Node,
        side: Side,
        operands: &'t [Name],
        formals: &[Formal],
        (min, max): (usize, usize),
    ) {
        // A spread (`..#xs`) stands for any number of operands: the count is not known, and
        // the operands after it are at unknown positions. (Indexed loops, as iterator adapters
        // cost calls unoptimized.)
        let mut known = 0;
        while known < operands.len() && !is_spread(&operands[known].text) {
            known += 1;
        }
        let count = operands.len();
        if known == count && (count < min || count > max) {
            let verb = match side {
                Side::Input => "takes",
                Side::Output => "produces",
            };
            let message = format!(
                "`{}` {verb} {}, found {count}",
                operator(node),
                bounds(min, max, side.noun())
            );
            let span = if count > max {
                covering(&operands[max..])
            } else {
                None
            };
            self.report(Diagnostic::new(
                Check::OperatorArity,
                span.unwrap_or(node.op_span),
                message,
            ));
        }
        let mut next = 0;
        while next < known {
            let (index, operand) = (next, &operands[next]);
            next += 1;
            if !operand.text.is_empty() {
                continue;
            }
            // No formal parameter here means none for the operands after it either.
            let Some(formal) = formal_at(formals, index) else {
                break;
            };
            if formal.arity == Arity::Single {
                let message = format!(
                    "{} {index} of `{}` (`{}`) is not optional: `\"\"` cannot leave it out",
                    side.noun(),
                    operator(node),
                    formal.name
                );
                self.report(Diagnostic::new(Check::OperatorArity, operand.span, message));
            }
        }
    }

    /// Every required attribute present; every attribute known to this version, and of its
    /// type. Names starting with `__` are implementation details that onnx's checker skips.
    pub(super) fn attributes(&mut self, node: &'t Node, schema: &Schema) {
        // Indexed loops and slice patterns, as iterator adapters and `starts_with` cost calls
        // unoptimized.
        let mut next = 0;
        while next < node.attributes.len() {
            let attribute = &node.attributes[next];
            next += 1;
            if let [b'_', b'_', ..] = attribute.name.text.as_bytes() {
                continue;
            }
            match schema.attribute(&attribute.name.text) {
                Some(spec) => self.attribute_type(node, attribute, spec),
                None => self.unknown_attribute(node, attribute, schema),
            }
        }
        self.missing_attributes(node, schema);
    }

    fn unknown_attribute(&mut self, node: &Node, attribute: &Attribute, schema: &Schema) {
        if !self.on(Check::UnknownAttribute) {
            return;
        }
        let name = &attribute.name.text;
        let mut message = format!(
            "`{}` has no attribute `{name}` in {} opset {}",
            operator(node),
            domain::display(&node.domain),
            self.imported(node)
        );
        if let Some(history) = attribute_history(schema, name) {
            message += &format!(" ({history})");
        }
        let known = schema.attributes.iter().map(|spec| spec.name);
        let suggestion = closest(name, known);
        if let Some(suggestion) = suggestion {
            message += &format!("; did you mean `{suggestion}`?");
        } else if schema.attributes.is_empty() {
            message += "; it has no attributes";
        }
        let span = attribute.name.span;
        let diagnostic = Diagnostic::new(Check::UnknownAttribute, span, message);
        let replacement = suggestion.map(str::to_owned);
        self.report(with_replacement(diagnostic, span, replacement));
    }

    fn attribute_type(&mut self, node: &Node, attribute: &Attribute, spec: &AttributeSpec) {
        if !self.on(Check::AttributeType) {
            return;
        }
        // An unannotated `@ref` has no type here: the function's caller decides it.
        let Some(found) = attribute.ty else {
            return;
        };
        if found == spec.ty {
            return;
        }
        let mut message = format!(
            "attribute `{}` of `{}` is {}, found {}",
            spec.name,
            operator(node),
            article(spec.ty),
            article(found)
        );
        if let Some(hint) = type_hint(attribute, spec.ty) {
            message += &format!(": {hint}");
        }
        // On the value, as rustc's E0308 puts a mismatch on the expression, with the name that
        // asks for the type as the reason.
        let diagnostic = Diagnostic::new(Check::AttributeType, attribute.value_span, message)
            .with_label(
                attribute.name.span,
                format!("expected {} due to this attribute", article(spec.ty)),
            );
        self.report(diagnostic);
    }

    fn missing_attributes(&mut self, node: &Node, schema: &Schema) {
        if !self.on(Check::MissingAttribute) {
            return;
        }
        let mut missing: Vec<String> = Vec::new();
        // An indexed loop, as iterator adapters cost calls unoptimized; most attributes are
        // optional.
        let mut next = 0;
        while next < schema.attributes.len() {
            let spec = &schema.attributes[next];
            next += 1;
            if spec.required && !node.attributes.iter().any(|a| a.name.text == spec.name) {
                missing.push(format!("`{}` ({})", spec.name, spec.ty.keyword()));
            }
        }
        let listed = match missing.as_slice() {
            [] => return,
            [one] => format!("attribute {one}"),
            [init @ .., last] => format!("attributes {} and {last}", init.join(", ")),
        };
        let message = format!("`{}` requires {listed}", operator(node));
        let span = if node.op_span.is_empty() {
            node.span
        } else {
            node.op_span
        };
        self.report(Diagnostic::new(Check::MissingAttribute, span, message));
    }

    /// The version of the node's domain that applies (the node was looked up with it).
    fn imported(&self, node: &Node) -> i64 {
        self.declarations
            .imports
            .as_ref()
            .and_then(|imports| imports.get(&node.domain))
            .map(|import| import.version)
            .unwrap_or_default()
    }
}

/// "an int", "a float", "a type_proto".
fn article(ty: AttributeType) -> String {
    let keyword = ty.keyword();
    let vowel = keyword.starts_with(['a', 'e', 'i', 'o', 'u']);
    format!("{} {keyword}", if vowel { "an" } else { "a" })
}

/// Whether other versions of the operator have the attribute: "added in opset 13", "removed in
/// opset 5".
fn attribute_history(schema: &Schema, name: &str) -> Option<String> {
    let versions = table()?.versions(schema.domain, schema.name)?;
    let has = |s: &Schema| s.attribute(name).is_some();
    if let Some(later) = versions.iter().find(|s| s.since > schema.since && has(s)) {
        return Some(format!("it was added in opset {}", later.since));
    }
    let last = versions
        .iter()
        .rposition(|s| s.since < schema.since && has(s))?;
    let removed = versions.get(last + 1)?;
    Some(format!("it was removed in opset {}", removed.since))
}

/// How to write the value with the expected type, when the mistake is a common one.
fn type_hint(attribute: &Attribute, expected: AttributeType) -> Option<String> {
    let name = &attribute.name.text;
    match (&attribute.value, expected) {
        (Some(AttrValue::Int(value)), AttributeType::Float) => Some(format!(
            "an integer literal is an int; write `{name} = {value}.0` or `{name}: float = {value}`"
        )),
        (Some(AttrValue::Ints(_)), AttributeType::Floats) => Some(format!(
            "a list of integer literals is ints; write `{name}: floats = [...]`"
        )),
        (Some(AttrValue::TypeProto(ty)), AttributeType::Int) => {
            let TypeKind::Tensor(elem, _) = ty.kind else {
                return None;
            };
            Some(format!(
                "a type is a type_proto; write the element type as its number, `{name} = {elem}`"
            ))
        }
        _ => None,
    }
}
