//! The stated refusals: version steps whose meaning changed without the signature showing it,
//! and which no adapter handles yet. A step listed here is never derived "compatible"; once an
//! adapter handles a direction of it, the adapter wins (`steps::crossing`).

use crate::steps::Step;

/// (domain, operator, version, what changed at that version): a change of meaning between the
/// version before and this one, in either direction.
pub(crate) const SEMANTIC_CHANGES: &[(&str, &str, i64, &str)] = &[
    (
        "ai.onnx",
        "OneHot",
        11,
        "negative indices count from the end from 11; before, their meaning is undefined",
    ),
    (
        "ai.onnx",
        "Softmax",
        13,
        "before 13 the input is coerced to 2-D at `axis`",
    ),
    (
        "ai.onnx",
        "LogSoftmax",
        13,
        "before 13 the input is coerced to 2-D at `axis`",
    ),
    (
        "ai.onnx",
        "Hardmax",
        13,
        "before 13 the input is coerced to 2-D at `axis`",
    ),
    (
        "ai.onnx",
        "Resize",
        11,
        "Resize-10 samples as `asymmetric`, and 11's default is `half_pixel`",
    ),
];

/// Why `step` is refused as a whole, if it is (and no adapter handles it).
pub(crate) fn refused_step(step: &Step<'_>) -> Option<&'static str> {
    // OneHot-11 only widened what its indices may be: upward it is the derived check's.
    if step.operator == "OneHot" && step.is_up() {
        return None;
    }
    let changed_at = step.from.max(step.to);
    SEMANTIC_CHANGES
        .iter()
        .find(|(domain, operator, version, _)| {
            *domain == step.domain && *operator == step.operator && *version == changed_at
        })
        .map(|(.., why)| *why)
}
