//! Attention and what transformer blocks use beside it: Attention (versions 23, 24 and 25),
//! LinearAttention, RotaryEmbedding, SwiGLU and ai.onnx.preview's FlexAttention.
//!
//! Everything computes in f64 on arrays laid out (batch, heads, sequence, head size); the
//! softmax probabilities are rounded to Q's element type before they weight V, as the spec's
//! function body casts them.

use super::wide::{narrow, widen};
use super::{Ctx, Registry, tensor, tensor_opt};
use crate::error::KernelResult;
use crate::halves::{bf16, f16};
use crate::tensor::MapEach;
use crate::tensor::{Data, Tensor};
use crate::value::Val;
use ndarray::{Array4, ArrayD, Axis, IxDyn};
use onnx_runtime_types::tensor_proto::DataType;

pub(super) fn register(r: &mut Registry) {
    // 24 adds `nonpad_kv_seqlen` (and the causal offset it gives), 25 the sliding window.
    r.add("", "Attention", 23, attention);
    r.add("", "Attention", 24, attention);
    r.add("", "Attention", 25, attention);
    r.add("", "RotaryEmbedding", 23, rotary_embedding);
    r.add("", "SwiGLU", 28, swiglu);
    r.add("", "LinearAttention", 27, linear_attention);
    r.add("ai.onnx.preview", "FlexAttention", 1, flex_attention);
}

/// Rounds an f64 to the float element type `dtype` and back.
fn rounding(dtype: DataType) -> fn(f64) -> f64 {
    match dtype {
        DataType::Float => |x| f64::from(x as f32),
        DataType::Float16 => |x| f16::from_f64(x).to_f64(),
        DataType::Bfloat16 => |x| bf16::from_f64(x).to_f64(),
        _ => |x| x,
    }
}

/// A Q, K or V operand as (batch, heads, sequence, head size): a 4-D one as it is, a 3-D one
/// (batch, sequence, heads * head size) split into `heads`.
fn heads_layout(t: &Tensor, heads: Option<i64>, name: &str) -> KernelResult<Array4<f64>> {
    let wide = widen(t)?;
    match *wide.shape() {
        [_, _, _, _] => wide.into_dimensionality().map_err(|e| e.to_string()),
        [batch, sequence, hidden] => {
            let heads = heads
                .filter(|&h| h > 0 && hidden % h as usize == 0)
                .ok_or_else(|| {
                    format!("{name}'s hidden size {hidden} needs a number of heads dividing it")
                })? as usize;
            let split = wide
                .into_shape_with_order(IxDyn(&[batch, sequence, heads, hidden / heads]))
                .map_err(|e| e.to_string())?
                .permuted_axes(IxDyn(&[0, 2, 1, 3]));
            split
                .as_standard_layout()
                .into_owned()
                .into_dimensionality()
                .map_err(|e| e.to_string())
        }
        _ => Err(format!(
            "{name} has shape {:?}, neither 3-D nor 4-D",
            wide.shape()
        )),
    }
}

/// K or V after its past: the two joined along the sequence axis.
fn with_past(current: Array4<f64>, past: Option<&Tensor>, name: &str) -> KernelResult<Array4<f64>> {
    let Some(past) = past else {
        return Ok(current);
    };
    let past: Array4<f64> = widen(past)?
        .into_dimensionality()
        .map_err(|_| format!("past_{name} is not 4-D"))?;
    ndarray::concatenate(Axis(2), &[past.view(), current.view()]).map_err(|_| {
        format!(
            "past_{name} of shape {:?} does not join {name} of shape {:?}",
            past.shape(),
            current.shape()
        )
    })
}

/// The additive bias of the attention mask operand, padded with -inf (or false) to
/// `total` keys and broadcast to (batch, q heads, q sequence, total).
fn mask_bias(ctx: &Ctx<'_>, mask: &Tensor, full: [usize; 4]) -> KernelResult<Array4<f64>> {
    let bias = match &mask.data {
        Data::Bool(a) => a.map_each(&|allowed| if allowed { 0.0 } else { f64::NEG_INFINITY }),
        _ => widen(mask)?,
    };
    let total = full[3];
    let rank = bias.ndim();
    let keys = *bias.shape().last().ok_or("attn_mask is a scalar")?;
    if keys > total {
        return Err(format!(
            "attn_mask has {keys} keys, more than the {total} of K"
        ));
    }
    let mut padded_shape = bias.shape().to_vec();
    padded_shape[rank - 1] = total;
    // An empty mask row may stretch to many keys: count before padding.
    ctx.checked_count(&padded_shape)?;
    let mut padded = ArrayD::from_elem(IxDyn(&padded_shape), f64::NEG_INFINITY);
    padded
        .slice_axis_mut(Axis(rank - 1), (0..keys).into())
        .assign(&bias);
    padded
        .broadcast(IxDyn(&full))
        .ok_or_else(|| {
            format!("attn_mask of shape {padded_shape:?} does not broadcast to {full:?}")
        })?
        .to_owned()
        .into_dimensionality()
        .map_err(|e| e.to_string())
}

