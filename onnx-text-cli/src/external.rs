//! Weights beside the text: moving the large tensors of a model into an external data file in
//! onnx's layout (`--external-data`), and reading external data back in (`--inline-data`).
//!
//! The layout is what onnx 1.23.2's `save_model(..., save_as_external_data=True,
//! all_tensors_to_one_file=True)` writes: the initializers (the main graph's, then those of its
//! subgraphs, depth first) whose `raw_data` is large enough, one after the other in one file
//! with no gap, each named by `location`, `offset` and `length` entries.

use std::path::{Component, Path, PathBuf};

use onnx_syntax::tensors::{external_entry, for_each_tensor, is_external};
use onnx_text::{
    GraphProto, ModelProto, StringStringEntryProto, TensorProto, attribute_proto::AttributeType,
    tensor_proto::DataLocation,
};
use onnx_validate::read_external_data;

/// onnx compares Python's `sys.getsizeof` of a tensor's raw bytes with the threshold: their
/// length plus the header of a CPython `bytes` object. Counting the same way moves the same
/// tensors.
const PYTHON_BYTES_HEADER: u64 = 33;

/// What [`externalize`] moved: the bytes of the data file, and how many tensors they hold.
pub struct DataFile {
    pub bytes: Vec<u8>,
    pub tensors: usize,
}

/// Moves every initializer whose raw data takes at least `threshold` bytes (as onnx counts
/// them) into one data file named `location`, as onnx's `save_model` does; tensors already
/// stored outside keep their place. Fails if one of them is stored in `location` already,
/// which the new file would replace.
pub fn externalize(
    model: &mut ModelProto,
    location: &str,
    threshold: u64,
) -> Result<DataFile, String> {
    let mut clash = None;
    for_each_tensor(model, &mut |tensor| {
        if is_external(tensor) && external_entry(tensor, "location") == Some(location) {
            clash = Some(tensor.name.clone().unwrap_or_default());
        }
    });
    if let Some(name) = clash {
        return Err(format!(
            "tensor `{name}` already has its data in `{location}`, which --external-data would replace"
        ));
    }
    let mut file = DataFile {
        bytes: Vec::new(),
        tensors: 0,
    };
    if let Some(graph) = &mut model.graph {
        for_each_initializer(graph, &mut |tensor| {
            move_initializer(tensor, location, threshold, &mut file);
        });
    }
    Ok(file)
}

/// Whether onnx moves raw data of `length` bytes at `threshold`.
fn large_enough(length: usize, threshold: u64) -> bool {
    (length as u64) + PYTHON_BYTES_HEADER >= threshold
}

fn move_initializer(tensor: &mut TensorProto, location: &str, threshold: u64, file: &mut DataFile) {
    let Some(raw) = &tensor.raw_data else {
        return;
    };
    if is_external(tensor) || !large_enough(raw.len(), threshold) {
        return;
    }
    let raw = tensor.raw_data.take().unwrap_or_default();
    let entry = |key: &str, value: String| StringStringEntryProto {
        key: Some(key.into()),
        value: Some(value),
    };
    tensor.external_data = vec![
        entry("location", location.into()),
        entry("offset", file.bytes.len().to_string()),
        entry("length", raw.len().to_string()),
    ];
    tensor.data_location = Some(DataLocation::External as i32);
    file.bytes.extend_from_slice(&raw);
    file.tensors += 1;
}

/// Calls `f` on every initializer of `graph` and of its subgraphs, depth first, in onnx's
/// order.
fn for_each_initializer(graph: &mut GraphProto, f: &mut impl FnMut(&mut TensorProto)) {
    for tensor in &mut graph.initializer {
        f(tensor);
    }
    // onnx follows the attribute's declared type, not whichever fields are set.
    for node in &mut graph.node {
        for attribute in &mut node.attribute {
            if attribute.r#type == Some(AttributeType::Graph as i32)
                && let Some(g) = &mut attribute.g
            {
                for_each_initializer(g, f);
            }
            if attribute.r#type == Some(AttributeType::Graphs as i32) {
                for g in &mut attribute.graphs {
                    for_each_initializer(g, f);
                }
            }
        }
    }
}

