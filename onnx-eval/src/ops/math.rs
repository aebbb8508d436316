//! Element-wise math: the unary functions of real numbers (trigonometric, hyperbolic, rounding,
//! Sign, Reciprocal, Erf, IsNaN, IsInf), Pow, Mod, the bitwise operators and BitShift, the
//! variadic Max, Min, Sum and Mean, and the cumulative CumSum and CumProd.

use super::elementwise::{Real, float_unary, legacy_operand, real, real2, zip_broadcast};
use super::layout::{axis_range_positions, strides};
use super::{Ctx, Registry, axis, one, tensor};
use crate::error::KernelResult;
use crate::tensor::{Data, MapEach, Tensor, array, row_major};
use crate::value::Val;
use ndarray::ArrayD;
use onnx_runtime_types::tensor_proto::DataType;
use std::cmp::Ordering;

pub(super) fn register(r: &mut Registry) {
    r.add("", "Acos", 7, acos);
    r.add("", "Asin", 7, asin);
    r.add("", "Atan", 7, atan);
    r.add("", "Cos", 7, cos);
    r.add("", "Sin", 7, sin);
    r.add("", "Tan", 7, tan);
    r.add("", "Acosh", 9, acosh);
    r.add("", "Asinh", 9, asinh);
    r.add("", "Atanh", 9, atanh);
    r.add("", "Cosh", 9, cosh);
    r.add("", "Sinh", 9, sinh);
    r.add("", "Tanh", 1, tanh);
    r.add("", "Ceil", 1, ceil);
    r.add("", "Floor", 1, floor);
    r.add("", "Round", 11, round);
    r.add("", "Reciprocal", 1, reciprocal);
    r.add("", "Erf", 9, erf_kernel);
    r.add("", "Sign", 9, sign);
    r.add("", "IsNaN", 9, is_nan);
    r.add("", "IsInf", 10, is_inf);
    r.add("", "Pow", 1, pow);
    r.add("", "Mod", 10, modulo);
    r.add("", "Mod", 28, modulo);
    for op in ["BitwiseAnd", "BitwiseOr", "BitwiseXor"] {
        r.add("", op, 18, bitwise);
    }
    r.add("", "BitwiseNot", 18, bitwise_not);
    r.add("", "BitShift", 11, bit_shift);
    r.add("", "BitShift", 28, bit_shift);
    for op in ["Max", "Min", "Sum", "Mean"] {
        r.add("", op, 1, variadic);
        // From version 8 on the operands broadcast.
        r.add("", op, 8, variadic);
    }
    r.add("", "CumSum", 11, cumulative);
    r.add("", "CumProd", 26, cumulative);
}

fn acos(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(float_unary(tensor(inputs, 0)?, &f64::acos)?)
}

fn asin(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(float_unary(tensor(inputs, 0)?, &f64::asin)?)
}

fn atan(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(float_unary(tensor(inputs, 0)?, &f64::atan)?)
}

fn cos(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(float_unary(tensor(inputs, 0)?, &f64::cos)?)
}

fn sin(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(float_unary(tensor(inputs, 0)?, &f64::sin)?)
}

fn tan(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(float_unary(tensor(inputs, 0)?, &f64::tan)?)
}

fn acosh(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(float_unary(tensor(inputs, 0)?, &f64::acosh)?)
}

fn asinh(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(float_unary(tensor(inputs, 0)?, &f64::asinh)?)
}

fn atanh(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(float_unary(tensor(inputs, 0)?, &f64::atanh)?)
}

fn cosh(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(float_unary(tensor(inputs, 0)?, &f64::cosh)?)
}

fn sinh(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(float_unary(tensor(inputs, 0)?, &f64::sinh)?)
}

fn tanh(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(float_unary(tensor(inputs, 0)?, &f64::tanh)?)
}

fn ceil(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(float_unary(tensor(inputs, 0)?, &f64::ceil)?)
}

