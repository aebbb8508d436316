//! The driver: [`CheckEntry`] and [`CheckTree`] run the checks on a text or a tree of any
//! form that [`Entry`] names, the tree checks walking the syntax tree and the shape checks
//! inferring on its lowering. The macros, the CLI, the language server and the validator all
//! check through them.

use onnx_syntax::{Entry, ParseError, Proto, Tree};

use crate::shapes::Sites;
use crate::{CheckOptions, Diagnostic, Diagnostics, Libraries, Report, walk};

/// The checks of a text of the form an [`Entry`] names.
///
/// ```
/// use onnx_check::{CheckEntry, CheckOptions};
/// use onnx_syntax::Entry;
/// assert!(Entry::Graph.check("g (x) => (y) { y = Neg(x) }", &CheckOptions::default()).is_ok());
/// ```
pub trait CheckEntry {
    /// Parses `text` as this form, runs the checks `options` enable, and lowers the tree if
    /// there is no problem. A syntax error is a diagnostic too.
    ///
    /// ```
    /// use onnx_check::CheckEntry;
    /// use onnx_syntax::Entry;
    /// use onnx_check::CheckOptions;
    /// let options = CheckOptions::default();
    /// assert!(Entry::Graph.check("g (x) => (y) { y = Neg(x) }", &options).is_ok());
    /// let err = Entry::Graph.check("g (x) => (y) { y = Neg(z) }", &options).unwrap_err();
    /// assert_eq!(err[0].message(), "value `z` is used but never defined");
    /// ```
    fn check(self, text: &str, options: &CheckOptions) -> Result<Proto, Diagnostics>;
    /// [`check`](CheckEntry::check) with function libraries in view: calls into their domains
    /// are checked as calls of the text's own functions are, each message naming the library.
    ///
    /// ```
    /// use onnx_check::CheckEntry;
    /// use onnx_syntax::Entry;
    /// use onnx_check::CheckOptions;
    /// use onnx_check::library::FunctionLibrary;
    /// let ops = FunctionLibrary::from_functions(onnx_syntax::parse_functions(
    ///     r#"<domain: "acme", opset_import: ["" : 21]> Sq (x) => (y) { y = Mul(x, x) }"#,
    /// )?)?;
    /// let text = r#"<opset_import: ["" : 21, "acme" : 1]> g (x) => (y) { y = acme.Sq(x, x) }"#;
    /// let err = Entry::Model.check_with(text, &CheckOptions::default(), &[("ops", &ops)]).unwrap_err();
    /// assert_eq!(err[0].message(), "function `acme.Sq` (library `ops`) declares 1 input, found 2");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn check_with(
        self,
        text: &str,
        options: &CheckOptions,
        libraries: &Libraries<'_>,
    ) -> Result<Proto, Diagnostics>;
    /// Parses `text` as this form and checks it, giving the tree, every problem and what the
    /// type checks covered. Only a syntax error is an `Err`.
    ///
    /// ```
    /// use onnx_check::CheckEntry;
    /// use onnx_syntax::Entry;
    /// use onnx_check::{Check, CheckOptions};
    /// // `y` and `z` untyped: the main graph's types are not the point here.
    /// let text = r#"<opset_import: ["" : 21]> g (float x, y) => (z) { t = Relu(x)  z = Add(t, y) }"#;
    /// let options = CheckOptions::default().allow(Check::MissingType);
    /// let (_, report) = Entry::Model.report(text, &options)?;
    /// assert!(report.diagnostics.is_empty());
    /// assert_eq!((report.coverage.typed, report.coverage.partially_typed), (1, 1));
    /// # Ok::<(), onnx_check::Diagnostics>(())
    /// ```
    fn report(self, text: &str, options: &CheckOptions) -> Result<(Tree, Report), Diagnostics>;
}

