//! ai.onnx.ml's tree ensembles. TreeEnsembleClassifier and TreeEnsembleRegressor (ml 1 and 3)
//! name nodes by (tree, node) id, and a leaf weighs any number of targets; ml 3 adds
//! double-precision `*_as_tensor` forms. TreeEnsemble (ml 5, which removes both) keeps interior
//! nodes by index and leaves apart, one (target, weight) each, lists its roots, has set
//! membership, and has neither base values nor labels.
//!
//! Up, each legacy tree becomes one TreeEnsemble tree per target it weighs; base values,
//! labels and a classifier's binary cases are default-domain helpers around it, computed in
//! double from the unrounded scores (as the legacy operators compute). Where the legacy reading
//! depends on which targets a row's leaves weighed, a second ensemble of the same trees counts
//! them. Down, TreeEnsemble becomes a regressor where X is float and no branch tests set
//! membership. The hit rates, which no engine reads, are left out.

use std::collections::{BTreeSet, HashMap, HashSet};

use onnx_runtime_types::{FunctionProto, NodeProto, TensorProto};
use onnx_text::onnx_function;

use super::{inexact, ints, string};
use crate::context::{
    Context, attribute, double_tensor, float_tensor, floats_attribute, int_attribute, int64_tensor,
    ints_attribute, string_attribute, strings_attribute, tensor_attribute, tensor_f64,
};
use crate::driver::Adapted;
use crate::error::Reason;

pub(super) const LEGACY: &[&str] = &["TreeEnsembleClassifier", "TreeEnsembleRegressor"];

const MODES: [&str; 6] = [
    "BRANCH_LEQ",
    "BRANCH_LT",
    "BRANCH_GTE",
    "BRANCH_GT",
    "BRANCH_EQ",
    "BRANCH_NEQ",
];
const MEMBER: u8 = 6;
const LEAF: u8 = 7;
const TRANSFORMS: [&str; 5] = ["NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO", "PROBIT"];
const AGGREGATES: [&str; 4] = ["AVERAGE", "SUM", "MIN", "MAX"];
const FLOAT: i32 = 1;
/// The most nodes and leaves the rewrite writes (a tree is copied per target it weighs).
const MAX_NODES: usize = 1 << 24;
const DOUBLE: i32 = 11;

fn int(node: &NodeProto, name: &str, default: i64) -> i64 {
    attribute(node, name).and_then(|a| a.i).unwrap_or(default)
}

/// A legacy float list: `<name>_as_tensor` (ml 3) or `<name>`; empty where absent.
fn float_list(node: &NodeProto, name: &str, opset: i64) -> Result<Vec<f64>, Reason> {
    if let Some(a) = attribute(node, &format!("{name}_as_tensor")) {
        return a
            .t
            .as_deref()
            .and_then(tensor_f64)
            .ok_or_else(|| inexact(format!("`{name}_as_tensor` is no float tensor"), opset));
    }
    Ok(attribute(node, name)
        .map(|a| a.floats.iter().map(|&v| f64::from(v)).collect())
        .unwrap_or_default())
}

/// Whether an f32 holds every value.
fn f32_exact(values: &[f64]) -> bool {
    values
        .iter()
        .all(|&v| v.is_nan() || f64::from(v as f32) == v)
}

/// A legacy forest: nodes by index, each leaf's (target, weight)s.
struct Legacy {
    trees: Vec<i64>,
    features: Vec<i64>,
    values: Vec<f64>,
    modes: Vec<u8>,
    tracks: Vec<i64>,
    /// Children as node indices (branches only).
    children: Vec<(usize, usize)>,
    weights: Vec<Vec<(i64, f64)>>,
}

