//! The kernels, by domain, operator and the schema version they implement, and what every
//! kernel uses: its context (attributes, versions, subgraphs, limits) and operand helpers.
//!
//! A kernel implements an operator from a schema version on: `lookup` gives, for a node whose
//! schema is `since`, the kernel registered with the greatest version at or below it. A kernel
//! that differs between versions reads `ctx.since`. Each family of operators is a module that
//! registers its kernels in [`register`].

mod activation;
mod algebra;
mod attention;
mod cast;
mod control;
mod conv;
mod elementwise;
mod fft;
mod floats;
mod gemm;
mod gradient;
mod image;
mod indexing;
mod layer_norm;
mod layout;
mod linalg;
mod logic;
mod loss;
mod math;
mod ml;
mod nms;
mod norm;
mod pool;
mod quant;
mod random;
mod reduce;
mod resize;
mod rnn;
mod sampling;
mod scan;
mod sequence;
mod shape;
mod signal;
mod softmax;
mod string;
mod training;
mod wide;

use crate::error::KernelResult;
use crate::graph::{Model, Scope};
use crate::tensor::Tensor;
use crate::value::Val;
use onnx_runtime_types::{AttributeProto, GraphProto};
use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, OnceLock};

/// A kernel: the node's context and its inputs (`None` for a missing optional one) to its
/// outputs, or a message saying what is wrong.
pub(crate) type Kernel = fn(&Ctx<'_>, &[Option<&Val>]) -> KernelResult<Vec<Val>>;

/// What a kernel knows of its node.
pub(crate) struct Ctx<'a> {
    /// The node's operator, for kernels that serve several.
    pub op_type: &'a str,
    /// The node's attributes (a function body's references already resolved).
    pub attributes: &'a [AttributeProto],
    /// The `since_version` of the operator's schema in force.
    pub since: i64,
    /// How many outputs the node names (some may be `""`).
    pub outputs: usize,
    pub subgraphs: &'a HashMap<String, Arc<crate::graph::Graph>>,
    pub scope: &'a Scope<'a>,
    pub model: &'a Model,
    /// The steps of the graph the node is in (Gradient runs some of them again).
    pub steps: &'a [crate::graph::Step],
    /// The node's slot for what its kernel prepares from the attributes ([`Ctx::prepared`]);
    /// `None` where the attributes may differ from run to run (a function body's references).
    pub prepared: Option<&'a OnceLock<Prepared>>,
}

/// What a kernel made from its node's attributes alone, kept with the node.
pub(crate) type Prepared = Result<Arc<dyn Any + Send + Sync>, String>;

/// The kernels, by (domain, operator): (since version, kernel), sorted by version.
pub(crate) struct Registry(HashMap<(&'static str, &'static str), Vec<(i64, Kernel)>>);

impl Registry {
    /// Registers `kernel` for `op` of `domain` from schema version `since` on.
    pub fn add(&mut self, domain: &'static str, op: &'static str, since: i64, kernel: Kernel) {
        let versions = self.0.entry((domain, op)).or_default();
        versions.push((since, kernel));
        versions.sort_by_key(|(since, _)| *since);
    }
}

static REGISTRY: LazyLock<Registry> = LazyLock::new(|| {
    let mut registry = Registry(HashMap::new());
    register(&mut registry);
    registry
});

/// Every family's kernels.
fn register(registry: &mut Registry) {
    activation::register(registry);
    algebra::register(registry);
    attention::register(registry);
    cast::register(registry);
    control::register(registry);
    elementwise::register(registry);
    indexing::register(registry);
    layer_norm::register(registry);
    layout::register(registry);
    linalg::register(registry);
    conv::register(registry);
    gemm::register(registry);
    image::register(registry);
    logic::register(registry);
    loss::register(registry);
    math::register(registry);
    ml::register(registry);
    nms::register(registry);
    norm::register(registry);
    pool::register(registry);
    quant::register(registry);
    random::register(registry);
    reduce::register(registry);
    resize::register(registry);
    rnn::register(registry);
    sampling::register(registry);
    scan::register(registry);
    sequence::register(registry);
    shape::register(registry);
    signal::register(registry);
    softmax::register(registry);
    string::register(registry);
    gradient::register(registry);
    training::register(registry);
}