/// The checks of a syntax tree.
///
/// ```
/// use onnx_check::{CheckOptions, CheckTree};
/// use onnx_syntax::Entry;
/// let text = "g (x) => (y) { y = Neg(x) }";
/// assert!(Entry::Graph.parse(text)?.check(text, &CheckOptions::default()).diagnostics.is_empty());
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
pub trait CheckTree: Sized {
    /// Runs the checks that `options` enable on the tree, parsed from `source`, as the
    /// crate's documentation describes for its form; also counts what the type checks
    /// covered.
    ///
    /// ```
    /// use onnx_check::CheckTree;
    /// use onnx_syntax::Entry;
    /// use onnx_check::{Check, CheckOptions};
    /// let text = "g (x) => (y) { y = Relu(t) t = Abs(x) }";
    /// let report = Entry::Graph.parse(text)?.check(text, &CheckOptions::default());
    /// assert_eq!(report.diagnostics[0].check(), Some(Check::UseBeforeDefinition));
    /// # Ok::<(), onnx_syntax::ParseError>(())
    /// ```
    fn check(&self, source: &str, options: &CheckOptions) -> Report;
    /// Runs the checks as [`check`](CheckTree::check) does, the shape checks inferring on
    /// `lowered`, which gives the messages the tree stands for (made only if those checks
    /// run). The checks of binary models (the `onnx-validate` crate) give the model the tree
    /// was raised from.
    ///
    /// ```
    /// use onnx_check::CheckTree;
    /// use onnx_syntax::Entry;
    /// use onnx_check::CheckOptions;
    /// let text = "<opset_import: [\"\" : 21]> g (float[2] x) => (float[3] y) { y = Relu(x) }";
    /// let tree = Entry::Model.parse(text)?;
    /// let report = tree.check_lowered(text, &CheckOptions::default(), || tree.clone().lower());
    /// assert_eq!(report.diagnostics[0].check(), Some(onnx_check::Check::ShapeMismatch));
    /// # Ok::<(), onnx_syntax::ParseError>(())
    /// ```
    fn check_lowered(
        &self,
        source: &str,
        options: &CheckOptions,
        lowered: impl FnOnce() -> Proto,
    ) -> Report;
    /// Checks the tree as [`check`](CheckTree::check) does, and lowers it, doing the work once:
    /// the shape checks, which work on protobuf messages, infer on the lowering given back
    /// rather than on a copy. The macros use it.
    ///
    /// ```
    /// use onnx_check::CheckTree;
    /// use onnx_syntax::{Entry, Proto};
    /// use onnx_check::CheckOptions;
    /// let text = "<opset_import: [\"\" : 21]> g (float[2, 3] x) => (float[3, 2] y) { y = Relu(x) }";
    /// let (report, proto) = Entry::Model.parse(text)?.check_and_lower(text, &CheckOptions::default());
    /// assert_eq!(report.diagnostics[0].message(),
    ///     "`y` is declared float[3, 2] but the graph computes float[2, 3] (`Relu` at line 1)");
    /// assert!(matches!(proto, Proto::Model(_)));
    /// # Ok::<(), onnx_syntax::ParseError>(())
    /// ```
    fn check_and_lower(self, source: &str, options: &CheckOptions) -> (Report, Proto);
    /// [`check_and_lower`](CheckTree::check_and_lower) with function libraries in view (see
    /// [`CheckEntry::check_with`]).
    ///
    /// ```
    /// use onnx_check::CheckTree;
    /// use onnx_syntax::Entry;
    /// use onnx_check::CheckOptions;
    /// use onnx_check::library::FunctionLibrary;
    /// let ops = FunctionLibrary::from_functions(onnx_syntax::parse_functions(
    ///     r#"<domain: "acme", opset_import: ["" : 21]> Sq (x) => (y) { y = Mul(x, x) }"#,
    /// )?)?;
    /// let text = r#"<opset_import: ["" : 21, "acme" : 1]> g (x) => (y) { y = acme.Sqr(x) }"#;
    /// let tree = Entry::Model.parse(text)?;
    /// let (report, _) = tree.check_and_lower_with(text, &CheckOptions::default(), &[("ops", &ops)]);
    /// assert_eq!(report.diagnostics[0].message(),
    ///     "no function `acme.Sqr` is defined in domain \"acme\"; did you mean `Sq` (library `ops`)?");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn check_and_lower_with(
        self,
        source: &str,
        options: &CheckOptions,
        libraries: &Libraries<'_>,
    ) -> (Report, Proto);
}

/// How long a text must be (in bytes) for work on it to be split between threads, as
/// [`check_and_lower_split`] does: below it, the work takes less than starting a thread. A
/// 64 KiB text is about 1,500 nodes.
///
/// ```
/// assert_eq!(onnx_check::BIG_TEXT, 65536);
/// ```
pub const BIG_TEXT: usize = 1 << 16;

impl CheckEntry for Entry {
    fn check(self, text: &str, options: &CheckOptions) -> Result<Proto, Diagnostics> {
        self.check_with(text, options, &[])
    }

