//! Matrix products and linear algebra: `MatMul` and its integer and quantized forms, `Gemm`, `Det`,
//! `Einsum`.

use crate::node::{Node, Rule, conflict, dtype};
use crate::ty::{Dim, show_shape};

use super::elementwise::broadcast;

/// `MatMul` (and `MatMulInteger`, `QLinearMatMul` through [`matmul_of`]): numpy's matrix
/// product, batch dims broadcast.
pub fn matmul(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    matmul_of(node, 0, 1, elem)
}

/// `MatMulInteger`: int32 results.
pub fn matmul_integer(node: &mut Node) -> Rule {
    matmul_of(node, 0, 1, Some(dtype::INT32))
}

/// `QLinearMatMul`: operands 0 and 3, the result's zero point's element type.
pub fn qlinear_matmul(node: &mut Node) -> Rule {
    let elem = node.elem(7);
    matmul_of(node, 0, 3, elem)
}

fn matmul_of(node: &mut Node, a: usize, b: usize, elem: Option<i32>) -> Rule {
    let (Some(x), Some(y)) = (node.shape_of(a), node.shape_of(b)) else {
        node.set_tensor(0, elem, None);
        return Ok(());
    };
    if x.is_empty() || y.is_empty() {
        return Err(conflict(
            if x.is_empty() { a } else { b },
            "a scalar has no matrix product",
        ));
    }
    let (mut xs, mut ys) = (x.clone(), y.clone());
    if xs.len() == 1 {
        xs.insert(0, Dim::Known(1));
    }
    if ys.len() == 1 {
        ys.push(Dim::Known(1));
    }
    let (k1, k2) = (&xs[xs.len() - 1], &ys[ys.len() - 2]);
    if !k1.compatible(k2) {
        let message = format!(
            "inner dims differ: {} by {} ({k1} against {k2})",
            show_shape(&x),
            show_shape(&y)
        );
        return Err(conflict(b, message));
    }
    let batch =
        broadcast(&[&xs[..xs.len() - 2], &ys[..ys.len() - 2]]).map_err(|(_, m)| conflict(b, m))?;
    let mut out = batch;
    if x.len() > 1 {
        out.push(xs[xs.len() - 2].clone());
    }
    if y.len() > 1 {
        out.push(ys[ys.len() - 1].clone());
    }
    node.set_tensor(0, elem, Some(out));
    Ok(())
}

/// `Gemm`: `[M, K] x [K, N]`, each side transposed by `transA`/`transB`; the inner dims
/// must agree from opset 13.
pub fn gemm(node: &mut Node) -> Rule {
    let elem = node.elem(0);
    let (Some(a), Some(b)) = (node.shape_of(0), node.shape_of(1)) else {
        node.set_tensor(0, elem, Some(vec![Dim::Unknown, Dim::Unknown]));
        return Ok(());
    };
    if a.len() != 2 || b.len() != 2 {
        let (i, bad) = if a.len() != 2 { (0, &a) } else { (1, &b) };
        return Err(conflict(
            i,
            format!("Gemm takes matrices, not {}", show_shape(bad)),
        ));
    }
    // onnx reads the flags as 32-bit ints: `transA` 2^32 is 0, no transposition.
    let flag = |name| node.int(name, 0) as i32 != 0;
    let (ta, tb) = (flag("transA"), flag("transB"));
    let (m, ka) = if ta { (&a[1], &a[0]) } else { (&a[0], &a[1]) };
    let (kb, n) = if tb { (&b[1], &b[0]) } else { (&b[0], &b[1]) };
    // Before opset 13 onnx's inference does not compare them; the operator's definition does.
    if !ka.compatible(kb) {
        let message = format!(
            "inner dims differ: {} by {} ({ka} against {kb})",
            show_shape(&a),
            show_shape(&b)
        );
        return Err(conflict(1, message));
    }
    let out = vec![m.clone(), n.clone()];
    if let Some(c) = node.shape_of(2) {
        broadcast(&[&out, &c]).map_err(|(_, m)| conflict(2, m))?;
    }
    node.set_tensor(0, elem, Some(out));
    Ok(())
}

