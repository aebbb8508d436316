//! The operator schemas of onnx 1.23.2, as onnx-text's checks read them: which
//! schema of an operator is in effect at an imported opset version, its formal inputs, outputs
//! and attributes, its type constraints, and the bodies of the standard operators that onnx
//! defines as functions. Pure data and queries: the diagnostics built on them are
//! `onnx-check`'s.
//!
//! - `table`: the schema table, generated from the wheel into `schemas.txt` and indexed on
//!   first use;
//! - `constraints`: type parameters and the types they allow;
//! - `describe`: an operator's documentation, for hovers and `onnx-text print --describe`;
//! - `similar`: "did you mean", by edit distance (the parser's, re-exported);
//! - `standard`: the standard functions' bodies.
//!
//! ```
//! assert_eq!(onnx_schema::since_version("", "Relu", 21), Some(14));
//! let doc = onnx_schema::describe_operator("", "Relu", 21).unwrap();
//! assert_eq!(doc.inputs[0].name, "X");
//! ```

// Shared with the checks and inference; not API for users.
#[doc(hidden)]
pub mod constraints;
mod describe;
#[doc(hidden)]
pub use onnx_syntax::similar;
mod standard;
mod standard_data;
#[doc(hidden)]
pub mod table;
#[cfg(test)]
mod tests;

pub use describe::{
    AttributeDoc, FormalDoc, OperatorDoc, describe_operator, operators_at, standard_domains,
};
pub use standard::{STANDARD_FUNCTION_OPERATORS, standard_function, standard_function_texts};

use onnx_syntax::syntax::AttributeType;
use table::{Schema, table};

/// What the versions of an operator say about one imported version.
#[doc(hidden)] // Over the hidden table's schemas: the checks' lookups, not API for users.
pub enum AtVersion<'a> {
    /// This schema applies.
    Found(&'a Schema),
    /// The operator was added after the imported version, at this one.
    NotYet(i64),
    /// The operator was deprecated (removed) by this schema, at or before the imported version.
    Removed(&'a Schema),
}

/// The schema of `versions` (oldest first) in effect at `version`.
#[doc(hidden)]
pub fn at_version(versions: &[Schema], version: i64) -> Option<AtVersion<'_>> {
    let first = versions.first()?;
    // Newest first; an indexed loop, as iterator adapters cost calls unoptimized.
    let mut index = versions.len();
    while index > 0 {
        index -= 1;
        let schema = &versions[index];
        if schema.since <= version {
            return Some(match schema.deprecated {
                true => AtVersion::Removed(schema),
                false => AtVersion::Found(schema),
            });
        }
    }
    Some(AtVersion::NotYet(first.since))
}

/// The type that the schema of `op_type` in the standard domain `domain`, at opset `version`,
/// gives its attribute `name`; `None` if no standard schema in effect there has that attribute.
///
/// ```
/// use onnx_schema::schema_attribute_type;
/// use onnx_syntax::syntax::AttributeType;
/// assert_eq!(schema_attribute_type("", "LeakyRelu", 21, "alpha"), Some(AttributeType::Float));
/// assert_eq!(schema_attribute_type("ai.onnx", "Transpose", 21, "perm"), Some(AttributeType::Ints));
/// assert_eq!(schema_attribute_type("", "LeakyRelu", 21, "beta"), None);
/// assert_eq!(schema_attribute_type("com.example", "Foo", 1, "a"), None);
/// ```
pub fn schema_attribute_type(
    domain: &str,
    op_type: &str,
    version: i64,
    name: &str,
) -> Option<AttributeType> {
    let versions = table()?.versions(domain, op_type)?;
    match at_version(versions, version)? {
        AtVersion::Found(schema) => schema.attribute(name).map(|spec| spec.ty),
        _ => None,
    }
}

/// The newest opset version of the standard domain `domain` (either name of the default one):
/// the newest `since_version` of its schemas. `None` for other domains.
///
/// ```
/// use onnx_schema::newest_opset;
/// assert!(newest_opset("").unwrap() >= 21);
/// assert_eq!(newest_opset("ai.onnx"), newest_opset(""));
/// assert_eq!(newest_opset("com.example"), None);
/// ```
pub fn newest_opset(domain: &str) -> Option<i64> {
    let table = table()?;
    let operators = table.sorted_operators(domain);
    let newest = operators.iter().flat_map(|(_, versions)| versions.iter());
    newest.map(|schema| schema.since).max()
}

/// The `since_version` of the schema of `op_type` in effect at opset `version` of the standard
/// domain `domain`; `None` for other domains, unknown operators, and versions before the first.
/// Two imports give one operator when this agrees (onnx's checker compares a function's
/// imports with its model's this way).
///
/// ```
/// use onnx_schema::since_version;
/// assert_eq!(since_version("", "Relu", 21), Some(14));
/// assert_eq!(since_version("ai.onnx", "Relu", 13), Some(13));
/// assert_eq!(since_version("com.example", "Relu", 21), None);
/// ```
pub fn since_version(domain: &str, op_type: &str, version: i64) -> Option<i64> {
    let versions = table()?.versions(domain, op_type)?;
    match at_version(versions, version)? {
        AtVersion::Found(schema) | AtVersion::Removed(schema) => Some(schema.since),
        AtVersion::NotYet(_) => None,
    }
}
