//! The recurrent layers RNN, GRU and LSTM: directions, activations (with their alphas and
//! betas), clip, GRU's linear_before_reset, LSTM's peepholes and input_forget, layout and
//! sequence_lens. Computed in f64 step by step and rounded once to the element type.

use super::floats::{from_f64, to_f64};
use super::{Ctx, Registry, tensor, tensor_opt};
use crate::error::KernelResult;
use crate::value::Val;
use ndarray::{ArrayD, IxDyn};

pub(super) fn register(r: &mut Registry) {
    for since in [1, 7, 14, 22] {
        r.add("", "RNN", since, rnn);
        r.add("", "LSTM", since, lstm);
    }
    for since in [1, 3, 7, 14, 22] {
        r.add("", "GRU", since, gru);
    }
}

/// An activation function with its alpha and beta.
#[derive(Clone, Copy, Debug)]
enum Activation {
    Relu,
    Tanh,
    Sigmoid,
    Affine(f64, f64),
    LeakyRelu(f64),
    ThresholdedRelu(f64),
    ScaledTanh(f64, f64),
    HardSigmoid(f64, f64),
    Elu(f64),
    Softsign,
    Softplus,
}

impl Activation {
    fn apply(self, x: f64) -> f64 {
        match self {
            Activation::Relu => x.max(0.0),
            Activation::Tanh => x.tanh(),
            Activation::Sigmoid => 1.0 / (1.0 + (-x).exp()),
            Activation::Affine(a, b) => a * x + b,
            Activation::LeakyRelu(a) => {
                if x < 0.0 {
                    a * x
                } else {
                    x
                }
            }
            Activation::ThresholdedRelu(a) => {
                if x > a {
                    x
                } else {
                    0.0
                }
            }
            Activation::ScaledTanh(a, b) => a * (b * x).tanh(),
            Activation::HardSigmoid(a, b) => (a * x + b).clamp(0.0, 1.0),
            Activation::Elu(a) => {
                if x < 0.0 {
                    a * (x.exp() - 1.0)
                } else {
                    x
                }
            }
            Activation::Softsign => x / (1.0 + x.abs()),
            Activation::Softplus => (1.0 + x.exp()).ln(),
        }
    }
}

/// The node's activations, `per_direction` of them for each direction: the `activations`
/// attribute (its alphas and betas taken in order by the functions that use them) or the
/// defaults.
fn activations(
    ctx: &Ctx<'_>,
    defaults: &[&str],
    directions: usize,
) -> KernelResult<Vec<Activation>> {
    let names: Vec<String> = match ctx.strings("activations") {
        Some(names) if !names.is_empty() => names,
        _ => (0..directions)
            .flat_map(|_| defaults.iter().map(|s| s.to_string()))
            .collect(),
    };
    if names.len() != defaults.len() * directions {
        return Err(format!(
            "{} activations where {} are needed",
            names.len(),
            defaults.len() * directions
        ));
    }
    let mut alphas = ctx.floats("activation_alpha").unwrap_or(&[]).iter();
    let mut betas = ctx.floats("activation_beta").unwrap_or(&[]).iter();
    let mut alpha = |default: f64| alphas.next().map_or(default, |&a| f64::from(a));
    let mut beta = |default: f64| betas.next().map_or(default, |&b| f64::from(b));
    names
        .iter()
        .map(|name| {
            Ok(match name.to_ascii_lowercase().as_str() {
                "relu" => Activation::Relu,
                "tanh" => Activation::Tanh,
                "sigmoid" => Activation::Sigmoid,
                "affine" => Activation::Affine(alpha(1.0), beta(0.0)),
                "leakyrelu" => Activation::LeakyRelu(alpha(0.01)),
                "thresholdedrelu" => Activation::ThresholdedRelu(alpha(1.0)),
                "scaledtanh" => Activation::ScaledTanh(alpha(1.0), beta(1.0)),
                "hardsigmoid" => Activation::HardSigmoid(alpha(0.2), beta(0.5)),
                "elu" => Activation::Elu(alpha(1.0)),
                "softsign" => Activation::Softsign,
                "softplus" => Activation::Softplus,
                other => return Err(format!("unknown activation {other:?}")),
            })
        })
        .collect()
}

/// Which kind of layer, for its gate count and its step.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Rnn,
    Gru,
    Lstm,
}

impl Kind {
    fn gates(self) -> usize {
        match self {
            Kind::Rnn => 1,
            Kind::Gru => 3,
            Kind::Lstm => 4,
        }
    }