/// Why [`externalize`] moved no tensor of `model` at `threshold`: what its initializers hold
/// (already external, and where; raw data too small, and the largest; values in typed fields,
/// which onnx never moves).
pub fn nothing_moved(model: &mut ModelProto, threshold: u64) -> String {
    let (mut external, mut small, mut typed, mut largest) = (0, 0, 0, 0);
    let mut files: Vec<String> = Vec::new();
    if let Some(graph) = &mut model.graph {
        for_each_initializer(graph, &mut |tensor| {
            if is_external(tensor) {
                external += 1;
                let file = external_entry(tensor, "location").unwrap_or("?").to_owned();
                if !files.contains(&file) {
                    files.push(file);
                }
            } else if let Some(raw) = &tensor.raw_data {
                small += 1;
                largest = largest.max(raw.len());
            } else {
                typed += 1;
            }
        });
    }
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut found = Vec::new();
    if external > 0 {
        let files: Vec<String> = files.iter().map(|f| format!("`{f}`")).collect();
        found.push(format!(
            "{} already stored outside, in {}, and {} there",
            plural(external, "initializer is", "initializers are"),
            files.join(", "),
            if external == 1 { "stays" } else { "stay" }
        ));
    }
    if small > 0 {
        found.push(format!(
            "{} raw data under the threshold (the largest: {largest} bytes)",
            plural(small, "initializer has", "initializers have")
        ));
    }
    if typed > 0 {
        found.push(format!(
            "{} its values in typed fields (float_data, int64_data, ...), which onnx never moves",
            plural(typed, "initializer holds", "initializers hold")
        ));
    }
    if found.is_empty() {
        found.push("the model has no initializer".to_owned());
    }
    format!(
        "no initializer has {threshold} bytes of raw data or more, as onnx counts them \
         ({PYTHON_BYTES_HEADER} more than their length): {}",
        found.join("; ")
    )
}

/// Reads the external data of every tensor of `model` that has some, from `model_dir` under
/// the validator's rules, into its `raw_data`. The tensor then holds its bytes as if it had
/// never left: no `data_location`, no `external_data`. Returns how many tensors were read.
pub fn inline_data(model: &mut ModelProto, model_dir: &Path) -> Result<usize, String> {
    let mut failure = None;
    let mut count = 0;
    for_each_tensor(model, &mut |tensor| {
        if failure.is_some() || !is_external(tensor) {
            return;
        }
        match read_external_data(tensor, model_dir) {
            Ok(bytes) => {
                tensor.raw_data = Some(bytes);
                tensor.external_data.clear();
                tensor.data_location = None;
                count += 1;
            }
            Err(why) => failure = Some(why),
        }
    });
    failure.map_or(Ok(count), Err)
}

