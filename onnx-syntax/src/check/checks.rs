//! The checks: what each one catches, and its stable name.

/// The checks, each with a stable snake_case name for `#![allow(name, ...)]`.
///
/// ```
/// use onnx_syntax::check::Check;
/// assert_eq!(Check::UndefinedValue.name(), "undefined_value");
/// assert_eq!(Check::from_name("undefined_value"), Some(Check::UndefinedValue));
/// assert_eq!(Check::ALL.len(), 36);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Check {
    /// `duplicate_definition`: a value is defined twice (SSA): by two node outputs, or by a node
    /// output and an input, initializer or visible outer value.
    DuplicateDefinition,
    /// `use_before_definition`: a value is used before the node that defines it (the nodes are
    /// not in topological order).
    UseBeforeDefinition,
    /// `undefined_value`: a value is used that nothing defines, in this graph or the enclosing
    /// ones.
    UndefinedValue,
    /// `unproduced_output`: a graph or function output that no input, initializer or node
    /// defines.
    UnproducedOutput,
    /// `duplicate_input`: a graph input, initializer or function input named twice. An
    /// initializer named as an input is its default value, not a duplicate.
    DuplicateInput,
    /// `undeclared_domain`: a node's operator domain is not in the `opset_import` that applies.
    UndeclaredDomain,
    /// `unresolved_function`: a node in the domain of a model-local function names no such
    /// function (or not with its overload).
    UnresolvedFunction,
    /// `invalid_attribute_ref`: `@name` outside a function body, or naming no attribute of the
    /// function.
    InvalidAttributeRef,
    /// `duplicate_attribute`: a node sets the same attribute twice, or a function declares the
    /// same attribute twice.
    DuplicateAttribute,
    /// `element_count_mismatch`: a tensor's data has more or fewer values than its dims need
    /// (two 4-bit or four 2-bit elements per value; complex numbers take two).
    ElementCountMismatch,
    /// `literal_out_of_range`: a tensor literal does not fit its element type (`uint8 {256}`,
    /// `uint64 {-1}`).
    LiteralOutOfRange,
    /// `unknown_operator`: a node of a standard domain names an operator that does not exist at
    /// the imported version: misspelled, not introduced yet, or removed (deprecated).
    UnknownOperator,
    /// `operator_arity`: a standard operator gets too few or too many inputs or outputs, or `""`
    /// for an operand that is not optional.
    OperatorArity,
    /// `missing_attribute`: a standard operator lacks a required attribute.
    MissingAttribute,
    /// `unknown_attribute`: a standard operator gets an attribute it does not have at the
    /// imported version.
    UnknownAttribute,
    /// `attribute_type`: a standard operator's attribute has the wrong type (`alpha = 1` is an
    /// int; a float attribute needs `1.0` or `alpha: float = 1`).
    AttributeType,
    /// `type_constraint`: where the types of a node's operands are known (declared, or inferred
    /// from earlier nodes), they break the operator's type constraints.
    TypeConstraint,
    /// `function_signature`: a call to a model-local function passes more inputs or outputs than
    /// the function declares, or attributes it does not declare, or leaves out one without a
    /// default.
    FunctionSignature,
    /// `incompatible_shapes`: a node's operand shapes cannot go together for its operator (a
    /// MatMul's inner dims, operands that cannot broadcast, a Reshape to another element
    /// count, Conv channels), as shape inference finds them in a model or function.
    IncompatibleShapes,
    /// `shape_mismatch`: a graph output or value info, or a function's typed output, declares
    /// a shape that differs from the one its node computes (`3` against `4`; a symbol or `?`
    /// against anything is no mismatch).
    ShapeMismatch,
    /// `ir_version`: a binary model without an `ir_version`, or with one newer than IR 14 (onnx
    /// 1.23.2's newest).
    IrVersion,
    /// `opset_import`: a binary model of IR 3 or later without an `opset_import`, one before IR 3
    /// with one, a domain imported twice, or a version outside the 32-bit range.
    OpsetImport,
    /// `missing_field`: a binary model's required field left empty: the graph, a graph's name, a
    /// value's, attribute's, initializer's or function's name, a function's domain (IR 8 and later).
    MissingField,
    /// `missing_type`: a main-graph input or output without a type, or a tensor type without an
    /// element type or shape (the IR requires a shape there; subgraphs and functions may leave it
    /// out). In text and literals, `y` and `float[] y` break it; the message suggests the
    /// inferred type to write.
    MissingType,
    /// `initializer_not_input`: an initializer of a binary model before IR 4 that is not a graph
    /// input.
    InitializerNotInput,
    /// `data_type`: a tensor of a binary model whose `data_type` is missing, UNDEFINED, or a number
    /// no element type has.
    DataType,
    /// `tensor_data`: a tensor of a binary model with no value field or several, data in the field
    /// of another element type, strings in `raw_data`, or data beside an external location.
    TensorData,
    /// `sparse_tensor`: a sparse tensor of a binary model whose values or indices have the wrong
    /// shape or type, or whose indices are out of range or not sorted.
    SparseTensor,
    /// `attribute_fields`: an attribute of a binary model without a `type`, with several value
    /// fields, with a value field other than its `type` says, or with a value beside `ref_attr_name`.
    AttributeFields,
    /// `empty_op_type`: a node of a binary model without an `op_type`.
    EmptyOpType,
    /// `empty_node`: a node of a binary model with neither inputs nor outputs.
    EmptyNode,
    /// `duplicate_function`: two model-local functions of a binary model with one (domain, name,
    /// overload).
    DuplicateFunction,
    /// `function_opset`: a node of a binary model's local function in a domain the function does
    /// not import, or a standard operator that the function's import and the model's resolve to
    /// different versions of.
    FunctionOpset,
    /// `duplicate_metadata`: a binary model's `metadata_props` with a key twice.
    DuplicateMetadata,
    /// `external_data`: a tensor stored outside a binary model whose location is absolute, leaves
    /// the model's folder (through `..` or a symbolic link), or names no regular file that covers
    /// its offset and length.
    ExternalData,
    /// `negative_dim`: a type with a negative dim (`float[2, -1]`), in text, literals and
    /// binary models alike.
    NegativeDim,
}