/// What a query may see besides the mask: the causal frontier and the sliding window, both
/// aligned at the bottom right by `offset` (the keys before the query block).
struct Visibility {
    causal: bool,
    left: i64,
    right: i64,
}

impl Visibility {
    fn allows(&self, query: usize, key: usize, offset: i64) -> bool {
        let position = query as i64 + offset;
        let key = key as i64;
        (!self.causal || key <= position)
            && (self.left < 0 || position - key <= self.left)
            && (self.right < 0 || key - position <= self.right)
    }
}

/// Softmax of a row of scores, each step rounded by `round`, or zeros when every key is
/// masked out.
fn attention_probabilities(scores: &[f64], all_masked: bool, round: fn(f64) -> f64) -> Vec<f64> {
    if all_masked {
        return vec![0.0; scores.len()];
    }
    let scores: Vec<f64> = scores.iter().map(|&x| round(x)).collect();
    let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let exps: Vec<f64> = scores
        .iter()
        .map(|&x| round(round(x - max).exp()))
        .collect();
    let sum = round(exps.iter().sum());
    exps.iter().map(|&e| round(e / sum)).collect()
}

fn attention(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (q_in, k_in, v_in) = (tensor(inputs, 0)?, tensor(inputs, 1)?, tensor(inputs, 2)?);
    if q_in.rank() != k_in.rank() || q_in.rank() != v_in.rank() {
        return Err("Q, K and V are not of one rank".to_string());
    }
    let kv_heads_attribute = ctx.int_opt("kv_num_heads");
    let q = heads_layout(q_in, ctx.int_opt("q_num_heads"), "Q")?;
    let k = heads_layout(k_in, kv_heads_attribute, "K")?;
    let v = heads_layout(v_in, kv_heads_attribute, "V")?;
    let (past_key, past_value) = (tensor_opt(inputs, 4)?, tensor_opt(inputs, 5)?);
    if past_key.is_some() != past_value.is_some() {
        return Err("past_key and past_value come together".to_string());
    }
    let past_length = match past_key {
        Some(p) => *p.shape().get(2).ok_or("past_key is not 4-D")?,
        None => 0,
    };
    let k = with_past(k, past_key, "key")?;
    let v = with_past(v, past_value, "value")?;
    let [batch, q_heads, q_length, head_size] = *q.shape() else {
        unreachable!("4-D")
    };
    let [k_batch, kv_heads, total, k_head_size] = *k.shape() else {
        unreachable!("4-D")
    };
    let [v_batch, v_heads, v_total, v_head_size] = *v.shape() else {
        unreachable!("4-D")
    };
    if k_batch != batch || v_batch != batch || k_head_size != head_size {
        return Err(format!("Q {:?}, K {:?} do not fit", q.shape(), k.shape()));
    }
    if v_heads != kv_heads || v_total != total {
        return Err(format!(
            "K {:?} and V {:?} do not fit",
            k.shape(),
            v.shape()
        ));
    }
    if kv_heads == 0 || q_heads % kv_heads != 0 {
        return Err(format!(
            "{q_heads} query heads do not share {kv_heads} key heads"
        ));
    }
    let group = q_heads / kv_heads;
    let scores_shape = [batch, q_heads, q_length, total];
    ctx.checked_count(&scores_shape)?;
    ctx.checked_count(&[batch, q_heads, q_length, v_head_size])?;

    let scale = ctx
        .attribute("scale")
        .and_then(|a| a.f)
        .map_or(1.0 / (head_size as f64).sqrt(), f64::from);
    let softcap = f64::from(ctx.float("softcap", 0.0));
    let mode = ctx.int("qk_matmul_output_mode", 0);
    let visibility = Visibility {
        causal: ctx.int("is_causal", 0) != 0,
        left: ctx.int("left_window_size", -1),
        right: ctx.int("right_window_size", -1),
    };
    let nonpad = match tensor_opt(inputs, 6)? {
        Some(_) if past_key.is_some() => {
            return Err("nonpad_kv_seqlen cannot come with past_key".to_string());
        }
        Some(t) => {
            let lengths = t.to_i64_vec()?;
            if lengths.len() != batch {
                return Err(format!(
                    "nonpad_kv_seqlen holds {} lengths for a batch of {batch}",
                    lengths.len()
                ));
            }
            Some(lengths)
        }
        None => None,
    };
    let mask = match tensor_opt(inputs, 3)? {
        Some(m) => Some(mask_bias(ctx, m, scores_shape)?),
        None => None,
    };
    // Each step rounds to Q's type (the softmax to `softmax_precision`), as the function
    // body computes in those types; float16 results then agree with onnx's to the last bit
    // or two.
    let round_q = rounding(q_in.dtype);
    let round_softmax = match ctx.int_opt("softmax_precision") {
        Some(code) => rounding(
            i32::try_from(code)
                .ok()
                .and_then(|c| DataType::try_from(c).ok())
                .ok_or_else(|| format!("softmax_precision {code} is no element type"))?,
        ),
        None => round_q,
    };
    let root_scale = round_q(scale.sqrt());
    let q = q.map_each(&|x| round_q(x * root_scale));
    let k_scaled = k.map_each(&|x| round_q(x * root_scale));

    let mut y = Array4::<f64>::zeros([batch, q_heads, q_length, v_head_size]);
    let mut qk_output = Array4::<f64>::zeros(scores_shape);
    let mut biased = vec![0.0; total];
    for b in 0..batch {
        let offset = match &nonpad {
            Some(lengths) => lengths[b] - q_length as i64,
            None => past_length as i64,
        };
        let valid_keys = nonpad.as_ref().map_or(total as i64, |l| l[b]);
        for h in 0..q_heads {
            let kv = h / group;
            for i in 0..q_length {
                let mut bias_max = f64::NEG_INFINITY;
                for j in 0..total {
                    let raw = round_q(
                        (0..head_size)
                            .map(|d| q[[b, h, i, d]] * k_scaled[[b, kv, j, d]])
                            .sum(),
                    );
                    let capped = if softcap > 0.0 {
                        round_q(softcap * round_q(round_q(raw / softcap).tanh()))
                    } else {
                        raw
                    };
                    let mut bias = mask.as_ref().map_or(0.0, |m| m[[b, h, i, j]]);
                    if !visibility.allows(i, j, offset) || j as i64 >= valid_keys {
                        bias = f64::NEG_INFINITY;
                    }
                    bias_max = bias_max.max(bias);
                    biased[j] = round_q(capped + bias);
                    qk_output[[b, h, i, j]] = match mode {
                        0 => raw,
                        1 => capped,
                        _ => biased[j],
                    };
                }
                let probabilities =
                    attention_probabilities(&biased, bias_max == f64::NEG_INFINITY, round_softmax);
                for (j, &p) in probabilities.iter().enumerate() {
                    let p = round_q(p);
                    if mode == 3 {
                        qk_output[[b, h, i, j]] = p;
                    }
                    for d in 0..v_head_size {
                        y[[b, h, i, d]] += p * v[[b, kv, j, d]];
                    }
                }
            }
        }
    }
    let y = if q_in.rank() == 3 {
        y.permuted_axes([0, 2, 1, 3])
            .as_standard_layout()
            .into_owned()
            .into_shape_with_order(IxDyn(&[batch, q_length, q_heads * v_head_size]))
            .map_err(|e| e.to_string())?
    } else {
        y.into_dyn()
    };
    Ok(vec![
        Val::Tensor(narrow(q_in.dtype, y)?),
        Val::Tensor(narrow(k_in.dtype, k.into_dyn())?),
        Val::Tensor(narrow(v_in.dtype, v.into_dyn())?),
        Val::Tensor(narrow(q_in.dtype, qk_output.into_dyn())?),
    ])
}

