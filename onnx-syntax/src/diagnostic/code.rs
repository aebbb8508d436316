//! The checks: what each one catches, and its stable name.

crate::named_enum! {
    path "onnx_syntax::diagnostic::Check";
    /// The checks, each with a stable snake_case name for `#![allow(name, ...)]`.
    ///
    /// ```
    /// use onnx_syntax::diagnostic::Check;
    /// assert_eq!(Check::UndefinedValue.name(), "undefined_value");
    /// assert_eq!(Check::from_name("undefined_value"), Some(Check::UndefinedValue));
    /// assert_eq!(Check::ALL.len(), 36);
    /// ```
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum Check {
        /// `duplicate_definition`: a value is defined twice (SSA): by two node outputs, or by a node
        /// output and an input, initializer or visible outer value.
        DuplicateDefinition = "duplicate_definition",
        /// `use_before_definition`: a value is used before the node that defines it (the nodes are
        /// not in topological order).
        UseBeforeDefinition = "use_before_definition",
        /// `undefined_value`: a value is used that nothing defines, in this graph or the enclosing
        /// ones.
        UndefinedValue = "undefined_value",
        /// `unproduced_output`: a graph or function output that no input, initializer or node
        /// defines.
        UnproducedOutput = "unproduced_output",
        /// `duplicate_input`: a graph input, initializer or function input named twice. An
        /// initializer named as an input is its default value, not a duplicate.
        DuplicateInput = "duplicate_input",
        /// `undeclared_domain`: a node's operator domain is not in the `opset_import` that applies.
        UndeclaredDomain = "undeclared_domain",
        /// `unresolved_function`: a node in the domain of a model-local function names no such
        /// function (or not with its overload).
        UnresolvedFunction = "unresolved_function",
        /// `invalid_attribute_ref`: `@name` outside a function body, or naming no attribute of the
        /// function.
        InvalidAttributeRef = "invalid_attribute_ref",
        /// `duplicate_attribute`: a node sets the same attribute twice, or a function declares the
        /// same attribute twice.
        DuplicateAttribute = "duplicate_attribute",
        /// `element_count_mismatch`: a tensor's data has more or fewer values than its dims need
        /// (two 4-bit or four 2-bit elements per value; complex numbers take two).
        ElementCountMismatch = "element_count_mismatch",
        /// `literal_out_of_range`: a tensor literal does not fit its element type (`uint8 {256}`,
        /// `uint64 {-1}`).
        LiteralOutOfRange = "literal_out_of_range",
        /// `unknown_operator`: a node of a standard domain names an operator that does not exist at
        /// the imported version: misspelled, not introduced yet, or removed (deprecated).
        UnknownOperator = "unknown_operator",
        /// `operator_arity`: a standard operator gets too few or too many inputs or outputs, or `""`
        /// for an operand that is not optional.
        OperatorArity = "operator_arity",
        /// `missing_attribute`: a standard operator lacks a required attribute.
        MissingAttribute = "missing_attribute",
        /// `unknown_attribute`: a standard operator gets an attribute it does not have at the
        /// imported version.
        UnknownAttribute = "unknown_attribute",
        /// `attribute_type`: a standard operator's attribute has the wrong type (`alpha = 1` is an
        /// int; a float attribute needs `1.0` or `alpha: float = 1`).
        AttributeType = "attribute_type",
        /// `type_constraint`: where the types of a node's operands are known (declared, or inferred
        /// from earlier nodes), they break the operator's type constraints.
        TypeConstraint = "type_constraint",
        /// `function_signature`: a call to a model-local function passes more inputs or outputs than
        /// the function declares, or attributes it does not declare, or leaves out one without a
        /// default.
        FunctionSignature = "function_signature",
        /// `incompatible_shapes`: a node's operand shapes cannot go together for its operator (a
        /// MatMul's inner dims, operands that cannot broadcast, a Reshape to another element
        /// count, Conv channels), as shape inference finds them in a model or function.
        IncompatibleShapes = "incompatible_shapes",
        /// `shape_mismatch`: a graph output or value info, or a function's typed output, declares
        /// a shape that differs from the one its node computes (`3` against `4`; a symbol or `?`
        /// against anything is no mismatch).
        ShapeMismatch = "shape_mismatch",
        /// `ir_version`: a binary model without an `ir_version`, or with one newer than IR 14 (onnx
        /// 1.23.2's newest).
        IrVersion = "ir_version",
        /// `opset_import`: a binary model of IR 3 or later without an `opset_import`, one before IR 3
        /// with one, a domain imported twice, or a version outside the 32-bit range.
        OpsetImport = "opset_import",
        /// `missing_field`: a binary model's required field left empty: the graph, a graph's name, a
        /// value's, attribute's, initializer's or function's name, a function's domain (IR 8 and later).
        MissingField = "missing_field",
        /// `missing_type`: a main-graph input or output without a type, or a tensor type without an
        /// element type or shape (the IR requires a shape there; subgraphs and functions may leave it
        /// out). In text and literals, `y` and `float[] y` break it; the message suggests the
        /// inferred type to write.
        MissingType = "missing_type",
        /// `initializer_not_input`: an initializer of a binary model before IR 4 that is not a graph
        /// input.
        InitializerNotInput = "initializer_not_input",
        /// `data_type`: a tensor of a binary model whose `data_type` is missing, UNDEFINED, or a number
        /// no element type has.
        DataType = "data_type",
        /// `tensor_data`: a tensor of a binary model with no value field or several, data in the field
        /// of another element type, strings in `raw_data`, or data beside an external location.
        TensorData = "tensor_data",
        /// `sparse_tensor`: a sparse tensor of a binary model whose values or indices have the wrong
        /// shape or type, or whose indices are out of range or not sorted.
        SparseTensor = "sparse_tensor",
        /// `attribute_fields`: an attribute of a binary model without a `type`, with several value
        /// fields, with a value field other than its `type` says, or with a value beside `ref_attr_name`.
        AttributeFields = "attribute_fields",
        /// `empty_op_type`: a node of a binary model without an `op_type`.
        EmptyOpType = "empty_op_type",
        /// `empty_node`: a node of a binary model with neither inputs nor outputs.
        EmptyNode = "empty_node",
        /// `duplicate_function`: two model-local functions of a binary model with one (domain, name,
        /// overload).
        DuplicateFunction = "duplicate_function",
        /// `function_opset`: a node of a binary model's local function in a domain the function does
        /// not import, or a standard operator that the function's import and the model's resolve to
        /// different versions of.
        FunctionOpset = "function_opset",
        /// `duplicate_metadata`: a binary model's `metadata_props` with a key twice.
        DuplicateMetadata = "duplicate_metadata",
        /// `external_data`: a tensor stored outside a binary model whose location is absolute, leaves
        /// the model's folder (through `..` or a symbolic link), or names no regular file that covers
        /// its offset and length.
        ExternalData = "external_data",
        /// `negative_dim`: a type with a negative dim (`float[2, -1]`), in text, literals and
        /// binary models alike.
        NegativeDim = "negative_dim",
    }
    unknown UnknownCheck("check", "checks");
}

