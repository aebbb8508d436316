//! `onnx-text lsp`: the language server over standard input and output.

use crate::Outcome;

/// Serves the language server until the editor ends it.
pub fn lsp() -> Outcome {
    match onnx_text_cli::lsp::run() {
        Ok(()) => Outcome::Ok,
        Err(e) => {
            reportln!("error: onnx-text lsp: {e}");
            Outcome::Fatal
        }
    }
}