/// RotaryEmbedding: rotates the first `rotary_embedding_dim` elements of each head's vector
/// by the angles whose cosines and sines the caches hold, pairs being halves or (`interleaved`)
/// neighbours.
fn rotary_embedding(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x_in = tensor(inputs, 0)?;
    let x = widen(x_in)?;
    let (cos, sin) = (widen(tensor(inputs, 1)?)?, widen(tensor(inputs, 2)?)?);
    let positions = match tensor_opt(inputs, 3)? {
        Some(p) => Some(p.to_i64_vec()?),
        None => None,
    };
    // Where element (b, s, h, d) is, in a 4-D (b, h, s, d) or 3-D (b, s, h * d) input.
    let (batch, length, heads, head_size, four_d) = match *x.shape() {
        [b, h, s, d] => (b, s, h, d, true),
        [b, s, hidden] => {
            let heads = ctx
                .int_opt("num_heads")
                .filter(|&h| h > 0 && hidden % h as usize == 0)
                .ok_or("a 3-D input needs num_heads dividing its hidden size")?
                as usize;
            (b, s, heads, hidden / heads, false)
        }
        _ => return Err(format!("input of shape {:?}", x.shape())),
    };
    let at = |b: usize, s: usize, h: usize, d: usize| {
        if four_d {
            ((b * heads + h) * length + s) * head_size + d
        } else {
            ((b * length + s) * heads + h) * head_size + d
        }
    };
    let rotated = match ctx.int("rotary_embedding_dim", 0) {
        0 => head_size,
        r if r > 0 && r as usize <= head_size && r % 2 == 0 => r as usize,
        r => {
            return Err(format!("rotary_embedding_dim {r} for heads of {head_size}"));
        }
    };
    let half = rotated / 2;
    // The cache row of (b, s): by position id from a 2-D cache, else from a 3-D one.
    let cache_row = |b: usize, s: usize| -> KernelResult<usize> {
        match &positions {
            Some(p) => {
                let id = *p
                    .get(b * length + s)
                    .ok_or("position_ids is not (batch, sequence)")?;
                usize::try_from(id).map_err(|_| format!("position id {id}"))
            }
            None => Ok(b * length + s),
        }
    };
    let rows = cos.len() / half.max(1);
    if cos.shape().last() != Some(&half) || sin.shape() != cos.shape() {
        return Err(format!(
            "caches of shapes {:?} and {:?} for {half} angles",
            cos.shape(),
            sin.shape()
        ));
    }
    if positions
        .as_ref()
        .is_some_and(|p| p.len() != batch * length)
        || positions.is_none() && rows != batch * length
    {
        return Err("the caches or position_ids do not fit (batch, sequence)".to_string());
    }
    let (cos, sin): (Vec<f64>, Vec<f64>) =
        (cos.iter().copied().collect(), sin.iter().copied().collect());
    let input: Vec<f64> = x.iter().copied().collect();
    let mut out = input.clone();
    for b in 0..batch {
        for s in 0..length {
            let row = cache_row(b, s)?;
            if row >= rows {
                return Err(format!(
                    "position {row} beyond the {rows} rows of the caches"
                ));
            }
            for h in 0..heads {
                for k in 0..half {
                    let (first, second) = if ctx.int("interleaved", 0) != 0 {
                        (2 * k, 2 * k + 1)
                    } else {
                        (k, k + half)
                    };
                    let (c, sn) = (cos[row * half + k], sin[row * half + k]);
                    let (x1, x2) = (input[at(b, s, h, first)], input[at(b, s, h, second)]);
                    out[at(b, s, h, first)] = c * x1 - sn * x2;
                    out[at(b, s, h, second)] = sn * x1 + c * x2;
                }
            }
        }
    }
    let out = ArrayD::from_shape_vec(IxDyn(x.shape()), out).map_err(|e| e.to_string())?;
    Ok(vec![Val::Tensor(narrow(x_in.dtype, out)?)])
}

