//! Runtime support of literals with holes: the conversions' failures, splicing lists, and the
//! checks that wait for the holes' values.

use std::ops::Range;

use onnx_check::{Check, CheckOptions, CheckTree, Diagnostic, Diagnostics};
use onnx_syntax::parse::Parser;
use onnx_syntax::syntax;
use onnx_syntax::{Entry, Tree};

use crate::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, ParseError, ParseErrorKind,
    Span, TypeProto, tensor_shape_proto, to_text, type_proto,
};

/// What evaluating one literal's holes found.
pub struct Holes {
    /// `file:line:column` of the literal.
    location: &'static str,
    /// Values that could not be converted, with their hole.
    failures: Vec<String>,
    /// A hole's value can make the literal invalid (a name, spliced nodes, a count): the checks
    /// run again on the value.
    pub verify: bool,
}

impl Holes {
    /// The holes of the literal at `location`.
    pub fn new(location: &'static str) -> Holes {
        Holes {
            location,
            failures: Vec::new(),
            verify: false,
        }
    }

    /// The converted value of `hole`, or a default after noting why there is none.
    pub fn ok<T: Default>(&mut self, hole: &'static str, converted: Result<T, String>) -> T {
        converted.unwrap_or_else(|why| {
            self.failures.push(format!("the value of `{hole}`: {why}"));
            T::default()
        })
    }

    /// The value, unless a conversion failed or (when the holes call for it) a check fails.
    /// `allowed` names the checks switched off; `None` is `#![unchecked]`.
    pub fn finish<T: Literal>(self, value: T, allowed: Option<&[&str]>) -> Result<T, Diagnostics> {
        if !self.failures.is_empty() {
            let message = self.failures.join("; ");
            let diagnostic = Diagnostic::new(ParseErrorKind::HoleValue, Span::at(0), message);
            return Err(Diagnostics::new("", vec![diagnostic]).with_origin(self.location));
        }
        let Some(allowed) = allowed.filter(|_| self.verify) else {
            return Ok(value);
        };
        let options = allowed
            .iter()
            .filter_map(|name| Check::from_name(name))
            .fold(CheckOptions::all(), CheckOptions::allow);
        match value.check(&options) {
            Ok(()) => Ok(value),
            Err(problems) => Err(problems.with_origin(format!(
                "{} (the literal with its values, printed)",
                self.location
            ))),
        }
    }

    /// As [`Holes::finish`], but a failure panics, naming the literal's location.
    #[track_caller]
    pub fn finish_or_panic<T: Literal>(self, value: T, allowed: Option<&[&str]>) -> T {
        let location = self.location;
        match self.finish(value, allowed) {
            Ok(value) => value,
            Err(problems) => panic!(
                "the ONNX literal at {location} is invalid with the values of its holes:\n{problems}"
            ),
        }
    }
}

/// Replaces `range` of `list` by `items`.
pub fn splice<T>(list: &mut Vec<T>, range: Range<usize>, items: impl IntoIterator<Item = T>) {
    list.splice(range, items);
}

/// A macro's value, which the checks can run on again once its holes are filled: printed,
/// parsed back, and checked as the macro checked its literal.
pub trait Literal {
    /// The value, printed.
    fn text(&self) -> String;

    /// The entry point of the macro that gives this value.
    const ENTRY: Entry;

    /// The tree of the printed value, as the checks must see it.
    fn parse(&self, parser: Parser<'_>) -> Result<Tree, ParseError> {
        Self::ENTRY.parse_with(parser)
    }

    /// Prints the value and checks the text.
    fn check(&self, options: &CheckOptions) -> Result<(), Diagnostics> {
        let text = self.text();
        let problems = match Parser::new(&text).and_then(|parser| self.parse(parser)) {
            Ok(tree) => tree.check(&text, options).diagnostics,
            Err(error) => vec![Diagnostic::from(&error)],
        };
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Diagnostics::new(&text, problems))
        }
    }
}

