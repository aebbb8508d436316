//! The driver: walks the main graph, the subgraphs of its nodes and the model-local functions,
//! and converts each node of a converted domain step by step, from the version its import
//! resolves to, to the target's. Refusals are collected; the model is returned only if there
//! are none.

use onnx_runtime_types::{GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorProto};
use onnx_schema::AtVersion;
use onnx_schema::table::Schema;

use crate::context::Context;
use crate::error::{Error, Reason, Refusal};
use crate::prune::{self, Names};
use crate::steps::{Crossing, Step, crossing, schema, versions};
use crate::{adapters, compat, expand};

/// The refusals met so far, and what the refused nodes read.
#[derive(Default)]
pub(crate) struct Refused {
    pub list: Vec<Refusal>,
    /// Indices in `list` of refused `Constant` nodes: their refusal stands only if something
    /// still reads them once the whole model is converted.
    pub constants: Vec<usize>,
    /// The names the refused nodes (absent from the converted model) read.
    pub reads: Vec<String>,
}

/// The default domain and ai.onnx.ml: a domain's source version and target.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Move {
    pub domain: &'static str,
    pub from: i64,
    pub to: i64,
}

/// Converts `model` by `moves`; `moves` are validated by the caller.
pub(crate) fn convert_model(mut model: ModelProto, moves: &[Move]) -> Result<ModelProto, Error> {
    let before = Names::of(&model);
    let mut refusals = Refused::default();
    let mut context = Context::new(model.graph.iter());
    for function in &model.functions {
        for node in &function.node {
            context.take_node_names(node);
        }
    }
    // The default domain's opset at the end: ai.onnx.ml adapters' helpers are converted to it.
    let default_import = imported(&model.opset_import, "");
    context.default_opset = moves
        .iter()
        .find(|m| m.domain.is_empty())
        .map(|m| m.to)
        .or(default_import)
        .unwrap_or(HELPER_OPSET);
    let inferred = onnx_infer::Inference::of_model(&model);
    if let Some(graph) = model.graph.as_mut() {
        for (name, ty) in inferred.iter() {
            if let onnx_infer::Ty::Tensor { elem, .. } = ty {
                let known = context.types.entry(name.to_owned()).or_default();
                known.elem = (*elem != 0).then_some(*elem);
                known.rank = ty.rank();
                if let Some(dims) = ty.dims() {
                    let dims = dims.iter().map(onnx_infer::Dim::known).collect();
                    context.dims.insert(name.to_owned(), dims);
                }
            }
        }
        let path = graph.name.clone().unwrap_or_default();
        convert_graph(&mut context, graph, moves, &path, &mut refusals);
    }
    let model_imports = model.opset_import.clone();
    for function in &mut model.functions {
        let imports = if function.opset_import.is_empty() {
            &model_imports
        } else {
            &function.opset_import
        };
        let function_moves = moves_for(imports, moves);
        context.in_graph = false;
        // A function's names are its own: no fact of the graph, or of another function,
        // holds inside it.
        context.forget_facts();
        for node in &function.node {
            context.record_constant(node);
        }
        let path = format!(
            "{}.{}",
            function.domain.as_deref().unwrap_or_default(),
            function.name.as_deref().unwrap_or_default()
        );
        let mut nodes = std::mem::take(&mut function.node);
        nodes = convert_nodes(&mut context, nodes, &function_moves, &path, &mut refusals);
        function.node = nodes;
        rewrite_imports(&mut function.opset_import, &function_moves);
    }
    // The nodes the conversion made dead go, and a refused Constant among them is no refusal.
    let now = prune::prune(
        &mut model,
        &before,
        &refusals.reads,
        &context.moved_to_initializers,
    );
    let Refused {
        list, constants, ..
    } = refusals;
    let refusals: Vec<Refusal> = list
        .into_iter()
        .enumerate()
        .filter(|(i, r)| !(constants.contains(i) && prune::dead(&r.outputs, true, &before, &now)))
        .map(|(_, r)| r)
        .collect();
    if !refusals.is_empty() {
        return Err(Error::Nodes(refusals));
    }
    rewrite_imports(&mut model.opset_import, moves);
    if context.default_used && default_import.is_none() {
        model.opset_import.push(OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(context.default_opset),
        });
    }
    let mut final_moves = moves.to_vec();
    if default_import.is_none() && context.default_used {
        final_moves.push(Move {
            domain: "",
            from: context.default_opset,
            to: context.default_opset,
        });
    }
    raise_ir_version(&mut model, &final_moves);
    let moved_kept = (context.moved_to_initializers.iter()).any(|name| now.defined.contains(name));
    if moved_kept && model.ir_version.unwrap_or(0) < 4 {
        // Before IR 4 an initializer must also be a graph input.
        model.ir_version = Some(4);
    }
    Ok(model)
}