fn floor(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(float_unary(tensor(inputs, 0)?, &f64::floor)?)
}

/// Round: halves go to the even neighbour.
fn round(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(float_unary(tensor(inputs, 0)?, &f64::round_ties_even)?)
}

fn reciprocal(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(float_unary(tensor(inputs, 0)?, &|x| 1.0 / x)?)
}

fn erf_kernel(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(float_unary(tensor(inputs, 0)?, &erf)?)
}

/// The error function, to about 1e-15: below 3 in magnitude by its series of positive terms
/// erf(x) = 2/sqrt(pi) e^(-x^2) sum 2^n x^(2n+1) / (1·3·…·(2n+1)) (no cancellation), beyond by
/// the continued fraction of erfc, evaluated from its tail.
pub(crate) fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let magnitude = x.abs();
    let value = if magnitude < 3.0 {
        let square = magnitude * magnitude;
        let mut term = magnitude;
        let mut sum = magnitude;
        let mut n = 0.0;
        while term > sum * 1e-17 {
            n += 1.0;
            term *= 2.0 * square / (2.0 * n + 1.0);
            sum += term;
        }
        2.0 / std::f64::consts::PI.sqrt() * (-square).exp() * sum
    } else if magnitude < 6.5 {
        1.0 - erfc_continued_fraction(magnitude)
    } else {
        1.0
    };
    value.copysign(x)
}

/// erfc(x) for x >= 3: e^(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + …))))).
fn erfc_continued_fraction(x: f64) -> f64 {
    let mut tail = x;
    for k in (1..=80).rev() {
        tail = x + f64::from(k) / 2.0 / tail;
    }
    (-x * x).exp() / std::f64::consts::PI.sqrt() / tail
}

/// Sign: 1, -1 or 0 (NaN stays NaN), for every real type.
fn sign(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    fn of<T: Real>(v: T) -> T {
        let zero = T::default();
        match v.partial_cmp(&zero) {
            Some(Ordering::Greater) => T::from_f64(1.0),
            Some(Ordering::Less) => T::from_f64(-1.0),
            _ => v,
        }
    }
    let x = tensor(inputs, 0)?;
    one(real!(x, a => a.map_each(&of)))
}

/// A float tensor's elements as f64 with one predicate, giving a bool tensor.
fn float_predicate(t: &Tensor, f: impl Fn(f64) -> bool) -> KernelResult<Tensor> {
    let array = match &t.data {
        Data::F32(a) => a.map_each(&|x| f(f64::from(x))),
        Data::F64(a) => a.map_each(&&f),
        Data::F16(a) => a.map_each(&|x| f(x.to_f64())),
        Data::BF16(a) => a.map_each(&|x| f(x.to_f64())),
        _ => {
            return Err(format!(
                "expected floats, got a tensor of {}",
                t.type_name()
            ));
        }
    };
    Ok(Tensor::from_data(Data::Bool(array)))
}

fn is_nan(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    one(float_predicate(tensor(inputs, 0)?, f64::is_nan)?)
}

fn is_inf(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let negative = ctx.int("detect_negative", 1) != 0;
    let positive = ctx.int("detect_positive", 1) != 0;
    one(float_predicate(tensor(inputs, 0)?, |x| {
        x.is_infinite() && if x > 0.0 { positive } else { negative }
    })?)
}

/// Whether a tensor holds integers (of any width, bool excluded).
fn is_integer(t: &Tensor) -> bool {
    matches!(
        t.data,
        Data::I8(_)
            | Data::I16(_)
            | Data::I32(_)
            | Data::I64(_)
            | Data::U8(_)
            | Data::U16(_)
            | Data::U32(_)
            | Data::U64(_)
    )
}

