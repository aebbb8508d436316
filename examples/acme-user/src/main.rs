//! Calls the functions of the `acme-ops` opset crate (a dependency renamed `acme`) from model
//! literals: checked against the library at compile time, then carried (`#![attach]`) or
//! inlined (`#![inline]`) into the value. Run with `cargo run -p acme-user`; it writes the
//! models to the folder given (or `target/acme-user`).

use onnx_text::prost::Message;
use onnx_text::{ModelProto, onnx};

/// A model that calls a library function, checked against `acme::ACME`.
pub fn checked() -> ModelProto {
    onnx! {
        #![library(acme::ACME)]
        <ir_version: 10, opset_import: ["" : 21, "com.acme" : 1]>
        g (float[N, 8] x) => (float[N, 8] y) { y = com.acme.Swish2 <beta = 2.0> (x) }
    }
}

/// The same, with the functions it calls (transitively) carried in the model.
pub fn attached() -> ModelProto {
    onnx! {
        #![attach(acme::ACME)]
        <ir_version: 10, opset_import: ["" : 21, "com.acme" : 1]>
        g (float[N, 8] x, float[8, 8] w) => (float[N, 8] y) {
            d = com.acme.Dense (x, w)
            y = com.acme.Scale <alpha = 0.5> (d)
        }
    }
}

/// The same with the calls replaced by their bodies: no functions left.
pub fn inlined() -> ModelProto {
    onnx! {
        #![inline(acme::ACME)]
        <ir_version: 10, opset_import: ["" : 21, "com.acme" : 1]>
        g (float[N, 8] x, float[8, 8] w) => (float[N, 8] y) {
            d = com.acme.Dense (x, w)
            y = com.acme.Scale <alpha = 0.5> (d)
        }
    }
}

/// A library built on another: `acme::layers::LAYERS` carries `acme::ACME`'s functions too.
pub fn layered() -> ModelProto {
    onnx! {
        #![attach(acme::layers::LAYERS)]
        <ir_version: 10, opset_import: ["" : 21, "com.acme.layers" : 1]>
        g (float[N, 8] x, float[8, 8] w1, float[8, 8] w2) => (float[N, 8] y) {
            y = com.acme.layers.Mlp2 (x, w1, w2)
        }
    }
}

/// The same, inlined through both libraries.
pub fn layered_inlined() -> ModelProto {
    onnx! {
        #![inline(acme::layers::LAYERS)]
        <ir_version: 10, opset_import: ["" : 21, "com.acme.layers" : 1]>
        g (float[N, 8] x, float[8, 8] w1, float[8, 8] w2) => (float[N, 8] y) {
            y = com.acme.layers.Mlp2 (x, w1, w2)
        }
    }
}

fn main() -> std::io::Result<()> {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target/acme-user".to_owned());
    std::fs::create_dir_all(&out)?;
    for (name, model) in [
        ("checked", checked()),
        ("attached", attached()),
        ("inlined", inlined()),
        ("layered", layered()),
        ("layered_inlined", layered_inlined()),
    ] {
        let path = format!("{out}/{name}.onnx");
        std::fs::write(&path, model.encode_to_vec())?;
        println!(
            "{path}: {} nodes, {} functions",
            model.graph.as_ref().map_or(0, |g| g.node.len()),
            model.functions.len()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attach_at_compile_time_equals_attach_at_runtime() {
        let mut model = onnx_text::parse_model(
            r#"<ir_version: 10, opset_import: ["" : 21, "com.acme" : 1]>
            g (float[N, 8] x, float[8, 8] w) => (float[N, 8] y) {
                d = com.acme.Dense (x, w)
                y = com.acme.Scale <alpha = 0.5> (d)
            }"#,
        )
        .unwrap();
        let mut inlined_model = model.clone();
        onnx_text::attach(&mut model, &acme::ACME).unwrap();
        assert_eq!(attached().encode_to_vec(), model.encode_to_vec());
        onnx_text::inline(&mut inlined_model, &[&acme::ACME]).unwrap();
        assert_eq!(inlined().encode_to_vec(), inlined_model.encode_to_vec());
        assert!(inlined().functions.is_empty());
    }
}