/// The printer writes `opset_import: []` for a function without imports, which the checks read
/// as "imports nothing"; a function that has none inherits the model's, or is not checked for
/// domains, so the entry goes.
fn without_empty_imports(functions: &mut [syntax::Function], protos: &[FunctionProto]) {
    for (function, proto) in functions.iter_mut().zip(protos) {
        if proto.opset_import.is_empty() {
            function.header.retain(|entry| {
                !matches!(&entry.value, syntax::FunctionHeaderValue::OpsetImport(list) if list.is_empty())
            });
        }
    }
}

impl Literal for ModelProto {
    const ENTRY: Entry = Entry::Model;

    fn text(&self) -> String {
        to_text(self)
    }

    fn parse(&self, parser: Parser<'_>) -> Result<Tree, ParseError> {
        let mut model = parser.model()?;
        without_empty_imports(&mut model.functions, &self.functions);
        Ok(Tree::Model(model))
    }
}

impl Literal for GraphProto {
    fn text(&self) -> String {
        to_text(self)
    }

    const ENTRY: Entry = Entry::Graph;
}

impl Literal for FunctionProto {
    const ENTRY: Entry = Entry::Function;

    fn text(&self) -> String {
        to_text(self)
    }

    fn parse(&self, parser: Parser<'_>) -> Result<Tree, ParseError> {
        let mut function = parser.function()?;
        without_empty_imports(
            std::slice::from_mut(&mut function),
            std::slice::from_ref(self),
        );
        Ok(Tree::Function(function))
    }
}

impl Literal for Vec<FunctionProto> {
    const ENTRY: Entry = Entry::Functions;

    fn text(&self) -> String {
        to_text(self)
    }

    fn parse(&self, parser: Parser<'_>) -> Result<Tree, ParseError> {
        let mut functions = parser.functions()?;
        without_empty_imports(&mut functions, self);
        Ok(Tree::Functions(functions))
    }
}

impl Literal for NodeProto {
    fn text(&self) -> String {
        to_text(self)
    }

    const ENTRY: Entry = Entry::Node;
}

impl Literal for Vec<NodeProto> {
    fn text(&self) -> String {
        let nodes: Vec<String> = self.iter().map(to_text).collect();
        nodes.join("")
    }

    const ENTRY: Entry = Entry::Nodes;
}

/// The dims of a tensor or sparse tensor type, which the skeleton gave a shape.
pub fn shape_dims(ty: &mut TypeProto) -> &mut Vec<tensor_shape_proto::Dimension> {
    let shape = match &mut ty.value {
        Some(type_proto::Value::TensorType(tensor)) => &mut tensor.shape,
        Some(type_proto::Value::SparseTensorType(tensor)) => &mut tensor.shape,
        _ => unreachable!("the skeleton of a literal has a shape where its holes are"),
    };
    &mut shape.get_or_insert_with(Default::default).dim
}

/// The element type of a sequence or optional type, or the value type of a map type.
pub fn inner_type(ty: &mut TypeProto) -> &mut TypeProto {
    let inner = match &mut ty.value {
        Some(type_proto::Value::SequenceType(sequence)) => &mut sequence.elem_type,
        Some(type_proto::Value::OptionalType(optional)) => &mut optional.elem_type,
        Some(type_proto::Value::MapType(map)) => &mut map.value_type,
        _ => unreachable!("the skeleton of a literal has an inner type where its holes are"),
    };
    inner.get_or_insert_with(Default::default)
}

/// A dimension of a shape from a hole's value.
pub fn dimension(
    value: &impl crate::interpolate::Dimension,
) -> Result<tensor_shape_proto::Dimension, String> {
    Ok(tensor_shape_proto::Dimension {
        value: Some(value.dimension()?),
        ..Default::default()
    })
}

/// Prepares an attribute whose value was a hole: the note that marked it goes, and the type is
/// set (unless the value's Rust type decides it). The caller then fills the value.
pub fn attribute(attribute: &mut AttributeProto, kind: Option<i32>) -> &mut AttributeProto {
    attribute.doc_string = None;
    if kind.is_some() {
        attribute.r#type = kind;
    }
    attribute
}
