//! The language server of the `onnx-text` command as a library, so that it runs in process:
//! its tests drive [`lsp::serve`] over an in-memory connection, and the command serves over
//! standard input and output with [`lsp::run`]. The command itself (`src/main.rs`) is the
//! binary `onnx-text`; this library is not published for other uses. [`data_check`] is shared
//! by both: `check` and the server report external data problems alike.

pub mod data_check;
pub mod lsp;