/// The elements of a real-number tensor as f64 (integers and floats).
fn to_f64_array(t: &Tensor) -> KernelResult<ArrayD<f64>> {
    Ok(match &t.data {
        Data::F32(a) => a.map_each(&f64::from),
        Data::F64(a) => a.clone(),
        Data::F16(a) => a.map_each(&|x| x.to_f64()),
        Data::BF16(a) => a.map_each(&|x| x.to_f64()),
        Data::I8(a) => a.map_each(&f64::from),
        Data::I16(a) => a.map_each(&f64::from),
        Data::I32(a) => a.map_each(&f64::from),
        Data::I64(a) => a.map_each(&|x| x as f64),
        Data::U8(a) => a.map_each(&f64::from),
        Data::U16(a) => a.map_each(&f64::from),
        Data::U32(a) => a.map_each(&f64::from),
        Data::U64(a) => a.map_each(&|x| x as f64),
        _ => {
            return Err(format!(
                "expected numbers, got a tensor of {}",
                t.type_name()
            ));
        }
    })
}

/// The elements of an integer tensor as i128.
fn to_i128_array(t: &Tensor) -> KernelResult<ArrayD<i128>> {
    Ok(match &t.data {
        Data::I8(a) => a.map_each(&i128::from),
        Data::I16(a) => a.map_each(&i128::from),
        Data::I32(a) => a.map_each(&i128::from),
        Data::I64(a) => a.map_each(&i128::from),
        Data::U8(a) => a.map_each(&i128::from),
        Data::U16(a) => a.map_each(&i128::from),
        Data::U32(a) => a.map_each(&i128::from),
        Data::U64(a) => a.map_each(&i128::from),
        _ => {
            return Err(format!(
                "expected integers, got a tensor of {}",
                t.type_name()
            ));
        }
    })
}

/// `base` to a non-negative integer power, wrapping as the integer types do.
fn wrapping_power(base: i128, exponent: i128) -> i128 {
    let (mut result, mut square, mut rest) = (1i128, base, exponent);
    while rest > 0 {
        if rest & 1 == 1 {
            result = result.wrapping_mul(square);
        }
        square = square.wrapping_mul(square);
        rest >>= 1;
    }
    result
}

/// Pow: before version 12 base and exponent share their type (and before 7 the exponent
/// broadcasts the legacy way); from 12 on the exponent may be of any numeric type, and the
/// result has the base's type. Integers to integer powers are exact (wrapping); everything
/// else computes in f64 and rounds once to the base's type.
fn pow(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let base = tensor(inputs, 0)?;
    let exponent = legacy_operand(ctx, base, tensor(inputs, 1)?)?;
    if ctx.since < 12 && base.dtype != exponent.dtype {
        return Err(format!(
            "base of {} and exponent of {}: before version 12 they must be of one type",
            base.type_name(),
            exponent.type_name()
        ));
    }
    if is_integer(base) && is_integer(&exponent) {
        let exponents = to_i128_array(&exponent)?;
        fn integer_power<T: Real + WrapFrom>(
            a: &ArrayD<T>,
            e: &ArrayD<i128>,
        ) -> KernelResult<ArrayD<T>> {
            zip_broadcast(a, e, &|&b, &e| {
                let b = b.to_i128();
                if e >= 0 {
                    // The low bits of the wide power are those of the narrow one.
                    T::from_f64(0.0).wrap_from(wrapping_power(b, e))
                } else {
                    // 1 / b^|e|, truncated toward zero.
                    T::from_f64((b as f64).powf(e as f64).trunc())
                }
            })
        }
        return one(real!(base, a => integer_power(a, &exponents)?));
    }
    let exponents = to_f64_array(&exponent)?;
    one(
        real!(base, a => zip_broadcast(a, &exponents, &|&b, &e| Real::from_f64(b.to_f64().powf(e)))?),
    )
}

/// Wrapping an i128 into a narrower integer type (for floats, its value as f64).
trait WrapFrom {
    fn wrap_from(self, value: i128) -> Self;
    /// The value as i128 (floats truncated).
    fn to_i128(self) -> i128;
}

