//! The runner of both targets: a case's model loaded by tract-onnx from its bytes, the inputs
//! the kit hints at (`Case::constant_inputs`) made constants of the model, as tract's own suite
//! does for such operands, the others fed. `TRACT_CONSTANT_INPUTS=0` feeds every input instead.

use onnx_conformance::{Case, Value};
use onnx_text::TensorProto;
use onnx_text::prost::Message;
use onnx_text::tensor_proto::DataType;
use tract_onnx::data_resolver::FopenDataResolver;
use tract_onnx::prelude::*;
use tract_onnx::tensor::{load_tensor, proto_from_reader};
use tract_onnx::tract_hir::ops::konst::Const;

fn to_tract(value: &Value) -> TractResult<Tensor> {
    let Value::Tensor(tensor) = value else {
        anyhow::bail!("tract takes tensors only, not {value:?}");
    };
    let proto = proto_from_reader(&*tensor.encode_to_vec())?;
    load_tensor(&FopenDataResolver, &proto, None)
}

fn to_onnx(tensor: &Tensor) -> TractResult<Value> {
    let data_type = match tensor.datum_type() {
        DatumType::Bool => DataType::Bool,
        DatumType::U8 | DatumType::QU8(_) => DataType::Uint8,
        DatumType::U16 => DataType::Uint16,
        DatumType::U32 => DataType::Uint32,
        DatumType::U64 => DataType::Uint64,
        DatumType::I8 | DatumType::QI8(_) => DataType::Int8,
        DatumType::I16 => DataType::Int16,
        DatumType::I32 | DatumType::QI32(_) => DataType::Int32,
        DatumType::I64 => DataType::Int64,
        DatumType::F16 => DataType::Float16,
        DatumType::F32 => DataType::Float,
        DatumType::F64 => DataType::Double,
        DatumType::TDim => return to_onnx(&*tensor.cast_to::<i64>()?),
        DatumType::String => {
            let strings = tensor.to_plain_array_view::<String>()?;
            return Ok(Value::Tensor(TensorProto {
                dims: tensor.shape().iter().map(|&d| d as i64).collect(),
                data_type: Some(DataType::String as i32),
                string_data: strings.iter().map(|s| s.as_bytes().to_vec()).collect(),
                ..TensorProto::default()
            }));
        }
        other => anyhow::bail!("no ONNX element type for tract's {other:?}"),
    };
    Ok(Value::Tensor(TensorProto {
        dims: tensor.shape().iter().map(|&d| d as i64).collect(),
        data_type: Some(data_type as i32),
        raw_data: Some(tensor.as_bytes().to_vec()),
        ..TensorProto::default()
    }))
}

pub fn run(case: &Case, inputs: Vec<Value>) -> TractResult<Vec<Value>> {
    let constants = std::env::var("TRACT_CONSTANT_INPUTS").map_or(true, |v| v != "0");
    let bytes = case.model().encode_to_vec();
    let mut model = tract_onnx::onnx().model_for_read(&mut bytes.as_slice())?;
    let tensors = inputs
        .iter()
        .map(to_tract)
        .collect::<TractResult<Vec<_>>>()?;
    let outlets = model.input_outlets()?.to_vec();
    let mut fed = Vec::new();
    let mut kept = Vec::new();
    for (i, tensor) in tensors.into_iter().enumerate() {
        let outlet = outlets[i];
        if constants && case.constant_inputs().contains(&i) {
            model.node_mut(outlet.node).op = Box::new(Const::new(tensor.into_arc_tensor())?);
        } else {
            model.set_outlet_fact(outlet, InferenceFact::dt_shape_from_tensor(&tensor))?;
            kept.push(outlet);
            fed.push(tensor.into_tvalue());
        }
    }
    model.set_input_outlets(&kept)?;
    let plan = model.into_optimized()?.into_runnable()?;
    let outputs = plan.run(fed.into())?;
    outputs.iter().map(|t| to_onnx(t)).collect()
}
