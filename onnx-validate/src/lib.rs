//! Checks of binary models: a decoded `ModelProto` against the IR spec and onnx 1.23.2's
//! checker (`onnx.checker.check_model(full_check=True)`), for models that come from outside.
//!
//! [`ModelCheck`] decodes the bytes under [`DecodeLimits`] (`decode`), runs the rules that only
//! protobuf messages can break on the messages themselves (`rules`, `tensor`, `external`), and
//! the checks of the syntax (structure, declarations, operator schemas, shapes) on the model's
//! syntax tree, raised from its messages (`raise`, `syntax`), never re-parsed from text. A
//! rule's finding names its place in the model ([`Place`]: graph, node index and output,
//! attribute, tensor); a finding of the syntax's checks is positioned in the text that
//! `onnx-text print` shows.
//!
//! ```
//! use onnx_validate::ModelCheck;
//! use onnx_check::{Check, CheckOptions};
//! use prost::Message;
//!
//! let text = r#"<ir_version: 10, opset_import: ["" : 21]> g (float[2] x) => (float[2] y) { y = Relu(x) }"#;
//! let mut model = onnx_syntax::parse_model(text)?;
//! let check = ModelCheck::new(CheckOptions::default());
//! assert!(check.check_bytes(&model.encode_to_vec()).is_ok());
//!
//! model.ir_version = Some(99);
//! let err = check.check_bytes(&model.encode_to_vec()).unwrap_err();
//! assert_eq!(err.problems()[0].check(), Some(Check::IrVersion));
//! assert_eq!(err.problems()[0].message(), "ir_version 99 is newer than IR 14, the newest onnx 1.23.2 knows");
//! # Ok::<(), onnx_syntax::ParseError>(())
//! ```

mod decode;
mod external;
mod place;
mod raise;
mod rules;
mod syntax;
mod tensor;

use std::fmt;
use std::path::PathBuf;

use onnx_runtime_types::ModelProto;

use onnx_check::{Check, CheckOptions, Diagnostics};

pub use decode::DecodeLimits;
pub use external::read_external_data;
pub use place::Place;

/// The newest IR version onnx 1.23.2 knows (`onnx.IR_VERSION`).
pub const NEWEST_IR_VERSION: i64 = 14;

/// How a binary model is checked: which checks run ([`CheckOptions`]), the folder its external
/// data must stay in, and the limits of decoding.
///
/// ```
/// use onnx_validate::{DecodeLimits, ModelCheck};
/// use onnx_check::{Check, CheckOptions};
///
/// let check = ModelCheck::new(CheckOptions::default().allow(Check::MissingType))
///     .model_dir("models")
///     .limits(DecodeLimits::default().max_depth(16));
/// assert_eq!(check.dir(), Some(std::path::Path::new("models")));
/// ```
#[derive(Clone, Debug)]
pub struct ModelCheck {
    options: CheckOptions,
    model_dir: Option<PathBuf>,
    limits: DecodeLimits,
}

impl Default for ModelCheck {
    fn default() -> ModelCheck {
        ModelCheck::new(CheckOptions::default())
    }
}

impl ModelCheck {
    /// Checks with `options`, without a model folder (a model with external data is then an
    /// error: there is no folder to find it in) and with the default [`DecodeLimits`].
    ///
    /// ```
    /// let check = onnx_validate::ModelCheck::new(Default::default());
    /// assert_eq!(check.dir(), None);
    /// ```
    pub fn new(options: CheckOptions) -> ModelCheck {
        ModelCheck {
            options,
            model_dir: None,
            limits: DecodeLimits::default(),
        }
    }

    /// The same check, with external data looked for in `dir` (the folder of the model file):
    /// locations must be relative and stay inside it, symbolic links resolved.
    ///
    /// ```
    /// let check = onnx_validate::ModelCheck::default().model_dir("/srv/models");
    /// assert!(check.dir().is_some());
    /// ```
    pub fn model_dir(self, dir: impl Into<PathBuf>) -> ModelCheck {
        ModelCheck {
            model_dir: Some(dir.into()),
            ..self
        }
    }

