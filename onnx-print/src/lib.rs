//! The printer: ONNX protobuf messages to text, in the canonical layout of the reference printer
//! (onnx 1.23.2, `onnx.printer.to_text`).
//!
//! Two styles share one implementation:
//!
//! * [`Style::Lossless`] (the default, used by [`to_text`]) prints text that our parser reads back
//!   to the same message, byte for byte, for every message the syntax can express. It equals the
//!   reference output except where the reference loses information (function defaults, typed
//!   function inputs and outputs, function value infos and doc strings, untyped attribute
//!   references, tensor values printed as `...`, names that need quotes). Each difference is
//!   listed in `docs/divergences.md` ("Printer").
//! * [`Style::Reference`] reproduces `onnx.printer.to_text` exactly, losses included.
//!
//! The printer never fails and never panics: a message that the syntax cannot express (a missing
//! field the parser always sets, an unknown element type, `raw_data` of the wrong size, …) is
//! printed as closely as the syntax allows, as the reference does.
//!
//! ```
//! let model = onnx_syntax::parse_model(r#"
//!     <ir_version: 10, opset_import: ["" : 21]>
//!     g (float[N] x) => (float[N] y) { y = Relu(x) }
//! "#).unwrap();
//! let text = onnx_print::to_text(&model);
//! assert_eq!(onnx_syntax::parse_model(&text).unwrap(), model);
//! ```

mod format;
mod number;
mod tensor;

pub use format::{file_text, format_message, format_text, format_text_as};

use std::fmt;

use onnx_runtime_types::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
    StringStringEntryProto, TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
    tensor_shape_proto::{Dimension, dimension},
    type_proto,
};

use onnx_syntax::dtype::{elem_type_by_number, starts_type};
use onnx_syntax::lex::is_identifier;
use onnx_syntax::syntax::{ATTRIBUTE_TYPES, AttributeType, AttributeTypeSyntax};
use onnx_syntax::tensors::is_external;
use onnx_syntax::{Proto, Span};

/// How to print: losslessly (the default) or exactly as the reference printer does.
///
/// ```
/// use onnx_print::{Style, to_text_with};
/// let f = onnx_syntax::parse_function("<domain: \"d\"> F <a: int = 1> (x) => (y) { y = Abs(x) }").unwrap();
/// assert!(to_text_with(&f, Style::Lossless).contains("F <a: int = 1>(x)"));
/// assert!(to_text_with(&f, Style::Reference).contains("F (x)")); // the reference drops the default
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Style {
    /// Text that parses back to the same message wherever the syntax can express it.
    #[default]
    Lossless,
    /// Exactly the text of `onnx.printer.to_text` (onnx 1.23.2), including what it loses.
    Reference,
}

/// A message that can be printed as ONNX text: [`ModelProto`], [`GraphProto`],
/// [`FunctionProto`] and [`NodeProto`], and a function library (`[FunctionProto]`).
///
/// ```
/// use onnx_print::ToText;
/// let node = onnx_syntax::parse_node("y = Relu(x)").unwrap();
/// assert_eq!(node.to_text(), "   y = Relu (x)\n");
/// ```
pub trait ToText {
    /// Appends the text of `self` to `out` in the given style.
    ///
    /// ```
    /// use onnx_print::{Style, ToText};
    /// let node = onnx_syntax::parse_node("y = Neg(x)").unwrap();
    /// let mut out = String::from("# a node\n");
    /// node.write_text(&mut out, Style::Reference);
    /// assert_eq!(out, "# a node\n   y = Neg (x)\n");
    /// ```
    fn write_text(&self, out: &mut String, style: Style);

    /// The text of `self`, in the lossless style.
    ///
    /// ```
    /// use onnx_print::ToText;
    /// let graph = onnx_syntax::parse_graph("g (x) => (y) { y = Neg(x) }").unwrap();
    /// assert_eq!(graph.to_text(), "g ( x) => ( y) {\n   y = Neg (x)\n}");
    /// ```
    fn to_text(&self) -> String {
        let mut out = String::new();
        self.write_text(&mut out, Style::Lossless);
        out
    }