/// `data` as a location in a model stored in `model_dir`: the path from that folder, with `/`
/// between its parts. The file must be inside the folder, as the validator requires.
pub fn location(data: &Path, model_dir: &Path) -> Result<String, String> {
    let shown = data.display();
    let (Some(parent), Some(file_name)) = (data.parent(), data.file_name()) else {
        return Err(format!("`{shown}` is not a file name"));
    };
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    let real = |dir: &Path| {
        dir.canonicalize()
            .map_err(|e| format!("cannot find the folder `{}`: {e}", dir.display()))
    };
    let (folder, model_folder) = (real(parent)?, real(model_dir)?);
    let Ok(inside) = folder.strip_prefix(&model_folder) else {
        return Err(format!(
            "`{shown}` is outside the model's folder `{}`: external data must be inside it",
            model_dir.display()
        ));
    };
    let mut parts: Vec<String> = inside
        .components()
        .filter_map(|c| match c {
            Component::Normal(part) => Some(part.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    parts.push(file_name.to_string_lossy().into_owned());
    Ok(parts.join("/"))
}

/// The files that hold the external data of `model`, found from `model_dir`, each once, in the
/// order of their first tensor. These are files the command reads, or must not replace.
pub fn referenced_files(model: &mut ModelProto, model_dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = Vec::new();
    for_each_tensor(model, &mut |tensor| {
        if !is_external(tensor) {
            return;
        }
        if let Some(location) = external_entry(tensor, "location") {
            let file = model_dir.join(location);
            if !files.contains(&file) {
                files.push(file);
            }
        }
    });
    files
}

/// Whether a relative `location` climbs out of its folder once `.` and `..` are resolved.
fn leaves_its_folder(location: &str) -> bool {
    let mut depth = 0usize;
    for component in Path::new(location).components() {
        match component {
            Component::Normal(_) => depth += 1,
            Component::ParentDir if depth == 0 => return true,
            Component::ParentDir => depth -= 1,
            _ => {}
        }
    }
    false
}

/// Rewrites the location of every tensor of `model` with external data, written from the folder
/// `from`, so that it names the same file from the folder `to`: a model written to another
/// folder keeps its weights. Fails, naming the first such tensor, if a file would be outside
/// `to` (the validator reads nothing outside a model's folder). A location that no folder
/// makes valid (rooted, or climbing out of its folder) is left alone. Returns how many
/// locations changed.
pub fn relocate(model: &mut ModelProto, from: &Path, to: &Path) -> Result<usize, String> {
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    };
    if same(from, to) {
        return Ok(0);
    }
    let mut failure = None;
    let mut changed = 0;
    for_each_tensor(model, &mut |tensor| {
        if failure.is_some() || !is_external(tensor) {
            return;
        }
        let Some(old) = external_entry(tensor, "location").map(str::to_owned) else {
            return;
        };
        // A location no folder makes valid (rooted, or leaving its folder) is the validator's
        // to reject where the model is read; it stays as it is.
        let rooted = old.starts_with(['/', '\\']) || old.as_bytes().get(1) == Some(&b':');
        if rooted || leaves_its_folder(&old) {
            return;
        }
        let name = tensor.name.clone().unwrap_or_default();
        match location(&from.join(&old), to) {
            Ok(new) => {
                if new != old {
                    changed += 1;
                }
                for entry in &mut tensor.external_data {
                    if entry.key.as_deref() == Some("location") {
                        entry.value = Some(new.clone());
                    }
                }
            }
            Err(why) => {
                failure = Some(format!(
                    "tensor `{name}` has its data in `{old}` beside the input, and the output \
                     would not find it: {why}; write the output in a folder that holds the data, \
                     or pass --inline-data to convert"
                ));
            }
        }
    });
    failure.map_or(Ok(changed), Err)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(text: &str) -> ModelProto {
        onnx_text::parse_model(text).unwrap()
    }

    /// A model whose initializers hold raw data of the given lengths, one in a subgraph.
    fn raw_model(lengths: &[usize], in_subgraph: usize) -> ModelProto {
        let mut m = model(
            "<ir_version: 10, opset_import: [\"\" : 21]> g (bool c) => (float[1] y) {\n\
             y = If (c) <then_branch = t () => (float[1] a) { a = Identity(s) }, \
             else_branch = e () => (float[1] b) { b = Identity(s) }>\n}",
        );
        let raw = |name: &str, len: usize| TensorProto {
            name: Some(name.into()),
            dims: vec![len as i64],
            data_type: Some(2), // uint8
            raw_data: Some((0..len).map(|i| i as u8).collect()),
            ..TensorProto::default()
        };
        let graph = model_graph(&mut m);
        for (i, &len) in lengths.iter().enumerate() {
            graph.initializer.push(raw(&format!("w{i}"), len));
        }
        let branch = graph.node[0].attribute[0].g.as_mut().unwrap();
        branch.initializer.push(raw("s", in_subgraph));
        m
    }

    fn model_graph(m: &mut ModelProto) -> &mut GraphProto {
        m.graph.as_mut().unwrap()
    }

    #[test]
    fn large_raw_tensors_move_in_onnx_order_and_come_back_byte_for_byte() {
        use onnx_text::prost::Message;
        let original = raw_model(&[2000, 10, 991, 990], 1500);
        let mut m = original.clone();
        let file = externalize(&mut m, "m.bin", 1024).unwrap();
        // 991 + 33 reaches 1024; 990 does not.
        assert_eq!(file.tensors, 3);
        assert_eq!(file.bytes.len(), 2000 + 991 + 1500);
        let entries = |t: &TensorProto| -> Vec<(String, String)> {
            (t.external_data.iter())
                .map(|e| (e.key.clone().unwrap(), e.value.clone().unwrap()))
                .collect()
        };
        let graph = model_graph(&mut m);
        let pair = |k: &str, v: &str| (k.to_owned(), v.to_owned());
        assert_eq!(
            entries(&graph.initializer[2]),
            [
                pair("location", "m.bin"),
                pair("offset", "2000"),
                pair("length", "991")
            ]
        );
        assert_eq!(graph.initializer[1].raw_data.as_ref().unwrap().len(), 10);
        let sub = &graph.node[0].attribute[0].g.as_ref().unwrap().initializer[0];
        assert_eq!(entries(sub)[1], pair("offset", "2991"));

        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("m.bin"), &file.bytes).unwrap();
        assert_eq!(inline_data(&mut m, dir.path()), Ok(3));
        assert_eq!(m.encode_to_vec(), original.encode_to_vec());
    }

    #[test]
    fn a_threshold_of_zero_moves_every_raw_tensor_and_external_ones_stay() {
        let mut m = raw_model(&[0, 5], 1);
        assert_eq!(externalize(&mut m, "a.bin", 0).unwrap().tensors, 3);
        // Already external: kept where it is, and never overwritten by a new file of its name.
        assert_eq!(externalize(&mut m, "b.bin", 0).unwrap().tensors, 0);
        let clash = externalize(&mut m, "a.bin", 0).err().unwrap();
        assert!(clash.contains("already has its data in `a.bin`"), "{clash}");
    }

    #[test]
    fn nothing_moved_says_what_the_initializers_hold() {
        let mut m = raw_model(&[2000, 10], 100);
        externalize(&mut m, "a.bin", 1024).unwrap();
        model_graph(&mut m).initializer.push(TensorProto {
            name: Some("typed".into()),
            dims: vec![1],
            data_type: Some(1),
            float_data: vec![1.0],
            ..TensorProto::default()
        });
        assert_eq!(
            nothing_moved(&mut m, 1024),
            "no initializer has 1024 bytes of raw data or more, as onnx counts them (33 more \
             than their length): 1 initializer is already stored outside, in `a.bin`, and stays \
             there; 2 initializers have raw data under the threshold (the largest: 100 bytes); \
             1 initializer holds its values in typed fields (float_data, int64_data, ...), which \
             onnx never moves"
        );
        let mut empty = model(
            "<ir_version: 10, opset_import: [\"\" : 21]>\n\
             g (float x) => (float y) { y = Relu(x) }",
        );
        assert!(nothing_moved(&mut empty, 1024).ends_with(": the model has no initializer"));
    }

    #[test]
    fn inlining_follows_the_validators_rules() {
        let mut m = raw_model(&[2000], 0);
        externalize(&mut m, "m.bin", 1024).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let err = inline_data(&mut m, dir.path()).unwrap_err();
        assert_eq!(
            err,
            "tensor `w0` has its data in `m.bin`, which does not exist"
        );
        std::fs::write(dir.path().join("m.bin"), [0u8; 100]).unwrap();
        let err = inline_data(&mut m, dir.path()).unwrap_err();
        assert!(err.contains("has 100 bytes, fewer than the 2000"), "{err}");
        let tensor = &mut model_graph(&mut m).initializer[0];
        tensor.external_data[0].value = Some("../m.bin".into());
        let err = inline_data(&mut m, dir.path()).unwrap_err();
        assert!(
            err.contains("a path that leaves the model's folder"),
            "{err}"
        );
    }

    #[test]
    fn relocated_locations_name_the_same_files_from_the_new_folder() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("r/w")).unwrap();
        std::fs::create_dir(root.join("other")).unwrap();
        let mut m = raw_model(&[2000], 1500);
        externalize(&mut m, "w/m.bin", 1024).unwrap();
        let referenced = referenced_files(&mut m, &root.join("r"));
        assert_eq!(referenced, [root.join("r").join("w/m.bin")]);
        // From r/ to the folder above it: the location gains the folder's name.
        let mut up = m.clone();
        assert_eq!(relocate(&mut up, &root.join("r"), root), Ok(2));
        assert_eq!(referenced_files(&mut up, root), [root.join("r/w/m.bin")]);
        // To the same folder under another name: nothing changes.
        let mut same = m.clone();
        assert_eq!(
            relocate(&mut same, &root.join("r"), &root.join("r/w/..")),
            Ok(0)
        );
        // A location that is invalid anywhere stays as it is.
        for location in ["../w/m.bin", "w/../../m.bin", "/abs/m.bin"] {
            let mut invalid = m.clone();
            let tensor = &mut model_graph(&mut invalid).initializer[0];
            tensor.external_data[0].value = Some(location.into());
            relocate(&mut invalid, &root.join("r"), root).unwrap();
            let tensor = &model_graph(&mut invalid).initializer[0];
            assert_eq!(external_entry(tensor, "location"), Some(location));
        }
        // `..` that stays inside is resolved as the validator resolves it.
        let mut inside = m.clone();
        model_graph(&mut inside).initializer[0].external_data[0].value =
            Some("w/../w/m.bin".into());
        relocate(&mut inside, &root.join("r"), root).unwrap();
        let tensor = &model_graph(&mut inside).initializer[0];
        assert_eq!(external_entry(tensor, "location"), Some("r/w/m.bin"));
        // To a folder the data is not in: refused, naming the tensor.
        let err = relocate(&mut m.clone(), &root.join("r"), &root.join("other")).unwrap_err();
        assert!(
            err.contains("tensor `w0` has its data in `w/m.bin`"),
            "{err}"
        );
        assert!(err.contains("is outside the model's folder"), "{err}");
    }

    #[test]
    fn locations_are_relative_to_the_models_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let root = dir.path();
        assert_eq!(location(&root.join("m.bin"), root).unwrap(), "m.bin");
        assert_eq!(
            location(&root.join("sub/m.bin"), root).unwrap(),
            "sub/m.bin"
        );
        let outside = location(&root.join("m.bin"), &root.join("sub")).unwrap_err();
        assert!(
            outside.contains("is outside the model's folder"),
            "{outside}"
        );
    }
}

