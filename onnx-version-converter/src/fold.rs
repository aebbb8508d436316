//! Constant folding of the small computations that feed an input the target needs as an
//! attribute: `Concat` of two Constants as Squeeze's `axes`, `Cast` of a Constant as Pad's
//! `pads`, `Mul` of Constants as Resize's `scales`, `Shape` of a value whose dims are all known.
//!
//! A graph's nodes whose inputs are all constant (initializers that are not graph inputs,
//! `Constant` outputs, or such nodes' outputs) are recorded as the graph is entered; one is
//! folded only when an adapter asks for its value. The cone of recorded nodes behind it (at most
//! [`MAX_NODES`], reading at most [`MAX_ELEMENTS`] constant elements, making no tensor larger)
//! runs through `onnx-eval` as a model of its own, at the model's opsets, and every value it
//! makes is kept, so that no node is folded twice. A cone too large, or a kernel error, leaves
//! the value not constant: the adapter refuses the node as it would without folding.
//!
//! `Shape` and `Size` of a value whose dims inference knows need no evaluation: their value is
//! recorded as the node is.

use std::cell::OnceCell;
use std::collections::{HashMap, HashSet};

use onnx_runtime_types::{
    GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorProto, ValueInfoProto,
};

use onnx_eval::Value;

use crate::context::{attribute, int64_tensor};
use crate::steps::versions;

/// The most nodes one fold evaluates.
pub(crate) const MAX_NODES: usize = 32;
/// The most elements the constants a fold reads may hold, and any tensor it makes.
pub(crate) const MAX_ELEMENTS: usize = 4096;

/// A node computed from constants only, and its outputs' values once folded (`None` for an
/// output that is not a constant tensor, every one when the fold failed).
struct Foldable {
    node: NodeProto,
    values: OnceCell<Vec<Option<TensorProto>>>,
}

/// The nodes of the graphs in scope that compute from constants only.
#[derive(Default)]
pub(crate) struct Folds {
    nodes: Vec<Foldable>,
    /// Each output of `nodes`: the node's index and the output's position.
    outputs: HashMap<String, (usize, usize)>,
    /// The outputs of every such node met, in any graph: pruning removes these nodes once the
    /// conversion left them unread, as it does dead Constants.
    computed: HashSet<String>,
    /// The model's imports and IR version, which the folded cones are run at.
    opsets: Vec<OperatorSetIdProto>,
    ir_version: Option<i64>,
}

impl Folds {
    /// Folds run at `opsets` and `ir_version`: the model's, before conversion.
    pub fn run_at(&mut self, opsets: Vec<OperatorSetIdProto>, ir_version: Option<i64>) {
        self.opsets = opsets;
        self.ir_version = ir_version;
    }

    /// Whether `name` is an output of a recorded node.
    pub fn computes(&self, name: &str) -> bool {
        self.outputs.contains_key(name)
    }

    /// The outputs of every node recorded, in any graph.
    pub fn computed(&self) -> &HashSet<String> {
        &self.computed
    }

    /// Forgets the nodes recorded (a function's names are its own), and keeps their names.
    pub fn forget(&mut self) {
        self.nodes.clear();
        self.outputs.clear();
    }

    /// Records `node` if it can be folded: a node of the default domain, deterministic, without
    /// a subgraph, whose inputs are all constant (`all_constant`), or a `Shape` or `Size` of a
    /// value whose dims are all known (`input_dims`).
    pub fn record(
        &mut self,
        node: &NodeProto,
        all_constant: bool,
        input_dims: Option<&[Option<i64>]>,
    ) {
        let op = node.op_type.as_deref().unwrap_or_default();
        let default_domain = matches!(node.domain.as_deref(), None | Some("" | "ai.onnx"));
        let subgraph = (node.attribute.iter()).any(|a| a.g.is_some() || !a.graphs.is_empty());
        let foldable = default_domain && !subgraph && !draws(op) && op != "Constant";
        let values = OnceCell::new();
        let shape = input_dims.filter(|_| foldable);
        if let Some(value) = shape.and_then(|dims| static_shape(node, dims)) {
            let _ = values.set(vec![Some(value)]);
        } else if !(foldable && all_constant) {
            // A name a sibling subgraph's recorded node had is this node's now.
            for output in &node.output {
                self.outputs.remove(output);
            }
            return;
        }
        let index = self.nodes.len();
        for (position, output) in node.output.iter().enumerate() {
            if !output.is_empty() {
                self.outputs.insert(output.clone(), (index, position));
                self.computed.insert(output.clone());
            }
        }
        self.nodes.push(Foldable {
            node: node.clone(),
            values,
        });
    }