    /// Writes the text of `self` in the given style to any [`fmt::Write`], such as a
    /// `Formatter` in a `Display` impl. The printer builds the text in a `String` (plain
    /// pushes, no error to pass on at every token) and hands it over in one write.
    ///
    /// ```
    /// use onnx_print::{Style, ToText};
    /// use onnx_runtime_types::NodeProto;
    ///
    /// struct Shown(NodeProto);
    /// impl std::fmt::Display for Shown {
    ///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    ///         self.0.write_to(f, Style::Reference)
    ///     }
    /// }
    /// let node = onnx_syntax::parse_node("y = Neg(x)").unwrap();
    /// assert_eq!(Shown(node).to_string(), "   y = Neg (x)\n");
    /// ```
    fn write_to(&self, out: &mut dyn fmt::Write, style: Style) -> fmt::Result {
        let mut text = String::new();
        self.write_text(&mut text, style);
        out.write_str(&text)
    }
}

/// Prints `item` as ONNX text that parses back to the same message (see [`Style::Lossless`]).
///
/// Models, graphs and functions print as the reference does; a node prints on one line with a
/// three-space indent and a newline, as in the reference.
///
/// ```
/// let graph = onnx_syntax::parse_graph("g (float[2] x) => (float[2] y) { y = Neg(x) }").unwrap();
/// assert_eq!(onnx_print::to_text(&graph), "g (float[2] x) => (float[2] y) {\n   y = Neg (x)\n}");
/// ```
pub fn to_text<T: ToText + ?Sized>(item: &T) -> String {
    to_text_with(item, Style::Lossless)
}

/// Prints `item` as ONNX text in the given [`Style`].
///
/// ```
/// use onnx_print::{Style, to_text_with};
/// let node = onnx_syntax::parse_node("y = Foo <r = @x> (a)").unwrap();
/// assert_eq!(to_text_with(&node, Style::Reference), "   y = Foo <r: undefined = @x> (a)\n");
/// assert_eq!(to_text_with(&node, Style::Lossless), "   y = Foo <r = @x> (a)\n");
/// ```
pub fn to_text_with<T: ToText + ?Sized>(item: &T, style: Style) -> String {
    let mut out = String::new();
    item.write_text(&mut out, style);
    out
}

impl ToText for ModelProto {
    fn write_text(&self, out: &mut String, style: Style) {
        Printer::new(out, style).model(self);
    }
}

impl ToText for GraphProto {
    fn write_text(&self, out: &mut String, style: Style) {
        Printer::new(out, style).graph(self);
    }
}

impl ToText for FunctionProto {
    fn write_text(&self, out: &mut String, style: Style) {
        Printer::new(out, style).function(self);
    }
}

impl ToText for NodeProto {
    fn write_text(&self, out: &mut String, style: Style) {
        Printer::new(out, style).node(self);
    }
}

/// A function library: the functions one after the other, separated by a newline, as they
/// follow the graph in a model. `parse_functions` reads it back.
impl ToText for [FunctionProto] {
    fn write_text(&self, out: &mut String, style: Style) {
        let mut printer = Printer::new(out, style);
        for (i, function) in self.iter().enumerate() {
            if i > 0 {
                printer.out.push('\n');
            }
            printer.function(function);
        }
    }
}

impl<T: ToText + ?Sized> ToText for &T {
    fn write_text(&self, out: &mut String, style: Style) {
        (**self).write_text(out, style);
    }
}

impl ToText for Vec<FunctionProto> {
    fn write_text(&self, out: &mut String, style: Style) {
        self.as_slice().write_text(out, style);
    }
}

/// Prints `model` in the lossless style, with where each part of it went: the spans of the
/// parts the syntax tree has a span for, in the order they start (a part before the parts
/// inside it). The checks of binary models take their tree's spans from these
/// (onnx-validate's `raise`, which walks the model in the same order).
// For onnx-validate, which raises a binary model to a tree in the order and form this printer
// prints it: not public API.
#[doc(hidden)]
pub fn marked_text(model: &ModelProto) -> (String, Vec<Span>) {
    let mut out = String::new();
    let mut printer = Printer::<true>::with(&mut out, Style::Lossless);
    printer.model(model);
    let marks = printer.marks;
    (out, marks)
}

