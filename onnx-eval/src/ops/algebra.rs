//! Einsum (any number of operands, repeated labels, ellipses, implicit outputs) and Det.

use super::elementwise::Real;
use super::layout::offset;
use super::{Ctx, Registry, one, tensor};
use crate::error::KernelResult;
use crate::halves::{bf16, f16};
use crate::tensor::{Data, MapEach, Tensor, array, map_slice, row_major};
use crate::value::Val;
use ndarray::ArrayD;

pub(super) fn register(r: &mut Registry) {
    r.add("", "Einsum", 12, einsum);
    r.add("", "Det", 11, det);
}

/// A label of an einsum term: a letter, or one of the dims an ellipsis stands for (numbered
/// from the right, so that ellipses of different ranks align as broadcasting does).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Label {
    /// The ellipsis' dims come first in an implicit output.
    Ellipsis(std::cmp::Reverse<usize>),
    Letter(u8),
}

/// A term's labels, its ellipsis expanded to `rank` dims in all (`None`: the output's
/// ellipsis, expanded to `ellipsis_rank`).
fn term_labels(term: &str, rank: Option<usize>, ellipsis_rank: usize) -> KernelResult<Vec<Label>> {
    let (before, after) = match term.split_once("...") {
        Some((before, after)) => (before, Some(after)),
        None => (term, None),
    };
    let letters = |part: &str| -> KernelResult<Vec<Label>> {
        part.bytes()
            .map(|b| {
                if b.is_ascii_alphabetic() {
                    Ok(Label::Letter(b))
                } else {
                    Err(format!("the term {term:?} holds {:?}", b as char))
                }
            })
            .collect()
    };
    let mut labels = letters(before)?;
    if let Some(after) = after {
        let tail = letters(after)?;
        let dots = match rank {
            Some(rank) => rank
                .checked_sub(labels.len() + tail.len())
                .ok_or_else(|| format!("the term {term:?} has more labels than rank {rank}"))?,
            None => ellipsis_rank,
        };
        labels.extend(
            (0..dots)
                .rev()
                .map(|i| Label::Ellipsis(std::cmp::Reverse(i))),
        );
        labels.extend(tail);
    }
    if let Some(rank) = rank
        && labels.len() != rank
    {
        return Err(format!(
            "the term {term:?} has {} labels for rank {rank}",
            labels.len()
        ));
    }
    Ok(labels)
}

/// An einsum's plan: each operand's labels, the output's labels, and every label's dim.
struct Plan {
    operands: Vec<Vec<Label>>,
    output: Vec<Label>,
    dims: Vec<(Label, usize)>,
}

impl Plan {
    fn dim(&self, label: Label) -> usize {
        self.dims
            .iter()
            .find(|(l, _)| *l == label)
            .map_or(1, |(_, d)| *d)
    }
}