impl Check {
    /// Every check: those of the syntax first (the table of `onnx_text::guide::checks`), then the
    /// rules of binary models (that of `onnx_text::guide::validating_models`).
    ///
    /// ```
    /// use onnx_syntax::check::Check;
    /// let names: Vec<&str> = Check::ALL.iter().map(|c| c.name()).collect();
    /// assert_eq!(names[..3], ["duplicate_definition", "use_before_definition", "undefined_value"]);
    /// ```
    pub const ALL: [Check; 36] = [
        Check::DuplicateDefinition,
        Check::UseBeforeDefinition,
        Check::UndefinedValue,
        Check::UnproducedOutput,
        Check::DuplicateInput,
        Check::UndeclaredDomain,
        Check::UnresolvedFunction,
        Check::InvalidAttributeRef,
        Check::DuplicateAttribute,
        Check::ElementCountMismatch,
        Check::LiteralOutOfRange,
        Check::UnknownOperator,
        Check::OperatorArity,
        Check::MissingAttribute,
        Check::UnknownAttribute,
        Check::AttributeType,
        Check::TypeConstraint,
        Check::FunctionSignature,
        Check::IncompatibleShapes,
        Check::ShapeMismatch,
        Check::IrVersion,
        Check::OpsetImport,
        Check::MissingField,
        Check::MissingType,
        Check::InitializerNotInput,
        Check::DataType,
        Check::TensorData,
        Check::SparseTensor,
        Check::AttributeFields,
        Check::EmptyOpType,
        Check::EmptyNode,
        Check::DuplicateFunction,
        Check::FunctionOpset,
        Check::DuplicateMetadata,
        Check::ExternalData,
        Check::NegativeDim,
    ];