/// The printer's state: the output, the current indent and the style; and with `MARKED`,
/// where the marked parts went (see [`marked_text`]). Printing without marks compiles to the
/// printer without them.
struct Printer<'a, const MARKED: bool = false> {
    out: &'a mut String,
    /// Spaces before a node; the reference starts at 3 and adds 3 per nested graph.
    indent: usize,
    style: Style,
    /// The spans of the marked parts, in the order they start (empty without `MARKED`).
    marks: Vec<Span>,
}

impl<'a> Printer<'a> {
    fn new(out: &'a mut String, style: Style) -> Printer<'a> {
        Printer::with(out, style)
    }
}

impl<'a, const MARKED: bool> Printer<'a, MARKED> {
    fn with(out: &'a mut String, style: Style) -> Printer<'a, MARKED> {
        Printer {
            out,
            indent: 3,
            style,
            marks: Vec::new(),
        }
    }

    /// Writes a part with `write`, noting its span if the printer is `MARKED`. The span is
    /// noted before those of the parts `write` marks inside it.
    #[inline(always)]
    fn mark(&mut self, write: impl FnOnce(&mut Self)) {
        if !MARKED {
            return write(self);
        }
        let slot = self.marks.len();
        self.marks.push(Span::default());
        let start = self.offset();
        write(self);
        self.marks[slot] = Span::new(start, self.offset());
    }

    /// The output's length, as a span offset (saturated: no model the checks print is 4 GiB).
    fn offset(&self) -> u32 {
        u32::try_from(self.out.len()).unwrap_or(u32::MAX)
    }

    fn lossless(&self) -> bool {
        self.style == Style::Lossless
    }

    fn spaces(&mut self, n: usize) {
        const SPACES: &str = "                                                                ";
        let mut n = n;
        while n > 0 {
            let chunk = n.min(SPACES.len());
            self.out.push_str(&SPACES[..chunk]);
            n -= chunk;
        }
    }

    /// A name, quoted unless it is an identifier.
    fn id(&mut self, s: &str) {
        if is_identifier(s) {
            self.out.push_str(s);
        } else {
            self.quoted(s);
        }
    }

    /// A name where the reference prints it as is; quoted in the lossless style where the parser
    /// accepts quotes (function attribute names, `@` references).
    fn quotable_raw(&mut self, s: &str) {
        if self.lossless() {
            self.id(s);
        } else {
            self.out.push_str(s);
        }
    }

    /// A value name after an optional type. Untyped, a type keyword (`float`, `seq`, …) would be
    /// read as a type, so the lossless style quotes it.
    fn value_name(&mut self, name: &str, typed: bool) {
        if self.lossless() && !typed && starts_type(name) {
            self.quoted(name);
        } else {
            self.id(name);
        }
    }

    fn quoted(&mut self, s: &str) {
        self.out.reserve(s.len() + 2);
        self.out.push('"');
        let mut start = 0;
        for (i, &b) in s.as_bytes().iter().enumerate() {
            if b == b'"' || b == b'\\' {
                // Both are ASCII, so `i` is a character boundary.
                self.out.push_str(&s[start..i]);
                self.out.push('\\');
                start = i;
            }
        }
        self.out.push_str(&s[start..]);
        self.out.push('"');
    }

    /// Bytes as a quoted string. Text that is not UTF-8 cannot be written in the syntax; invalid
    /// sequences become U+FFFD.
    fn quoted_bytes(&mut self, bytes: &[u8]) {
        self.quoted(&String::from_utf8_lossy(bytes));
    }

    fn int(&mut self, v: impl Into<i128>) {
        number::write_int(self.out, v.into());
    }

    fn elem_type_name(&mut self, elem_type: Option<i32>) {
        self.out.push_str(
            elem_type_by_number(elem_type.unwrap_or(0)).map_or("undefined", |info| info.name),
        );
    }

    // ---------------------------------------------------------------------------------------
    // Types

    fn dim(&mut self, dim: &Dimension) {
        match &dim.value {
            Some(dimension::Value::DimValue(v)) => self.int(*v),
            Some(dimension::Value::DimParam(p)) => self.id(p),
            None => self.out.push('?'),
        }
    }

    fn shape(&mut self, shape: &TensorShapeProto) {
        self.out.push('[');
        for (i, dim) in shape.dim.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.mark(|p| p.dim(dim));
        }
        self.out.push(']');
    }

