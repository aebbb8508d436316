use onnx_text::*;
fn main() {
    let (batch, alpha, perm) = (8_i64, 0.2_f32, [1_i64, 0]);
    let x = "X";
    let dims = vec![3usize, 4];
    let model = onnx! {
        <ir_version: 10, opset_import: ["" : 21]>
        g (float[#batch, ..#dims] #x) => (float[4, #batch] y) {
            t = LeakyRelu <alpha = #alpha> (#x)
            y = Transpose <perm = #perm> (t)
        }
    };
    println!("{}", to_text(&model));
    let text = format!(r#"<ir_version: 10, opset_import: ["" : 21]>
        g (float[{batch}, 3, 4] X) => (float[4, {batch}] y) {{
            t = LeakyRelu <alpha = 0.2> (X)
            y = Transpose <perm = [1, 0]> (t)
        }}"#);
    assert_eq!(parse_model(&text).unwrap(), model);
    println!("ok");
}
