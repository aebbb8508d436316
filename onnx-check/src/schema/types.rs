//! Operand types against the operator's type constraints, where the types are known.
//!
//! Types are known from declarations (typed graph and function inputs and outputs,
//! initializers, value infos) and from inference: a node's output whose type parameter its
//! inputs bind (`Add`'s `T`), that allows one type only (`Shape`'s `T1`), that the schema fixes
//! (`tensor(int64)`), or that an attribute gives (`Constant`'s `value`, `Cast`'s `to`). Each
//! known operand is checked: its type must be allowed for its parameter, and every operand of
//! one parameter must have the same type (unless the parameter is a heterogeneous variadic).
//! What could be checked is counted in [`Coverage`].

use crate::{Check, Checker, Diagnostic};
use onnx_schema::constraints::{Binding, Mismatch, Operand, Side, TypeName, formal_at, is_type};
use onnx_schema::table::{Formal, Schema};
use onnx_syntax::Span;
use onnx_syntax::diagnostic::message::operator;
use onnx_syntax::dtype::elem_type_by_number;
use onnx_syntax::hash::NameMap;
use onnx_syntax::syntax::{AttrValue, ElemType, Function, Graph, Name, Node, Type, TypeKind};

/// How many node types the type checks could check: how many nodes were checked against a
/// schema, and how many of those had the types of all, some or none of their inputs known.
/// The counts are zero when `type_constraint` is off.
///
/// ```
/// use onnx_check::CheckTree;
/// use onnx_check::CheckOptions;
/// let text = r#"<opset_import: ["" : 21]>
/// g (float[N] x, y) => (z) { s = Shape(x)  t = Cast <to = 1> (s)  u = Add(t, y)  z = com.x.Op(u) }"#;
/// let tree = onnx_syntax::Entry::Model.parse(text)?;
/// let coverage = tree.check(text, &CheckOptions::default()).coverage;
/// assert_eq!(coverage.schema_nodes, 3); // com.x.Op is a custom operator
/// assert_eq!(coverage.typed, 2); // Shape (x is declared) and Cast (s is inferred)
/// assert_eq!(coverage.partially_typed, 1); // Add: t is inferred, y is untyped
/// assert_eq!(coverage.unchecked_nodes, 1);
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Nodes checked against an operator schema.
    pub schema_nodes: usize,
    /// Of those, nodes with inputs whose types were all known: fully type-checked.
    pub typed: usize,
    /// Nodes with some, but not all, input types known: checked as far as known.
    pub partially_typed: usize,
    /// Nodes with inputs, none of whose types were known.
    pub untyped: usize,
    /// Nodes without inputs (such as `Constant`): nothing to check on the way in, though a
    /// declared output type is still checked.
    pub without_inputs: usize,
    /// Nodes not checked against a schema: custom domains, unknown imports, unknown
    /// operators, and calls to local functions.
    pub unchecked_nodes: usize,
}

/// Adds up the counts of several texts.
///
/// ```
/// use onnx_check::Coverage;
/// let mut total = Coverage { typed: 2, ..Coverage::default() };
/// total += Coverage { typed: 1, untyped: 4, ..Coverage::default() };
/// assert_eq!((total.typed, total.untyped), (3, 4));
/// ```
impl std::ops::AddAssign for Coverage {
    fn add_assign(&mut self, other: Coverage) {
        self.schema_nodes += other.schema_nodes;
        self.typed += other.typed;
        self.partially_typed += other.partially_typed;
        self.untyped += other.untyped;
        self.without_inputs += other.without_inputs;
        self.unchecked_nodes += other.unchecked_nodes;
    }
}

impl Coverage {
    /// Counts a schema node with `present` inputs (not `""`), `known` of them typed.
    fn count(&mut self, present: usize, known: usize) {
        self.schema_nodes += 1;
        match (present, known) {
            (0, _) => self.without_inputs += 1,
            (p, k) if k == p => self.typed += 1,
            (_, 0) => self.untyped += 1,
            _ => self.partially_typed += 1,
        }
    }
}

/// A value's known type and where it comes from.
#[derive(Clone, Debug)]
struct Known {
    ty: TypeName,
    /// The type as written, or the node that it was inferred from.
    origin: Span,
    inferred: bool,
}