impl Check {
    /// What the check catches, in one line.
    ///
    /// ```
    /// assert!(onnx_syntax::diagnostic::Check::UndefinedValue.description().contains("never defined"));
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
    /// the `onnx-validate` crate runs them on decoded protobuf messages.
    ///
    /// ```
    /// use onnx_syntax::diagnostic::Check;
    /// assert!(Check::TensorData.is_binary_only());
    /// assert!(!Check::UndefinedValue.is_binary_only());
    /// ```
    pub const fn is_binary_only(self) -> bool {
        // `missing_type` and `negative_dim` are the rules of the IR that text and literals can
        // break too.
        matches!(self.category(), Category::Model)
            && !matches!(self, Check::MissingType | Check::NegativeDim)
    }

    /// The group the check belongs to, as the README's Checks section groups them.
    ///
    /// ```
    /// use onnx_syntax::diagnostic::{Category, Check};
    /// assert_eq!(Check::UndefinedValue.category(), Category::Structure);
    /// assert_eq!(Check::TensorData.category(), Category::Model);
    /// ```
    pub const fn category(self) -> Category {
        match self {
            Check::DuplicateDefinition
            | Check::UseBeforeDefinition
            | Check::UndefinedValue
            | Check::UnproducedOutput
            | Check::DuplicateInput => Category::Structure,
            Check::UndeclaredDomain
            | Check::UnresolvedFunction
            | Check::InvalidAttributeRef
            | Check::DuplicateAttribute => Category::Declarations,
            Check::ElementCountMismatch | Check::LiteralOutOfRange => Category::Data,
            Check::UnknownOperator
            | Check::OperatorArity
            | Check::MissingAttribute
            | Check::UnknownAttribute
            | Check::AttributeType
            | Check::TypeConstraint
            | Check::FunctionSignature => Category::Schema,
            Check::IncompatibleShapes | Check::ShapeMismatch => Category::Shapes,
            Check::IrVersion
            | Check::OpsetImport
            | Check::MissingField
            | Check::MissingType
            | Check::InitializerNotInput
            | Check::DataType
            | Check::TensorData
            | Check::SparseTensor
            | Check::AttributeFields
            | Check::EmptyOpType
            | Check::EmptyNode
            | Check::DuplicateFunction
            | Check::FunctionOpset
            | Check::DuplicateMetadata
            | Check::ExternalData
            | Check::NegativeDim => Category::Model,
        }
    }

