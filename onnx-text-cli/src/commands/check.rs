//! `onnx-text check`: parse or decode files and run every check.

use std::path::Path;

use onnx_check::{CheckEntry, Libraries};
use onnx_syntax::diagnostic::Diagnostic;
use onnx_syntax::parse::Parser;
use onnx_syntax::syntax::{AttrValue, Graph};
use onnx_syntax::{Entry, Proto, Span};
use onnx_text::{Check, CheckOptions, DiagnosticKind, Style};
use onnx_validate::ModelCheck;

use super::{into_text, load, model_folder, read_libraries, report_io};
use crate::io::{self, Place};
use crate::message::{self, Format};
use crate::progress::Progress;
use crate::{CheckArgs, Outcome};

/// Checks every file and says how many problems it found.
pub fn check(args: &CheckArgs, show_progress: bool) -> Outcome {
    let options = args
        .allow
        .iter()
        .fold(CheckOptions::default(), |options, &check| {
            options.allow(check)
        });
    let libraries = match read_libraries(&args.library, Some(&options), show_progress) {
        Ok(libraries) => libraries,
        Err(outcome) => return outcome,
    };
    let in_view: Vec<(&str, &onnx_text::FunctionLibrary)> = libraries
        .iter()
        .map(|(name, l)| (name.as_str(), l))
        .collect();
    let mut outcome = Outcome::Ok;
    let mut problems = 0;
    let mut failed_files = 0;
    for file in &args.files {
        let place = Place::new(file);
        let name = place.display("<stdin>");
        let progress = Progress::new(show_progress, place.size());
        let found = match check_file(
            file, &place, args.kind, &options, &in_view, &name, &progress,
        ) {
            Ok(found) => found,
            Err(o) => {
                outcome = outcome.max(o);
                continue;
            }
        };
        drop(progress);
        if let Some((count, report)) = found {
            if problems > 0 {
                reportln!();
            }
            problems += count;
            failed_files += 1;
            report!("{report}");
            outcome = outcome.max(Outcome::Failed);
        }
    }
    if problems > 0 {
        reportln!(
            "\nerror: {problems} problem{} in {failed_files} file{}",
            if problems == 1 { "" } else { "s" },
            if failed_files == 1 { "" } else { "s" }
        );
    } else if outcome == Outcome::Ok && !args.quiet {
        let files = args.files.len();
        reportln!(
            "{files} file{} checked, no problems",
            if files == 1 { "" } else { "s" }
        );
    }
    outcome
}

/// Reads and checks one file: `None` if it is clean, else how many problems it has and their
/// report. Its format is the file name's, as `print` decides it, or else its content's. A
/// binary model is checked by [`ModelCheck`], with the file's folder as the model's folder; a
/// binary message of another kind is decoded and printed, and its text checked.
fn check_file(
    file: &Path,
    place: &Place,
    kind: Entry,
    options: &CheckOptions,
    libraries: &Libraries<'_>,
    name: &str,
    progress: &Progress,
) -> Result<Option<(usize, String)>, Outcome> {
    let data = io::read(place, progress).map_err(|e| report_io(&e))?;
    let format = Format::from_extension(file).unwrap_or_else(|| Format::sniff(&data));
    progress.stage(&format!("checking {name}"), None);
    let text = match format {
        Format::Binary if kind == Entry::Model => {
            return Ok(check_binary_model(&data, place, options, name));
        }
        Format::Binary => {
            let message = load(&data, Format::Binary, kind, None, name, progress)?;
            message::text(&message, Style::Lossless)
        }
        Format::Text => into_text(data, name, "is it a binary model? Name it `.onnx`")?,
    };
    let checked = kind.check_with(&text, options, libraries);
    let external = match (&checked, kind) {
        (Ok(Proto::Model(model)), _) => {
            external_data_problems(model, Some(model_folder(place)), options, Some(&text))
        }
        (Err(_), Entry::Model) => match message::parse(kind, &text) {
            Ok(Proto::Model(model)) => {
                external_data_problems(&model, Some(model_folder(place)), options, Some(&text))
            }
            _ => None,
        },
        _ => None,
    };
    let found = checked.err().map(|diagnostics| {
        let mut report = diagnostics.clone().with_origin(name).to_string();
        if format == Format::Binary {
            report.push_str(&printed_note(name));
        }
        (diagnostics.len(), report)
    });
    Ok(match (found, external) {
        (found, None) => found,
        (None, Some(problems)) => Some((problems.len(), problems.with_origin(name).to_string())),
        (Some((count, mut report)), Some(problems)) => {
            report.push_str(&problems.clone().with_origin(name).to_string());
            Some((count + problems.len(), report))
        }
    })
}

