//! The `external_data` rule, positioned: the problems of a model's external data (a missing
//! data file, a short one, an offset past its end) at the name of the tensor in the text, each
//! file's problem reported once. `onnx-text check` and the language server report them alike.

use std::path::Path;

use onnx_check::CheckOptions;
use onnx_syntax::Span;
use onnx_syntax::diagnostic::Diagnostic;
use onnx_syntax::parse::Parser;
use onnx_syntax::syntax::{AttrValue, Graph};
use onnx_text::Check;
use onnx_validate::ModelCheck;

/// The `external_data` rule of binary models, run on a model given as `text` or as bytes
/// (`None`): its external data is looked for in `dir` (none: standard input), each
/// problem at the tensor's name in the text (in a binary, at its place in the messages), and
/// the problems of one file that is missing or too short reported once, with the number of
/// tensors it affects.
///
/// ```
/// use onnx_text_cli::data_check::external_data_problems;
/// let text = r#"<ir_version: 10, opset_import: ["" : 21]>
/// g (float[2] x) => (float[2] y)
///   <float[256] w = ["location": "no-such-weights.bin", "offset": "0", "length": "1024"]>
/// { y = Add(x, w) }"#;
/// let model = onnx_text::parse_model(text).unwrap();
/// let options = onnx_text::CheckOptions::default();
/// let folder = std::env::temp_dir();
/// let found = external_data_problems(&model, Some(&folder), &options, Some(text)).unwrap();
/// assert_eq!(
///     found[0].message(),
///     "tensor `w` has its data in `no-such-weights.bin`, which does not exist"
/// );
/// assert_eq!(found.line_column(0).map(|p| (p.line, p.column)), Some((3, 15)));
/// ```
pub fn external_data_problems(
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
