//! Attention and its caches: `Attention`, `TensorScatter`, and the preview domain's `FlexAttention`
//! and `LinearAttention`.

use onnx_runtime_types::{ValueInfoProto, tensor_shape_proto, type_proto};

use crate::node::{Conflict, Node, Rule, conflict, dtype, unify};
use crate::ty::{Dim, Ty, show_shape};

use super::elementwise::general;

/// `Attention` (opsets 23 to 25), as onnx infers it. Queries, keys and values are 4-D
/// (`[batch, heads, sequence, head size]`) or 3-D (`[batch, sequence, heads x head size]`,
/// with `q_num_heads` and `kv_num_heads`). `Y` has the query's batch, heads and sequence and
/// the value's head size; the `QK` product is `[batch, query heads, query sequence, total
/// sequence]`; the present key and value are the past ones with the total sequence (past
/// plus the value's). Where the query and the value differ in rank, onnx gives `Y` no shape
/// and the product only the batch.
pub fn attention(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    node.set_tensor(0, elem, None);
    let (qk, kv_sequence) = attention_output(node, elem)?;
    let qk = attention_cache(node, qk, &kv_sequence)?;
    if node.has_output(3) {
        node.set_tensor(3, elem, qk);
    }
    if node.opset >= 25 {
        attention_25_operands(node)?;
    }
    Ok(())
}

/// `Attention`'s `Y` (set), and the shape of its `QK` product and the kv sequence
/// (returned), from the query, key and value.
fn attention_output(
    node: &mut Node,
    elem: Option<i32>,
) -> Result<(Option<Vec<Dim>>, Dim), Conflict> {
    let Some(q) = node.ranked(0, "query", &[3, 4])?.map(<[Dim]>::to_vec) else {
        return Ok((None, Dim::Unknown));
    };
    if q.len() == 3 {
        for name in ["q_num_heads", "kv_num_heads"] {
            if node.attr(name).is_none() {
                return Err(conflict(0, format!("3-D inputs need the attribute {name}")));
            }
        }
    }
    let k = node.ranked(1, "key", &[3, 4])?.map(<[Dim]>::to_vec);
    // Without the value's shape onnx gives the product only the batch too; here it stays
    // unknown, as the value's shape may be one that only this inference misses.
    let Some(v) = node.ranked(2, "value", &[3, 4])?.map(<[Dim]>::to_vec) else {
        return Ok((None, Dim::Unknown));
    };
    // A 3-D key or value is split into heads by `kv_num_heads` (onnx asks for it only with a
    // 3-D query), which must divide its hidden size; so must `q_num_heads` the query's.
    let kv_heads = node.attr("kv_num_heads").and_then(|a| a.i);
    for (i, what, dims) in [(1, "key", k.as_deref()), (2, "value", Some(&v[..]))] {
        let Some([_, _, hidden]) = dims else {
            continue;
        };
        let Some(heads) = kv_heads else {
            return Err(conflict(
                i,
                format!("a 3-D {what} needs the attribute kv_num_heads"),
            ));
        };
        if let Some(h) = hidden.known()
            && heads > 0
            && h % heads != 0
        {
            let message =
                format!("the {what}'s hidden size {h} is not a multiple of {heads} heads");
            return Err(conflict(i, message));
        }
    }
    if let ([_, _, hidden], Some(heads)) = (&q[..], node.attr("q_num_heads").and_then(|a| a.i))
        && let Some(h) = hidden.known()
        && heads > 0
        && h % heads != 0
    {
        let message = format!("the query's hidden size {h} is not a multiple of {heads} heads");
        return Err(conflict(0, message));
    }
    // onnx reads a named size of the value as 0 here, and so rejects a product declared with
    // the size the name stands for; a name stays a name here (docs/divergences.md).
    match (q.len(), v.len()) {
        (4, 4) => {
            let y = vec![q[0].clone(), q[1].clone(), q[2].clone(), v[3].clone()];
            node.set_tensor(0, elem, Some(y));
            let kv_sequence = v[2].clone();
            let qk = vec![
                q[0].clone(),
                q[1].clone(),
                q[2].clone(),
                kv_sequence.clone(),
            ];
            Ok((Some(qk), kv_sequence))
        }
        (3, 3) => {
            let (q_heads, kv_heads) = (node.int("q_num_heads", 0), node.int("kv_num_heads", 0));
            if q_heads <= 0 || kv_heads <= 0 {
                return Err(general(format!(
                    "q_num_heads and kv_num_heads must be positive, found {q_heads} and {kv_heads}"
                )));
            }
            // A hidden size the heads do not divide has no head size (onnx rounds down).
            let hidden = match v[2].known() {
                Some(h) if h % kv_heads == 0 => {
                    Dim::Known((h / kv_heads).checked_mul(q_heads).ok_or_else(|| {
                        conflict(2, format!("{} x {q_heads} heads overflows", h / kv_heads))
                    })?)
                }
                _ => Dim::Unknown,
            };
            node.set_tensor(0, elem, Some(vec![q[0].clone(), q[1].clone(), hidden]));
            let kv_sequence = v[1].clone();
            let qk = vec![
                q[0].clone(),
                Dim::Known(q_heads),
                q[1].clone(),
                kv_sequence.clone(),
            ];
            Ok((Some(qk), kv_sequence))
        }
        // Where the query and value differ in rank onnx gives the product only the batch, a
        // rank it cannot have; it stays unknown here (docs/divergences.md).
        _ => Ok((None, Dim::Unknown)),
    }
}

