//! Shape inference: the element type and shape of every value that a model's nodes compute,
//! as `onnx.shape_inference.infer_shapes(model, data_prop=True)` gives them, and the operand
//! shapes that an operator cannot take.
//!
//! - `ty`: the types inference works with ([`Ty`], [`Dim`]), converted from and to
//!   `TypeProto`.
//! - `graph`: the walk over a graph's nodes, its scopes, subgraphs and calls of local functions.
//! - `node`: what one operator's rule sees of its node (`Node`): operand types,
//!   attributes, the values of small integer tensors (data propagation).
//! - `ops`: one rule per operator, grouped by kind.
//!
//! ```
//! let model = onnx_syntax::parse_model(r#"
//!     <ir_version: 10, opset_import: ["" : 21]>
//!     g (float[N, 128] x, float[128, 10] w) => (y) { y = MatMul (x, w) }
//! "#).unwrap();
//! let inferred = onnx_infer::Inference::of_model(&model);
//! assert!(inferred.errors.is_empty());
//! assert_eq!(inferred.show("y").as_deref(), Some("float[N, 10]"));
//! ```

mod graph;
mod node;
mod ops;
mod ty;

use std::sync::Arc;

use onnx_syntax::hash::HashMap;

use onnx_runtime_types::{FunctionProto, ModelProto, OperatorSetIdProto, ValueInfoProto};

#[doc(hidden)]
pub use graph::{BodyTypeCheck, Run, infer_function, infer_model};
pub use ty::{Dim, Shape, Ty};

/// An operator's operands that it cannot take (`incompatible_shapes`).
#[derive(Clone, Debug, PartialEq)]
pub struct ShapeError {
    /// The index of the node in the main graph (for a node inside a subgraph or a called
    /// function: the node that holds it); `None` for a declared type that no node computes.
    pub node: Option<usize>,
    /// The operand that conflicts with those before it, if one does.
    pub input: Option<usize>,
    /// What is wrong, with the shapes.
    pub message: String,
}

/// A type the main graph declares for a value that differs from the one its node computes, or
/// from its initializer's, or from another declaration of it (`shape_mismatch`).
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    /// The value.
    pub name: String,
    /// What the declared type differs from.
    pub against: Against,
    /// The declared type.
    pub declared: Ty,
    /// The inferred type, or the type of the initializer or of the other declaration.
    pub inferred: Ty,
}

/// What a [`Mismatch`]'s declared type differs from.
///
/// ```
/// let model = onnx_syntax::parse_model(r#"<ir_version: 10, opset_import: ["" : 21]>
///     g (float[6] x) => (float[2, 3] x) { y = Relu (x) }"#).unwrap();
/// let inferred = onnx_infer::Inference::of_model(&model);
/// assert_eq!(inferred.mismatches[0].against, onnx_infer::Against::Declaration);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Against {
    /// The result of the node at this index in the main graph (or the function body), as
    /// computed.
    Computed(usize),
    /// The initializer of the value, which a graph input or output declares.
    Initializer,
    /// The type a graph output, or a value info, declares for a graph input or initializer.
    Declaration,
}

impl Against {
    /// The index of the node that computes the value, if one does.
    ///
    /// ```
    /// use onnx_infer::Against;
    /// assert_eq!(Against::Computed(3).node(), Some(3));
    /// assert_eq!(Against::Initializer.node(), None);
    /// ```
    pub fn node(self) -> Option<usize> {
        match self {
            Against::Computed(node) => Some(node),
            Against::Initializer | Against::Declaration => None,
        }
    }
}

/// What inference found in a model's main graph.
#[derive(Debug, Default)]
pub struct Inference {
    /// The type of every value of the main graph that has one: its inputs and initializers as
    /// declared, the values its nodes compute as inferred.
    values: HashMap<String, Arc<Ty>>,
    /// The nodes whose operands do not fit their operator.
    pub errors: Vec<ShapeError>,
    /// The declared types that differ from the inferred ones.
    pub mismatches: Vec<Mismatch>,
}

impl Inference {
    /// Infers the types of the values of `model`'s main graph, without changing the model.
    ///
    /// ```
    /// # let model = onnx_syntax::parse_model("<opset_import: [\"\" : 21]> g (float[2, 3] x) => (y) { y = Transpose (x) }").unwrap();
    /// let inferred = onnx_infer::Inference::of_model(&model);
    /// assert_eq!(inferred.show("y").as_deref(), Some("float[3, 2]"));
    /// ```
    pub fn of_model(model: &ModelProto) -> Inference {
        Inference::from(graph::infer_model(model, &[], None))
    }

    /// Infers the body of a function from the types its signature declares for its inputs,
    /// under its own `opset_import`, or else `imports` (the model's); its calls may go to
    /// `functions`. A typed output that differs from its computed type is a mismatch.
    ///
    /// ```
    /// let f = onnx_syntax::parse_function(r#"<domain: "local", opset_import: ["" : 21]>
    ///     F (float[N, 3] x) => (float[N, 4] y) { y = Relu (x) }"#).unwrap();
    /// let inferred = onnx_infer::Inference::of_function(&f, &[], &[]);
    /// assert_eq!(inferred.mismatches[0].inferred.to_string(), "float[N, 3]");
    /// ```
    pub fn of_function(
        function: &FunctionProto,
        imports: &[OperatorSetIdProto],
        functions: &[FunctionProto],
    ) -> Inference {
        Inference::from(graph::infer_function(
            function,
            imports,
            functions,
            &[],
            None,
        ))
    }