/// SwiGLU: A * sigmoid(alpha * A) * B, of two tensors of one shape.
fn swiglu(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (a_in, b_in) = (tensor(inputs, 0)?, tensor(inputs, 1)?);
    if a_in.shape() != b_in.shape() || a_in.dtype != b_in.dtype {
        return Err(format!(
            "A ({} {:?}) and B ({} {:?}) differ",
            a_in.type_name(),
            a_in.shape(),
            b_in.type_name(),
            b_in.shape()
        ));
    }
    let alpha = f64::from(ctx.float("alpha", 1.0));
    let (a, b) = (widen(a_in)?, widen(b_in)?);
    let y = ndarray::Zip::from(&a)
        .and(&b)
        .map_collect(|&a, &b| a / (1.0 + (-alpha * a).exp()) * b);
    Ok(vec![Val::Tensor(narrow(a_in.dtype, y)?)])
}

/// The recurrence a LinearAttention node applies: whether the state decays (gated) and whether
/// each update corrects what the state already recalls for the key (delta).
#[derive(Clone, Copy, Debug)]
struct UpdateRule {
    gating: bool,
    delta: bool,
}

impl UpdateRule {
    fn of(name: &str) -> KernelResult<UpdateRule> {
        let (gating, delta) = match name {
            "linear" => (false, false),
            "gated" => (true, false),
            "delta" => (false, true),
            "gated_delta" => (true, true),
            other => return Err(format!("unknown update_rule `{other}`")),
        };
        Ok(UpdateRule { gating, delta })
    }
}