/// The known types of each enclosing graph or body, innermost last.
#[derive(Default)]
pub(crate) struct Types<'t> {
    scopes: Vec<Scope<'t>>,
    /// What the type checks covered.
    pub coverage: Coverage,
    /// The slots of the outputs of the node being checked, kept between its checks and the
    /// types it defines (a buffer reused from node to node).
    output_slots: Vec<Option<usize>>,
    /// The bindings of the node being checked (a buffer reused from node to node).
    binding: Binding<'t>,
}

/// The names of one graph or body with a slot each, so that a node's output is looked up once
/// both to check its declared type and to record the type it gets. A name whose slot holds
/// `None` is defined there with an unknown type, which hides an outer value of the same name.
struct Scope<'t> {
    slots: NameMap<'t, usize>,
    known: Vec<Option<Known>>,
}

impl<'t> Types<'t> {
    /// A new innermost scope, with room for `capacity` names.
    pub fn push(&mut self, capacity: usize) {
        self.scopes.push(Scope {
            slots: NameMap::with_capacity(capacity),
            known: Vec::with_capacity(capacity),
        });
    }

    pub fn pop(&mut self) {
        self.scopes.pop();
    }

    /// The known type of a visible value.
    fn get(&self, name: &str) -> Option<&Known> {
        // Innermost first; an indexed loop over slices, as iterator adapters and indexing a
        // `Vec` cost calls unoptimized.
        let scopes = self.scopes.as_slice();
        let mut index = scopes.len();
        while index > 0 {
            index -= 1;
            let scope = &scopes[index];
            if let Some(&slot) = scope.slots.get(name) {
                return scope.known.as_slice()[slot].as_ref();
            }
        }
        None
    }

    /// The type the innermost scope declares for `name`.
    fn here(&self, name: &str) -> Option<&Known> {
        let scope = self.scopes.last()?;
        scope.known[*scope.slots.get(name)?].as_ref()
    }

    /// The slot of `name` in the innermost scope, which defines it from now on.
    fn slot(&mut self, name: &'t str) -> Option<usize> {
        let scope = self.scopes.last_mut()?;
        let next = scope.known.len();
        match scope.slots.insert_new(name, next) {
            Some(&slot) => Some(slot),
            None => {
                scope.known.push(None);
                Some(next)
            }
        }
    }

    /// The known type in a slot of the innermost scope.
    fn known(&self, slot: usize) -> Option<&Known> {
        self.scopes.last()?.known[slot].as_ref()
    }

    /// Records the type of a slot of the innermost scope; a known type is not replaced.
    fn learn(&mut self, slot: usize, known: Option<Known>) {
        if let Some(scope) = self.scopes.last_mut()
            && scope.known[slot].is_none()
        {
            scope.known[slot] = known;
        }
    }

    /// Defines `name` in the innermost scope; a known type is not replaced.
    fn define(&mut self, name: &'t str, known: Option<Known>) {
        if let Some(slot) = self.slot(name) {
            self.learn(slot, known);
        }
    }

    /// Declares the written type of `name`, if it has one; `defines` marks a name that the
    /// declaration defines (an input), which is in scope even untyped.
    fn declare(&mut self, name: &'t Name, ty: Option<&Type>, defines: bool) {
        let known = ty.and_then(|ty| {
            Some(Known {
                ty: type_name(ty)?.into(),
                origin: ty.span,
                inferred: false,
            })
        });
        if known.is_some() || defines {
            self.define(&name.text, known);
        }
    }
}

/// How deep [`type_name`] follows nested types; the parser nests less deeply.
const MAX_TYPE_DEPTH: usize = 64;

/// A type in the schemas' spelling, if it can be written so. An opaque type is spelled as the
/// text writes it (`opaque(domain,name)`): no standard operator's type constraint allows one.
fn type_name(ty: &Type) -> Option<String> {
    spell(ty, MAX_TYPE_DEPTH)
}

