//! Operators that work element by element: one operand, or several broadcast together.

use crate::node::{Conflict, Node, Rule, conflict, dtype};
use crate::ty::{Dim, show_shape};

/// The result has the operand's type (and, for a propagated value, the operand's value).
pub fn same(node: &mut Node) -> Rule {
    node.same_as_input(0, 0);
    if node.proto.op_type.as_deref() == Some("Identity") {
        node.pass_data();
    }
    Ok(())
}

/// The result has the operand's shape and element type `elem`.
fn shaped_as_input(node: &mut Node, elem: i32) -> Rule {
    let shape = node.shape_of(0);
    if node.input(0).is_some() {
        node.set_tensor(0, Some(elem), shape);
    }
    Ok(())
}

/// `IsNaN`, `IsInf`, `Not`: a bool of the operand's shape.
pub fn to_bool(node: &mut Node) -> Rule {
    shaped_as_input(node, dtype::BOOL)
}

/// `Cast`: the operand's shape, the element type `to`; integer values carry through.
pub fn cast(node: &mut Node) -> Rule {
    let to = node.int("to", 0) as i32;
    shaped_as_input(node, to)?;
    if matches!(to, dtype::INT64 | dtype::INT32) {
        node.pass_data();
    }
    Ok(())
}

/// `CastLike`: the first operand's shape, the second's element type.
pub fn cast_like(node: &mut Node) -> Rule {
    let Some(elem) = node.elem(1) else {
        return Ok(());
    };
    shaped_as_input(node, elem)
}

/// The shape that broadcasting `shapes` together gives (the multidirectional rule); the
/// operand that conflicts with those before it.
pub fn broadcast(shapes: &[&[Dim]]) -> Result<Vec<Dim>, (usize, String)> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = Vec::with_capacity(rank);
    for axis in 0..rank {
        let mut known: Option<(i64, usize)> = None;
        let mut symbols: Vec<&Dim> = Vec::new();
        let mut unknown = false;
        for (i, shape) in shapes.iter().enumerate() {
            let Some(d) = (axis + shape.len()).checked_sub(rank).map(|k| &shape[k]) else {
                continue;
            };
            match d {
                Dim::Known(1) => {}
                Dim::Known(n) => match known {
                    Some((m, first)) if m != *n => {
                        let message = format!(
                            "cannot broadcast {} with {}",
                            show_shape(shapes[first]),
                            show_shape(shape)
                        );
                        return Err((i, message));
                    }
                    _ => known = Some((*n, known.map_or(i, |k| k.1))),
                },
                Dim::Symbol(_) => symbols.push(d),
                Dim::Unknown => unknown = true,
            }
        }
        out.push(match known {
            Some((n, _)) => Dim::Known(n),
            None if !unknown && !symbols.is_empty() && symbols.iter().all(|s| *s == symbols[0]) => {
                symbols[0].clone()
            }
            None if !unknown && symbols.is_empty() => Dim::Known(1),
            None => Dim::Unknown,
        });
    }
    Ok(out)
}

/// The element type of the first of `operands` whose type is known.
fn first_elem(node: &Node, operands: &[usize]) -> Option<i32> {
    operands.iter().find_map(|&i| node.elem(i))
}

/// Broadcasts the given operands into a result of element type `elem` (`None`: unknown).
fn broadcast_operands(node: &mut Node, operands: &[usize], elem: Option<i32>) -> Rule {
    let shapes: Option<Vec<&[Dim]>> = operands.iter().map(|&i| node.dims(i)).collect();
    let shape = match shapes {
        Some(shapes) => Some(broadcast(&shapes).map_err(|(i, m)| conflict(operands[i], m))?),
        None => None,
    };
    if elem.is_some() || shape.is_some() {
        node.set_tensor(0, elem, shape);
    }
    Ok(())
}

/// `Add`, `Mul`, `Pow`, `BitShift`, ...: two operands broadcast, the first one's element type.
pub fn binary(node: &mut Node) -> Rule {
    if node.opset < 7 {
        // Before opset 7 the result has the first operand's shape (`broadcast` is one way).
        node.same_as_input(0, 0);
        return Ok(());
    }
    broadcast_operands(node, &[0, 1], first_elem(node, &[0, 1]))?;
    arithmetic_data(node);
    Ok(())
}

/// `Equal`, `Less`, `And`, ...: two operands broadcast to a bool.
pub fn compare(node: &mut Node) -> Rule {
    if node.opset < 7 {
        return shaped_as_input(node, dtype::BOOL);
    }
    broadcast_operands(node, &[0, 1], Some(dtype::BOOL))
}

/// `Max`, `Min`, `Sum`, `Mean`: any number of operands broadcast.
pub fn variadic(node: &mut Node) -> Rule {
    // The result's element type is the first operand's.
    node.written([0])?;
    let operands: Vec<usize> = (0..node.inputs.len()).collect();
    if node.opset < 8 {
        node.same_as_input(0, 0);
        return Ok(());
    }
    let elem = first_elem(node, &operands);
    broadcast_operands(node, &operands, elem)?;
    arithmetic_data(node);
    Ok(())
}

/// `Where`: the condition and both branches broadcast; the branches' element type.
pub fn where_(node: &mut Node) -> Rule {
    // Never the condition's bool: where neither branch's type is known, neither is the result's.
    let elem = first_elem(node, &[1, 2]);
    broadcast_operands(node, &[0, 1, 2], elem)
}