    fn check_with(
        self,
        text: &str,
        options: &CheckOptions,
        libraries: &Libraries<'_>,
    ) -> Result<Proto, Diagnostics> {
        let tree = parse_diagnosed(self, text)?;
        let (report, proto) = tree.check_and_lower_with(text, options, libraries);
        if report.diagnostics.is_empty() {
            Ok(proto)
        } else {
            Err(Diagnostics::new(text, report.diagnostics))
        }
    }

    fn report(self, text: &str, options: &CheckOptions) -> Result<(Tree, Report), Diagnostics> {
        let tree = parse_diagnosed(self, text)?;
        let report = tree.check(text, options);
        Ok((tree, report))
    }
}

/// Parses `text` as the form `entry` names, a syntax error being a diagnostic (the one
/// conversion of a `ParseError`, which has its line already).
fn parse_diagnosed(entry: Entry, text: &str) -> Result<Tree, Diagnostics> {
    entry.parse(text).map_err(Diagnostics::from)
}

impl CheckTree for Tree {
    fn check(&self, source: &str, options: &CheckOptions) -> Report {
        // Inference works on the lowering, of a copy here.
        self.check_lowered(source, options, || self.clone().lower())
    }

    fn check_lowered(
        &self,
        source: &str,
        options: &CheckOptions,
        lowered: impl FnOnce() -> Proto,
    ) -> Report {
        let mut report = walk_tree(self, source, options, &[]);
        if let Some(sites) = Sites::wanted(self, &report, options) {
            sites.check(&lowered(), &mut report, source, options, &[]);
        }
        report
    }

    fn check_and_lower(self, source: &str, options: &CheckOptions) -> (Report, Proto) {
        self.check_and_lower_with(source, options, &[])
    }

    fn check_and_lower_with(
        self,
        source: &str,
        options: &CheckOptions,
        libraries: &Libraries<'_>,
    ) -> (Report, Proto) {
        let (mut report, proto, sites) = walk_and_lower(self, source, options, libraries);
        if let Some(sites) = sites {
            sites.check(&proto, &mut report, source, options, libraries);
        }
        (report, proto)
    }
}

/// Parses a text with `parse`, checks it as [`CheckTree::check_and_lower_with`] does and lowers
/// it, runs `inspect` on the tree and `beside` on the lowering: the macros take the holes'
/// places from the tree and encode the lowering. Only a syntax error is an `Err`.
///
/// For a big text ([`BIG_TEXT`] or more) the work is split between threads, since more cores
/// finish it sooner. The checks walk the syntax tree, and the lowering consumes a tree, so the
/// text is parsed twice, at the same time: this thread walks its tree, while another thread
/// lowers its own and runs the shape checks on the lowering, with `beside` on a third. The
/// results are those of one thread: the shape checks count only if the other checks found
/// nothing.
///
/// ```
/// use onnx_check::{CheckOptions, check_and_lower_split};
/// use onnx_syntax::{Entry, Proto};
/// let mut text = String::from("<opset_import: [\"\" : 21]> g (float[N] x0) => (float[N] y) {\n");
/// for i in 0..3000 {
///     text += &format!("  x{} = LeakyRelu(x{i})\n", i + 1);
/// }
/// text += "  y = Identity(x3000)\n}";
/// assert!(text.len() >= onnx_check::BIG_TEXT); // so the work is split between threads
/// let parse = || Entry::Model.parse(&text);
/// let nodes = |tree: &onnx_syntax::Tree| match tree {
///     onnx_syntax::Tree::Model(model) => model.graph.nodes.len(),
///     _ => 0,
/// };
/// let options = CheckOptions::default();
/// let (count, report, proto, bytes) =
///     check_and_lower_split(parse, &text, &options, &[], nodes, Proto::encode)?;
/// assert!(report.diagnostics.is_empty());
/// assert_eq!(count, 3001);
/// assert_eq!(bytes, proto.encode());
///
/// // A shape error is found by the thread that lowers, and reported.
/// let wrong = text.replace("float[N] y", "float[N, 2] y");
/// let parse = || Entry::Model.parse(&wrong);
/// let (_, report, _, _) = check_and_lower_split(parse, &wrong, &options, &[], nodes, |_| ())?;
/// assert_eq!(report.diagnostics[0].check(), Some(onnx_check::Check::ShapeMismatch));
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
pub fn check_and_lower_split<H, R: Send>(
    parse: impl Fn() -> Result<Tree, ParseError> + Sync,
    source: &str,
    options: &CheckOptions,
    libraries: &Libraries<'_>,
    inspect: impl FnOnce(&Tree) -> H,
    beside: impl Fn(&Proto) -> R + Sync,
) -> Result<(H, Report, Proto, R), ParseError> {
    let in_turn = |tree: Tree, inspected: H| {
        let (report, proto) = tree.check_and_lower_with(source, options, libraries);
        let result = beside(&proto);
        Ok((inspected, report, proto, result))
    };
    if source.len() < BIG_TEXT {
        let tree = parse()?;
        let inspected = inspect(&tree);
        return in_turn(tree, inspected);
    }
    let shapes = Sites::enabled(options);
    let (parse, beside) = (&parse, &beside);
    std::thread::scope(|scope| {
        let lowering =
            std::thread::Builder::new()
                .stack_size(STACK)
                .spawn_scoped(scope, move || {
                    let tree = parse().ok()?;
                    let sites = if shapes { Sites::of(&tree) } else { None };
                    let proto = tree.lower();
                    let (diagnostics, result) =
                        shapes_beside(&proto, sites, source, options, libraries, beside);
                    Some((proto, diagnostics, result))
                });
        let tree = parse()?;
        let inspected = inspect(&tree);
        let Ok(lowering) = lowering else {
            // No thread to be had: all here, in turn.
            return in_turn(tree, inspected);
        };
        let mut report = walk_tree(&tree, source, options, libraries);
        // Freed while the other thread finishes.
        drop(tree);
        let Some((proto, diagnostics, result)) = lowering.join().ok().flatten() else {
            // The other thread panicked (its parse cannot fail where this one did not). Done
            // in turn, inference runs only if the other checks found nothing, as always; if it
            // panics then, the panic comes back here.
            return in_turn(parse()?, inspected);
        };
        if report.diagnostics.is_empty() {
            report.diagnostics.extend(diagnostics);
        }
        Ok((inspected, report, proto, result))
    })
}