/// `Attention`'s present key and value (set), where the past ones are given and the present
/// ones asked for: the past ones, rank 4, with the total sequence, which the `QK` product
/// (returned) ends with too.
fn attention_cache(
    node: &mut Node,
    mut qk: Option<Vec<Dim>>,
    kv_sequence: &Dim,
) -> Result<Option<Vec<Dim>>, Conflict> {
    let cached = node.has_output(1) && node.has_output(2) && node.has_input(4) && node.has_input(5);
    if !cached {
        return Ok(qk);
    }
    node.set_tensor(1, node.elem(4), None);
    node.set_tensor(2, node.elem(5), None);
    if node.dims(4).is_none() || node.dims(5).is_none() {
        return Ok(qk);
    }
    let past_key = node.ranked(4, "past_key", &[4])?.map(<[Dim]>::to_vec);
    let past_value = node.ranked(5, "past_value", &[4])?.map(<[Dim]>::to_vec);
    let (Some(mut present_key), Some(mut present_value)) = (past_key, past_value) else {
        return Ok(qk);
    };
    let (Some(new), Some(past)) = (kv_sequence.known(), present_key[2].known()) else {
        return Ok(qk);
    };
    if new <= 0 {
        return Ok(qk);
    }
    let total = Dim::Known(
        new.checked_add(past)
            .ok_or_else(|| conflict(4, format!("the total sequence {past} + {new} overflows")))?,
    );
    present_key[2] = total.clone();
    present_value[2] = total.clone();
    if let Some(qk) = qk.as_mut().filter(|qk| qk.len() == 4) {
        qk[3] = total;
    }
    node.set_tensor(1, node.elem(4), Some(present_key));
    node.set_tensor(2, node.elem(5), Some(present_value));
    Ok(qk)
}

/// What `Attention` 25 adds to the checks of its operands and attributes.
fn attention_25_operands(node: &Node) -> Rule {
    for name in ["left_window_size", "right_window_size"] {
        let size = node.int(name, -1);
        if size < -1 {
            return Err(general(format!(
                "{name} must be -1 or at least 0, found {size}"
            )));
        }
    }
    let rank = node.dims(0).map(<[Dim]>::len);
    let heads = (node.attr("q_num_heads"), node.attr("kv_num_heads"));
    if let (Some(3), (Some(q), Some(kv))) = (rank, heads) {
        let (q, kv) = (q.i.unwrap_or(0), kv.i.unwrap_or(0));
        if q <= 0 || kv <= 0 {
            return Err(general(format!(
                "q_num_heads and kv_num_heads must be positive, found {q} and {kv}"
            )));
        }
    }
    if rank == Some(4) && (heads.0.is_some() || heads.1.is_some()) {
        return Err(conflict(
            0,
            "4-D inputs take no q_num_heads or kv_num_heads",
        ));
    }
    if node.has_input(4) != node.has_input(5) {
        return Err(general("past_key and past_value go together"));
    }
    if node.has_output(1) != node.has_output(2) {
        return Err(general("present_key and present_value go together"));
    }
    if node.has_input(6) && (node.has_input(4) || node.has_output(1)) {
        return Err(conflict(
            6,
            "nonpad_kv_seqlen does not go with the past or present key and value",
        ));
    }
    Ok(())
}

