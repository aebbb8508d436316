//! Function libraries for runtimes: a [`FunctionLibrary`] of `FunctionProto`s keyed by
//! (domain, name, overload), an [`Inliner`] that replaces calls by bodies, [`attach`] that copies
//! the functions a model calls into it, and the function bodies of the standard operators
//! ([`standard_function`]).
//!
//! ```
//! use onnx_check::library::{FunctionLibrary, Inliner};
//!
//! let library = FunctionLibrary::from_functions(onnx_syntax::parse_functions(r#"
//!     <domain: "local", opset_import: ["" : 21]> Sq (x) => (y) { y = Mul(x, x) }
//! "#)?)?;
//! let mut model = onnx_syntax::parse_model(r#"
//!     <ir_version: 10, opset_import: ["" : 21, "local" : 1]>
//!     g (float[N] a) => (float[N] b) { b = local.Sq(a) }
//! "#)?;
//! let report = Inliner::new().library(&library).model(&mut model)?;
//! assert_eq!(report.total(), 1);
//! assert_eq!(model.graph.unwrap().node[0].op_type.as_deref(), Some("Mul"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod inline;
mod names;

use std::collections::HashMap;
use std::fmt;

use onnx_runtime_types::{FunctionProto, ModelProto, NodeProto, OperatorSetIdProto};

pub use inline::{InlineReport, Inliner, attach, inline};
pub use onnx_schema::{STANDARD_FUNCTION_OPERATORS, standard_function};

/// The domain as a key: `ai.onnx` is the default domain, `""`.
pub use onnx_syntax::domain::canonical as normalise_domain;

/// What identifies a function: its normalised domain, its name and its overload (`""` for
/// none), as a node's `domain`, `op_type` and `overload` name the function it calls.
///
/// ```
/// use onnx_check::library::FunctionKey;
/// let key = FunctionKey::new("ai.onnx", "Celu", "");
/// assert_eq!(key, FunctionKey::new("", "Celu", ""));
/// assert_eq!(FunctionKey::new("local", "F", "v2").to_string(), "local.F:v2");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FunctionKey {
    domain: String,
    name: String,
    overload: String,
}

impl FunctionKey {
    /// The key of `name` in `domain` with `overload`; the domain is normalised.
    ///
    /// ```
    /// let key = onnx_check::library::FunctionKey::new("my", "Sq", "");
    /// assert_eq!((key.domain(), key.name(), key.overload()), ("my", "Sq", ""));
    /// ```
    pub fn new(domain: &str, name: &str, overload: &str) -> FunctionKey {
        FunctionKey {
            domain: normalise_domain(domain).to_owned(),
            name: name.to_owned(),
            overload: overload.to_owned(),
        }
    }

    /// The key a function is defined under.
    ///
    /// ```
    /// let f = onnx_syntax::parse_function(r#"<domain: "my", overload: "a"> F (x) => (y) { y = Abs(x) }"#)?;
    /// assert_eq!(onnx_check::library::FunctionKey::of_function(&f).to_string(), "my.F:a");
    /// # Ok::<(), onnx_syntax::ParseError>(())
    /// ```
    pub fn of_function(function: &FunctionProto) -> FunctionKey {
        FunctionKey::new(
            function.domain.as_deref().unwrap_or(""),
            function.name.as_deref().unwrap_or(""),
            function.overload.as_deref().unwrap_or(""),
        )
    }

    /// The key of the function a node calls.
    ///
    /// ```
    /// let node = onnx_syntax::parse_node("y = my.F(x)")?;
    /// assert_eq!(onnx_check::library::FunctionKey::of_node(&node).to_string(), "my.F");
    /// # Ok::<(), onnx_syntax::ParseError>(())
    /// ```
    pub fn of_node(node: &NodeProto) -> FunctionKey {
        FunctionKey::new(
            node.domain.as_deref().unwrap_or(""),
            node.op_type.as_deref().unwrap_or(""),
            node.overload.as_deref().unwrap_or(""),
        )
    }

    /// The normalised domain (`""` for `ai.onnx`).
    ///
    /// ```
    /// assert_eq!(onnx_check::library::FunctionKey::new("ai.onnx", "Relu", "").domain(), "");
    /// ```
    pub fn domain(&self) -> &str {
        &self.domain
    }

