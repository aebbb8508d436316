//! ONNX values as Rust code meets them: tensors of every element type, sequences, optionals and
//! maps, built from Rust slices and read back into `Vec`s, read from and written to onnx's `.pb`
//! files, and compared as onnx's test runner compares them.
//!
//! This is the one value type of the conformance kit (`onnx_conformance::Value`) and of the
//! evaluator (`onnx_eval`), so that a runtime's outputs, the evaluator's and a kit case's
//! expected ones compare in one call:
//!
//! ```
//! use onnx_value::{Tolerance, Value, compare};
//!
//! let expected = [Value::tensor(&[1.0f32, 2.0, 3.0], &[3]).unwrap()];
//! let actual = [Value::tensor(&[1.0f32, 2.0, 3.5], &[3]).unwrap()];
//! assert_eq!(actual[0].to_vec::<f32>().unwrap(), [1.0, 2.0, 3.5]);
//! let mismatch = compare(&expected, &actual, Tolerance::default()).unwrap_err();
//! assert_eq!(
//!     mismatch.to_string(),
//!     "output 0: element 2 (at [2]): expected 3.0, got 3.5 (rtol 0.001, atol 1e-7); 1 of 3 elements differs"
//! );
//! ```

mod compare;
mod data_proto;
mod element;
pub mod elements;
mod value;

pub use compare::{Mismatch, Support, Tolerance, compare, compare_named, compare_support};
pub use element::Element;
pub use value::{Map, MapKey, Value, ValueError};