/// `PRelu`: the result has the operand's type; from opset 7 the slope broadcasts to the
/// operand one way (it never widens the result).
pub fn prelu(node: &mut Node) -> Rule {
    node.same_as_input(0, 0);
    if node.opset < 7 {
        return Ok(());
    }
    let (Some(x), Some(slope)) = (node.dims(0), node.dims(1)) else {
        return Ok(());
    };
    let fits = slope.len() <= x.len()
        && slope
            .iter()
            .rev()
            .zip(x.iter().rev())
            .all(|(s, d)| s.known() == Some(1) || s.compatible(d));
    if !fits {
        let message = format!(
            "operand 1 (slope) {} does not broadcast to the input {}",
            show_shape(slope),
            show_shape(x)
        );
        return Err(conflict(1, message));
    }
    Ok(())
}

/// `SwiGLU`: the gate and the value have one shape (no broadcasting), which the result has;
/// each dim the more specific of the two.
pub fn swiglu(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let (Some(a), Some(b)) = (node.dims(0), node.dims(1)) else {
        let shape = node.shape_of(0).or_else(|| node.shape_of(1));
        node.set_tensor(0, elem, shape);
        return Ok(());
    };
    let mismatch = || {
        let message = format!(
            "operand 1 (B) {} must have the shape of operand 0 (A) {}",
            show_shape(b),
            show_shape(a)
        );
        conflict(1, message)
    };
    if a.len() != b.len() {
        return Err(mismatch());
    }
    let mut out = Vec::with_capacity(a.len());
    for (da, db) in a.iter().zip(b) {
        out.push(match (da, db) {
            (Dim::Known(x), Dim::Known(y)) if x != y => return Err(mismatch()),
            (Dim::Known(_), _) | (Dim::Symbol(_), Dim::Symbol(_) | Dim::Unknown) => da.clone(),
            _ => db.clone(),
        });
    }
    node.set_tensor(0, elem, Some(out));
    Ok(())
}

/// Elementwise arithmetic on propagated integer values (shape computations).
fn arithmetic_data(node: &mut Node) {
    let op = node.proto.op_type.as_deref().unwrap_or("");
    let operands: Vec<Vec<Dim>> = match (0..node.inputs.len())
        .map(|i| node.values(i))
        .collect::<Option<Vec<_>>>()
    {
        Some(v) if !v.is_empty() && v.iter().any(|v| v.iter().any(|d| d.known().is_some())) => v,
        _ => return,
    };
    let len = operands.iter().map(|v| v.len()).max().unwrap_or(0);
    if operands.iter().any(|v| v.len() != len && v.len() != 1) {
        return;
    }
    let at = |v: &[Dim], i: usize| v[if v.len() == 1 { 0 } else { i }].clone();
    let mut out = Vec::with_capacity(len);
    for i in 0..len {
        let mut acc = at(&operands[0], i);
        for v in &operands[1..] {
            let b = at(v, i);
            acc = match (acc.known(), b.known()) {
                (Some(x), Some(y)) => match apply(op, x, y) {
                    Some(r) => Dim::Known(r),
                    None => return,
                },
                // `N * 1`, `N + 0`: the symbol stays.
                (None, Some(1)) if matches!(op, "Mul" | "Div") => acc,
                (None, Some(0)) if matches!(op, "Add" | "Sub") => acc,
                (Some(1), None) if op == "Mul" => b,
                (Some(0), None) if op == "Add" => b,
                _ => Dim::Unknown,
            };
        }
        out.push(acc);
    }
    node.set_data(0, out);
}

fn apply(op: &str, x: i64, y: i64) -> Option<i64> {
    match op {
        "Add" | "Sum" => x.checked_add(y),
        "Sub" => x.checked_sub(y),
        "Mul" => x.checked_mul(y),
        "Div" => (y != 0)
            .then(|| x.div_euclid(y))
            .filter(|_| x >= 0 && y > 0),
        "Max" => Some(x.max(y)),
        "Min" => Some(x.min(y)),
        _ => None,
    }
}

/// An error on no operand in particular.
pub fn general(message: impl Into<String>) -> Conflict {
    Conflict {
        input: None,
        message: message.into(),
    }
}

/// The size in bytes of an element type of at least one byte.
fn byte_width(elem: i32) -> Option<u32> {
    Some(match elem {
        2 | 3 | 9 | 17..=20 => 1,
        4 | 5 | 10 | 16 => 2,
        1 | 6 | 12 => 4,
        7 | 11 | 13 | 14 => 8,
        15 => 16,
        _ => return None,
    })
}

/// `BitCast`: the element type `to`; the shape stays when both types are as wide.
pub fn bit_cast(node: &mut Node) -> Rule {
    let to = node.int("to", 0) as i32;
    let widths = (node.elem(0).and_then(byte_width), byte_width(to));
    if let (Some(from), Some(into)) = widths
        && from != into
    {
        let message = format!(
            "the element types must be as wide: operand 0 has {from}-byte elements, `to` {into}-byte ones"
        );
        return Err(conflict(0, message));
    }
    let same_width = widths.0.is_some() && widths.0 == widths.1;
    let shape = if same_width { node.shape_of(0) } else { None };
    node.set_tensor(0, Some(to), shape);
    Ok(())
}