    fn default_activations(self) -> &'static [&'static str] {
        match self {
            Kind::Rnn => &["Tanh"],
            Kind::Gru => &["Sigmoid", "Tanh"],
            Kind::Lstm => &["Sigmoid", "Tanh", "Tanh"],
        }
    }
}

/// A layer's operands and attributes, read and checked once.
struct Layer {
    kind: Kind,
    seq: usize,
    batch: usize,
    input: usize,
    hidden: usize,
    directions: usize,
    reverse_only: bool,
    /// x[t][b] is the input vector of step t, batch item b (row-major [seq, batch, input]).
    x: Vec<f64>,
    w: Vec<f64>,
    r: Vec<f64>,
    /// Wb then Rb per direction, [directions, 2 * gates * hidden].
    b: Vec<f64>,
    /// [directions, 3 * hidden] (LSTM).
    p: Option<Vec<f64>>,
    lens: Vec<usize>,
    h0: Vec<f64>,
    c0: Vec<f64>,
    activations: Vec<Activation>,
    clip: Option<f64>,
    linear_before_reset: bool,
    input_forget: bool,
    layout: bool,
}

/// An operand's elements in [directions, batch, hidden] order, from layout 1's [batch,
/// directions, hidden] if asked.
fn state_operand(
    values: ArrayD<f64>,
    layout: bool,
    dims: [usize; 3],
    name: &str,
) -> KernelResult<Vec<f64>> {
    let expected = if layout {
        [dims[1], dims[0], dims[2]]
    } else {
        dims
    };
    if values.shape() != expected {
        return Err(format!(
            "{name} of shape {:?}, not {expected:?}",
            values.shape()
        ));
    }
    let values = if layout {
        values.permuted_axes(IxDyn(&[1, 0, 2]))
    } else {
        values
    };
    Ok(values.iter().copied().collect())
}

impl Layer {
    fn read(ctx: &Ctx<'_>, inputs: &[Option<&Val>], kind: Kind) -> KernelResult<Layer> {
        let layout = ctx.int("layout", 0) != 0;
        let x = to_f64(tensor(inputs, 0)?)?;
        if x.ndim() != 3 {
            return Err(format!("X of shape {:?} is not 3-D", x.shape()));
        }
        let x = if layout {
            x.permuted_axes(IxDyn(&[1, 0, 2]))
        } else {
            x
        };
        let (seq, batch, input) = (x.shape()[0], x.shape()[1], x.shape()[2]);
        let direction = ctx
            .string("direction")
            .unwrap_or_else(|| "forward".to_string());
        let (directions, reverse_only) = match direction.as_str() {
            "forward" => (1, false),
            "reverse" => (1, true),
            "bidirectional" => (2, false),
            other => return Err(format!("unknown direction {other:?}")),
        };
        let gates = kind.gates();
        let w = to_f64(tensor(inputs, 1)?)?;
        let rows = w.shape().get(1).copied().unwrap_or(0);
        let hidden = match ctx.int_opt("hidden_size") {
            // W holds gates * hidden rows, which bounds it.
            Some(h) if h > 0 && h as u64 <= rows as u64 => h as usize,
            Some(h) => return Err(format!("hidden_size {h}")),
            None => rows / gates,
        };
        let check = |values: &ArrayD<f64>, dims: &[usize], name: &str| -> KernelResult<Vec<f64>> {
            if values.shape() != dims {
                return Err(format!(
                    "{name} of shape {:?}, not {dims:?}",
                    values.shape()
                ));
            }
            Ok(values.iter().copied().collect())
        };
        let w = check(&w, &[directions, gates * hidden, input], "W")?;
        let r = check(
            &to_f64(tensor(inputs, 2)?)?,
            &[directions, gates * hidden, hidden],
            "R",
        )?;
        let b = match tensor_opt(inputs, 3)? {
            Some(t) => check(&to_f64(t)?, &[directions, 2 * gates * hidden], "B")?,
            None => vec![0.0; directions * 2 * gates * hidden],
        };
        let lens = match tensor_opt(inputs, 4)? {
            Some(t) => {
                let lens = t.to_i64_vec()?;
                if lens.len() != batch || lens.iter().any(|&l| l < 0 || l as usize > seq) {
                    return Err(format!(
                        "sequence_lens {lens:?} for {batch} sequences of {seq}"
                    ));
                }
                lens.iter().map(|&l| l as usize).collect()
            }
            None => vec![seq; batch],
        };
        let state = |index: usize, name: &str| -> KernelResult<Vec<f64>> {
            match tensor_opt(inputs, index)? {
                Some(t) => state_operand(to_f64(t)?, layout, [directions, batch, hidden], name),
                None => Ok(vec![0.0; directions * batch * hidden]),
            }
        };
        let h0 = state(5, "initial_h")?;
        let (c0, p) = if kind == Kind::Lstm {
            let p = match tensor_opt(inputs, 7)? {
                Some(t) => Some(check(&to_f64(t)?, &[directions, 3 * hidden], "P")?),
                None => None,
            };
            (state(6, "initial_c")?, p)
        } else {
            (Vec::new(), None)
        };
        let clip = ctx.attribute("clip").and_then(|a| a.f).map(f64::from);
        Ok(Layer {
            kind,
            seq,
            batch,
            input,
            hidden,
            directions,
            reverse_only,
            x: x.iter().copied().collect(),
            w,
            r,
            b,
            p,
            lens,
            h0,
            c0,
            activations: activations(ctx, kind.default_activations(), directions)?,
            clip,
            linear_before_reset: ctx.int("linear_before_reset", 0) != 0,
            input_forget: ctx.int("input_forget", 0) != 0,
            layout,
        })
    }

