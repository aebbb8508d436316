//! Tree ensembles: TreeEnsembleClassifier and TreeEnsembleRegressor (versions 1 and 3, whose
//! nodes are named by tree and node id) and TreeEnsemble (version 5, whose leaves are apart).
//!
//! Every form is read on the node's first run into flat arrays of branches and leaves whose
//! children are indices, checked then (children exist, no tree has a cycle), and kept with the
//! node (`Ctx::prepared`), as onnxruntime builds its forest when a session is made; each run
//! checks only that X has the features the branches test. Walking a row down a tree needs no
//! checks and no allocation.

use super::{DOMAIN, Labels, Transform, float_list, float_tensor, rows, second_class};
use crate::error::KernelResult;
use crate::ops::training::floats_like;
use crate::ops::{Ctx, Registry, tensor};
use crate::tensor::Tensor;
use crate::value::Val;
use onnx_runtime_types::tensor_proto::DataType;
use std::collections::HashMap;

pub(super) fn register(r: &mut Registry) {
    r.add(
        DOMAIN,
        "TreeEnsembleClassifier",
        1,
        tree_ensemble_classifier,
    );
    r.add(
        DOMAIN,
        "TreeEnsembleClassifier",
        3,
        tree_ensemble_classifier,
    );
    r.add(DOMAIN, "TreeEnsembleRegressor", 1, tree_ensemble_regressor);
    r.add(DOMAIN, "TreeEnsembleRegressor", 3, tree_ensemble_regressor);
    r.add(DOMAIN, "TreeEnsemble", 5, tree_ensemble);
}

const LEQ: u8 = 0;
const LT: u8 = 1;
const GTE: u8 = 2;
const GT: u8 = 3;
const EQ: u8 = 4;
const NEQ: u8 = 5;
const MEMBER: u8 = 6;
/// A legacy node that is a leaf; never a branch's mode.
const LEAF: u8 = 7;
/// The walk's mode where branches differ in theirs: each branch's own is read.
const MIXED: u8 = 8;

/// Marks a child or a root that is a leaf (`LEAF_BIT | leaf`); without it, a branch's index.
const LEAF_BIT: u32 = 1 << 31;

/// A branch: its test, and its children (`[if true, if false]`).
#[derive(Clone, Copy, Debug)]
struct Branch {
    value: f64,
    feature: u32,
    mode: u8,
    nan_goes_true: bool,
    children: [u32; 2],
}