    /// `elem_type` and the shape: none for a scalar, `[]` for unknown rank.
    fn tensor_type(&mut self, elem_type: Option<i32>, shape: Option<&TensorShapeProto>) {
        self.elem_type_name(elem_type);
        match shape {
            Some(shape) if !shape.dim.is_empty() => self.shape(shape),
            Some(_) => {}
            None => self.out.push_str("[]"),
        }
    }

    /// A type; nothing at all for a type without a value.
    fn type_proto(&mut self, ty: &TypeProto) {
        self.mark(|p| p.type_value(ty));
    }

    fn type_value(&mut self, ty: &TypeProto) {
        match &ty.value {
            Some(type_proto::Value::TensorType(t)) => {
                self.tensor_type(t.elem_type, t.shape.as_ref())
            }
            Some(type_proto::Value::SequenceType(s)) => {
                self.out.push_str("seq(");
                self.opt_type(s.elem_type.as_deref());
                self.out.push(')');
            }
            Some(type_proto::Value::MapType(m)) => {
                self.out.push_str("map(");
                self.elem_type_name(m.key_type);
                self.out.push_str(", ");
                self.opt_type(m.value_type.as_deref());
                self.out.push(')');
            }
            Some(type_proto::Value::OptionalType(o)) => {
                self.out.push_str("optional(");
                self.opt_type(o.elem_type.as_deref());
                self.out.push(')');
            }
            Some(type_proto::Value::SparseTensorType(s)) => {
                self.out.push_str("sparse_tensor(");
                self.tensor_type(s.elem_type, s.shape.as_ref());
                self.out.push(')');
            }
            Some(type_proto::Value::OpaqueType(o)) => {
                self.out.push_str("opaque(");
                if let Some(domain) = o.domain.as_deref().filter(|d| !d.is_empty()) {
                    self.out.push_str(domain);
                    self.out.push(',');
                }
                if let Some(name) = o.name.as_deref() {
                    self.out.push_str(name);
                }
                self.out.push(')');
            }
            None => {}
        }
    }

    fn opt_type(&mut self, ty: Option<&TypeProto>) {
        if let Some(ty) = ty {
            self.type_proto(ty);
        }
    }