/// A rank-3 operand's elements with its shape.
fn packed(t: &Tensor, name: &str) -> KernelResult<(Vec<f64>, [usize; 3])> {
    let wide = widen(t)?;
    match *wide.shape() {
        [b, s, h] => Ok((wide.iter().copied().collect(), [b, s, h])),
        _ => Err(format!("{name} of shape {:?} is not 3-D", wide.shape())),
    }
}

/// LinearAttention: the state (batch, kv heads, d_k, d_v) updated token by token by the
/// `update_rule`, each query head reading the state of its key head.
fn linear_attention(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let rule = UpdateRule::of(
        ctx.string("update_rule")
            .as_deref()
            .unwrap_or("gated_delta"),
    )?;
    let q_heads = ctx.int_opt("q_num_heads").unwrap_or(0);
    let kv_heads = ctx.int_opt("kv_num_heads").unwrap_or(0);
    if q_heads <= 0 || kv_heads <= 0 || q_heads % kv_heads != 0 {
        return Err(format!(
            "q_num_heads {q_heads} is no positive multiple of kv_num_heads {kv_heads}"
        ));
    }
    let (q_heads, kv_heads) = (q_heads as usize, kv_heads as usize);
    let group = q_heads / kv_heads;
    let q_in = tensor(inputs, 0)?;
    let (q, [batch, length, q_hidden]) = packed(q_in, "query")?;
    let (k, k_shape) = packed(tensor(inputs, 1)?, "key")?;
    let (v, v_shape) = packed(tensor(inputs, 2)?, "value")?;
    let (dk, dv) = (q_hidden / q_heads, v_shape[2] / kv_heads);
    if q_hidden % q_heads != 0
        || k_shape != [batch, length, kv_heads * dk]
        || v_shape[..2] != [batch, length]
        || v_shape[2] % kv_heads != 0
    {
        return Err(format!(
            "query {:?}, key {k_shape:?} and value {v_shape:?} do not fit the heads",
            [batch, length, q_hidden]
        ));
    }
    let optional_packed =
        |index: usize, name: &str, wanted: bool| -> KernelResult<Option<(Vec<f64>, usize)>> {
            match (tensor_opt(inputs, index)?, wanted) {
                (Some(t), true) => {
                    let (values, [b, s, last]) = packed(t, name)?;
                    if [b, s] != [batch, length] {
                        return Err(format!("{name} does not fit (batch, sequence)"));
                    }
                    Ok(Some((values, last)))
                }
                (None, false) => Ok(None),
                (Some(_), false) => Err(format!("update_rule forbids {name}")),
                (None, true) => Err(format!("update_rule needs {name}")),
            }
        };
    let decay = optional_packed(4, "decay", rule.gating)?;
    let beta = optional_packed(5, "beta", rule.delta)?;
    if let Some((_, last)) = &decay
        && *last != kv_heads
        && *last != kv_heads * dk
    {
        return Err(format!(
            "decay's last dim {last} is neither {kv_heads} nor {}",
            kv_heads * dk
        ));
    }
    if let Some((_, last)) = &beta
        && *last != kv_heads
        && *last != 1
    {
        return Err(format!(
            "beta's last dim {last} is neither {kv_heads} nor 1"
        ));
    }
    let state_shape = [batch, kv_heads, dk, dv];
    ctx.checked_count(&state_shape)?;
    // q_num_heads is the model's word: an empty query lets it be anything.
    let out_hidden = q_heads
        .checked_mul(dv)
        .ok_or("q_num_heads times the value head size overflows")?;
    ctx.checked_count(&[batch, length, out_hidden])?;
    let (mut state, state_type) = match tensor_opt(inputs, 3)? {
        Some(past) if past.shape() == state_shape => (
            widen(past)?.iter().copied().collect::<Vec<f64>>(),
            past.dtype,
        ),
        Some(past) => {
            return Err(format!(
                "past_state of shape {:?}, not {state_shape:?}",
                past.shape()
            ));
        }
        None => (vec![0.0; batch * kv_heads * dk * dv], q_in.dtype),
    };
    let scale = match ctx.float("scale", 0.0) {
        0.0 => 1.0 / (dk as f64).sqrt(),
        s => f64::from(s),
    };
    let mut out = vec![0.0; batch * length * q_heads * dv];
    let mut value = vec![0.0; dv];
    for t in 0..length {
        for b in 0..batch {
            let token = b * length + t;
            for h in 0..kv_heads {
                let s = &mut state[(b * kv_heads + h) * dk * dv..][..dk * dv];
                if let Some((g, last)) = &decay {
                    for d in 0..dk {
                        let at = if *last == kv_heads { h } else { h * dk + d };
                        let factor = g[token * last + at].exp();
                        s[d * dv..][..dv].iter_mut().for_each(|x| *x *= factor);
                    }
                }
                let key = &k[(token * kv_heads + h) * dk..][..dk];
                value.copy_from_slice(&v[(token * kv_heads + h) * dv..][..dv]);
                if let Some((rate, last)) = &beta {
                    let rate = rate[token * last + if *last == 1 { 0 } else { h }];
                    for (m, x) in value.iter_mut().enumerate() {
                        let recalled: f64 = (0..dk).map(|d| s[d * dv + m] * key[d]).sum();
                        *x = rate * (*x - recalled);
                    }
                }
                for d in 0..dk {
                    for m in 0..dv {
                        s[d * dv + m] += key[d] * value[m];
                    }
                }
            }
            for hq in 0..q_heads {
                let s = &state[(b * kv_heads + hq / group) * dk * dv..][..dk * dv];
                let query = &q[(token * q_heads + hq) * dk..][..dk];
                for m in 0..dv {
                    let read: f64 = (0..dk).map(|d| query[d] * s[d * dv + m]).sum();
                    out[(token * q_heads + hq) * dv + m] = scale * read;
                }
            }
        }
    }
    let out = ArrayD::from_shape_vec(IxDyn(&[batch, length, out_hidden]), out)
        .map_err(|e| e.to_string())?;
    let state = ArrayD::from_shape_vec(IxDyn(&state_shape), state).map_err(|e| e.to_string())?;
    Ok(vec![
        Val::Tensor(narrow(q_in.dtype, out)?),
        Val::Tensor(narrow(state_type, state)?),
    ])
}