impl Legacy {
    /// Reads the node arrays and the `<prefix>_*` leaf weights, checking what the rewrite
    /// relies on (an ill-formed ensemble is refused, never guessed at).
    fn read(node: &NodeProto, prefix: &str, targets: i64, opset: i64) -> Result<Legacy, Reason> {
        let trees = ints(node, "nodes_treeids");
        let n = trees.len();
        let ids = ints(node, "nodes_nodeids");
        let features = ints(node, "nodes_featureids");
        let trues = ints(node, "nodes_truenodeids");
        let falses = ints(node, "nodes_falsenodeids");
        let mut tracks = ints(node, "nodes_missing_value_tracks_true");
        let values = float_list(node, "nodes_values", opset)?;
        let modes: Vec<String> = attribute(node, "nodes_modes")
            .map(|a| {
                a.strings
                    .iter()
                    .map(|s| String::from_utf8_lossy(s).into_owned())
                    .collect()
            })
            .unwrap_or_default();
        if tracks.is_empty() {
            tracks = vec![0; n];
        }
        let lengths = [
            ids.len(),
            features.len(),
            values.len(),
            modes.len(),
            tracks.len(),
        ];
        if lengths.iter().any(|&l| l != n) || n == 0 {
            return Err(inexact(
                format!("the node arrays differ in length or are empty ({n} nodes_treeids)"),
                opset,
            ));
        }
        let mut at = HashMap::with_capacity(n);
        for i in 0..n {
            if at.insert((trees[i], ids[i]), i).is_some() {
                return Err(inexact(
                    format!("node {} of tree {} is listed twice", ids[i], trees[i]),
                    opset,
                ));
            }
        }
        let modes = modes
            .iter()
            .map(|m| match m.as_str() {
                "LEAF" => Ok(LEAF),
                other => MODES
                    .iter()
                    .position(|&known| known == other)
                    .map(|p| p as u8)
                    .ok_or_else(|| inexact(format!("unknown node mode {other:?}"), opset)),
            })
            .collect::<Result<Vec<u8>, Reason>>()?;
        let mut children = vec![(0, 0); n];
        for i in (0..n).filter(|&i| modes[i] != LEAF) {
            let child = |id: i64| {
                at.get(&(trees[i], id)).copied().ok_or_else(|| {
                    inexact(
                        format!("node {} of tree {} has no child {id}", ids[i], trees[i]),
                        opset,
                    )
                })
            };
            let (t, f) = (
                trues.get(i).copied().unwrap_or(-1),
                falses.get(i).copied().unwrap_or(-1),
            );
            children[i] = (child(t)?, child(f)?);
        }
        let w_trees = ints(node, &format!("{prefix}_treeids"));
        let w_nodes = ints(node, &format!("{prefix}_nodeids"));
        let w_ids = ints(node, &format!("{prefix}_ids"));
        let w_values = float_list(node, &format!("{prefix}_weights"), opset)?;
        let m = w_trees.len();
        if w_nodes.len() != m || w_ids.len() != m || w_values.len() != m {
            return Err(inexact(
                format!("the {prefix} arrays differ in length"),
                opset,
            ));
        }
        let mut weights = vec![Vec::new(); n];
        for k in 0..m {
            let owner = at
                .get(&(w_trees[k], w_nodes[k]))
                .copied()
                .filter(|&i| modes[i] == LEAF)
                .ok_or_else(|| inexact(format!("{prefix} weight {k} names no leaf"), opset))?;
            if !(0..targets).contains(&w_ids[k]) {
                return Err(inexact(
                    format!("{prefix} id {} is beyond the {targets} {prefix}s", w_ids[k]),
                    opset,
                ));
            }
            weights[owner].push((w_ids[k], w_values[k]));
        }
        Ok(Legacy {
            trees,
            features,
            values,
            modes,
            tracks,
            children,
            weights,
        })
    }

    /// The roots: the first node of each run of a tree id (as the engines read them).
    fn roots(&self) -> Vec<usize> {
        (0..self.trees.len())
            .filter(|&i| i == 0 || self.trees[i] != self.trees[i - 1])
            .collect()
    }

    /// The nodes reachable from `root`, root first.
    fn reach(&self, root: usize) -> Vec<usize> {
        let mut seen = HashSet::new();
        let mut order = Vec::new();
        let mut stack = vec![root];
        while let Some(i) = stack.pop() {
            if !seen.insert(i) {
                continue;
            }
            order.push(i);
            if self.modes[i] != LEAF {
                let (t, f) = self.children[i];
                stack.push(f);
                stack.push(t);
            }
        }
        order
    }
}

/// TreeEnsemble's arrays, and what the rewrite around it must know.
#[derive(Default)]
struct Forest {
    roots: Vec<i64>,
    features: Vec<i64>,
    splits: Vec<f64>,
    modes: Vec<u8>,
    trues: Vec<i64>,
    true_leafs: Vec<i64>,
    falses: Vec<i64>,
    false_leafs: Vec<i64>,
    tracks: Vec<i64>,
    leaf_targets: Vec<i64>,
    leaf_weights: Vec<f64>,
    /// Whether each leaf weighs its target in the legacy forest (else it is a placeholder).
    leaf_real: Vec<bool>,
    /// The legacy trees (TreeEnsemble's may be more: one per target a tree weighs).
    trees: usize,
    /// Whether a tree was copied per target.
    replicated: bool,
    /// Whether a leaf got weight 0 for a target it did not weigh.
    placeholders: bool,
    /// The targets that every leaf of some tree weighs: every row has a score for them.
    covered: HashSet<i64>,
}

impl Forest {
    fn from_legacy(legacy: &Legacy, opset: i64) -> Result<Forest, Reason> {
        let mut forest = Forest::default();
        let roots = legacy.roots();
        forest.trees = roots.len();
        let mut copied = 0usize;
        for root in roots {
            let reach = legacy.reach(root);
            let leaves: Vec<usize> = reach
                .iter()
                .copied()
                .filter(|&i| legacy.modes[i] == LEAF)
                .collect();
            let weighed: BTreeSet<i64> = leaves
                .iter()
                .flat_map(|&i| legacy.weights[i].iter().map(|w| w.0))
                .collect();
            for &t in &weighed {
                if leaves
                    .iter()
                    .all(|&i| legacy.weights[i].iter().any(|w| w.0 == t))
                {
                    forest.covered.insert(t);
                }
            }
            // A tree that weighs nothing still counts in an average.
            let targets: Vec<i64> = if weighed.is_empty() {
                vec![0]
            } else {
                weighed.into_iter().collect()
            };
            forest.replicated |= targets.len() > 1;
            // Copies per target grow with the product of a tree's nodes and targets: bounded,
            // so that a small model cannot ask for more memory than a large one holds.
            copied += reach.len().saturating_mul(targets.len());
            if copied > MAX_NODES {
                return Err(inexact(
                    format!("TreeEnsemble would need more than {MAX_NODES} nodes"),
                    opset,
                ));
            }
            for t in targets {
                forest.copy_tree(legacy, &reach, t, opset)?;
            }
        }
        Ok(forest)
    }

