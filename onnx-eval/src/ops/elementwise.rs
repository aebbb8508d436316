//! Element-wise operators, with numpy's broadcasting: arithmetic, comparisons and the unary
//! functions of real numbers.

use super::{Ctx, Registry, one, tensor};
use crate::error::KernelResult;
use crate::halves::{bf16, f16};
use crate::tensor::{Data, Tensor};
use crate::tensor::{MapEach, array, row_major};
use crate::value::Val;
use ndarray::{ArrayD, IxDyn};

pub(super) fn register(r: &mut Registry) {
    for (op, since) in [("Add", 1), ("Sub", 1), ("Mul", 1), ("Div", 1)] {
        r.add("", op, since, arithmetic);
    }
    r.add("", "Relu", 1, relu);
    r.add("", "Neg", 1, neg);
    r.add("", "Abs", 1, abs);
    r.add("", "Sqrt", 1, sqrt);
    r.add("", "Exp", 1, exp);
    r.add("", "Log", 1, log);
    r.add("", "LeakyRelu", 1, leaky_relu);
    r.add("", "Clip", 1, clip);
}

/// The broadcast shape of two shapes, numpy's way: aligned at the right, a 1 stretches.
pub(crate) fn broadcast_shape(a: &[usize], b: &[usize]) -> KernelResult<Vec<usize>> {
    let rank = a.len().max(b.len());
    let dim = |s: &[usize], i: usize| {
        if i < rank - s.len() {
            1
        } else {
            s[i - (rank - s.len())]
        }
    };
    (0..rank)
        .map(|i| match (dim(a, i), dim(b, i)) {
            (x, y) if x == y => Ok(x),
            (1, y) => Ok(y),
            (x, 1) => Ok(x),
            _ => Err(format!("shapes {a:?} and {b:?} do not broadcast")),
        })
        .collect()
}

/// `f` of each pair of elements of `a` and `b`, broadcast. The function is behind a reference
/// and the broadcast is a list of positions computed on the shapes alone ([`broadcast_pair`]),
/// so that this is compiled once per triple of element types rather than for every closure.
pub(crate) fn zip_broadcast<A: Clone, B: Clone, C>(
    a: &ArrayD<A>,
    b: &ArrayD<B>,
    f: &dyn Fn(&A, &B) -> C,
) -> KernelResult<ArrayD<C>> {
    let (flat_a, flat_b) = (row_major(a), row_major(b));
    zip_positions(a.shape(), b.shape(), &|i, j| f(&flat_a[i], &flat_b[j]))
}

/// `f` of each pair of positions, in `a` and in `b`, that the broadcast of the two shapes puts
/// together, in an array of the broadcast shape: the part of [`zip_broadcast`] compiled once per
/// result type.
fn zip_positions<C>(
    a: &[usize],
    b: &[usize],
    f: &dyn Fn(usize, usize) -> C,
) -> KernelResult<ArrayD<C>> {
    let shape = broadcast_shape(a, b)?;
    let (from_a, from_b) = (
        broadcast_positions(a, &shape),
        broadcast_positions(b, &shape),
    );
    let mut values = Vec::with_capacity(from_a.len());
    for (&i, &j) in from_a.iter().zip(&from_b) {
        values.push(f(i, j));
    }
    array(&shape, values)
}

/// For each row-major position of `to`, the row-major position of the element of `from` that
/// numpy's broadcast puts there (`from` aligned at the right, its 1s stretched).
pub(crate) fn broadcast_positions(from: &[usize], to: &[usize]) -> Vec<usize> {
    let offset = to.len() - from.len();
    let mut positions = vec![0];
    let mut stride = from.iter().product::<usize>();
    for (axis, &n) in to.iter().enumerate() {
        let own = if axis < offset {
            1
        } else {
            from[axis - offset]
        };
        if axis >= offset {
            stride /= own.max(1);
        }
        let step = if own == 1 { 0 } else { stride };
        let mut next = Vec::with_capacity(positions.len() * n);
        for &p in &positions {
            for i in 0..n {
                next.push(p + i * step);
            }
        }
        positions = next;
    }
    positions
}

/// A real number type: how it adds, subtracts, multiplies and divides (integers wrap, and
/// divide toward zero, as numpy's C loops do; division by zero gives 0), and its value as f64.
pub(crate) trait Real: Copy + PartialOrd + Default + 'static {
    fn add(self, other: Self) -> Self;
    fn sub(self, other: Self) -> Self;
    fn mul(self, other: Self) -> Self;
    fn div(self, other: Self) -> Self;
    fn to_f64(self) -> f64;
    fn from_f64(value: f64) -> Self;
}