    /// The function's name (the `op_type` of its calls).
    ///
    /// ```
    /// assert_eq!(onnx_check::library::FunctionKey::new("", "Relu", "").name(), "Relu");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The overload, `""` for none.
    ///
    /// ```
    /// assert_eq!(onnx_check::library::FunctionKey::new("m", "F", "x").overload(), "x");
    /// ```
    pub fn overload(&self) -> &str {
        &self.overload
    }
}

impl fmt::Display for FunctionKey {
    /// `domain.name:overload`, leaving out an empty domain or overload.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.domain.is_empty() {
            write!(f, "{}.", self.domain)?;
        }
        f.write_str(&self.name)?;
        if !self.overload.is_empty() {
            write!(f, ":{}", self.overload)?;
        }
        Ok(())
    }
}

/// What can go wrong when building a library, inlining or attaching. Each error names the
/// functions involved and, where a node is at fault, where that node is (`at`: the graph,
/// function and node path, outermost first).
///
/// ```
/// use onnx_check::library::{FunctionLibrary, LibraryError};
/// let twice = onnx_syntax::parse_functions(r#"
///     <domain: "my"> F (x) => (y) { y = Abs(x) }
///     <domain: "my"> F (x) => (y) { y = Neg(x) }
/// "#)?;
/// let err = FunctionLibrary::from_functions(twice).unwrap_err();
/// assert!(matches!(err, LibraryError::Duplicate(_)));
/// assert_eq!(err.to_string(), "function `my.F` is defined twice");
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LibraryError {
    /// Two functions with one key.
    Duplicate(FunctionKey),
    /// Two imports of one domain at different versions.
    OpsetConflict {
        /// The normalised domain.
        domain: String,
        /// The version already imported.
        existing: i64,
        /// The version that another import asks for.
        wanted: i64,
        /// Who asks for `wanted`.
        by: String,
    },
    /// A function calls itself, directly or through others: the chain of calls, the first
    /// function again last.
    Recursion {
        /// The calls, outermost first, ending with the function called again.
        chain: Vec<FunctionKey>,
        /// Where the call that closes the cycle is.
        at: String,
    },
    /// A call with more inputs or outputs than the function declares.
    Arity {
        /// The function called.
        function: FunctionKey,
        /// Inputs or outputs.
        what: Operands,
        /// How many the function declares.
        declared: usize,
        /// How many the call gives.
        given: usize,
        /// Where the call is.
        at: String,
    },
    /// A function output that no node of its body produces (a missing body).
    UnproducedOutput {
        /// The function.
        function: FunctionKey,
        /// The output's name.
        output: String,
        /// Where the call is.
        at: String,
    },
    /// A name given to a selection that no library defines.
    UnknownFunction(String),
    /// An operator to expand that has no standard function body at any version.
    UnknownStandardOperator(String),
    /// A standard operator to expand that has no function body at the opset in use.
    NoStandardBody {
        /// The operator.
        operator: String,
        /// The default domain's version in use, if the target imports it.
        opset: Option<i64>,
        /// Where the call is.
        at: String,
    },
    /// Inlining would produce more nodes than the limit ([`Inliner::max_nodes`]).
    TooLarge {
        /// The limit.
        limit: usize,
        /// Where the call that crossed it is.
        at: String,
    },
}

/// The inputs or the outputs of a call, in [`LibraryError::Arity`].
///
/// ```
/// assert_eq!(onnx_check::library::Operands::Inputs.to_string(), "inputs");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operands {
    /// The inputs.
    Inputs,
    /// The outputs.
    Outputs,
}

impl fmt::Display for Operands {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Operands::Inputs => "inputs",
            Operands::Outputs => "outputs",
        })
    }
}