    /// One tree of TreeEnsemble: the legacy tree `reach` (root first), its leaves weighing
    /// target `t` alone.
    fn copy_tree(
        &mut self,
        legacy: &Legacy,
        reach: &[usize],
        t: i64,
        opset: i64,
    ) -> Result<(), Reason> {
        let mut ids: HashMap<usize, (bool, i64)> = HashMap::with_capacity(reach.len());
        for &i in reach {
            if legacy.modes[i] == LEAF {
                let mut of_t = legacy.weights[i].iter().filter(|w| w.0 == t);
                let (weight, real) = match (of_t.next(), of_t.next()) {
                    (None, _) => {
                        self.placeholders = true;
                        (0.0, false)
                    }
                    (Some(w), None) => (w.1, true),
                    (Some(_), Some(_)) => {
                        return Err(inexact(format!("a leaf weighs target {t} twice"), opset));
                    }
                };
                ids.insert(i, (true, self.leaf_targets.len() as i64));
                self.leaf_targets.push(t);
                self.leaf_weights.push(weight);
                self.leaf_real.push(real);
            } else {
                ids.insert(i, (false, self.features.len() as i64));
                self.features.push(legacy.features[i]);
                self.splits.push(legacy.values[i]);
                self.modes.push(legacy.modes[i]);
                self.tracks.push(legacy.tracks[i]);
                self.trues.push(0);
                self.true_leafs.push(0);
                self.falses.push(0);
                self.false_leafs.push(0);
            }
        }
        let root = reach[0];
        if legacy.modes[root] == LEAF {
            // TreeEnsemble's roots are branches: one whose sides both reach the leaf.
            let leaf = ids[&root].1;
            self.roots.push(self.features.len() as i64);
            self.features.push(0);
            self.splits.push(0.0);
            self.modes.push(0);
            self.tracks.push(0);
            self.trues.push(leaf);
            self.true_leafs.push(1);
            self.falses.push(leaf);
            self.false_leafs.push(1);
            return Ok(());
        }
        self.roots.push(ids[&root].1);
        for &i in reach.iter().filter(|&&i| legacy.modes[i] != LEAF) {
            let at = ids[&i].1 as usize;
            let (t, f) = legacy.children[i];
            let ((t_leaf, t_id), (f_leaf, f_id)) = (ids[&t], ids[&f]);
            self.trues[at] = t_id;
            self.true_leafs[at] = i64::from(t_leaf);
            self.falses[at] = f_id;
            self.false_leafs[at] = i64::from(f_leaf);
        }
        Ok(())
    }

    /// The leaf weights, `placeholder` for the leaves that weigh nothing in the legacy forest.
    fn weights_with(&self, placeholder: f64) -> Vec<f64> {
        (self.leaf_weights.iter().zip(&self.leaf_real))
            .map(|(&w, &real)| if real { w } else { placeholder })
            .collect()
    }

    /// The weights of an ensemble that counts, per target, the trees whose leaf weighed it.
    fn counts(&self) -> Vec<f64> {
        self.leaf_real
            .iter()
            .map(|&r| f64::from(u8::from(r)))
            .collect()
    }

    /// The TreeEnsemble node, its tensors of element type `elem` (float or double).
    #[allow(clippy::too_many_arguments)]
    fn node(
        &self,
        x: String,
        y: String,
        weights: &[f64],
        n_targets: i64,
        aggregate: i64,
        transform: i64,
        elem: i32,
    ) -> NodeProto {
        let values = |v: &[f64]| match elem {
            FLOAT => float_tensor(&v.iter().map(|&x| x as f32).collect::<Vec<_>>(), &[v.len()]),
            _ => double_tensor(v, &[v.len()]),
        };
        let modes = TensorProto {
            dims: vec![self.modes.len() as i64],
            data_type: Some(2),
            raw_data: Some(self.modes.clone()),
            ..Default::default()
        };
        let mut attributes = vec![
            int_attribute("n_targets", n_targets),
            int_attribute("aggregate_function", aggregate),
            int_attribute("post_transform", transform),
            ints_attribute("tree_roots", self.roots.clone()),
            ints_attribute("nodes_featureids", self.features.clone()),
            tensor_attribute("nodes_splits", values(&self.splits)),
            tensor_attribute("nodes_modes", modes),
            ints_attribute("nodes_truenodeids", self.trues.clone()),
            ints_attribute("nodes_trueleafs", self.true_leafs.clone()),
            ints_attribute("nodes_falsenodeids", self.falses.clone()),
            ints_attribute("nodes_falseleafs", self.false_leafs.clone()),
            ints_attribute("leaf_targetids", self.leaf_targets.clone()),
            tensor_attribute("leaf_weights", values(weights)),
        ];
        if self.tracks.iter().any(|&t| t != 0) {
            attributes.push(ints_attribute(
                "nodes_missing_value_tracks_true",
                self.tracks.clone(),
            ));
        }
        NodeProto {
            op_type: Some("TreeEnsemble".to_owned()),
            domain: Some("ai.onnx.ml".to_owned()),
            input: vec![x],
            output: vec![y],
            attribute: attributes,
            ..Default::default()
        }
    }
}

/// The default-domain helpers around the rewritten node, written at the driver's
/// `HELPER_OPSET`, with their outputs' types recorded for the checks that follow. The fixed
/// chains are rules in ONNX text ([`Helpers::rule`]); which helpers follow the ensemble depends
/// on the forest (base values, a division, the counting ensemble, the transform), so that
/// choice, and the one-node helpers it strings together, stay Rust.
struct Helpers<'c> {
    context: &'c mut Context,
    nodes: Vec<NodeProto>,
}

