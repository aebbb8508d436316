//! Random operators: RandomUniform, RandomNormal, their `Like` forms, Bernoulli, Multinomial,
//! and Dropout (whose training mode draws its mask).
//!
//! Draws come from MT19937 seeded as numpy's legacy `RandomState(seed)` is, with numpy's
//! 53-bit doubles and polar Gaussians, so a seeded draw is numpy's: onnx's own expected
//! outputs for Dropout in training mode are `RandomState(seed).uniform(0, 1, shape)`. Without a
//! `seed`, the generator is seeded from the process's hash entropy.

use super::signal::numbers_as;
use super::training::floats_like;
use super::{Ctx, Registry, one, tensor, tensor_opt};
use crate::error::KernelResult;
use crate::halves::{bf16, f16};
use crate::tensor::{Data, Tensor};
use crate::value::Val;
use ndarray::{ArrayD, IxDyn};
use onnx_runtime_types::tensor_proto::DataType;

pub(super) fn register(r: &mut Registry) {
    r.add("", "RandomUniform", 1, random_uniform);
    r.add("", "RandomNormal", 1, random_normal);
    r.add("", "RandomUniformLike", 1, random_uniform_like);
    r.add("", "RandomNormalLike", 1, random_normal_like);
    r.add("", "Bernoulli", 15, bernoulli);
    r.add("", "Multinomial", 7, multinomial);
    // Dropout's ratio and training_mode operands arrive with version 12.
    r.add("", "Dropout", 12, dropout);
}

/// The Mersenne Twister MT19937, as numpy's legacy `RandomState` runs it.
pub(crate) struct Mt19937 {
    state: [u32; 624],
    index: usize,
    /// The second Gaussian of the last polar draw, kept for the next call (as numpy does).
    spare_gauss: Option<f64>,
}

impl Mt19937 {
    /// Seeded by Matsumoto and Nishimura's `init_genrand`, which `RandomState(seed)` uses for
    /// an integer seed.
    pub fn new(seed: u32) -> Mt19937 {
        let mut state = [0u32; 624];
        state[0] = seed;
        for i in 1..624 {
            let previous = state[i - 1];
            state[i] = 1_812_433_253u32
                .wrapping_mul(previous ^ (previous >> 30))
                .wrapping_add(i as u32);
        }
        Mt19937 {
            state,
            index: 624,
            spare_gauss: None,
        }
    }

    fn twist(&mut self) {
        const UPPER: u32 = 0x8000_0000;
        const LOWER: u32 = 0x7fff_ffff;
        for i in 0..624 {
            let y = (self.state[i] & UPPER) | (self.state[(i + 1) % 624] & LOWER);
            let mut next = self.state[(i + 397) % 624] ^ (y >> 1);
            if y & 1 != 0 {
                next ^= 0x9908_b0df;
            }
            self.state[i] = next;
        }
        self.index = 0;
    }