fn plan(equation: &str, shapes: &[&[usize]]) -> KernelResult<Plan> {
    let equation: String = equation.chars().filter(|c| *c != ' ').collect();
    let (left, right) = match equation.split_once("->") {
        Some((left, right)) => (left, Some(right)),
        None => (equation.as_str(), None),
    };
    let terms: Vec<&str> = left.split(',').collect();
    if terms.len() != shapes.len() {
        return Err(format!(
            "the equation has {} terms for {} operands",
            terms.len(),
            shapes.len()
        ));
    }
    let operands = terms
        .iter()
        .zip(shapes)
        .map(|(term, shape)| term_labels(term, Some(shape.len()), 0))
        .collect::<KernelResult<Vec<_>>>()?;
    // Each label's dim: equal wherever it appears, or 1 (which broadcasts).
    let mut dims: Vec<(Label, usize)> = Vec::new();
    for (labels, shape) in operands.iter().zip(shapes) {
        for (&label, &d) in labels.iter().zip(shape.iter()) {
            match dims.iter_mut().find(|(l, _)| *l == label) {
                Some((_, known)) if *known == d || d == 1 => {}
                Some((_, known)) if *known == 1 => *known = d,
                Some((_, known)) => {
                    return Err(format!("a label has dims {known} and {d}"));
                }
                None => dims.push((label, d)),
            }
        }
    }
    let ellipsis_rank = dims
        .iter()
        .filter(|(l, _)| matches!(l, Label::Ellipsis(_)))
        .count();
    let output = match right {
        Some(right) => {
            let output = term_labels(right, None, ellipsis_rank)?;
            for (i, label) in output.iter().enumerate() {
                if output[..i].contains(label) {
                    return Err(format!("the output {right:?} repeats a label"));
                }
                if !dims.iter().any(|(l, _)| l == label) {
                    return Err(format!("the output {right:?} has a label no operand has"));
                }
            }
            output
        }
        None => {
            // The ellipsis' dims, then the letters that appear once, in ASCII order.
            let mut output: Vec<Label> = dims
                .iter()
                .map(|(l, _)| *l)
                .filter(|l| {
                    matches!(l, Label::Ellipsis(_))
                        || operands.iter().flatten().filter(|m| *m == l).count() == 1
                })
                .collect();
            output.sort();
            output
        }
    };
    Ok(Plan {
        operands,
        output,
        dims,
    })
}

/// What `einsum_arrays` needs of the shapes alone, apart so that it is compiled once.
struct Layout {
    out_shape: Vec<usize>,
    /// Every label's size, the output's first.
    sizes: Vec<usize>,
    /// For each operand, the stride of each label's index.
    strides: Vec<Vec<usize>>,
    /// The count of the whole index space.
    total: usize,
}

fn einsum_layout(ctx: &Ctx<'_>, plan: &Plan, shapes: &[&[usize]]) -> KernelResult<Layout> {
    let out_shape: Vec<usize> = plan.output.iter().map(|&l| plan.dim(l)).collect();
    ctx.checked_count(&out_shape)?;
    // Every label, the output's first: one index each, counted like an odometer.
    let mut labels = plan.output.clone();
    labels.extend(
        plan.dims
            .iter()
            .map(|(l, _)| *l)
            .filter(|l| !plan.output.contains(l)),
    );
    let sizes: Vec<usize> = labels.iter().map(|&l| plan.dim(l)).collect();
    // The work is the whole index space: bound it like a tensor of that many elements.
    let total = ctx.checked_count(&sizes)?;
    // For each operand, the stride of each label's index (0 where its dim is 1 or absent).
    let strides: Vec<Vec<usize>> = plan
        .operands
        .iter()
        .zip(shapes)
        .map(|(operand, &own)| {
            let mut element_strides = vec![0; own.len()];
            let mut stride = 1;
            for i in (0..own.len()).rev() {
                element_strides[i] = stride;
                stride *= own[i];
            }
            labels
                .iter()
                .map(|label| {
                    operand
                        .iter()
                        .enumerate()
                        .filter(|(i, l)| *l == label && own[*i] != 1)
                        .map(|(i, _)| element_strides[i])
                        .sum()
                })
                .collect()
        })
        .collect();
    Ok(Layout {
        out_shape,
        sizes,
        strides,
        total,
    })
}

/// Sums the products of the operands' elements over every label not in the output.
fn einsum_arrays<T: Real>(
    ctx: &Ctx<'_>,
    plan: &Plan,
    arrays: &[ArrayD<T>],
) -> KernelResult<ArrayD<T>> {
    let mut shapes = Vec::with_capacity(arrays.len());
    let mut values = Vec::with_capacity(arrays.len());
    for a in arrays {
        shapes.push(a.shape());
        values.push(row_major(a));
    }
    let Layout {
        out_shape,
        sizes,
        strides,
        total,
    } = einsum_layout(ctx, plan, &shapes)?;
    let out_count: usize = out_shape.iter().product();
    let mut out = vec![T::default(); out_count];
    if total > 0 {
        let inner: usize = sizes[plan.output.len()..].iter().product();
        let mut index = vec![0usize; sizes.len()];
        for step in 0..total {
            let mut product = T::from_f64(1.0);
            for (operand, strides) in values.iter().zip(&strides) {
                product = product.mul(operand[offset(&index, strides)]);
            }
            let slot = step / inner;
            out[slot] = out[slot].add(product);
            // The next index, the last label fastest.
            for k in (0..index.len()).rev() {
                index[k] += 1;
                if index[k] < sizes[k] {
                    break;
                }
                index[k] = 0;
            }
        }
    }
    array(&out_shape, out)
}