    /// This check's bit in a set of checks (`CheckOptions` keeps one).
    #[doc(hidden)]
    pub const fn bit(self) -> u64 {
        1 << self as u64
    }
}

crate::named_enum! {
    path "onnx_syntax::diagnostic::Category";
    /// The groups of checks ([`Check::category`]).
    ///
    /// ```
    /// use onnx_syntax::diagnostic::{Category, Check};
    /// let schema: Vec<Check> = Category::Schema.checks().collect();
    /// assert_eq!(schema.len(), 7);
    /// ```
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Category {
        /// SSA, order, scopes and outputs.
        Structure = "structure",
        /// Domains, local functions, attribute references, attributes given twice.
        Declarations = "declarations",
        /// Tensor literals: element counts and ranges.
        Data = "data",
        /// Operator schemas: operators, arity, attributes, type constraints, calls.
        Schema = "schema",
        /// Shape inference: operands that cannot go together, declared shapes that differ.
        Shapes = "shapes",
        /// The rules of the IR and of onnx's checker on protobuf messages.
        Model = "model",
    }
}

impl Category {
    /// The checks of this group, in the order of [`Check::ALL`].
    ///
    /// ```
    /// use onnx_syntax::diagnostic::{Category, Check};
    /// assert!(Category::Shapes.checks().eq([Check::IncompatibleShapes, Check::ShapeMismatch]));
    /// ```
    pub fn checks(self) -> impl Iterator<Item = Check> {
        Check::ALL
            .into_iter()
            .filter(move |check| check.category() as u8 == self as u8)
    }

    /// The bits of `CheckOptions` that this group's checks take. Read from a table made at
    /// compile time: the checks ask for it at every node, unoptimized in the macros.
    #[doc(hidden)]
    pub const fn bits(self) -> u64 {
        CATEGORY_BITS[self as usize]
    }

    /// The bits of the group, counted over every check (once, at compile time).
    const fn count_bits(self) -> u64 {
        let mut bits = 0;
        let mut i = 0;
        while i < Check::ALL.len() {
            if Check::ALL[i].category() as u8 == self as u8 {
                bits |= Check::ALL[i].bit();
            }
            i += 1;
        }
        bits
    }
}

/// [`Category::bits`] of each category, by its discriminant.
const CATEGORY_BITS: [u64; Category::ALL.len()] = {
    let mut table = [0; Category::ALL.len()];
    let mut i = 0;
    while i < Category::ALL.len() {
        table[Category::ALL[i] as usize] = Category::ALL[i].count_bits();
        i += 1;
    }
    table
};