/// `TensorScatter`: the past cache's shape. The update has the cache's rank and dims but on
/// `axis` (which cannot be the batch axis 0); the write indices are `[batch]`.
pub fn tensor_scatter(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let cache = node.shape_of(0);
    if let (Some(cache), Some(update)) = (&cache, node.dims(1)) {
        if cache.len() != update.len() {
            return Err(conflict(
                1,
                format!(
                    "the update {} must have the past cache's rank {}",
                    show_shape(update),
                    cache.len()
                ),
            ));
        }
        let rank = cache.len() as i64;
        let axis = node.int("axis", -2);
        let axis = if axis < 0 { axis + rank } else { axis };
        if axis <= 0 || axis >= rank {
            return Err(general(format!(
                "axis {} is out of range (1 to {}) for rank {rank}",
                node.int("axis", -2),
                rank - 1
            )));
        }
        for (i, (c, u)) in cache.iter().zip(update).enumerate() {
            if i as i64 != axis {
                unify(&mut c.clone(), u, 1, &format!("dim {i}"))?;
            }
        }
    }
    if node.dims(2).is_some() {
        node.ranked(2, "write_indices", &[1])?;
        if let Some(cache) = &cache {
            let Some(batch) = cache.first() else {
                let message = "the past cache must have a batch axis, found a scalar";
                return Err(conflict(0, message));
            };
            unify(&mut batch.clone(), &node.dim(2, 0), 2, "batch")?;
        }
    }
    node.set_tensor(0, elem, cache);
    Ok(())
}

/// `FlexAttention` (ai.onnx.preview): rank-4 query `[batch, query heads, sequence, head
/// size]`, key and value `[batch, kv heads, kv sequence, head size]`; the output has the
/// query's batch, heads and sequence and the value's head size. The score and probability
/// modifiers are graphs of one input and one output, of the softmax's element type.
pub fn flex_attention(node: &mut Node) -> Rule {
    if (0..3).any(|i| node.input(i).is_none()) {
        return Ok(());
    }
    let elem = node.elem(0);
    node.set_tensor(0, elem, None);
    let q = node.ranked(0, "query", &[4])?.map(<[Dim]>::to_vec);
    let k = node.ranked(1, "key", &[4])?.map(<[Dim]>::to_vec);
    let v = node.ranked(2, "value", &[4])?.map(<[Dim]>::to_vec);
    if let (Some(q), Some(k), Some(v)) = (q, k, v) {
        let differ = |a: &Dim, b: &Dim| matches!((a, b), (Dim::Known(x), Dim::Known(y)) if x != y);
        let kv = |what: &str| {
            format!(
                "the key and the value differ in {what}: {} and {}",
                show_shape(&k),
                show_shape(&v)
            )
        };
        if differ(&k[1], &v[1]) {
            return Err(conflict(2, kv("heads")));
        }
        if differ(&k[2], &v[2]) {
            return Err(conflict(2, kv("sequence")));
        }
        if differ(&q[3], &k[3]) {
            let message = format!(
                "the query and the key differ in head size: {} and {}",
                show_shape(&q),
                show_shape(&k)
            );
            return Err(conflict(1, message));
        }
        if let (Some(hq), Some(hkv)) = (q[1].known(), k[1].known())
            && hq != hkv
            && (hkv <= 0 || hq % hkv != 0)
        {
            let message = format!("{hq} query heads are no multiple of {hkv} key heads");
            return Err(conflict(1, message));
        }
        let mut batch = q[0].clone();
        unify(&mut batch, &k[0], 1, "batch")?;
        unify(&mut batch, &v[0], 2, "batch")?;
        node.set_tensor(
            0,
            elem,
            Some(vec![batch, q[1].clone(), q[2].clone(), v[3].clone()]),
        );
    }
    let softmax = match node.attr("softmax_precision") {
        Some(a) => {
            let precision = a.i.unwrap_or(0) as i32;
            if !matches!(
                precision,
                dtype::FLOAT | dtype::FLOAT16 | dtype::BFLOAT16 | dtype::DOUBLE
            ) {
                return Err(general(format!(
                    "softmax_precision must be float, float16, bfloat16 or double, found {precision}"
                )));
            }
            precision
        }
        None if elem == Some(dtype::DOUBLE) => dtype::DOUBLE,
        None => dtype::FLOAT,
    };
    flex_modifier(node, "score_mod", softmax)?;
    flex_modifier(node, "prob_mod", softmax)
}