/// Checks a binary model as [`ModelCheck`] does, with the file's folder as the model's folder:
/// `None` if it is clean, else how many problems it has and their report. The external data
/// rule runs apart, so that a missing or short data file is one problem, as for a text.
fn check_binary_model(
    data: &[u8],
    place: &Place,
    options: &CheckOptions,
    name: &str,
) -> Option<(usize, String)> {
    let external = options.is_enabled(Check::ExternalData);
    let rest = if external {
        options.allow(Check::ExternalData)
    } else {
        *options
    };
    // On standard input there is no folder to find external data in.
    let dir = match place {
        Place::File(_) => Some(model_folder(place)),
        Place::Std => None,
    };
    let mut check = ModelCheck::new(rest);
    if let Some(dir) = dir {
        check = check.model_dir(dir);
    }
    let checked = check.check_bytes(data);
    let (model, mut found) = match checked {
        Ok(model) => (Some(model), None),
        Err(found) => {
            // Not a model at all (or past the decoding limits).
            if let [problem] = &found[..]
                && problem.kind() == DiagnosticKind::Decode
            {
                // The message every command gives, with the path and the offset; the
                // validator's own for what prost would decode (its limits).
                let why = message::decode(Entry::Model, data)
                    .err()
                    .unwrap_or_else(|| {
                        let message = problem.message();
                        format!("not a valid ONNX model (ModelProto): {message}")
                    });
                return Some((1, format!("error: `{name}` is {why}\n")));
            }
            (None, Some(found))
        }
    };
    if external {
        // The model again, only when other problems kept the check from returning it.
        let model = model.or_else(|| match message::decode(Entry::Model, data) {
            Ok(Proto::Model(model)) => Some(model),
            _ => None,
        });
        let problems = model.and_then(|m| external_data_problems(&m, dir, options, None));
        match (&mut found, problems) {
            (Some(found), Some(problems)) => found.combine(problems),
            (None, Some(problems)) => found = Some(problems),
            (_, None) => {}
        }
    }
    found.map(|found| {
        let mut report = found.clone().with_origin(name).to_string();
        if found.iter().any(|d| d.place().is_none()) {
            report.push_str(&printed_note(name));
        }
        (found.len(), report)
    })
}

/// The `external_data` rule of binary models, run on a model given as `text` or as bytes
/// (`None`): its external data is looked for in `dir` (none: standard input), each
/// problem at the tensor's name in the text (in a binary, at its place in the messages), and
/// the problems of one file that is missing or too short reported once, with the number of
/// tensors it affects.
fn external_data_problems(
    model: &onnx_text::ModelProto,
    dir: Option<&Path>,
    options: &CheckOptions,
    text: Option<&str>,
) -> Option<onnx_text::Diagnostics> {
    if !options.is_enabled(Check::ExternalData) {
        return None;
    }
    let only_external = CheckOptions::none().deny(Check::ExternalData);
    let mut check = ModelCheck::new(only_external);
    if let Some(dir) = dir {
        check = check.model_dir(dir);
    }
    let found = check.check(model).err()?;
    let names = text.map_or_else(Vec::new, initializer_names);
    // Each problem, or `None` for a tensor whose file's problem its group reports.
    let mut list: Vec<Option<Diagnostic>> = Vec::new();
    let mut groups: Vec<FileProblem> = Vec::new();
    for problem in &found {
        let message = problem.message();
        let Some((tensor, location, why)) = split_file_problem(message) else {
            list.push(Some(positioned(
                problem,
                &names,
                tensor_of(message),
                message,
            )));
            continue;
        };
        // A file missing or too short: one report for all its tensors.
        let short = why.starts_with("has ") && why.contains(", fewer than the ");
        let key = if short {
            why.split(", fewer than the ")
                .next()
                .unwrap_or(why)
                .to_owned()
        } else {
            why.to_owned()
        };
        match groups
            .iter_mut()
            .find(|g| g.location == location && g.key == key)
        {
            Some(group) => {
                group.tensors += 1;
                list.push(None);
            }
            None => groups.push(FileProblem {
                location: location.to_owned(),
                key,
                short,
                first: tensor.to_owned(),
                first_why: why.to_owned(),
                tensors: 1,
                at: list.len(),
                problem: problem.clone(),
            }),
        }
        if groups.last().is_some_and(|g| g.at == list.len()) {
            list.push(None); // the group's report, below
        }
    }
    for group in &groups {
        let message = if group.tensors == 1 {
            format!(
                "tensor `{}` has its data in `{}`, which {}",
                group.first, group.location, group.first_why
            )
        } else if group.short {
            format!(
                "`{}` {}, fewer than the offsets and lengths of {} tensors need; the first is `{}`",
                group.location, group.key, group.tensors, group.first
            )
        } else {
            format!(
                "`{}` {}, and {} tensors have their data in it; the first is `{}`",
                group.location, group.key, group.tensors, group.first
            )
        };
        list[group.at] = Some(positioned(
            &group.problem,
            &names,
            Some(&group.first),
            &message,
        ));
    }
    let list = list.into_iter().flatten().collect();
    Some(onnx_text::Diagnostics::new(text.unwrap_or(""), list))
}

