//! Gradient (ai.onnx.preview.training): the derivatives of the tensor `y` with respect to the
//! tensors `xs`, through the nodes of the enclosing graph that compute `y` from `xs` and `zs`.
//! The node's inputs are the values of `xs` then `zs`; the nodes between them and `y` run again
//! on those values, then their derivatives run backwards from a seed of ones (so a `y` of many
//! elements gives the derivatives of their sum). The derivative of each operator is written
//! here; an operator without one is an error naming it.

use super::elementwise::broadcast_shape;
use super::training::floats_like;
use super::{Ctx, Registry};
use crate::error::KernelResult;
use crate::graph::{Scope, Step};
use crate::tensor::MapEach;
use crate::tensor::Tensor;
use crate::value::Val;
use ndarray::{ArrayD, Axis, IxDyn};
use std::collections::{HashMap, HashSet};

pub(super) fn register(r: &mut Registry) {
    r.add("ai.onnx.preview.training", "Gradient", 1, gradient);
}

fn gradient(ctx: &Ctx<'_>, inputs: &[Option<&Val>]) -> KernelResult<Vec<Val>> {
    let xs = ctx
        .strings("xs")
        .ok_or("Gradient needs the attribute `xs`")?;
    let zs = ctx.strings("zs").unwrap_or_default();
    let y = ctx.string("y").ok_or("Gradient needs the attribute `y`")?;
    if inputs.len() != xs.len() + zs.len() {
        return Err(format!(
            "Gradient takes the {} tensors of `xs` and `zs` as inputs, got {}",
            xs.len() + zs.len(),
            inputs.len()
        ));
    }
    let mut values = HashMap::new();
    for (name, value) in xs.iter().chain(&zs).zip(inputs) {
        let value = value.ok_or_else(|| format!("no value for `{name}`"))?;
        values.insert(name.clone(), value.clone());
    }
    let steps = ctx.steps;
    let needed = steps_between(steps, &values, &y)?;
    // The forward values, again: the graph may have dropped them after their last use.
    let mut scope = Scope::child(ctx.scope, values);
    for &index in &needed {
        let step = &steps[index];
        let outputs = step
            .run(&scope, ctx.model, &step.node.attribute, steps)
            .map_err(|e| e.to_string())?;
        for (name, value) in step.node.output.iter().zip(outputs) {
            if !name.is_empty() {
                scope.insert(name.clone(), value);
            }
        }
    }
    let array = |name: &str| -> KernelResult<ArrayD<f64>> {
        let tensor = scope
            .get(name)
            .ok_or_else(|| format!("`{name}` has no value"))?
            .as_tensor()?;
        ArrayD::from_shape_vec(IxDyn(tensor.shape()), tensor.to_f64_vec()?)
            .map_err(|e| e.to_string())
    };
    let mut grads: HashMap<String, ArrayD<f64>> = HashMap::new();
    grads.insert(y.clone(), array(&y)?.map_each(&|_| 1.0));
    for &index in needed.iter().rev() {
        let node = &steps[index].node;
        let Some(g) = node.output.first().and_then(|o| grads.remove(o)) else {
            continue;
        };
        let operand = |i: usize| -> KernelResult<(&str, ArrayD<f64>)> {
            let name = node.input.get(i).map(String::as_str).unwrap_or_default();
            Ok((name, array(name)?))
        };
        let parts: Vec<(&str, ArrayD<f64>)> = match node.op_type() {
            "Identity" => vec![(operand(0)?.0, g)],
            "Neg" => vec![(operand(0)?.0, -g)],
            "Add" | "Sub" | "Mul" | "Div" => {
                let ((a, av), (b, bv)) = (operand(0)?, operand(1)?);
                // Only numpy broadcasting is derived here (not the `axis` of versions before 7).
                if broadcast_shape(av.shape(), bv.shape()).ok().as_deref() != Some(g.shape()) {
                    return Err(format!(
                        "{}: no derivative of {} for operands of shapes {:?} and {:?}",
                        steps[index].place,
                        node.op_type(),
                        av.shape(),
                        bv.shape()
                    ));
                }
                let (ga, gb) = match node.op_type() {
                    "Add" => (g.clone(), g),
                    "Sub" => (g.clone(), -g),
                    "Mul" => (&g * &bv, &g * &av),
                    _ => (&g / &bv, -(&g * &av) / (&bv * &bv)),
                };
                vec![
                    (a, reduce_to(ga, av.shape())?),
                    (b, reduce_to(gb, bv.shape())?),
                ]
            }
            other => {
                return Err(format!(
                    "{}: no derivative of {other} on the path from `xs` to `{y}`",
                    steps[index].place
                ));
            }
        };
        for (name, part) in parts {
            match grads.get_mut(name) {
                Some(sum) => *sum += &part,
                None => {
                    grads.insert(name.to_string(), part);
                }
            }
        }
    }
    xs.iter()
        .map(|x| {
            let like: &Tensor = scope
                .get(x)
                .ok_or_else(|| format!("`{x}` has no value"))?
                .as_tensor()?;
            let values = match grads.remove(x) {
                Some(g) => g.iter().copied().collect(),
                // `y` does not depend on it.
                None => vec![0.0; like.len()],
            };
            Ok(Val::Tensor(floats_like(like, values)?))
        })
        .collect()
}