/// The element type a float-type attribute (`softmax_precision`) names.
fn float_type(code: i64) -> KernelResult<DataType> {
    match i32::try_from(code)
        .ok()
        .and_then(|c| DataType::try_from(c).ok())
    {
        Some(t @ (DataType::Float | DataType::Double | DataType::Float16 | DataType::Bfloat16)) => {
            Ok(t)
        }
        _ => Err(format!("element type {code} is no float type")),
    }
}

/// Runs a FlexAttention modifier subgraph (`score_mod` or `prob_mod`), if the node has it, on
/// scores of the compute type; its one output must keep their shape.
fn modify(
    ctx: &Ctx<'_>,
    attribute: &str,
    scores: Array4<f64>,
    compute: DataType,
) -> KernelResult<Array4<f64>> {
    if !ctx.subgraphs.contains_key(attribute) {
        return Ok(scores);
    }
    let shape = scores.shape().to_vec();
    let input = Val::Tensor(narrow(compute, scores.into_dyn())?);
    let outputs = ctx.run_graph(attribute, vec![input])?;
    let [output] = outputs.as_slice() else {
        return Err(format!(
            "{attribute} gave {} outputs, not one",
            outputs.len()
        ));
    };
    let modified = widen(output.as_tensor()?)?;
    if modified.shape() != shape.as_slice() {
        return Err(format!(
            "{attribute} turned scores of shape {shape:?} into {:?}",
            modified.shape()
        ));
    }
    let rounded = widen(&narrow(compute, modified)?)?;
    rounded.into_dimensionality().map_err(|e| e.to_string())
}

