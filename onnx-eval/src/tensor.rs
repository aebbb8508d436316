//! The evaluator's tensors: an ndarray of the Rust type that computes the element type, tagged
//! with the element type itself. The narrow kinds compute in a wider type and keep their tag:
//! float8, float6 and float4 values in `f32` (each exactly one of the kind's values), 4-bit and
//! 2-bit integers in `i8` or `u8`.

use crate::error::KernelResult;
use crate::halves::{bf16, f16};
use ndarray::{Array, ArrayBase, ArrayD, Dimension, IxDyn};
use onnx_runtime_types::TensorProto;
use onnx_runtime_types::tensor_proto::DataType;
use onnx_value::Element;
use onnx_value::elements::{self, Elements};
use std::borrow::Cow;

/// The elements of a tensor, in the type that computes them.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Data {
    F32(ArrayD<f32>),
    F64(ArrayD<f64>),
    F16(ArrayD<f16>),
    BF16(ArrayD<bf16>),
    I8(ArrayD<i8>),
    I16(ArrayD<i16>),
    I32(ArrayD<i32>),
    I64(ArrayD<i64>),
    U8(ArrayD<u8>),
    U16(ArrayD<u16>),
    U32(ArrayD<u32>),
    U64(ArrayD<u64>),
    Bool(ArrayD<bool>),
    Str(ArrayD<String>),
    /// complex64, as (real, imaginary).
    C64(ArrayD<[f32; 2]>),
    /// complex128, as (real, imaginary).
    C128(ArrayD<[f64; 2]>),
}

/// Applies one expression to the array of any variant, giving the same variant: for what every
/// element type does alike (reshaping, transposing, slicing, gathering).
macro_rules! map_data {
    ($data:expr, $a:ident => $e:expr) => {
        match $data {
            Data::F32($a) => Data::F32($e),
            Data::F64($a) => Data::F64($e),
            Data::F16($a) => Data::F16($e),
            Data::BF16($a) => Data::BF16($e),
            Data::I8($a) => Data::I8($e),
            Data::I16($a) => Data::I16($e),
            Data::I32($a) => Data::I32($e),
            Data::I64($a) => Data::I64($e),
            Data::U8($a) => Data::U8($e),
            Data::U16($a) => Data::U16($e),
            Data::U32($a) => Data::U32($e),
            Data::U64($a) => Data::U64($e),
            Data::Bool($a) => Data::Bool($e),
            Data::Str($a) => Data::Str($e),
            Data::C64($a) => Data::C64($e),
            Data::C128($a) => Data::C128($e),
        }
    };
}
pub(crate) use map_data;

/// Evaluates one expression on the array of any variant, for what does not build a tensor (a
/// shape, a count).
macro_rules! with_data {
    ($data:expr, $a:ident => $e:expr) => {
        match $data {
            Data::F32($a) => $e,
            Data::F64($a) => $e,
            Data::F16($a) => $e,
            Data::BF16($a) => $e,
            Data::I8($a) => $e,
            Data::I16($a) => $e,
            Data::I32($a) => $e,
            Data::I64($a) => $e,
            Data::U8($a) => $e,
            Data::U16($a) => $e,
            Data::U32($a) => $e,
            Data::U64($a) => $e,
            Data::Bool($a) => $e,
            Data::Str($a) => $e,
            Data::C64($a) => $e,
            Data::C128($a) => $e,
        }
    };
}
pub(crate) use with_data;

/// Two tensors of the same variant, one expression over both arrays giving that variant; `None`
/// when the variants differ.
macro_rules! zip_data {
    ($x:expr, $y:expr, ($a:ident, $b:ident) => $e:expr) => {
        match ($x, $y) {
            (Data::F32($a), Data::F32($b)) => Some(Data::F32($e)),
            (Data::F64($a), Data::F64($b)) => Some(Data::F64($e)),
            (Data::F16($a), Data::F16($b)) => Some(Data::F16($e)),
            (Data::BF16($a), Data::BF16($b)) => Some(Data::BF16($e)),
            (Data::I8($a), Data::I8($b)) => Some(Data::I8($e)),
            (Data::I16($a), Data::I16($b)) => Some(Data::I16($e)),
            (Data::I32($a), Data::I32($b)) => Some(Data::I32($e)),
            (Data::I64($a), Data::I64($b)) => Some(Data::I64($e)),
            (Data::U8($a), Data::U8($b)) => Some(Data::U8($e)),
            (Data::U16($a), Data::U16($b)) => Some(Data::U16($e)),
            (Data::U32($a), Data::U32($b)) => Some(Data::U32($e)),
            (Data::U64($a), Data::U64($b)) => Some(Data::U64($e)),
            (Data::Bool($a), Data::Bool($b)) => Some(Data::Bool($e)),
            (Data::Str($a), Data::Str($b)) => Some(Data::Str($e)),
            (Data::C64($a), Data::C64($b)) => Some(Data::C64($e)),
            (Data::C128($a), Data::C128($b)) => Some(Data::C128($e)),
            _ => None,
        }
    };
}
pub(crate) use zip_data;

