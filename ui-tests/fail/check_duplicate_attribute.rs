fn main() {
    let _ = onnx_text::onnx_node!(y = Conv <strides = [1, 1], pads = [0, 0, 0, 0], strides = [2, 2]> (x, w));
}