    fn value_info(&mut self, info: &ValueInfoProto) {
        self.opt_type(info.r#type.as_ref());
        self.out.push(' ');
        self.mark(|p| p.value_name(info.name(), info.r#type.is_some()));
    }

    fn value_info_list(&mut self, infos: &[ValueInfoProto]) {
        self.out.push('(');
        for (i, info) in infos.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.value_info(info);
        }
        self.out.push(')');
    }

    // ---------------------------------------------------------------------------------------
    // Tensors

    /// A tensor constant: `type name`, then ` = ` for an initializer, then the data.
    /// Marks the whole tensor, its type and each of its dims, its name (empty where none is
    /// printed) and its data.
    fn tensor(&mut self, tensor: &TensorProto, is_initializer: bool) {
        self.mark(|p| p.tensor_parts(tensor, is_initializer));
    }

    fn tensor_parts(&mut self, tensor: &TensorProto, is_initializer: bool) {
        self.mark(|p| {
            p.elem_type_name(tensor.data_type);
            if !tensor.dims.is_empty() {
                p.list(&tensor.dims, ",", |p, d| p.mark(|p| p.int(*d)));
            }
        });
        let name = tensor.name();
        // An initializer's name is its value name: without it the text would not parse.
        let named = !name.is_empty() || (is_initializer && self.lossless());
        if named {
            self.out.push(' ');
        }
        self.mark(|p| {
            if named {
                p.id(name);
            }
        });
        let external = is_external(tensor);
        if is_initializer {
            self.out.push_str(" = ");
        } else if external && name.is_empty() && self.lossless() {
            // `float[2] ["location": …]` would read as a type followed by a stray `[`.
            self.out.push_str(" = ");
        }
        self.mark(|p| match external {
            true => p.string_pairs(&tensor.external_data, ": "),
            false => tensor::data(p, tensor),
        });
    }

    /// `[ "k": "v", … ]`
    fn string_pairs(&mut self, pairs: &[StringStringEntryProto], colon: &str) {
        self.out.push('[');
        for (i, pair) in pairs.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.quoted(pair.key());
            self.out.push_str(colon);
            self.quoted(pair.value());
        }
        self.out.push(']');
    }

    // ---------------------------------------------------------------------------------------
    // Attributes

    /// `name: type = value`, or in the lossless style `name = @ref` for an untyped reference.
    /// Marks the whole attribute, its name, its type keyword (empty where none is printed), its
    /// value and, in a reference, the name it refers to.
    fn attribute(&mut self, attr: &AttributeProto, quotable_name: bool) {
        self.mark(|p| p.attribute_parts(attr, quotable_name));
    }

    fn attribute_parts(&mut self, attr: &AttributeProto, quotable_name: bool) {
        self.mark(|p| match quotable_name {
            true => p.quotable_raw(attr.name()),
            false => p.out.push_str(attr.name()),
        });
        let ty = attr.r#type.unwrap_or(0);
        let Some(target) = &attr.ref_attr_name else {
            self.out.push_str(": ");
            self.mark(|p| p.out.push_str(attr_type_keyword(ty)));
            self.out.push_str(" = ");
            self.mark(|p| p.attribute_value(attr, ty));
            return;
        };
        if self.lossless() && ty == 0 {
            self.mark(|_| {});
        } else {
            self.out.push_str(": ");
            self.mark(|p| p.out.push_str(attr_type_keyword(ty)));
        }
        self.out.push_str(" = ");
        self.mark(|p| {
            p.out.push('@');
            p.mark(|p| p.quotable_raw(target));
        });
    }

    fn attribute_value(&mut self, attr: &AttributeProto, ty: i32) {
        // A number that names no type prints no value.
        let Ok(ty) = AttributeType::try_from(ty) else {
            return;
        };
        match ty {
            AttributeType::Int => self.int(attr.i()),
            AttributeType::Ints => self.list(&attr.ints, ", ", |p, v| p.int(*v)),
            AttributeType::Float => number::write_float(self.out, attr.f()),
            AttributeType::Floats => {
                self.list(&attr.floats, ", ", |p, v| number::write_float(p.out, *v))
            }
            AttributeType::String => self.quoted_bytes(attr.s()),
            // The reference opens the list with its first element: `[]` prints as `]`.
            AttributeType::Strings if attr.strings.is_empty() && !self.lossless() => {
                self.out.push(']')
            }
            AttributeType::Strings => self.list(&attr.strings, ", ", |p, v| p.quoted_bytes(v)),
            AttributeType::Graph => {
                self.indent += 3;
                self.graph(attr.g.as_deref().unwrap_or(&GraphProto::default()));
                self.indent -= 3;
            }
            AttributeType::Graphs => {
                self.indent += 3;
                self.list(&attr.graphs, ", ", |p, g| p.graph(g));
                self.indent -= 3;
            }
            AttributeType::Tensor => {
                self.tensor(attr.t.as_deref().unwrap_or(&TensorProto::default()), false)
            }
            AttributeType::Tensors => self.list(&attr.tensors, ", ", |p, t| p.tensor(t, false)),
            AttributeType::TypeProto => self.opt_type(attr.tp.as_deref()),
            AttributeType::TypeProtos => self.list(&attr.type_protos, ", ", |p, t| p.type_proto(t)),
            // The syntax has no sparse tensor values; an empty list is `[]`.
            AttributeType::SparseTensors if self.lossless() && attr.sparse_tensors.is_empty() => {
                self.out.push_str("[]");
            }
            _ => {}
        }
    }

    fn list<T>(&mut self, items: &[T], sep: &str, mut each: impl FnMut(&mut Self, &T)) {
        self.out.push('[');
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.out.push_str(sep);
            }
            each(self, item);
        }
        self.out.push(']');
    }