/// `mapv` with the function behind a reference: ndarray's `mapv` is compiled again for every
/// closure it is given, this once per pair of element types (most of the evaluator's build time
/// was such copies).
pub(crate) trait MapEach<A, D> {
    /// `f` of every element, in an array of the same shape (in standard layout).
    fn map_each<B>(&self, f: &dyn Fn(A) -> B) -> Array<B, D>;
}

impl<A: Clone, S: ndarray::Data<Elem = A>, D: Dimension> MapEach<A, D> for ArrayBase<S, D> {
    fn map_each<B>(&self, f: &dyn Fn(A) -> B) -> Array<B, D> {
        let values = map_slice(&row_major(self), f);
        Array::from_shape_vec(self.raw_dim(), values).expect("one value for each element")
    }
}

/// The elements in row-major order: borrowed when the array is in standard layout, else copied.
/// The kernels' per-type code reads this slice, so that ndarray's iterators and views are
/// compiled once per element type rather than once per kernel.
pub(crate) fn row_major<A: Clone, S: ndarray::Data<Elem = A>, D: Dimension>(
    a: &ArrayBase<S, D>,
) -> Cow<'_, [A]> {
    match a.as_slice() {
        Some(values) => Cow::Borrowed(values),
        None => Cow::Owned(a.iter().cloned().collect()),
    }
}

/// `f` of each of `values`, in order. A plain loop over a function behind a reference: one small
/// copy per pair of element types, where an iterator chain compiles a dozen per closure.
pub(crate) fn map_slice<A: Clone, B>(values: &[A], f: &dyn Fn(A) -> B) -> Vec<B> {
    let mut out = Vec::with_capacity(values.len());
    for x in values {
        out.push(f(x.clone()));
    }
    out
}

/// The elements of `values` at `positions`, in order (positions the caller computed in range).
pub(crate) fn elements_at<T: Clone>(values: &[T], positions: &[usize]) -> Vec<T> {
    let mut out = Vec::with_capacity(positions.len());
    for &p in positions {
        out.push(values[p].clone());
    }
    out
}

/// The array's elements, in row-major order, in another shape (an error unless of the same
/// count).
pub(crate) fn reshape_array<T: Clone>(
    a: &ArrayD<T>,
    shape: &[usize],
) -> Result<ArrayD<T>, ndarray::ShapeError> {
    ArrayD::from_shape_vec(IxDyn(shape), row_major(a).into_owned())
}

/// A tensor: its element type and its elements.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Tensor {
    pub dtype: DataType,
    pub data: Data,
}

/// The variant that computes an element type, and an empty array of it.
fn empty_data(dtype: DataType, shape: &[usize]) -> KernelResult<Data> {
    let shape = IxDyn(shape);
    Ok(match dtype {
        DataType::Float
        | DataType::Float8e4m3fn
        | DataType::Float8e4m3fnuz
        | DataType::Float8e5m2
        | DataType::Float8e5m2fnuz
        | DataType::Float8e8m0
        | DataType::Float6e2m3
        | DataType::Float6e3m2
        | DataType::Float4e2m1 => Data::F32(ArrayD::default(shape)),
        DataType::Double => Data::F64(ArrayD::default(shape)),
        DataType::Float16 => Data::F16(ArrayD::default(shape)),
        DataType::Bfloat16 => Data::BF16(ArrayD::default(shape)),
        DataType::Int8 | DataType::Int4 | DataType::Int2 => Data::I8(ArrayD::default(shape)),
        DataType::Int16 => Data::I16(ArrayD::default(shape)),
        DataType::Int32 => Data::I32(ArrayD::default(shape)),
        DataType::Int64 => Data::I64(ArrayD::default(shape)),
        DataType::Uint8 | DataType::Uint4 | DataType::Uint2 => Data::U8(ArrayD::default(shape)),
        DataType::Uint16 => Data::U16(ArrayD::default(shape)),
        DataType::Uint32 => Data::U32(ArrayD::default(shape)),
        DataType::Uint64 => Data::U64(ArrayD::default(shape)),
        DataType::Bool => Data::Bool(ArrayD::default(shape)),
        DataType::String => Data::Str(ArrayD::default(shape)),
        DataType::Complex64 => Data::C64(ArrayD::default(shape)),
        DataType::Complex128 => Data::C128(ArrayD::default(shape)),
        DataType::Undefined => return Err("a tensor of undefined element type".to_string()),
    })
}

