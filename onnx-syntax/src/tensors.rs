//! Every tensor of a model, wherever it is kept: the walk that moving external data in and out
//! needs, in one place.

use onnx_runtime_types::tensor_proto::DataLocation;
use onnx_runtime_types::{AttributeProto, GraphProto, ModelProto, TensorProto};

/// Whether `tensor` keeps its data outside the model (`data_location: EXTERNAL`).
///
/// ```
/// use onnx_runtime_types::TensorProto;
/// let mut tensor = TensorProto::default();
/// assert!(!onnx_syntax::tensors::is_external(&tensor));
/// tensor.data_location = Some(1);
/// assert!(onnx_syntax::tensors::is_external(&tensor));
/// ```
pub fn is_external(tensor: &TensorProto) -> bool {
    tensor.data_location == Some(DataLocation::External as i32)
}

/// The value of a tensor's external-data entry `key` (`location`, `offset`, `length`): the
/// last entry of that key counts, as onnx reads them.
///
/// ```
/// use onnx_runtime_types::{StringStringEntryProto, TensorProto};
/// let entry = |k: &str, v: &str| StringStringEntryProto { key: Some(k.into()), value: Some(v.into()) };
/// let tensor = TensorProto {
///     external_data: vec![entry("location", "a.bin"), entry("location", "b.bin")],
///     ..TensorProto::default()
/// };
/// assert_eq!(onnx_syntax::tensors::external_entry(&tensor, "location"), Some("b.bin"));
/// assert_eq!(onnx_syntax::tensors::external_entry(&tensor, "offset"), None);
/// ```
pub fn external_entry<'t>(tensor: &'t TensorProto, key: &str) -> Option<&'t str> {
    let entries = tensor.external_data.iter().rev();
    entries
        .filter(|e| e.key.as_deref() == Some(key))
        .find_map(|e| e.value.as_deref())
}

/// Calls `f` on every tensor of `model`: the initializers and sparse initializers (values and
/// indices) of every graph and subgraph, and the tensors of every attribute, in the graphs and
/// in the model's functions.
///
/// ```
/// let mut model = onnx_syntax::parse_model(
///     "g (float[1] w = {1}) => (y) { c = Constant <value = float[1] {2}> () y = Add(w, c) }",
/// )?;
/// let mut names = Vec::new();
/// onnx_syntax::tensors::for_each_tensor(&mut model, &mut |t| names.push(t.name.clone().unwrap()));
/// assert_eq!(names, ["w", ""]);
/// # Ok::<(), onnx_syntax::ParseError>(())
/// ```
pub fn for_each_tensor(model: &mut ModelProto, f: &mut impl FnMut(&mut TensorProto)) {
    if let Some(graph) = &mut model.graph {
        graph_tensors(graph, f);
    }
    for function in &mut model.functions {
        for node in &mut function.node {
            node.attribute
                .iter_mut()
                .for_each(|a| attribute_tensors(a, f));
        }
    }
}

fn graph_tensors(graph: &mut GraphProto, f: &mut impl FnMut(&mut TensorProto)) {
    graph.initializer.iter_mut().for_each(&mut *f);
    for sparse in &mut graph.sparse_initializer {
        sparse
            .values
            .iter_mut()
            .chain(&mut sparse.indices)
            .for_each(&mut *f);
    }
    for node in &mut graph.node {
        node.attribute
            .iter_mut()
            .for_each(|a| attribute_tensors(a, f));
    }
}

fn attribute_tensors(attribute: &mut AttributeProto, f: &mut impl FnMut(&mut TensorProto)) {
    let single = attribute.t.as_deref_mut();
    single
        .into_iter()
        .chain(&mut attribute.tensors)
        .for_each(&mut *f);
    let sparse = attribute.sparse_tensor.as_deref_mut();
    for sparse in sparse.into_iter().chain(&mut attribute.sparse_tensors) {
        sparse
            .values
            .iter_mut()
            .chain(&mut sparse.indices)
            .for_each(&mut *f);
    }
    for graph in attribute
        .g
        .as_deref_mut()
        .into_iter()
        .chain(&mut attribute.graphs)
    {
        graph_tensors(graph, f);
    }
}
