//! tract cannot run a model that calls a model-local function; after `onnx_text::inline` it
//! can. Run with `cargo run --manifest-path tract-example/Cargo.toml`.
//!
//! tract looks operators up by `op_type` alone, so `y = local.Sq (t)` is an unimplemented `Sq`
//! to it. Inlining replaces the call by the function's body (`Mul`), and the library function
//! `my.Scale`, with its attribute default, by a `Constant` and a `Mul`.

use std::sync::LazyLock;

use onnx_text::prost::Message;
use onnx_text::{FunctionLibrary, ModelProto, onnx, onnx_functions};
use tract_onnx::prelude::*;

/// A function library as an opset crate would define it.
static MY_OPS: LazyLock<FunctionLibrary> = LazyLock::new(|| {
    FunctionLibrary::from_functions(onnx_functions! {
        <domain: "my", opset_import: ["" : 18]>
        Scale <alpha: float = 0.5> (x) => (y) {
            a = Constant <value_float: float = @alpha> ()
            y = Mul (x, a)
        }
    })
    .expect("no two functions share a key")
});

fn model() -> ModelProto {
    onnx! {
        <ir_version: 8, opset_import: ["" : 18, "local" : 1, "my" : 1]>
        g (float[4] x) => (float[4] y) {
            s = my.Scale (x)
            t = Add (s, s)
            y = local.Sq (t)
        }
        <domain: "local", opset_import: ["" : 18]>
        Sq (a) => (b) { b = Mul (a, a) }
    }
}

/// Loads `model` into tract and runs it on `input`.
fn run(model: &ModelProto, input: &[f32]) -> TractResult<Vec<f32>> {
    let bytes = model.encode_to_vec();
    let plan = tract_onnx::onnx()
        .model_for_read(&mut bytes.as_slice())?
        .into_optimized()?
        .into_runnable()?;
    let input = tract_ndarray::Array1::from(input.to_vec()).into_tensor();
    let outputs = plan.run(tvec!(input.into()))?;
    Ok(outputs[0].to_array_view::<f32>()?.iter().copied().collect())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let input = [1.0, -2.0, 3.0, 0.5];
    let mut model = model();

    let err = run(&model, &input).expect_err("tract runs no model-local functions");
    println!("before inlining, tract fails: {err:#}");
    assert!(format!("{err:#}").contains("Unimplemented(Scale)"));

    let report = onnx_text::inline(&mut model, &[&MY_OPS])?;
    print!("{report}");
    println!(
        "{}",
        onnx_text::to_text(model.graph.as_ref().expect("a graph"))
    );

    let output = run(&model, &input)?;
    // y = (2 * 0.5 x)^2 = x^2
    let expected: Vec<f32> = input.iter().map(|x| x * x).collect();
    println!("after inlining, tract computes {output:?}");
    assert_eq!(output, expected);
    Ok(())
}