/// A forest read once per node (`Ctx::prepared`) into flat arrays, children by index, and
/// checked then (children exist, no tree has a cycle), so that walking a row down a tree needs
/// no checks and no allocation.
struct Forest {
    branches: Vec<Branch>,
    /// Each branch's BRANCH_MEMBER set, `members[s.0..s.1]` (empty without such branches).
    sets: Vec<(u32, u32)>,
    members: Vec<f64>,
    /// Each tree's root: a branch, or `LEAF_BIT | leaf`.
    roots: Vec<u32>,
    /// Leaf k weighs `weights[leaf_start[k]..leaf_start[k + 1]]` on the same `targets`.
    leaf_start: Vec<u32>,
    targets: Vec<u32>,
    weights: Vec<f64>,
    /// LEQ or LT where every branch has it (what the converters write), else MIXED: the walk
    /// is compiled for each, so that the usual forests test no mode per branch.
    mode: u8,
    /// How many features a row needs: one more than the greatest a reachable branch tests.
    features: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Aggregate {
    Sum,
    Average,
    Min,
    Max,
}

fn index(v: i64, what: &str) -> KernelResult<u32> {
    u32::try_from(v).map_err(|_| format!("{what} {v} is out of range"))
}

fn mode_of(name: &str) -> KernelResult<u8> {
    Ok(match name {
        "BRANCH_LEQ" => LEQ,
        "BRANCH_LT" => LT,
        "BRANCH_GTE" => GTE,
        "BRANCH_GT" => GT,
        "BRANCH_EQ" => EQ,
        "BRANCH_NEQ" => NEQ,
        "LEAF" => LEAF,
        other => return Err(format!("unknown node mode {other:?}")),
    })
}

/// An int-list attribute of exactly `len` entries (or absent, when `optional`).
fn ints_of(ctx: &Ctx<'_>, name: &str, len: usize, optional: bool) -> KernelResult<Vec<i64>> {
    match ctx.ints(name) {
        Some(v) if v.len() == len => Ok(v.to_vec()),
        None | Some([]) if optional => Ok(Vec::new()),
        Some(v) => Err(format!("`{name}` has {} entries, not {len}", v.len())),
        None => Err(format!("`{name}` is required")),
    }
}

impl Forest {
    /// The forest of TreeEnsembleClassifier/Regressor: nodes by (tree, node) id, weights by
    /// `<prefix>_treeids`, `_nodeids`, `_ids` and `_weights` (prefix `class` or `target`).
    fn read_legacy(ctx: &Ctx<'_>, prefix: &str, targets: usize) -> KernelResult<Forest> {
        let trees = ctx
            .ints("nodes_treeids")
            .ok_or("`nodes_treeids` is required")?;
        let n = trees.len();
        let ids = ints_of(ctx, "nodes_nodeids", n, false)?;
        let features = ints_of(ctx, "nodes_featureids", n, false)?;
        let true_ids = ints_of(ctx, "nodes_truenodeids", n, false)?;
        let false_ids = ints_of(ctx, "nodes_falsenodeids", n, false)?;
        let tracks = ints_of(ctx, "nodes_missing_value_tracks_true", n, true)?;
        let values = float_list(ctx, "nodes_values")?.unwrap_or_default();
        let modes = ctx.strings("nodes_modes").unwrap_or_default();
        if values.len() != n || modes.len() != n {
            return Err(format!(
                "{n} nodes, but {} nodes_values and {} nodes_modes",
                values.len(),
                modes.len()
            ));
        }
        if n >= LEAF_BIT as usize {
            return Err("too many nodes".to_string());
        }
        let mut at = HashMap::with_capacity(n);
        for i in 0..n {
            if at.insert((trees[i], ids[i]), i).is_some() {
                return Err(format!(
                    "node {} of tree {} is listed twice",
                    ids[i], trees[i]
                ));
            }
        }
        // Each node's place: a branch's index, or LEAF_BIT and the leaf's.
        let mut modes_of = Vec::with_capacity(n);
        let mut place = Vec::with_capacity(n);
        let (mut branches, mut leaves) = (0u32, 0u32);
        for i in 0..n {
            let mode = mode_of(&modes[i])?;
            index(features[i], "feature id")?;
            if mode == LEAF {
                place.push(LEAF_BIT | leaves);
                leaves += 1;
            } else {
                place.push(branches);
                branches += 1;
            }
            modes_of.push(mode);
        }
        let child = |i: usize, id: i64| -> KernelResult<u32> {
            at.get(&(trees[i], id))
                .map(|&c| place[c])
                .ok_or_else(|| format!("node {} of tree {} has no child {id}", ids[i], trees[i]))
        };
        // The leaves' weights, grouped by leaf (a counting sort); weights on a branch weigh
        // nothing.
        let w_trees = ctx.ints(&format!("{prefix}_treeids")).unwrap_or_default();
        let m = w_trees.len();
        let w_nodes = ints_of(ctx, &format!("{prefix}_nodeids"), m, false)?;
        let w_ids = ints_of(ctx, &format!("{prefix}_ids"), m, false)?;
        let w_values = float_list(ctx, &format!("{prefix}_weights"))?.unwrap_or_default();
        if w_values.len() != m {
            return Err(format!(
                "{m} {prefix}_treeids but {} {prefix}_weights",
                w_values.len()
            ));
        }
        let mut owner = Vec::with_capacity(m);
        let mut leaf_start = vec![0u32; leaves as usize + 1];
        for k in 0..m {
            let node = *at.get(&(w_trees[k], w_nodes[k])).ok_or_else(|| {
                format!(
                    "{prefix} weight {k} names node {} of tree {}, which does not exist",
                    w_nodes[k], w_trees[k]
                )
            })?;
            let target = index(w_ids[k], &format!("{prefix} id"))?;
            if target as usize >= targets {
                return Err(format!(
                    "{prefix} id {target} is beyond the {targets} {prefix}es"
                ));
            }
            let leaf = (place[node] & LEAF_BIT != 0).then_some((place[node] & !LEAF_BIT) as usize);
            if let Some(leaf) = leaf {
                leaf_start[leaf + 1] += 1;
            }
            owner.push((leaf, target));
        }
        for k in 0..leaves as usize {
            leaf_start[k + 1] += leaf_start[k];
        }
        let kept = leaf_start[leaves as usize] as usize;
        let (mut target_of, mut weights) = (vec![0u32; kept], vec![0.0; kept]);
        let mut fill = leaf_start.clone();
        for (k, &(leaf, target)) in owner.iter().enumerate() {
            if let Some(leaf) = leaf {
                let slot = fill[leaf] as usize;
                (target_of[slot], weights[slot]) = (target, w_values[k]);
                fill[leaf] += 1;
            }
        }
        let mut nodes = Vec::with_capacity(branches as usize);
        let mut roots = Vec::new();
        for i in 0..n {
            if i == 0 || trees[i] != trees[i - 1] {
                roots.push(place[i]);
            }
            if modes_of[i] != LEAF {
                nodes.push(Branch {
                    value: values[i],
                    feature: features[i] as u32,
                    mode: modes_of[i],
                    nan_goes_true: tracks.get(i).is_some_and(|&t| t == 1),
                    children: [child(i, true_ids[i])?, child(i, false_ids[i])?],
                });
            }
        }
        Forest::checked(Forest {
            branches: nodes,
            sets: Vec::new(),
            members: Vec::new(),
            roots,
            leaf_start,
            targets: target_of,
            weights,
            mode: MIXED,
            features: 0,
        })
    }

