//! onnx's node test suite (onnx 1.23.2's cases) through tract-onnx: `cargo test --manifest-path
//! examples/conformance-tract/Cargo.toml`. Each case's model is loaded from its bytes, the
//! inputs the kit hints at (`Case::constant_inputs`) become constants of the model, as tract's
//! own suite does for such operands, and the others are fed. `TRACT_CONSTANT_INPUTS=0` feeds
//! every input instead. The older releases run in the `releases` package beside this one.

mod tract;

fn main() {
    onnx_conformance::harness(|case, inputs| tract::run(case, inputs).map_err(|e| format!("{e:#}")))
}