/// A `FlexAttention` modifier graph (`score_mod`, `prob_mod`), where given: one input, one
/// output, both tensors of element type `elem`, of rank 4 where a shape is declared, and
/// with the same known dims.
fn flex_modifier(node: &Node, name: &str, elem: i32) -> Rule {
    let Some(attr) = node.attr(name) else {
        return Ok(());
    };
    let Some(graph) = attr.g.as_deref() else {
        return Err(general(format!("{name} must be a graph")));
    };
    if graph.input.len() != 1 || graph.output.len() != 1 {
        return Err(general(format!(
            "{name} must have 1 input and 1 output, found {} and {}",
            graph.input.len(),
            graph.output.len()
        )));
    }
    // The declared type: `None` where there is none, `Some(None)` where it is no tensor.
    let tensor = |value: &'_ ValueInfoProto| -> Option<Option<type_proto::Tensor>> {
        Some(match value.r#type.as_ref()?.value.as_ref() {
            Some(type_proto::Value::TensorType(t)) => Some(t.clone()),
            _ => None,
        })
    };
    let (input, output) = (tensor(&graph.input[0]), tensor(&graph.output[0]));
    if matches!(output, Some(None)) {
        return Err(general(format!("{name}'s output must be a tensor")));
    }
    let (input, output) = (input.flatten(), output.flatten());
    for (side, t) in [("input", &input), ("output", &output)] {
        let Some(t) = t else { continue };
        let found = t.elem_type.unwrap_or(0);
        if found != elem {
            let named =
                |e: i32| onnx_syntax::dtype::elem_type_by_number(e).map_or("undefined", |t| t.name);
            return Err(general(format!(
                "{name}'s {side} must be {} (the softmax's element type), found {}",
                named(elem),
                named(found)
            )));
        }
        if let Some(rank) = t.shape.as_ref().map(|s| s.dim.len()).filter(|&r| r != 4) {
            return Err(general(format!(
                "{name}'s {side} must have rank 4, found rank {rank}"
            )));
        }
    }
    if let (Some(i), Some(o)) = (&input, &output) {
        let known = |t: &type_proto::Tensor| -> Vec<Option<i64>> {
            t.shape
                .iter()
                .flat_map(|s| &s.dim)
                .map(|d| match d.value {
                    Some(tensor_shape_proto::dimension::Value::DimValue(v)) => Some(v),
                    _ => None,
                })
                .collect()
        };
        let differ = known(i)
            .iter()
            .zip(known(o))
            .any(|(a, b)| matches!((a, b), (Some(x), Some(y)) if *x != y));
        if differ {
            return Err(general(format!(
                "{name}'s output must have its input's shape"
            )));
        }
    }
    Ok(())
}