    /// The stable snake_case name, as `#![allow(...)]` takes it.
    ///
    /// ```
    /// assert_eq!(onnx_syntax::check::Check::LiteralOutOfRange.name(), "literal_out_of_range");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Check::DuplicateDefinition => "duplicate_definition",
            Check::UseBeforeDefinition => "use_before_definition",
            Check::UndefinedValue => "undefined_value",
            Check::UnproducedOutput => "unproduced_output",
            Check::DuplicateInput => "duplicate_input",
            Check::UndeclaredDomain => "undeclared_domain",
            Check::UnresolvedFunction => "unresolved_function",
            Check::InvalidAttributeRef => "invalid_attribute_ref",
            Check::DuplicateAttribute => "duplicate_attribute",
            Check::ElementCountMismatch => "element_count_mismatch",
            Check::LiteralOutOfRange => "literal_out_of_range",
            Check::UnknownOperator => "unknown_operator",
            Check::OperatorArity => "operator_arity",
            Check::MissingAttribute => "missing_attribute",
            Check::UnknownAttribute => "unknown_attribute",
            Check::AttributeType => "attribute_type",
            Check::TypeConstraint => "type_constraint",
            Check::FunctionSignature => "function_signature",
            Check::IncompatibleShapes => "incompatible_shapes",
            Check::ShapeMismatch => "shape_mismatch",
            Check::IrVersion => "ir_version",
            Check::OpsetImport => "opset_import",
            Check::MissingField => "missing_field",
            Check::MissingType => "missing_type",
            Check::InitializerNotInput => "initializer_not_input",
            Check::DataType => "data_type",
            Check::TensorData => "tensor_data",
            Check::SparseTensor => "sparse_tensor",
            Check::AttributeFields => "attribute_fields",
            Check::EmptyOpType => "empty_op_type",
            Check::EmptyNode => "empty_node",
            Check::DuplicateFunction => "duplicate_function",
            Check::FunctionOpset => "function_opset",
            Check::DuplicateMetadata => "duplicate_metadata",
            Check::ExternalData => "external_data",
            Check::NegativeDim => "negative_dim",
        }
    }

    /// The check named `name`, if there is one.
    ///
    /// ```
    /// use onnx_syntax::check::Check;
    /// assert_eq!(Check::from_name("duplicate_attribute"), Some(Check::DuplicateAttribute));
    /// assert_eq!(Check::from_name("Duplicate_Attribute"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Check> {
        Check::ALL.into_iter().find(|check| check.name() == name)
    }

    /// What the check catches, in one line.
    ///
    /// ```
    /// assert!(onnx_syntax::check::Check::UndefinedValue.description().contains("never defined"));
    /// ```
    pub const fn description(self) -> &'static str {
        match self {
            Check::DuplicateDefinition => "a value defined twice (SSA)",
            Check::UseBeforeDefinition => "a value used before the node that defines it",
            Check::UndefinedValue => "a value used but never defined",
            Check::UnproducedOutput => "a graph or function output that nothing produces",
            Check::DuplicateInput => "a graph input, initializer or function input named twice",
            Check::UndeclaredDomain => "a node domain missing from the opset_import",
            Check::UnresolvedFunction => {
                "a call in a local function's domain that names no local function"
            }
            Check::InvalidAttributeRef => {
                "`@ref` outside a function, or naming no attribute of the function"
            }
            Check::DuplicateAttribute => "an attribute given twice on one node or function",
            Check::ElementCountMismatch => "tensor data whose length does not match the dims",
            Check::LiteralOutOfRange => "a tensor literal that does not fit its element type",
            Check::UnknownOperator => "an operator that does not exist at the imported version",
            Check::OperatorArity => "too few or too many inputs or outputs for the operator",
            Check::MissingAttribute => "a required attribute of the operator left out",
            Check::UnknownAttribute => "an attribute the operator does not have",
            Check::AttributeType => "an attribute of the wrong type for the operator",
            Check::TypeConstraint => "operand types that break the operator's type constraints",
            Check::FunctionSignature => {
                "a call to a local function that does not match its signature"
            }
            Check::IncompatibleShapes => "operand shapes the operator cannot take",
            Check::ShapeMismatch => "a declared shape that differs from the computed one",
            Check::IrVersion => "a missing ir_version, or one newer than IR 14",
            Check::OpsetImport => {
                "a missing opset_import, a domain imported twice, a version out of range"
            }
            Check::MissingField => "a required name or field left empty",
            Check::MissingType => "a main-graph input or output without a type with a shape",
            Check::InitializerNotInput => "an initializer that is not a graph input, before IR 4",
            Check::DataType => "a tensor data type that is missing or does not exist",
            Check::TensorData => "tensor data in no value field, several, or the wrong one",
            Check::SparseTensor => {
                "sparse tensor indices of the wrong shape, out of range or unsorted"
            }
            Check::AttributeFields => "an attribute whose value fields do not match its type",
            Check::EmptyOpType => "a node without an op_type",
            Check::EmptyNode => "a node with neither inputs nor outputs",
            Check::DuplicateFunction => "two local functions with one (domain, name, overload)",
            Check::FunctionOpset => "a function whose opset imports disagree with the model's",
            Check::DuplicateMetadata => "a metadata key given twice",
            Check::ExternalData => "external data outside the model's folder, missing or too short",
            Check::NegativeDim => "a negative dimension in a type",
        }
    }

    /// The checks that only binary models can break, as the syntax cannot write what they
    /// catch (a text always has one value field per tensor, a type on each attribute, ...);
    /// [`crate::check::model`] runs them on decoded protobuf messages.
    ///
    /// ```
    /// use onnx_syntax::check::Check;
    /// assert!(Check::TensorData.is_binary_only());
    /// assert!(!Check::UndefinedValue.is_binary_only());
    /// ```
    pub const fn is_binary_only(self) -> bool {
        // `missing_type` and `negative_dim` are the rules of the IR that text and literals can
        // break too.
        self as u32 >= Check::IrVersion as u32
            && !matches!(self, Check::MissingType | Check::NegativeDim)
    }

    pub(super) const fn bit(self) -> u64 {
        1 << self as u64
    }
}