/// Every model binary of the conformance corpus, through text and a data file and back.
#[cfg(test)]
mod corpus {
    use super::*;
    use onnx_text::prost::Message;

    #[test]
    fn every_corpus_model_comes_back_the_same_through_text_and_data() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
        let mut sources = Vec::new();
        let mut folders = vec![root];
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(&folder).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    folders.push(path);
                } else if path.to_string_lossy().ends_with(".model.source.pb") {
                    sources.push(path);
                }
            }
        }
        // The corpus holds 2,065 models from onnx's wheel and its generators: an emptied or
        // misplaced corpus fails here instead of passing on nothing.
        assert!(sources.len() >= 2000, "{} models", sources.len());
        let dir = tempfile::tempdir().unwrap();
        let (mut moved, mut dangling) = (0, 0);
        for source in &sources {
            let original = ModelProto::decode(&std::fs::read(source).unwrap()[..]).unwrap();
            let printed = onnx_text::to_text(&original);
            for threshold in [0, 1024] {
                let mut model = original.clone();
                let file = externalize(&mut model, "m.bin", threshold).unwrap();
                moved += file.tensors;
                std::fs::write(dir.path().join("m.bin"), &file.bytes).unwrap();
                let text = onnx_text::to_text(&model);
                let mut back = onnx_text::parse_model(&text).unwrap();
                if let Err(why) = inline_data(&mut back, dir.path()) {
                    // A model of the corpus that names external data it does not ship.
                    assert!(
                        why.contains("which does not exist"),
                        "{}: {why}",
                        source.display()
                    );
                    dangling += 1;
                    continue;
                }
                // Equal as far as the text can tell: an absent node or import domain reads
                // back as "", and raw data left in the text as the typed fields.
                assert_eq!(onnx_text::to_text(&back), printed, "{}", source.display());
                if threshold == 0 {
                    // Every tensor that had raw data took it out and back.
                    assert_eq!(file.tensors, count_raw_initializers(&original));
                }
            }
        }
        assert!(moved > 1000, "{moved} tensors moved");
        assert_eq!(
            dangling, 2,
            "one model (at both thresholds) names a data file it lacks"
        );
    }

    fn count_raw_initializers(model: &ModelProto) -> usize {
        fn graph(g: &GraphProto) -> usize {
            let own = (g.initializer.iter())
                .filter(|t| t.raw_data.is_some() && !is_external(t))
                .count();
            let nested = g.node.iter().flat_map(|n| &n.attribute).map(|a| {
                let graphs: Vec<&GraphProto> = match a.r#type {
                    Some(t) if t == AttributeType::Graph as i32 => {
                        a.g.as_deref().into_iter().collect()
                    }
                    Some(t) if t == AttributeType::Graphs as i32 => a.graphs.iter().collect(),
                    _ => Vec::new(),
                };
                graphs.into_iter().map(graph).sum::<usize>()
            });
            own + nested.sum::<usize>()
        }
        model.graph.as_ref().map_or(0, graph)
    }
}