/// An array of `shape` from row-major values whose count the caller checked; the one place the
/// per-type helpers build their result, so that the error's conversion is compiled once per type.
pub(crate) fn array<T>(shape: &[usize], values: Vec<T>) -> KernelResult<ArrayD<T>> {
    ArrayD::from_shape_vec(IxDyn(shape), values).map_err(|e| format!("{e}"))
}

fn load<T: Element>(proto: &TensorProto, shape: &[usize], count: usize) -> KernelResult<ArrayD<T>> {
    let values = T::load(proto, count).ok_or_else(|| {
        format!(
            "its data does not hold the {count} elements of dims {:?}",
            proto.dims
        )
    })?;
    array(shape, values)
}

fn store<T: Element + Clone>(array: &ArrayD<T>, proto: &mut TensorProto) {
    T::store(&row_major(array), proto)
}

impl Tensor {
    /// A tensor of `dtype` and `shape`, every element the type's zero.
    pub fn zeros(dtype: DataType, shape: &[usize]) -> KernelResult<Tensor> {
        Ok(Tensor {
            dtype,
            data: empty_data(dtype, shape)?,
        })
    }

    /// Reads a `TensorProto` (its data in `raw_data` or the typed field).
    pub fn from_proto(proto: &TensorProto) -> KernelResult<Tensor> {
        let code = proto.data_type.unwrap_or(0);
        let dtype = DataType::try_from(code).map_err(|_| format!("unknown element type {code}"))?;
        if !proto.external_data.is_empty() {
            return Err("a tensor whose data is external (load it first)".to_string());
        }
        let count = elements::element_count(proto)?;
        let shape: Vec<usize> = proto.dims.iter().map(|&d| d as usize).collect();
        let data = match dtype {
            DataType::Float => Data::F32(load(proto, &shape, count)?),
            DataType::Double => Data::F64(load(proto, &shape, count)?),
            // float16 and bfloat16 are stored as uint16 is (raw_data, or bits in int32_data).
            DataType::Float16 => {
                Data::F16(load::<u16>(proto, &shape, count)?.map_each(&f16::from_bits))
            }
            DataType::Bfloat16 => {
                Data::BF16(load::<u16>(proto, &shape, count)?.map_each(&bf16::from_bits))
            }
            DataType::Int8 => Data::I8(load(proto, &shape, count)?),
            DataType::Int16 => Data::I16(load(proto, &shape, count)?),
            DataType::Int32 => Data::I32(load(proto, &shape, count)?),
            DataType::Int64 => Data::I64(load(proto, &shape, count)?),
            DataType::Uint8 => Data::U8(load(proto, &shape, count)?),
            DataType::Uint16 => Data::U16(load(proto, &shape, count)?),
            DataType::Uint32 => Data::U32(load(proto, &shape, count)?),
            DataType::Uint64 => Data::U64(load(proto, &shape, count)?),
            DataType::Bool => Data::Bool(load(proto, &shape, count)?),
            DataType::String => {
                let strings = proto
                    .string_data
                    .iter()
                    .map(|s| {
                        String::from_utf8(s.clone())
                            .map_err(|_| "a string that is not UTF-8".to_string())
                    })
                    .collect::<KernelResult<Vec<String>>>()?;
                if strings.len() != count {
                    return Err(format!(
                        "{} strings where dims {:?} give {count}",
                        strings.len(),
                        proto.dims
                    ));
                }
                Data::Str(array(&shape, strings)?)
            }
            // The narrow kinds and complex numbers: through the shared decoder.
            _ => match elements::decode(proto)? {
                Elements::Float(v) => {
                    Data::F32(array(&shape, v.into_iter().map(|x| x as f32).collect())?)
                }
                Elements::Int(v) if matches!(dtype, DataType::Int4 | DataType::Int2) => {
                    Data::I8(array(&shape, v.into_iter().map(|x| x as i8).collect())?)
                }
                Elements::Int(v) => {
                    Data::U8(array(&shape, v.into_iter().map(|x| x as u8).collect())?)
                }
                Elements::Complex(v) if dtype == DataType::Complex64 => Data::C64(array(
                    &shape,
                    v.into_iter()
                        .map(|(re, im)| [re as f32, im as f32])
                        .collect(),
                )?),
                Elements::Complex(v) => Data::C128(array(
                    &shape,
                    v.into_iter().map(|(re, im)| [re, im]).collect(),
                )?),
                Elements::Bool(_) | Elements::String(_) => {
                    unreachable!("bool and string tensors are read above")
                }
            },
        };
        Ok(Tensor { dtype, data })
    }