    pub fn next_u32(&mut self) -> u32 {
        if self.index >= 624 {
            self.twist();
        }
        let mut y = self.state[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// A double in [0, 1) from two draws, 27 and 26 bits: numpy's `random_sample`.
    pub fn next_f64(&mut self) -> f64 {
        let a = f64::from(self.next_u32() >> 5);
        let b = f64::from(self.next_u32() >> 6);
        (a * 67_108_864.0 + b) / 9_007_199_254_740_992.0
    }

    /// A standard normal draw by the polar method, numpy's legacy `gauss`.
    pub fn next_gauss(&mut self) -> f64 {
        if let Some(spare) = self.spare_gauss.take() {
            return spare;
        }
        loop {
            let x1 = 2.0 * self.next_f64() - 1.0;
            let x2 = 2.0 * self.next_f64() - 1.0;
            let r2 = x1 * x1 + x2 * x2;
            if r2 < 1.0 && r2 != 0.0 {
                let f = (-2.0 * r2.ln() / r2).sqrt();
                self.spare_gauss = Some(f * x1);
                return f * x2;
            }
        }
    }
}

/// A generator seeded by `seed`, or from the process's entropy without one.
fn generator(seed: Option<i64>) -> Mt19937 {
    let seed = seed.unwrap_or_else(|| {
        use std::hash::{BuildHasher, Hasher};
        std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish() as i64
    });
    // numpy takes seeds of 32 bits; wider ones are cut to their low bits.
    Mt19937::new(seed as u32)
}

/// The float `seed` attribute of the Random* operators, Bernoulli and Multinomial (truncated,
/// as onnx's evaluator's `int(seed)` does).
fn float_seed(ctx: &Ctx<'_>) -> Option<i64> {
    ctx.attribute("seed")
        .and_then(|a| a.f)
        .filter(|s| s.is_finite())
        .map(|s| s as i64)
}

/// The float element type of the `dtype` attribute, or `default`.
fn float_dtype(ctx: &Ctx<'_>, default: DataType) -> KernelResult<DataType> {
    let dtype = match ctx.int_opt("dtype") {
        Some(code) => {
            DataType::try_from(code as i32).map_err(|_| format!("unknown dtype {code}"))?
        }
        None => default,
    };
    match dtype {
        DataType::Float | DataType::Double | DataType::Float16 | DataType::Bfloat16 => Ok(dtype),
        other => Err(format!("dtype {} is not a float type", other.as_str_name())),
    }
}

/// A float tensor of `dtype` and `shape`, each element `draw()`.
fn drawn(
    ctx: &Ctx<'_>,
    dtype: DataType,
    shape: &[usize],
    mut draw: impl FnMut() -> f64,
) -> KernelResult<Tensor> {
    let count = ctx.checked_count(shape)?;
    let values = (0..count).map(|_| draw()).collect();
    floats_like(&Tensor::zeros(dtype, shape)?, values)
}

/// The `shape` attribute, its dims non-negative.
fn shape_attribute(ctx: &Ctx<'_>) -> KernelResult<Vec<usize>> {
    let dims = ctx
        .ints("shape")
        .ok_or("the `shape` attribute is required")?;
    dims.iter()
        .map(|&d| usize::try_from(d).map_err(|_| format!("shape {dims:?} has a negative dim")))
        .collect()
}

/// Uniform draws in [low, high) (numpy's `low + (high - low) * u`).
fn uniform(ctx: &Ctx<'_>, dtype: DataType, shape: &[usize]) -> KernelResult<Vec<Val>> {
    let low = f64::from(ctx.float("low", 0.0));
    let high = f64::from(ctx.float("high", 1.0));
    let mut rng = generator(float_seed(ctx));
    one(drawn(ctx, dtype, shape, || {
        low + (high - low) * rng.next_f64()
    })?)
}

/// Normal draws of `mean` and standard deviation `scale`.
fn normal(ctx: &Ctx<'_>, dtype: DataType, shape: &[usize]) -> KernelResult<Vec<Val>> {
    let mean = f64::from(ctx.float("mean", 0.0));
    let scale = f64::from(ctx.float("scale", 1.0));
    let mut rng = generator(float_seed(ctx));
    one(drawn(ctx, dtype, shape, || {
        mean + scale * rng.next_gauss()
    })?)
}

fn random_uniform(ctx: &Ctx<'_>, _: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    uniform(
        ctx,
        float_dtype(ctx, DataType::Float)?,
        &shape_attribute(ctx)?,
    )
}

fn random_normal(ctx: &Ctx<'_>, _: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    normal(
        ctx,
        float_dtype(ctx, DataType::Float)?,
        &shape_attribute(ctx)?,
    )
}

/// The `Like` forms: the input's shape, and its type unless `dtype` says otherwise.
fn random_uniform_like(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let like = tensor(inputs, 0)?;
    uniform(ctx, float_dtype(ctx, like.dtype)?, like.shape())
}

fn random_normal_like(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let like = tensor(inputs, 0)?;
    normal(ctx, float_dtype(ctx, like.dtype)?, like.shape())
}

/// Bernoulli: 1 where a uniform draw falls below the input's probability, else 0, in `dtype`
/// (the input's type by default, any number or bool type).
fn bernoulli(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let p = tensor(inputs, 0)?;
    let probabilities = p.to_f64_vec()?;
    let dtype = match ctx.int_opt("dtype") {
        Some(code) => {
            DataType::try_from(code as i32).map_err(|_| format!("unknown dtype {code}"))?
        }
        None => p.dtype,
    };
    let mut rng = generator(float_seed(ctx));
    let draws: Vec<bool> = probabilities.iter().map(|&q| rng.next_f64() < q).collect();
    one(bools_as(dtype, p.shape(), draws)?)
}

/// 0/1 values of a bool mask in `dtype`.
fn bools_as(dtype: DataType, dims: &[usize], bits: Vec<bool>) -> KernelResult<Tensor> {
    if dtype == DataType::Bool {
        let mask = ArrayD::from_shape_vec(IxDyn(dims), bits).map_err(|e| e.to_string())?;
        return Ok(Tensor::from_data(Data::Bool(mask)));
    }
    numbers_as(
        dtype,
        dims,
        bits.iter().map(|&b| f64::from(u8::from(b))).collect(),
    )
}