/// Einsum. float16 and bfloat16 accumulate in f32 and round once.
fn einsum(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let equation = ctx
        .string("equation")
        .ok_or("attribute `equation` is required")?;
    let operands = (0..inputs.len())
        .map(|i| tensor(inputs, i))
        .collect::<KernelResult<Vec<&Tensor>>>()?;
    let first = operands
        .first()
        .ok_or("Einsum takes at least one operand")?;
    if let Some(other) = operands.iter().find(|t| t.dtype != first.dtype) {
        return Err(format!(
            "operands of different element types: {} and {}",
            first.type_name(),
            other.type_name()
        ));
    }
    let shapes: Vec<&[usize]> = operands.iter().map(|t| t.shape()).collect();
    let plan = plan(&equation, &shapes)?;
    // Each operand's array of the first's variant, converted by `$convert` (one element type,
    // checked above).
    macro_rules! arrays_of {
        ($variant:ident, $a:ident => $convert:expr) => {{
            let mut arrays = Vec::with_capacity(operands.len());
            for t in &operands {
                match &t.data {
                    Data::$variant($a) => arrays.push($convert),
                    _ => unreachable!("one element type, checked above"),
                }
            }
            arrays
        }};
    }
    macro_rules! direct {
        ($variant:ident) => {{
            let arrays = arrays_of!($variant, a => a.clone());
            Data::$variant(einsum_arrays(ctx, &plan, &arrays)?)
        }};
    }
    let data = match &first.data {
        Data::F32(_) => direct!(F32),
        Data::F64(_) => direct!(F64),
        Data::I8(_) => direct!(I8),
        Data::I16(_) => direct!(I16),
        Data::I32(_) => direct!(I32),
        Data::I64(_) => direct!(I64),
        Data::U8(_) => direct!(U8),
        Data::U16(_) => direct!(U16),
        Data::U32(_) => direct!(U32),
        Data::U64(_) => direct!(U64),
        Data::F16(_) => {
            let arrays = arrays_of!(F16, a => a.map_each(&f16::to_f32));
            Data::F16(einsum_arrays(ctx, &plan, &arrays)?.map_each(&f16::from_f32))
        }
        Data::BF16(_) => {
            let arrays = arrays_of!(BF16, a => a.map_each(&bf16::to_f32));
            Data::BF16(einsum_arrays(ctx, &plan, &arrays)?.map_each(&bf16::from_f32))
        }
        _ => return Err(format!("Einsum of {}", first.type_name())),
    };
    one(first.with_data(data))
}

/// The determinant of a square matrix (row-major, n × n), by Gaussian elimination with partial
/// pivoting in f64.
fn determinant(mut m: Vec<f64>, n: usize) -> f64 {
    let mut det = 1.0;
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&a, &b| m[a * n + col].abs().total_cmp(&m[b * n + col].abs()))
            .unwrap_or(col);
        if m[pivot * n + col] == 0.0 {
            return 0.0;
        }
        if pivot != col {
            for k in 0..n {
                m.swap(pivot * n + k, col * n + k);
            }
            det = -det;
        }
        let p = m[col * n + col];
        det *= p;
        for row in col + 1..n {
            let factor = m[row * n + col] / p;
            for k in col..n {
                m[row * n + k] -= factor * m[col * n + k];
            }
        }
    }
    det
}