    /// TreeEnsemble's forest: interior nodes by index, leaves apart (`nodes_trueleafs` says
    /// which a child is), roots in `tree_roots`, BRANCH_MEMBER sets in `membership_values`.
    fn read_v5(ctx: &Ctx<'_>, targets: usize) -> KernelResult<Forest> {
        let features = ctx
            .ints("nodes_featureids")
            .ok_or("`nodes_featureids` is required")?;
        let n = features.len();
        let splits = ctx
            .tensor("nodes_splits")?
            .ok_or("`nodes_splits` is required")?
            .to_f64_vec()?;
        let modes = ctx
            .tensor("nodes_modes")?
            .ok_or("`nodes_modes` is required")?
            .to_i64_vec()?;
        let true_ids = ints_of(ctx, "nodes_truenodeids", n, false)?;
        let false_ids = ints_of(ctx, "nodes_falsenodeids", n, false)?;
        let true_leafs = ints_of(ctx, "nodes_trueleafs", n, false)?;
        let false_leafs = ints_of(ctx, "nodes_falseleafs", n, false)?;
        let tracks = ints_of(ctx, "nodes_missing_value_tracks_true", n, true)?;
        if splits.len() != n || modes.len() != n {
            return Err(format!(
                "{n} nodes, but {} nodes_splits and {} nodes_modes",
                splits.len(),
                modes.len()
            ));
        }
        let leaf_targets = ctx
            .ints("leaf_targetids")
            .ok_or("`leaf_targetids` is required")?;
        let leaf_weights = ctx
            .tensor("leaf_weights")?
            .ok_or("`leaf_weights` is required")?
            .to_f64_vec()?;
        let leaves = leaf_targets.len();
        if leaf_weights.len() != leaves {
            return Err("leaf_targetids and leaf_weights differ in length".to_string());
        }
        if n >= LEAF_BIT as usize || leaves >= LEAF_BIT as usize {
            return Err("too many nodes".to_string());
        }
        let members = ctx
            .tensor("membership_values")?
            .map(|t| t.to_f64_vec())
            .transpose()?
            .unwrap_or_default();
        let mut sets = Vec::new();
        let mut start = 0;
        for (i, v) in members.iter().enumerate() {
            if v.is_nan() {
                sets.push((start as u32, i as u32));
                start = i + 1;
            }
        }
        if start < members.len() {
            sets.push((start as u32, members.len() as u32));
        }
        let mut sets = sets.into_iter();
        let child = |id: i64, leaf: i64| -> KernelResult<u32> {
            let (limit, mark, what) = if leaf != 0 {
                (leaves, LEAF_BIT, "leaf")
            } else {
                (n, 0, "node")
            };
            usize::try_from(id)
                .ok()
                .filter(|&i| i < limit)
                .map(|i| i as u32 | mark)
                .ok_or_else(|| format!("{what} {id} does not exist"))
        };
        let mut branches = Vec::with_capacity(n);
        let mut branch_sets = Vec::new();
        for i in 0..n {
            let mode = u8::try_from(modes[i])
                .ok()
                .filter(|&m| m <= MEMBER)
                .ok_or_else(|| format!("unknown node mode {}", modes[i]))?;
            if mode == MEMBER {
                branch_sets.resize(i, (0, 0));
                branch_sets.push(
                    sets.next()
                        .ok_or("fewer membership sets than BRANCH_MEMBER nodes")?,
                );
            }
            branches.push(Branch {
                value: splits[i],
                feature: index(features[i], "feature id")?,
                mode,
                nan_goes_true: tracks.get(i).is_some_and(|&t| t == 1),
                children: [
                    child(true_ids[i], true_leafs[i])?,
                    child(false_ids[i], false_leafs[i])?,
                ],
            });
        }
        let mut target_of = Vec::with_capacity(leaves);
        for &t in leaf_targets {
            let target = index(t, "leaf target id")?;
            if target as usize >= targets {
                return Err(format!(
                    "leaf target {target} is beyond n_targets {targets}"
                ));
            }
            target_of.push(target);
        }
        let roots = ctx
            .ints("tree_roots")
            .ok_or("`tree_roots` is required")?
            .iter()
            .map(|&r| {
                usize::try_from(r)
                    .ok()
                    .filter(|&r| r < n)
                    .map(|r| r as u32)
                    .ok_or_else(|| format!("tree root {r} is no node"))
            })
            .collect::<KernelResult<_>>()?;
        Forest::checked(Forest {
            branches,
            sets: branch_sets,
            members,
            roots,
            // One weight per leaf.
            leaf_start: (0..=leaves as u32).collect(),
            targets: target_of,
            weights: leaf_weights,
            mode: MIXED,
            features: 0,
        })
    }