macro_rules! int_real {
    ($($t:ty),*) => {$(
        impl Real for $t {
            fn add(self, other: Self) -> Self { self.wrapping_add(other) }
            fn sub(self, other: Self) -> Self { self.wrapping_sub(other) }
            fn mul(self, other: Self) -> Self { self.wrapping_mul(other) }
            fn div(self, other: Self) -> Self { if other == 0 { 0 } else { self.wrapping_div(other) } }
            fn to_f64(self) -> f64 { self as f64 }
            fn from_f64(value: f64) -> Self { value as $t }
        }
    )*};
}
int_real!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! float_real {
    ($($t:ty),*) => {$(
        impl Real for $t {
            fn add(self, other: Self) -> Self { self + other }
            fn sub(self, other: Self) -> Self { self - other }
            fn mul(self, other: Self) -> Self { self * other }
            fn div(self, other: Self) -> Self { self / other }
            fn to_f64(self) -> f64 { self as f64 }
            fn from_f64(value: f64) -> Self { value as $t }
        }
    )*};
}
float_real!(f32, f64);

/// The half types compute in f32 and round once, as numpy's float16 loops do.
macro_rules! half_real {
    ($($t:ty),*) => {$(
        impl Real for $t {
            fn add(self, other: Self) -> Self { <$t>::from_f32(self.to_f32() + other.to_f32()) }
            fn sub(self, other: Self) -> Self { <$t>::from_f32(self.to_f32() - other.to_f32()) }
            fn mul(self, other: Self) -> Self { <$t>::from_f32(self.to_f32() * other.to_f32()) }
            fn div(self, other: Self) -> Self { <$t>::from_f32(self.to_f32() / other.to_f32()) }
            fn to_f64(self) -> f64 { self.to_f64() }
            fn from_f64(value: f64) -> Self { <$t>::from_f64(value) }
        }
    )*};
}
half_real!(f16, bf16);

/// Applies a generic expression to the array of every real-number variant (floats, including
/// the narrow kinds computed in f32, and integers); other element types are an error.
macro_rules! real {
    ($tensor:expr, $a:ident => $e:expr) => {{
        let t: &Tensor = $tensor;
        let data = match &t.data {
            Data::F32($a) => Data::F32($e),
            Data::F64($a) => Data::F64($e),
            Data::F16($a) => Data::F16($e),
            Data::BF16($a) => Data::BF16($e),
            Data::I8($a) => Data::I8($e),
            Data::I16($a) => Data::I16($e),
            Data::I32($a) => Data::I32($e),
            Data::I64($a) => Data::I64($e),
            Data::U8($a) => Data::U8($e),
            Data::U16($a) => Data::U16($e),
            Data::U32($a) => Data::U32($e),
            Data::U64($a) => Data::U64($e),
            _ => {
                return Err(format!(
                    "expected numbers, got a tensor of {}",
                    t.type_name()
                ));
            }
        };
        t.with_data(data)
    }};
}
pub(crate) use real;

/// Like `real!`, over two tensors of the same element type, broadcast.
macro_rules! real2 {
    ($x:expr, $y:expr, ($a:ident, $b:ident) => $e:expr) => {{
        let (x, y): (&Tensor, &Tensor) = ($x, $y);
        if x.dtype != y.dtype {
            return Err(format!(
                "operands of different element types: {} and {}",
                x.type_name(),
                y.type_name()
            ));
        }
        let data = match (&x.data, &y.data) {
            (Data::F32($a), Data::F32($b)) => Data::F32($e),
            (Data::F64($a), Data::F64($b)) => Data::F64($e),
            (Data::F16($a), Data::F16($b)) => Data::F16($e),
            (Data::BF16($a), Data::BF16($b)) => Data::BF16($e),
            (Data::I8($a), Data::I8($b)) => Data::I8($e),
            (Data::I16($a), Data::I16($b)) => Data::I16($e),
            (Data::I32($a), Data::I32($b)) => Data::I32($e),
            (Data::I64($a), Data::I64($b)) => Data::I64($e),
            (Data::U8($a), Data::U8($b)) => Data::U8($e),
            (Data::U16($a), Data::U16($b)) => Data::U16($e),
            (Data::U32($a), Data::U32($b)) => Data::U32($e),
            (Data::U64($a), Data::U64($b)) => Data::U64($e),
            _ => {
                return Err(format!(
                    "expected numbers, got a tensor of {}",
                    x.type_name()
                ));
            }
        };
        x.with_data(data)
    }};
}
pub(crate) use real2;