macro_rules! wrap_from_int {
    ($($t:ty),*) => {$(
        impl WrapFrom for $t {
            fn wrap_from(self, value: i128) -> Self { value as $t }
            fn to_i128(self) -> i128 { self as i128 }
        }
    )*};
}
wrap_from_int!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! wrap_from_float {
    ($($t:ty),*) => {$(
        impl WrapFrom for $t {
            fn wrap_from(self, value: i128) -> Self { <$t as Real>::from_f64(value as f64) }
            fn to_i128(self) -> i128 { Real::to_f64(self) as i128 }
        }
    )*};
}
wrap_from_float!(f32, f64, crate::halves::f16, crate::halves::bf16);

/// What the integer types do beyond `Real`: remainders, shifts and bits.
trait Int:
    Real
    + WrapFrom
    + std::ops::BitAnd<Output = Self>
    + std::ops::BitOr<Output = Self>
    + std::ops::BitXor<Output = Self>
    + std::ops::Not<Output = Self>
{
    /// The remainder of division truncated toward zero (0 for a zero divisor).
    fn rem_trunc(self, divisor: Self) -> Self;
    /// The remainder of division rounded toward negative infinity: the divisor's sign.
    fn rem_floor(self, divisor: Self) -> Self;
    /// Shifts left; by a negative amount or the width or more, 0.
    fn shift_left(self, by: Self) -> Self;
    /// Shifts right (arithmetic for signed types); by a negative amount or the width or more,
    /// what the sign bit alone gives: -1 for a negative value, else 0.
    fn shift_right(self, by: Self) -> Self;
}

macro_rules! signed_int {
    ($($t:ty),*) => {$(
        impl Int for $t {
            fn rem_trunc(self, divisor: Self) -> Self {
                if divisor == 0 { 0 } else { self.wrapping_rem(divisor) }
            }
            fn rem_floor(self, divisor: Self) -> Self {
                let r = self.rem_trunc(divisor);
                if r != 0 && (r < 0) != (divisor < 0) { r.wrapping_add(divisor) } else { r }
            }
            fn shift_left(self, by: Self) -> Self {
                match u32::try_from(by) {
                    Ok(n) if n < <$t>::BITS => self.wrapping_shl(n),
                    _ => 0,
                }
            }
            fn shift_right(self, by: Self) -> Self {
                match u32::try_from(by) {
                    Ok(n) if n < <$t>::BITS => self >> n,
                    _ => if self < 0 { -1 } else { 0 },
                }
            }
        }
    )*};
}
signed_int!(i8, i16, i32, i64);

macro_rules! unsigned_int {
    ($($t:ty),*) => {$(
        impl Int for $t {
            fn rem_trunc(self, divisor: Self) -> Self {
                if divisor == 0 { 0 } else { self % divisor }
            }
            fn rem_floor(self, divisor: Self) -> Self {
                self.rem_trunc(divisor)
            }
            fn shift_left(self, by: Self) -> Self {
                match u32::try_from(by) {
                    Ok(n) if n < <$t>::BITS => self << n,
                    _ => 0,
                }
            }
            fn shift_right(self, by: Self) -> Self {
                match u32::try_from(by) {
                    Ok(n) if n < <$t>::BITS => self >> n,
                    _ => 0,
                }
            }
        }
    )*};
}
unsigned_int!(u8, u16, u32, u64);

/// Applies a generic expression to the arrays of two tensors of one plain integer type (the
/// 4-bit and 2-bit kinds excluded), broadcast by the expression.
macro_rules! int2 {
    ($x:expr, $y:expr, ($a:ident, $b:ident) => $e:expr) => {{
        let (x, y): (&Tensor, &Tensor) = ($x, $y);
        if x.dtype != y.dtype {
            return Err(format!(
                "operands of different element types: {} and {}",
                x.type_name(),
                y.type_name()
            ));
        }
        if matches!(
            x.dtype,
            DataType::Int4 | DataType::Uint4 | DataType::Int2 | DataType::Uint2
        ) {
            return Err(format!("a tensor of {} here", x.type_name()));
        }
        let data = match (&x.data, &y.data) {
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
                    "expected integers, got a tensor of {}",
                    x.type_name()
                ));
            }
        };
        x.with_data(data)
    }};
}