    /// Checks that no path from a root comes back to a branch on it (depth-first, without
    /// recursion), and sets what walking relies on: the features a row needs, and the mode
    /// the walk is compiled for.
    fn checked(mut self) -> KernelResult<Forest> {
        const NEW: u8 = 0;
        const OPEN: u8 = 1;
        const DONE: u8 = 2;
        let mut state = vec![NEW; self.branches.len()];
        let mut stack: Vec<(u32, u8)> = Vec::new();
        for &root in &self.roots {
            if root & LEAF_BIT != 0 || state[root as usize] == DONE {
                continue;
            }
            stack.push((root, 0));
            state[root as usize] = OPEN;
            while let Some(top) = stack.last_mut() {
                let branch = self.branches[top.0 as usize];
                if top.1 == 2 {
                    state[top.0 as usize] = DONE;
                    stack.pop();
                    continue;
                }
                if top.1 == 0 {
                    self.features = self.features.max(branch.feature as usize + 1);
                }
                let next = branch.children[top.1 as usize];
                top.1 += 1;
                if next & LEAF_BIT != 0 {
                    continue;
                }
                match state[next as usize] {
                    OPEN => return Err("a tree's branches form a cycle".to_string()),
                    NEW => {
                        state[next as usize] = OPEN;
                        stack.push((next, 0));
                    }
                    _ => {}
                }
            }
        }
        self.mode = match self.branches.first().map(|b| b.mode) {
            Some(mode @ (LEQ | LT)) if self.branches.iter().all(|b| b.mode == mode) => mode,
            _ => MIXED,
        };
        Ok(self)
    }