impl<'c> Helpers<'c> {
    /// The helpers of a forest that reads X (of type `elem`) as double: X's name as double
    /// (cast where it is not), the nodes that go before the forest (that Cast), and the name of
    /// the double scores the forest writes.
    fn double_forest(
        context: &'c mut Context,
        x: String,
        elem: i32,
    ) -> (Self, String, Vec<NodeProto>, String) {
        let mut helpers = Helpers {
            context,
            nodes: Vec::new(),
        };
        let xd = if elem == DOUBLE {
            x
        } else {
            helpers.cast(&x, DOUBLE, 2, None)
        };
        let before = std::mem::take(&mut helpers.nodes);
        let raw = helpers.fresh("scores", DOUBLE, 2);
        (helpers, xd, before, raw)
    }

    fn fresh(&mut self, base: &str, elem: i32, rank: usize) -> String {
        let name = self.context.fresh(base);
        let known = self.context.types.entry(name.clone()).or_default();
        known.elem = Some(elem);
        known.rank = Some(rank);
        name
    }

    fn constant(&mut self, base: &str, tensor: TensorProto) -> String {
        let elem = tensor.data_type.unwrap_or(0);
        let name = self.fresh(base, elem, tensor.dims.len());
        self.context.constants.insert(name.clone(), tensor.clone());
        self.nodes
            .push(crate::context::constant(name.clone(), tensor));
        name
    }

    /// `op` of `inputs` into `output` (a fresh one from `base` if `None`), of `elem`, `rank`.
    fn op(
        &mut self,
        op: &str,
        inputs: &[&str],
        attributes: Vec<onnx_runtime_types::AttributeProto>,
        output: Option<&str>,
        (elem, rank): (i32, usize),
    ) -> String {
        let output = match output {
            Some(name) => {
                let known = self.context.types.entry(name.to_owned()).or_default();
                known.elem = Some(elem);
                known.rank = Some(rank);
                name.to_owned()
            }
            None => self.fresh(op, elem, rank),
        };
        self.nodes.push(crate::context::node(
            op,
            inputs.iter().map(|&i| i.to_owned()).collect(),
            vec![output.clone()],
            attributes,
        ));
        output
    }

    /// The nodes of `rule` (written at `HELPER_OPSET`) on `inputs` into `output` (a fresh one
    /// if `None`), every value it computes but its Constants of rank `rank`; their element
    /// types follow from the operators as the driver converts them.
    fn rule(
        &mut self,
        rule: &FunctionProto,
        inputs: &[&str],
        output: Option<&str>,
        rank: usize,
    ) -> String {
        let output = match output {
            Some(name) => name.to_owned(),
            None => self
                .context
                .fresh(rule.output.first().map_or("helper", String::as_str)),
        };
        let inputs: Vec<String> = inputs.iter().map(|&i| i.to_owned()).collect();
        let nodes = super::instantiate(self.context, rule, &inputs, std::slice::from_ref(&output));
        for node in nodes.iter().filter(|n| n.op_type() != "Constant") {
            for value in &node.output {
                self.context.types.entry(value.clone()).or_default().rank = Some(rank);
            }
        }
        self.nodes.extend(nodes);
        output
    }

    fn cast(&mut self, x: &str, to: i32, rank: usize, output: Option<&str>) -> String {
        let to_attribute = int_attribute("to", i64::from(to));
        self.op("Cast", &[x], vec![to_attribute], output, (to, rank))
    }
}

/// X's element type and [N, F] rank, which TreeEnsemble needs.
fn x_of(context: &Context, node: &NodeProto, target: i64) -> Result<(String, i32), Reason> {
    let x = node.input.first().cloned().unwrap_or_default();
    let needed_by = || "TreeEnsemble (ai.onnx.ml 5), which takes X as [N, F]".to_owned();
    match context.rank(&x) {
        Some(2) => {}
        Some(_) => return Err(inexact(format!("`{x}` is not [N, F]"), target)),
        None => {
            return Err(Reason::Unknown {
                what: format!("the rank of `{x}`"),
                needed_by: needed_by(),
            });
        }
    }
    let elem = context.elem(&x).ok_or_else(|| Reason::Unknown {
        what: format!("the element type of `{x}`"),
        needed_by: needed_by(),
    })?;
    Ok((x, elem))
}

fn code(list: &[&str], value: &str, name: &str, opset: i64) -> Result<i64, Reason> {
    list.iter()
        .position(|&v| v == value)
        .map(|p| p as i64)
        .ok_or_else(|| inexact(format!("unknown {name} {value:?}"), opset))
}

/// `post_transform` written as operators on double scores [N, C], where TreeEnsemble cannot
/// apply it (base values or a division come first).
fn transform_ops(
    helpers: &mut Helpers<'_>,
    scores: String,
    transform: &str,
    opset: i64,
) -> Result<String, Reason> {
    Ok(match transform {
        "NONE" => scores,
        "SOFTMAX" => helpers.op(
            "Softmax",
            &[&scores],
            vec![int_attribute("axis", -1)],
            None,
            (DOUBLE, 2),
        ),
        "LOGISTIC" => helpers.op("Sigmoid", &[&scores], vec![], None, (DOUBLE, 2)),
        "SOFTMAX_ZERO" => softmax_zero(helpers, &scores),
        other => {
            return Err(inexact(
                format!("post_transform {other} written after base values (outside TreeEnsemble)"),
                opset,
            ));
        }
    })
}

