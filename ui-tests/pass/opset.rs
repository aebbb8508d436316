// Libraries of another crate (`acme-ops`, a dev-dependency renamed `acme`) in view of every
// macro, with the other settings, inside `macro_rules!`, and attached or inlined as the runtime
// `attach` and `inline` do.
use onnx_text::prost::Message;

macro_rules! scaled {
    ($alpha:literal) => {
        onnx_text::onnx! {
            #![allow(shape_mismatch)]
            #![attach(acme::ACME)]
            <ir_version: 10, opset_import: ["" : 21, "com.acme" : 1]>
            g (float[N, 8] x) => (float[N, 8] y) { y = com.acme.Scale <alpha = $alpha> (x) }
        }
    };
}

fn main() {
    let text = r#"<ir_version: 10, opset_import: ["" : 21, "com.acme" : 1]>
        g (float[N, 8] x, float[8, 8] w) => (float[N, 8] y) {
            d = com.acme.Dense (x, w)
            y = com.acme.Swish2 <beta = 2.0> (d)
        }"#;
    let attached = onnx_text::onnx! {
        #![attach(acme::ACME)]
        <ir_version: 10, opset_import: ["" : 21, "com.acme" : 1]>
        g (float[N, 8] x, float[8, 8] w) => (float[N, 8] y) {
            d = com.acme.Dense (x, w)
            y = com.acme.Swish2 <beta = 2.0> (d)
        }
    };
    let mut runtime = onnx_text::parse_model(text).unwrap();
    onnx_text::attach(&mut runtime, &acme::ACME).unwrap();
    assert_eq!(attached.encode_to_vec(), runtime.encode_to_vec());

    let inlined = onnx_text::onnx! {
        #![inline(acme::ACME)]
        <ir_version: 10, opset_import: ["" : 21, "com.acme" : 1]>
        g (float[N, 8] x, float[8, 8] w) => (float[N, 8] y) {
            d = com.acme.Dense (x, w)
            y = com.acme.Swish2 <beta = 2.0> (d)
        }
    };
    let mut runtime = onnx_text::parse_model(text).unwrap();
    onnx_text::inline(&mut runtime, &[&acme::ACME]).unwrap();
    assert_eq!(inlined.encode_to_vec(), runtime.encode_to_vec());

    // A library and one built on it share the base's functions: attaching both is attaching
    // their union, which is the second one.
    let both = onnx_text::onnx! {
        #![attach(acme::ACME, acme::layers::LAYERS)]
        <ir_version: 10, opset_import: ["" : 21, "com.acme" : 1, "com.acme.layers" : 1]>
        g (float[N, 8] x, float[8, 8] w) => (float[N, 8] y) {
            h = com.acme.layers.Mlp2 (x, w, w)
            y = com.acme.Scale <alpha = 2.0> (h)
        }
    };
    let mut runtime = onnx_text::parse_model(
        r#"<ir_version: 10, opset_import: ["" : 21, "com.acme" : 1, "com.acme.layers" : 1]>
        g (float[N, 8] x, float[8, 8] w) => (float[N, 8] y) {
            h = com.acme.layers.Mlp2 (x, w, w)
            y = com.acme.Scale <alpha = 2.0> (h)
        }"#,
    )
    .unwrap();
    onnx_text::attach(&mut runtime, &acme::layers::LAYERS).unwrap();
    assert_eq!(both.encode_to_vec(), runtime.encode_to_vec());
    assert_eq!(both.functions.len(), 4);

    let scaled = scaled!(0.5);
    assert_eq!(scaled.functions.len(), 1);

    // Two libraries, holes and `#![fallible]`.
    let beta = 3.0_f32;
    let checked = onnx_text::onnx! {
        #![fallible]
        #![library(acme::ACME, acme::layers::LAYERS)]
        <ir_version: 10, opset_import: ["" : 21, "com.acme" : 1, "com.acme.layers" : 1]>
        g (float[N, 8] x, float[8, 8] w) => (float[N, 8] y) {
            h = com.acme.layers.Mlp2 (x, w, w)
            y = com.acme.Swish2 <beta = #beta> (h)
        }
    }
    .unwrap();
    assert_eq!(checked.graph.unwrap().node[1].attribute[0].f, Some(3.0));

    // The other macros.
    let graph = onnx_text::onnx_graph!(#![library(acme::ACME)] g (x) => (y) { y = com.acme.Swish2 (x) });
    assert_eq!(graph.node.len(), 1);
    let node = onnx_text::onnx_node!(#![library(acme::ACME)] y = com.acme.Scale <alpha = 2.0> (x));
    assert_eq!(node.attribute.len(), 1);
    let nodes = onnx_text::onnx_nodes!(#![library(acme::ACME)] t = com.acme.Swish2 (x) y = com.acme.Scale <alpha = 2.0> (t));
    assert_eq!(nodes.len(), 2);
    let function = onnx_text::onnx_function! {
        #![library(acme::ACME)]
        <domain: "mine", opset_import: ["" : 21, "com.acme" : 1]>
        Twice (x) => (y) { t = com.acme.Swish2 (x)  y = com.acme.Swish2 (t) }
    };
    assert_eq!(function.node.len(), 2);
    let functions = onnx_text::onnx_functions! {
        #![library(acme::ACME)]
        <domain: "mine", opset_import: ["" : 21, "com.acme" : 1]>
        Twice (x) => (y) { t = com.acme.Swish2 (x)  y = com.acme.Swish2 (t) }
    };
    assert_eq!(functions.len(), 1);
    let included = onnx_text::include_onnx!(#![attach(acme::ACME)] "ui-tests/data/acme.onnxtxt");
    assert_eq!(included.functions.len(), 1);
}