/// `LinearAttention`: 3-D operands `[batch, sequence, heads x head size]`, the past state
/// `[batch, kv_num_heads, key head size, value head size]`, the decay and beta
/// `[batch, sequence, n]`, which `update_rule` asks for; the output is
/// `[batch, sequence, q_num_heads x value head size]`, the present state has the past's shape.
/// The sizes they share (batch, sequence, head sizes, kv heads) must agree, as onnx unifies
/// them.
pub fn linear_attention(node: &mut Node) -> Rule {
    let (q_heads, kv_heads) = (node.int("q_num_heads", 0), node.int("kv_num_heads", 0));
    for (name, heads) in [("q_num_heads", q_heads), ("kv_num_heads", kv_heads)] {
        if heads <= 0 {
            return Err(general(format!("{name} must be positive, found {heads}")));
        }
    }
    if q_heads % kv_heads != 0 {
        return Err(general(format!(
            "q_num_heads ({q_heads}) must be a multiple of kv_num_heads ({kv_heads})"
        )));
    }
    let rule = node
        .attr("update_rule")
        .map_or(&b"gated_delta"[..], |a| a.s.as_deref().unwrap_or_default());
    let (decay, beta) = match rule {
        b"linear" => (false, false),
        b"gated" => (true, false),
        b"delta" => (false, true),
        b"gated_delta" => (true, true),
        _ => {
            return Err(general(format!(
                "update_rule must be linear, gated, delta or gated_delta, found {:?}",
                String::from_utf8_lossy(rule)
            )));
        }
    };
    for (input, name, wanted) in [(4, "decay", decay), (5, "beta", beta)] {
        if node.has_input(input) != wanted {
            let needs = if wanted { "needs the" } else { "takes no" };
            return Err(general(format!(
                "update_rule {} {needs} {name} operand",
                String::from_utf8_lossy(rule)
            )));
        }
    }
    let (mut b, mut t) = (Dim::Unknown, Dim::Unknown);
    let mut packed = [Dim::Unknown, Dim::Unknown, Dim::Unknown];
    for (i, name) in ["query", "key", "value"].into_iter().enumerate() {
        let sizes = &mut [
            ("batch", &mut b),
            ("sequence", &mut t),
            ("last dim", &mut packed[i]),
        ];
        node.unify_operand(i, name, sizes)?;
    }
    let mut heads = Dim::Known(kv_heads);
    // The head sizes of the keys and of the values.
    let mut head = [Dim::Unknown, Dim::Unknown];
    if node.has_input(3) {
        let [key_head, value_head] = &mut head;
        let sizes = &mut [
            ("batch", &mut b),
            ("heads", &mut heads),
            ("key head size", key_head),
            ("value head size", value_head),
        ];
        node.unify_operand(3, "past_state", sizes)?;
    }
    for (i, name) in [(4, "decay"), (5, "beta")] {
        if node.has_input(i) {
            let mut last = Dim::Unknown;
            let sizes = &mut [
                ("batch", &mut b),
                ("sequence", &mut t),
                ("last dim", &mut last),
            ];
            node.unify_operand(i, name, sizes)?;
        }
    }
    for (i, name, heads, side) in [
        (0, "query", q_heads, 0),
        (1, "key", kv_heads, 0),
        (2, "value", kv_heads, 1),
    ] {
        let Some(width) = packed[i].known() else {
            continue;
        };
        if width % heads != 0 {
            return Err(conflict(
                i,
                format!(
                    "operand {i} ({name}): its last dim {width} is no multiple of {heads} heads"
                ),
            ));
        }
        unify(&mut head[side], &Dim::Known(width / heads), i, "head size")?;
    }
    if let Some(last) = node
        .dims(4)
        .filter(|d| d.len() == 3)
        .and_then(|d| d[2].known())
    {
        let fits = match head[0].known() {
            Some(dk) => last == kv_heads || kv_heads.checked_mul(dk) == Some(last),
            None => last == kv_heads || last % kv_heads == 0,
        };
        if !fits {
            return Err(conflict(
                4,
                format!(
                    "operand 4 (decay): its last dim {last} is neither the {kv_heads} kv heads nor the kv heads times the key head size"
                ),
            ));
        }
    }
    if let Some(last) = node
        .dims(5)
        .filter(|d| d.len() == 3)
        .and_then(|d| d[2].known())
        && last != 1
        && last != kv_heads
    {
        return Err(conflict(
            5,
            format!(
                "operand 5 (beta): its last dim {last} is neither 1 nor the {kv_heads} kv heads"
            ),
        ));
    }
    let width = match head[1].known() {
        Some(v) => Dim::Known(
            q_heads
                .checked_mul(v)
                .ok_or_else(|| conflict(2, format!("{q_heads} heads x {v} overflows")))?,
        ),
        None => Dim::Unknown,
    };
    let elem = node.elem(0);
    node.set_tensor(0, elem, Some(vec![b.clone(), t, width]));
    if node.outputs.len() > 1 {
        let past_tensor = matches!(node.input(3), Some(Ty::Tensor { .. }));
        let state_elem = if node.has_input(3) && past_tensor {
            node.elem(3)
        } else {
            elem
        };
        let [key_head, value_head] = head;
        node.set_tensor(1, state_elem, Some(vec![b, heads, key_head, value_head]));
    }
    Ok(())
}