/// Mod. `fmod` 1: C's fmod (the dividend's sign, truncation). `fmod` 0: the divisor's sign, as
/// Python's `%`, for integers (and, from version 28, floats too). An integer divisor of 0 gives 0.
/// Version 28 states fmod=1 on integers; the earlier specs name no integer type for it, but onnx's
/// own tests and onnxruntime run it as truncation at every version, so it is taken at every one
/// (docs/divergences.md).
fn modulo(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (a, b) = (tensor(inputs, 0)?, tensor(inputs, 1)?);
    let fmod = match ctx.int("fmod", 0) {
        0 => false,
        1 => true,
        other => return Err(format!("fmod is {other}, not 0 or 1")),
    };
    if is_integer(a) {
        fn integers<T: Int>(x: &ArrayD<T>, y: &ArrayD<T>, fmod: bool) -> KernelResult<ArrayD<T>> {
            zip_broadcast(x, y, &|&p, &q| {
                if fmod { p.rem_trunc(q) } else { p.rem_floor(q) }
            })
        }
        return one(int2!(a, b, (x, y) => integers(x, y, fmod)?));
    }
    if !fmod && ctx.since < 28 {
        return Err(format!(
            "fmod=0 takes integers before version 28, got {}",
            a.type_name()
        ));
    }
    let remainder: fn(f64, f64) -> f64 = if fmod { fmod_f64 } else { floor_mod_f64 };
    one(
        real2!(a, b, (x, y) => zip_broadcast(x, y, &|&p, &q| Real::from_f64(remainder(p.to_f64(), q.to_f64())))?),
    )
}

/// C's fmod: exact, the dividend's sign.
fn fmod_f64(x: f64, y: f64) -> f64 {
    x % y
}

/// x - floor(x / y) * y, exactly: fmod moved by one divisor when the signs differ; a zero
/// remainder takes the divisor's sign.
fn floor_mod_f64(x: f64, y: f64) -> f64 {
    let r = x % y;
    if r == 0.0 {
        0f64.copysign(y)
    } else if (r < 0.0) != (y < 0.0) {
        r + y
    } else {
        r
    }
}

fn bitwise(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    fn apply<T: Int>(x: &ArrayD<T>, y: &ArrayD<T>, op: &str) -> KernelResult<ArrayD<T>> {
        match op {
            "BitwiseAnd" => zip_broadcast(x, y, &|&p, &q| p & q),
            "BitwiseOr" => zip_broadcast(x, y, &|&p, &q| p | q),
            _ => zip_broadcast(x, y, &|&p, &q| p ^ q),
        }
    }
    let (a, b) = (tensor(inputs, 0)?, tensor(inputs, 1)?);
    one(int2!(a, b, (x, y) => apply(x, y, ctx.op_type)?))
}

fn bitwise_not(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    one(int2!(x, x, (a, _b) => a.map_each(&|v| !v)))
}

/// BitShift: unsigned types at version 11, signed ones too from 28 (right shifts of them are
/// arithmetic); shifting by the width or more (or a negative amount) leaves only what the
/// sign bit gives.
fn bit_shift(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let (x, y) = (tensor(inputs, 0)?, tensor(inputs, 1)?);
    let left = match ctx.string("direction").as_deref() {
        Some("LEFT") => true,
        Some("RIGHT") => false,
        other => return Err(format!("direction {other:?}, not LEFT or RIGHT")),
    };
    if ctx.since < 28
        && matches!(
            x.data,
            Data::I8(_) | Data::I16(_) | Data::I32(_) | Data::I64(_)
        )
    {
        return Err(format!(
            "BitShift before version 28 takes unsigned integers, not {}",
            x.type_name()
        ));
    }
    fn apply<T: Int>(x: &ArrayD<T>, y: &ArrayD<T>, left: bool) -> KernelResult<ArrayD<T>> {
        zip_broadcast(x, y, &|&v, &by| {
            if left {
                v.shift_left(by)
            } else {
                v.shift_right(by)
            }
        })
    }
    one(int2!(x, y, (a, b) => apply(a, b, left)?))
}

