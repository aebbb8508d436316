//! NumPy's `.npy` files (format versions 1, 2 and 3) as tensor values, for `onnx-text run`: the
//! element types numpy and ONNX share, in either byte order, C or Fortran order.

use onnx_text::TensorProto;
use onnx_text::tensor_proto::DataType;
use onnx_value::Value;

const MAGIC: &[u8] = b"\x93NUMPY";

/// An element type of numpy's (`descr` without its byte-order mark) and ONNX's.
fn data_type(kind: &str) -> Option<(DataType, usize)> {
    Some(match kind {
        "f2" => (DataType::Float16, 2),
        "f4" => (DataType::Float, 4),
        "f8" => (DataType::Double, 8),
        "i1" => (DataType::Int8, 1),
        "i2" => (DataType::Int16, 2),
        "i4" => (DataType::Int32, 4),
        "i8" => (DataType::Int64, 8),
        "u1" => (DataType::Uint8, 1),
        "u2" => (DataType::Uint16, 2),
        "u4" => (DataType::Uint32, 4),
        "u8" => (DataType::Uint64, 8),
        "b1" => (DataType::Bool, 1),
        "c8" => (DataType::Complex64, 4),
        "c16" => (DataType::Complex128, 8),
        _ => return None,
    })
}

/// The value of `key` in the header's dict literal: the text up to the next top-level comma.
fn header_field<'h>(header: &'h str, key: &str) -> Result<&'h str, String> {
    let quoted = format!("'{key}':");
    let start = header
        .find(&quoted)
        .ok_or_else(|| format!("the header has no `{key}`"))?
        + quoted.len();
    let rest = header[start..].trim_start();
    let end = if rest.starts_with('(') {
        rest.find(')').map(|i| i + 1)
    } else {
        rest.find([',', '}'])
    }
    .ok_or_else(|| format!("the header's `{key}` does not end"))?;
    Ok(rest[..end].trim())
}

/// Reads a `.npy` file into a tensor.
pub fn read(bytes: &[u8]) -> Result<Value, String> {
    let rest = bytes
        .strip_prefix(MAGIC)
        .ok_or("not a .npy file (no \\x93NUMPY magic)")?;
    let (&[major, _minor], rest) = rest
        .split_first_chunk::<2>()
        .ok_or("a truncated .npy header")?;
    let (length, rest) = match major {
        1 => {
            let (n, rest) = rest
                .split_first_chunk::<2>()
                .ok_or("a truncated .npy header")?;
            (usize::from(u16::from_le_bytes(*n)), rest)
        }
        2 | 3 => {
            let (n, rest) = rest
                .split_first_chunk::<4>()
                .ok_or("a truncated .npy header")?;
            (u32::from_le_bytes(*n) as usize, rest)
        }
        other => return Err(format!(".npy format version {other} is not one this reads")),
    };
    if rest.len() < length {
        return Err("a truncated .npy header".to_string());
    }
    let (header, data) = rest.split_at(length);
    let header = std::str::from_utf8(header).map_err(|_| "a .npy header that is not text")?;
    let descr = header_field(header, "descr")?.trim_matches(|c| c == '\'' || c == '"');
    let fortran = header_field(header, "fortran_order")? == "True";
    let shape: Vec<usize> = header_field(header, "shape")?
        .trim_matches(|c| c == '(' || c == ')')
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| d.parse().map_err(|_| format!("a .npy shape dim `{d}`")))
        .collect::<Result<_, _>>()?;
    let (order, kind) = descr.split_at(1.min(descr.len()));
    let (data_type, width) = data_type(kind)
        .ok_or_else(|| format!("numpy element type `{descr}`, which ONNX has no tensor of"))?;
    let parts = if kind.starts_with('c') { 2 } else { 1 };
    let count = shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or("a .npy shape too large")?;
    let size = count * width * parts;
    if data.len() != size {
        return Err(format!(
            "the .npy data holds {} bytes where shape {shape:?} of `{descr}` needs {size}",
            data.len()
        ));
    }
    // Little-endian, element by element (a complex number's parts each swapped on their own).
    let mut raw = data.to_vec();
    if order == ">" {
        raw.chunks_exact_mut(width).for_each(<[u8]>::reverse);
    }
    if fortran && shape.len() > 1 {
        raw = c_order(&raw, &shape, width * parts);
    }
    Ok(Value::Tensor(TensorProto {
        dims: shape.iter().map(|&d| d as i64).collect(),
        data_type: Some(data_type as i32),
        raw_data: Some(raw),
        ..Default::default()
    }))
}

/// Fortran-ordered elements of `shape`, each `width` bytes, in C order.
fn c_order(raw: &[u8], shape: &[usize], width: usize) -> Vec<u8> {
    let count: usize = shape.iter().product();
    let mut out = vec![0u8; raw.len()];
    let mut index = vec![0usize; shape.len()];
    for c in 0..count {
        // Fortran offset of the C index: the first axis varies fastest.
        let mut offset = 0;
        let mut stride = 1;
        for (i, &d) in index.iter().zip(shape) {
            offset += i * stride;
            stride *= d;
        }
        out[c * width..(c + 1) * width].copy_from_slice(&raw[offset * width..(offset + 1) * width]);
        for axis in (0..shape.len()).rev() {
            index[axis] += 1;
            if index[axis] < shape[axis] {
                break;
            }
            index[axis] = 0;
        }
    }
    out
}

