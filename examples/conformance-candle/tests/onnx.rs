//! onnx's node test suite through candle-onnx: `cargo test --manifest-path
//! examples/conformance-candle/Cargo.toml`. Each case's model goes to candle-onnx's
//! `simple_eval` with every input fed by name.

use candle_core::{DType, Tensor};
use candle_onnx::onnx;
use onnx_conformance::{Case, Value};
use onnx_text::TensorProto;
use onnx_text::prost::Message;
use onnx_text::tensor_proto::DataType;
use std::collections::HashMap;

type Result<T> = std::result::Result<T, String>;

/// The kit's tensor as candle-onnx's own protobuf type (a proto3 of the same fields).
fn to_candle(value: &Value, name: &str) -> Result<Tensor> {
    let Value::Tensor(t) = value else {
        return Err(format!("candle takes tensors only, not {value:?}"));
    };
    let proto = onnx::TensorProto {
        dims: t.dims.clone(),
        data_type: t.data_type(),
        float_data: t.float_data.clone(),
        int32_data: t.int32_data.clone(),
        string_data: t.string_data.clone(),
        int64_data: t.int64_data.clone(),
        name: name.to_string(),
        raw_data: t.raw_data.clone().unwrap_or_default(),
        double_data: t.double_data.clone(),
        uint64_data: t.uint64_data.clone(),
        ..Default::default()
    };
    candle_onnx::eval::get_tensor(&proto, name).map_err(|e| e.to_string())
}

/// candle's tensor as ONNX's; candle has no bool, so a u8 tensor where the model declares a
/// bool output is read as bool.
fn to_onnx(tensor: &Tensor, declared: i32) -> Result<Value> {
    let error = |e: candle_core::Error| e.to_string();
    let flat = tensor.flatten_all().map_err(error)?;
    let (data_type, raw): (DataType, Vec<u8>) = match tensor.dtype() {
        DType::U8 if declared == DataType::Bool as i32 => {
            (DataType::Bool, flat.to_vec1::<u8>().map_err(error)?)
        }
        DType::U8 => (DataType::Uint8, flat.to_vec1::<u8>().map_err(error)?),
        DType::U32 => (
            DataType::Uint32,
            le(flat.to_vec1::<u32>().map_err(error)?, u32::to_le_bytes),
        ),
        DType::I64 => (
            DataType::Int64,
            le(flat.to_vec1::<i64>().map_err(error)?, i64::to_le_bytes),
        ),
        DType::F16 => (
            DataType::Float16,
            le(flat.to_vec1::<half::f16>().map_err(error)?, |v| {
                v.to_bits().to_le_bytes()
            }),
        ),
        DType::BF16 => (
            DataType::Bfloat16,
            le(flat.to_vec1::<half::bf16>().map_err(error)?, |v| {
                v.to_bits().to_le_bytes()
            }),
        ),
        DType::F32 => (
            DataType::Float,
            le(flat.to_vec1::<f32>().map_err(error)?, f32::to_le_bytes),
        ),
        DType::F64 => (
            DataType::Double,
            le(flat.to_vec1::<f64>().map_err(error)?, f64::to_le_bytes),
        ),
        other => return Err(format!("no ONNX element type for candle's {other:?}")),
    };
    Ok(Value::Tensor(TensorProto {
        dims: tensor.dims().iter().map(|&d| d as i64).collect(),
        data_type: Some(data_type as i32),
        raw_data: Some(raw),
        ..TensorProto::default()
    }))
}

fn le<T: Copy, const N: usize>(values: Vec<T>, bytes: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    values.into_iter().flat_map(bytes).collect()
}

fn run(case: &Case, inputs: Vec<Value>) -> Result<Vec<Value>> {
    let model = case.model();
    // candle-onnx reads its own protobuf type; the bytes are the same message.
    let path = std::env::temp_dir().join(format!("conformance-candle-{}.onnx", case.name()));
    std::fs::write(&path, model.encode_to_vec()).map_err(|e| e.to_string())?;
    let candle_model = candle_onnx::read_file(&path).map_err(|e| e.to_string());
    let _ = std::fs::remove_file(&path);
    let candle_model = candle_model?;
    let graph = model.graph.unwrap_or_default();
    let mut feeds = HashMap::new();
    for (info, value) in graph.input.iter().zip(&inputs) {
        feeds.insert(info.name().to_string(), to_candle(value, info.name())?);
    }
    let mut outputs = candle_onnx::simple_eval(&candle_model, feeds).map_err(|e| e.to_string())?;
    graph
        .output
        .iter()
        .map(|info| {
            let tensor = outputs
                .remove(info.name())
                .ok_or(format!("no output `{}`", info.name()))?;
            let declared = info.r#type.as_ref().and_then(|t| match &t.value {
                Some(onnx_text::type_proto::Value::TensorType(t)) => t.elem_type,
                _ => None,
            });
            to_onnx(&tensor, declared.unwrap_or(0))
        })
        .collect()
}

fn main() {
    onnx_conformance::harness(run)
}