fn spell(ty: &Type, depth: usize) -> Option<String> {
    let depth = depth.checked_sub(1)?;
    Some(match &ty.kind {
        TypeKind::Tensor(elem, _) => format!("tensor({})", elem_name(*elem)?),
        TypeKind::SparseTensor(elem, _) => format!("sparse_tensor({})", elem_name(*elem)?),
        TypeKind::Sequence(inner) => format!("seq({})", spell(inner, depth)?),
        TypeKind::Optional(inner) => format!("optional({})", spell(inner, depth)?),
        // The schemas write a map's tensor values by element type: `map(int64, float)`.
        TypeKind::Map(key, value) => match &value.kind {
            TypeKind::Tensor(elem, _) => {
                format!("map({}, {})", elem_name(*key)?, elem_name(*elem)?)
            }
            _ => format!("map({}, {})", elem_name(*key)?, spell(value, depth)?),
        },
        TypeKind::Opaque { domain, name } => {
            let name = name.as_deref().unwrap_or_default();
            match domain.as_deref().filter(|d| !d.is_empty()) {
                Some(domain) => format!("opaque({domain},{name})"),
                None => format!("opaque({name})"),
            }
        }
    })
}

fn elem_name(elem: ElemType) -> Option<&'static str> {
    elem_type_by_number(elem).map(|info| info.name)
}

fn tensor_of(elem: ElemType) -> Option<TypeName> {
    Some(format!("tensor({})", elem_name(elem)?).into())
}

impl<'t> Checker<'t> {
    /// A new type scope for a graph, with its declared types.
    pub(crate) fn enter_graph_types(&mut self, graph: &'t Graph) {
        if !self.on(Check::TypeConstraint) {
            self.types.push(0);
            return;
        }
        let names = graph.inputs.len() + graph.locals.len() + graph.outputs.len();
        self.types.push(names + graph.nodes.len());
        for decl in &graph.inputs {
            self.types
                .declare(&decl.info.name, decl.info.ty.as_ref(), true);
        }
        for decl in &graph.locals {
            let defines = decl.initializer.is_some();
            self.types
                .declare(&decl.info.name, decl.info.ty.as_ref(), defines);
        }
        for output in &graph.outputs {
            self.types.declare(&output.name, output.ty.as_ref(), false);
        }
    }

    /// A new type scope for a function body, with its declared types.
    pub(crate) fn enter_function_types(&mut self, function: &'t Function) {
        if !self.on(Check::TypeConstraint) {
            self.types.push(0);
            return;
        }
        let names = function.inputs.len() + function.outputs.len() + function.value_infos.len();
        self.types.push(names + function.nodes.len());
        for input in &function.inputs {
            self.types.declare(&input.name, input.ty.as_ref(), true);
        }
        for info in function.outputs.iter().chain(&function.value_infos) {
            self.types.declare(&info.name, info.ty.as_ref(), false);
        }
    }

    /// The outputs of a node not checked against a schema: defined, types unknown.
    pub(super) fn untyped_outputs(&mut self, node: &'t Node) {
        if !self.on(Check::TypeConstraint) {
            return;
        }
        self.types.coverage.unchecked_nodes += 1;
        for output in &node.outputs {
            if !output.text.is_empty() {
                self.types.define(&output.text, None);
            }
        }
    }

    /// Checks the known operand types of a node, then records the types of its outputs.
    pub(super) fn node_types(&mut self, node: &'t Node, schema: &'static Schema) {
        if !self.on(Check::TypeConstraint) {
            return;
        }
        // The buffers of the previous node, emptied.
        let mut binding = std::mem::take(&mut self.types.binding);
        binding.clear();
        let mut slots = std::mem::take(&mut self.types.output_slots);
        slots.clear();
        let mut clean = true;
        let (mut present, mut known) = (0, 0);
        // Indexed loops over slices, as iterator adapters and indexing a `Vec` cost calls
        // unoptimized.
        let (inputs, outputs) = (node.inputs.as_slice(), node.outputs.as_slice());
        let mut next = 0;
        while next < inputs.len() {
            let index = next;
            next += 1;
            let input = &inputs[index];
            if input.text.is_empty() {
                continue;
            }
            present += 1;
            let Some(found) = self.types.get(&input.text).cloned() else {
                continue;
            };
            known += 1;
            if let Some(formal) = formal_at(&schema.inputs, index) {
                let operand = Operand {
                    name: input,
                    side: Side::Input,
                    formal,
                };
                clean &= self.operand_type(node, operand, &found, &mut binding);
            }
        }
        let mut next = 0;
        while next < outputs.len() {
            let index = next;
            next += 1;
            let output = &outputs[index];
            // The node defines its outputs but `""`: their slots are made now, filled below.
            // (Matches rather than `Option`'s adapters, which cost calls unoptimized.)
            let declared = if output.text.is_empty() {
                slots.push(None);
                self.types.here(&output.text)
            } else {
                let slot = self.types.slot(&output.text);
                slots.push(slot);
                match slot {
                    Some(slot) => self.types.known(slot),
                    None => None,
                }
            };
            let (Some(declared), Some(formal)) =
                (declared.cloned(), formal_at(&schema.outputs, index))
            else {
                continue;
            };
            let operand = Operand {
                name: output,
                side: Side::Output,
                formal,
            };
            clean &= self.operand_type(node, operand, &declared, &mut binding);
        }
        self.types.coverage.count(present, known);
        let mut next = 0;
        while next < slots.len() {
            let index = next;
            next += 1;
            let Some(slot) = slots[index] else {
                continue;
            };
            let inferred = match formal_at(&schema.outputs, index) {
                Some(formal) if clean => infer(schema, formal, &binding, node),
                _ => None,
            };
            let known = inferred.map(|ty| Known {
                ty,
                origin: node.op_span,
                inferred: true,
            });
            self.types.learn(slot, known);
        }
        self.types.binding = binding;
        self.types.output_slots = slots;
    }