/// The opset of the default domain at which ai.onnx.ml adapters write their helpers (then
/// converted to the model's), and the one a model that imports no default domain gets.
pub(crate) const HELPER_OPSET: i64 = 13;

/// The moves of a function with its own imports: from its versions to the same targets.
fn moves_for(imports: &[OperatorSetIdProto], moves: &[Move]) -> Vec<Move> {
    moves
        .iter()
        .filter_map(|m| {
            let from = imported(imports, m.domain)?;
            Some(Move { from, ..*m })
        })
        .collect()
}

/// The version at which `imports` import `domain` (the last entry wins, as in onnx's checker).
pub(crate) fn imported(imports: &[OperatorSetIdProto], domain: &str) -> Option<i64> {
    imports
        .iter()
        .rev()
        .find(|i| same_domain(i.domain.as_deref().unwrap_or_default(), domain))
        .map(|i| i.version.unwrap_or(0))
}

pub(crate) fn same_domain(a: &str, b: &str) -> bool {
    let normal = |d: &str| if d == "ai.onnx" { "" } else { d }.to_owned();
    normal(a) == normal(b)
}

fn rewrite_imports(imports: &mut [OperatorSetIdProto], moves: &[Move]) {
    for import in imports {
        let domain = import.domain.as_deref().unwrap_or_default();
        if let Some(m) = moves.iter().find(|m| same_domain(domain, m.domain)) {
            import.version = Some(m.to);
        }
    }
}

/// The IR version each opset of the default domain needs (onnx's `VERSION_TABLE`), raised to
/// on the way up; a newer IR version is kept on the way down, as it reads older opsets.
const IR_FOR_OPSET: &[(i64, i64)] = &[
    (9, 4),
    (10, 5),
    (11, 6),
    (12, 7),
    (15, 8),
    (19, 9),
    (21, 10),
    (23, 11),
    (24, 12),
    (25, 13),
    (28, 14),
];

/// The same for ai.onnx.ml.
const IR_FOR_ML_OPSET: &[(i64, i64)] = &[(2, 6), (3, 8), (4, 9), (5, 10)];

fn raise_ir_version(model: &mut ModelProto, moves: &[Move]) {
    let needed = moves
        .iter()
        .flat_map(|m| {
            let table = if m.domain.is_empty() {
                IR_FOR_OPSET
            } else {
                IR_FOR_ML_OPSET
            };
            table.iter().filter(move |(opset, _)| *opset <= m.to)
        })
        .map(|(_, ir)| *ir)
        .max();
    if let Some(needed) = needed
        && model.ir_version.unwrap_or(0) < needed
    {
        model.ir_version = Some(needed);
    }
}

