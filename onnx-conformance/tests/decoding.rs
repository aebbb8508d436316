//! The value crate's decoder against onnx's own conversions: the kit's Cast and CastLike cases.

use onnx_conformance::{Value, cases};
use onnx_text::TensorProto;
use onnx_text::tensor_proto::DataType;
use onnx_value::elements::{Elements, decode};
use std::collections::BTreeSet;

/// A "runtime" that casts with this decoder: onnx's Cast and CastLike cases from each small
/// type to float32 (or int8/uint8) check the decoder against onnx's own conversion.
#[test]
fn decoding_agrees_with_onnxs_casts_from_every_small_type() {
    let mut covered = BTreeSet::new();
    for case in cases()
        .iter()
        .filter(|c| ["Cast", "CastLike"].contains(&c.op_type()))
    {
        let (Value::Tensor(input), Value::Tensor(expected)) =
            (&case.inputs()[0], &case.outputs()[0])
        else {
            continue;
        };
        let (from, to) = (input.data_type(), expected.data_type());
        let raw: Vec<u8> = match (decode(input).unwrap(), DataType::try_from(to).unwrap()) {
            (Elements::Float(v), DataType::Float) => {
                v.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect()
            }
            (Elements::Int(v), DataType::Int8 | DataType::Uint8) => {
                v.iter().map(|&x| x as u8).collect()
            }
            (Elements::Int(v), DataType::Float) => {
                v.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect()
            }
            _ => continue,
        };
        let output = TensorProto {
            dims: expected.dims.clone(),
            data_type: Some(to),
            raw_data: Some(raw),
            ..Default::default()
        };
        if let Err(mismatch) = case.check(&[Value::Tensor(output)]) {
            panic!("{mismatch}");
        }
        covered.insert(DataType::try_from(from).unwrap().as_str_name());
    }
    let small = [
        "FLOAT16",
        "BFLOAT16",
        "FLOAT8E4M3FN",
        "FLOAT8E4M3FNUZ",
        "FLOAT8E5M2",
        "FLOAT8E5M2FNUZ",
        "FLOAT8E8M0",
        "FLOAT4E2M1",
        "INT4",
        "UINT4",
        "INT2",
        "UINT2",
    ];
    let missing: Vec<&str> = small.into_iter().filter(|t| !covered.contains(t)).collect();
    assert!(
        missing.is_empty(),
        "no cast case checks {missing:?}; checked {covered:?}"
    );
}
