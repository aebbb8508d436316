//! Code generation for literals with holes (`#x`, `#(expr)`, `..#xs`).
//!
//! The literal is parsed, checked and lowered with a marker in place of each hole (see
//! `onnx_syntax::hole`), and encoded as usual: that is the *skeleton*. A walk over the lowered
//! message finds every marker and notes where it sits; the expansion decodes the skeleton and
//! patches each place with the value of its hole, converted by the trait of its position
//! (`onnx_text::interpolate`). Patches run in reverse walk order, so a splice never moves a
//! place that is still to be patched. Nothing is parsed at runtime.

use std::fmt::Write;

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};

use onnx_check::schema_attribute_type;
use onnx_runtime_types::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
    TensorProto, TypeProto, ValueInfoProto, tensor_shape_proto::dimension, type_proto,
};
use onnx_syntax::hole::{Hole, ListHole, ListHoles, Site};
use onnx_syntax::syntax::{
    AttributeType, AttributeTypeSyntax, Function, FunctionHeaderValue, Model, ModelHeaderValue,
};

use crate::tokens::HoleExpr;

/// The holes of a model's or function's header, read from the tree: a later entry of the same
/// key overrides an earlier one, so the walk over the lowered message would not find them all,
/// and integers have no string to carry a marker.
#[derive(Default)]
pub struct HeaderHoles {
    /// Each hole with its field, in text order.
    entries: Vec<(HeaderField, Hole)>,
}