    /// ` <a: int = 1, …>`
    fn attribute_list(&mut self, attributes: &[AttributeProto]) {
        self.out.push_str(" <");
        for (i, attr) in attributes.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.attribute(attr, false);
        }
        self.out.push('>');
    }

    // ---------------------------------------------------------------------------------------
    // Nodes and graphs

    /// Names separated by commas, each marked.
    fn names(&mut self, names: &[String]) {
        for (i, name) in names.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.mark(|p| p.id(name));
        }
    }

    /// One node on its own line. Marks the node (without its indent), its label's name, its
    /// outputs, its operator (with the domain), its overload (empty where none is printed),
    /// then its attributes and inputs in the order they are printed.
    fn node(&mut self, node: &NodeProto) {
        self.spaces(self.indent);
        self.mark(|p| p.node_parts(node));
        self.out.push('\n');
    }

    fn node_parts(&mut self, node: &NodeProto) {
        if let Some(name) = &node.name {
            self.out.push('[');
            self.mark(|p| p.id(name));
            self.out.push_str("] ");
        }
        self.names(&node.output);
        self.out.push_str(" = ");
        self.mark(|p| {
            let domain = node.domain();
            if !domain.is_empty() {
                p.out.push_str(domain);
                p.out.push('.');
            }
            p.out.push_str(node.op_type());
        });
        let overload = node.overload();
        if !overload.is_empty() {
            self.out.push(':');
        }
        self.mark(|p| p.out.push_str(overload));
        let after_inputs = attributes_after_inputs(node);
        if !after_inputs && !node.attribute.is_empty() {
            self.attribute_list(&node.attribute);
        }
        self.out.push_str(" (");
        self.names(&node.input);
        self.out.push(')');
        if after_inputs && !node.attribute.is_empty() {
            self.attribute_list(&node.attribute);
        }
    }

    fn node_list(&mut self, nodes: &[NodeProto]) {
        self.out.push_str("{\n");
        for node in nodes {
            self.node(node);
        }
        if self.indent > 3 {
            self.spaces(self.indent - 3);
        }
        self.out.push('}');
    }

    /// Marks the whole graph and its name.
    fn graph(&mut self, graph: &GraphProto) {
        self.mark(|p| p.graph_parts(graph));
    }

    fn graph_parts(&mut self, graph: &GraphProto) {
        self.mark(|p| p.id(graph.name()));
        self.out.push(' ');
        self.value_info_list(&graph.input);
        self.out.push_str(" => ");
        self.value_info_list(&graph.output);
        self.out.push(' ');
        if !graph.initializer.is_empty() || !graph.value_info.is_empty() {
            self.out.push('\n');
            self.spaces(self.indent);
            self.out.push('<');
            let mut first = true;
            for init in &graph.initializer {
                if !first {
                    self.out.push_str(", ");
                }
                first = false;
                self.tensor(init, true);
            }
            for info in &graph.value_info {
                if !first {
                    self.out.push_str(", ");
                }
                first = false;
                self.value_info(info);
            }
            self.out.push_str(">\n");
        }
        self.node_list(&graph.node);
    }

    // ---------------------------------------------------------------------------------------
    // Models and functions

    fn opset(&mut self, opset: &OperatorSetIdProto) {
        self.mark(|p| {
            p.quoted(opset.domain());
            p.out.push_str(" : ");
            p.int(opset.version());
        });
    }

    fn model(&mut self, model: &ModelProto) {
        self.out.push_str("<\n");
        let mut first = true;
        let mut key = |p: &mut Self, key: &str| {
            if !first {
                p.out.push_str(",\n");
            }
            first = false;
            p.spaces(3);
            p.mark(|p| p.out.push_str(key));
            p.out.push_str(": ");
        };
        // The reference prints `ir_version: 0` for a model without one, which would read back
        // as a version that is present.
        if model.ir_version.is_some() || !self.lossless() {
            key(self, "ir_version");
            self.int(model.ir_version());
        }
        key(self, "opset_import");
        self.list(&model.opset_import, ", ", |p, o| p.opset(o));
        if let Some(v) = &model.producer_name {
            key(self, "producer_name");
            self.quoted(v);
        }
        if let Some(v) = &model.producer_version {
            key(self, "producer_version");
            self.quoted(v);
        }
        if let Some(v) = &model.domain {
            key(self, "domain");
            self.quoted(v);
        }
        if let Some(v) = model.model_version {
            key(self, "model_version");
            self.int(v);
        }
        if let Some(v) = &model.doc_string {
            key(self, "doc_string");
            self.quoted(v);
        }
        if !model.metadata_props.is_empty() {
            key(self, "metadata_props");
            self.string_pairs(&model.metadata_props, ": ");
        }
        self.out.push_str("\n>\n");
        self.graph(model.graph.as_ref().unwrap_or(&GraphProto::default()));
        for function in &model.functions {
            self.out.push('\n');
            self.function(function);
        }
    }

    /// Marks the whole function, the keys of its header, its name, its attributes, its inputs
    /// and outputs (type, then name) and its value infos.
    fn function(&mut self, f: &FunctionProto) {
        self.mark(|p| p.function_parts(f));
    }

    /// `  key: ` in a function's header.
    fn function_key(&mut self, key: &str) {
        self.out.push_str("  ");
        self.mark(|p| p.out.push_str(key));
        self.out.push_str(": ");
    }

    fn function_parts(&mut self, f: &FunctionProto) {
        let lossless = self.lossless();
        self.out.push_str("<\n");
        // The reference always prints the domain, even when there is none.
        if f.domain.is_some() || !lossless {
            self.function_key("domain");
            self.quoted(f.domain());
            self.out.push_str(",\n");
        }
        let print_overload = if lossless {
            f.overload.is_some()
        } else {
            !f.overload().is_empty()
        };
        if print_overload {
            self.function_key("overload");
            self.quoted(f.overload());
            self.out.push_str(",\n");
        }
        if lossless && let Some(doc) = &f.doc_string {
            self.function_key("doc_string");
            self.quoted(doc);
            self.out.push_str(",\n");
        }
        self.function_key("opset_import");
        self.list(&f.opset_import, ",", |p, o| p.opset(o));
        self.out.push_str("\n>\n");
        self.mark(|p| p.id(f.name()));
        self.out.push(' ');
        let defaults: &[AttributeProto] = if lossless { &f.attribute_proto } else { &[] };
        if !f.attribute.is_empty() || !defaults.is_empty() {
            self.out.push('<');
            let mut first = true;
            for name in &f.attribute {
                if !first {
                    self.out.push(',');
                }
                first = false;
                self.mark(|p| p.quotable_raw(name));
            }
            for attr in defaults {
                if !first {
                    self.out.push(',');
                }
                first = false;
                self.function_attribute(attr);
            }
            self.out.push('>');
        }
        if lossless {
            let FunctionTypes {
                input_types,
                output_types,
                rest,
            } = FunctionTypes::of(f);
            self.function_io(&f.input, &input_types);
            self.out.push_str(" => ");
            self.function_io(&f.output, &output_types);
            if !rest.is_empty() {
                self.out.push_str(" <");
                for (i, info) in rest.into_iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.value_info(info);
                }
                self.out.push('>');
            }
        } else {
            self.out.push('(');
            self.names(&f.input);
            self.out.push_str(") => (");
            self.names(&f.output);
            self.out.push(')');
        }
        self.out.push('\n');
        self.node_list(&f.node);
    }

    /// `(type name, name, …)` for a function's inputs or outputs.
    fn function_io(&mut self, names: &[String], types: &[Option<&TypeProto>]) {
        self.out.push('(');
        for (i, name) in names.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            let ty = types.get(i).copied().flatten();
            if let Some(ty) = ty {
                self.type_proto(ty);
                self.out.push(' ');
            }
            self.mark(|p| p.value_name(name, ty.is_some()));
        }
        self.out.push(')');
    }

    /// An entry of `attribute_proto`: `name: type = default`, or `name: type` without a default.
    fn function_attribute(&mut self, attr: &AttributeProto) {
        let ty = attr.r#type.unwrap_or(0);
        if has_default(attr) {
            self.attribute(attr, true);
        } else {
            // Marked as an attribute is, its value empty.
            self.mark(|p| {
                p.mark(|p| p.quotable_raw(attr.name()));
                p.out.push_str(": ");
                p.mark(|p| p.out.push_str(attr_type_keyword(ty)));
                p.mark(|_| {});
            });
        }
    }
}

