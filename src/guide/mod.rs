//! The guide: everything beyond the first steps of the README, one topic per module.
//!
//! Each module is a page of documentation and holds no items. Its text is a Markdown file beside
//! this one (`src/guide/*.md`), so that it reads the same in the repository, and every Rust
//! example in it is compiled and run by `cargo test --doc`.
//!
//! Writing models in Rust:
//! - [`literals`]: the macros, their compile errors, token mode, and what they cost to build.
//! - [`interpolation`]: Rust values in literals (`#x`, `..#xs`), and the checks around them.
//! - [`opset_crates`]: `onnx_library!`, and libraries seen by other crates' literals at compile
//!   time.
//!
//! Working with models at runtime:
//! - [`runtime`]: parsing text into the protobuf types, and the errors.
//! - [`function_libraries`]: `FunctionLibrary`, `attach` and `inline`, and the standard operators'
//!   function bodies.
//! - [`checks`]: every check, what it catches, and how to turn checks off.
//! - [`validating_models`]: untrusted binary models, as `onnx.checker.check_model(full_check=True)`
//!   checks them.
//! - [`shape_inference`]: `infer_shapes`, and how it compares with onnx's.
//! - [`testing_runtimes`]: a literal, inputs from Rust values, expected outputs from the
//!   reference evaluator, and a runtime's outputs compared in one call.
//! - [`version_converter`]: upgrading a model for a runtime that needs a newer opset (or
//!   downgrading it), in Rust and at the terminal.
//!
//! Tools:
//! - [`cli`]: the `onnx-text` command.
//! - [`editors`]: the language server, VS Code, Neovim and Helix.
//!
//! How far it can be trusted:
//! - [`conformance`]: the corpus, and every divergence from the reference.
//! - [`conformance_kit`]: onnx's node test cases for Rust runtimes (`onnx-conformance`), and the
//!   expectation file.
//! - [`limits`]: hostile input, sizes, times and memory, and fuzzing.

#[doc = include_str!("literals.md")]
pub mod literals {}

#[doc = include_str!("interpolation.md")]
pub mod interpolation {}

#[doc = include_str!("opset_crates.md")]
pub mod opset_crates {}

#[doc = include_str!("runtime.md")]
pub mod runtime {}

#[doc = include_str!("function_libraries.md")]
pub mod function_libraries {}

#[doc = include_str!("checks.md")]
pub mod checks {}

#[doc = include_str!("validating_models.md")]
pub mod validating_models {}

#[doc = include_str!("shape_inference.md")]
pub mod shape_inference {}

#[doc = include_str!("testing_runtimes.md")]
pub mod testing_runtimes {}

// Its examples call onnx-version-converter, a dev-dependency only: the facade does not depend
// on the converter, so a user who wants it adds it.
#[doc = include_str!("version_converter.md")]
pub mod version_converter {}

#[doc = include_str!("cli.md")]
pub mod cli {}

#[doc = include_str!("editors.md")]
pub mod editors {}

// The divergences are kept in docs/, beside the measurements, and shown here after the corpus.
#[doc = include_str!("conformance.md")]
#[doc = ""]
#[doc = include_str!("../../docs/divergences.md")]
pub mod conformance {}

#[doc = include_str!("conformance_kit.md")]
pub mod conformance_kit {}

#[doc = include_str!("limits.md")]
pub mod limits {}
