//! The step table: for each operator, its versions (from the schema table), and for each step
//! between two neighbouring versions, how a node crosses it. A step is crossed by an adapter
//! (`crate::adapters`), refused as a whole (`crate::refusals`), or derived from the two
//! schemas: upward, the same signature with a superset of types is compatible as is; otherwise
//! each node is checked on its actual types and attribute values (`crate::compat`).

mod defaults;

pub(crate) use defaults::default_value;

use onnx_schema::table::{Schema, table};

/// The versions (schemas) of an operator of a standard domain, oldest first.
pub(crate) fn versions(domain: &str, operator: &str) -> Option<&'static [Schema]> {
    table()?.versions(domain, operator)
}

/// How a node crosses one step between neighbouring versions of its operator.
///
/// ```
/// use onnx_version_converter::steps::{Crossing, Step, crossing};
/// let softmax = Step { domain: "ai.onnx", operator: "Softmax", from: 11, to: 13 };
/// assert_eq!(crossing(&softmax), Crossing::Adapter); // the 2-D coercion written out
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Crossing {
    /// A rewrite of the node (`adapters/`).
    Adapter,
    /// The step is refused as a whole: its meaning changed and nothing rewrites it yet.
    Refused(&'static str),
    /// Upward, nothing a node can hold changes: it is kept as is.
    Compatible,
    /// Each node is checked on its types and attribute values (and attributes the target lacks
    /// dropped where they hold the value the target amounts to).
    CheckedPerNode,
}

/// One step of an operator's versions: `from` and `to` are neighbouring `since_version`s.
///
/// ```
/// use onnx_version_converter::steps::Step;
/// let step = Step { domain: "ai.onnx", operator: "Relu", from: 14, to: 13 };
/// assert!(!step.is_up());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step<'a> {
    /// The domain (`ai.onnx`, `ai.onnx.ml`).
    pub domain: &'a str,
    /// The operator.
    pub operator: &'a str,
    /// The version the node is at.
    pub from: i64,
    /// The neighbouring version it goes to.
    pub to: i64,
}

impl Step<'_> {
    /// Whether the step goes to a newer version.
    ///
    /// ```
    /// use onnx_version_converter::steps::Step;
    /// assert!(Step { domain: "ai.onnx", operator: "Relu", from: 13, to: 14 }.is_up());
    /// ```
    pub fn is_up(&self) -> bool {
        self.to > self.from
    }
}

/// How a node crosses `step`: every step of every operator has an answer, which
/// the step table's unit test walks.
///
/// ```
/// use onnx_version_converter::steps::{Crossing, Step, crossing};
/// let step = |operator, from, to| crossing(&Step { domain: "ai.onnx", operator, from, to });
/// assert_eq!(step("Abs", 6, 13), Crossing::Compatible); // bfloat16 added
/// assert_eq!(step("Abs", 13, 6), Crossing::CheckedPerNode);
/// assert_eq!(step("ReduceSum", 11, 13), Crossing::Adapter); // `axes` became an input
/// assert!(matches!(step("OneHot", 11, 9), Crossing::Refused(_)));
/// ```
pub fn crossing(step: &Step<'_>) -> Crossing {
    if crate::adapters::find(step).is_some() {
        return Crossing::Adapter;
    }
    if let Some(why) = crate::refusals::refused_step(step) {
        return Crossing::Refused(why);
    }
    let (Some(from), Some(to)) = (
        schema(step.domain, step.operator, step.from),
        schema(step.domain, step.operator, step.to),
    ) else {
        return Crossing::CheckedPerNode;
    };
    if step.is_up() && upward_compatible(from, to) {
        Crossing::Compatible
    } else {
        Crossing::CheckedPerNode
    }
}

/// The schema of `operator` whose `since_version` is `since`.
pub(crate) fn schema(domain: &str, operator: &str, since: i64) -> Option<&'static Schema> {
    versions(domain, operator)?
        .iter()
        .find(|s| s.since == since)
}

/// Upward compatibility, derived: every node valid at `from` is valid at `to` and means the
/// same. The same inputs, outputs and attributes (names, arities, types), the same defaults,
/// no new required attribute, and a superset of types at each position. (A change of meaning
/// that the signature does not show is listed in `crate::refusals::SEMANTIC_CHANGES`, which
/// takes precedence.)
pub(crate) fn upward_compatible(from: &Schema, to: &Schema) -> bool {
    let same_formals = |a: &[onnx_schema::table::Formal], b: &[onnx_schema::table::Formal]| {
        a.len() == b.len()
            && a.iter().zip(b).all(|(x, y)| {
                x.arity == y.arity
                    && match (&x.allowed, &y.allowed) {
                        (Some(xs), Some(ys)) => xs.iter().all(|t| ys.contains(t)),
                        (None, None) => x.type_str == y.type_str,
                        _ => false,
                    }
            })
    };
    if from.deprecated || to.deprecated {
        return false;
    }
    if !same_formals(&from.inputs, &to.inputs) || !same_formals(&from.outputs, &to.outputs) {
        return false;
    }
    if from.min_inputs < to.min_inputs || from.max_inputs > to.max_inputs {
        return false;
    }
    let kept = from.attributes.iter().all(|a| {
        to.attribute(a.name).is_some_and(|b| {
            b.ty == a.ty
                && b.required == a.required
                && default_value(from, a.name) == default_value(to, a.name)
        })
    });
    let no_new_required = to
        .attributes
        .iter()
        .all(|b| !b.required || from.attribute(b.name).is_some());
    kept && no_new_required
}

#[cfg(test)]
mod tests;
