//! A reference evaluator for ONNX: runs a model with the semantics of onnx's operator specs,
//! each operator at the version the model imports, so that a test gets its expected outputs
//! from Rust.
//!
//! ```
//! use onnx_eval::Value;
//!
//! let model = onnx_text::parse_model(r#"
//!     <ir_version: 10, opset_import: ["" : 21]>
//!     g (float[2] x, float[2] y) => (float[2] z) {
//!         s = Add (x, y)
//!         z = Relu (s)
//!     }
//! "#).unwrap();
//! let x = Value::tensor(&[1.0f32, -4.0], &[2]).unwrap();
//! let y = Value::tensor(&[0.5f32, 1.0], &[2]).unwrap();
//! let outputs = onnx_eval::run(&model, &[x, y]).unwrap();
//! assert_eq!(outputs[0].to_vec::<f32>().unwrap(), [1.5, 0.0]);
//! ```
//!
//! [`Value`] is the conformance kit's value type too (`onnx_conformance::Value`), so the
//! evaluator runs the kit in one line:
//!
//! ```no_run
//! // tests/kit.rs, with `harness = false`:
//! onnx_conformance::harness(|case, inputs| onnx_eval::run(&case.model(), &inputs))
//! ```
//!
//! # Feeding the inputs
//!
//! [`run`] and [`Evaluator::run`] feed the graph's inputs by position. A graph input that has an
//! initializer of its name need not be fed (a model of IR version 3 or less lists every
//! initializer among its inputs, and any graph may). So two counts of values are taken:
//! - one for every graph input, in the graph's order: a value fed to an input with an
//!   initializer overrides the initializer for that run;
//! - one for every graph input without an initializer, in the graph's order: the initializers
//!   give the rest. onnx's model tests feed such models so (their input files are the inputs
//!   without an initializer, in order), and onnxruntime lists a model's inputs so.
//!
//! Any other count is an error that says both counts.
//!
//! ```
//! use onnx_eval::Value;
//!
//! // IR 3: the weight `w` is an input with an initializer.
//! let model = onnx_text::parse_model(r#"
//!     <ir_version: 3, opset_import: ["" : 13]>
//!     g (float[2] x, float[2] w) => (float[2] y) <float[2] w = {2.0, 3.0}> { y = Mul (x, w) }
//! "#).unwrap();
//! let x = Value::tensor(&[1.0f32, 1.0], &[2]).unwrap();
//! let y = onnx_eval::run(&model, &[x.clone()]).unwrap();
//! assert_eq!(y[0].to_vec::<f32>().unwrap(), [2.0, 3.0]);
//! let w = Value::tensor(&[5.0f32, 7.0], &[2]).unwrap();
//! let y = onnx_eval::run(&model, &[x, w]).unwrap();
//! assert_eq!(y[0].to_vec::<f32>().unwrap(), [5.0, 7.0]);
//! ```
//!
//! Bad models and inputs give an [`Error`] that names the node (its graph, index, operator and
//! outputs) or the input; tensors a model asks for beyond [`Limits`] are refused before they
//! are allocated.
//!
//! **Features**, both off by default, so that a runtime's test build with the evaluator stays
//! cheap:
//! - `image` decodes images for `ImageDecoder`, as Pillow does: its codecs are 22 crates, and
//!   its JPEG 2000 decoder sets the workspace's minimum Rust (1.92);
//! - `regex` matches `RegexFullMatch`'s patterns (RE2's syntax) with the `regex` crate, whose
//!   compilation is a large share of what the evaluator adds to a cold build
//!   (`docs/conformance.md`).
//!
//! Without one, its operator is an error that names the feature.

mod error;
mod graph;
mod halves;
mod ops;
mod tensor;
mod value;

pub use error::Error;
pub use onnx_value::Value;

use graph::{Graph, Model};
use onnx_runtime_types::{ModelProto, TypeProto, type_proto};
use value::Val;

