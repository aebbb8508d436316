//! Shape inference finds no error where nothing is known to conflict: symbols, unknown dims,
//! broadcasting with ones, and shapes computed by Shape -> Gather -> Concat -> Reshape.
use onnx_text::onnx;

fn main() {
    let model = onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[N, 128] x, float[128, 10] w, float[1, 10] b, float[?, 3, 4] z, float[M] m)
            => (float[N, 10] y, float[?, 12] flat, float[N] same, float[?, ?] any)
            <int64[1] zero = {0}, int64[1] twelve = {12}> {
            t = MatMul (x, w)
            y = Add (t, b)
            s = Shape (z)
            batch = Gather <axis = 0> (s, zero)
            shape = Concat <axis = 0> (batch, twelve)
            flat = Reshape (z, shape)
            same = Relu (m)
            any = Sigmoid (t)
        }
    };
    assert_eq!(model.graph.unwrap().node.len(), 8);
}
