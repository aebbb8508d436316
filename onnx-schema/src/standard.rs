//! The static function bodies of the standard operators (onnx 1.23.2), generated from the
//! wheel by `scripts/gen_standard_functions.py` into `standard_data.rs`, and parsed on first use.

use std::sync::LazyLock;

use onnx_runtime_types::FunctionProto;

use super::standard_data::{BODIES, OPERATORS};
use crate::since_version;

/// The standard operators that have static function bodies, which
/// `onnx_check::library::Inliner::expand` accepts. Context-dependent bodies (`Gelu`, `LayerNormalization`, `Softmax`, …) are built by
/// onnx per call, from the input types, and are not here.
///
/// ```
/// use onnx_schema::STANDARD_FUNCTION_OPERATORS;
/// assert_eq!(STANDARD_FUNCTION_OPERATORS.len(), 28);
/// assert!(STANDARD_FUNCTION_OPERATORS.contains(&"HardSwish"));
/// ```
pub const STANDARD_FUNCTION_OPERATORS: [&str; 28] = OPERATORS;

/// The bodies of [`BODIES`], parsed.
static PARSED: LazyLock<Vec<FunctionProto>> = LazyLock::new(|| {
    BODIES
        .iter()
        .map(|(name, since, opset, text)| {
            onnx_syntax::parse_function(text).unwrap_or_else(|e| {
                unreachable!(
                    "the standard body of {name} ({since}, opset {opset}) does not parse: {e}"
                )
            })
        })
        .collect()
});

/// The function body of the standard operator `operator` for a model importing the default
/// domain at version `opset`: the schema in force at `opset` (the newest `since_version` at
/// or below it), and of its bodies the newest at or below `opset`. `None` if the operator has
/// no static body there. The body's attribute defaults are the schema's.
///
/// ```
/// use onnx_schema::standard_function;
/// let relu = standard_function("Relu", 21).unwrap();
/// assert_eq!(relu.opset_import[0].version, Some(18));
/// assert!(standard_function("Relu", 13).is_none()); // Relu-13 has no body
/// let leaky = standard_function("LeakyRelu", 21).unwrap();
/// assert_eq!(leaky.attribute_proto[0].f, Some(0.01)); // the schema's default
/// ```
pub fn standard_function(operator: &str, opset: i64) -> Option<&'static FunctionProto> {
    // The schema in force comes from the schema table, the one home of since-versions.
    let in_force = since_version("", operator, opset)?;
    BODIES
        .iter()
        .zip(PARSED.iter())
        .filter(|((name, since, body_opset, _), _)| {
            *name == operator && *since == in_force && *body_opset <= opset
        })
        .max_by_key(|((.., body_opset, _), _)| *body_opset)
        .map(|(_, body)| body)
}

/// Every standard function body as the generator wrote it: operator, the schema's
/// `since_version`, the body's opset and its text. For the checks' test that every body passes
/// them (`onnx-check`, a layer above).
#[doc(hidden)]
pub fn standard_function_texts() -> &'static [(&'static str, i64, i64, &'static str)] {
    BODIES
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_body_as_generated_parses() {
        // Reading `PARSED` parses every body, and a body that does not parse panics there,
        // naming it; the checks of the bodies are onnx-check's test (a layer above).
        assert_eq!(PARSED.len(), BODIES.len());
        assert!(BODIES.len() >= STANDARD_FUNCTION_OPERATORS.len());
    }
}
