//! Every position a Rust value can take, in every macro where it can stand.

use onnx_text::{FunctionProto, NodeProto, onnx, onnx_function, onnx_functions, onnx_graph, onnx_node, onnx_nodes};

fn main() {
    let (n, dims, sym, name, names) = (4_usize, vec![2_i64, 3], "N", "x", ["a", "b"]);
    let (alpha, perm, rest, label) = (0.5_f32, vec![1_i64, 0, 2, 3], [2_i64, 3], "producer");
    let (data, one, version) = (vec![1.0_f32, 2.0], 3.0_f32, 21_i64);
    let node: NodeProto = onnx_node!(t = Abs (#name));
    let nodes: Vec<NodeProto> = onnx_nodes!(u = Neg (t) v = Identity (u));
    let library: Vec<FunctionProto> = onnx_functions! {
        <domain: "local", opset_import: ["" : #version]> Id (#name) => (y) { y = Identity (#name) }
    };

    // onnx!: header values, dims, names, attributes, tensor data, nodes, functions.
    let model = onnx! {
        <ir_version: #(10_i64), model_version: #(1_u8), producer_name: #label,
         opset_import: ["" : #version, "local" : 1]>
        g (float[#n, ..#dims, #sym] #name, float[2] a, float[2] b)
          => (float[#n, ..#dims, #sym] y, float[2] z, float[2] s)
          <float[2] w = {..#data}, float[4] k = {#one, 2.0, ..#data}> {
            #node
            ..#nodes
            p = Transpose <perm = #perm> (v)
            q = Transpose <perm = [1, 0, ..#rest]> (p)
            y = LeakyRelu <alpha = #alpha> (q)
            z = local.Id (w)
            s = Sum (..#names)
        }
        ..#library
    };
    assert_eq!(model.graph.unwrap().node.len(), 8);

    // onnx_graph!, onnx_function!, onnx_functions!, onnx_node!, onnx_nodes!.
    let graph = onnx_graph!(g (float[#n] #name) => (y) { #node y = Relu (t) });
    let function = onnx_function! {
        <domain: #label, opset_import: ["" : #version]>
        F (#("t")) => (y) { ..#nodes y = Relu (v) }
    };
    let functions = onnx_functions!(#(function.clone()) ..#library);
    let attribute_node = onnx_node!(y = com.example.Foo <a = #alpha, b: ints = [..#rest], c = float[2] {..#data}> (..#names));
    let node_list = onnx_nodes!(#node y = Relu (#name) ..#nodes);
    assert_eq!(graph.node.len(), 2);
    assert_eq!(function.node.len(), 3);
    assert_eq!(functions.len(), 2);
    assert_eq!(attribute_node.input, ["a", "b"]);
    assert_eq!(node_list.len(), 4);
}
