//! `onnx-text run`: runs a model through the reference evaluator (`onnx-eval`) on inputs from
//! `.pb` or `.npy` files, and writes or prints its outputs.

use std::path::{Path, PathBuf};

use onnx_eval::{Evaluator, Value};
use onnx_text::{CheckOptions, ModelProto, ValueInfoProto};

use super::{add_model_reads, check_paths, check_same_files, model_folder, read_model, report_io};
use crate::io::{self, Place};
use crate::paths::{Access, Paths};
use crate::progress::Progress;
use crate::{Outcome, RunArgs, external, npy, write};

/// Outputs of at most this many elements are printed whole when no `-o` is given.
const PRINTED_ELEMENTS: usize = 64;

/// Where each graph input comes from: a file by position, or `NAME=FILE`.
fn assign_inputs(
    given: &[String],
    graph_inputs: &[ValueInfoProto],
) -> Result<Vec<PathBuf>, String> {
    let mut files: Vec<Option<PathBuf>> = vec![None; graph_inputs.len()];
    let mut position = 0;
    for argument in given {
        let split = argument.split_once('=');
        let named = split.filter(|(name, _)| graph_inputs.iter().any(|i| i.name() == *name));
        // `NAME=FILE` with a NAME the model does not have is a typo, unless a file has that name.
        if let Some((name, _)) = split
            && named.is_none()
            && !Path::new(argument).exists()
        {
            let names: Vec<String> = graph_inputs
                .iter()
                .map(|i| format!("`{}`", i.name()))
                .collect();
            let listed = if names.is_empty() {
                "it takes none".to_owned()
            } else {
                format!("its inputs are {}", names.join(", "))
            };
            return Err(format!(
                "`{argument}`: the model has no input named `{name}`; {listed}"
            ));
        }
        let (index, file) = match named {
            Some((name, file)) => {
                let index = graph_inputs
                    .iter()
                    .position(|i| i.name() == name)
                    .expect("found above");
                (index, file)
            }
            None => {
                while files.get(position).is_some_and(Option::is_some) {
                    position += 1;
                }
                (position, argument.as_str())
            }
        };
        let slot = files.get_mut(index).ok_or_else(|| {
            format!(
                "`{argument}`: the model takes {} inputs",
                graph_inputs.len()
            )
        })?;
        if slot.is_some() {
            return Err(format!(
                "input `{}` is given twice",
                graph_inputs[index].name()
            ));
        }
        *slot = Some(PathBuf::from(file));
    }
    files
        .into_iter()
        .zip(graph_inputs)
        .map(|(file, input)| {
            file.ok_or_else(|| {
                format!(
                    "input `{}` is not given (by position, or as {}=FILE)",
                    input.name(),
                    input.name()
                )
            })
        })
        .collect()
}

