//! Float tensors computed in f64: the reduce family's kernels (reductions, normalizations,
//! losses, attention) widen their operands once, compute, and round once to the element type,
//! which keeps float16 sums as accurate as onnx's evaluator makes them (it accumulates in
//! float32) or more.

use crate::error::KernelResult;
use crate::halves::{bf16, f16};
use crate::tensor::MapEach;
use crate::tensor::{Data, Tensor};
use ndarray::ArrayD;
use onnx_runtime_types::tensor_proto::DataType;

/// The elements of a float tensor (the narrow float kinds included) as f64.
pub(crate) fn widen(t: &Tensor) -> KernelResult<ArrayD<f64>> {
    Ok(match &t.data {
        Data::F32(a) => a.map_each(&f64::from),
        Data::F64(a) => a.clone(),
        Data::F16(a) => a.map_each(&|x| x.to_f64()),
        Data::BF16(a) => a.map_each(&|x| x.to_f64()),
        _ => {
            return Err(format!(
                "expected floats, got a tensor of {}",
                t.type_name()
            ));
        }
    })
}

/// An f64 array rounded to the float element type `dtype` (one of those [`widen`] reads).
pub(crate) fn narrow(dtype: DataType, a: ArrayD<f64>) -> KernelResult<Tensor> {
    let data = match dtype {
        DataType::Float => Data::F32(a.map_each(&|x| x as f32)),
        DataType::Double => Data::F64(a),
        DataType::Float16 => Data::F16(a.map_each(&f16::from_f64)),
        DataType::Bfloat16 => Data::BF16(a.map_each(&bf16::from_f64)),
        _ => {
            // The narrow float kinds live in f32, each value one of the kind's.
            if onnx_value::elements::round_to(dtype, 0.0, false).is_none() {
                return Err(format!(
                    "expected a float element type, got {}",
                    dtype.as_str_name()
                ));
            }
            Data::F32(a.map_each(&|x| {
                onnx_value::elements::round_to(dtype, x, false).unwrap_or(f64::NAN) as f32
            }))
        }
    };
    Ok(Tensor { dtype, data })
}