/// A field of a header that a hole sets.
#[derive(Clone, Copy, PartialEq)]
enum HeaderField {
    /// `ir_version`, `model_version`: integers.
    Int(&'static str),
    /// `producer_name`, `domain`, `overload`, …: strings.
    Text(&'static str),
    /// The version of the `opset_import` entry at this index.
    Opset(usize),
}

impl HeaderHoles {
    /// The holes of a model's header.
    pub fn model(model: &Model) -> HeaderHoles {
        let mut holes = HeaderHoles::default();
        let mut opsets = 0;
        for entry in &model.header {
            let (field, text) = match &entry.value {
                ModelHeaderValue::IrVersionHole(hole) => {
                    holes.entries.push((HeaderField::Int("ir_version"), *hole));
                    continue;
                }
                ModelHeaderValue::ModelVersionHole(hole) => {
                    holes
                        .entries
                        .push((HeaderField::Int("model_version"), *hole));
                    continue;
                }
                ModelHeaderValue::OpsetImport(list) => {
                    holes.opsets(&mut opsets, list);
                    continue;
                }
                ModelHeaderValue::ProducerName(text) => ("producer_name", text),
                ModelHeaderValue::ProducerVersion(text) => ("producer_version", text),
                ModelHeaderValue::Domain(text) => ("domain", text),
                ModelHeaderValue::DocString(text) => ("doc_string", text),
                _ => continue,
            };
            holes.text(field, text);
        }
        holes
    }

    /// The holes of a function's header.
    pub fn function(function: &Function) -> HeaderHoles {
        let mut holes = HeaderHoles::default();
        let mut opsets = 0;
        for entry in &function.header {
            match &entry.value {
                FunctionHeaderValue::OpsetImport(list) => holes.opsets(&mut opsets, list),
                FunctionHeaderValue::Domain(text) => holes.text("domain", text),
                FunctionHeaderValue::DocString(text) => holes.text("doc_string", text),
                FunctionHeaderValue::Overload(text) => holes.text("overload", text),
            }
        }
        holes
    }

    fn text(&mut self, field: &'static str, text: &str) {
        if let Some(hole) = Hole::from_marker(text) {
            self.entries.push((HeaderField::Text(field), hole));
        }
    }

    fn opsets(&mut self, count: &mut usize, list: &[onnx_syntax::syntax::OpsetImport]) {
        for import in list {
            if let Some(hole) = import.version_hole {
                self.entries.push((HeaderField::Opset(*count), hole));
            }
            *count += 1;
        }
    }
}

/// The opset versions that apply to nodes, by domain; `None` where the version is a hole.
#[derive(Clone, Default)]
pub struct Imports<'p>(onnx_syntax::domain::Imports<'p, Option<i64>>);

impl<'p> Imports<'p> {
    fn of(list: &'p [OperatorSetIdProto]) -> Imports<'p> {
        Imports(onnx_syntax::domain::Imports::new(list.iter().map(|i| {
            let version = i.version.filter(|&v| v != 0);
            (i.domain.as_deref().unwrap_or_default(), version)
        })))
    }

    /// The version of `domain`, if it is imported with a known version.
    fn version(&self, domain: &str) -> Option<i64> {
        self.0.get(domain).flatten()
    }
}

/// A place in the decoded value: the Rust path from the root, one step at a time.
#[derive(Clone, Copy)]
enum Step {
    Field(&'static str),
    Index(usize),
    /// Into an `Option` (of a `Box`) that the skeleton has set.
    Some,
    /// Through an accessor of `onnx_text::__private` that takes and gives `&mut`: into the
    /// variants of `TypeProto`.
    Call(&'static str),
}

/// Collects the patches of one literal.
pub struct Patcher<'h> {
    holes: &'h [HoleExpr],
    /// Which holes a patch took, to find those that landed nowhere a value may go.
    taken: Vec<bool>,
    path: Vec<Step>,
    /// One statement per patch, in walk order.
    patches: Vec<TokenStream>,
    errors: Vec<syn::Error>,
    /// Some hole can make the literal invalid whatever compiled: the checks run again.
    verify: bool,
    /// Whether operator schemas type attribute holes: not under `#![unchecked]`, whose literals
    /// may be malformed on purpose (an `int` where the schema says `float`).
    schemas: bool,
}

/// The expansion of a literal with holes, or the errors about where its holes stand.
pub struct Expansion {
    /// Statements that patch `__onnx_value` with the holes' values, using `__onnx_holes`.
    pub patches: TokenStream,
    /// Whether the checks must run again on the value.
    pub verify: bool,
}

impl<'h> Patcher<'h> {
    pub fn new(holes: &'h [HoleExpr], schemas: bool) -> Patcher<'h> {
        Patcher {
            holes,
            taken: vec![false; holes.len()],
            path: Vec::new(),
            patches: Vec::new(),
            errors: Vec::new(),
            verify: false,
            schemas,
        }
    }

    /// The patches, last first; or every misplaced hole.
    pub fn finish(mut self) -> Result<Expansion, syn::Error> {
        for (hole, taken) in self.holes.iter().zip(&self.taken) {
            if !taken {
                self.errors.push(syn::Error::new(
                    hole.span,
                    "a Rust value cannot stand here: holes go in dimensions, value names, \
                     attribute values, tensor data, header values, node lists and after a \
                     model's graph",
                ));
            }
        }
        if let Some(errors) = crate::diagnostics::combine(self.errors) {
            return Err(errors);
        }
        let patches = self.patches.into_iter().rev();
        Ok(Expansion {
            patches: quote!(#(#patches)*),
            verify: self.verify,
        })
    }

    // ---- places ----

    fn enter<T>(&mut self, step: Step, walk: impl FnOnce(&mut Self) -> T) -> T {
        self.path.push(step);
        let result = walk(self);
        self.path.pop();
        result
    }

    fn field<T>(&mut self, name: &'static str, walk: impl FnOnce(&mut Self) -> T) -> T {
        self.enter(Step::Field(name), walk)
    }

    /// The current place as a Rust place expression on `__onnx_value`.
    fn place(&self) -> TokenStream {
        let mut text = String::from("__onnx_value");
        for step in &self.path {
            let _ = match step {
                Step::Field("type") => write!(text, ".r#type"),
                Step::Field(name) => write!(text, ".{name}"),
                Step::Index(i) => write!(text, "[{i}]"),
                Step::Some => write!(text, ".as_mut().unwrap()"),
                Step::Call(accessor) => {
                    text = format!("(*::onnx_text::__private::{accessor}(&mut {text}))");
                    Ok(())
                }
            };
        }
        text.parse().unwrap_or_default()
    }

    // ---- holes ----

    /// The hole behind a marker, taken once; `None` (after an error) for a marker that no hole
    /// is behind (a string holding the reserved characters).
    fn take(&mut self, hole: Hole) -> Option<&'h HoleExpr> {
        let index = hole.index as usize;
        let Some(expr) = self.holes.get(index) else {
            self.errors.push(syn::Error::new(
                Span::call_site(),
                "strings in the macros cannot hold the characters U+E000 to U+E002, which mark \
                 Rust values",
            ));
            return None;
        };
        self.taken[index] = true;
        Some(expr)
    }

    fn misplaced_spread(&mut self, expr: &HoleExpr, what: &str) {
        self.errors.push(syn::Error::new(
            expr.span,
            format!("a spread `..#` cannot stand for {what}: write one value, `#x`"),
        ));
    }

    /// `Trait::method(&(expr))`, converted and checked by `__onnx_holes`, spanned at the
    /// expression so that a missing trait impl is reported there.
    fn one(expr: &HoleExpr, call: TokenStream) -> TokenStream {
        let value = &expr.expr;
        let shown = expr.shown();
        quote_spanned!(at(expr)=> __onnx_holes.ok(#shown, #call(&(#value))))
    }

    /// The items of a spread in `position` (a name of `__private::position`), each converted by
    /// `call`.
    fn each(expr: &HoleExpr, position: &str, call: TokenStream) -> TokenStream {
        let shown = expr.shown();
        let each =
            quote_spanned!(at(expr)=> |__onnx_item| __onnx_holes.ok(#shown, #call(__onnx_item)));
        spread(expr, position, each)
    }

    /// Puts the values of `expr` into the list at the current place: at `at` in place of the
    /// marker (`replace`), or inserted before the written element `at`.
    fn splice_into_list(
        &mut self,
        expr: &HoleExpr,
        at: usize,
        replace: bool,
        position: &str,
        call: TokenStream,
    ) {
        let list = self.place();
        let end = at + usize::from(replace);
        let patch = if expr.spread {
            let items = Self::each(expr, position, call);
            quote!(::onnx_text::__private::splice(&mut #list, #at..#end, #items);)
        } else {
            let item = Self::one(expr, call);
            quote!(::onnx_text::__private::splice(&mut #list, #at..#end, [#item]);)
        };
        self.patches.push(patch);
    }

    /// Sets the current place, an `Option`, to the converted value of a one-value hole.
    fn set_some(&mut self, expr: &HoleExpr, what: &str, call: TokenStream) {
        if expr.spread {
            self.misplaced_spread(expr, what);
            return;
        }
        let place = self.place();
        let value = Self::one(expr, call);
        self.patches
            .push(quote!(#place = ::core::option::Option::Some(#value);));
    }

    // ---- the walk ----

    /// A model: its header, graph and functions.
    pub fn model(&mut self, model: &ModelProto, header: &HeaderHoles, functions: &[HeaderHoles]) {
        self.header(header);
        self.field("metadata_props", |p| {
            for (i, entry) in model.metadata_props.iter().enumerate() {
                p.enter(Step::Index(i), |p| {
                    p.metadata_string("key", &entry.key);
                    p.metadata_string("value", &entry.value);
                });
            }
        });
        let imports = Imports::of(&model.opset_import);
        if let Some(graph) = &model.graph {
            self.field("graph", |p| {
                p.enter(Step::Some, |p| p.graph(graph, &imports))
            });
        }
        self.field("functions", |p| {
            p.functions(&model.functions, functions, Some(&imports))
        });
    }

    /// The holes of a header, at the current place (a model or a function). A value that a
    /// later entry of the same key overrides is converted, for its type, and dropped, as the
    /// text would drop it.
    fn header(&mut self, header: &HeaderHoles) {
        for (index, &(field, hole)) in header.entries.iter().enumerate() {
            let Some(expr) = self.take(hole) else {
                continue;
            };
            let (name, call) = match field {
                HeaderField::Int(name) => (
                    name,
                    quote_spanned!(at(expr)=> ::onnx_text::__private::Int::int),
                ),
                HeaderField::Text(name) => (
                    name,
                    quote_spanned!(at(expr)=> ::onnx_text::__private::HeaderString::header_string),
                ),
                HeaderField::Opset(i) => {
                    self.verify = true;
                    let call = quote_spanned!(at(expr)=> ::onnx_text::__private::Int::int);
                    self.field("opset_import", |p| {
                        p.enter(Step::Index(i), |p| {
                            p.field("version", |p| p.set_some(expr, "an opset version", call))
                        })
                    });
                    continue;
                }
            };
            if expr.spread {
                self.misplaced_spread(expr, "a header value");
                continue;
            }
            if header.entries[index + 1..].iter().any(|(f, _)| *f == field) {
                let value = Self::one(expr, call);
                self.patches.push(quote!(let _ = #value;));
            } else {
                self.field(name, |p| p.set_some(expr, "a header value", call));
            }
        }
    }

    /// A metadata key or value: strings that lists append, so the walk finds them all.
    fn metadata_string(&mut self, field: &'static str, value: &Option<String>) {
        let Some(hole) = value.as_deref().and_then(Hole::from_marker) else {
            return;
        };
        let Some(expr) = self.take(hole) else {
            return;
        };
        let call = quote_spanned!(at(expr)=> ::onnx_text::__private::HeaderString::header_string);
        self.field(field, |p| p.set_some(expr, "a metadata string", call));
    }

    /// A list of functions: spliced ones, and written ones (with their header's holes).
    pub fn functions(
        &mut self,
        functions: &[FunctionProto],
        headers: &[HeaderHoles],
        inherited: Option<&Imports>,
    ) {
        for (i, function) in functions.iter().enumerate() {
            if let Some(hole) = function.name.as_deref().and_then(Hole::from_marker) {
                let Some(expr) = self.take(hole) else {
                    continue;
                };
                self.verify = true;
                let call = quote_spanned!(at(expr)=> ::onnx_text::__private::Function::function);
                self.splice_into_list(expr, i, true, "function_lists", call);
                continue;
            }
            let empty = HeaderHoles::default();
            let header = headers.get(i).unwrap_or(&empty);
            self.enter(Step::Index(i), |p| p.function(function, header, inherited));
        }
    }

    /// A function. Without an `opset_import` of its own, a model's function inherits the model's.
    pub fn function(
        &mut self,
        function: &FunctionProto,
        header: &HeaderHoles,
        inherited: Option<&Imports>,
    ) {
        self.header(header);
        self.field("input", |p| p.names(&function.input, false));
        self.field("output", |p| p.names(&function.output, false));
        let imports = if function.opset_import.is_empty() {
            inherited.cloned().unwrap_or_default()
        } else {
            Imports::of(&function.opset_import)
        };
        self.field("attribute_proto", |p| {
            for (i, attribute) in function.attribute_proto.iter().enumerate() {
                p.enter(Step::Index(i), |p| p.attribute(attribute, None, &imports));
            }
        });
        self.field("value_info", |p| p.value_infos(&function.value_info));
        self.field("node", |p| p.nodes(&function.node, &imports));
    }

    /// A graph: names, types, initializers and nodes.
    pub fn graph(&mut self, graph: &GraphProto, imports: &Imports) {
        self.name_field("name", &graph.name);
        self.field("input", |p| p.value_infos(&graph.input));
        self.field("output", |p| p.value_infos(&graph.output));
        self.field("value_info", |p| p.value_infos(&graph.value_info));
        self.field("initializer", |p| {
            for (i, tensor) in graph.initializer.iter().enumerate() {
                p.enter(Step::Index(i), |p| {
                    p.name_field("name", &tensor.name);
                    p.tensor(tensor);
                });
            }
        });
        self.field("node", |p| p.nodes(&graph.node, imports));
    }

    fn value_infos(&mut self, infos: &[ValueInfoProto]) {
        for (i, info) in infos.iter().enumerate() {
            self.enter(Step::Index(i), |p| {
                p.name_field("name", &info.name);
                if let Some(ty) = &info.r#type {
                    p.field("type", |p| p.enter(Step::Some, |p| p.type_proto(ty)));
                }
            });
        }
    }

    /// A name in an `Option<String>` field: one value.
    fn name_field(&mut self, field: &'static str, name: &Option<String>) {
        let Some(hole) = name.as_deref().and_then(Hole::from_marker) else {
            return;
        };
        let Some(expr) = self.take(hole) else {
            return;
        };
        self.verify = true;
        let call = quote_spanned!(at(expr)=> ::onnx_text::__private::ValueName::value_name);
        self.field(field, |p| p.set_some(expr, "a single name", call));
    }

    /// The names of a list at the current place; spreads only where `spread` allows (node
    /// inputs and outputs).
    fn names(&mut self, names: &[String], spread: bool) {
        for (i, name) in names.iter().enumerate() {
            let Some(hole) = Hole::from_marker(name) else {
                continue;
            };
            let Some(expr) = self.take(hole) else {
                continue;
            };
            self.verify = true;
            if expr.spread && !spread {
                self.misplaced_spread(expr, "a value name outside a node's inputs or outputs");
                continue;
            }
            let call = quote_spanned!(at(expr)=> ::onnx_text::__private::ValueName::value_name);
            self.splice_into_list(expr, i, true, "value_names", call);
        }
    }

    /// A node list: spliced nodes, and written ones.
    fn nodes(&mut self, nodes: &[NodeProto], imports: &Imports) {
        for (i, node) in nodes.iter().enumerate() {
            if let Some(hole) = node.op_type.as_deref().and_then(Hole::from_marker) {
                let Some(expr) = self.take(hole) else {
                    continue;
                };
                self.verify = true;
                let call = quote_spanned!(at(expr)=> ::onnx_text::__private::Node::node);
                self.splice_into_list(expr, i, true, "node_lists", call);
                continue;
            }
            self.enter(Step::Index(i), |p| p.node(node, imports));
        }
    }

    /// The nodes of an `onnx_nodes!` literal, whose imports are not known.
    pub fn node_list(&mut self, nodes: &[NodeProto]) {
        self.nodes(nodes, &Imports::default());
    }

    /// A node: its label, operands and attributes.
    pub fn node(&mut self, node: &NodeProto, imports: &Imports) {
        self.name_field("name", &node.name);
        self.field("input", |p| p.names(&node.input, true));
        self.field("output", |p| p.names(&node.output, true));
        self.field("attribute", |p| {
            for (i, attribute) in node.attribute.iter().enumerate() {
                p.enter(Step::Index(i), |p| {
                    p.attribute(attribute, Some(node), imports)
                });
            }
        });
    }

    /// The type that `node`'s operator schema gives `attribute`, at the imported version.
    fn schema_type(
        &self,
        node: &NodeProto,
        attribute: &AttributeProto,
        imports: &Imports,
    ) -> Option<AttributeType> {
        if !self.schemas {
            return None;
        }
        let domain = node.domain.as_deref().unwrap_or("");
        schema_attribute_type(
            domain,
            node.op_type.as_deref().unwrap_or(""),
            imports.version(domain)?,
            attribute.name.as_deref().unwrap_or(""),
        )
    }

    /// An attribute of `node` (`None` for a function's attribute defaults): a whole value from a
    /// hole, holes among a list's elements, and the graphs, tensors and types inside.
    fn attribute(
        &mut self,
        attribute: &AttributeProto,
        node: Option<&NodeProto>,
        imports: &Imports,
    ) {
        let note = attribute.doc_string.as_deref().unwrap_or("");
        let written = attribute.r#type.and_then(attr_type);
        let schema = || node.and_then(|node| self.schema_type(node, attribute, imports));
        if let Some(hole) = Hole::from_marker(note) {
            let ty = schema().or(written);
            if let Some(expr) = self.take(hole) {
                self.whole_attribute(expr, ty);
            }
        } else if let Some(holes) = ListHoles::from_note(note) {
            let ty = written.or_else(schema);
            self.list_attribute(&holes, ty);
        }
        if let Some(tensor) = &attribute.t {
            self.field("t", |p| p.enter(Step::Some, |p| p.tensor(tensor)));
        }
        if let Some(graph) = &attribute.g {
            self.field("g", |p| p.enter(Step::Some, |p| p.graph(graph, imports)));
        }
        if let Some(ty) = &attribute.tp {
            self.field("tp", |p| p.enter(Step::Some, |p| p.type_proto(ty)));
        }
        self.field("tensors", |p| {
            for (i, tensor) in attribute.tensors.iter().enumerate() {
                p.enter(Step::Index(i), |p| p.tensor(tensor));
            }
        });
        self.field("graphs", |p| {
            for (i, graph) in attribute.graphs.iter().enumerate() {
                p.enter(Step::Index(i), |p| p.graph(graph, imports));
            }
        });
        self.field("type_protos", |p| {
            for (i, ty) in attribute.type_protos.iter().enumerate() {
                p.enter(Step::Index(i), |p| p.type_proto(ty));
            }
        });
    }

    /// `name = #value`: the schema's or annotation's type, else the Rust type's.
    fn whole_attribute(&mut self, expr: &HoleExpr, ty: Option<AttributeType>) {
        if expr.spread {
            self.misplaced_spread(expr, "a whole attribute value (write `[..#xs]`)");
            return;
        }
        // One place expression per patch: each chain of `as_mut`, `unwrap` and indexing costs
        // rustc more than the statements around it.
        let place = self.place();
        let Some(ty) = ty else {
            let value = &expr.expr;
            let shown = expr.shown();
            let set = quote_spanned!(at(expr)=>
                __onnx_holes.ok(#shown, ::onnx_text::__private::AttributeValue::set_attribute(&(#value), __onnx_attribute));
            );
            // A graph from Rust may refer to names of the literal: check again.
            self.patches.push(quote!({
                let __onnx_attribute = ::onnx_text::__private::attribute(&mut #place, ::core::option::Option::None);
                #set
                __onnx_holes.verify |= __onnx_attribute.g.is_some() || !__onnx_attribute.graphs.is_empty();
            }));
            return;
        };
        let Some((field, call, boxed)) = attribute_field(ty, at(expr)) else {
            return;
        };
        if matches!(ty, AttributeType::Graph | AttributeType::Graphs) {
            self.verify = true;
        }
        let value = Self::one(expr, call);
        let value = if boxed {
            quote!(::core::option::Option::Some(::std::boxed::Box::new(#value)))
        } else if ty.is_list() {
            value
        } else {
            quote!(::core::option::Option::Some(#value))
        };
        let number = ty as i32;
        self.patches.push(quote!({
            let __onnx_attribute = ::onnx_text::__private::attribute(&mut #place, ::core::option::Option::Some(#number));
            __onnx_attribute.#field = #value;
        }));
    }

    /// `name = [1, #a, ..#rest]`: each hole inserted among the written elements.
    fn list_attribute(&mut self, holes: &[ListHole], ty: Option<AttributeType>) {
        let place = self.place();
        let Some(element) = ty.map(element_of) else {
            // No type anywhere: the Rust values' type decides, element by element, in order.
            self.verify = true;
            let mut pushes = Vec::new();
            for list_hole in holes {
                if let Some(expr) = self.take(list_hole.hole) {
                    pushes.push(push_element(expr, &quote!(&mut *__onnx_attribute)));
                }
            }
            self.patches.push(quote!({
                let __onnx_attribute = ::onnx_text::__private::attribute(&mut #place, ::core::option::Option::None);
                #(#pushes)*
            }));
            return;
        };
        if element == AttributeType::Graph {
            self.verify = true;
        }
        let number = element.list_of().unwrap_or(element) as i32;
        self.patches.push(quote!(
            ::onnx_text::__private::attribute(&mut #place, ::core::option::Option::Some(#number));
        ));
        // Patches run last first, so each index still counts the written elements before it.
        for list_hole in holes {
            let Some(expr) = self.take(list_hole.hole) else {
                continue;
            };
            let Some((_, call, _)) = attribute_field(element, at(expr)) else {
                continue;
            };
            self.field(list_field(element), |p| {
                p.splice_into_list(expr, list_hole.index, false, "attribute_lists", call)
            });
        }
    }

    /// A tensor constant's holes: among its dims and its data.
    fn tensor(&mut self, tensor: &TensorProto) {
        let Some(holes) = tensor.doc_string.as_deref().and_then(ListHoles::from_note) else {
            return;
        };
        let place = self.place();
        self.patches
            .push(quote!(#place.doc_string = ::core::option::Option::None;));
        let dtype = tensor.data_type.unwrap_or(0);
        for list_hole in &holes {
            let Some(expr) = self.take(list_hole.hole) else {
                continue;
            };
            if list_hole.site == Site::Dims || expr.spread {
                // The element count waits for the values.
                self.verify = true;
            }
            let (field, position, call) = match list_hole.site {
                Site::Dims => (
                    "dims",
                    "tensor_dims",
                    quote_spanned!(at(expr)=> ::onnx_text::__private::TensorDimension::tensor_dimension),
                ),
                Site::Values => match data_field(dtype, at(expr)) {
                    Some((field, call)) => (field, "tensor_data", call),
                    None => {
                        self.errors.push(syn::Error::new(
                            expr.span,
                            format!(
                                "Rust values cannot stand in `{}` tensor data: write the values",
                                dtype_name(dtype)
                            ),
                        ));
                        continue;
                    }
                },
            };
            self.field(field, |p| {
                p.splice_into_list(expr, list_hole.index, false, position, call)
            });
        }
    }

    /// A type: the dims of tensor and sparse tensor shapes, through sequences, maps and
    /// optionals.
    fn type_proto(&mut self, ty: &TypeProto) {
        let inner = match &ty.value {
            Some(type_proto::Value::TensorType(tensor)) => {
                if let Some(shape) = &tensor.shape {
                    self.enter(Step::Call("shape_dims"), |p| p.shape(&shape.dim));
                }
                return;
            }
            Some(type_proto::Value::SparseTensorType(tensor)) => {
                if let Some(shape) = &tensor.shape {
                    self.enter(Step::Call("shape_dims"), |p| p.shape(&shape.dim));
                }
                return;
            }
            Some(type_proto::Value::SequenceType(sequence)) => sequence.elem_type.as_deref(),
            Some(type_proto::Value::OptionalType(optional)) => optional.elem_type.as_deref(),
            Some(type_proto::Value::MapType(map)) => map.value_type.as_deref(),
            _ => None,
        };
        if let Some(inner) = inner {
            self.enter(Step::Call("inner_type"), |p| p.type_proto(inner));
        }
    }

    /// The dims of a shape, the list at the current place.
    fn shape(&mut self, dims: &[onnx_runtime_types::tensor_shape_proto::Dimension]) {
        for (i, dim) in dims.iter().enumerate() {
            let Some(dimension::Value::DimParam(param)) = &dim.value else {
                continue;
            };
            let Some(hole) = Hole::from_marker(param) else {
                continue;
            };
            let Some(expr) = self.take(hole) else {
                continue;
            };
            let call = quote_spanned!(at(expr)=> ::onnx_text::__private::dimension);
            self.splice_into_list(expr, i, true, "dimensions", call);
        }
    }
}

/// Appends the value (or each item) of `expr` to the list attribute `attribute` (a `&mut`),
/// whose type the Rust values decide.
fn push_element(expr: &HoleExpr, attribute: &TokenStream) -> TokenStream {
    let value = &expr.expr;
    let shown = expr.shown();
    let push = quote_spanned!(at(expr)=> ::onnx_text::__private::AttributeElement::push_element);
    if !expr.spread {
        return quote_spanned!(at(expr)=> __onnx_holes.ok(#shown, #push(&(#value), #attribute)););
    }
    let each = quote_spanned!(at(expr)=> |__onnx_item| __onnx_holes.ok(#shown, #push(__onnx_item, #attribute)));
    let items = spread(expr, "attribute_lists", each);
    quote!(#items;)
}

/// The expansion of a spread: `each` (a closure taking a reference to an item) of every item of
/// `expr`'s value, collected in a `Vec`. See `onnx_text::__private::spread` for how the value's
/// type picks the way to its items, with one error naming `position` when it has none.
fn spread(expr: &HoleExpr, position: &str, each: TokenStream) -> TokenStream {
    let source = spread_source(expr);
    let position = proc_macro2::Ident::new(position, at(expr));
    quote_spanned!(at(expr)=> {
        let __onnx_spread = ::onnx_text::__private::SpreadSource(#source);
        #[allow(unused_imports)]
        use ::onnx_text::__private::{ViaIterator as _, ViaList as _};
        (&&__onnx_spread).spread_kind().#position(__onnx_spread, #each)
    })
}

/// Where generated code about a hole stands: at the hole, so that errors land there, but
/// resolving names as the macro's call site does, where its variables live.
fn at(expr: &HoleExpr) -> Span {
    Span::call_site().located_at(expr.span)
}

/// What a spread iterates: a named variable by reference (holes borrow, as `format!` does), an
/// expression by value.
fn spread_source(expr: &HoleExpr) -> TokenStream {
    let value = &expr.expr;
    if expr.named {
        quote_spanned!(at(expr)=> &#value)
    } else {
        quote_spanned!(at(expr)=> (#value))
    }
}

/// The attribute type numbered `number`, unless it is `UNDEFINED` or no type at all.
fn attr_type(number: i32) -> Option<AttributeType> {
    AttributeType::try_from(number)
        .ok()
        .filter(|ty| *ty != AttributeType::Undefined)
}

/// The element type of a list type; a single type is its own element type.
fn element_of(ty: AttributeType) -> AttributeType {
    onnx_syntax::syntax::ATTRIBUTE_TYPES
        .iter()
        .map(|(t, _)| *t)
        .find(|t| t.list_of() == Some(ty))
        .unwrap_or(ty)
}

/// The `AttributeProto` field of an attribute type, the conversion that fills it, and whether
/// the field is boxed; `None` for `UNDEFINED`, which has no field.
fn attribute_field(
    ty: AttributeType,
    span: Span,
) -> Option<(proc_macro2::Ident, TokenStream, bool)> {
    let (field, path, boxed) = match ty {
        AttributeType::Undefined => return None,
        AttributeType::Float => ("f", "Float::float", false),
        AttributeType::Int => ("i", "Int::int", false),
        AttributeType::String => ("s", "Str::string", false),
        AttributeType::Tensor => ("t", "Tensor::tensor", true),
        AttributeType::Graph => ("g", "Graph::graph", true),
        AttributeType::TypeProto => ("tp", "Type::type_proto", true),
        AttributeType::SparseTensor => ("sparse_tensor", "SparseTensor::sparse_tensor", true),
        AttributeType::Floats => ("floats", "Floats::floats", false),
        AttributeType::Ints => ("ints", "Ints::ints", false),
        AttributeType::Strings => ("strings", "Strs::strings", false),
        AttributeType::Tensors => ("tensors", "Tensors::tensors", false),
        AttributeType::Graphs => ("graphs", "Graphs::graphs", false),
        AttributeType::SparseTensors => ("sparse_tensors", "SparseTensors::sparse_tensors", false),
        AttributeType::TypeProtos => ("type_protos", "Types::type_protos", false),
    };
    let path: TokenStream = format!("::onnx_text::__private::{path}")
        .parse()
        .unwrap_or_default();
    let path = respan(path, span);
    Some((
        proc_macro2::Ident::new(field, Span::call_site()),
        path,
        boxed,
    ))
}

/// The list field of an element type.
fn list_field(element: AttributeType) -> &'static str {
    match element {
        AttributeType::Float => "floats",
        AttributeType::Int => "ints",
        AttributeType::String => "strings",
        AttributeType::Tensor => "tensors",
        AttributeType::Graph => "graphs",
        AttributeType::TypeProto => "type_protos",
        _ => "sparse_tensors",
    }
}

/// The `TensorProto` field that stores elements of `dtype`, and the conversion to it; `None`
/// for element types whose values Rust cannot give losslessly here (16- and 8-bit floats,
/// complex, 4- and 2-bit).
fn data_field(dtype: i32, span: Span) -> Option<(&'static str, TokenStream)> {
    let (field, path) = match dtype {
        1 => ("float_data", "FloatElement"),
        2 => ("int32_data", "Uint8Element"),
        3 => ("int32_data", "Int8Element"),
        4 => ("int32_data", "Uint16Element"),
        5 => ("int32_data", "Int16Element"),
        6 => ("int32_data", "Int32Element"),
        7 => ("int64_data", "Int64Element"),
        8 => ("string_data", "StringElement"),
        9 => ("int32_data", "BoolElement"),
        11 => ("double_data", "DoubleElement"),
        12 => ("uint64_data", "Uint32Element"),
        13 => ("uint64_data", "Uint64Element"),
        _ => return None,
    };
    let path: TokenStream = format!("::onnx_text::__private::{path}::element")
        .parse()
        .unwrap_or_default();
    Some((field, respan(path, span)))
}

fn dtype_name(dtype: i32) -> String {
    onnx_syntax::dtype::elem_type_by_number(dtype)
        .map_or_else(|| dtype.to_string(), |t| t.name.to_owned())
}

/// `tokens` with every token at `span`, so that errors about them land on the user's hole.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tree| {
            tree.set_span(span);
            tree
        })
        .collect()
}
