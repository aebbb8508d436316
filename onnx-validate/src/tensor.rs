//! Tensors and sparse tensors of a binary model: the data type, the one value field, its
//! length against the dims (`raw_data` included, 4-, 2- and 6-bit types packed), and sparse
//! indices. Nothing here allocates from a declared size: counts are computed with overflow
//! checks and compared with the data present.

use onnx_runtime_types::{SparseTensorProto, TensorProto};

use super::place::quoted;
use super::rules::Rules;
use onnx_check::Check;
use onnx_syntax::dtype::{Storage, elem_type_by_number, raw_byte_count, typed_value_count};
use onnx_syntax::tensors::is_external;

/// `TensorProto.DataType.STRING`.
const STRING: i32 = 8;
/// `TensorProto.DataType.INT64`.
const INT64: i32 = 7;

/// The typed value fields of a tensor that hold data, by name, with their lengths.
fn value_fields(t: &TensorProto) -> Vec<(&'static str, usize)> {
    let fields = [
        ("float_data", t.float_data.len()),
        ("int32_data", t.int32_data.len()),
        ("string_data", t.string_data.len()),
        ("int64_data", t.int64_data.len()),
        ("raw_data", t.raw_data.as_ref().map_or(0, Vec::len)),
        ("double_data", t.double_data.len()),
        ("uint64_data", t.uint64_data.len()),
    ];
    fields.into_iter().filter(|f| f.1 > 0).collect()
}

/// The field the values of a storage class go in.
fn field_name(storage: Storage) -> &'static str {
    match storage {
        Storage::Int32 => "int32_data",
        Storage::Int64 => "int64_data",
        Storage::Uint64 => "uint64_data",
        Storage::Float => "float_data",
        Storage::Double => "double_data",
        Storage::String => "string_data",
    }
}

/// The product of `dims`: `Err` with a message for a negative dim or an overflow of i64.
fn element_count(dims: &[i64]) -> Result<u64, String> {
    let mut count: u64 = 1;
    for &dim in dims {
        let Ok(size) = u64::try_from(dim) else {
            return Err(format!("the dims have the negative size {dim}"));
        };
        count = count
            .checked_mul(size)
            .filter(|&c| c <= i64::MAX as u64)
            .ok_or("the dims' product overflows a 64-bit integer")?;
    }
    Ok(count)
}

/// What is wrong with a tensor's type and data, the first broken rule in the order of onnx's
/// checker; external data is [`Rules::external`]'s.
pub(super) fn data_problem(t: &TensorProto) -> Option<(Check, String)> {
    let name = quoted(t.name.as_deref().unwrap_or_default());
    let data_type = match t.data_type {
        None => return Some((Check::DataType, format!("tensor {name} has no data_type"))),
        Some(0) => {
            let message = format!("tensor {name} has the data type UNDEFINED");
            return Some((Check::DataType, message));
        }
        Some(n) if elem_type_by_number(n).is_none() => {
            let message = format!("tensor {name} has the data type {n}, which does not exist");
            return Some((Check::DataType, message));
        }
        Some(n) => n,
    };
    let fields = value_fields(t);
    let names = || fields.iter().map(|f| f.0).collect::<Vec<_>>().join(", ");
    if is_external(t) {
        if !fields.is_empty() {
            let message = format!(
                "tensor {name} is stored externally but also holds {}",
                names()
            );
            return Some((Check::TensorData, message));
        }
        return None;
    }
    let elements = match element_count(&t.dims) {
        Ok(n) => n,
        Err(why) => return Some((Check::ElementCountMismatch, format!("tensor {name}: {why}"))),
    };
    if fields.len() > 1 {
        let message = format!(
            "tensor {name} has {} value fields: {}",
            fields.len(),
            names()
        );
        return Some((Check::TensorData, message));
    }
    let Some(&(field, found)) = fields.first() else {
        if elements == 0 {
            return None;
        }
        let message = format!("tensor {name} has {elements} elements but no data");
        return Some((Check::TensorData, message));
    };
    let found = found as u64;
    let type_name = elem_type_by_number(data_type).map_or("?", |info| info.name);
    if field == "raw_data" {
        if data_type == STRING {
            let message =
                format!("string tensor {name} has its data in raw_data: strings go in string_data");
            return Some((Check::TensorData, message));
        }
        let expected = raw_byte_count(data_type, elements)?;
        return (found != expected).then(|| {
                let message = format!(
                    "tensor {name} ({type_name}, {elements} element{}) needs {expected} bytes of raw_data, found {found}",
                    plural(elements)
                );
                (Check::ElementCountMismatch, message)
            });
    }
    let storage = elem_type_by_number(data_type)?.storage;
    let wanted = field_name(storage);
    if field != wanted {
        let message = format!(
            "{type_name} tensor {name} has its data in {field}: {type_name} values go in {wanted}"
        );
        return Some((Check::TensorData, message));
    }
    let expected = typed_value_count(data_type, elements)?;
    (found != expected).then(|| {
            let message = format!(
                "tensor {name} ({type_name}, {elements} element{}) needs {expected} value{} in {field}, found {found}",
                plural(elements),
                plural(expected)
            );
            (Check::ElementCountMismatch, message)
        })
}