/// The stack of the thread that parses again, lowers and infers in [`check_and_lower_split`]:
/// both recurse into nested graphs, and the thread that calls is the compiler's, with 8 MiB.
const STACK: usize = 8 << 20;

/// The shape checks' diagnostics on `proto`, with `sites` (none: the checks do not run), and
/// `beside` on `proto`, run on a thread of its own meanwhile.
fn shapes_beside<R: Send>(
    proto: &Proto,
    sites: Option<Sites>,
    source: &str,
    options: &CheckOptions,
    libraries: &Libraries<'_>,
    beside: &(impl Fn(&Proto) -> R + Sync),
) -> (Vec<Diagnostic>, R) {
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new().spawn_scoped(scope, move || beside(proto));
        let mut report = Report::default();
        if let Some(sites) = sites {
            sites.check(proto, &mut report, source, options, libraries);
        }
        let result = match thread {
            Ok(thread) => thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => beside(proto),
        };
        (report.diagnostics, result)
    })
}

/// Every check but the shape checks, then the lowering, with the sites of the shape checks if
/// they are to run.
fn walk_and_lower(
    tree: Tree,
    source: &str,
    options: &CheckOptions,
    libraries: &Libraries<'_>,
) -> (Report, Proto, Option<Sites>) {
    let report = walk_tree(&tree, source, options, libraries);
    let sites = Sites::wanted(&tree, &report, options);
    (report, tree.lower(), sites)
}

/// Every check but the shape checks.
fn walk_tree(
    tree: &Tree,
    source: &str,
    options: &CheckOptions,
    libraries: &Libraries<'_>,
) -> Report {
    match tree {
        Tree::Model(model) => walk::model(model, source, options, libraries),
        Tree::Graph(graph) => walk::graph(graph, source, options, libraries),
        Tree::Function(function) => {
            let function = std::slice::from_ref(function);
            walk::library(function, false, source, options, libraries)
        }
        Tree::Functions(functions) => walk::library(functions, true, source, options, libraries),
        Tree::Node(node) => walk::nodes(std::slice::from_ref(node), source, options, libraries),
        Tree::Nodes(nodes) | Tree::NodeList(nodes) => {
            walk::nodes(nodes, source, options, libraries)
        }
    }
}