    /// The same check, with other decoding limits.
    ///
    /// ```
    /// use onnx_validate::{DecodeLimits, ModelCheck};
    /// let check = ModelCheck::default().limits(DecodeLimits::default().max_memory(1 << 20));
    /// assert!(check.check_bytes(&[]).is_err()); // an empty message is a model without a graph
    /// ```
    pub fn limits(self, limits: DecodeLimits) -> ModelCheck {
        ModelCheck { limits, ..self }
    }

    /// The folder external data must stay in, if one was given.
    ///
    /// ```
    /// assert_eq!(onnx_validate::ModelCheck::default().dir(), None);
    /// ```
    pub fn dir(&self) -> Option<&std::path::Path> {
        self.model_dir.as_deref()
    }

    /// Decodes `bytes` as a `ModelProto` within the limits and checks it; the model if nothing
    /// is wrong, or every problem found.
    ///
    /// ```
    /// use onnx_validate::ModelCheck;
    /// let err = ModelCheck::default().check_bytes(b"\x0a\xff").unwrap_err();
    /// assert_eq!(err.problems()[0].check(), None); // not a model at all
    /// assert!(err.to_string().contains("cannot be decoded"), "{err}");
    /// ```
    pub fn check_bytes(&self, bytes: &[u8]) -> Result<ModelProto, ModelDiagnostics> {
        let model = decode::decode(bytes, &self.limits).map_err(|problem| ModelDiagnostics {
            problems: vec![problem],
            text: None,
        })?;
        self.check(&model)?;
        Ok(model)
    }

    /// Checks a model already decoded, whose graphs and types nest within the limits' depth
    /// (deeper is an error, measured without recursion; the memory limit applies only to
    /// [`check_bytes`](ModelCheck::check_bytes)).
    ///
    /// ```
    /// use onnx_validate::ModelCheck;
    /// let model = onnx_syntax::parse_model(r#"<ir_version: 10, opset_import: ["" : 21]> g (float[2] x) => (float[2] y) { y = Relu(x) }"#)?;
    /// assert!(ModelCheck::default().check(&model).is_ok());
    /// # Ok::<(), onnx_syntax::ParseError>(())
    /// ```
    pub fn check(&self, model: &ModelProto) -> Result<(), ModelDiagnostics> {
        if let Some(problem) = decode::too_deep(model, &self.limits) {
            return Err(ModelDiagnostics {
                problems: vec![problem],
                text: None,
            });
        }
        let problems = rules::check(model, &self.options, self.model_dir.as_deref());
        let text = syntax::check(model, &self.options);
        if problems.is_empty() && text.is_none() {
            Ok(())
        } else {
            Err(ModelDiagnostics { problems, text })
        }
    }
}

/// One problem of a binary model that a rule found in its messages: the check, the place in
/// the model, and what is wrong.
///
/// ```
/// use onnx_validate::ModelCheck;
/// use onnx_check::Check;
/// let mut model = onnx_syntax::parse_model(r#"<ir_version: 10, opset_import: ["" : 21]> g (float[2] x) => (float[2] y) { y = Relu(x) }"#)?;
/// model.graph.as_mut().unwrap().node[0].op_type = Some(String::new());
/// let err = ModelCheck::default().check(&model).unwrap_err();
/// let problem = &err.problems()[0];
/// assert_eq!(problem.check(), Some(Check::EmptyOpType));
/// assert_eq!(problem.place().to_string(), "graph `g`, node 0 (output `y`)");
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelProblem {
    check: Option<Check>,
    place: Place,
    message: String,
}

impl ModelProblem {
    pub(crate) fn new(check: Option<Check>, place: Place, message: String) -> ModelProblem {
        ModelProblem {
            check,
            place,
            message,
        }
    }

    /// The check that found it; `None` when the bytes are not a model at all.
    ///
    /// ```
    /// let err = onnx_validate::ModelCheck::default().check_bytes(b"\xff").unwrap_err();
    /// assert_eq!(err.problems()[0].check(), None);
    /// ```
    pub fn check(&self) -> Option<Check> {
        self.check
    }