impl Rules<'_> {
    /// The rules of one tensor, external data included; the first broken one is reported.
    pub(super) fn tensor(&mut self, t: &TensorProto) {
        let problem = data_problem(t).or_else(|| {
            let external = is_external(t);
            let problem = external.then(|| self.external(t)).flatten();
            problem.map(|message| (Check::ExternalData, message))
        });
        if let Some((check, message)) = problem {
            self.report(check, message);
        }
    }
    /// A sparse tensor: its values and indices are tensors; values of rank 1 (`[NNZ]`), dims
    /// all positive, indices int64 of shape `[NNZ]` (linear) or `[NNZ, rank]`, each in range,
    /// strictly increasing.
    pub(super) fn sparse(&mut self, sparse: &SparseTensorProto) {
        let Some(values) = &sparse.values else {
            self.report(
                Check::SparseTensor,
                "the sparse tensor has no values".into(),
            );
            return;
        };
        let problems_before = self.problems.len();
        self.at("values".into(), |rules| rules.tensor(values));
        if let Some(indices) = &sparse.indices {
            self.at("indices".into(), |rules| rules.tensor(indices));
        }
        if self.problems.len() > problems_before {
            return; // the tensors' own problems first: their data cannot be read
        }
        if let Some(message) = sparse_problem(sparse, values) {
            self.report(Check::SparseTensor, message);
        }
    }
}

fn sparse_problem(sparse: &SparseTensorProto, values: &TensorProto) -> Option<String> {
    let name = quoted(values.name.as_deref().unwrap_or_default());
    let [nnz] = values.dims[..] else {
        return Some(format!(
            "sparse tensor {name} has values of rank {}: expected rank 1 ([NNZ])",
            values.dims.len()
        ));
    };
    let dims = &sparse.dims;
    if dims.is_empty() {
        return Some(format!(
            "sparse tensor {name} has no dims: its rank must be 1 or more"
        ));
    }
    if let Some(dim) = dims.iter().find(|&&d| d <= 0) {
        return Some(format!(
            "sparse tensor {name} has the dim {dim}: dims must be positive"
        ));
    }
    let Some(indices) = &sparse.indices else {
        return (nnz != 0).then(|| format!("sparse tensor {name} has {nnz} values but no indices"));
    };
    let index_name = quoted(indices.name.as_deref().unwrap_or_default());
    if indices.data_type != Some(INT64) {
        return Some(format!(
            "sparse tensor {name} has indices {index_name} that are not int64"
        ));
    }
    if is_external(indices) {
        return None; // their values are in a file; its size was checked
    }
    // The indices present, whatever their dims claim (their own count may be unchecked, when
    // `element_count_mismatch` is allowed): no loop runs past them.
    let present = match &indices.raw_data {
        Some(raw) => raw.len() / 8,
        None => indices.int64_data.len(),
    } as u64;
    let claimed = indices.dims.iter().try_fold(1u64, |acc, &d| {
        u64::try_from(d).ok().and_then(|d| acc.checked_mul(d))
    });
    if claimed.is_none_or(|claimed| claimed > present) {
        return Some(format!(
            "sparse tensor {name} has indices {index_name} whose dims need more values than the {present} they hold"
        ));
    }
    let index = |i: usize| -> i64 {
        match &indices.raw_data {
            Some(raw) => raw
                .get(i * 8..i * 8 + 8)
                .and_then(|b| b.try_into().ok())
                .map_or(0, i64::from_le_bytes),
            None => indices.int64_data.get(i).copied().unwrap_or(0),
        }
    };
    match indices.dims[..] {
        [count] => {
            if count != nnz {
                return Some(format!(
                    "sparse tensor {name} has {nnz} values but {count} linear indices"
                ));
            }
            let size = dims.iter().try_fold(1i64, |acc, &d| acc.checked_mul(d));
            let size = size.unwrap_or(i64::MAX);
            let mut previous = -1;
            for i in 0..usize::try_from(nnz).unwrap_or(0) {
                let at = index(i);
                if !(0..size).contains(&at) {
                    return Some(format!(
                        "sparse tensor {name}: index {at} at position {i} is out of range [0, {}]",
                        size - 1
                    ));
                }
                if at <= previous {
                    return Some(format!(
                        "sparse tensor {name}: index {at} at position {i} is not above the one before ({previous})"
                    ));
                }
                previous = at;
            }
            None
        }
        [count, rank] => {
            if count != nnz {
                return Some(format!(
                    "sparse tensor {name} has {nnz} values but {count} indices"
                ));
            }
            if rank != dims.len() as i64 {
                return Some(format!(
                    "sparse tensor {name} has rank {} but indices of {rank} coordinates",
                    dims.len()
                ));
            }
            let mut previous: Option<Vec<i64>> = None;
            let rank = dims.len();
            for i in 0..usize::try_from(nnz).unwrap_or(0) {
                let point: Vec<i64> = (0..rank).map(|j| index(i * rank + j)).collect();
                if let Some((j, at)) = point
                    .iter()
                    .enumerate()
                    .find(|(j, at)| !(0..dims[*j]).contains(*at))
                {
                    return Some(format!(
                        "sparse tensor {name}: coordinate {j} of index {i} is {at}, out of range [0, {}]",
                        dims[j] - 1
                    ));
                }
                if previous.as_ref().is_some_and(|p| *p >= point) {
                    return Some(format!(
                        "sparse tensor {name}: index {i} is not after the one before in lexicographic order"
                    ));
                }
                previous = Some(point);
            }
            None
        }
        _ => Some(format!(
            "sparse tensor {name} has indices of rank {}: expected 1 ([NNZ]) or 2 ([NNZ, rank])",
            indices.dims.len()
        )),
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}