    /// The type of the value `name` of the main graph, if anything is known of it: inferred for
    /// what a node computes, as declared for inputs and initializers.
    ///
    /// ```
    /// # let model = onnx_syntax::parse_model("<opset_import: [\"\" : 21]> g (int64[4] x) => (y) { y = Shape (x) }").unwrap();
    /// let inferred = onnx_infer::Inference::of_model(&model);
    /// assert_eq!(inferred.ty("y").and_then(|t| t.rank()), Some(1));
    /// ```
    pub fn ty(&self, name: &str) -> Option<&Ty> {
        self.values.get(name).map(|ty| &**ty)
    }

    /// Every value of the main graph whose type is known (inputs and initializers included),
    /// with its type, in no particular order.
    ///
    /// ```
    /// # let model = onnx_syntax::parse_model("<opset_import: [\"\" : 21]> g (int64[4] x) => (y) { y = Shape (x) }").unwrap();
    /// let inferred = onnx_infer::Inference::of_model(&model);
    /// assert_eq!(inferred.iter().count(), 2);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Ty)> {
        self.values.iter().map(|(name, ty)| (name.as_str(), &**ty))
    }

    /// The inferred type of `name`, written as the text syntax writes types (`?` for an
    /// unknown dim).
    ///
    /// ```
    /// # let model = onnx_syntax::parse_model("<opset_import: [\"\" : 21]> g (int64[4] x) => (y) { y = Shape (x) }").unwrap();
    /// let inferred = onnx_infer::Inference::of_model(&model);
    /// assert_eq!(inferred.show("y").as_deref(), Some("int64[1]"));
    /// ```
    pub fn show(&self, name: &str) -> Option<String> {
        Some(self.ty(name)?.to_string())
    }
}

impl From<graph::Run<'_>> for Inference {
    fn from(run: graph::Run<'_>) -> Inference {
        let values = run.values.iter();
        let typed = values.filter_map(|(name, value)| Some((name.to_owned(), value.ty.clone()?)));
        Inference {
            values: typed.collect(),
            errors: run.errors,
            mismatches: run.mismatches,
        }
    }
}

/// `model` with a `value_info` entry for every value of its main graph whose type inference
/// gives, and with the types of its graph outputs completed; operands an operator cannot take
/// and declared shapes that differ from the computed ones are the errors.
///
/// ```
/// let model = onnx_syntax::parse_model(r#"
///     <ir_version: 10, opset_import: ["" : 21]>
///     g (float[N, 3] x) => (y) <int64[1] axes = {0}> { t = Relu (x)  y = Unsqueeze (t, axes) }
/// "#);
/// let model = onnx_infer::infer_shapes(model.unwrap()).unwrap();
/// let graph = model.graph.unwrap();
/// assert_eq!(graph.value_info[0].name.as_deref(), Some("t"));
/// let y = onnx_infer::Ty::from_proto(graph.output[0].r#type.as_ref().unwrap());
/// assert_eq!(y.unwrap().to_string(), "float[1, N, 3]");
/// ```
pub fn infer_shapes(mut model: ModelProto) -> Result<ModelProto, Vec<ShapeError>> {
    let mut inferred = Inference::of_model(&model);
    inferred
        .errors
        .extend(inferred.mismatches.iter().map(|m| ShapeError {
            node: m.against.node(),
            input: None,
            message: match m.against {
                Against::Computed(_) => format!(
                    "`{}` is declared {} but computed as {}",
                    m.name, m.declared, m.inferred
                ),
                Against::Initializer => format!(
                    "`{}` is declared {} but its initializer is {}",
                    m.name, m.declared, m.inferred
                ),
                Against::Declaration => format!(
                    "`{}` is declared {} and also {}",
                    m.name, m.declared, m.inferred
                ),
            },
        }));
    if !inferred.errors.is_empty() {
        return Err(inferred.errors);
    }
    let Some(graph) = model.graph.as_mut() else {
        return Ok(model);
    };
    for output in &mut graph.output {
        let name = output.name.as_deref().unwrap_or("");
        if let Some(ty) = inferred.ty(name) {
            let declared = output.r#type.as_ref().and_then(Ty::from_proto);
            output.r#type = Some(graph::merge(declared.as_ref(), ty).to_proto());
        }
    }
    let mut known: std::collections::HashSet<String> = graph
        .input
        .iter()
        .chain(&graph.output)
        .chain(&graph.value_info)
        .filter_map(|v| v.name.clone())
        .collect();
    known.extend(graph.initializer.iter().filter_map(|t| t.name.clone()));
    for node in &graph.node {
        for name in &node.output {
            if name.is_empty() || known.contains(name) {
                continue;
            }
            if let Some(ty) = inferred.ty(name) {
                known.insert(name.clone());
                graph.value_info.push(ValueInfoProto {
                    name: Some(name.clone()),
                    r#type: Some(ty.to_proto()),
                    ..ValueInfoProto::default()
                });
            }
        }
    }
    Ok(model)
}
