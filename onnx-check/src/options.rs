//! Which checks run: [`CheckOptions`], and its text-level methods, one per entry point.

use onnx_runtime_types::{FunctionProto, GraphProto, ModelProto, NodeProto};

use crate::{Category, Check, CheckEntry, Diagnostics, Libraries, Report};
use onnx_syntax::{Entry, FromProto, typed};

/// Which checks run, and how line numbers in messages are counted. The default runs them all.
///
/// Its text-level methods parse, check and lower in one call, giving every problem (a syntax
/// error included) as [`Diagnostics`]; each is [`Entry::check`] for one entry point.
///
/// ```
/// use onnx_check::{Check, CheckOptions};
/// let options = CheckOptions::default().allow(Check::UndefinedValue);
/// assert!(!options.is_enabled(Check::UndefinedValue));
/// assert!(options.is_enabled(Check::DuplicateDefinition));
/// assert!(options.check_graph("g (x) => (y) { y = Add(x, q) }").is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckOptions {
    enabled: u64,
    pub(super) first_line: usize,
}

impl Default for CheckOptions {
    fn default() -> CheckOptions {
        CheckOptions::all()
    }
}

impl CheckOptions {
    /// Every check on.
    ///
    /// ```
    /// use onnx_check::{Check, CheckOptions};
    /// assert!(Check::ALL.iter().all(|&c| CheckOptions::all().is_enabled(c)));
    /// ```
    pub const fn all() -> CheckOptions {
        CheckOptions {
            enabled: (1 << Check::ALL.len()) - 1,
            first_line: 1,
        }
    }

    /// Every check off (the macros' `#![unchecked]`): only syntax errors remain.
    ///
    /// ```
    /// use onnx_check::CheckOptions;
    /// assert!(CheckOptions::none().check_graph("g () => (y) {}").is_ok());
    /// ```
    pub const fn none() -> CheckOptions {
        CheckOptions {
            enabled: 0,
            first_line: 1,
        }
    }

    /// The same options with `check` off.
    ///
    /// ```
    /// use onnx_check::{Check, CheckOptions};
    /// assert!(!CheckOptions::all().allow(Check::UnproducedOutput).is_enabled(Check::UnproducedOutput));
    /// ```
    pub const fn allow(self, check: Check) -> CheckOptions {
        CheckOptions {
            enabled: self.enabled & !check.bit(),
            ..self
        }
    }

    /// The same options with `check` on.
    ///
    /// ```
    /// use onnx_check::{Check, CheckOptions};
    /// assert!(CheckOptions::none().deny(Check::UnproducedOutput).is_enabled(Check::UnproducedOutput));
    /// ```
    pub const fn deny(self, check: Check) -> CheckOptions {
        CheckOptions {
            enabled: self.enabled | check.bit(),
            ..self
        }
    }

    /// True if `check` runs.
    ///
    /// ```
    /// use onnx_check::{Check, CheckOptions};
    /// assert!(CheckOptions::default().is_enabled(Check::LiteralOutOfRange));
    /// ```
    pub const fn is_enabled(&self, check: Check) -> bool {
        self.enabled & check.bit() != 0
    }

    /// True if any check of `category` runs.
    ///
    /// ```
    /// use onnx_check::{Category, Check, CheckOptions};
    /// assert!(!CheckOptions::none().deny(Check::DataType).any_enabled(Category::Schema));
    /// assert!(CheckOptions::none().deny(Check::AttributeType).any_enabled(Category::Schema));
    /// ```
    pub const fn any_enabled(&self, category: Category) -> bool {
        self.enabled & category.bits() != 0
    }

    /// The same options, counting the first line of the source text as line `line` in messages
    /// such as "`t` is already defined at line 3" (default 1). Spans are unaffected.
    ///
    /// ```
    /// use onnx_check::CheckOptions;
    /// let err = CheckOptions::default().first_line(10).check_graph("g (x) => (x) {\n x = Abs(x) }").unwrap_err();
    /// assert_eq!(err[0].message(), "`x` is already defined at line 10");
    /// ```
    pub const fn first_line(self, line: usize) -> CheckOptions {
        CheckOptions {
            first_line: line,
            ..self
        }
    }

    /// Parses a model, checks it, and lowers it if there is no problem.
    ///
    /// ```
    /// let options = onnx_check::CheckOptions::default();
    /// let model = options.check_model(r#"<opset_import: ["" : 21]> g (float[N] x) => (float[N] y) { y = Relu(x) }"#).unwrap();
    /// assert_eq!(model.graph.unwrap().node.len(), 1);
    /// assert!(options.check_model("g (float[N] x) => (float[N] y) { y = Relu(x) }").is_err()); // no import for ""
    /// ```
    pub fn check_model(&self, text: &str) -> Result<ModelProto, Diagnostics> {
        self.check(Entry::Model, text)
    }

    /// Parses a graph, checks it, and lowers it if there is no problem.
    ///
    /// ```
    /// let options = onnx_check::CheckOptions::default();
    /// assert!(options.check_graph("g (x) => (y) { y = Relu(x) }").is_ok());
    /// assert!(options.check_graph("g (x) => (y) { y = Relu(z) }").is_err());
    /// ```
    pub fn check_graph(&self, text: &str) -> Result<GraphProto, Diagnostics> {
        self.check(Entry::Graph, text)
    }

