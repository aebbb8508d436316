//! onnx 1.23.2's node cases, read from the tables of `onnx-conformance-data` (generated) into
//! [`Case`]s once, the first time they are asked for.

use crate::Case;
use onnx_conformance_data as catalog;
use std::sync::LazyLock;

/// Every case, in the manifest's order (by name).
pub(crate) static CASES: LazyLock<Vec<Case>> = LazyLock::new(|| {
    // The generator writes the tables together: a mismatch is a fault of the committed data,
    // which the kit's own tests read.
    let lines = LINES.as_slice();
    assert!(
        lines.len() == catalog::TEXTS.len() && lines.len() == catalog::MODELS.len(),
        "the catalog's tables do not match its manifest"
    );
    let mut files = catalog::FILES.as_slice();
    let mut take = |n: usize| {
        let (taken, rest) = files.split_at(n);
        files = rest;
        taken
    };
    let cases: Vec<Case> = lines
        .iter()
        .zip(catalog::TEXTS.iter().zip(&catalog::MODELS))
        .map(|(line, (text, model))| Case {
            name: line.name,
            suite: "node",
            op_type: line.op_type,
            domain: line.domain,
            opset_version: line.opset_version,
            rtol: line.rtol,
            atol: line.atol,
            text,
            model,
            inputs: take(line.inputs),
            outputs: take(line.outputs),
            constant_inputs: &line.constant_inputs,
        })
        .collect();
    assert!(
        files.is_empty(),
        "the catalog's files outnumber its manifest's"
    );
    cases
});

/// The manifest, read once: the cases borrow their constant inputs from it.
static LINES: LazyLock<Vec<Line>> = LazyLock::new(|| {
    catalog::MANIFEST
        .lines()
        .filter(|line| !line.starts_with('#'))
        .map(Line::read)
        .collect()
});

/// One line of the manifest.
struct Line {
    name: &'static str,
    op_type: &'static str,
    domain: &'static str,
    opset_version: i64,
    rtol: f64,
    atol: f64,
    inputs: usize,
    outputs: usize,
    constant_inputs: Vec<usize>,
}

impl Line {
    fn read(line: &'static str) -> Line {
        let fields: Vec<&'static str> = line.split('\t').collect();
        let [
            name,
            op_type,
            domain,
            opset,
            rtol,
            atol,
            inputs,
            outputs,
            constant_inputs,
        ] = fields[..]
        else {
            panic!("a manifest line of {} fields: {line:?}", fields.len());
        };
        Line {
            name,
            op_type,
            domain,
            opset_version: number(opset, "an opset version"),
            rtol: number(rtol, "rtol"),
            atol: number(atol, "atol"),
            inputs: number(inputs, "a count of inputs"),
            outputs: number(outputs, "a count of outputs"),
            constant_inputs: constant_inputs
                .split(',')
                .filter(|n| !n.is_empty())
                .map(|n| number(n, "a constant input"))
                .collect(),
        }
    }
}

fn number<T: std::str::FromStr>(field: &str, what: &str) -> T {
    field
        .parse()
        .unwrap_or_else(|_| panic!("the manifest's {what} is not a number: {field:?}"))
}