/// The larger of two values; NaN if either is (as numpy's maximum).
fn max_of<T: PartialOrd>(a: T, b: T) -> T {
    match a.partial_cmp(&b) {
        Some(Ordering::Less) => b,
        Some(_) => a,
        None if a.partial_cmp(&a).is_none() => a,
        None => b,
    }
}

fn min_of<T: PartialOrd>(a: T, b: T) -> T {
    match a.partial_cmp(&b) {
        Some(Ordering::Greater) => b,
        Some(_) => a,
        None if a.partial_cmp(&a).is_none() => a,
        None => b,
    }
}

/// The pairwise step of Max, Min, or (Sum and Mean) of any other operator name.
fn variadic_of<T: Real>(op: &str) -> fn(T, T) -> T {
    match op {
        "Max" => max_of,
        "Min" => min_of,
        _ => T::add,
    }
}

/// Max, Min, Sum and Mean of one or more tensors: before version 8 all of one shape, from 8
/// on broadcast. Mean divides the sum (integers toward zero).
fn variadic(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let operands = (0..inputs.len())
        .map(|i| tensor(inputs, i))
        .collect::<KernelResult<Vec<&Tensor>>>()?;
    let (first, rest) = operands
        .split_first()
        .ok_or("at least one operand is required")?;
    if ctx.since < 8
        && let Some(other) = rest.iter().find(|t| t.shape() != first.shape())
    {
        return Err(format!(
            "before version 8 the operands must be of one shape: {:?} and {:?}",
            first.shape(),
            other.shape()
        ));
    }
    let mut result: Tensor = (*first).clone();
    // Check the type once, even for one operand.
    result = real!(&result, a => a.clone());
    let op = ctx.op_type;
    for operand in rest {
        result = real2!(&result, operand, (x, y) => {
            let f = variadic_of(op);
            zip_broadcast(x, y, &|&p, &q| f(p, q))?
        });
    }
    if ctx.op_type == "Mean" {
        let count = operands.len() as f64;
        result = real!(&result, a => a.map_each(&|v| Real::div(v, Real::from_f64(count))));
    }
    one(result)
}

/// The running sum or product along one axis of every lane, exclusive (each element leaves
/// itself out) or inclusive, from the end when `reverse`.
fn running<T: Real>(
    a: &ArrayD<T>,
    axis: usize,
    exclusive: bool,
    reverse: bool,
    product: bool,
) -> KernelResult<ArrayD<T>> {
    let (start, step): (T, fn(T, T) -> T) = if product {
        (T::from_f64(1.0), Real::mul)
    } else {
        (T::default(), Real::add)
    };
    // Each lane by position: where it starts, its step and its length.
    let shape = a.shape();
    let (firsts, stride, n) = (
        axis_range_positions(shape, axis, 0, 1)?,
        strides(shape)[axis],
        shape[axis],
    );
    let mut values = row_major(a).into_owned();
    for first in firsts {
        let mut acc = start;
        for k in 0..n {
            let i = first + stride * if reverse { n - 1 - k } else { k };
            let value = values[i];
            if exclusive {
                values[i] = acc;
                acc = step(acc, value);
            } else {
                acc = step(acc, value);
                values[i] = acc;
            }
        }
    }
    array(a.shape(), values)
}

