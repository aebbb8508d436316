//! Quantization: `QuantizeLinear`, `DequantizeLinear`, `DynamicQuantizeLinear`.

use crate::node::{Node, Rule, dtype};

/// `QuantizeLinear`: the input's shape, the zero point's element type (uint8 without one,
/// or `output_dtype`).
pub fn quantize(node: &mut Node) -> Rule {
    let elem = node.output_dtype_or(node.elem(2)).unwrap_or(dtype::UINT8);
    let shape = node.shape_of(0);
    node.set_tensor(0, Some(elem), shape);
    Ok(())
}

/// `DequantizeLinear`: the input's shape, the scale's element type (or `output_dtype`).
pub fn dequantize(node: &mut Node) -> Rule {
    let elem = node.output_dtype_or(node.elem(1)).unwrap_or(dtype::FLOAT);
    let shape = node.shape_of(0);
    node.set_tensor(0, Some(elem), shape);
    Ok(())
}

/// `DynamicQuantizeLinear`: uint8 of the input's shape, a float scale and a uint8 zero point.
pub fn dynamic_quantize(node: &mut Node) -> Rule {
    let shape = node.shape_of(0);
    node.set_tensor(0, Some(dtype::UINT8), shape);
    node.set_tensor(1, Some(dtype::FLOAT), Some(Vec::new()));
    node.set_tensor(2, Some(dtype::UINT8), Some(Vec::new()));
    Ok(())
}