/// `Det`: the batch dims of square matrices `[..., M, M]`.
pub fn det(node: &mut Node) -> Rule {
    use crate::{node::conflict, ty::show_shape};
    let elem = node.elem(0);
    let shape = match node.dims(0) {
        Some(d) if d.len() < 2 => {
            let message = format!(
                "operand 0 must be a matrix or a stack of them, found {}",
                show_shape(d)
            );
            return Err(conflict(0, message));
        }
        Some(d) => {
            let (rows, columns) = (&d[d.len() - 2], &d[d.len() - 1]);
            if !rows.compatible(columns) {
                let message = format!(
                    "operand 0 must hold square matrices, found {}",
                    show_shape(d)
                );
                return Err(conflict(0, message));
            }
            Some(d[..d.len() - 2].to_vec())
        }
        None => None,
    };
    node.set_tensor(0, elem, shape);
    Ok(())
}

/// `Einsum`: each output letter's dim, from the operands' terms; `...` broadcasts.
pub fn einsum(node: &mut Node) -> Rule {
    // The result's element type is the first operand's.
    node.written([0])?;
    let elem = node.elem(0);
    let equation: String = node
        .string("equation")
        .map(|e| {
            String::from_utf8_lossy(e)
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect()
        })
        .unwrap_or_default();
    let (inputs, output) = match equation.split_once("->") {
        Some((i, o)) => (i.to_owned(), Some(o.to_owned())),
        None => (equation.clone(), None),
    };
    let terms: Vec<&str> = inputs.split(',').collect();
    // An empty equation is one whose string was left out, which onnx does not check.
    if equation.is_empty() {
        return Ok(());
    }
    if terms.len() != node.inputs.len() {
        return Err(super::elementwise::general(format!(
            "the equation has {} operand terms, the node {} operands",
            terms.len(),
            node.inputs.len()
        )));
    }
    let mut letters: Vec<(char, Dim)> = Vec::new();
    let mut counts: Vec<(char, usize)> = Vec::new();
    let mut ellipsis: Vec<Vec<Dim>> = Vec::new();
    for (i, term) in terms.iter().enumerate() {
        let Some(dims) = node.shape_of(i) else {
            return Ok(());
        };
        let named = term.replace("...", "").chars().count();
        let (before, after) = match term.split_once("...") {
            Some((b, a)) => (b, a),
            None => (*term, ""),
        };
        if named > dims.len() || (!term.contains("...") && named != dims.len()) {
            return Err(super::elementwise::general(format!(
                "the term `{term}` has {named} letters for an operand of rank {}",
                dims.len()
            )));
        }
        let broadcast = dims.len() - named;
        let lead = before.chars().count();
        ellipsis.push(dims[lead..lead + broadcast].to_vec());
        let named_dims = dims[..lead].iter().chain(&dims[lead + broadcast..]);
        for (c, d) in before.chars().chain(after.chars()).zip(named_dims) {
            match letters.iter_mut().find(|(l, _)| *l == c) {
                Some((_, known)) if known.known().is_none() || *known == Dim::Known(1) => {
                    *known = d.clone();
                }
                Some(_) => {}
                None => letters.push((c, d.clone())),
            }
            match counts.iter_mut().find(|(l, _)| *l == c) {
                Some((_, n)) => *n += 1,
                None => counts.push((c, 1)),
            }
        }
    }
    let shapes: Vec<&[Dim]> = ellipsis.iter().map(Vec::as_slice).collect();
    let Ok(broadcast) = super::elementwise::broadcast(&shapes) else {
        return Ok(());
    };
    let output = output.unwrap_or_else(|| {
        let mut once: Vec<char> = counts
            .iter()
            .filter(|(_, n)| *n == 1)
            .map(|(c, _)| *c)
            .collect();
        once.sort_unstable();
        let letters: String = once.into_iter().collect();
        if ellipsis.iter().any(|e| !e.is_empty()) {
            format!("...{letters}")
        } else {
            letters
        }
    });
    let mut out = Vec::new();
    let (before, after) = match output.split_once("...") {
        Some((b, a)) => (b.to_owned(), Some(a.to_owned())),
        None => (output.clone(), None),
    };
    let dim_of = |c: char| {
        letters
            .iter()
            .find(|(l, _)| *l == c)
            .map(|(_, d)| d.clone())
    };
    for c in before.chars() {
        out.push(dim_of(c).unwrap_or(Dim::Unknown));
    }
    if let Some(after) = after {
        out.extend(broadcast);
        for c in after.chars() {
            out.push(dim_of(c).unwrap_or(Dim::Unknown));
        }
    }
    node.set_tensor(0, elem, Some(out));
    Ok(())
}