/// True if an entry of a function's `attribute_proto` holds a default (a list type always
/// does: an empty list).
// For onnx-validate, which raises a binary model to a tree in the order and form this printer
// prints it: not public API.
#[doc(hidden)]
pub fn has_default(attr: &AttributeProto) -> bool {
    let ty = attr.r#type.unwrap_or(0);
    attr.ref_attr_name.is_some()
        || attr.f.is_some()
        || attr.i.is_some()
        || attr.s.is_some()
        || attr.t.is_some()
        || attr.g.is_some()
        || attr.tp.is_some()
        || attr.sparse_tensor.is_some()
        || ATTRIBUTE_TYPES
            .iter()
            .any(|(t, _)| *t as i32 == ty && t.is_list())
}

/// A function's value infos as the lossless style prints them: typed inputs and outputs are
/// value infos, in order, ahead of the others (the `<…>` list after the outputs).
// For onnx-validate, which raises a binary model to a tree in the order and form this printer
// prints it: not public API.
#[doc(hidden)]
pub struct FunctionTypes<'f> {
    /// The type of each input, where the value infos give one.
    pub input_types: Vec<Option<&'f TypeProto>>,
    /// The type of each output, where the value infos give one.
    pub output_types: Vec<Option<&'f TypeProto>>,
    /// The other value infos.
    pub rest: Vec<&'f ValueInfoProto>,
}