/// Shows the check's name.
///
/// ```
/// assert_eq!(onnx_syntax::check::Check::DuplicateInput.to_string(), "duplicate_input");
/// ```
impl std::fmt::Display for Check {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Reads a check's name, as [`Check::from_name`] does, with an error that lists the checks.
///
/// ```
/// use onnx_syntax::check::Check;
/// assert_eq!("undefined_value".parse::<Check>(), Ok(Check::UndefinedValue));
/// let err = "ssa".parse::<Check>().unwrap_err();
/// assert!(err.to_string().starts_with("unknown check `ssa`; the checks are duplicate_definition, "));
/// ```
impl std::str::FromStr for Check {
    type Err = UnknownCheck;

    fn from_str(name: &str) -> Result<Check, UnknownCheck> {
        Check::from_name(name).ok_or_else(|| UnknownCheck {
            name: name.to_owned(),
        })
    }
}

/// A name that is no check's name, from parsing a [`Check`].
///
/// ```
/// let err = "sssa".parse::<onnx_syntax::check::Check>().unwrap_err();
/// assert_eq!(err.name(), "sssa");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownCheck {
    name: String,
}

impl UnknownCheck {
    /// The name that was given.
    ///
    /// ```
    /// assert_eq!("x".parse::<onnx_syntax::check::Check>().unwrap_err().name(), "x");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// "unknown check `name`; the checks are …", listing every check.
impl std::fmt::Display for UnknownCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown check `{}`; the checks are ", self.name)?;
        for (i, check) in Check::ALL.iter().enumerate() {
            let separator = if i == 0 { "" } else { ", " };
            write!(f, "{separator}{check}")?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownCheck {}