fn convert_graph(
    context: &mut Context,
    graph: &mut GraphProto,
    moves: &[Move],
    path: &str,
    refusals: &mut Refused,
) {
    context.declare(&graph.input);
    context.declare(&graph.output);
    context.declare(&graph.value_info);
    context.collect_constants(graph);
    let nodes = std::mem::take(&mut graph.node);
    let outer = (
        std::mem::replace(&mut context.in_graph, true),
        std::mem::take(&mut context.initializers),
    );
    graph.node = convert_nodes(context, nodes, moves, path, refusals);
    graph.initializer = context.constants.end_graph();
    graph.initializer.append(&mut context.initializers);
    (context.in_graph, context.initializers) = outer;
}

fn convert_nodes(
    context: &mut Context,
    nodes: Vec<NodeProto>,
    moves: &[Move],
    path: &str,
    refusals: &mut Refused,
) -> Vec<NodeProto> {
    let mut converted = Vec::with_capacity(nodes.len());
    for (index, mut node) in nodes.into_iter().enumerate() {
        // Subgraphs first: their nodes are converted with the same moves.
        for attribute in &mut node.attribute {
            let name = attribute.name.clone().unwrap_or_default();
            let inner = attribute.g.iter_mut().map(|g| &mut **g);
            for (k, graph) in inner.chain(attribute.graphs.iter_mut()).enumerate() {
                let sub = format!(
                    "{path}/{index}/{name}{}",
                    if k > 0 {
                        format!("[{k}]")
                    } else {
                        String::new()
                    }
                );
                convert_graph(context, graph, moves, &sub, refusals);
            }
        }
        let domain = node.domain.clone().unwrap_or_default();
        let Some(m) = moves.iter().find(|m| same_domain(&domain, m.domain)) else {
            converted.push(node);
            continue;
        };
        let (operator, outputs) = (
            node.op_type.clone().unwrap_or_default(),
            node.output.clone(),
        );
        let mut reads = Vec::new();
        prune::reads(&node, &mut reads);
        let constant = m.domain.is_empty() && operator == "Constant";
        match convert_node(context, node, *m, m.from) {
            Ok(nodes) => converted.extend(nodes),
            Err(reason) => {
                if constant {
                    refusals.constants.push(refusals.list.len());
                }
                refusals.reads.extend(reads);
                refusals.list.push(Refusal {
                    graph: path.to_owned(),
                    node: index,
                    operator,
                    outputs,
                    reason,
                });
            }
        }
    }
    converted
}

