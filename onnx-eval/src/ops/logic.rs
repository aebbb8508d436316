//! Comparisons (Equal, Greater, GreaterOrEqual, Less, LessOrEqual) and logic (And, Or, Xor,
//! Not), broadcast, giving bool tensors.

use super::elementwise::{legacy_operand, zip_broadcast};
use super::{Ctx, Registry, one, tensor};
use crate::error::KernelResult;
use crate::tensor::MapEach;
use crate::tensor::{Data, Tensor};
use crate::value::Val;
use ndarray::ArrayD;
use std::cmp::Ordering;

pub(super) fn register(r: &mut Registry) {
    for op in ["Equal", "Greater", "Less"] {
        // Version 1 broadcasts the legacy way (`legacy_operand` reads the version).
        r.add("", op, 1, compare);
    }
    r.add("", "GreaterOrEqual", 12, compare);
    r.add("", "LessOrEqual", 12, compare);
    for op in ["And", "Or", "Xor"] {
        r.add("", op, 1, logic);
    }
    r.add("", "Not", 1, not);
}

/// Two tensors of one type compared element by element: `Equal` for every type but complex
/// numbers, the orderings for numbers only. NaN compares false.
fn compare(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let a = tensor(inputs, 0)?;
    let b = legacy_operand(ctx, a, tensor(inputs, 1)?)?;
    if a.dtype != b.dtype {
        return Err(format!(
            "operands of different element types: {} and {}",
            a.type_name(),
            b.type_name()
        ));
    }
    let equality = ctx.op_type == "Equal";
    if matches!(a.data, Data::C64(_) | Data::C128(_))
        || (!equality && matches!(a.data, Data::Str(_) | Data::Bool(_)))
    {
        return Err(format!(
            "{} does not compare {}",
            ctx.op_type,
            a.type_name()
        ));
    }
    fn by_op<T: PartialOrd + Clone>(
        op: &str,
        x: &ArrayD<T>,
        y: &ArrayD<T>,
    ) -> KernelResult<ArrayD<bool>> {
        let accepts = accepted_orderings(op);
        zip_broadcast(x, y, &|p, q| accepts(p.partial_cmp(q)))
    }
    let op = ctx.op_type;
    let result = match (&a.data, &b.data) {
        (Data::F32(x), Data::F32(y)) => by_op(op, x, y)?,
        (Data::F64(x), Data::F64(y)) => by_op(op, x, y)?,
        (Data::F16(x), Data::F16(y)) => by_op(op, x, y)?,
        (Data::BF16(x), Data::BF16(y)) => by_op(op, x, y)?,
        (Data::I8(x), Data::I8(y)) => by_op(op, x, y)?,
        (Data::I16(x), Data::I16(y)) => by_op(op, x, y)?,
        (Data::I32(x), Data::I32(y)) => by_op(op, x, y)?,
        (Data::I64(x), Data::I64(y)) => by_op(op, x, y)?,
        (Data::U8(x), Data::U8(y)) => by_op(op, x, y)?,
        (Data::U16(x), Data::U16(y)) => by_op(op, x, y)?,
        (Data::U32(x), Data::U32(y)) => by_op(op, x, y)?,
        (Data::U64(x), Data::U64(y)) => by_op(op, x, y)?,
        (Data::Bool(x), Data::Bool(y)) => by_op(op, x, y)?,
        (Data::Str(x), Data::Str(y)) => by_op(op, x, y)?,
        _ => return Err(format!("{op} does not compare {}", a.type_name())),
    };
    one(Tensor::from_data(Data::Bool(result)))
}

/// A comparison operator (LessOrEqual for any other name) as the orderings it accepts, so that
/// each element type compiles one comparison rather than one per operator.
fn accepted_orderings(op: &str) -> fn(Option<Ordering>) -> bool {
    match op {
        "Equal" => |o| o == Some(Ordering::Equal),
        "Greater" => |o| o == Some(Ordering::Greater),
        "GreaterOrEqual" => |o| matches!(o, Some(Ordering::Greater | Ordering::Equal)),
        "Less" => |o| o == Some(Ordering::Less),
        _ => |o| matches!(o, Some(Ordering::Less | Ordering::Equal)),
    }
}

/// The bool array of a tensor, or an error naming its type.
fn bools(t: &Tensor) -> KernelResult<&ArrayD<bool>> {
    match &t.data {
        Data::Bool(a) => Ok(a),
        _ => Err(format!("expected bools, got a tensor of {}", t.type_name())),
    }
}

fn logic(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let a = tensor(inputs, 0)?;
    let b = legacy_operand(ctx, a, tensor(inputs, 1)?)?;
    let (x, y) = (bools(a)?, bools(&b)?);
    let result = match ctx.op_type {
        "And" => zip_broadcast(x, y, &|&p, &q| p && q)?,
        "Or" => zip_broadcast(x, y, &|&p, &q| p || q)?,
        _ => zip_broadcast(x, y, &|&p, &q| p != q)?,
    };
    one(Tensor::from_data(Data::Bool(result)))
}

fn not(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = bools(tensor(inputs, 0)?)?;
    one(Tensor::from_data(Data::Bool(x.map_each(&|v| !v))))
}

#[cfg(test)]
mod tests {
    use super::super::math::testing::*;

    /// Equal and And at version 1 match B to A from `axis` (legacy broadcast); at version 7
    /// the same operands broadcast numpy's way, from the right, and do not fit. By hand.
    #[test]
    fn version_1_broadcasts_from_axis() {
        let equal = |opset: i64| {
            format!(
                r#"<ir_version: 3, opset_import: ["" : {opset}]>
                g (int64[2, 3] a, int64[2] b) => (bool[2, 3] c) {{ c = Equal <broadcast: int = 1, axis: int = 0> (a, b) }}"#
            )
        };
        let a = value(&[1i64, 2, 1, 5, 2, 2], &[2, 3]);
        let b = value(&[1i64, 2], &[2]);
        let out = run(&equal(1), &[a.clone(), b.clone()]).unwrap();
        assert_eq!(
            out[0].to_vec::<bool>().unwrap(),
            [true, false, true, false, true, true]
        );
        assert!(run(&equal(7), &[a, b]).is_err());
        let and = r#"<ir_version: 3, opset_import: ["" : 1]>
            g (bool[2, 2] a, bool[2] b) => (bool[2, 2] c) { c = And <broadcast: int = 1, axis: int = 0> (a, b) }"#;
        let a = value(&[true, true, true, false], &[2, 2]);
        let b = value(&[true, false], &[2]);
        let out = run(and, &[a, b]).unwrap();
        assert_eq!(out[0].to_vec::<bool>().unwrap(), [true, true, false, false]);
    }
}