    /// Writes the tensor as a `TensorProto`, its data in `raw_data` (strings in `string_data`).
    pub fn to_proto(&self) -> TensorProto {
        let shape = self.shape();
        let mut proto = TensorProto {
            dims: shape.iter().map(|&d| d as i64).collect(),
            data_type: Some(self.dtype as i32),
            ..Default::default()
        };
        // The elements are already the kind's values: encoded without saturation, an e5m2
        // infinity stays infinite.
        let narrow = |elements: Elements| {
            elements::encode(self.dtype, &proto.dims, &elements, false)
                .expect("a narrow tensor's values are its kind's")
        };
        match (&self.data, self.dtype) {
            (Data::F32(a), DataType::Float) => store(a, &mut proto),
            (Data::F32(a), _) => {
                return narrow(Elements::Float(a.iter().map(|&x| f64::from(x)).collect()));
            }
            (Data::I8(a), DataType::Int4 | DataType::Int2) => {
                return narrow(Elements::Int(a.iter().map(|&x| i128::from(x)).collect()));
            }
            (Data::U8(a), DataType::Uint4 | DataType::Uint2) => {
                return narrow(Elements::Int(a.iter().map(|&x| i128::from(x)).collect()));
            }
            (Data::C64(a), _) => {
                return narrow(Elements::Complex(
                    a.iter()
                        .map(|&[re, im]| (f64::from(re), f64::from(im)))
                        .collect(),
                ));
            }
            (Data::C128(a), _) => {
                return narrow(Elements::Complex(
                    a.iter().map(|&[re, im]| (re, im)).collect(),
                ));
            }
            (Data::Str(a), _) => {
                proto.string_data = a.iter().map(|s| s.as_bytes().to_vec()).collect();
            }
            (Data::F64(a), _) => store(a, &mut proto),
            (Data::F16(a), _) => store(&a.map_each(&f16::to_bits), &mut proto),
            (Data::BF16(a), _) => store(&a.map_each(&bf16::to_bits), &mut proto),
            (Data::I8(a), _) => store(a, &mut proto),
            (Data::I16(a), _) => store(a, &mut proto),
            (Data::I32(a), _) => store(a, &mut proto),
            (Data::I64(a), _) => store(a, &mut proto),
            (Data::U8(a), _) => store(a, &mut proto),
            (Data::U16(a), _) => store(a, &mut proto),
            (Data::U32(a), _) => store(a, &mut proto),
            (Data::U64(a), _) => store(a, &mut proto),
            (Data::Bool(a), _) => store(a, &mut proto),
        }
        proto
    }

    pub fn shape(&self) -> &[usize] {
        with_data!(&self.data, a => a.shape())
    }

    pub fn rank(&self) -> usize {
        self.shape().len()
    }

    pub fn len(&self) -> usize {
        with_data!(&self.data, a => a.len())
    }

    /// The same element type with other data (of the same variant).
    pub fn with_data(&self, data: Data) -> Tensor {
        Tensor {
            dtype: self.dtype,
            data,
        }
    }

    /// A tensor of a plain element type from its array.
    pub fn from_data(data: Data) -> Tensor {
        let dtype = match &data {
            Data::F32(_) => DataType::Float,
            Data::F64(_) => DataType::Double,
            Data::F16(_) => DataType::Float16,
            Data::BF16(_) => DataType::Bfloat16,
            Data::I8(_) => DataType::Int8,
            Data::I16(_) => DataType::Int16,
            Data::I32(_) => DataType::Int32,
            Data::I64(_) => DataType::Int64,
            Data::U8(_) => DataType::Uint8,
            Data::U16(_) => DataType::Uint16,
            Data::U32(_) => DataType::Uint32,
            Data::U64(_) => DataType::Uint64,
            Data::Bool(_) => DataType::Bool,
            Data::Str(_) => DataType::String,
            Data::C64(_) => DataType::Complex64,
            Data::C128(_) => DataType::Complex128,
        };
        Tensor { dtype, data }
    }

