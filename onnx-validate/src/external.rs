//! External data: a tensor whose bytes are in a file next to the model.
//!
//! The location is validated as text first: relative, and inside the model's folder once `.`
//! and `..` are resolved. Only then is the file system asked, and only for metadata (no file is
//! opened, let alone read): the location's real path, symbolic links resolved, must still be
//! inside the model's real folder; it must not itself be a symbolic link or have other hard
//! links (as onnx's checker requires); and it must be a regular file that holds the tensor's
//! bytes at its offset.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Component, Path, PathBuf};

use onnx_runtime_types::TensorProto;
use onnx_syntax::tensors::external_entry;

use super::place::quoted;
use super::rules::Rules;
use onnx_syntax::dtype::raw_byte_count;

impl Rules<'_> {
    /// What is wrong with the external data of `tensor`, if anything.
    pub(super) fn external(&self, tensor: &TensorProto) -> Option<String> {
        external_problem(tensor, self.model_dir).err()
    }
}

/// Where the external data of `tensor` is, once valid under the rules of
/// [`ModelCheck`](super::ModelCheck): its file inside `model_dir`, the offset and the number of
/// bytes; or what is wrong with it, as the `external_data` check says it.
fn external_problem(
    tensor: &TensorProto,
    model_dir: Option<&Path>,
) -> Result<(PathBuf, u64, Option<u64>), String> {
    let name = quoted(tensor.name.as_deref().unwrap_or_default());
    let entry = |key: &str| external_entry(tensor, key);
    let Some(location) = entry("location") else {
        return Err(format!(
            "tensor {name} is stored externally but has no location"
        ));
    };
    let number = |key: &str| -> Result<Option<u64>, String> {
        entry(key).map_or(Ok(None), |text| {
            text.parse::<u64>().map(Some).map_err(|_| {
                format!(
                    "tensor {name} has the external data {key} {}, not a number of bytes",
                    quoted(text)
                )
            })
        })
    };
    let (offset, length) = match (number("offset"), number("length")) {
        (Ok(offset), Ok(length)) => (offset.unwrap_or(0), length),
        (Err(why), _) | (_, Err(why)) => return Err(why),
    };
    let relative = match relative_inside(location) {
        Ok(path) => path,
        Err(why) => {
            return Err(format!(
                "tensor {name} has its data at {}: {why}",
                quoted(location)
            ));
        }
    };
    let Some(dir) = model_dir else {
        return Err(format!(
            "tensor {name} has its data in {}, but no model folder was given to find it in",
            quoted(location)
        ));
    };
    let needed = tensor_bytes(tensor);
    if let (Some(length), Some(needed)) = (length, needed)
        && length != needed
    {
        return Err(format!(
            "tensor {name} needs {needed} bytes but its external data length is {length}"
        ));
    }
    let at = quoted(location);
    let length = length.or(needed);
    match file_problem(dir, &relative, offset.checked_add(length.unwrap_or(0))) {
        Some(why) => Err(format!("tensor {name} has its data in {at}, which {why}")),
        None => Ok((dir.join(relative), offset, length)),
    }
}

/// The bytes of `tensor`'s external data, read from its file in `model_dir` once the location,
/// offset and length pass the rules of [`ModelCheck`](super::ModelCheck), with the same message
/// as its `external_data` check when they do not. Nothing outside `model_dir` is read. Without a
/// length (and without dims that give one), the data runs to the end of the file.
///
/// ```
/// use onnx_runtime_types::{StringStringEntryProto, TensorProto};
/// use onnx_validate::read_external_data;
///
/// let dir = std::env::temp_dir().join("onnx-syntax-read-external-data-doc");
/// std::fs::create_dir_all(&dir).unwrap();
/// std::fs::write(dir.join("w.bin"), [0u8, 0, 0, 0, 0, 0, 0x80, 0x3f]).unwrap();
/// let entry = |key: &str, value: &str| StringStringEntryProto {
///     key: Some(key.into()),
///     value: Some(value.into()),
/// };
/// let mut tensor = TensorProto {
///     name: Some("w".into()),
///     dims: vec![1],
///     data_type: Some(1), // float
///     data_location: Some(1), // external
///     external_data: vec![entry("location", "w.bin"), entry("offset", "4")],
///     ..TensorProto::default()
/// };
/// assert_eq!(read_external_data(&tensor, &dir).unwrap(), [0, 0, 0x80, 0x3f]); // 1.0f32
/// tensor.external_data[0].value = Some("../w.bin".into());
/// assert_eq!(
///     read_external_data(&tensor, &dir).unwrap_err(),
///     "tensor `w` has its data at `../w.bin`: a path that leaves the model's folder"
/// );
/// ```
pub fn read_external_data(tensor: &TensorProto, model_dir: &Path) -> Result<Vec<u8>, String> {
    let (path, offset, length) = external_problem(tensor, Some(model_dir))?;
    let name = quoted(tensor.name.as_deref().unwrap_or_default());
    let read = || -> std::io::Result<Vec<u8>> {
        let mut file = std::fs::File::open(&path)?;
        file.seek(SeekFrom::Start(offset))?;
        let mut data = Vec::new();
        match length {
            Some(length) => {
                let length = usize::try_from(length).map_err(std::io::Error::other)?;
                data.resize(length, 0);
                file.read_exact(&mut data)?;
            }
            None => {
                file.read_to_end(&mut data)?;
            }
        }
        Ok(data)
    };
    read().map_err(|e| format!("tensor {name}: cannot read its external data: {e}"))
}