impl fmt::Display for LibraryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LibraryError::Duplicate(key) => write!(f, "function `{key}` is defined twice"),
            LibraryError::OpsetConflict {
                domain,
                existing,
                wanted,
                by,
            } => write!(
                f,
                "opset conflict for domain \"{domain}\": version {existing} is imported, but {by} imports version {wanted}"
            ),
            LibraryError::Recursion { chain, at } => {
                let chain: Vec<String> = chain.iter().map(|k| format!("`{k}`")).collect();
                write!(f, "recursive function call {} at {at}", chain.join(" -> "))
            }
            LibraryError::Arity {
                function,
                what,
                declared,
                given,
                at,
            } => write!(
                f,
                "call of `{function}` at {at} has {given} {what}, but the function declares {declared}"
            ),
            LibraryError::UnproducedOutput {
                function,
                output,
                at,
            } => write!(
                f,
                "no node of function `{function}` produces its output `{output}` (called at {at})"
            ),
            LibraryError::UnknownFunction(name) => {
                write!(f, "no library defines a function named `{name}`")
            }
            LibraryError::UnknownStandardOperator(name) => write!(
                f,
                "`{name}` is not one of the standard operators with a static function body"
            ),
            LibraryError::NoStandardBody {
                operator,
                opset,
                at,
            } => match opset {
                Some(v) => write!(
                    f,
                    "`{operator}` at {at} has no standard function body at opset {v}"
                ),
                None => write!(
                    f,
                    "`{operator}` at {at} cannot be expanded: the default domain is not imported"
                ),
            },
            LibraryError::TooLarge { limit, at } => write!(
                f,
                "inlining the call at {at} would make more than {limit} nodes"
            ),
        }
    }
}

impl std::error::Error for LibraryError {}

/// A set of functions keyed by [`FunctionKey`], in the order they were added.
///
/// ```
/// use std::sync::LazyLock;
/// use onnx_check::library::{FunctionKey, FunctionLibrary};
///
/// static LIBRARY: LazyLock<FunctionLibrary> = LazyLock::new(|| {
///     FunctionLibrary::from_functions(onnx_syntax::parse_functions(r#"
///         <domain: "my", opset_import: ["" : 21]> Sq (x) => (y) { y = Mul(x, x) }
///     "#).unwrap()).unwrap()
/// });
/// assert!(LIBRARY.get(&FunctionKey::new("my", "Sq", "")).is_some());
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FunctionLibrary {
    functions: Vec<FunctionProto>,
    index: HashMap<FunctionKey, usize>,
}

impl FunctionLibrary {
    /// An empty library.
    ///
    /// ```
    /// assert!(onnx_check::library::FunctionLibrary::new().is_empty());
    /// ```
    pub fn new() -> FunctionLibrary {
        FunctionLibrary::default()
    }

