//! What the neural-network kernels share: float tensors widened to the type they compute in
//! (f32 for float, float16 and bfloat16, as onnx's evaluator accumulates float16 in float32;
//! f64 for double) and rounded back, and the sliding-window geometry of convolutions and pools.

use super::Ctx;
use crate::error::KernelResult;
use crate::halves::{bf16, f16};
use crate::tensor::MapEach;
use crate::tensor::{Data, Tensor};
use ndarray::ArrayD;
use onnx_runtime_types::tensor_proto::DataType;

/// A float tensor in the type that computes it.
pub(crate) enum Wide {
    F32(ArrayD<f32>),
    F64(ArrayD<f64>),
}

/// Widens a float tensor (float, float16, bfloat16, double); other types are an error.
pub(crate) fn widen(t: &Tensor) -> KernelResult<Wide> {
    Ok(match (&t.data, t.dtype) {
        (Data::F32(a), DataType::Float) => Wide::F32(a.clone()),
        (Data::F16(a), _) => Wide::F32(a.map_each(&f16::to_f32)),
        (Data::BF16(a), _) => Wide::F32(a.map_each(&bf16::to_f32)),
        (Data::F64(a), _) => Wide::F64(a.clone()),
        _ => {
            return Err(format!(
                "expected float, float16, bfloat16 or double, got {}",
                t.type_name()
            ));
        }
    })
}

/// Rounds computed values back to `dtype` (one of the types `widen` takes).
pub(crate) fn narrow(dtype: DataType, wide: Wide) -> KernelResult<Tensor> {
    let data = match (dtype, wide) {
        (DataType::Float, Wide::F32(a)) => Data::F32(a),
        (DataType::Float16, Wide::F32(a)) => Data::F16(a.map_each(&f16::from_f32)),
        (DataType::Bfloat16, Wide::F32(a)) => Data::BF16(a.map_each(&bf16::from_f32)),
        (DataType::Double, Wide::F64(a)) => Data::F64(a),
        (DataType::Float, Wide::F64(a)) => Data::F32(a.map_each(&|x| x as f32)),
        (DataType::Float16, Wide::F64(a)) => Data::F16(a.map_each(&f16::from_f64)),
        (DataType::Bfloat16, Wide::F64(a)) => Data::BF16(a.map_each(&bf16::from_f64)),
        (DataType::Double, Wide::F32(a)) => Data::F64(a.map_each(&f64::from)),
        (other, _) => return Err(format!("cannot give a result of {}", other.as_str_name())),
    };
    Ok(Tensor { dtype, data })
}

/// A float tensor's elements as f64, for kernels that compute every type alike.
pub(crate) fn to_f64(t: &Tensor) -> KernelResult<ArrayD<f64>> {
    Ok(match widen(t)? {
        Wide::F32(a) => a.map_each(&f64::from),
        Wide::F64(a) => a,
    })
}

/// Values computed in f64, rounded to `dtype`.
pub(crate) fn from_f64(dtype: DataType, values: ArrayD<f64>) -> KernelResult<Tensor> {
    narrow(dtype, Wide::F64(values))
}

/// The padding rule of a convolution or pool.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum AutoPad {
    NotSet,
    SameUpper,
    SameLower,
    Valid,
}

fn auto_pad(ctx: &Ctx<'_>) -> KernelResult<AutoPad> {
    match ctx.string("auto_pad").as_deref().unwrap_or("NOTSET") {
        "NOTSET" | "" => Ok(AutoPad::NotSet),
        "SAME_UPPER" => Ok(AutoPad::SameUpper),
        "SAME_LOWER" => Ok(AutoPad::SameLower),
        "VALID" => Ok(AutoPad::Valid),
        other => Err(format!("unknown auto_pad {other:?}")),
    }
}

/// Where a sliding window goes over the spatial axes: its size, steps, spacing, the padding
/// before and after each axis, and the output's spatial dims.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Window {
    pub kernel: Vec<usize>,
    pub strides: Vec<usize>,
    pub dilations: Vec<usize>,
    pub pads_begin: Vec<usize>,
    pub pads_end: Vec<usize>,
    pub output: Vec<usize>,
}

/// An attribute of one positive integer per spatial axis, 1 each by default.
fn per_axis(ctx: &Ctx<'_>, name: &str, rank: usize) -> KernelResult<Vec<usize>> {
    match ctx.ints(name) {
        None => Ok(vec![1; rank]),
        Some([]) => Ok(vec![1; rank]),
        // Bounded so that no product of geometry overflows.
        Some(values)
            if values.len() == rank && values.iter().all(|&v| (1..1 << 31).contains(&v)) =>
        {
            Ok(values.iter().map(|&v| v as usize).collect())
        }
        Some(values) => Err(format!(
            "`{name}` {values:?} is not {rank} integers in 1..2^31"
        )),
    }
}

/// The explicit `pads` attribute: begins then ends, zero by default.
fn explicit_pads(ctx: &Ctx<'_>, rank: usize) -> KernelResult<(Vec<usize>, Vec<usize>)> {
    match ctx.ints("pads") {
        None => Ok((vec![0; rank], vec![0; rank])),
        Some([]) => Ok((vec![0; rank], vec![0; rank])),
        Some(p) if p.len() == 2 * rank && p.iter().all(|&v| (0..1 << 32).contains(&v)) => Ok((
            p[..rank].iter().map(|&v| v as usize).collect(),
            p[rank..].iter().map(|&v| v as usize).collect(),
        )),
        Some(p) => Err(format!(
            "`pads` {p:?} is not {} non-negative integers",
            2 * rank
        )),
    }
}