impl<'f> FunctionTypes<'f> {
    /// The value infos of `f`, sorted as the printer prints them.
    pub fn of(f: &'f FunctionProto) -> FunctionTypes<'f> {
        let mut infos = f.value_info.iter().peekable();
        let mut typed_io = |names: &[String]| -> Vec<Option<&TypeProto>> {
            names
                .iter()
                .map(|name| {
                    let info =
                        infos.next_if(|info| info.name() == name && info.r#type.is_some())?;
                    info.r#type.as_ref()
                })
                .collect()
        };
        let input_types = typed_io(&f.input);
        let output_types = typed_io(&f.output);
        FunctionTypes {
            input_types,
            output_types,
            rest: infos.collect(),
        }
    }
}

/// True if a node's attributes are printed after its inputs: those holding graphs go there.
// For onnx-validate, which raises a binary model to a tree in the order and form this printer
// prints it: not public API.
#[doc(hidden)]
pub fn attributes_after_inputs(node: &NodeProto) -> bool {
    node.attribute
        .iter()
        .any(|a| a.g.is_some() || !a.graphs.is_empty())
}

/// The annotation keyword of an attribute type number; `undefined` for 0 and unknown numbers.
fn attr_type_keyword(ty: i32) -> &'static str {
    ATTRIBUTE_TYPES
        .iter()
        .find(|(t, _)| *t as i32 == ty)
        .map_or("undefined", |(_, kw)| kw)
}

/// Prints the messages in the form their entry point reads back: nodes one after the other, in
/// braces for a node list.
///
/// ```
/// use onnx_print::ToText;
/// use onnx_syntax::Entry;
/// let nodes = Entry::Nodes.parse("t = Abs(x)  y = Neg(t)")?.lower();
/// assert_eq!(nodes.to_text(), "   t = Abs (x)\n   y = Neg (t)\n");
/// let list = Entry::NodeList.parse("{ y = Neg(x) }")?.lower();
/// assert_eq!(list.to_text(), "{\n   y = Neg (x)\n}");
/// assert_eq!(Entry::NodeList.parse(&list.to_text())?.lower(), list);
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
impl ToText for Proto {
    fn write_text(&self, out: &mut String, style: Style) {
        match self {
            Proto::Model(model) => model.write_text(out, style),
            Proto::Graph(graph) => graph.write_text(out, style),
            Proto::Function(function) => function.write_text(out, style),
            Proto::Functions(functions) => functions.as_slice().write_text(out, style),
            Proto::Node(node) => node.write_text(out, style),
            Proto::Nodes(nodes) => nodes.iter().for_each(|node| node.write_text(out, style)),
            Proto::NodeList(nodes) => {
                out.push_str("{\n");
                nodes.iter().for_each(|node| node.write_text(out, style));
                out.push('}');
            }
        }
    }
}