/// The indices of the steps that compute `y` from the names given, in the graph's order (which
/// is topological); an error where `y` has no producer and is none of them.
fn steps_between(
    steps: &[Step],
    given: &HashMap<String, Val>,
    y: &str,
) -> KernelResult<Vec<usize>> {
    let producer: HashMap<&str, usize> = steps
        .iter()
        .enumerate()
        .flat_map(|(i, s)| s.node.output.iter().map(move |o| (o.as_str(), i)))
        .collect();
    if !given.contains_key(y) && !producer.contains_key(y) {
        return Err(format!("no node of the graph computes `{y}`"));
    }
    let mut needed = HashSet::new();
    let mut stack = vec![y];
    while let Some(name) = stack.pop() {
        if given.contains_key(name) {
            continue;
        }
        // Otherwise a name without a producer is an initializer or an outer value: a constant.
        if let Some(&index) = producer.get(name)
            && needed.insert(index)
        {
            // Running a Gradient again from here could recurse without end, and it has no
            // derivative anyway.
            if steps[index].node.op_type() == "Gradient" {
                return Err(format!(
                    "{}: no derivative of Gradient on the path to `{y}`",
                    steps[index].place
                ));
            }
            stack.extend(steps[index].node.input.iter().map(String::as_str));
        }
    }
    let mut needed: Vec<usize> = needed.into_iter().collect();
    needed.sort_unstable();
    Ok(needed)
}

/// The derivative with respect to an operand of shape `shape` that broadcast to `g`'s: summed
/// over the axes that broadcasting added or stretched.
fn reduce_to(mut g: ArrayD<f64>, shape: &[usize]) -> KernelResult<ArrayD<f64>> {
    while g.ndim() > shape.len() {
        g = g.sum_axis(Axis(0));
    }
    for (axis, &n) in shape.iter().enumerate() {
        if n == 1 && g.shape()[axis] != 1 {
            g = g.sum_axis(Axis(axis)).insert_axis(Axis(axis));
        }
    }
    if g.shape() != shape {
        return Err(format!(
            "a derivative of shape {:?} for an operand of shape {shape:?}",
            g.shape()
        ));
    }
    Ok(g)
}

#[cfg(test)]
mod tests {
    //! Expected values by hand, from the derivatives of the graphs.
    use super::super::test_support::{floats, run};

    const HEADER: &str =
        r#"<ir_version: 7, opset_import: ["" : 12, "ai.onnx.preview.training" : 1]>"#;

