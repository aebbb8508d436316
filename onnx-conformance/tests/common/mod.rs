//! What more than one of the kit's test files needs.

/// The operators whose every input is a parameter (scripts/gen_conformance.py's
/// `PARAMETER_OPERATORS`, which gen_releases.py shares): their first input is hinted too.
pub const PARAMETER_OPERATORS: [&str; 6] = [
    "BlackmanWindow",
    "HammingWindow",
    "HannWindow",
    "MelWeightMatrix",
    "ConstantOfShape",
    "Range",
];
