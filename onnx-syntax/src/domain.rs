//! Operator domains: the default domain's two names, the domains onnx defines, and how a node's
//! domain finds its version among the imports. Every layer (checks, inference, libraries, the
//! binary validator, the macros and the language server) asks here, so that they agree.

/// The default domain's written-out name: `ai.onnx` and `""` name the same domain.
pub const DEFAULT_NAME: &str = "ai.onnx";

/// The domains that onnx itself defines operators in, the default one under both its names.
///
/// ```
/// assert!(onnx_syntax::domain::STANDARD.contains(&"ai.onnx.ml"));
/// ```
pub const STANDARD: [&str; 5] = [
    "",
    DEFAULT_NAME,
    "ai.onnx.ml",
    "ai.onnx.preview",
    "ai.onnx.preview.training",
];

/// True if `domain` is the default domain, under either name.
///
/// ```
/// use onnx_syntax::domain::is_default;
/// assert!(is_default("") && is_default("ai.onnx") && !is_default("ai.onnx.ml"));
/// ```
pub fn is_default(domain: &str) -> bool {
    domain.is_empty() || domain == DEFAULT_NAME
}

/// The one name of a domain, as keys use it: the default domain is `""`.
///
/// ```
/// use onnx_syntax::domain::canonical;
/// assert_eq!(canonical("ai.onnx"), "");
/// assert_eq!(canonical("ai.onnx.ml"), "ai.onnx.ml");
/// ```
pub fn canonical(domain: &str) -> &str {
    if domain == DEFAULT_NAME { "" } else { domain }
}

/// How a domain reads in messages and documentation: the default domain by its name.
///
/// ```
/// assert_eq!(onnx_syntax::domain::display(""), "ai.onnx");
/// ```
pub fn display(domain: &str) -> &str {
    if domain.is_empty() {
        DEFAULT_NAME
    } else {
        domain
    }
}

/// The opset imports of a model or function, as onnx's checker reads them: the last entry of a
/// domain wins, and a node of the default domain that finds no entry under the name it writes
/// (`""` or `ai.onnx`) takes the entry under the other name. `V` is what each entry carries: a
/// version, or a version with more facts.
///
/// ```
/// use onnx_syntax::domain::Imports;
/// let imports = Imports::new([("", 18), ("com.x", 1), ("", 21)]);
/// assert_eq!(imports.get(""), Some(21));
/// assert_eq!(imports.get("ai.onnx"), Some(21));
/// assert_eq!(imports.exact("ai.onnx"), None);
/// // Both names listed: each keeps its own entry.
/// let both = Imports::new([("", 18), ("ai.onnx", 21)]);
/// assert_eq!((both.get(""), both.get("ai.onnx")), (Some(18), Some(21)));
/// ```
#[derive(Clone, Debug, Default)]
pub struct Imports<'a, V> {
    /// One entry per domain as written, in the order of first appearance.
    entries: Vec<(&'a str, V)>,
}

impl<'a, V: Copy> Imports<'a, V> {
    /// The imports of `entries`, in their written order.
    ///
    /// ```
    /// let imports = onnx_syntax::domain::Imports::new([("a", 1), ("a", 2)]);
    /// assert_eq!(imports.len(), 1);
    /// ```
    pub fn new(entries: impl IntoIterator<Item = (&'a str, V)>) -> Imports<'a, V> {
        let mut imports = Imports {
            entries: Vec::new(),
        };
        imports.extend(entries);
        imports
    }

    /// Adds `entries` after those already here: each replaces the entry of its domain.
    fn extend(&mut self, entries: impl IntoIterator<Item = (&'a str, V)>) {
        for (domain, value) in entries {
            match self.entries.iter_mut().find(|(known, _)| *known == domain) {
                Some(entry) => entry.1 = value,
                None => self.entries.push((domain, value)),
            }
        }
    }

    /// The entry of `domain` written exactly so, without the default domain's other name: what
    /// onnx's checker looks up for the nodes of a local function against its imports.
    ///
    /// ```
    /// let imports = onnx_syntax::domain::Imports::new([("ai.onnx", 21)]);
    /// assert_eq!(imports.exact(""), None);
    /// ```
    pub fn exact(&self, domain: &str) -> Option<V> {
        let (_, value) = self.entries.iter().find(|(known, _)| *known == domain)?;
        Some(*value)
    }

    /// The entry that applies to a node of `domain`: its own, else for the default domain that
    /// of its other name.
    ///
    /// ```
    /// let imports = onnx_syntax::domain::Imports::new([("ai.onnx", 21)]);
    /// assert_eq!(imports.get(""), Some(21));
    /// ```
    pub fn get(&self, domain: &str) -> Option<V> {
        self.exact(domain).or_else(|| match domain {
            "" => self.exact(DEFAULT_NAME),
            DEFAULT_NAME => self.exact(""),
            _ => None,
        })
    }

    /// The domains as written, each once, in the order of first appearance.
    ///
    /// ```
    /// let imports = onnx_syntax::domain::Imports::new([("b", 1), ("a", 1), ("b", 2)]);
    /// assert_eq!(imports.domains().collect::<Vec<_>>(), ["b", "a"]);
    /// ```
    pub fn domains(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.entries.iter().map(|(domain, _)| *domain)
    }

    /// How many domains are imported.
    ///
    /// ```
    /// assert!(onnx_syntax::domain::Imports::<i64>::new([]).is_empty());
    /// ```
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True if nothing is imported.
    ///
    /// ```
    /// assert!(!onnx_syntax::domain::Imports::new([("", 21)]).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl<'a> Imports<'a, i64> {
    /// The versions of an `opset_import` list of protobuf messages (an unset field is `""` or
    /// version 0, as onnx reads it).
    ///
    /// ```
    /// use onnx_syntax::domain::Imports;
    /// use onnx_runtime_types::OperatorSetIdProto;
    /// let list = [OperatorSetIdProto { domain: Some(String::new()), version: Some(21) }];
    /// assert_eq!(Imports::of_protos(&list).get("ai.onnx"), Some(21));
    /// ```
    pub fn of_protos(list: &'a [onnx_runtime_types::OperatorSetIdProto]) -> Imports<'a, i64> {
        Imports::new(list.iter().map(|import| {
            (
                import.domain.as_deref().unwrap_or_default(),
                import.version.unwrap_or(0),
            )
        }))
    }
}
