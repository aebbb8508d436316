use onnx_text::{ModelProto, onnx};

fn main() {
    let model: ModelProto = onnx! {
        <ir_version: 10, opset_import: ["" : 21, "local" : 1], producer_name: "ui-tests">
        agraph (float[N, 128] X, float[128, 10] W, float[10] B) => (float[N, 10] C)
            <float[1] scale = {0.5}>
        {
            T = MatMul (X, W)
            S = local.Biased <alpha: float = 1> (T, B)
            C = Softmax <axis = -1> (S)
        }
        <domain: "local", opset_import: ["" : 21]>
        Biased <alpha> (x, b) => (y) {
            a = Constant <value_float: float = @alpha> ()
            s = Add (x, b)
            y = Mul (s, a)
        }
    };
    assert_eq!(model.functions.len(), 1);
    assert_eq!(model.graph.unwrap().node.len(), 3);
}