    /// Checks one operand, reporting a mismatch; true if it is fine.
    fn operand_type<'n>(
        &mut self,
        node: &Node,
        operand: Operand<'n>,
        found: &Known,
        binding: &mut Binding<'n>,
    ) -> bool {
        let Err(mismatch) = binding.bind(operand, &found.ty) else {
            return true;
        };
        let name = operand.name;
        let message = mismatch.message(operand, &operator(node), &found.ty);
        let mut diagnostic = Diagnostic::new(Check::TypeConstraint, name.span, message);
        if let Mismatch::Conflict {
            param, bound, by, ..
        } = &mismatch
        {
            diagnostic = diagnostic.with_label(by.span, format!("`{param}` is {bound} here"));
        }
        if found.origin != name.span {
            let how = if found.inferred {
                format!("{} inferred from this node", found.ty)
            } else {
                "declared here".to_owned()
            };
            diagnostic = diagnostic.with_label(found.origin, how);
        }
        self.report(diagnostic);
        false
    }
}

/// The type of an output, where the schema and the node determine it.
fn infer(schema: &Schema, formal: &Formal, binding: &Binding, node: &Node) -> Option<TypeName> {
    if !formal.homogeneous {
        return None;
    }
    if is_type(formal.type_str) {
        return Some(formal.type_str.into());
    }
    if let Some(bound) = binding.get(formal.type_str) {
        return Some(bound.clone());
    }
    if let Some([only]) = formal.allowed.as_deref() {
        return Some((*only).into());
    }
    from_attributes(schema, node)
}

/// The output type of the standard operators whose attributes give it.
fn from_attributes(schema: &Schema, node: &Node) -> Option<TypeName> {
    if !onnx_syntax::domain::is_default(schema.domain) {
        return None;
    }
    let value = |name: &str| {
        node.attributes
            .iter()
            .find(|a| a.name.text == name)
            .and_then(|a| a.value.as_ref())
    };
    match schema.name {
        "Constant" => node
            .attributes
            .iter()
            .find_map(|a| constant_type(a.name.text.as_str(), a.value.as_ref()?)),
        "Cast" => match value("to")? {
            AttrValue::Int(elem) => tensor_of(i32::try_from(*elem).ok()?),
            _ => None,
        },
        "ConstantOfShape" => match value("value") {
            None => tensor_of(1),
            Some(AttrValue::Tensor(tensor)) => tensor_of(tensor.elem_type),
            Some(_) => None,
        },
        _ => None,
    }
}

/// The type of a `Constant` from one of its value attributes.
fn constant_type(name: &str, value: &AttrValue) -> Option<TypeName> {
    match (name, value) {
        ("value", AttrValue::Tensor(tensor)) => tensor_of(tensor.elem_type),
        ("value_float", AttrValue::Float(_)) | ("value_floats", AttrValue::Floats(_)) => {
            tensor_of(1)
        }
        ("value_int", AttrValue::Int(_)) | ("value_ints", AttrValue::Ints(_)) => tensor_of(7),
        ("value_string", AttrValue::String(_)) | ("value_strings", AttrValue::Strings(_)) => {
            tensor_of(8)
        }
        _ => None,
    }
}