/// Reads one input file, `.npy` by its extension or magic, else a `.pb` of the input's type.
fn read_input(path: &Path, info: &ValueInfoProto) -> Result<Value, Outcome> {
    let place = Place::new(path);
    let name = place.display("<stdin>");
    let bytes = io::read(&place, &Progress::new(false, 0)).map_err(|e| report_io(&e))?;
    let is_npy = path.extension().is_some_and(|e| e == "npy") || bytes.starts_with(b"\x93NUMPY");
    let value = if is_npy {
        npy::read(&bytes)
    } else {
        Value::decode(info.r#type.as_ref(), &bytes).map_err(|e| e.to_string())
    };
    value.map_err(|why| {
        reportln!("error: `{name}` (input `{}`): {why}", info.name());
        Outcome::Failed
    })
}

/// Runs the model of `args` on its inputs.
pub fn run(args: &RunArgs, show_progress: bool) -> Outcome {
    if let Err(why) = check_output_folder(args.output.as_deref()) {
        reportln!("error: {why}");
        return Outcome::Fatal;
    }
    let input = Place::new(&args.model);
    let name = input.display("<stdin>");
    let mut paths = Paths::default();
    paths.add(&args.model, "the model", Access::Read);
    let progress = Progress::new(show_progress, input.size());
    let checks = CheckOptions::default();
    let mut model = match read_model(&args.model, &input, Some(&checks), &name, &progress) {
        Ok(model) => model,
        Err(outcome) => return outcome,
    };
    let graph_inputs = model
        .graph
        .as_ref()
        .map_or(&[][..], |g| &g.input[..])
        .to_vec();
    let files = match assign_inputs(&args.inputs, &graph_inputs) {
        Ok(files) => files,
        Err(why) => {
            reportln!("error: {why}");
            return Outcome::Fatal;
        }
    };
    for file in &files {
        paths.add(file, "an input", Access::Read);
    }
    let outputs_named = output_files(&model, args);
    for file in &outputs_named {
        paths.add(file, "an output in -o", Access::Write { named: false });
    }
    let mut proto = onnx_syntax::Proto::Model(model);
    add_model_reads(&mut paths, &mut proto, &input);
    let onnx_syntax::Proto::Model(read_back) = proto else {
        unreachable!("a model stays a model")
    };
    model = read_back;
    if let Err(outcome) = check_same_files(&paths).and_then(|()| check_paths(&paths, args.force)) {
        return outcome;
    }
    if let Err(why) = external::inline_data(&mut model, model_folder(&input)) {
        reportln!("error: `{name}`: {why}");
        return Outcome::Failed;
    }
    let mut values = Vec::with_capacity(files.len());
    for (file, info) in files.iter().zip(&graph_inputs) {
        match read_input(file, info) {
            Ok(value) => values.push(value),
            Err(outcome) => return outcome,
        }
    }
    progress.stage(&format!("running {name}"), None);
    let outputs = match Evaluator::new(&model).and_then(|e| e.run(&values)) {
        Ok(outputs) => outputs,
        Err(error) => {
            reportln!("error: {name}: {error}");
            return Outcome::Failed;
        }
    };
    match &args.output {
        Some(_) => write_outputs(&outputs, &outputs_named, args.npy),
        None => print_outputs(&model, &outputs),
    }
}

/// `-o DIR` names a folder, existing or not: checked before the model is read or run.
fn check_output_folder(dir: Option<&Path>) -> Result<(), String> {
    let Some(dir) = dir else {
        return Ok(());
    };
    if dir.as_os_str() == "-" {
        return Err(
            "-o takes a folder for the output files; to print the outputs, leave -o out".into(),
        );
    }
    match std::fs::metadata(dir) {
        Ok(meta) if !meta.is_dir() => Err(format!(
            "`{}` (-o) is not a folder: run writes one file per output into a folder; nothing \
             was run",
            dir.display()
        )),
        _ => Ok(()),
    }
}

/// The files `-o DIR` gets: `output_N.pb`, or `output_N.npy` with `--npy`.
fn output_files(model: &ModelProto, args: &RunArgs) -> Vec<PathBuf> {
    let Some(dir) = &args.output else {
        return Vec::new();
    };
    let extension = if args.npy { "npy" } else { "pb" };
    let count = model.graph.as_ref().map_or(0, |g| g.output.len());
    (0..count)
        .map(|i| dir.join(format!("output_{i}.{extension}")))
        .collect()
}

/// Writes every output to its file: all of them, or none.
fn write_outputs(outputs: &[Value], files: &[PathBuf], as_npy: bool) -> Outcome {
    let mut written = Vec::with_capacity(files.len());
    for (value, file) in outputs.iter().zip(files) {
        let bytes = if as_npy {
            match npy::write(value) {
                Ok(bytes) => bytes,
                Err(why) => {
                    reportln!("error: `{}`: {why}", file.display());
                    return Outcome::Failed;
                }
            }
        } else {
            value.encode()
        };
        if let Some(dir) = file.parent()
            && let Err(e) = std::fs::create_dir_all(dir)
        {
            reportln!("error: cannot create `{}`: {e}", dir.display());
            return Outcome::Fatal;
        }
        written.push((Place::File(file.clone()), bytes));
    }
    let outputs: Vec<(&Place, &[u8])> = written.iter().map(|(p, b)| (p, &b[..])).collect();
    match write::write_all(&outputs, &Progress::new(false, 0)) {
        Ok(()) => Outcome::Ok,
        Err(e) => report_io(&e),
    }
}

/// Each output on standard output, as `name = type[dims] {elements}`; large ones by their type
/// and shape only.
fn print_outputs(model: &ModelProto, outputs: &[Value]) -> Outcome {
    let names = model.graph.as_ref().map_or(Vec::new(), |g| {
        g.output.iter().map(|o| o.name().to_string()).collect()
    });
    let mut text = String::new();
    for (name, value) in names.iter().zip(outputs) {
        text.push_str(&format!("{name} = {}\n", describe(value)));
    }
    match write::write(&Place::Std, text.as_bytes(), &Progress::new(false, 0)) {
        Ok(()) => Outcome::Ok,
        Err(e) => report_io(&e),
    }
}

/// A value as text: a tensor as the syntax writes tensor constants, others by their items.
fn describe(value: &Value) -> String {
    use onnx_value::elements::{Elements, decode};
    match value {
        Value::Tensor(tensor) => {
            let ty = onnx_text::tensor_proto::DataType::try_from(tensor.data_type.unwrap_or(0))
                .map_or("undefined".to_string(), |t| t.as_str_name().to_lowercase());
            let dims: Vec<String> = tensor.dims.iter().map(i64::to_string).collect();
            let head = format!("{ty}[{}]", dims.join(", "));
            let elements = match decode(tensor) {
                Ok(elements) => elements,
                Err(why) => return format!("{head} (unreadable: {why})"),
            };
            if elements.len() > PRINTED_ELEMENTS {
                return format!(
                    "{head} ({} elements; write them with -o DIR)",
                    elements.len()
                );
            }
            let items: Vec<String> = match elements {
                Elements::Float(v) => v.iter().map(|x| format!("{x:?}")).collect(),
                Elements::Complex(v) => {
                    v.iter().map(|(re, im)| format!("{re:?}{im:+?}i")).collect()
                }
                Elements::Int(v) => v.iter().map(i128::to_string).collect(),
                Elements::Bool(v) => v.iter().map(|&b| u8::from(b).to_string()).collect(),
                Elements::String(v) => v
                    .iter()
                    .map(|s| format!("{:?}", String::from_utf8_lossy(s)))
                    .collect(),
            };
            format!("{head} {{{}}}", items.join(", "))
        }
        Value::Sequence(items) => {
            let items: Vec<String> = items.iter().map(describe).collect();
            format!("sequence [{}]", items.join(", "))
        }
        Value::Optional(None) => "optional (empty)".to_string(),
        Value::Optional(Some(inner)) => format!("optional ({})", describe(inner)),
        Value::Map(map) => format!("map of {} entries", map.entries.len()),
    }
}
