//! What can go wrong: an operator the evaluator does not know, inputs that do not fit the graph,
//! a kernel that cannot compute, a limit reached. Each names where.

use std::fmt;

/// Why a model cannot be evaluated, or an evaluation failed.
///
/// ```
/// use onnx_eval::Error;
///
/// let model = onnx_text::parse_model(r#"
///     <ir_version: 10, opset_import: ["" : 21]>
///     g (float[2] x) => (float[2] y) { y = Frobnicate (x) }
/// "#).unwrap();
/// let error = onnx_eval::Evaluator::new(&model).unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "graph `g`, node 0 (Frobnicate, outputs `y`): no operator Frobnicate in domain `` at opset 21"
/// );
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Error {
    /// Where: a node (graph, index, operator, outputs), an input, or the model.
    place: String,
    message: String,
}

impl Error {
    pub(crate) fn new(place: impl Into<String>, message: impl Into<String>) -> Error {
        Error {
            place: place.into(),
            message: message.into(),
        }
    }

    /// What went wrong, without where.
    ///
    /// ```
    /// let model = onnx_text::parse_model("<ir_version: 10, opset_import: [\"\" : 21]> g (float[1] x) => (float[1] y) { y = Relu (x) }").unwrap();
    /// let error = onnx_eval::run(&model, &[]).unwrap_err();
    /// assert_eq!(error.message(), "the graph takes 1 inputs, 0 were given");
    /// ```
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.place.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.place, self.message)
        }
    }
}

impl std::error::Error for Error {}

/// A kernel's error: the message, placed at its node by the caller.
pub(crate) type KernelResult<T> = Result<T, String>;