/// The kernel for a node of `op` in `domain` whose schema is version `since`.
pub(crate) fn lookup(domain: &str, op: &str, since: i64) -> Option<Kernel> {
    REGISTRY
        .0
        .get(&(domain, op))?
        .iter()
        .rev()
        .find(|(version, _)| *version <= since)
        .map(|(_, kernel)| *kernel)
}

/// The operators with a kernel, as (domain, operator).
#[cfg(test)]
pub(crate) fn operators() -> Vec<(&'static str, &'static str)> {
    REGISTRY.0.keys().copied().collect()
}

impl Ctx<'_> {
    pub fn attribute(&self, name: &str) -> Option<&AttributeProto> {
        self.attributes.iter().find(|a| a.name() == name)
    }

    /// An integer attribute, or `default`.
    pub fn int(&self, name: &str, default: i64) -> i64 {
        self.attribute(name).and_then(|a| a.i).unwrap_or(default)
    }

    /// An integer attribute, if given.
    pub fn int_opt(&self, name: &str) -> Option<i64> {
        self.attribute(name).and_then(|a| a.i)
    }

    /// A float attribute, or `default`.
    pub fn float(&self, name: &str, default: f32) -> f32 {
        self.attribute(name).and_then(|a| a.f).unwrap_or(default)
    }

    /// A string attribute, if given (lossily decoded).
    pub fn string(&self, name: &str) -> Option<String> {
        self.attribute(name)
            .and_then(|a| a.s.as_ref())
            .map(|s| String::from_utf8_lossy(s).into_owned())
    }

    /// An integer-list attribute, if given.
    pub fn ints(&self, name: &str) -> Option<&[i64]> {
        self.attribute(name).map(|a| a.ints.as_slice())
    }

    /// A float-list attribute, if given.
    pub fn floats(&self, name: &str) -> Option<&[f32]> {
        self.attribute(name).map(|a| a.floats.as_slice())
    }

    /// A string-list attribute, if given (lossily decoded).
    pub fn strings(&self, name: &str) -> Option<Vec<String>> {
        self.attribute(name).map(|a| {
            a.strings
                .iter()
                .map(|s| String::from_utf8_lossy(s).into_owned())
                .collect()
        })
    }

    /// A tensor attribute, if given.
    pub fn tensor(&self, name: &str) -> KernelResult<Option<Tensor>> {
        match self.attribute(name).and_then(|a| a.t.as_deref()) {
            Some(t) => Tensor::from_proto(t)
                .map(Some)
                .map_err(|e| format!("attribute `{name}`: {e}")),
            None => Ok(None),
        }
    }

    /// A graph attribute's proto, if given.
    pub fn graph_proto(&self, name: &str) -> Option<&GraphProto> {
        self.attribute(name).and_then(|a| a.g.as_deref())
    }

    /// Runs the subgraph of attribute `name` on `inputs`.
    pub fn run_graph(&self, name: &str, inputs: Vec<Val>) -> KernelResult<Vec<Val>> {
        crate::graph::run_subgraph(self, name, inputs)
    }

    /// What `build` makes from the node's attributes: built on the node's first run and kept
    /// with the node for the later runs (as a runtime prepares a kernel when its session is
    /// made), or built anew where the attributes may differ between runs. An error is kept too:
    /// it comes from the attributes alone.
    pub fn prepared<T: Any + Send + Sync>(
        &self,
        build: impl FnOnce() -> KernelResult<T>,
    ) -> KernelResult<Arc<T>> {
        let Some(slot) = self.prepared else {
            return build().map(Arc::new);
        };
        slot.get_or_init(|| build().map(|t| Arc::new(t) as Arc<dyn Any + Send + Sync>))
            .clone()?
            .downcast::<T>()
            .map_err(|_| "the node's kernel prepared two kinds of state".to_string())
    }

    /// Refuses a tensor of `count` elements beyond the evaluator's limit, before it is made.
    pub fn check_size(&self, count: u128) -> KernelResult<()> {
        let limit = self.model.limits.max_elements;
        if count > limit as u128 {
            return Err(format!(
                "the result would hold {count} elements, over the limit of {limit} (Limits::max_elements)"
            ));
        }
        Ok(())
    }

    /// The element count of `shape`, checked against the limit.
    pub fn checked_count(&self, shape: &[usize]) -> KernelResult<usize> {
        let count = shape
            .iter()
            .fold(1u128, |n, &d| n.saturating_mul(d as u128));
        self.check_size(count)?;
        Ok(count as usize)
    }
}