    /// A library of `functions` (what `parse_functions` and `onnx_functions!` give); two with
    /// one key are an error.
    ///
    /// ```
    /// let lib = onnx_check::library::FunctionLibrary::from_functions(
    ///     onnx_syntax::parse_functions(r#"<domain: "my"> F (x) => (y) { y = Abs(x) }"#)?,
    /// )?;
    /// assert_eq!(lib.len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_functions(
        functions: impl IntoIterator<Item = FunctionProto>,
    ) -> Result<FunctionLibrary, LibraryError> {
        let mut library = FunctionLibrary::new();
        library.extend(functions)?;
        Ok(library)
    }

    /// A library of a model's local functions.
    ///
    /// ```
    /// let model = onnx_syntax::parse_model(r#"
    ///     <opset_import: ["" : 21, "my" : 1]> g (x) => (y) { y = my.F(x) }
    ///     <domain: "my", opset_import: ["" : 21]> F (x) => (y) { y = Abs(x) }
    /// "#)?;
    /// let lib = onnx_check::library::FunctionLibrary::from_model(&model)?;
    /// assert_eq!(lib.iter().next().unwrap().name.as_deref(), Some("F"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_model(model: &ModelProto) -> Result<FunctionLibrary, LibraryError> {
        FunctionLibrary::from_functions(model.functions.iter().cloned())
    }

    /// Adds one function; a function with its key already here is an error, and the library
    /// is left unchanged.
    ///
    /// ```
    /// let mut lib = onnx_check::library::FunctionLibrary::new();
    /// let f = onnx_syntax::parse_function("F (x) => (y) { y = Abs(x) }")?;
    /// lib.insert(f.clone())?;
    /// assert!(lib.insert(f).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn insert(&mut self, function: FunctionProto) -> Result<(), LibraryError> {
        let key = FunctionKey::of_function(&function);
        if self.index.contains_key(&key) {
            return Err(LibraryError::Duplicate(key));
        }
        self.index.insert(key, self.functions.len());
        self.functions.push(function);
        Ok(())
    }

    /// Adds every function of `functions`; if one of their keys is already here, or two of
    /// them share one, nothing is added and the error names the key.
    ///
    /// ```
    /// use onnx_check::library::FunctionLibrary;
    /// let mut lib = FunctionLibrary::from_functions(onnx_syntax::parse_functions("<domain: \"a\"> F (x) => (y) { y = Abs(x) }")?)?;
    /// lib.extend(onnx_syntax::parse_functions("<domain: \"b\"> F (x) => (y) { y = Neg(x) }")?)?;
    /// assert_eq!(lib.len(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn extend(
        &mut self,
        functions: impl IntoIterator<Item = FunctionProto>,
    ) -> Result<(), LibraryError> {
        let before = self.functions.len();
        for function in functions {
            if let Err(e) = self.insert(function) {
                for added in self.functions.drain(before..) {
                    self.index.remove(&FunctionKey::of_function(&added));
                }
                return Err(e);
            }
        }
        Ok(())
    }

    /// The function with `key`.
    ///
    /// ```
    /// use onnx_check::library::{FunctionKey, FunctionLibrary};
    /// let lib = FunctionLibrary::from_functions(onnx_syntax::parse_functions("<domain: \"ai.onnx\"> F (x) => (y) { y = Abs(x) }")?)?;
    /// assert!(lib.get(&FunctionKey::new("", "F", "")).is_some()); // the domain is normalised
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get(&self, key: &FunctionKey) -> Option<&FunctionProto> {
        self.index.get(key).map(|&i| &self.functions[i])
    }

    /// The function `node` calls, if it is here.
    ///
    /// ```
    /// use onnx_check::library::FunctionLibrary;
    /// let lib = FunctionLibrary::from_functions(onnx_syntax::parse_functions("<domain: \"my\"> F (x) => (y) { y = Abs(x) }")?)?;
    /// assert!(lib.called_by(&onnx_syntax::parse_node("y = my.F(x)")?).is_some());
    /// assert!(lib.called_by(&onnx_syntax::parse_node("y = F(x)")?).is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn called_by(&self, node: &NodeProto) -> Option<&FunctionProto> {
        self.get(&FunctionKey::of_node(node))
    }

    /// The functions, in the order they were added.
    ///
    /// ```
    /// let lib = onnx_check::library::FunctionLibrary::from_functions(
    ///     onnx_syntax::parse_functions("F (x) => (y) { y = Abs(x) } G (x) => (y) { y = F(x) }")?,
    /// )?;
    /// let names: Vec<_> = lib.iter().map(|f| f.name.as_deref().unwrap()).collect();
    /// assert_eq!(names, ["F", "G"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn iter(&self) -> std::slice::Iter<'_, FunctionProto> {
        self.functions.iter()
    }

    /// How many functions there are.
    ///
    /// ```
    /// assert_eq!(onnx_check::library::FunctionLibrary::new().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.functions.len()
    }

    /// True if there are no functions.
    ///
    /// ```
    /// assert!(onnx_check::library::FunctionLibrary::default().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.functions.is_empty()
    }

    /// The functions, in the order they were added.
    ///
    /// ```
    /// let fs = onnx_syntax::parse_functions("F (x) => (y) { y = Abs(x) }")?;
    /// let lib = onnx_check::library::FunctionLibrary::from_functions(fs.clone())?;
    /// assert_eq!(lib.into_functions(), fs);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn into_functions(self) -> Vec<FunctionProto> {
        self.functions
    }

    /// The domains the functions are defined in, each with the version the library provides
    /// it at: the version its functions import it at, else 1 (as [`opset_imports`] gives it).
    /// A model that calls them imports the domain at that version. Empty if the functions
    /// import one domain at two versions (an error of [`opset_imports`]).
    ///
    /// [`opset_imports`]: FunctionLibrary::opset_imports
    ///
    /// ```
    /// let lib = onnx_check::library::FunctionLibrary::from_functions(onnx_syntax::parse_functions(r#"
    ///     <domain: "my", opset_import: ["" : 21]> F (x) => (y) { y = Abs(x) }
    ///     <domain: "my", opset_import: ["" : 21, "my" : 2]> G (x) => (y) { y = my.F(x) }
    /// "#)?)?;
    /// assert_eq!(lib.provided_domains(), [("my".to_owned(), 2)]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn provided_domains(&self) -> Vec<(String, i64)> {
        let Ok(imports) = self.opset_imports() else {
            return Vec::new();
        };
        let mut provided: Vec<(String, i64)> = Vec::new();
        for function in &self.functions {
            let domain = normalise_domain(function.domain.as_deref().unwrap_or(""));
            if provided.iter().any(|(d, _)| d == domain) {
                continue;
            }
            let import = imports
                .iter()
                .find(|i| normalise_domain(i.domain.as_deref().unwrap_or("")) == domain);
            provided.push((domain.to_owned(), import.map_or(1, |i| i.version())));
        }
        provided
    }

    /// The opset imports that the functions need together: each function's imports, and its
    /// own domain at version 1 unless a function imports it. Two versions of one domain are
    /// an error.
    ///
    /// ```
    /// let lib = onnx_check::library::FunctionLibrary::from_functions(onnx_syntax::parse_functions(r#"
    ///     <domain: "my", opset_import: ["" : 21]> F (x) => (y) { y = Abs(x) }
    ///     <domain: "my", opset_import: ["ai.onnx" : 21, "ai.onnx.ml" : 5]> G (x) => (y) { y = Neg(x) }
    /// "#)?)?;
    /// let imports: Vec<_> = lib.opset_imports()?.into_iter()
    ///     .map(|o| (o.domain.unwrap(), o.version.unwrap())).collect();
    /// assert_eq!(imports, [("".to_owned(), 21), ("ai.onnx.ml".to_owned(), 5), ("my".to_owned(), 1)]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn opset_imports(&self) -> Result<Vec<OperatorSetIdProto>, LibraryError> {
        let mut imports = Vec::new();
        for function in &self.functions {
            merge_imports(&mut imports, &function.opset_import, None, &|| {
                format!("function `{}`", FunctionKey::of_function(function))
            })?;
        }
        for function in &self.functions {
            let domain = normalise_domain(function.domain.as_deref().unwrap_or(""));
            if !imports
                .iter()
                .any(|o| normalise_domain(o.domain.as_deref().unwrap_or("")) == domain)
            {
                imports.push(OperatorSetIdProto {
                    domain: Some(domain.to_owned()),
                    version: Some(1),
                });
            }
        }
        Ok(imports)
    }
}