/// FlexAttention (ai.onnx.preview): attention over 4-D operands whose scores and
/// probabilities the `score_mod` and `prob_mod` subgraphs may rewrite, in the softmax
/// precision (float32 unless the inputs are double).
fn flex_attention(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (q_in, k_in, v_in) = (tensor(inputs, 0)?, tensor(inputs, 1)?, tensor(inputs, 2)?);
    let four_d = |t: &Tensor, name: &str| -> KernelResult<Array4<f64>> {
        widen(t)?
            .into_dimensionality()
            .map_err(|_| format!("{name} of shape {:?} is not 4-D", t.shape()))
    };
    let (q, k, v) = (four_d(q_in, "Q")?, four_d(k_in, "K")?, four_d(v_in, "V")?);
    let [batch, q_heads, q_length, head_size] = *q.shape() else {
        unreachable!("4-D")
    };
    let [k_batch, kv_heads, total, k_head_size] = *k.shape() else {
        unreachable!("4-D")
    };
    let [v_batch, v_heads, v_total, v_head_size] = *v.shape() else {
        unreachable!("4-D")
    };
    if [k_batch, v_batch] != [batch, batch]
        || k_head_size != head_size
        || [v_heads, v_total] != [kv_heads, total]
        || kv_heads == 0
        || q_heads % kv_heads != 0
    {
        return Err(format!(
            "Q {:?}, K {:?} and V {:?} do not fit",
            q.shape(),
            k.shape(),
            v.shape()
        ));
    }
    let group = q_heads / kv_heads;
    ctx.checked_count(&[batch, q_heads, q_length, total])?;
    ctx.checked_count(&[batch, q_heads, q_length, v_head_size])?;
    let compute = match ctx.int_opt("softmax_precision") {
        Some(code) => float_type(code)?,
        None if q_in.dtype == DataType::Double => DataType::Double,
        None => DataType::Float,
    };
    let (round_q, round_c) = (rounding(q_in.dtype), rounding(compute));
    let scale = ctx
        .attribute("scale")
        .and_then(|a| a.f)
        .unwrap_or(1.0 / (head_size as f32).sqrt());
    let root_scale = round_q(f64::from(scale.sqrt()));
    let q = q.map_each(&|x| round_q(x * root_scale));
    let k = k.map_each(&|x| round_q(x * root_scale));
    let mut scores = Array4::<f64>::zeros([batch, q_heads, q_length, total]);
    for ((b, h, i, j), score) in scores.indexed_iter_mut() {
        let dot: f64 = (0..head_size)
            .map(|d| q[[b, h, i, d]] * k[[b, h / group, j, d]])
            .sum();
        *score = round_c(round_q(dot));
    }
    let scores = modify(ctx, "score_mod", scores, compute)?;
    let mut probabilities: Vec<f64> = scores.iter().copied().collect();
    if total > 0 {
        for row in probabilities.chunks_mut(total) {
            super::softmax::softmax_row(row);
            row.iter_mut().for_each(|p| *p = round_c(*p));
        }
    }
    let probabilities = Array4::from_shape_vec([batch, q_heads, q_length, total], probabilities)
        .map_err(|e| e.to_string())?;
    let probabilities = modify(ctx, "prob_mod", probabilities, compute)?;
    let mut y = Array4::<f64>::zeros([batch, q_heads, q_length, v_head_size]);
    for ((b, h, i, d), out) in y.indexed_iter_mut() {
        *out = (0..total)
            .map(|j| probabilities[[b, h, i, j]] * round_c(v[[b, h / group, j, d]]))
            .sum();
    }
    Ok(vec![Val::Tensor(narrow(v_in.dtype, y.into_dyn())?)])
}

#[cfg(test)]
mod tests {
    use crate::Value;

    fn run(model: &str, inputs: &[Value]) -> Vec<f32> {
        let model = onnx_text::parse_model(model).unwrap();
        crate::run(&model, inputs).unwrap()[0]
            .to_vec::<f32>()
            .unwrap()
    }

    fn t(values: &[f32], shape: &[usize]) -> Value {
        Value::tensor(values, shape).unwrap()
    }

    /// Attention-23, causal, with a one-key past: the query sits after the cached key, so it
    /// sees both keys; Q = 0 weighs them alike, Y = (2 + 4) / 2 (by hand from the spec; a
    /// top-left causal mask would give 2).
    #[test]
    fn attention_23_aligns_the_causal_mask_after_the_past() {
        let model = r#"<ir_version: 10, opset_import: ["" : 23]>
            g (float[1, 1, 1, 1] q, float[1, 1, 1, 1] k, float[1, 1, 1, 1] v,
               float[1, 1, 1, 1] pk, float[1, 1, 1, 1] pv) => (float[1, 1, 1, 1] y) {
                y, present_key, present_value = Attention <is_causal = 1> (q, k, v, , pk, pv)
            }"#;
        let inputs = [
            t(&[0.0], &[1, 1, 1, 1]),
            t(&[1.0], &[1, 1, 1, 1]),
            t(&[4.0], &[1, 1, 1, 1]),
            t(&[1.0], &[1, 1, 1, 1]),
            t(&[2.0], &[1, 1, 1, 1]),
        ];
        assert_eq!(run(model, &inputs), [3.0]);
    }

