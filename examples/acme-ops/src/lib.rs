//! An example opset crate: the functions of the `com.acme` domain, defined once with
//! `onnx_library!`. Crates that depend on it (under any name) name [`ACME`] in a literal's
//! `#![library(…)]`, `#![attach(…)]` or `#![inline(…)]`, and their calls are checked against
//! these functions at compile time.
//!
//! ```
//! let model = onnx_text::onnx! {
//!     #![attach(acme_ops::ACME)]
//!     <ir_version: 10, opset_import: ["" : 21, "com.acme" : 1]>
//!     g (float[N, 8] x) => (float[N, 8] y) { y = com.acme.Swish2 <beta = 2.0> (x) }
//! };
//! assert_eq!(model.functions.len(), 1);
//! ```

onnx_text::onnx_library! {
    /// Acme's activations.
    pub static ACME;
    <domain: "com.acme", opset_import: ["" : 21], doc_string: "x * sigmoid(beta * x).">
    Swish2 <beta: float = 1.0> (x) => (y) {
        b = Constant <value_float: float = @beta> ()
        bx = Mul (b, x)
        s = Sigmoid (bx)
        y = Mul (x, s)
    }
    /// x * alpha, alpha required.
    <domain: "com.acme", opset_import: ["" : 21]>
    Scale <alpha: float> (x) => (y) {
        a = Constant <value_float: float = @alpha> ()
        y = Mul (x, a)
    }
    <domain: "com.acme", opset_import: ["" : 21, "com.acme" : 1], doc_string: "x @ w, then Swish2: a library call inside a library.">
    Dense (x, w) => (y) {
        t = MatMul (x, w)
        y = com.acme.Swish2 (t)
    }
}

/// Layers built on [`ACME`]: a library that builds on another one.
pub mod layers {
    onnx_text::onnx_library! {
        #![library(crate::ACME)]
        /// Acme's layers, built on its activations.
        pub static LAYERS;
        <domain: "com.acme.layers", opset_import: ["" : 21, "com.acme" : 1], doc_string: "Two dense layers.">
        Mlp2 (x, w1, w2) => (y) {
            h = com.acme.Dense (x, w1)
            y = com.acme.Dense (h, w2)
        }
    }
}