impl<'a> IntoIterator for &'a FunctionLibrary {
    type Item = &'a FunctionProto;
    type IntoIter = std::slice::Iter<'a, FunctionProto>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl TryFrom<Vec<FunctionProto>> for FunctionLibrary {
    type Error = LibraryError;

    /// As [`FunctionLibrary::from_functions`].
    fn try_from(functions: Vec<FunctionProto>) -> Result<FunctionLibrary, LibraryError> {
        FunctionLibrary::from_functions(functions)
    }
}

/// Adds each import of `new` to `imports` unless its domain is there at the same version; a
/// different version is an error naming both (`by` says who asked for the new one). `skip` is
/// a normalised domain left out (the default domain of a standard body, which takes the
/// model's version).
fn merge_imports(
    imports: &mut Vec<OperatorSetIdProto>,
    new: &[OperatorSetIdProto],
    skip: Option<&str>,
    by: &dyn Fn() -> String,
) -> Result<(), LibraryError> {
    for import in new {
        let domain = normalise_domain(import.domain.as_deref().unwrap_or(""));
        if skip == Some(domain) {
            continue;
        }
        let version = import.version.unwrap_or(0);
        match imports
            .iter()
            .find(|o| normalise_domain(o.domain.as_deref().unwrap_or("")) == domain)
        {
            Some(existing) if existing.version.unwrap_or(0) != version => {
                return Err(LibraryError::OpsetConflict {
                    domain: domain.to_owned(),
                    existing: existing.version.unwrap_or(0),
                    wanted: version,
                    by: by(),
                });
            }
            Some(_) => {}
            None => imports.push(OperatorSetIdProto {
                domain: Some(domain.to_owned()),
                version: Some(version),
            }),
        }
    }
    Ok(())
}

/// The version at which `imports` import the normalised `domain`; the last entry wins, as in
/// onnx's checker.
fn imported_version(imports: &[OperatorSetIdProto], domain: &str) -> Option<i64> {
    imports
        .iter()
        .rev()
        .find(|o| normalise_domain(o.domain.as_deref().unwrap_or("")) == domain)
        .map(|o| o.version.unwrap_or(0))
}