impl Window {
    /// The attributes alone (strides, dilations, explicit pads), the output left empty: for
    /// ConvTranspose, whose output follows other rules.
    pub fn explicit(ctx: &Ctx<'_>, kernel: &[usize]) -> KernelResult<Window> {
        let rank = kernel.len();
        let (pads_begin, pads_end) = explicit_pads(ctx, rank)?;
        Ok(Window {
            kernel: kernel.to_vec(),
            strides: per_axis(ctx, "strides", rank)?,
            dilations: per_axis(ctx, "dilations", rank)?,
            pads_begin,
            pads_end,
            output: Vec::new(),
        })
    }

    /// The window of a node over input spatial dims `input`, its kernel's dims `kernel`;
    /// `ceil_mode` (pools) rounds the output up, dropping a last window that would start in
    /// the end padding.
    pub fn new(
        ctx: &Ctx<'_>,
        input: &[usize],
        kernel: &[usize],
        ceil_mode: bool,
    ) -> KernelResult<Window> {
        let rank = input.len();
        if kernel.len() != rank {
            return Err(format!(
                "a kernel of {} spatial dims over an input of {rank}",
                kernel.len()
            ));
        }
        if let Some(&k) = kernel.iter().find(|&&k| k == 0 || k >= 1 << 31) {
            return Err(format!("a kernel dim of {k}"));
        }
        let strides = per_axis(ctx, "strides", rank)?;
        let dilations = per_axis(ctx, "dilations", rank)?;
        let (mut pads_begin, mut pads_end) = explicit_pads(ctx, rank)?;
        let mode = auto_pad(ctx)?;
        let mut output = Vec::with_capacity(rank);
        for i in 0..rank {
            let extent = (kernel[i] - 1) * dilations[i] + 1;
            let (s, n) = (strides[i], input[i]);
            let out = match mode {
                AutoPad::SameUpper | AutoPad::SameLower => {
                    let out = n.div_ceil(s);
                    let total = ((out.max(1) - 1) * s + extent).saturating_sub(n);
                    let small = total / 2;
                    (pads_begin[i], pads_end[i]) = if mode == AutoPad::SameUpper {
                        (small, total - small)
                    } else {
                        (total - small, small)
                    };
                    out
                }
                AutoPad::Valid | AutoPad::NotSet => {
                    if mode == AutoPad::Valid {
                        (pads_begin[i], pads_end[i]) = (0, 0);
                    }
                    let padded = n + pads_begin[i] + pads_end[i];
                    if padded < extent {
                        return Err(format!(
                            "a window of extent {extent} over a padded axis of {padded}"
                        ));
                    }
                    let span = padded - extent;
                    if ceil_mode {
                        let mut out = span.div_ceil(s) + 1;
                        // A last window that would start in the end padding is dropped.
                        if (out - 1) * s >= n + pads_begin[i] {
                            out -= 1;
                        }
                        out
                    } else {
                        span / s + 1
                    }
                }
            };
            output.push(out);
        }
        Ok(Window {
            kernel: kernel.to_vec(),
            strides,
            dilations,
            pads_begin,
            pads_end,
            output,
        })
    }
}

/// The kernel's spatial dims: the `kernel_shape` attribute, or else the weight's dims.
pub(crate) fn kernel_shape(
    ctx: &Ctx<'_>,
    from_weight: Option<&[usize]>,
) -> KernelResult<Vec<usize>> {
    match (ctx.ints("kernel_shape"), from_weight) {
        (Some(k), _) if !k.is_empty() => {
            if k.iter().any(|&v| !(1..1 << 31).contains(&v)) {
                return Err(format!("`kernel_shape` {k:?} has a dim outside 1..2^31"));
            }
            Ok(k.iter().map(|&v| v as usize).collect())
        }
        (_, Some(w)) => Ok(w.to_vec()),
        _ => Err("`kernel_shape` is required".to_string()),
    }
}

/// A real tensor's elements as f64 (floats and integers), for kernels such as MaxPool that
/// take both.
pub(crate) fn real_to_f64(t: &Tensor) -> KernelResult<ArrayD<f64>> {
    match &t.data {
        Data::F32(_) | Data::F16(_) | Data::BF16(_) | Data::F64(_) => to_f64(t),
        _ => ArrayD::from_shape_vec(t.shape(), t.to_f64_vec()?).map_err(|e| e.to_string()),
    }
}

/// Values computed in f64, converted to `dtype`: floats rounded, integers rounded to nearest
/// (they are exact where a kernel only selects or sums them) and saturated.
pub(crate) fn real_from_f64(dtype: DataType, values: ArrayD<f64>) -> KernelResult<Tensor> {
    let data = match dtype {
        DataType::Int8 => Data::I8(values.map_each(&|v| v.round() as i8)),
        DataType::Uint8 => Data::U8(values.map_each(&|v| v.round() as u8)),
        DataType::Int16 => Data::I16(values.map_each(&|v| v.round() as i16)),
        DataType::Uint16 => Data::U16(values.map_each(&|v| v.round() as u16)),
        DataType::Int32 => Data::I32(values.map_each(&|v| v.round() as i32)),
        DataType::Uint32 => Data::U32(values.map_each(&|v| v.round() as u32)),
        DataType::Int64 => Data::I64(values.map_each(&|v| v.round() as i64)),
        DataType::Uint64 => Data::U64(values.map_each(&|v| v.round() as u64)),
        _ => return from_f64(dtype, values),
    };
    Ok(Tensor { dtype, data })
}