    /// Attention-24 with `nonpad_kv_seqlen` = 2 of 3 keys, causal: the offset is 2 - 1, so the
    /// one query sees keys 0 and 1 and not the padding, Y = (2 + 4) / 2 (by hand).
    #[test]
    fn attention_24_masks_the_padding_and_offsets_the_causal_mask() {
        let model = r#"<ir_version: 10, opset_import: ["" : 24]>
            g (float[1, 1, 1, 1] q, float[1, 1, 3, 1] k, float[1, 1, 3, 1] v, int64[1] n)
                => (float[1, 1, 1, 1] y) {
                y = Attention <is_causal = 1> (q, k, v, , , , n)
            }"#;
        let inputs = [
            t(&[0.0], &[1, 1, 1, 1]),
            t(&[1.0, 1.0, 1.0], &[1, 1, 3, 1]),
            t(&[2.0, 4.0, 8.0], &[1, 1, 3, 1]),
            Value::tensor(&[2i64], &[1]).unwrap(),
        ];
        assert_eq!(run(model, &inputs), [3.0]);
    }

    /// Mode 0 gives the product before the softcap, as the spec says (onnx's evaluator gives
    /// it after): Q·K = 2 with scale 1, by hand.
    #[test]
    fn qk_output_mode_0_is_before_the_softcap() {
        let model = r#"<ir_version: 10, opset_import: ["" : 24]>
            g (float[1, 1, 1, 1] q, float[1, 1, 1, 1] k, float[1, 1, 1, 1] v)
                => (float[1, 1, 1, 1] qk) {
                y, , , qk = Attention <scale = 1.0, softcap = 1.0> (q, k, v)
            }"#;
        let inputs = [
            t(&[1.0], &[1, 1, 1, 1]),
            t(&[2.0], &[1, 1, 1, 1]),
            t(&[1.0], &[1, 1, 1, 1]),
        ];
        assert_eq!(run(model, &inputs), [2.0]);
    }

    /// Bad operands are errors, not panics: a position beyond the rotary caches, query heads
    /// that do not divide the hidden size, a q_num_heads so large its products overflow.
    #[test]
    fn bad_operands_are_errors() {
        let rotary = r#"<ir_version: 10, opset_import: ["" : 23]>
            g (float[1, 1, 1, 2] x, float[1, 1] c, float[1, 1] s, int64[1, 1] p)
                => (float[1, 1, 1, 2] y) { y = RotaryEmbedding (x, c, s, p) }"#;
        let inputs = [
            t(&[1.0, 2.0], &[1, 1, 1, 2]),
            t(&[1.0], &[1, 1]),
            t(&[0.0], &[1, 1]),
            Value::tensor(&[7i64], &[1, 1]).unwrap(),
        ];
        let error = crate::run(&onnx_text::parse_model(rotary).unwrap(), &inputs)
            .unwrap_err()
            .to_string();
        assert!(error.contains("beyond"), "{error}");

        let attention = r#"<ir_version: 10, opset_import: ["" : 23]>
            g (float[1, 1, 3] q, float[1, 1, 3] k, float[1, 1, 3] v) => (float[1, 1, 3] y) {
                y = Attention <q_num_heads = 2, kv_num_heads = 1> (q, k, v)
            }"#;
        let qkv = || t(&[1.0, 2.0, 3.0], &[1, 1, 3]);
        let error = crate::run(
            &onnx_text::parse_model(attention).unwrap(),
            &[qkv(), qkv(), qkv()],
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("heads"), "{error}");

        let linear = r#"<ir_version: 10, opset_import: ["" : 27]>
            g (float[1, 1, 0] q, float[1, 1, 0] k, float[1, 1, 4] v) => (float[1, 1, ?] y) {
                y, state = LinearAttention <q_num_heads = 4611686018427387904, kv_num_heads = 1,
                                            update_rule = "linear"> (q, k, v)
            }"#;
        let inputs = [
            t(&[], &[1, 1, 0]),
            t(&[], &[1, 1, 0]),
            t(&[1.0, 2.0, 3.0, 4.0], &[1, 1, 4]),
        ];
        let error = crate::run(&onnx_text::parse_model(linear).unwrap(), &inputs)
            .unwrap_err()
            .to_string();
        assert!(error.contains("overflows"), "{error}");
    }
}