    /// The element type's name, for messages.
    pub fn type_name(&self) -> &'static str {
        self.dtype.as_str_name()
    }

    /// The elements as integers (any integer type, bool excluded), for shape-like operands.
    pub fn to_i64_vec(&self) -> KernelResult<Vec<i64>> {
        Ok(match &self.data {
            Data::I64(a) => a.iter().copied().collect(),
            Data::I32(a) => a.iter().map(|&x| i64::from(x)).collect(),
            Data::I16(a) => a.iter().map(|&x| i64::from(x)).collect(),
            Data::I8(a) => a.iter().map(|&x| i64::from(x)).collect(),
            Data::U8(a) => a.iter().map(|&x| i64::from(x)).collect(),
            Data::U16(a) => a.iter().map(|&x| i64::from(x)).collect(),
            Data::U32(a) => a.iter().map(|&x| i64::from(x)).collect(),
            Data::U64(a) => a.iter().map(|&x| x as i64).collect(),
            _ => {
                return Err(format!(
                    "expected integers, got a tensor of {}",
                    self.type_name()
                ));
            }
        })
    }

    /// The elements as f64 (any real number type), for scalar operands such as a `Pad` value.
    pub fn to_f64_vec(&self) -> KernelResult<Vec<f64>> {
        Ok(match &self.data {
            Data::F32(a) => a.iter().map(|&x| f64::from(x)).collect(),
            Data::F64(a) => a.iter().copied().collect(),
            Data::F16(a) => a.iter().map(|&x| x.to_f64()).collect(),
            Data::BF16(a) => a.iter().map(|&x| x.to_f64()).collect(),
            Data::Bool(a) => a.iter().map(|&x| f64::from(u8::from(x))).collect(),
            Data::Str(_) | Data::C64(_) | Data::C128(_) => {
                return Err(format!(
                    "expected numbers, got a tensor of {}",
                    self.type_name()
                ));
            }
            _ => self.to_i64_vec()?.into_iter().map(|x| x as f64).collect(),
        })
    }

    /// A 1-D int64 tensor.
    pub fn from_i64s(values: Vec<i64>) -> Tensor {
        let n = values.len();
        Tensor::from_data(Data::I64(
            ArrayD::from_shape_vec(IxDyn(&[n]), values).expect("1-D"),
        ))
    }

    /// An int64 scalar.
    pub fn scalar_i64(value: i64) -> Tensor {
        Tensor::from_data(Data::I64(ArrayD::from_elem(IxDyn(&[]), value)))
    }

    /// A bool scalar.
    pub fn scalar_bool(value: bool) -> Tensor {
        Tensor::from_data(Data::Bool(ArrayD::from_elem(IxDyn(&[]), value)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every element type reads into its computing type and writes back to equal elements.
    #[test]
    fn every_element_type_reads_and_writes_back() {
        for code in 1..=26 {
            let Ok(dtype) = DataType::try_from(code) else {
                continue;
            };
            let elements = match dtype {
                DataType::String => Elements::String(vec![b"a".to_vec(), b"bc".to_vec()]),
                DataType::Bool => Elements::Bool(vec![true, false]),
                DataType::Complex64 | DataType::Complex128 => {
                    Elements::Complex(vec![(1.0, -2.0), (0.5, 0.0)])
                }
                DataType::Float8e8m0 => Elements::Float(vec![1.0, 0.25]),
                DataType::Int2 => Elements::Int(vec![-2, 1]),
                _ if dtype.as_str_name().starts_with("UINT") => Elements::Int(vec![1, 2]),
                _ if dtype.as_str_name().starts_with("INT") => Elements::Int(vec![-7, 1]),
                _ => Elements::Float(vec![-1.5, 0.5]),
            };
            let proto = elements::encode(dtype, &[2], &elements, false).unwrap();
            let tensor = Tensor::from_proto(&proto).unwrap();
            assert_eq!(tensor.shape(), [2], "{dtype:?}");
            let back = tensor.to_proto();
            assert_eq!(elements::decode(&back), Ok(elements), "{dtype:?}");
        }
    }
}