/// Converts `node`, read at opset `at` of its domain, to `m.to`: the nodes that replace it.
pub(crate) fn convert_node(
    context: &mut Context,
    node: NodeProto,
    m: Move,
    at: i64,
) -> Result<Vec<NodeProto>, Reason> {
    let node_domain = node.domain.as_deref().unwrap_or_default();
    if !m.domain.is_empty() && same_domain(node_domain, "") {
        // A helper an ai.onnx.ml adapter wrote at HELPER_OPSET: on to the model's opset.
        context.default_used = true;
        let to = context.default_opset;
        let helper = Move {
            domain: "",
            from: HELPER_OPSET,
            to,
        };
        return convert_node(context, node, helper, HELPER_OPSET);
    }
    let operator = node.op_type.clone().unwrap_or_default();
    let domain = if m.domain.is_empty() {
        "ai.onnx"
    } else {
        m.domain
    };
    let unknown = || Reason::UnknownOperator {
        operator: operator.clone(),
        opset: at,
    };
    let all = versions(domain, &operator).ok_or_else(unknown)?;
    let current = match onnx_schema::at_version(all, at) {
        Some(AtVersion::Found(schema)) => schema,
        Some(AtVersion::Removed(old)) => {
            // A version onnx deprecated that models still hold (GroupNormalization-18): an
            // adapter up to the next live version, if there is one; from there the node goes
            // on to the target as any node of that version (below it, by its expansion).
            let next = all.iter().find(|s| s.since > old.since && !s.deprecated);
            let step = next.map(|next| Step {
                domain,
                operator: &operator,
                from: old.since,
                to: next.since,
            });
            let (Some(next), Some(adapter)) = (next, step.as_ref().and_then(adapters::find)) else {
                return Err(unknown());
            };
            let adapted = adapter(context, node, m.to)?;
            let mut nodes = Vec::new();
            for helper in adapted.before {
                context.record_constant(&helper);
                nodes.extend(convert_node(context, helper, m, next.since)?);
            }
            nodes.extend(convert_node(context, adapted.node, m, next.since)?);
            for helper in adapted.after {
                nodes.extend(convert_node(context, helper, m, next.since)?);
            }
            return Ok(nodes);
        }
        _ => return Err(unknown()),
    };
    // The newest version in force at the target, or the last one before its removal.
    let (last, missing) = match onnx_schema::at_version(all, m.to) {
        Some(AtVersion::Found(schema)) => (schema, None),
        Some(AtVersion::Removed(removed)) => (
            all.iter()
                .rev()
                .find(|s| s.since < removed.since && !s.deprecated)
                .unwrap_or(current),
            Some(removed.since),
        ),
        // Below the operator's first version: an adapter that writes the node in older terms
        // starts from the first version, so step down to it; an expansion starts from the
        // node's own.
        _ => {
            let first = all.iter().find(|s| !s.deprecated).unwrap_or(current);
            let absent = Step {
                domain,
                operator: &operator,
                from: first.since,
                to: 0,
            };
            match adapters::find(&absent) {
                Some(_) => (first, Some(0)),
                None => (current, Some(0)),
            }
        }
    };
    if let Some(tensor) = constant_to_initializer(context, &node, m) {
        context
            .moved_to_initializers
            .insert(tensor.name.clone().unwrap_or_default());
        context.initializers.push(tensor);
        return Ok(Vec::new());
    }
    let mut node = node;
    let mut version = current;
    let mut prepended = Vec::new();
    let mut appended = Vec::new();
    // Step by step toward `last`, then across the removal or the absence if there is one.
    loop {
        let next = if version.since < last.since {
            all.iter()
                .find(|s| s.since > version.since && !s.deprecated)
        } else if version.since > last.since {
            all.iter()
                .rev()
                .find(|s| s.since < version.since && !s.deprecated)
        } else {
            None
        };
        let Some(next) = next else { break };
        let step = Step {
            domain,
            operator: &operator,
            from: version.since,
            to: next.since,
        };
        let crossed = cross_step(context, node, &step, version, next, m.to)?;
        // The helpers are written at the step's version, and converted on from there.
        for helper in crossed.before {
            context.record_constant(&helper);
            prepended.extend(convert_node(context, helper, m, next.since)?);
        }
        // The helpers after the node read its outputs: their types first.
        if !crossed.after.is_empty() && crossed.node.op_type.as_deref() == Some(operator.as_str()) {
            context.propagate(&crossed.node, next);
        }
        let mut after = Vec::new();
        for helper in crossed.after {
            after.extend(convert_node(context, helper, m, next.since)?);
        }
        appended.splice(0..0, after);
        node = crossed.node;
        if node.op_type.as_deref() != Some(operator.as_str()) {
            // Renamed (Scatter → ScatterElements): the new operator goes on from this opset.
            let rest = convert_node(context, node, m, next.since)?;
            return Ok([prepended, rest, appended].concat());
        }
        version = next;
    }
    if let Some(removed_at) = missing {
        let step = Step {
            domain,
            operator: &operator,
            from: version.since,
            to: removed_at,
        };
        // An adapter writes its nodes at the version of the removal (or, for an operator that
        // the target does not have yet, at the node's); an expansion at its body's opset.
        let (parts, parts_at) = match adapters::find(&step) {
            Some(adapter) => {
                let adapted = adapter(context, node, m.to)?;
                let mut nodes = adapted.before;
                nodes.push(adapted.node);
                nodes.extend(adapted.after);
                (
                    nodes,
                    if removed_at > 0 {
                        removed_at
                    } else {
                        version.since - 1
                    },
                )
            }
            None if m.to < version.since => expand::expand(context, node, version, m.to)?,
            None => {
                return Err(Reason::NotAtTarget {
                    operator,
                    opset: m.to,
                    since: None,
                });
            }
        };
        let mut middle = Vec::new();
        for part in parts {
            context.record_constant(&part);
            middle.extend(convert_node(context, part, m, parts_at)?);
        }
        return Ok([prepended, middle, appended].concat());
    }
    if let Some(schema) = schema(domain, &operator, version.since) {
        context.propagate(&node, schema);
    }
    Ok([prepended, vec![node], appended].concat())
}