/// SOFTMAX_ZERO of each row of `s`: the softmax of its nonzero scores (shifted by the row's
/// greatest score, zeros included), its zeros kept, and a row of zeros left as is.
fn softmax_zero(helpers: &mut Helpers<'_>, s: &str) -> String {
    let rule = onnx_function! {
        <domain: "adapted", opset_import: ["" : 13, "adapted" : 1]>
        SoftmaxZero (S) => (Y) {
            peak = ReduceMax <axes = [1], keepdims = 1> (S)
            shifted = Sub (S, peak)
            exp = Exp (shifted)
            zero = Constant <value = double {0.0}> ()
            is_zero = Equal (S, zero)
            kept = Where (is_zero, zero, exp)
            axis = Constant <value = int64[1] {1}> ()
            total = ReduceSum <keepdims = 1> (kept, axis)
            positive = Greater (total, zero)
            share = Div (kept, total)
            Y = Where (positive, share, kept)
        }
    };
    helpers.rule(&rule, &[s], None, 2)
}

/// TreeEnsembleRegressor (3) → TreeEnsemble (5), with the base values added after it and an
/// average over copied trees divided after it.
pub(super) fn regressor_up(
    context: &mut Context,
    node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let (x, elem) = x_of(context, &node, target)?;
    let y = node.output.first().cloned().unwrap_or_default();
    let targets = int(&node, "n_targets", 1);
    let legacy = Legacy::read(&node, "target", targets, target)?;
    let forest = Forest::from_legacy(&legacy, target)?;
    let aggregate = string(&node, "aggregate_function").unwrap_or_else(|| "SUM".to_owned());
    let transform = string(&node, "post_transform").unwrap_or_else(|| "NONE".to_owned());
    let base = float_list(&node, "base_values", target)?;
    if !base.is_empty() && base.len() as i64 != targets {
        return Err(inexact(
            format!("{} base values for {targets} targets", base.len()),
            target,
        ));
    }
    let has_base = base.iter().any(|&b| b != 0.0);
    // A target that no leaf of a row weighs is 0 (without its base value, and not the MIN or
    // MAX of nothing): a second ensemble counts the trees that weighed it.
    let uncovered_base =
        (base.iter().enumerate()).any(|(t, &b)| b != 0.0 && !forest.covered.contains(&(t as i64)));
    let min_max = aggregate == "MIN" || aggregate == "MAX";
    let need_has = uncovered_base || (min_max && forest.placeholders);
    let placeholder = match aggregate.as_str() {
        "MIN" => f64::INFINITY,
        "MAX" => f64::NEG_INFINITY,
        _ => 0.0,
    };
    let weights = forest.weights_with(placeholder);
    let divide = aggregate == "AVERAGE" && forest.replicated;
    let after = has_base || divide || need_has;
    let aggregate_code = if divide {
        1
    } else {
        code(&AGGREGATES, &aggregate, "aggregate_function", target)?
    };
    let transform_code = code(&TRANSFORMS, &transform, "post_transform", target)?;
    let exact_in_float = f32_exact(&forest.splits) && f32_exact(&weights);
    if elem == FLOAT && exact_in_float && !after {
        let tree = forest.node(
            x,
            y,
            &weights,
            targets,
            aggregate_code,
            transform_code,
            FLOAT,
        );
        return Ok(Adapted::alone(tree));
    }
    let (mut helpers, xd, before, raw) = Helpers::double_forest(context, x, elem);
    let inside = if after { 0 } else { transform_code };
    let tree = forest.node(
        xd.clone(),
        raw.clone(),
        &weights,
        targets,
        aggregate_code,
        inside,
        DOUBLE,
    );
    let mut scores = raw;
    if divide {
        let trees = helpers.constant("trees", double_tensor(&[forest.trees as f64], &[]));
        scores = helpers.op("Div", &[&scores, &trees], vec![], None, (DOUBLE, 2));
    }
    if has_base {
        let b = helpers.constant("base", double_tensor(&base, &[base.len()]));
        scores = helpers.op("Add", &[&scores, &b], vec![], None, (DOUBLE, 2));
    }
    if need_has {
        let has = scored(&mut helpers, &forest, &xd, targets);
        let zero = helpers.constant("zero", double_tensor(&[0.0], &[]));
        scores = helpers.op("Where", &[&has, &scores, &zero], vec![], None, (DOUBLE, 2));
    }
    if after {
        scores = transform_ops(&mut helpers, scores, &transform, target)?;
    }
    helpers.cast(&scores, FLOAT, 2, Some(&y));
    Ok(Adapted {
        before,
        node: tree,
        after: helpers.nodes,
    })
}

/// Whether some tree's leaf weighed each target of each row: [N, targets] bool, from a second
/// ensemble of the same trees that counts them.
fn scored(helpers: &mut Helpers<'_>, forest: &Forest, xd: &str, targets: i64) -> String {
    let count = helpers.fresh("count", DOUBLE, 2);
    let counting = forest.node(
        xd.to_owned(),
        count.clone(),
        &forest.counts(),
        targets,
        1,
        0,
        DOUBLE,
    );
    helpers.nodes.push(counting);
    let zero = helpers.constant("zero", double_tensor(&[0.0], &[]));
    helpers.op("Greater", &[&count, &zero], vec![], None, (9, 2))
}