/// The problems of one data file, gathered.
struct FileProblem {
    location: String,
    /// What is wrong with the file, the same for every tensor of the group.
    key: String,
    /// Too short (the tensors need different ends), rather than missing or unreadable.
    short: bool,
    first: String,
    first_why: String,
    tensors: usize,
    /// The index of the first tensor's problem in the list.
    at: usize,
    problem: Diagnostic,
}

/// `tensor `w` has its data in `m.bin`, which does not exist` as (`w`, `m.bin`, `does not
/// exist`): the message of a problem with the file itself.
fn split_file_problem(message: &str) -> Option<(&str, &str, &str)> {
    let rest = message.strip_prefix("tensor `")?;
    let (tensor, rest) = rest.split_once("` has its data in `")?;
    let (location, why) = rest.split_once("`, which ")?;
    Some((tensor, location, why))
}

/// The tensor a message of the `external_data` check names: `tensor `w` ...`.
fn tensor_of(message: &str) -> Option<&str> {
    message
        .strip_prefix("tensor `")?
        .split_once('`')
        .map(|(t, _)| t)
}

/// `problem` with `message`, at the name of `tensor` in the text where the text declares it,
/// or else where it was (in the model's messages).
fn positioned(
    problem: &Diagnostic,
    names: &[(String, String, Span)],
    tensor: Option<&str>,
    message: &str,
) -> Diagnostic {
    // The graph the place names (``graph `g` ``, the last one), to tell apart tensors of one
    // name in two graphs.
    let graph = problem.place().and_then(|place| {
        (place.steps().iter().rev())
            .find_map(|step| step.strip_prefix("graph `")?.strip_suffix('`'))
    });
    let span = tensor.and_then(|t| {
        let named = |(g, n, _): &&(String, String, Span)| n == t && graph.is_none_or(|x| x == g);
        (names.iter().find(named))
            .or_else(|| names.iter().find(|(_, n, _)| n == t))
            .map(|(_, _, s)| *s)
    });
    match (span, problem.place()) {
        (Some(span), _) => Diagnostic::new(problem.kind(), span, message),
        (None, Some(place)) => Diagnostic::in_message(problem.kind(), place.clone(), message),
        (None, None) => Diagnostic::new(problem.kind(), problem.span(), message),
    }
}

/// The initializers the text declares, in every graph (subgraphs of attributes too): the
/// graph's name, the initializer's, and the span of the initializer's name.
fn initializer_names(text: &str) -> Vec<(String, String, Span)> {
    fn walk(graph: &Graph, names: &mut Vec<(String, String, Span)>) {
        for decl in graph.inputs.iter().chain(&graph.locals) {
            if decl.initializer.is_some() {
                let name = &decl.info.name;
                names.push((graph.name.text.clone(), name.text.clone(), name.span));
            }
        }
        for attribute in graph.nodes.iter().flat_map(|n| &n.attributes) {
            match &attribute.value {
                Some(AttrValue::Graph(g)) => walk(g, names),
                Some(AttrValue::Graphs(gs)) => gs.iter().for_each(|g| walk(g, names)),
                _ => {}
            }
        }
    }
    let mut names = Vec::new();
    if let Ok(model) = Parser::new(text).and_then(|p| p.model()) {
        walk(&model.graph, &mut names);
    }
    names
}

/// The note after problems positioned in the printed text of a binary file.
fn printed_note(name: &str) -> String {
    format!(
        "note: `{name}` is binary: the positions are in its text, as \
         `onnx-text print {name}` shows it\n"
    )
}
