//! Type constraints: whether an operand's type is allowed for its formal parameter, and the
//! type each parameter of one node is bound to. The checks' `type_constraint` and inference
//! through a called function's body ask the same questions here.

use std::rc::Rc;

use onnx_syntax::Span;
use onnx_syntax::diagnostic::message::list;
use onnx_syntax::syntax::Name;

use crate::table::{Arity, Formal, table};
use crate::{AtVersion, at_version};

/// A type in the schemas' spelling: `tensor(float)`, `seq(tensor(int64))`, `map(string, int64)`.
pub type TypeName = Rc<str>;

/// What went wrong with one operand's type.
pub enum Mismatch<'n> {
    /// The parameter does not allow the type.
    NotAllowed {
        param: &'static str,
        allowed: &'static [&'static str],
    },
    /// The parameter is bound to another type, by an earlier operand.
    Conflict {
        param: &'static str,
        bound: TypeName,
        by: &'n Name,
        side: Side,
    },
    /// The schema fixes the operand's type to another one.
    NotType { expected: &'static str },
}

impl Mismatch<'_> {
    /// What `type_constraint` says of `operand`, of type `ty`, of the operator `op`.
    pub fn message(&self, operand: Operand<'_>, op: &str, ty: &str) -> String {
        let Operand { name, side, formal } = operand;
        let what = format!("{} `{}` of `{op}` is {ty}", side.noun(), name.text);
        match self {
            Mismatch::NotAllowed { param, allowed } => format!(
                "{what}, which `{param}` does not allow: it allows {}",
                list(allowed.iter().copied(), |t| t.to_owned())
            ),
            Mismatch::Conflict {
                param,
                bound,
                by,
                side,
            } => format!(
                "{what}, but `{param}` is already {bound} from {} `{}`",
                side.noun(),
                by.text
            ),
            Mismatch::NotType { expected } => {
                format!("{what}, but `{}` must be {expected}", formal.name)
            }
        }
    }
}

/// What `type_constraint` finds in the inputs of a node of a called function's body, whose
/// types only inference through the call knows (the body's own walk sees its inputs untyped):
/// the first input that the schema of `op` (standard domain `domain`, opset `version`) does not
/// allow, or that conflicts with an earlier one. `inputs` are the node's input names, `types`
/// what inference knows of each, in the schemas' spelling (`tensor(float)`).
pub fn body_input_types(
    domain: &str,
    op: &str,
    version: i64,
    inputs: &[String],
    types: &[Option<String>],
) -> Option<String> {
    let versions = table()?.versions(domain, op)?;
    let AtVersion::Found(schema) = at_version(versions, version)? else {
        return None;
    };
    let names: Vec<Name> = inputs
        .iter()
        .map(|text| Name {
            text: text.clone(),
            span: Span::default(),
        })
        .collect();
    let mut binding = Binding::default();
    for (index, (name, ty)) in names.iter().zip(types).enumerate() {
        let (Some(ty), Some(formal)) = (ty.as_deref(), formal_at(&schema.inputs, index)) else {
            continue;
        };
        let ty = TypeName::from(ty);
        let operand = Operand {
            name,
            side: Side::Input,
            formal,
        };
        if let Err(mismatch) = binding.bind(operand, &ty) {
            let op = if domain.is_empty() {
                op.to_owned()
            } else {
                format!("{domain}.{op}")
            };
            return Some(mismatch.message(operand, &op, &ty));
        }
    }
    None
}

/// One operand of a node being checked: its name, its side, and its formal parameter.
#[derive(Clone, Copy)]
pub struct Operand<'n> {
    pub name: &'n Name,
    pub side: Side,
    pub formal: &'static Formal,
}

/// The types that the type parameters of one node are bound to so far.
#[derive(Default)]
pub struct Binding<'n> {
    bound: Vec<(&'static str, TypeName, &'n Name, Side)>,
}

impl<'n> Binding<'n> {
    /// Unbinds every parameter, for the next node.
    pub fn clear(&mut self) {
        self.bound.clear();
    }

    /// The index of `param` in `bound`, if it is bound.
    fn position(&self, param: &str) -> Option<usize> {
        // An indexed loop, as iterator adapters cost calls unoptimized.
        let mut index = 0;
        while index < self.bound.len() {
            if self.bound[index].0 == param {
                return Some(index);
            }
            index += 1;
        }
        None
    }

    pub fn get(&self, param: &str) -> Option<&TypeName> {
        Some(&self.bound[self.position(param)?].1)
    }

    /// Checks an operand of type `ty` for its formal parameter, and binds the parameter.
    pub fn bind(&mut self, operand: Operand<'n>, ty: &TypeName) -> Result<(), Mismatch<'n>> {
        let formal = operand.formal;
        let Some(allowed) = formal.allowed.as_deref() else {
            return match is_type(formal.type_str) && **ty != *formal.type_str {
                true => Err(Mismatch::NotType {
                    expected: formal.type_str,
                }),
                false => Ok(()),
            };
        };
        let param = formal.type_str;
        if !allows(allowed, ty) {
            return Err(Mismatch::NotAllowed { param, allowed });
        }
        if !formal.homogeneous {
            return Ok(());
        }
        match self.position(param).map(|index| &self.bound[index]) {
            Some((_, bound, by, side)) if bound != ty => Err(Mismatch::Conflict {
                param,
                bound: bound.clone(),
                by,
                side: *side,
            }),
            Some(_) => Ok(()),
            None => {
                self.bound
                    .push((param, ty.clone(), operand.name, operand.side));
                Ok(())
            }
        }
    }
}

/// Whether `ty` is one of `allowed`.
pub fn allows(allowed: &[&str], ty: &str) -> bool {
    // An indexed loop, as iterator adapters cost calls unoptimized.
    let mut index = 0;
    while index < allowed.len() {
        if allowed[index] == ty {
            return true;
        }
        index += 1;
    }
    false
}

/// True for a type string (`tensor(int64)`), as opposed to a parameter name.
pub fn is_type(type_str: &str) -> bool {
    // A slice pattern: unoptimized, `ends_with` costs two hundred instructions.
    matches!(type_str.as_bytes(), [.., b')'])
}

/// Which side of a node: inputs or outputs.
#[derive(Clone, Copy)]
pub enum Side {
    Input,
    Output,
}

impl Side {
    pub fn noun(self) -> &'static str {
        match self {
            Side::Input => "input",
            Side::Output => "output",
        }
    }
}

/// The formal parameter that the operand at `index` binds to: its own, or the trailing
/// variadic's.
pub fn formal_at(formals: &[Formal], index: usize) -> Option<&Formal> {
    // Slice patterns: unoptimized, `Option`'s adapters cost a call and a closure each, and the
    // type checks ask for every operand.
    match formals {
        _ if index < formals.len() => Some(&formals[index]),
        [.., last] if last.arity == Arity::Variadic => Some(last),
        _ => None,
    }
}