/// TreeEnsembleClassifier (3) → TreeEnsemble (5) on double X, the labels picked from a
/// Constant by the unrounded scores, the scores transformed and written as floats. Two classes
/// follow the legacy binary readings (one weighed class: its score s and the other's from it).
pub(super) fn classifier_up(
    context: &mut Context,
    node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let (x, elem) = x_of(context, &node, target)?;
    let (label_out, scores_out) = (
        node.output.first().cloned().unwrap_or_default(),
        node.output.get(1).cloned().unwrap_or_default(),
    );
    let strings = attribute(&node, "classlabels_strings").map(|a| a.strings.clone());
    let int_labels = ints(&node, "classlabels_int64s");
    let labels = match strings.filter(|s| !s.is_empty()) {
        Some(s) if int_labels.is_empty() => TensorProto {
            dims: vec![s.len() as i64],
            data_type: Some(8),
            string_data: s,
            ..Default::default()
        },
        None => int64_tensor(&int_labels, &[int_labels.len()]),
        Some(_) => return Err(inexact("both string and integer labels", target)),
    };
    let classes = labels.dims[0];
    if classes < 2 {
        return Err(inexact(format!("{classes} class labels"), target));
    }
    let legacy = Legacy::read(&node, "class", classes, target)?;
    let forest = Forest::from_legacy(&legacy, target)?;
    let transform = string(&node, "post_transform").unwrap_or_else(|| "NONE".to_owned());
    let base = float_list(&node, "base_values", target)?;
    let weighed: BTreeSet<i64> = legacy.weights.iter().flatten().map(|w| w.0).collect();
    let all_positive = legacy.weights.iter().flatten().all(|w| w.1 >= 0.0);
    let label_elem = labels.data_type.unwrap_or(0);

    let (mut helpers, xd, before, raw) = Helpers::double_forest(context, x, elem);
    let labels = helpers.constant("labels", labels);
    let (tree, scores) = if classes > 2 {
        // The label is the first greatest of the scores that some leaf weighed.
        if let Some(k) =
            (0..classes).find(|k| base.len() as i64 != classes && !forest.covered.contains(k))
        {
            return Err(inexact(
                format!("class {k}, which some rows may not score, among the labels' candidates"),
                target,
            ));
        }
        if !base.is_empty() && base.len() as i64 != classes {
            return Err(inexact(
                format!("{} base values for {classes} classes", base.len()),
                target,
            ));
        }
        let weights = forest.weights_with(0.0);
        let tree = forest.node(xd.clone(), raw.clone(), &weights, classes, 1, 0, DOUBLE);
        let mut scores = raw;
        if base.iter().any(|&b| b != 0.0) {
            let b = helpers.constant("base", double_tensor(&base, &[base.len()]));
            scores = helpers.op("Add", &[&scores, &b], vec![], None, (DOUBLE, 2));
        }
        // The label is the first greatest of the scores that some leaf weighed (every one,
        // with base values), or the first class where none did.
        let uncovered = (0..classes).any(|k| !forest.covered.contains(&k));
        let candidates = if base.is_empty() && uncovered {
            let has = scored(&mut helpers, &forest, &xd, classes);
            let low = helpers.constant("lowest", double_tensor(&[f64::NEG_INFINITY], &[]));
            helpers.op("Where", &[&has, &scores, &low], vec![], None, (DOUBLE, 2))
        } else {
            scores.clone()
        };
        let argmax = vec![int_attribute("axis", 1), int_attribute("keepdims", 0)];
        let best = helpers.op("ArgMax", &[&candidates], argmax, None, (7, 1));
        let gather = vec![int_attribute("axis", 0)];
        helpers.op(
            "Gather",
            &[&labels, &best],
            gather,
            Some(&label_out),
            (label_elem, 1),
        );
        let scores = transform_ops(&mut helpers, scores, &transform, target)?;
        (tree, scores)
    } else if weighed == BTreeSet::from([0]) {
        // One score s, the positive class's: the label where s passes 0.5 (weights all
        // positive: a probability, written [1 - s, s]) or 0 (a margin, [-s, s], or under
        // LOGISTIC [logistic(-s), logistic(s)]).
        if !forest.covered.contains(&0) || base.len() > 1 || transform == "PROBIT" {
            return Err(inexact(
                "a binary classifier whose score some rows may not have, with two base values, or under PROBIT",
                target,
            ));
        }
        let tree = forest.node(xd, raw.clone(), &forest.weights_with(0.0), 1, 1, 0, DOUBLE);
        let mut s = raw;
        if base.first().is_some_and(|&b| b != 0.0) {
            let b = helpers.constant("base", double_tensor(&base, &[1]));
            s = helpers.op("Add", &[&s, &b], vec![], None, (DOUBLE, 2));
        }
        let threshold = if all_positive { 0.5 } else { 0.0 };
        pick_by_threshold(&mut helpers, &s, 0, threshold, &labels, &label_out);
        let pair = if all_positive {
            let one = helpers.constant("one", double_tensor(&[1.0], &[]));
            let other = helpers.op("Sub", &[&one, &s], vec![], None, (DOUBLE, 2));
            [other, s]
        } else {
            let negative = helpers.op("Neg", &[&s], vec![], None, (DOUBLE, 2));
            if transform == "LOGISTIC" {
                [
                    helpers.op("Sigmoid", &[&negative], vec![], None, (DOUBLE, 2)),
                    helpers.op("Sigmoid", &[&s], vec![], None, (DOUBLE, 2)),
                ]
            } else {
                [negative, s]
            }
        };
        let concat = vec![int_attribute("axis", 1)];
        let scores = helpers.op("Concat", &[&pair[0], &pair[1]], concat, None, (DOUBLE, 2));
        (tree, scores)
    } else {
        // Two classes, class 1 weighed: its score against the threshold, the pair transformed.
        if !forest.covered.contains(&1) || base.len() > 1 {
            return Err(inexact(
                "a two-class classifier whose class 1 some rows may not score, or with two base values",
                target,
            ));
        }
        let tree = forest.node(xd, raw.clone(), &forest.weights_with(0.0), 2, 1, 0, DOUBLE);
        let mut scores = raw;
        if base.first().is_some_and(|&b| b != 0.0) {
            let b = helpers.constant("base", double_tensor(&[base[0], 0.0], &[2]));
            scores = helpers.op("Add", &[&scores, &b], vec![], None, (DOUBLE, 2));
        }
        let threshold = if weighed.len() == 1 && all_positive {
            0.5
        } else {
            0.0
        };
        pick_by_threshold(&mut helpers, &scores, 1, threshold, &labels, &label_out);
        let scores = transform_ops(&mut helpers, scores, &transform, target)?;
        (tree, scores)
    };
    helpers.cast(&scores, FLOAT, 2, Some(&scores_out));
    Ok(Adapted {
        before,
        node: tree,
        after: helpers.nodes,
    })
}