/// `location` as a relative path with `.` and `..` resolved, if it stays inside its folder.
fn relative_inside(location: &str) -> Result<PathBuf, &'static str> {
    if location.is_empty() {
        return Err("an empty location");
    }
    // A rooted path on any system: `/x`, `\x`, `C:x`.
    let rooted = location.starts_with(['/', '\\']) || location.as_bytes().get(1) == Some(&b':');
    let mut relative = PathBuf::new();
    for component in Path::new(location).components() {
        match component {
            Component::Normal(part) => relative.push(part),
            Component::CurDir => {}
            Component::ParentDir => {
                if !relative.pop() {
                    return Err("a path that leaves the model's folder");
                }
            }
            Component::RootDir | Component::Prefix(_) => return Err("an absolute path"),
        }
    }
    if rooted {
        return Err("an absolute path");
    }
    if relative.as_os_str().is_empty() {
        return Err("the model's folder itself");
    }
    Ok(relative)
}

/// The bytes the tensor's data takes, from its type and dims, if they are valid.
fn tensor_bytes(tensor: &TensorProto) -> Option<u64> {
    let mut elements: u64 = 1;
    for &dim in &tensor.dims {
        elements = elements.checked_mul(u64::try_from(dim).ok()?)?;
    }
    raw_byte_count(tensor.data_type?, elements)
}

/// What is wrong with the file at `relative` in `dir` (already validated as text), which must
/// hold `end` bytes; `None` if nothing.
fn file_problem(dir: &Path, relative: &Path, end: Option<u64>) -> Option<String> {
    let dir = match dir.canonicalize() {
        Ok(dir) => dir,
        Err(e) => {
            return Some(format!(
                "cannot be looked for: the model folder is unreadable ({e})"
            ));
        }
    };
    let path = dir.join(relative);
    let link = std::fs::symlink_metadata(&path);
    if link.as_ref().is_ok_and(|m| m.file_type().is_symlink()) {
        return Some("is a symbolic link".into());
    }
    let real = match path.canonicalize() {
        Ok(real) => real,
        Err(_) if link.is_err() => return Some("does not exist".into()),
        Err(e) => return Some(format!("cannot be resolved ({e})")),
    };
    if !real.starts_with(&dir) {
        return Some("leaves the model's folder through a symbolic link".into());
    }
    let metadata = match std::fs::metadata(&real) {
        Ok(metadata) => metadata,
        Err(e) => return Some(format!("cannot be read ({e})")),
    };
    if !metadata.is_file() {
        return Some("is not a regular file".into());
    }
    if hard_links(&metadata) > 1 {
        return Some("has other hard links (it may be a file from outside the folder)".into());
    }
    match end {
        None => Some("cannot hold the data: offset and length overflow".into()),
        Some(end) if end > metadata.len() => Some(format!(
            "has {} bytes, fewer than the {end} that its offset and length need",
            metadata.len()
        )),
        Some(_) => None,
    }
}

#[cfg(unix)]
fn hard_links(metadata: &std::fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::nlink(metadata)
}

#[cfg(not(unix))]
fn hard_links(_: &std::fs::Metadata) -> u64 {
    1
}

#[cfg(test)]
mod tests {
    use super::relative_inside;
    use std::path::Path;

    #[test]
    fn locations_are_validated_as_text_first() {
        let ok = |l: &str| relative_inside(l).unwrap();
        assert_eq!(ok("w.bin"), Path::new("w.bin"));
        assert_eq!(ok("./sub/../w.bin"), Path::new("w.bin"));
        assert_eq!(ok("a/b/../../c"), Path::new("c"));
        for (location, why) in [
            ("", "an empty location"),
            ("/etc/passwd", "an absolute path"),
            ("\\\\server\\share", "an absolute path"),
            ("C:\\x", "an absolute path"),
            ("../x", "a path that leaves the model's folder"),
            (
                "sub/../../outside.bin",
                "a path that leaves the model's folder",
            ),
            (".", "the model's folder itself"),
            ("sub/..", "the model's folder itself"),
        ] {
            assert_eq!(relative_inside(location), Err(why), "{location}");
        }
    }
}