    /// Row `row` of matrix `m` ([rows, columns] at `offset`) times `v`.
    fn dot(m: &[f64], offset: usize, row: usize, columns: usize, v: &[f64]) -> f64 {
        let start = offset + row * columns;
        m[start..start + columns]
            .iter()
            .zip(v)
            .map(|(a, b)| a * b)
            .sum()
    }

    fn clipped(&self, v: f64) -> f64 {
        match self.clip {
            Some(c) => v.clamp(-c, c),
            None => v,
        }
    }

    /// One step of direction `d` for one batch item: the new hidden (and cell) state.
    fn step(&self, d: usize, x: &[f64], h: &[f64], c: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let (hidden, gates) = (self.hidden, self.kind.gates());
        let w_at = d * gates * hidden * self.input;
        let r_at = d * gates * hidden * hidden;
        let b_at = d * 2 * gates * hidden;
        let acts = &self.activations[d * self.kind.default_activations().len()..];
        // Gate g's row j: x·W + Wb, and h·R + Rb kept apart for GRU's linear_before_reset.
        let input_part = |g: usize, j: usize| {
            Self::dot(&self.w, w_at, g * hidden + j, self.input, x) + self.b[b_at + g * hidden + j]
        };
        let recurrent_part = |g: usize, j: usize, state: &[f64]| {
            Self::dot(&self.r, r_at, g * hidden + j, hidden, state)
                + self.b[b_at + (gates + g) * hidden + j]
        };
        match self.kind {
            Kind::Rnn => {
                let h = (0..hidden)
                    .map(|j| {
                        acts[0].apply(self.clipped(input_part(0, j) + recurrent_part(0, j, h)))
                    })
                    .collect();
                (h, Vec::new())
            }
            Kind::Gru => {
                let (f, g) = (acts[0], acts[1]);
                let z: Vec<f64> = (0..hidden)
                    .map(|j| f.apply(self.clipped(input_part(0, j) + recurrent_part(0, j, h))))
                    .collect();
                let r: Vec<f64> = (0..hidden)
                    .map(|j| f.apply(self.clipped(input_part(1, j) + recurrent_part(1, j, h))))
                    .collect();
                let reset: Vec<f64> = r.iter().zip(h).map(|(r, h)| r * h).collect();
                let candidate: Vec<f64> = (0..hidden)
                    .map(|j| {
                        let recurrent = if self.linear_before_reset {
                            r[j] * recurrent_part(2, j, h)
                        } else {
                            recurrent_part(2, j, &reset)
                        };
                        g.apply(self.clipped(input_part(2, j) + recurrent))
                    })
                    .collect();
                let new = (0..hidden)
                    .map(|j| (1.0 - z[j]) * candidate[j] + z[j] * h[j])
                    .collect();
                (new, Vec::new())
            }
            Kind::Lstm => {
                let (f, g, out) = (acts[0], acts[1], acts[2]);
                let peephole = |k: usize, j: usize| {
                    self.p
                        .as_ref()
                        .map_or(0.0, |p| p[d * 3 * hidden + k * hidden + j])
                };
                // Gates in W, R and B: input, output, forget, cell; peepholes: input,
                // output, forget.
                let i: Vec<f64> = (0..hidden)
                    .map(|j| {
                        f.apply(self.clipped(
                            input_part(0, j) + recurrent_part(0, j, h) + peephole(0, j) * c[j],
                        ))
                    })
                    .collect();
                let forget: Vec<f64> = if self.input_forget {
                    i.iter().map(|i| 1.0 - i).collect()
                } else {
                    (0..hidden)
                        .map(|j| {
                            f.apply(self.clipped(
                                input_part(2, j) + recurrent_part(2, j, h) + peephole(2, j) * c[j],
                            ))
                        })
                        .collect()
                };
                let cell: Vec<f64> = (0..hidden)
                    .map(|j| g.apply(self.clipped(input_part(3, j) + recurrent_part(3, j, h))))
                    .collect();
                let new_c: Vec<f64> = (0..hidden)
                    .map(|j| forget[j] * c[j] + i[j] * cell[j])
                    .collect();
                let new_h = (0..hidden)
                    .map(|j| {
                        let o = f.apply(self.clipped(
                            input_part(1, j) + recurrent_part(1, j, h) + peephole(1, j) * new_c[j],
                        ));
                        o * out.apply(new_c[j])
                    })
                    .collect();
                (new_h, new_c)
            }
        }
    }