    /// Parses a function, checks it, and lowers it if there is no problem.
    ///
    /// ```
    /// let options = onnx_check::CheckOptions::default();
    /// assert!(options.check_function("F <a> (x) => (y) { y = Foo <b = @a> (x) }").is_ok());
    /// assert!(options.check_function("F <a> (x) => (y) { y = Foo <b = @c> (x) }").is_err());
    /// ```
    pub fn check_function(&self, text: &str) -> Result<FunctionProto, Diagnostics> {
        self.check(Entry::Function, text)
    }

    /// Parses a function library, checks it, and lowers it if there is no problem.
    ///
    /// ```
    /// let options = onnx_check::CheckOptions::default();
    /// let lib = r#"<domain: "my"> F (x) => (y) { y = Abs(x) }  G (x) => (y) { y = my.F(x) }"#;
    /// assert_eq!(options.check_functions(lib).unwrap().len(), 2);
    /// let typo = r#"<domain: "my"> F (x) => (y) { y = Abs(x) }  G (x) => (y) { y = my.E(x) }"#;
    /// assert!(options.check_functions(typo).is_err());
    /// ```
    pub fn check_functions(&self, text: &str) -> Result<Vec<FunctionProto>, Diagnostics> {
        self.check(Entry::Functions, text)
    }

    /// Parses a node, checks it, and lowers it if there is no problem.
    ///
    /// ```
    /// let options = onnx_check::CheckOptions::default();
    /// assert!(options.check_node("y = Foo <a = 1> (x)").is_ok());
    /// assert!(options.check_node("y = Foo <a = 1, a = 2> (x)").is_err());
    /// ```
    pub fn check_node(&self, text: &str) -> Result<NodeProto, Diagnostics> {
        self.check(Entry::Node, text)
    }

    /// Parses a braced node list `{ node* }`, checks it, and lowers it if there is no problem.
    ///
    /// ```
    /// let options = onnx_check::CheckOptions::default();
    /// assert!(options.check_node_list("{ t = Abs(x)  y = Neg(t) }").is_ok());
    /// assert!(options.check_node_list("{ y = Neg(t)  t = Abs(x) }").is_err());
    /// ```
    pub fn check_node_list(&self, text: &str) -> Result<Vec<NodeProto>, Diagnostics> {
        self.check(Entry::NodeList, text)
    }

    /// Parses a sequence of nodes without braces, checks it, and lowers it if there is no
    /// problem.
    ///
    /// ```
    /// let options = onnx_check::CheckOptions::default();
    /// assert!(options.check_nodes("t = Abs(x)  y = Neg(t)").is_ok());
    /// assert!(options.check_nodes("t = Abs(x)  t = Neg(x)").is_err());
    /// ```
    pub fn check_nodes(&self, text: &str) -> Result<Vec<NodeProto>, Diagnostics> {
        self.check(Entry::Nodes, text)
    }
}

impl CheckOptions {
    /// Parses a model, checks it with function libraries in view, and lowers it if there is no
    /// problem. A call into a library's domain must name one of its functions, and is checked
    /// against it as a call of a model-local function is (signature, shapes through the body);
    /// each message names the library by the name given with it.
    ///
    /// ```
    /// use onnx_check::CheckOptions;
    /// use onnx_check::library::FunctionLibrary;
    /// let acme = FunctionLibrary::from_functions(onnx_syntax::parse_functions(r#"
    ///     <domain: "com.acme", opset_import: ["" : 21]>
    ///     Scale <alpha: float = 1.0> (x) => (y) { a = Constant <value_float: float = @alpha> ()  y = Mul(x, a) }
    /// "#)?)?;
    /// let text = r#"<ir_version: 10, opset_import: ["" : 21, "com.acme" : 1]>
    ///     g (float[N] x) => (float[N] y) { y = com.acme.Scale <alpah = 2.0> (x) }"#;
    /// let err = CheckOptions::default().check_model_with(text, &[("acme.onnxtxt", &acme)]).unwrap_err();
    /// assert_eq!(err[0].message(),
    ///     "function `com.acme.Scale` (library `acme.onnxtxt`) has no attribute `alpah`; did you mean `alpha`?");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn check_model_with(
        &self,
        text: &str,
        libraries: &Libraries<'_>,
    ) -> Result<ModelProto, Diagnostics> {
        let entry = Entry::Model;
        entry
            .check_with(text, self, libraries)
            .map(|proto| typed(entry, proto))
    }

    /// Parses a model and checks it, giving every problem and what the type checks covered.
    /// Only a syntax error is an `Err`.
    ///
    /// ```
    /// use onnx_check::{Check, CheckOptions};
    /// // `y` and `z` untyped: the main graph's types are not the point here.
    /// let text = r#"<opset_import: ["" : 21]> g (float x, y) => (z) { t = Relu(x)  z = Add(t, y) }"#;
    /// let options = CheckOptions::default().allow(Check::MissingType);
    /// let report = options.report_model(text).unwrap();
    /// assert!(report.diagnostics.is_empty());
    /// assert_eq!((report.coverage.typed, report.coverage.partially_typed), (1, 1));
    /// ```
    pub fn report_model(&self, text: &str) -> Result<Report, Diagnostics> {
        Entry::Model.report(text, self).map(|(_, report)| report)
    }

    /// Parses, checks and lowers `text` as `entry` gives it, typed.
    fn check<T: FromProto>(&self, entry: Entry, text: &str) -> Result<T, Diagnostics> {
        entry.check(text, self).map(|proto| typed(entry, proto))
    }
}
