//! The operator schemas as documentation: what an editor shows on hover and offers in
//! completion. The checks read the same table.

use crate::table::{Arity, Schema, table};
use crate::{AtVersion, at_version};
use onnx_syntax::syntax::{AttributeType, AttributeTypeSyntax};

/// A standard operator at one opset version.
///
/// ```
/// use onnx_schema::describe_operator;
/// let gemm = describe_operator("", "Gemm", 21).unwrap();
/// assert_eq!((gemm.domain, gemm.since_version), ("ai.onnx", 13));
/// assert_eq!(gemm.inputs[2].name, "C");
/// assert!(gemm.signature().starts_with("Gemm(A: T, B: T, C: T?) -> (Y: T)"));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct OperatorDoc {
    /// `ai.onnx` for the default domain.
    pub domain: &'static str,
    /// The operator's name.
    pub name: &'static str,
    /// The opset version of this schema.
    pub since_version: i64,
    /// Inputs, in order.
    pub inputs: Vec<FormalDoc>,
    /// Outputs, in order.
    pub outputs: Vec<FormalDoc>,
    /// Attributes, sorted by name.
    pub attributes: Vec<AttributeDoc>,
    /// Each type parameter and the types it allows.
    pub constraints: Vec<(&'static str, Vec<&'static str>)>,
}

/// An input or output of an operator.
///
/// ```
/// use onnx_schema::FormalDoc;
/// let x = FormalDoc { name: "X", type_str: "T", optional: false, variadic: false };
/// assert_eq!(x.to_string(), "X: T");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct FormalDoc {
    /// Its name in the schema.
    pub name: &'static str,
    /// A type parameter (`T`) or a type (`tensor(int64)`).
    pub type_str: &'static str,
    /// It may be `""` or left out.
    pub optional: bool,
    /// It takes the rest of the operands.
    pub variadic: bool,
}

impl std::fmt::Display for FormalDoc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let dots = if self.variadic { "..." } else { "" };
        let question = if self.optional { "?" } else { "" };
        write!(f, "{dots}{}: {}{question}", self.name, self.type_str)
    }
}

/// An attribute of an operator.
///
/// ```
/// use onnx_schema::describe_operator;
/// let cast = describe_operator("", "Cast", 21).unwrap();
/// let to = cast.attributes.iter().find(|a| a.name == "to").unwrap();
/// assert!(to.required);
/// assert_eq!(to.to_string(), "to: int (required)");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct AttributeDoc {
    /// Its name.
    pub name: &'static str,
    /// Its type.
    pub ty: AttributeType,
    /// A node must set it.
    pub required: bool,
}

impl std::fmt::Display for AttributeDoc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.name, self.ty.keyword())?;
        if self.required {
            f.write_str(" (required)")?;
        }
        Ok(())
    }
}

impl OperatorDoc {
    /// One line: `Name(inputs) -> (outputs)`, then the attributes in `<…>` if any.
    ///
    /// ```
    /// let relu = onnx_schema::describe_operator("", "LeakyRelu", 21).unwrap();
    /// assert_eq!(relu.signature(), "LeakyRelu(X: T) -> (Y: T) <alpha: float>");
    /// ```
    pub fn signature(&self) -> String {
        let list = |formals: &[FormalDoc]| {
            formals
                .iter()
                .map(FormalDoc::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut line = format!(
            "{}({}) -> ({})",
            self.name,
            list(&self.inputs),
            list(&self.outputs)
        );
        if !self.attributes.is_empty() {
            let attributes: Vec<String> = self.attributes.iter().map(|a| a.to_string()).collect();
            line.push_str(&format!(" <{}>", attributes.join(", ")));
        }
        line
    }

    fn of(schema: &Schema) -> OperatorDoc {
        let formals = |list: &[crate::table::Formal]| {
            list.iter()
                .map(|formal| FormalDoc {
                    name: formal.name,
                    type_str: formal.type_str,
                    optional: formal.arity == Arity::Optional,
                    variadic: formal.arity == Arity::Variadic,
                })
                .collect()
        };
        let sets = table();
        OperatorDoc {
            domain: schema.domain,
            name: schema.name,
            since_version: schema.since,
            inputs: formals(&schema.inputs),
            outputs: formals(&schema.outputs),
            attributes: schema
                .attributes
                .iter()
                .map(|spec| AttributeDoc {
                    name: spec.name,
                    ty: spec.ty,
                    required: spec.required,
                })
                .collect(),
            constraints: schema
                .constraints
                .iter()
                .map(|&(param, set)| {
                    let types = sets.and_then(|t| t.set(set)).unwrap_or_default().to_vec();
                    (param, types)
                })
                .collect(),
        }
    }
}

/// The schema of `op_type` in the standard domain `domain` (`""` or `ai.onnx`, `ai.onnx.ml`, …)
/// in effect at opset `version`; `None` if the operator does not exist there.
///
/// ```
/// use onnx_schema::describe_operator;
/// assert_eq!(describe_operator("", "Relu", 21).unwrap().since_version, 14);
/// assert!(describe_operator("", "Relu", 0).is_none()); // before its first version
/// assert!(describe_operator("com.example", "Relu", 1).is_none());
/// ```
pub fn describe_operator(domain: &str, op_type: &str, version: i64) -> Option<OperatorDoc> {
    let versions = table()?.versions(domain, op_type)?;
    match at_version(versions, version)? {
        AtVersion::Found(schema) => Some(OperatorDoc::of(schema)),
        _ => None,
    }
}

/// The operators of the standard domain `domain` that exist at opset `version`, sorted by name.
///
/// ```
/// let names = onnx_schema::operators_at("", 21);
/// assert!(names.contains(&"Relu") && !names.contains(&"Scatter")); // Scatter was removed
/// assert!(onnx_schema::operators_at("com.example", 1).is_empty());
/// ```
pub fn operators_at(domain: &str, version: i64) -> Vec<&'static str> {
    let Some(table) = table() else {
        return Vec::new();
    };
    table
        .sorted_operators(domain)
        .into_iter()
        .filter(|(_, versions)| matches!(at_version(versions, version), Some(AtVersion::Found(_))))
        .map(|(name, _)| name)
        .collect()
}

/// The standard domains the schema table knows, sorted (`ai.onnx` is the default domain).
///
/// ```
/// assert!(onnx_schema::standard_domains().contains(&"ai.onnx.ml"));
/// ```
pub fn standard_domains() -> Vec<&'static str> {
    table().map(|t| t.domain_names()).unwrap_or_default()
}