    /// Refuses an X of `features` columns that a reachable branch tests beyond.
    fn check_features(&self, features: usize) -> KernelResult<()> {
        if self.features > features {
            return Err(format!(
                "feature id {} is beyond X's {features} features",
                self.features - 1
            ));
        }
        Ok(())
    }

    /// The leaf `row` reaches from `at`, each branch tested by `MODE` (by its own, MIXED).
    #[inline(always)]
    fn leaf<const MODE: u8>(&self, mut at: u32, row: &[f64]) -> usize {
        while at & LEAF_BIT == 0 {
            let branch = &self.branches[at as usize];
            let x = row[branch.feature as usize];
            let v = branch.value;
            let mode = if MODE == MIXED { branch.mode } else { MODE };
            let goes_true = match mode {
                LEQ => x <= v,
                LT => x < v,
                GTE => x >= v,
                GT => x > v,
                EQ => x == v,
                NEQ => x != v,
                _ => {
                    let (start, end) = self.sets[at as usize];
                    self.members[start as usize..end as usize].contains(&x)
                }
            } || (branch.nan_goes_true && x.is_nan());
            at = branch.children[usize::from(!goes_true)];
        }
        (at & !LEAF_BIT) as usize
    }

    /// Every tree's leaf weights for each row of `x` (`features` wide), aggregated into the
    /// row's `targets` scores of `scores`; `has` says which scores got a weight. X must have
    /// the features the forest tests (`check_features`).
    fn accumulate(
        &self,
        x: &[f64],
        features: usize,
        how: Aggregate,
        targets: usize,
        scores: &mut [f64],
        has: &mut [bool],
    ) {
        match self.mode {
            LEQ => self.accumulate_as::<LEQ>(x, features, how, targets, scores, has),
            LT => self.accumulate_as::<LT>(x, features, how, targets, scores, has),
            _ => self.accumulate_as::<MIXED>(x, features, how, targets, scores, has),
        }
    }