/// CumSum and CumProd: the axis a one-element integer tensor.
fn cumulative(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let along = match tensor(inputs, 1)?.to_i64_vec()?.as_slice() {
        [a] => axis(*a, x.rank())?,
        other => return Err(format!("the axis holds {} elements, not one", other.len())),
    };
    if x.rank() == 0 {
        return Err("a scalar has no axis to accumulate along".to_string());
    }
    let exclusive = ctx.int("exclusive", 0) != 0;
    let reverse = ctx.int("reverse", 0) != 0;
    let product = ctx.op_type == "CumProd";
    one(real!(x, a => running(a, along, exclusive, reverse, product)?))
}

/// What the unit tests of the math family share: building values, running a model's text.
#[cfg(test)]
pub(crate) mod testing {
    use onnx_value::{Element, Value};

    /// A tensor value of `dims`.
    pub fn value<T: Element>(values: &[T], dims: &[usize]) -> Value {
        Value::tensor(values, dims).unwrap()
    }

    pub fn floats(values: &[f32], dims: &[usize]) -> Value {
        value(values, dims)
    }

    /// Runs the model of `text` on `inputs`: its outputs, or the error's message.
    pub fn run(text: &str, inputs: &[Value]) -> Result<Vec<Value>, String> {
        let model = onnx_text::parse_model(text).map_err(|e| format!("{e:?}"))?;
        crate::run(&model, inputs).map_err(|e| e.to_string())
    }

    /// The first output of the model of `text`, as floats.
    pub fn run_f32(text: &str, inputs: &[Value]) -> Result<Vec<f32>, String> {
        Ok(run(text, inputs)?[0].to_vec::<f32>().unwrap())
    }
}

#[cfg(test)]
mod tests {
    use super::erf;
    use super::testing::*;

    /// erf against values from a table (Abramowitz and Stegun 7.1, to 1e-15 where they give
    /// it; erf(0.5) = 0.520499877813047, erf(1) = 0.842700792949715, erf(2) =
    /// 0.995322265018953, erf(3) = 0.999977909503001, erf(4) = 0.999999984582742).
    #[test]
    fn erf_matches_the_table() {
        for (x, expected) in [
            (0.5, 0.520_499_877_813_047),
            (1.0, 0.842_700_792_949_715),
            (2.0, 0.995_322_265_018_953),
            (3.0, 0.999_977_909_503_001),
            (4.0, 0.999_999_984_582_742),
            (-1.0, -0.842_700_792_949_715),
        ] {
            assert!((erf(x) - expected).abs() < 1e-14, "erf({x}) = {}", erf(x));
        }
        assert_eq!(erf(0.0), 0.0);
        assert_eq!(erf(10.0), 1.0);
    }

    /// Max before version 8 takes operands of one shape only; from 8 on they broadcast.
    /// Expected values by hand.
    #[test]
    fn max_broadcasts_from_version_8_only() {
        let text = |opset: i64| {
            format!(
                r#"<ir_version: 3, opset_import: ["" : {opset}]>
                g (float[2, 2] a, float[2] b) => (float[2, 2] y) {{ y = Max (a, b) }}"#
            )
        };
        let a = floats(&[1.0, 5.0, 3.0, 0.0], &[2, 2]);
        let b = floats(&[2.0, 2.0], &[2]);
        assert_eq!(
            run_f32(&text(8), &[a.clone(), b.clone()]),
            Ok(vec![2.0, 5.0, 3.0, 2.0])
        );
        let error = run_f32(&text(6), &[a, b]).unwrap_err();
        assert!(error.contains("of one shape"), "{error}");
    }

    /// Pow before version 12 takes base and exponent of one type; from 12 an int64 exponent
    /// raises floats. Expected values by hand.
    #[test]
    fn pow_takes_mixed_types_from_version_12() {
        let text = |opset: i64| {
            format!(
                r#"<ir_version: 7, opset_import: ["" : {opset}]>
                g (float[3] x, int64[3] y) => (float[3] z) {{ z = Pow (x, y) }}"#
            )
        };
        let x = floats(&[2.0, -3.0, 0.5], &[3]);
        let y = value(&[3i64, 2, -1], &[3]);
        assert_eq!(
            run_f32(&text(12), &[x.clone(), y.clone()]),
            Ok(vec![8.0, 9.0, 2.0])
        );
        let error = run_f32(&text(11), &[x, y]).unwrap_err();
        assert!(error.contains("one type"), "{error}");
    }

