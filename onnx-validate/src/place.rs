//! The steps of a [`Place`](onnx_syntax::diagnostic::Place): how the rules name the items of a
//! model on the way down to a problem.

/// The step to a named item of a list (`initializer \`w\``), or to its index where it has no
/// name (`initializer 2`).
pub(super) fn named_step(list: &str, index: usize, name: &str) -> String {
    match name {
        "" => format!("{list} {index}"),
        _ => format!("{list} {}", quoted(name)),
    }
}

/// The step to node `index` of a body, named by its first output where it has one.
pub(super) fn node_step(index: usize, node: &onnx_runtime_types::NodeProto) -> String {
    match node.output.iter().find(|o| !o.is_empty()) {
        Some(output) => format!("node {index} (output {})", quoted(output)),
        None => format!("node {index}"),
    }
}

/// How a step names a value: in backticks, with control characters escaped, and cut after 80
/// characters (a name comes from an untrusted model).
pub(super) fn quoted(name: &str) -> String {
    let mut out = String::with_capacity(name.len().min(80) + 2);
    out.push('`');
    for (i, c) in name.chars().enumerate() {
        if i == 80 {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out.push('`');
    out
}