/// The value of a Constant that the target's Constant cannot hold (before 9 it holds float
/// types only) and a graph initializer can: an int64 `axes` or `shape` that an expansion or an
/// adapter wrote, say.
fn constant_to_initializer(context: &Context, node: &NodeProto, m: Move) -> Option<TensorProto> {
    const CONSTANT_1_TYPES: [i32; 3] = [1, 10, 11];
    let is_constant = m.domain.is_empty() && node.op_type.as_deref() == Some("Constant");
    if !(is_constant && m.to < 9 && context.in_graph) {
        return None;
    }
    let output = node.output.first()?;
    let tensor = context.constants.get(output)?;
    if CONSTANT_1_TYPES.contains(&tensor.data_type?) {
        return None;
    }
    Some(TensorProto {
        name: Some(output.clone()),
        ..tensor.clone()
    })
}

/// What crossing a step made: the node at the new version, and the helpers around it.
pub(crate) struct Adapted {
    pub before: Vec<NodeProto>,
    pub node: NodeProto,
    pub after: Vec<NodeProto>,
}

impl Adapted {
    /// The node alone, unchanged but for what the caller did.
    pub fn alone(node: NodeProto) -> Adapted {
        Adapted {
            before: Vec::new(),
            node,
            after: Vec::new(),
        }
    }

    /// The node, after the helpers it now reads.
    pub fn with_before(before: Vec<NodeProto>, node: NodeProto) -> Adapted {
        Adapted {
            before,
            node,
            after: Vec::new(),
        }
    }
}

fn cross_step(
    context: &mut Context,
    node: NodeProto,
    step: &Step<'_>,
    from: &Schema,
    to: &Schema,
    target: i64,
) -> Result<Adapted, Reason> {
    match crossing(step) {
        Crossing::Adapter => {
            let adapter = adapters::find(step).ok_or_else(|| unreachable_reason(step))?;
            let mut adapted = adapter(context, node, target)?;
            // What the helpers before the node compute is known before the node is checked.
            for helper in &adapted.before {
                context.record_constant(helper);
                let op = helper.op_type.as_deref().unwrap_or_default();
                if let Some(AtVersion::Found(schema)) =
                    versions("ai.onnx", op).and_then(|all| onnx_schema::at_version(all, to.since))
                {
                    context.propagate(helper, schema);
                }
            }
            // The adapter moved what changed; the rest of the node crosses as any step.
            if adapted.node.op_type.as_deref() == Some(step.operator) {
                adapted.node = compat::cross(context, adapted.node, from, to, target)?;
            }
            Ok(adapted)
        }
        Crossing::Refused(why) => Err(Reason::NoAdapter {
            operator: step.operator.to_owned(),
            from: step.from,
            to: step.to,
            why,
        }),
        Crossing::Compatible => Ok(Adapted::alone(node)),
        Crossing::CheckedPerNode => {
            compat::cross(context, node, from, to, target).map(Adapted::alone)
        }
    }
}

fn unreachable_reason(step: &Step<'_>) -> Reason {
    Reason::NoAdapter {
        operator: step.operator.to_owned(),
        from: step.from,
        to: step.to,
        why: "no adapter",
    }
}