/// The label of each row: `labels[1]` where column `column` of `scores` passes `threshold`,
/// else `labels[0]`.
fn pick_by_threshold(
    helpers: &mut Helpers<'_>,
    scores: &str,
    column: i64,
    threshold: f64,
    labels: &str,
    output: &str,
) {
    let rule = onnx_function! {
        <domain: "adapted", opset_import: ["" : 13, "adapted" : 1]>
        PickByThreshold (scores, labels) => (label) {
            column = Constant <value = int64 {#column}> ()
            score = Gather <axis = 1> (scores, column)
            limit = Constant <value = double {#threshold}> ()
            passes = Greater (score, limit)
            which = Cast <to = 7> (passes)
            label = Gather <axis = 0> (labels, which)
        }
    };
    helpers.rule(&rule, &[scores, labels], Some(output), 1);
}

/// TreeEnsemble (5) → TreeEnsembleRegressor (3): float X only (the regressor writes floats),
/// no set membership; each reference to a leaf a leaf node of its tree.
pub(super) fn tree_ensemble_down(
    context: &mut Context,
    node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    let x = node.input.first().cloned().unwrap_or_default();
    match context.elem(&x) {
        Some(FLOAT) => {}
        Some(other) => {
            let name = crate::compat::elem_name(other).unwrap_or("?");
            return Err(inexact(
                format!("TreeEnsembleRegressor writes floats, and X is {name}"),
                target,
            ));
        }
        None => {
            return Err(Reason::Unknown {
                what: format!("the element type of `{x}`"),
                needed_by: "TreeEnsembleRegressor, which writes floats".to_owned(),
            });
        }
    }
    let tensor = |name: &str| {
        attribute(&node, name)
            .and_then(|a| a.t.as_deref())
            .ok_or_else(|| inexact(format!("`{name}` is missing"), target))
    };
    let splits = tensor_f64(tensor("nodes_splits")?)
        .ok_or_else(|| inexact("`nodes_splits` is no float tensor", target))?;
    let modes = small_ints(tensor("nodes_modes")?)
        .ok_or_else(|| inexact("`nodes_modes` is no integer tensor", target))?;
    let weights = tensor_f64(tensor("leaf_weights")?)
        .ok_or_else(|| inexact("`leaf_weights` is no float tensor", target))?;
    let features = ints(&node, "nodes_featureids");
    let n = features.len();
    let (trues, true_leafs) = (
        ints(&node, "nodes_truenodeids"),
        ints(&node, "nodes_trueleafs"),
    );
    let (falses, false_leafs) = (
        ints(&node, "nodes_falsenodeids"),
        ints(&node, "nodes_falseleafs"),
    );
    let mut tracks = ints(&node, "nodes_missing_value_tracks_true");
    if tracks.is_empty() {
        tracks = vec![0; n];
    }
    let leaf_targets = ints(&node, "leaf_targetids");
    let lengths = [
        splits.len(),
        modes.len(),
        trues.len(),
        true_leafs.len(),
        falses.len(),
        false_leafs.len(),
        tracks.len(),
    ];
    if lengths.iter().any(|&l| l != n) || leaf_targets.len() != weights.len() {
        return Err(inexact("the node or leaf arrays differ in length", target));
    }
    if modes.contains(&i64::from(MEMBER)) {
        return Err(inexact(
            "a BRANCH_MEMBER node (set membership exists from ai.onnx.ml 5)",
            target,
        ));
    }
    let mode_names = modes
        .iter()
        .map(|&m| usize::try_from(m).ok().and_then(|m| MODES.get(m)).copied())
        .collect::<Option<Vec<&str>>>()
        .ok_or_else(|| inexact("an unknown node mode", target))?;
    let child = |id: i64, leaf: i64| -> Result<(bool, usize), Reason> {
        let limit = if leaf != 0 { weights.len() } else { n };
        usize::try_from(id)
            .ok()
            .filter(|&i| i < limit)
            .map(|i| (leaf != 0, i))
            .ok_or_else(|| inexact(format!("child {id} does not exist"), target))
    };
    let mut out = LegacyArrays::default();
    for (tree, &root) in ints(&node, "tree_roots").iter().enumerate() {
        let root = child(root, 0)?;
        let mut ids: HashMap<(bool, usize), i64> = HashMap::new();
        let mut stack = vec![root];
        let mut order = Vec::new();
        while let Some(at) = stack.pop() {
            if ids.contains_key(&at) {
                continue;
            }
            ids.insert(at, order.len() as i64);
            order.push(at);
            if !at.0 {
                stack.push(child(falses[at.1], false_leafs[at.1])?);
                stack.push(child(trues[at.1], true_leafs[at.1])?);
            }
        }
        for &(leaf, i) in &order {
            let id = ids[&(leaf, i)];
            out.trees.push(tree as i64);
            out.ids.push(id);
            if leaf {
                out.push_node(0, "LEAF", 0.0, 0, 0, 0);
                out.w_trees.push(tree as i64);
                out.w_nodes.push(id);
                out.w_ids.push(leaf_targets[i]);
                out.w_values.push(weights[i]);
            } else {
                let t = ids[&child(trues[i], true_leafs[i])?];
                let f = ids[&child(falses[i], false_leafs[i])?];
                out.push_node(features[i], mode_names[i], splits[i], t, f, tracks[i]);
            }
        }
    }
    let aggregate = usize::try_from(int(&node, "aggregate_function", 1))
        .ok()
        .and_then(|a| AGGREGATES.get(a))
        .ok_or_else(|| inexact("an unknown aggregate_function", target))?;
    let transform = usize::try_from(int(&node, "post_transform", 0))
        .ok()
        .and_then(|t| TRANSFORMS.get(t))
        .ok_or_else(|| inexact("an unknown post_transform", target))?;
    let mut attributes = vec![
        int_attribute("n_targets", int(&node, "n_targets", 0)),
        string_attribute("aggregate_function", aggregate),
        string_attribute("post_transform", transform),
        ints_attribute("nodes_treeids", out.trees),
        ints_attribute("nodes_nodeids", out.ids),
        ints_attribute("nodes_featureids", out.features),
        strings_attribute("nodes_modes", out.modes),
        ints_attribute("nodes_truenodeids", out.trues),
        ints_attribute("nodes_falsenodeids", out.falses),
        ints_attribute("target_treeids", out.w_trees),
        ints_attribute("target_nodeids", out.w_nodes),
        ints_attribute("target_ids", out.w_ids),
        legacy_floats("nodes_values", &out.values),
        legacy_floats("target_weights", &out.w_values),
    ];
    if out.tracks.iter().any(|&t| t != 0) {
        attributes.push(ints_attribute(
            "nodes_missing_value_tracks_true",
            out.tracks,
        ));
    }
    let regressor = NodeProto {
        op_type: Some("TreeEnsembleRegressor".to_owned()),
        domain: node.domain.clone(),
        name: node.name.clone(),
        input: node.input.clone(),
        output: node.output.clone(),
        attribute: attributes,
        ..Default::default()
    };
    Ok(Adapted::alone(regressor))
}

#[derive(Default)]
struct LegacyArrays {
    trees: Vec<i64>,
    ids: Vec<i64>,
    features: Vec<i64>,
    modes: Vec<Vec<u8>>,
    values: Vec<f64>,
    trues: Vec<i64>,
    falses: Vec<i64>,
    tracks: Vec<i64>,
    w_trees: Vec<i64>,
    w_nodes: Vec<i64>,
    w_ids: Vec<i64>,
    w_values: Vec<f64>,
}

impl LegacyArrays {
    fn push_node(&mut self, feature: i64, mode: &str, value: f64, t: i64, f: i64, track: i64) {
        self.features.push(feature);
        self.modes.push(mode.as_bytes().to_vec());
        self.values.push(value);
        self.trues.push(t);
        self.falses.push(f);
        self.tracks.push(track);
    }
}

/// A legacy float list: floats where an f32 holds every value, else the ml-3 double tensor.
fn legacy_floats(name: &str, values: &[f64]) -> onnx_runtime_types::AttributeProto {
    if f32_exact(values) {
        floats_attribute(name, values.iter().map(|&v| v as f32).collect())
    } else {
        tensor_attribute(
            &format!("{name}_as_tensor"),
            double_tensor(values, &[values.len()]),
        )
    }
}

/// The values of a small integer tensor (TreeEnsemble's uint8 modes; int32 or int64 too).
fn small_ints(tensor: &TensorProto) -> Option<Vec<i64>> {
    match tensor.data_type? {
        2 => Some(match &tensor.raw_data {
            Some(raw) => raw.iter().map(|&b| i64::from(b)).collect(),
            None => tensor.int32_data.iter().map(|&v| i64::from(v)).collect(),
        }),
        _ => crate::context::tensor_ints(tensor),
    }
}

/// TreeEnsembleClassifier and TreeEnsembleRegressor 3 → 1: the `*_as_tensor` attributes as
/// float lists, where an f32 holds every value.
pub(super) fn as_tensor_to_floats(
    _: &mut Context,
    mut node: NodeProto,
    target: i64,
) -> Result<Adapted, Reason> {
    for attribute in &mut node.attribute {
        let Some(name) = attribute
            .name
            .as_deref()
            .and_then(|n| n.strip_suffix("_as_tensor"))
            .map(str::to_owned)
        else {
            continue;
        };
        let values = attribute
            .t
            .as_deref()
            .and_then(tensor_f64)
            .ok_or_else(|| inexact(format!("`{name}_as_tensor` is no float tensor"), target))?;
        if !f32_exact(&values) {
            return Err(inexact(
                format!("`{name}_as_tensor` holds doubles that floats cannot hold"),
                target,
            ));
        }
        *attribute = floats_attribute(&name, values.iter().map(|&v| v as f32).collect());
    }
    Ok(Adapted::alone(node))
}