/// Bounds that stop a hostile model from exhausting memory or time.
///
/// ```
/// let limits = onnx_eval::Limits { max_elements: 1 << 20, ..Default::default() };
/// assert_eq!(limits.max_loop_iterations, onnx_eval::Limits::default().max_loop_iterations);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most elements any one tensor that a node makes may hold (default 2^28).
    pub max_elements: u64,
    /// The most iterations of any one `Loop` (default 2^20).
    pub max_loop_iterations: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_elements: 1 << 28,
            max_loop_iterations: 1 << 20,
        }
    }
}

/// A model resolved once (every node's kernel or function body found, initializers read), to
/// run on many inputs.
///
/// ```
/// use onnx_eval::{Evaluator, Value};
///
/// let model = onnx_text::parse_model(r#"
///     <ir_version: 10, opset_import: ["" : 21]>
///     g (int64[3] x) => (int64[3] y) { y = Neg (x) }
/// "#).unwrap();
/// let evaluator = Evaluator::new(&model).unwrap();
/// for n in 0..3i64 {
///     let y = evaluator.run(&[Value::tensor(&[n, 1, 2], &[3]).unwrap()]).unwrap();
///     assert_eq!(y[0].to_vec::<i64>().unwrap(), [-n, -1, -2]);
/// }
/// ```
pub struct Evaluator {
    model: Model,
    graph: Graph,
    input_types: Vec<(String, Option<TypeProto>)>,
    /// The positions of the graph inputs without an initializer: those a short feed fills.
    required: Vec<usize>,
}

impl Evaluator {
    /// Resolves every node of the model: an unknown operator or version is an error naming the
    /// node.
    pub fn new(model: &ModelProto) -> Result<Evaluator, Error> {
        Evaluator::with_limits(model, Limits::default())
    }