/// Det: the determinants of the [*, M, M] input's matrices, of shape [*].
fn det(_: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let x = tensor(inputs, 0)?;
    let shape = x.shape();
    let [batch @ .., rows, cols] = shape else {
        return Err(format!(
            "Det of a tensor of rank {}, not 2 or more",
            shape.len()
        ));
    };
    if rows != cols {
        return Err(format!("Det of {rows} × {cols} matrices, not square"));
    }
    let n = *rows;
    fn of<T: Real>(a: &ArrayD<T>, batch: &[usize], n: usize) -> KernelResult<ArrayD<T>> {
        let values = map_slice(&row_major(a), &|v: T| v.to_f64());
        let mut dets = Vec::new();
        if n == 0 {
            dets.resize(batch.iter().product(), T::from_f64(1.0));
        } else {
            for m in values.chunks(n * n) {
                dets.push(T::from_f64(determinant(m.to_vec(), n)));
            }
        }
        array(batch, dets)
    }
    let data = match &x.data {
        Data::F32(a) => Data::F32(of(a, batch, n)?),
        Data::F64(a) => Data::F64(of(a, batch, n)?),
        Data::F16(a) => Data::F16(of(a, batch, n)?),
        Data::BF16(a) => Data::BF16(of(a, batch, n)?),
        _ => return Err(format!("Det of {}", x.type_name())),
    };
    one(x.with_data(data))
}

#[cfg(test)]
mod tests {
    use super::super::math::testing::*;

    /// Einsum by hand: a matrix product, a trace (repeated label), an implicit output, and an
    /// ellipsis that broadcasts.
    #[test]
    fn einsum_products_traces_and_ellipses() {
        let text = |equation: &str, a: &str, b: &str, y: &str| {
            format!(
                r#"<ir_version: 7, opset_import: ["" : 12]>
                g ({a} a, {b} b) => ({y} y) {{ y = Einsum <equation: string = "{equation}"> (a, b) }}"#
            )
        };
        let a = floats(&[1.0, 2.0, 3.0, 4.0], &[2, 2]);
        let b = floats(&[5.0, 6.0, 7.0, 8.0], &[2, 2]);
        let matmul = text("ij,jk->ik", "float[2,2]", "float[2,2]", "float[2,2]");
        assert_eq!(
            run_f32(&matmul, &[a.clone(), b.clone()]),
            Ok(vec![19.0, 22.0, 43.0, 50.0])
        );
        // Implicit: "ij,jk" gives "ik" too.
        let implicit = text("ij,jk", "float[2,2]", "float[2,2]", "float[2,2]");
        assert_eq!(
            run_f32(&implicit, &[a.clone(), b.clone()]),
            Ok(vec![19.0, 22.0, 43.0, 50.0])
        );
        // Trace of a times the sum of b: (1 + 4) * 26.
        let trace = text("ii,jk->", "float[2,2]", "float[2,2]", "float");
        assert_eq!(run_f32(&trace, &[a.clone(), b]), Ok(vec![130.0]));
        // An ellipsis of one dim against none: a row scaled by each of c.
        let c = floats(&[10.0, 100.0], &[2]);
        let ellipsis = text("...j,j->...", "float[2,2]", "float[2]", "float[2]");
        assert_eq!(run_f32(&ellipsis, &[a, c]), Ok(vec![210.0, 430.0]));
    }

    /// Det by hand, batched: det [[1, 2], [3, 4]] = -2, det [[2, 0], [0, 3]] = 6.
    #[test]
    fn det_of_a_batch() {
        let text = r#"<ir_version: 7, opset_import: ["" : 11]>
            g (float[2, 2, 2] x) => (float[2] y) { y = Det (x) }"#;
        let x = floats(&[1.0, 2.0, 3.0, 4.0, 2.0, 0.0, 0.0, 3.0], &[2, 2, 2]);
        let out = run_f32(text, &[x]).unwrap();
        assert!(
            (out[0] + 2.0).abs() < 1e-6 && (out[1] - 6.0).abs() < 1e-6,
            "{out:?}"
        );
    }
}