    /// Runs every direction: Y ([seq, directions, batch, hidden]), the last hidden states and
    /// the last cell states ([directions, batch, hidden]).
    fn run(&self) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let (seq, batch, hidden, dirs) = (self.seq, self.batch, self.hidden, self.directions);
        let mut y = vec![0.0; seq * dirs * batch * hidden];
        let mut last_h = self.h0.clone();
        let mut last_c = if self.kind == Kind::Lstm {
            self.c0.clone()
        } else {
            vec![0.0; dirs * batch * hidden]
        };
        for d in 0..dirs {
            let reverse = self.reverse_only || d == 1;
            for b in 0..batch {
                let at = (d * batch + b) * hidden;
                let mut h = self.h0[at..at + hidden].to_vec();
                let mut c = if self.kind == Kind::Lstm {
                    self.c0[at..at + hidden].to_vec()
                } else {
                    Vec::new()
                };
                let len = self.lens[b];
                for s in 0..len {
                    let t = if reverse { len - 1 - s } else { s };
                    let x_at = (t * batch + b) * self.input;
                    let (new_h, new_c) = self.step(d, &self.x[x_at..x_at + self.input], &h, &c);
                    h = new_h;
                    c = new_c;
                    let y_at = ((t * dirs + d) * batch + b) * hidden;
                    y[y_at..y_at + hidden].copy_from_slice(&h);
                }
                last_h[at..at + hidden].copy_from_slice(&h);
                if self.kind == Kind::Lstm {
                    last_c[at..at + hidden].copy_from_slice(&c);
                }
            }
        }
        (y, last_h, last_c)
    }
}

/// The outputs in the node's layout and element type.
fn outputs(
    ctx: &Ctx<'_>,
    layer: &Layer,
    dtype: onnx_runtime_types::tensor_proto::DataType,
) -> KernelResult<Vec<Val>> {
    let (y, h, c) = layer.run();
    let (seq, batch, hidden, dirs) = (layer.seq, layer.batch, layer.hidden, layer.directions);
    let array = |values: Vec<f64>, shape: &[usize]| {
        ArrayD::from_shape_vec(IxDyn(shape), values).map_err(|e| e.to_string())
    };
    let mut y = array(y, &[seq, dirs, batch, hidden])?;
    let mut h = array(h, &[dirs, batch, hidden])?;
    let mut c = array(c, &[dirs, batch, hidden])?;
    if layer.layout {
        y = y
            .permuted_axes(IxDyn(&[2, 0, 1, 3]))
            .as_standard_layout()
            .into_owned();
        h = h
            .permuted_axes(IxDyn(&[1, 0, 2]))
            .as_standard_layout()
            .into_owned();
        c = c
            .permuted_axes(IxDyn(&[1, 0, 2]))
            .as_standard_layout()
            .into_owned();
    }
    let mut results = vec![
        Val::Tensor(from_f64(dtype, y)?),
        Val::Tensor(from_f64(dtype, h)?),
    ];
    if layer.kind == Kind::Lstm {
        results.push(Val::Tensor(from_f64(dtype, c)?));
    }
    results.truncate(ctx.outputs.max(1));
    Ok(results)
}

fn run_layer(ctx: &Ctx<'_>, inputs: &[Option<&Val>], kind: Kind) -> KernelResult<Vec<Val>> {
    let layer = Layer::read(ctx, inputs, kind)?;
    ctx.checked_count(&[layer.seq, layer.directions, layer.batch, layer.hidden])?;
    outputs(ctx, &layer, tensor(inputs, 0)?.dtype)
}

fn rnn(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    run_layer(ctx, inputs, Kind::Rnn)
}

fn gru(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    run_layer(ctx, inputs, Kind::Gru)
}

fn lstm(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    run_layer(ctx, inputs, Kind::Lstm)
}
