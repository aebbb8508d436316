//! Checks of binary models: a decoded `ModelProto` against the IR spec and onnx 1.23.2's
//! checker (`onnx.checker.check_model(full_check=True)`), for models that come from outside.
//!
//! [`ModelCheck`] decodes the bytes under [`DecodeLimits`] (`decode`), runs the rules that only
//! protobuf messages can break on the messages themselves (`rules`, `tensor`, `external`), and
//! the checks of the syntax (structure, declarations, operator schemas, shapes) on the model's
//! syntax tree, raised from its messages (`raise`, `syntax`), never re-parsed from text. A
//! rule's finding names its place in the model ([`Place`](onnx_syntax::diagnostic::Place): graph, node index and output,
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
//! assert_eq!(err[0].check(), Some(Check::IrVersion));
//! assert_eq!(err[0].message(), "ir_version 99 is newer than IR 14, the newest onnx 1.23.2 knows");
//! # Ok::<(), onnx_syntax::ParseError>(())
//! ```

mod decode;
mod external;
mod place;
mod raise;
mod rules;
mod syntax;
mod tensor;

use std::path::PathBuf;

use onnx_runtime_types::ModelProto;

use onnx_check::{CheckOptions, Diagnostics};

pub use decode::DecodeLimits;
pub use external::read_external_data;

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
    /// assert_eq!(err[0].check(), None); // not a model at all: `DiagnosticKind::Decode`
    /// assert!(err.to_string().contains("cannot be decoded"), "{err}");
    /// ```
    pub fn check_bytes(&self, bytes: &[u8]) -> Result<ModelProto, Diagnostics> {
        let model = decode::decode(bytes, &self.limits)
            .map_err(|problem| Diagnostics::new("", vec![problem]))?;
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
    pub fn check(&self, model: &ModelProto) -> Result<(), Diagnostics> {
        if let Some(problem) = decode::too_deep(model, &self.limits) {
            return Err(Diagnostics::new("", vec![problem]));
        }
        let problems = rules::check(model, &self.options, self.model_dir.as_deref());
        let text = syntax::check(model, &self.options);
        // The rules' problems, placed in the messages, then the syntax checks', positioned in
        // the printed text.
        let mut found = Diagnostics::new("", problems);
        if let Some(text) = text {
            found.combine(text);
        }
        if found.is_empty() { Ok(()) } else { Err(found) }
    }
}