/// Writes a tensor as a `.npy` file (format version 1), if numpy has its element type.
pub fn write(value: &Value) -> Result<Vec<u8>, String> {
    let Value::Tensor(tensor) = value else {
        return Err(format!(
            "a {} has no .npy form (only tensors)",
            value.kind()
        ));
    };
    let data_type = DataType::try_from(tensor.data_type.unwrap_or(0))
        .map_err(|_| "a tensor of unknown element type".to_string())?;
    let kind = [
        "f2", "f4", "f8", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "b1", "c8", "c16",
    ]
    .into_iter()
    .find(|k| data_type_of(k) == Some(data_type))
    .ok_or_else(|| format!("numpy has no {} tensors", data_type.as_str_name()))?;
    // Every element in raw_data, little-endian: re-encode through the shared elements codec.
    let elements = onnx_value::elements::decode(tensor)?;
    let raw = onnx_value::elements::encode(data_type, &tensor.dims, &elements, false)?
        .raw_data
        .unwrap_or_default();
    let order = if matches!(kind, "i1" | "u1" | "b1") {
        "|"
    } else {
        "<"
    };
    let dims: Vec<String> = tensor.dims.iter().map(i64::to_string).collect();
    let shape = match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    };
    let mut header =
        format!("{{'descr': '{order}{kind}', 'fortran_order': False, 'shape': {shape}, }}");
    // The header ends in a newline, padded so that the data starts at a multiple of 64.
    while !(MAGIC.len() + 4 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut out = MAGIC.to_vec();
    out.extend([1, 0]);
    out.extend((header.len() as u16).to_le_bytes());
    out.extend(header.as_bytes());
    out.extend(raw);
    Ok(out)
}

fn data_type_of(kind: &str) -> Option<DataType> {
    data_type(kind).map(|(t, _)| t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `.npy` file laid out as `np.save` lays it out (version 1.0, header padded to 64).
    fn numpy_file(descr: &str, fortran: bool, shape: &str, data: &[u8]) -> Vec<u8> {
        let mut header = format!(
            "{{'descr': '{descr}', 'fortran_order': {}, 'shape': {shape}, }}",
            if fortran { "True" } else { "False" }
        );
        while !(10 + header.len() + 1).is_multiple_of(64) {
            header.push(' ');
        }
        header.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend((header.len() as u16).to_le_bytes());
        out.extend(header.as_bytes());
        out.extend(data);
        out
    }

    #[test]
    fn reads_c_and_fortran_order_and_both_byte_orders() {
        let values = [0.0f32, 1.0, 2.0, 3.0, 4.0, 5.0];
        let little: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let value = read(&numpy_file("<f4", false, "(2, 3)", &little)).unwrap();
        assert_eq!(value.dims(), Some(vec![2, 3]));
        assert_eq!(value.to_vec::<f32>().unwrap(), values);
        let big: Vec<u8> = values.iter().flat_map(|v| v.to_be_bytes()).collect();
        let value = read(&numpy_file(">f4", false, "(2, 3)", &big)).unwrap();
        assert_eq!(value.to_vec::<f32>().unwrap(), values);
        // Fortran order stores columns first: 0 3 1 4 2 5 is the C array 0 1 2 / 3 4 5.
        let columns: Vec<u8> = [0i64, 3, 1, 4, 2, 5]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let value = read(&numpy_file("<i8", true, "(2, 3)", &columns)).unwrap();
        assert_eq!(value.to_vec::<i64>().unwrap(), [0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn writes_what_it_reads() {
        for value in [
            Value::tensor(&[1.5f64, -2.0], &[2]).unwrap(),
            Value::tensor(&[true, false, true, true], &[2, 2]).unwrap(),
            Value::tensor(&[7u8], &[]).unwrap(),
        ] {
            let bytes = write(&value).unwrap();
            let data = value.as_tensor().unwrap().raw_data.as_ref().unwrap().len();
            assert_eq!(
                (bytes.len() - data) % 64,
                0,
                "the data starts at a multiple of 64"
            );
            assert_eq!(read(&bytes).unwrap(), value);
        }
    }

    #[test]
    fn bad_files_say_what_is_wrong() {
        assert_eq!(
            read(b"PK\x03\x04").unwrap_err(),
            "not a .npy file (no \\x93NUMPY magic)"
        );
        assert_eq!(
            read(&numpy_file("<f4", false, "(2, 3)", &[0; 4])).unwrap_err(),
            "the .npy data holds 4 bytes where shape [2, 3] of `<f4` needs 24"
        );
        assert_eq!(
            read(&numpy_file("<U3", false, "(1,)", &[0; 12])).unwrap_err(),
            "numpy element type `<U3`, which ONNX has no tensor of"
        );
        let strings = Value::tensor(&["a".to_string()], &[1]).unwrap();
        assert_eq!(write(&strings).unwrap_err(), "numpy has no STRING tensors");
    }
}
