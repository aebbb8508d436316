// A spread of a value that is not a list: one error per hole, on the hole, naming the position.
fn main() {
    let (x, n) = (1.5_f32, 3_i64);
    let _ = onnx_text::onnx_graph! {
        g (float[..#x] a) => (y) <float[1] w = {..#n}> {
            y = Concat <axis = 0> (a, ..#(n))
        }
    };
}