/// Multinomial: for each batch row of unnormalized log-probabilities, `sample_size` class
/// indices drawn from their softmax, as int32 (by default) or int64.
fn multinomial(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let [batch, classes] = *x.shape() else {
        return Err(format!(
            "Multinomial takes [batch, classes], got {:?}",
            x.shape()
        ));
    };
    let samples = usize::try_from(ctx.int("sample_size", 1))
        .map_err(|_| "sample_size must not be negative".to_string())?;
    let shape = [batch, samples];
    ctx.checked_count(&shape)?;
    let logits = x.to_f64_vec()?;
    let mut rng = generator(float_seed(ctx));
    let mut drawn = Vec::with_capacity(batch * samples);
    for row in logits.chunks(classes.max(1)).take(batch) {
        let peak = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let cumulative: Vec<f64> = row
            .iter()
            .scan(0.0, |sum, &v| {
                *sum += (v - peak).exp();
                Some(*sum)
            })
            .collect();
        let total = cumulative.last().copied().unwrap_or(0.0);
        for _ in 0..samples {
            let target = rng.next_f64() * total;
            let class = cumulative
                .iter()
                .position(|&c| c > target)
                .unwrap_or(classes.saturating_sub(1));
            drawn.push(class as i64);
        }
    }
    let shape = IxDyn(&shape);
    let err = |e: ndarray::ShapeError| e.to_string();
    let data = match ctx.int("dtype", DataType::Int32 as i64) {
        6 => Data::I32(
            ArrayD::from_shape_vec(shape, drawn.iter().map(|&c| c as i32).collect())
                .map_err(err)?,
        ),
        7 => Data::I64(ArrayD::from_shape_vec(shape, drawn).map_err(err)?),
        other => {
            return Err(format!(
                "Multinomial's dtype must be int32 or int64, got {other}"
            ));
        }
    };
    one(Tensor::from_data(data))
}

/// `x` scaled by `scale` where `keep`, else 0, in x's type (f32 scaled in f32, as numpy's
/// `mask * X * scale` with a Python float does).
fn masked_scaled(x: &Tensor, keep: &[bool], scale: f64) -> KernelResult<Tensor> {
    fn apply<T: Copy + Default>(a: &ArrayD<T>, keep: &[bool], f: impl Fn(T) -> T) -> ArrayD<T> {
        let mut keep = keep.iter();
        a.map(|&v| {
            if keep.next().copied().unwrap_or(false) {
                f(v)
            } else {
                T::default()
            }
        })
    }
    let data = match &x.data {
        Data::F32(a) => Data::F32(apply(a, keep, |v| v * scale as f32)),
        Data::F64(a) => Data::F64(apply(a, keep, |v| v * scale)),
        Data::F16(a) => Data::F16(apply(a, keep, |v| f16::from_f32(v.to_f32() * scale as f32))),
        Data::BF16(a) => Data::BF16(apply(a, keep, |v| {
            bf16::from_f32(v.to_f32() * scale as f32)
        })),
        _ => return Err(format!("Dropout takes floats, got {}", x.type_name())),
    };
    Ok(x.with_data(data))
}

/// Dropout from version 12: in training mode (the `training_mode` operand true) and with a
/// ratio above 0, each element is kept where a uniform draw is at least the ratio and scaled
/// by 1 / (1 - ratio); otherwise the output is the input. The optional mask says which were
/// kept.
fn dropout(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let ratio = match tensor_opt(inputs, 1)? {
        Some(r) => match r.to_f64_vec()?[..] {
            [r] => r,
            _ => return Err("the ratio must be one number".to_string()),
        },
        None => 0.5,
    };
    let training = match tensor_opt(inputs, 2)? {
        Some(Tensor {
            data: Data::Bool(t),
            ..
        }) if t.len() == 1 => t.iter().any(|&b| b),
        Some(t) => {
            return Err(format!(
                "training_mode must be one bool, got {}",
                t.type_name()
            ));
        }
        None => false,
    };
    let count = x.len();
    let (y, keep) = if training && ratio != 0.0 {
        if !(0.0..1.0).contains(&ratio) {
            return Err(format!("the ratio {ratio} is outside [0, 1)"));
        }
        let mut rng = generator(ctx.int_opt("seed"));
        let keep: Vec<bool> = (0..count).map(|_| rng.next_f64() >= ratio).collect();
        (masked_scaled(x, &keep, 1.0 / (1.0 - ratio))?, keep)
    } else {
        (x.clone(), vec![true; count])
    };
    let mut outputs = vec![Val::Tensor(y)];
    if ctx.outputs > 1 {
        let mask = ArrayD::from_shape_vec(IxDyn(x.shape()), keep).map_err(|e| e.to_string())?;
        outputs.push(Val::Tensor(Tensor::from_data(Data::Bool(mask))));
    }
    Ok(outputs)
}

#[cfg(test)]
mod tests {
    use super::Mt19937;

    /// numpy: `np.random.RandomState(0).random_sample(3)` is
    /// [0.5488135039273248, 0.7151893663724195, 0.6027633760716439], and
    /// `RandomState(0).standard_normal(2)` is [1.764052345967664, 0.4001572083672233].
    #[test]
    fn mt19937_draws_what_numpy_draws() {
        let mut rng = Mt19937::new(0);
        let draws: Vec<f64> = (0..3).map(|_| rng.next_f64()).collect();
        assert_eq!(
            draws,
            [0.5488135039273248, 0.7151893663724195, 0.6027633760716439]
        );
        let mut rng = Mt19937::new(0);
        assert_eq!(rng.next_gauss(), 1.764052345967664);
        assert_eq!(rng.next_gauss(), 0.4001572083672233);
    }
}