/// The `index`-th input, which must be given.
pub(crate) fn input<'v>(inputs: &[Option<&'v Val>], index: usize) -> KernelResult<&'v Val> {
    inputs
        .get(index)
        .copied()
        .flatten()
        .ok_or_else(|| format!("input {index} is required but missing"))
}

/// The `index`-th input as a tensor, which must be given.
pub(crate) fn tensor<'v>(inputs: &[Option<&'v Val>], index: usize) -> KernelResult<&'v Tensor> {
    input(inputs, index)?
        .as_tensor()
        .map_err(|e| format!("input {index}: {e}"))
}

/// The `index`-th input as a tensor, if given.
pub(crate) fn tensor_opt<'v>(
    inputs: &[Option<&'v Val>],
    index: usize,
) -> KernelResult<Option<&'v Tensor>> {
    match inputs.get(index).copied().flatten() {
        Some(value) => value
            .as_tensor()
            .map(Some)
            .map_err(|e| format!("input {index}: {e}")),
        None => Ok(None),
    }
}

/// A kernel's one tensor output.
pub(crate) fn one(tensor: Tensor) -> KernelResult<Vec<Val>> {
    Ok(vec![Val::Tensor(tensor)])
}

/// Sorts positions by `compare`, stably: the one sort the kernels that order elements by position
/// share (each `sort_by` closure compiles the whole sort again).
pub(crate) fn sort_positions(
    positions: &mut [usize],
    compare: &dyn Fn(usize, usize) -> std::cmp::Ordering,
) {
    positions.sort_by(|&a, &b| compare(a, b));
}

/// Resolves a possibly negative axis against a rank.
pub(crate) fn axis(axis: i64, rank: usize) -> KernelResult<usize> {
    let resolved = if axis < 0 { axis + rank as i64 } else { axis };
    if resolved < 0 || resolved >= rank.max(1) as i64 && !(rank == 0 && resolved == 0) {
        return Err(format!("axis {axis} is out of range for rank {rank}"));
    }
    Ok(resolved as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every registered operator exists in onnx 1.23.2's schemas at its registered versions.
    #[test]
    fn every_kernel_is_of_an_operator_onnx_defines() {
        for (domain, op) in operators() {
            for (since, _) in &REGISTRY.0[&(domain, op)] {
                assert_eq!(
                    onnx_schema::since_version(domain, op, *since),
                    Some(*since),
                    "{domain}:{op} registered at {since}"
                );
            }
        }
    }
}

/// What the kernels' unit tests share: a model text run on inputs, and tensors from slices.
#[cfg(test)]
pub(crate) mod test_support {
    use crate::Value;

    pub fn run(text: &str, inputs: &[Value]) -> Result<Vec<Value>, crate::Error> {
        crate::run(&onnx_text::parse_model(text).unwrap(), inputs)
    }

    pub fn floats(values: &[f32], dims: &[usize]) -> Value {
        Value::tensor(values, dims).unwrap()
    }

    pub fn ints(values: &[i64], dims: &[usize]) -> Value {
        Value::tensor(values, dims).unwrap()
    }
}