    /// [`Evaluator::new`] with other [`Limits`].
    ///
    /// ```
    /// use onnx_eval::{Evaluator, Limits, Value};
    ///
    /// let model = onnx_text::parse_model(r#"
    ///     <ir_version: 10, opset_import: ["" : 21]>
    ///     g (int64[2] shape) => (float[?, ?] y) { y = ConstantOfShape (shape) }
    /// "#).unwrap();
    /// let evaluator = Evaluator::with_limits(&model, Limits { max_elements: 1000, ..Default::default() }).unwrap();
    /// let error = evaluator.run(&[Value::tensor(&[100i64, 100], &[2]).unwrap()]).unwrap_err();
    /// assert!(error.to_string().contains("10000 elements, over the limit of 1000"), "{error}");
    /// ```
    pub fn with_limits(model: &ModelProto, limits: Limits) -> Result<Evaluator, Error> {
        let functions = model
            .functions
            .iter()
            .map(|f| {
                (
                    (
                        f.domain().to_string(),
                        f.name().to_string(),
                        f.overload().to_string(),
                    ),
                    f.clone(),
                )
            })
            .collect();
        let model_info = Model { functions, limits };
        let graph_proto = model
            .graph
            .as_ref()
            .ok_or_else(|| Error::new("", "the model has no graph"))?;
        let opsets = graph::opsets_of(&model.opset_import);
        let graph = Graph::compile(graph_proto, &opsets, &model_info)?;
        let input_types = graph_proto
            .input
            .iter()
            .map(|i| (i.name().to_string(), i.r#type.clone()))
            .collect();
        let required = graph_proto
            .input
            .iter()
            .enumerate()
            .filter(|(_, i)| !graph.initializers.contains_key(i.name()))
            .map(|(position, _)| position)
            .collect();
        Ok(Evaluator {
            model: model_info,
            graph,
            input_types,
            required,
        })
    }

    /// Runs the model: `inputs` feed every graph input, or every graph input without an
    /// initializer, in the graph's order (see [the crate docs](crate#feeding-the-inputs)), and
    /// the outputs come in the graph's order. A wrong count, element type or shape of an input
    /// is an error naming it.
    pub fn run(&self, inputs: &[Value]) -> Result<Vec<Value>, Error> {
        let all = self.input_types.len();
        let positions: Vec<usize> = if inputs.len() == all {
            (0..all).collect()
        } else if inputs.len() == self.required.len() {
            self.required.clone()
        } else if self.required.len() == all {
            return Err(Error::new(
                "",
                format!("the graph takes {all} inputs, {} were given", inputs.len()),
            ));
        } else {
            return Err(Error::new(
                "",
                format!(
                    "the graph takes {all} inputs, {} of them without an initializer: give \
                     {all}, or {}; {} were given",
                    self.required.len(),
                    self.required.len(),
                    inputs.len()
                ),
            ));
        };
        let mut values = vec![None; all];
        for (&i, value) in positions.iter().zip(inputs) {
            let (name, ty) = &self.input_types[i];
            let place = format!("input {i} (`{name}`)");
            check_input(ty.as_ref(), value).map_err(|e| Error::new(&place, e))?;
            values[i] = Some(Val::from_value(value).map_err(|e| Error::new(&place, e))?);
        }
        let outputs = self.graph.run(values, None, &self.model)?;
        Ok(outputs.into_iter().map(Val::into_value).collect())
    }
}

/// Whether a tensor input has the element type and the fixed dims its declaration gives.
fn check_input(ty: Option<&TypeProto>, value: &Value) -> Result<(), String> {
    let Some(type_proto::Value::TensorType(declared)) = ty.and_then(|t| t.value.as_ref()) else {
        return Ok(());
    };
    let Value::Tensor(tensor) = value else {
        return Err(format!("expected a tensor, got a {}", value.kind()));
    };
    if let Some(elem_type) = declared.elem_type
        && elem_type != 0
        && tensor.data_type.unwrap_or(0) != elem_type
    {
        let name = |c: i32| {
            onnx_runtime_types::tensor_proto::DataType::try_from(c)
                .map_or(format!("{c}"), |t| t.as_str_name().to_string())
        };
        return Err(format!(
            "expected a tensor of {}, got {}",
            name(elem_type),
            name(tensor.data_type.unwrap_or(0))
        ));
    }
    if let Some(shape) = &declared.shape {
        let fits = shape.dim.len() == tensor.dims.len()
            && shape
                .dim
                .iter()
                .zip(&tensor.dims)
                .all(|(d, &n)| match &d.value {
                    Some(onnx_runtime_types::tensor_shape_proto::dimension::Value::DimValue(v)) => {
                        *v == n
                    }
                    _ => true,
                });
        if !fits {
            return Err(format!(
                "expected shape {}, got {:?}",
                describe_shape(shape),
                tensor.dims
            ));
        }
    }
    Ok(())
}

fn describe_shape(shape: &onnx_runtime_types::TensorShapeProto) -> String {
    use onnx_runtime_types::tensor_shape_proto::dimension::Value as Dim;
    let dims: Vec<String> = shape
        .dim
        .iter()
        .map(|d| match &d.value {
            Some(Dim::DimValue(v)) => v.to_string(),
            Some(Dim::DimParam(p)) => p.clone(),
            None => "?".to_string(),
        })
        .collect();
    format!("[{}]", dims.join(", "))
}

impl std::fmt::Debug for Evaluator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Evaluator")
            .field("graph", &self.graph.name)
            .field("nodes", &self.graph.steps.len())
            .field("limits", &self.model.limits)
            .finish_non_exhaustive()
    }
}

/// Runs a model once: [`Evaluator::new`] then [`Evaluator::run`].
///
/// ```
/// use onnx_eval::Value;
///
/// let model = onnx_text::parse_model(r#"
///     <ir_version: 10, opset_import: ["" : 21]>
///     g (float[2, 2] a) => (float[2, 2] b) { b = Transpose (a) }
/// "#).unwrap();
/// let a = Value::tensor(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
/// let b = onnx_eval::run(&model, &[a]).unwrap();
/// assert_eq!(b[0].to_vec::<f32>().unwrap(), [1.0, 3.0, 2.0, 4.0]);
/// ```
pub fn run(model: &ModelProto, inputs: &[Value]) -> Result<Vec<Value>, Error> {
    Evaluator::new(model)?.run(inputs)
}
