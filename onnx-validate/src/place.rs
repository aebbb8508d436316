//! [`Place`]: where in a binary model a problem is, as the steps from the model down to it.

use std::fmt;

/// Where a problem is in a model with no text to point into: the steps from the model down,
/// such as ``graph `g`, node 3 (output `y`), attribute `value` ``. Empty for the model itself.
///
/// ```
/// use onnx_validate::Place;
/// assert_eq!(Place::default().to_string(), "the model");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Place {
    file: Option<String>,
    steps: Vec<String>,
}

impl Place {
    /// The steps, outermost first, as they read: ``graph `g` ``, `node 3 (output `y`)`.
    ///
    /// ```
    /// assert!(onnx_validate::Place::default().steps().is_empty());
    /// ```
    pub fn steps(&self) -> &[String] {
        &self.steps
    }

    pub(super) fn new(steps: Vec<String>) -> Place {
        Place { file: None, steps }
    }

    pub(super) fn in_file(self, file: &str) -> Place {
        Place {
            file: Some(file.to_owned()),
            ..self
        }
    }
}

/// The file (if known), then the steps joined by commas, or "the model".
impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{file}: ")?;
        }
        if self.steps.is_empty() {
            return f.write_str("the model");
        }
        f.write_str(&self.steps.join(", "))
    }
}

/// The step to a named item of a list (`initializer \`w\``), or to its index where it has no
/// name (`initializer 2`).
pub(super) fn named_step(list: &str, index: usize, name: &str) -> String {
    match name {
        "" => format!("{list} {index}"),
        _ => format!("{list} {}", quoted(name)),
    }
}

/// The step to node `index` of a body, named by its first output where it has one.
pub(super) fn node_step(index: usize, node: &onnx_runtime_types::NodeProto) -> String {
    match node.output.iter().find(|o| !o.is_empty()) {
        Some(output) => format!("node {index} (output {})", quoted(output)),
        None => format!("node {index}"),
    }
}

/// How a step names a value: in backticks, with control characters escaped, and cut after 80
/// characters (a name comes from an untrusted model).
pub(super) fn quoted(name: &str) -> String {
    let mut out = String::with_capacity(name.len().min(80) + 2);
    out.push('`');
    for (i, c) in name.chars().enumerate() {
        if i == 80 {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out.push('`');
    out
}
