//! The evaluator never panics, whatever it is fed: every kit model, run on its own inputs and on
//! inputs bent out of shape (an element type swapped, dims changed, values that are indices gone
//! out of range), answers with outputs or an error, never a panic.

use onnx_conformance::cases;
use onnx_eval::{Evaluator, Limits, Value};
use onnx_value::elements::{Elements, decode, encode};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Small limits, so that inputs that ask for much are refused quickly.
const LIMITS: Limits = Limits {
    max_elements: 1 << 22,
    max_loop_iterations: 1 << 12,
};

/// Ways to bend a tensor input.
fn bent(value: &Value, how: usize) -> Option<Value> {
    let Value::Tensor(tensor) = value else {
        return None;
    };
    let elements = decode(tensor).ok()?;
    let data_type =
        onnx_text::tensor_proto::DataType::try_from(tensor.data_type.unwrap_or(0)).ok()?;
    let (dims, elements) = match (how, elements) {
        // The same elements, flattened to one dim.
        (0, e) => (vec![e.len() as i64], e),
        // One element more on the last axis (or a scalar made a vector of two).
        (1, e) => {
            let mut dims = tensor.dims.clone();
            match dims.last_mut() {
                Some(last) => *last += 1,
                None => dims.push(2),
            }
            let count = dims.iter().product::<i64>() as usize;
            (dims, grow(e, count))
        }
        // Integers far out of any range: indices, axes, counts.
        (2, Elements::Int(v)) => (
            tensor.dims.clone(),
            Elements::Int(v.iter().map(|_| 1 << 40).collect()),
        ),
        (3, Elements::Int(v)) => (
            tensor.dims.clone(),
            Elements::Int(v.iter().map(|_| -(1 << 40)).collect()),
        ),
        // No elements at all.
        (4, e) => (vec![0], grow(e, 0)),
        _ => return None,
    };
    encode(data_type, &dims, &elements, true)
        .ok()
        .map(Value::Tensor)
}

/// The elements cycled or cut to `count`.
fn grow(elements: Elements, count: usize) -> Elements {
    fn cycle<T: Clone + Default>(v: Vec<T>, count: usize) -> Vec<T> {
        if v.is_empty() {
            return vec![T::default(); count];
        }
        v.iter().cycle().take(count).cloned().collect()
    }
    match elements {
        Elements::Float(v) => Elements::Float(cycle(v, count)),
        Elements::Complex(v) => Elements::Complex(cycle(v, count)),
        Elements::Int(v) => Elements::Int(cycle(v, count)),
        Elements::Bool(v) => Elements::Bool(cycle(v, count)),
        Elements::String(v) => Elements::String(cycle(v, count)),
    }
}

#[test]
fn no_kit_model_panics_on_its_inputs_or_on_bent_ones() {
    let mut panics = Vec::new();
    for case in cases() {
        let model = case.model();
        let Ok(evaluator) = Evaluator::with_limits(&model, LIMITS) else {
            continue;
        };
        let inputs = case.inputs();
        let mut trials = vec![("its inputs".to_string(), inputs.clone())];
        for (i, input) in inputs.iter().enumerate() {
            for how in 0..5 {
                if let Some(input) = bent(input, how) {
                    let mut changed = inputs.clone();
                    changed[i] = input;
                    trials.push((format!("input {i} bent {how}"), changed));
                }
            }
        }
        for (what, inputs) in trials {
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                let _ = evaluator.run(&inputs).map_err(|e| e.to_string());
            }));
            if let Err(panic) = outcome {
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                panics.push(format!("{} ({what}): {message}", case.name()));
            }
        }
    }
    assert!(
        panics.is_empty(),
        "{} runs panicked:\n{}",
        panics.len(),
        panics.join("\n")
    );
}