    /// The value of `name`, an output of a recorded node, folded if it was not yet;
    /// `constant` gives the constants the recorded nodes read.
    pub fn value<'a>(
        &'a self,
        name: &str,
        constant: &impl Fn(&str) -> Option<&'a TensorProto>,
    ) -> Option<&'a TensorProto> {
        let &(index, position) = self.outputs.get(name)?;
        let values = &self.nodes[index].values;
        if values.get().is_none() {
            let folded = self.fold(index, constant);
            for (node, outputs) in folded {
                // A node evaluated as part of a cone is not folded again on its own.
                let _ = self.nodes[node].values.set(outputs);
            }
        }
        values.get()?.get(position)?.as_ref()
    }

    /// The values of the cone behind node `root`, by node: `root`'s are all `None` if it
    /// cannot be folded.
    fn fold<'a>(
        &'a self,
        root: usize,
        constant: &impl Fn(&str) -> Option<&'a TensorProto>,
    ) -> Vec<(usize, Vec<Option<TensorProto>>)> {
        let failed = || vec![(root, vec![None; self.nodes[root].node.output.len()])];
        let mut cone = Cone::default();
        if !self.gather(root, constant, &mut cone) {
            return failed();
        }
        // Every output of the cone, as (the node's place in the cone, the output's position).
        let outputs: Vec<(usize, usize, &String)> = (cone.order.iter().enumerate())
            .flat_map(|(slot, &i)| {
                let outputs = self.nodes[i].node.output.iter().enumerate();
                outputs
                    .filter(|(_, o)| !o.is_empty())
                    .map(move |(position, o)| (slot, position, o))
            })
            .collect();
        let graph = GraphProto {
            name: Some("fold".to_owned()),
            node: cone
                .order
                .iter()
                .map(|&i| self.nodes[i].node.clone())
                .collect(),
            initializer: (cone.leaves.iter())
                .map(|(name, tensor)| TensorProto {
                    name: Some(name.clone()),
                    ..(*tensor).clone()
                })
                .collect(),
            output: (outputs.iter())
                .map(|(_, _, name)| ValueInfoProto {
                    name: Some((*name).clone()),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        };
        let model = ModelProto {
            ir_version: self.ir_version,
            opset_import: self.opsets.clone(),
            graph: Some(graph),
            ..Default::default()
        };
        let limits = onnx_eval::Limits {
            max_elements: MAX_ELEMENTS as u64,
            max_loop_iterations: 0,
        };
        let run = onnx_eval::Evaluator::with_limits(&model, limits).and_then(|e| e.run(&[]));
        let Ok(values) = run else {
            return failed();
        };
        let mut folded: Vec<(usize, Vec<Option<TensorProto>>)> = (cone.order.iter())
            .map(|&i| (i, vec![None; self.nodes[i].node.output.len()]))
            .collect();
        for (&(slot, position, _), value) in outputs.iter().zip(values) {
            if let Value::Tensor(tensor) = value {
                folded[slot].1[position] = Some(tensor);
            }
        }
        folded
    }

    /// Adds node `index` and the recorded nodes it reads, not yet folded, to `cone` (inputs
    /// first); `false` if one of its inputs is no longer in scope, a fold behind it failed, or
    /// the cone would exceed the bounds.
    fn gather<'a>(
        &'a self,
        index: usize,
        constant: &impl Fn(&str) -> Option<&'a TensorProto>,
        cone: &mut Cone<'a>,
    ) -> bool {
        if !cone.nodes.insert(index) {
            return true;
        }
        if cone.nodes.len() > MAX_NODES {
            return false;
        }
        for input in self.nodes[index]
            .node
            .input
            .iter()
            .filter(|i| !i.is_empty())
        {
            if cone.leaf_names.contains(input.as_str()) {
                continue;
            }
            let leaf = match (constant(input), self.outputs.get(input)) {
                (Some(tensor), _) => tensor,
                (None, Some(&(node, position))) => match self.nodes[node].values.get() {
                    Some(values) => match values.get(position).and_then(Option::as_ref) {
                        Some(tensor) => tensor,
                        None => return false,
                    },
                    None if self.gather(node, constant, cone) => continue,
                    None => return false,
                },
                (None, None) => return false,
            };
            let Some(count) = element_count(leaf) else {
                return false;
            };
            cone.elements += count;
            if cone.elements > MAX_ELEMENTS {
                return false;
            }
            cone.leaf_names.insert(input);
            cone.leaves.push((input.clone(), leaf));
        }
        cone.order.push(index);
        true
    }
}

/// The nodes of one fold, in the order they run, and the constants they read.
#[derive(Default)]
struct Cone<'a> {
    nodes: HashSet<usize>,
    order: Vec<usize>,
    leaf_names: HashSet<&'a str>,
    leaves: Vec<(String, &'a TensorProto)>,
    elements: usize,
}

/// Whether `op` draws at random: its schema takes a `seed` (the Random operators, Bernoulli,
/// Multinomial, and Dropout, which draws in training mode).
fn draws(op: &str) -> bool {
    versions("ai.onnx", op).is_some_and(|all| all.iter().any(|s| s.attribute("seed").is_some()))
}

/// The elements a tensor holds, if its data is in the model.
fn element_count(tensor: &TensorProto) -> Option<usize> {
    if tensor.data_location == Some(1) {
        return None;
    }
    (tensor.dims.iter()).try_fold(1usize, |n, &d| n.checked_mul(usize::try_from(d).ok()?))
}

/// The value of a `Shape` (with its `start` and `end`, from 15) or `Size` node whose input has
/// the known `dims`.
fn static_shape(node: &NodeProto, dims: &[Option<i64>]) -> Option<TensorProto> {
    let dims: Vec<i64> = dims.iter().copied().collect::<Option<_>>()?;
    match node.op_type.as_deref()? {
        "Size" => Some(int64_tensor(&[dims.iter().product()], &[])),
        "Shape" => {
            let rank = dims.len() as i64;
            // Negative bounds count from the end; both are clamped to the rank.
            let bound = |name: &str, default: i64| {
                let value = attribute(node, name).and_then(|a| a.i).unwrap_or(default);
                let value = if value < 0 { value + rank } else { value };
                value.clamp(0, rank) as usize
            };
            let (start, end) = (bound("start", 0), bound("end", rank));
            let kept = dims.get(start..end.max(start)).unwrap_or_default();
            Some(int64_tensor(kept, &[kept.len()]))
        }
        _ => None,
    }
}