    /// [`Forest::accumulate`] with the walk of `MODE`. Tree by tree, all rows through one tree
    /// before the next, so that a tree's branches stay in cache.
    fn accumulate_as<const MODE: u8>(
        &self,
        x: &[f64],
        features: usize,
        how: Aggregate,
        targets: usize,
        scores: &mut [f64],
        has: &mut [bool],
    ) {
        scores.fill(0.0);
        has.fill(false);
        let rows = scores.len() / targets.max(1);
        for &root in &self.roots {
            for r in 0..rows {
                let leaf = self.leaf::<MODE>(root, &x[r * features..(r + 1) * features]);
                let span = self.leaf_start[leaf] as usize..self.leaf_start[leaf + 1] as usize;
                for (&t, &w) in self.targets[span.clone()].iter().zip(&self.weights[span]) {
                    let at = r * targets + t as usize;
                    let (s, h) = (&mut scores[at], &mut has[at]);
                    *s = match how {
                        Aggregate::Sum | Aggregate::Average => *s + w,
                        Aggregate::Min if *h => s.min(w),
                        Aggregate::Max if *h => s.max(w),
                        _ => w,
                    };
                    *h = true;
                }
            }
        }
        if how == Aggregate::Average && !self.roots.is_empty() {
            let trees = self.roots.len() as f64;
            scores.iter_mut().for_each(|s| *s /= trees);
        }
    }
}

fn aggregate_of(ctx: &Ctx<'_>) -> KernelResult<Aggregate> {
    Ok(
        match ctx.string("aggregate_function").as_deref().unwrap_or("SUM") {
            "SUM" => Aggregate::Sum,
            "AVERAGE" => Aggregate::Average,
            "MIN" => Aggregate::Min,
            "MAX" => Aggregate::Max,
            other => return Err(format!("unknown aggregate_function {other:?}")),
        },
    )
}

/// `base_values` for `targets`: one per target, or a single one for a single target.
fn base_values(ctx: &Ctx<'_>, targets: usize) -> KernelResult<Vec<f64>> {
    let base = float_list(ctx, "base_values")?.unwrap_or_default();
    Ok(if base.len() == targets {
        base
    } else {
        vec![0.0; targets]
    })
}

/// TreeEnsembleRegressor: the aggregated leaf weights per target, plus the base values, then
/// `post_transform`; [N, n_targets]. A target no leaf of a row weighs is 0.
fn tree_ensemble_regressor(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let (n, f, values) = rows(x)?;
    let targets = usize::try_from(ctx.int("n_targets", 1)).map_err(|_| "n_targets is negative")?;
    // Per row and alone: a row's scores are made even when X has no rows.
    ctx.checked_count(&[n, targets])?;
    ctx.checked_count(&[targets])?;
    let forest = ctx.prepared(|| Forest::read_legacy(ctx, "target", targets))?;
    forest.check_features(f)?;
    let how = aggregate_of(ctx)?;
    let transform = Transform::read(ctx)?;
    let base = base_values(ctx, targets)?;
    let mut out = vec![0.0; n * targets];
    let mut has = vec![false; n * targets];
    forest.accumulate(&values, f, how, targets, &mut out, &mut has);
    for (scores, has) in out
        .chunks_mut(targets.max(1))
        .zip(has.chunks(targets.max(1)))
    {
        // A target that no leaf of the row weighs stays 0, without its base value (as
        // onnxruntime writes it).
        for ((s, b), &h) in scores.iter_mut().zip(&base).zip(has) {
            *s = if h { *s + b } else { 0.0 };
        }
        transform.apply(scores);
    }
    Ok(vec![Val::Tensor(float_tensor(out, &[n, targets])?)])
}

/// TreeEnsembleClassifier: the summed leaf weights per class, the base values, the label of the
/// greatest, then `post_transform`. Two classes follow onnxruntime's binary cases: when the
/// weights name one class only, its score s is the positive class's, the label is the positive
/// class where s passes 0.5 (weights all positive) or 0 (mixed), and the scores are written as
/// [1 - s, s] or [-s, s] (logistic of each under LOGISTIC).
fn tree_ensemble_classifier(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let (n, f, values) = rows(x)?;
    let labels = Labels::read(ctx, "classlabels_int64s")?;
    let classes = labels.len();
    if classes == 0 {
        return Err("no class labels".to_string());
    }
    ctx.checked_count(&[n, classes])?;
    let prepared = ctx.prepared(|| {
        let forest = Forest::read_legacy(ctx, "class", classes)?;
        // Over every weight the node lists, those on branches too (which weigh nothing).
        let ids = ctx.ints("class_ids").unwrap_or_default();
        let one_class = ids.first().is_some_and(|c| ids.iter().all(|d| d == c));
        let all_positive = float_list(ctx, "class_weights")?
            .unwrap_or_default()
            .iter()
            .all(|&w| w >= 0.0);
        Ok((forest, one_class, all_positive))
    })?;
    let (forest, one_class, all_positive) = (&prepared.0, prepared.1, prepared.2);
    forest.check_features(f)?;
    let transform = Transform::read(ctx)?;
    let base = float_list(ctx, "base_values")?.unwrap_or_default();
    let binary = classes == 2 && one_class;
    let mut out = vec![0.0; n * classes];
    let mut chosen = Vec::with_capacity(n);
    let mut has_all = vec![false; n * classes];
    forest.accumulate(&values, f, Aggregate::Sum, classes, &mut out, &mut has_all);
    for (scores, has) in out.chunks_mut(classes).zip(has_all.chunks_mut(classes)) {
        if classes > 2 {
            for (k, b) in base.iter().enumerate().take(classes) {
                scores[k] += b;
                has[k] = true;
            }
            let mut best: Option<usize> = None;
            for k in 0..classes {
                if has[k] && best.is_none_or(|b| scores[k] > scores[b]) {
                    best = Some(k);
                }
            }
            chosen.push(best.unwrap_or(0));
            transform.apply(scores);
            continue;
        }
        if classes == 1 {
            scores.iter_mut().zip(&base).for_each(|(s, b)| *s += b);
            chosen.push(0);
            transform.apply(scores);
            continue;
        }
        // Two classes: one score (the positive class's) unless class 1 has weights too.
        let mut single = !has[1];
        let mut margin = true;
        match base.len() {
            2 if has[1] => {
                // onnxruntime's reading: base_values[0] unused, the scores a margin.
                scores[1] = base[1] + scores[0];
                scores[0] = -scores[1];
            }
            2 => {
                scores[0] += base[0];
                scores[1] += base[1];
                single = false;
            }
            1 => scores[0] += base[0],
            _ => {}
        }
        let positive = if !single && has[1] {
            scores[1]
        } else if has[0] {
            scores[0]
        } else {
            0.0
        };
        let threshold = if binary && all_positive {
            margin = false;
            0.5
        } else {
            0.0
        };
        chosen.push(usize::from(positive > threshold));
        if single {
            let pair = if binary || base.is_empty() {
                second_class(scores[0], !margin, transform)
            } else {
                [scores[0], 0.0]
            };
            scores.copy_from_slice(&pair);
        } else {
            transform.apply(scores);
        }
    }
    Ok(vec![
        Val::Tensor(labels.pick(&chosen)?),
        Val::Tensor(float_tensor(out, &[n, classes])?),
    ])
}

/// TreeEnsemble: every tree's leaf weight aggregated into its target by `aggregate_function`
/// (0 average, 1 sum, 2 min, 3 max), then `post_transform`; [N, n_targets] of X's type.
fn tree_ensemble(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let [n, f] = *x.shape() else {
        return Err(format!("TreeEnsemble takes [N, F], got {:?}", x.shape()));
    };
    let targets = usize::try_from(ctx.int("n_targets", 0)).map_err(|_| "n_targets is negative")?;
    let shape = [n, targets];
    ctx.checked_count(&shape)?;
    ctx.checked_count(&[targets])?;
    let forest = ctx.prepared(|| Forest::read_v5(ctx, targets))?;
    forest.check_features(f)?;
    let how = match ctx.int("aggregate_function", 1) {
        0 => Aggregate::Average,
        1 => Aggregate::Sum,
        2 => Aggregate::Min,
        3 => Aggregate::Max,
        other => return Err(format!("unknown aggregate_function {other}")),
    };
    let transform = Transform::from_code(ctx.int("post_transform", 0))?;
    let values = x.to_f64_vec()?;
    let mut out = vec![0.0; n * targets];
    let mut has = vec![false; n * targets];
    forest.accumulate(&values, f, how, targets, &mut out, &mut has);
    out.chunks_mut(targets.max(1))
        .for_each(|scores| transform.apply(scores));
    let dtype = match x.dtype {
        DataType::Double | DataType::Float16 => x.dtype,
        _ => DataType::Float,
    };
    Ok(vec![Val::Tensor(floats_like(
        &Tensor::zeros(dtype, &shape)?,
        out,
    )?)])
}