    /// d = (a + b) * a: dd/da = 2a + b = 4 and dd/db = a = 1 at a = 1, b = 2 (onnx's
    /// test_gradient_of_add_and_mul); e = d - b / a adds de/da = 4 + b / a² = 6 and
    /// de/db = 1 - 1 / a = 0.
    #[test]
    fn gradient_runs_the_graph_backwards() {
        let text = format!(
            "{HEADER}
            g (float a, float b) => (float d, float dd_da, float dd_db, float de_da, float de_db) {{
                c = Add (a, b)
                d = Mul (c, a)
                q = Div (b, a)
                e = Sub (d, q)
                dd_da, dd_db = ai.onnx.preview.training.Gradient <xs = [\"a\", \"b\"], y = \"d\"> (a, b)
                de_da, de_db = ai.onnx.preview.training.Gradient <xs = [\"a\", \"b\"], y = \"e\"> (a, b)
            }}"
        );
        let out = run(&text, &[floats(&[1.0], &[]), floats(&[2.0], &[])]).unwrap();
        let got: Vec<f32> = out.iter().map(|v| v.to_vec::<f32>().unwrap()[0]).collect();
        assert_eq!(got, [3.0, 4.0, 1.0, 6.0, 0.0]);
    }

    /// A broadcast operand's derivative sums over the axes it was stretched along: y = x * w
    /// with x [2, 2] and w [2] gives dy/dw = the column sums of x; `zs` are inputs held fixed,
    /// and an operator without a derivative is an error naming its node.
    #[test]
    fn gradient_sums_over_broadcast_axes_and_names_what_it_cannot_derive() {
        let text = format!(
            "{HEADER}
            g (float[2, 2] x, float[2] w) => (float[2] dw) {{
                n = Neg (x)
                y = Mul (n, w)
                dw = ai.onnx.preview.training.Gradient <xs = [\"w\"], zs = [\"x\"], y = \"y\"> (w, x)
            }}"
        );
        let x = floats(&[1.0, 2.0, 3.0, 4.0], &[2, 2]);
        let out = run(&text, &[x.clone(), floats(&[5.0, 6.0], &[2])]).unwrap();
        assert_eq!(out[0].to_vec::<f32>().unwrap(), [-4.0, -6.0]);

        let text = format!(
            "{HEADER}
            g (float[2] x) => (float[2] dx) {{
                y = Relu (x)
                dx = ai.onnx.preview.training.Gradient <xs = [\"x\"], y = \"y\"> (x)
            }}"
        );
        let error = run(&text, &[floats(&[1.0, -1.0], &[2])]).unwrap_err();
        assert!(
            error.to_string().contains(
                "node 0 (Relu, outputs `y`): no derivative of Relu on the path from `xs` to `y`"
            ),
            "{error}"
        );

        // A Gradient on its own path would run itself again: an error, not a stack overflow.
        let text = format!(
            "{HEADER}
            g (float[2] x) => (float[2] h) {{
                d = ai.onnx.preview.training.Gradient <xs = [\"x\"], y = \"h\"> (x)
                h = Add (d, x)
            }}"
        );
        let error = run(&text, &[floats(&[1.0, -1.0], &[2])]).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("no derivative of Gradient on the path to `h`"),
            "{error}"
        );
        // Version 6's broadcasting along `axis` is not derived.
        let text = r#"<ir_version: 3, opset_import: ["" : 6, "ai.onnx.preview.training" : 1]>
            g (float[2, 3] x, float[2] w) => (float[2] dw) {
                y = Mul <broadcast: int = 1, axis: int = 0> (x, w)
                dw = ai.onnx.preview.training.Gradient <xs = ["w"], zs = ["x"], y = "y"> (w, x)
            }"#;
        let x = floats(&[1.0; 6], &[2, 3]);
        let error = run(text, &[x, floats(&[1.0, 2.0], &[2])]).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("no derivative of Mul for operands of shapes [2, 3] and [2]"),
            "{error}"
        );
    }
}