    /// Where in the model it is.
    ///
    /// ```
    /// let err = onnx_validate::ModelCheck::default().check_bytes(b"").unwrap_err();
    /// assert_eq!(err.problems()[0].place().to_string(), "the model");
    /// ```
    pub fn place(&self) -> &Place {
        &self.place
    }

    /// What is wrong.
    ///
    /// ```
    /// let err = onnx_validate::ModelCheck::default().check_bytes(b"").unwrap_err();
    /// assert_eq!(err.problems()[0].message(), "the model has no ir_version");
    /// ```
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// `error[check]: message` and a ` --> ` line naming the place.
impl fmt::Display for ModelProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.check {
            Some(check) => writeln!(f, "error[{check}]: {}", self.message)?,
            None => writeln!(f, "error: {}", self.message)?,
        }
        writeln!(f, " --> {}", self.place)
    }
}

/// Every problem of a binary model: those the rules found in its messages, with their places,
/// and those the checks of the syntax found in its tree, positioned in its printed text.
///
/// ```
/// use onnx_validate::ModelCheck;
/// let mut model = onnx_syntax::parse_model(r#"<ir_version: 10, opset_import: ["" : 21]> g (float[2] x) => (float[2] y) { y = Relu(q) }"#)?;
/// model.metadata_props = vec![Default::default(), Default::default()];
/// let err = ModelCheck::default().check(&model).unwrap_err();
/// assert_eq!(err.problems().len(), 1); // duplicate_metadata
/// assert_eq!(err.text().unwrap().len(), 1); // undefined_value, positioned in the printed text
/// assert_eq!(err.len(), 2);
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
#[derive(Clone, Debug)]
pub struct ModelDiagnostics {
    problems: Vec<ModelProblem>,
    text: Option<Diagnostics>,
}

impl ModelDiagnostics {
    /// The problems found in the messages.
    ///
    /// ```
    /// let err = onnx_validate::ModelCheck::default().check_bytes(b"").unwrap_err();
    /// assert!(!err.problems().is_empty());
    /// ```
    pub fn problems(&self) -> &[ModelProblem] {
        &self.problems
    }

    /// The problems the checks of the syntax found, positioned in the printed text, if any.
    ///
    /// ```
    /// let err = onnx_validate::ModelCheck::default().check_bytes(b"").unwrap_err();
    /// assert!(err.text().is_none());
    /// ```
    pub fn text(&self) -> Option<&Diagnostics> {
        self.text.as_ref()
    }

    /// The number of problems.
    ///
    /// ```
    /// let err = onnx_validate::ModelCheck::default().check_bytes(b"").unwrap_err();
    /// assert_eq!(err.len(), 2); // no ir_version, no graph
    /// ```
    pub fn len(&self) -> usize {
        self.problems.len() + self.text.as_ref().map_or(0, |text| text.len())
    }

    /// True if there is no problem (never, for an `Err` of a check).
    ///
    /// ```
    /// let err = onnx_validate::ModelCheck::default().check_bytes(b"").unwrap_err();
    /// assert!(!err.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The same problems, with `origin` (a file name) in their ` --> ` lines.
    ///
    /// ```
    /// let err = onnx_validate::ModelCheck::default().check_bytes(b"").unwrap_err();
    /// assert!(err.with_origin("m.onnx").to_string().contains(" --> m.onnx: the model"));
    /// ```
    pub fn with_origin(self, origin: &str) -> ModelDiagnostics {
        ModelDiagnostics {
            problems: self
                .problems
                .into_iter()
                .map(|p| ModelProblem {
                    place: p.place.in_file(origin),
                    ..p
                })
                .collect(),
            text: self.text.map(|text| text.with_origin(origin)),
        }
    }
}

/// Each problem of the messages, then those of the text, separated by blank lines.
impl fmt::Display for ModelDiagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, problem) in self.problems.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{problem}")?;
        }
        if let Some(text) = &self.text {
            if !self.problems.is_empty() {
                writeln!(f)?;
            }
            write!(f, "{text}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ModelDiagnostics {}