/// The legacy broadcast of versions before 7: with `broadcast`, B's shape is matched to A's from
/// `axis` on; numpy's broadcast covers the same results once B is given A's rank.
pub(crate) fn legacy_operand(ctx: &Ctx<'_>, a: &Tensor, b: &Tensor) -> KernelResult<Tensor> {
    if ctx.since >= 7 || ctx.int("broadcast", 0) == 0 || b.rank() == a.rank() {
        return Ok(b.clone());
    }
    let start = match ctx.int_opt("axis") {
        Some(axis) => super::axis(axis, a.rank())?,
        None => a.rank() - b.rank(),
    };
    let mut shape = vec![1; a.rank()];
    for (i, &d) in b.shape().iter().enumerate() {
        *shape
            .get_mut(start + i)
            .ok_or("B does not fit A from `axis` on")? = d;
    }
    Ok(b.with_data(crate::tensor::map_data!(&b.data, x => x
        .clone()
        .into_shape_with_order(IxDyn(&shape))
        .map_err(|e| format!("{e}"))?)))
}

fn arithmetic(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (a, b) = (tensor(inputs, 0)?, tensor(inputs, 1)?);
    let b = legacy_operand(ctx, a, b)?;
    // One kernel for the four, told apart by the node's operator.
    let op = ctx.op_type;
    one(real2!(a, &b, (x, y) => {
        let f = arithmetic_of(op);
        zip_broadcast(x, y, &|&p, &q| f(p, q))?
    }))
}

/// The function of Add, Sub, Mul or Div (any other operator name).
fn arithmetic_of<T: Real>(op: &str) -> fn(T, T) -> T {
    match op {
        "Add" => T::add,
        "Sub" => T::sub,
        "Mul" => T::mul,
        _ => T::div,
    }
}

/// `f` of every element, computed in f64 and rounded to the element type (the half and narrow
/// kinds round once, as numpy's loops do for float16). `f` is behind a reference so that this is
/// compiled once, not for each of the functions given.
pub(crate) fn float_unary(t: &Tensor, f: &dyn Fn(f64) -> f64) -> KernelResult<Tensor> {
    Ok(match &t.data {
        Data::F32(a) => t.with_data(Data::F32(a.map_each(&|x| f(f64::from(x)) as f32))),
        Data::F64(a) => t.with_data(Data::F64(a.map_each(f))),
        Data::F16(a) => t.with_data(Data::F16(a.map_each(&|x| f16::from_f64(f(x.to_f64()))))),
        Data::BF16(a) => t.with_data(Data::BF16(a.map_each(&|x| bf16::from_f64(f(x.to_f64()))))),
        _ => {
            return Err(format!(
                "expected floats, got a tensor of {}",
                t.type_name()
            ));
        }
    })
}

fn relu(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    one(
        real!(x, a => a.map_each(&|v| if v > Real::from_f64(0.0) { v } else { Real::from_f64(0.0) })),
    )
}

fn neg(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    one(real!(x, a => a.map_each(&|v| Real::sub(Default::default(), v))))
}

fn abs(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    one(
        real!(x, a => a.map_each(&|v| if v < Default::default() { Real::sub(Default::default(), v) } else { v })),
    )
}

fn sqrt(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(float_unary(tensor(inputs, 0)?, &f64::sqrt)?)
}

fn exp(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(float_unary(tensor(inputs, 0)?, &f64::exp)?)
}

fn log(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(float_unary(tensor(inputs, 0)?, &f64::ln)?)
}

fn leaky_relu(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let alpha = f64::from(ctx.float("alpha", 0.01));
    one(float_unary(tensor(inputs, 0)?, &|x| {
        if x < 0.0 { alpha * x } else { x }
    })?)
}

/// Clip: bounds as attributes `min` and `max` before version 11, as optional scalar operands
/// from it on; a missing bound does not clip.
fn clip(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let bound = |index: usize, attribute: &str, default: f32| -> KernelResult<Option<f64>> {
        if ctx.since < 11 {
            return Ok(Some(f64::from(ctx.float(attribute, default))));
        }
        match super::tensor_opt(inputs, index)? {
            Some(t) => match t.to_f64_vec()?.as_slice() {
                [v] => Ok(Some(*v)),
                _ => Err(format!("the {attribute} bound is not one element")),
            },
            None => Ok(None),
        }
    };
    let low = bound(1, "min", f32::MIN)?;
    let high = bound(2, "max", f32::MAX)?;
    one(real!(x, a => a.map_each(&|v| {
        let mut v = v;
        if let Some(low) = low && v.to_f64() < low {
            v = Real::from_f64(low);
        }
        if let Some(high) = high && v.to_f64() > high {
            v = Real::from_f64(high);
        }
        v
    })))
}
