//! [`Place`]: where in a protobuf message a problem is, for the diagnostics of binary models,
//! which have no text to point into.

use std::fmt;

/// Where a problem is in a model with no text to point into: the steps from the model down,
/// such as ``graph `g`, node 3 (output `y`), attribute `value` ``. Empty for the model itself.
///
/// ```
/// use onnx_syntax::diagnostic::Place;
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
    /// assert!(onnx_syntax::diagnostic::Place::default().steps().is_empty());
    /// ```
    pub fn steps(&self) -> &[String] {
        &self.steps
    }

    /// The place the `steps` lead to, outermost first.
    ///
    /// ```
    /// use onnx_syntax::diagnostic::Place;
    /// let place = Place::new(vec!["graph `g`".into(), "node 0 (output `y`)".into()]);
    /// assert_eq!(place.to_string(), "graph `g`, node 0 (output `y`)");
    /// ```
    pub fn new(steps: Vec<String>) -> Place {
        Place { file: None, steps }
    }

    /// The same place, in the file `file`.
    ///
    /// ```
    /// use onnx_syntax::diagnostic::Place;
    /// assert_eq!(Place::default().in_file("m.onnx").to_string(), "m.onnx: the model");
    /// ```
    pub fn in_file(self, file: &str) -> Place {
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