    /// Pow at version 1 broadcasts the exponent the legacy way, from `axis`. By hand.
    #[test]
    fn pow_1_broadcasts_from_axis() {
        let text = r#"<ir_version: 3, opset_import: ["" : 1]>
            g (float[2, 3] x, float[2] y) => (float[2, 3] z) { z = Pow <broadcast: int = 1, axis: int = 0> (x, y) }"#;
        let x = floats(&[1.0, 2.0, 3.0, 1.0, 2.0, 3.0], &[2, 3]);
        let y = floats(&[2.0, 3.0], &[2]);
        assert_eq!(
            run_f32(text, &[x, y]),
            Ok(vec![1.0, 4.0, 9.0, 1.0, 8.0, 27.0])
        );
    }

    /// Mod before version 28 refuses fmod=0 on floats; from 28 it is the floor remainder,
    /// the divisor's sign. By hand: -7 mod 3 = 2, 7 mod -3 = -2, 5.5 mod 2 = 1.5.
    #[test]
    fn mod_takes_floats_without_fmod_from_version_28() {
        let text = |opset: i64| {
            format!(
                r#"<ir_version: 7, opset_import: ["" : {opset}]>
                g (float[3] a, float[3] b) => (float[3] c) {{ c = Mod (a, b) }}"#
            )
        };
        let a = floats(&[-7.0, 7.0, 5.5], &[3]);
        let b = floats(&[3.0, -3.0, 2.0], &[3]);
        assert_eq!(
            run_f32(&text(28), &[a.clone(), b.clone()]),
            Ok(vec![2.0, -2.0, 1.5])
        );
        let error = run_f32(&text(13), &[a, b]).unwrap_err();
        assert!(error.contains("fmod=0 takes integers"), "{error}");
    }

    /// Mod with fmod=1 on integers truncates at every version, as version 28 states and as
    /// onnx's Mod-10 tests expect. By hand: -7 fmod 3 = -1, 7 fmod -3 = 1, 6 fmod 3 = 0.
    #[test]
    fn mod_fmod_on_integers_truncates_at_every_version() {
        for opset in [10, 13, 28] {
            let text = format!(
                r#"<ir_version: 7, opset_import: ["" : {opset}]>
                g (int32[3] a, int32[3] b) => (int32[3] c) {{ c = Mod <fmod: int = 1> (a, b) }}"#
            );
            let a = value(&[-7i32, 7, 6], &[3]);
            let b = value(&[3i32, -3, 3], &[3]);
            let out = run(&text, &[a, b]).unwrap();
            assert_eq!(out[0].to_vec::<i32>().unwrap(), [-1, 1, 0], "opset {opset}");
        }
    }

    /// BitShift before version 28 refuses signed integers. By hand.
    #[test]
    fn bit_shift_takes_signed_integers_from_version_28() {
        let text = |opset: i64| {
            format!(
                r#"<ir_version: 7, opset_import: ["" : {opset}]>
                g (int32[2] x, int32[2] y) => (int32[2] z) {{ z = BitShift <direction: string = "RIGHT"> (x, y) }}"#
            )
        };
        let x = value(&[-8i32, 8], &[2]);
        let y = value(&[1i32, 40], &[2]);
        let out = run(&text(28), &[x.clone(), y.clone()]).unwrap();
        assert_eq!(out[0].to_vec::<i32>().unwrap(), [-4, 0]);
        let error = run(&text(11), &[x, y]).unwrap_err();
        assert!(error.contains("unsigned"), "{error}");
    }
}
