//! What the fuzz targets do with one input, shared with the regression test that replays every
//! input the fuzzers ever found (`tests/it/fuzz_regressions.rs` includes this file), so that a
//! replayed input meets exactly the assertions that caught it.
//!
//! Every target reads its first byte as a selector of the entry point (one of `Entry::ALL`, or
//! one of the message types for [`print`]) and the rest as the input. One target per concern
//! rather than one per entry point: the entry points share the grammar, so an input that reaches
//! deep into it for one (a node, a type) is a good seed for the others, and libFuzzer's corpus
//! and coverage feedback are shared among them.

use onnx_check::CheckEntry;
use onnx_syntax::{Entry, Proto, Tree};
use onnx_text::prost::Message;
use onnx_text::{CheckOptions, ModelProto, NodeProto, ParseError, Style, ToText};

/// The entry point that a selector byte picks.
pub fn from_selector(selector: u8) -> Entry {
    Entry::ALL[usize::from(selector) % Entry::ALL.len()]
}

/// Parses `text` with the runtime entry point `entry`.
pub fn parse(entry: Entry, text: &str) -> Result<Proto, ParseError> {
    entry.parse(text).map(Tree::lower)
}

/// The protobuf bytes of `proto` (lists: each message length-delimited, one after the other).
fn encode(proto: &Proto) -> Vec<u8> {
    proto.clone().encode()
}

/// The text of `proto` in `style`, in the form that its entry point reads back.
fn print(proto: &Proto, style: Style) -> String {
    let mut text = String::new();
    proto.write_text(&mut text, style);
    text
}

/// The selector byte split off `data`, and the rest as text; bytes that are not UTF-8 must get
/// a positioned error, and then there is nothing more to do.
fn selected_text(data: &[u8]) -> Option<(u8, &str)> {
    let (&selector, bytes) = data.split_first()?;
    match onnx_text::text_from_bytes(bytes) {
        Ok(text) => Some((selector, text)),
        Err(err) => {
            assert_positioned(&err, bytes.len());
            None
        }
    }
}

/// An error names a line and column, its span lies within the input, and it renders.
fn assert_positioned(err: &ParseError, input_len: usize) {
    assert!(
        err.line() >= 1 && err.column() >= 1,
        "unpositioned: {err:?}"
    );
    assert!(
        err.span().end as usize <= input_len,
        "span {:?} past the end ({input_len} bytes): {err:?}",
        err.span()
    );
    assert!(!err.to_string().is_empty());
}

/// Target `parse`: an entry point on any input gives a value or a positioned error.
pub fn parse_target(data: &[u8]) {
    let Some((selector, text)) = selected_text(data) else {
        return;
    };
    if let Err(err) = parse(from_selector(selector), text) {
        assert_positioned(&err, text.len());
    }
}

/// Target `check`: the checks on any input give a value or diagnostics whose spans lie within
/// the input, and they render. Selectors whose quotient by 7 is odd (7 to 13, 21 to 27, …) run
/// with every check off, as `#![unchecked]` does, which must give exactly what the parser gives.
pub fn check_target(data: &[u8]) {
    let Some((selector, text)) = selected_text(data) else {
        return;
    };
    let unchecked = usize::from(selector) / Entry::ALL.len() % 2 == 1;
    let options = if unchecked {
        CheckOptions::none()
    } else {
        CheckOptions::default()
    };
    let entry = from_selector(selector);
    let result = entry.check(text, &options);
    if unchecked {
        // Bytes, not values: NaN is not equal to itself.
        let parsed = parse(entry, text).ok().map(|p| encode(&p));
        assert!(
            result.as_ref().ok().map(encode) == parsed,
            "unchecked is not the parser"
        );
    }
    let Err(diagnostics) = result else {
        return;
    };
    assert!(!diagnostics.is_empty(), "an error without diagnostics");
    for diagnostic in &diagnostics {
        let spans =
            std::iter::once(diagnostic.span()).chain(diagnostic.labels().iter().map(|l| l.span));
        for span in spans {
            assert!(
                span.start <= span.end && span.end as usize <= text.len(),
                "span {span:?} outside the input: {diagnostic:?}"
            );
        }
    }
    assert!(!diagnostics.to_string().is_empty());
}

/// Target `roundtrip`: whatever parses prints (losslessly) to text that parses back to the same
/// bytes. The reference style must print without panicking.
pub fn roundtrip_target(data: &[u8]) {
    let Some((selector, text)) = selected_text(data) else {
        return;
    };
    let entry = from_selector(selector);
    if let Ok(parsed) = parse(entry, text) {
        assert_round_trip(entry, text, &parsed);
    }
}

/// Target `format`: any text that parses formats, keeping its message and every comment in
/// order, and formatting the result changes nothing.
pub fn format_target(data: &[u8]) {
    let Some((selector, text)) = selected_text(data) else {
        return;
    };
    let entry = from_selector(selector);
    let Ok((message, formatted)) = onnx_print::format_message(text, entry) else {
        return;
    };
    // Bytes, not `==`: a NaN is not equal to itself.
    let reparsed = parse(entry, &formatted).expect("formatted text parses");
    assert!(
        encode(&reparsed) == encode(&message),
        "the message changed; formatted:\n{formatted}"
    );
    let comments = |t: &str| -> Vec<String> {
        let found = onnx_syntax::lex::tokens_with_comments(t).expect("text that parsed lexes");
        found
            .comments
            .iter()
            .map(|c| t[c.span.range()].trim_end().to_owned())
            .collect()
    };
    assert_eq!(
        comments(&formatted),
        comments(text),
        "comments lost or reordered"
    );
    let again = onnx_print::format_text_as(&formatted, entry).expect("formatted text parses");
    assert_eq!(again, formatted, "a second pass changes the text");
}

/// Target `print`: any protobuf message prints in both styles without panicking. What the
/// lossless text parses to (when it parses) round-trips: a message the syntax cannot express
/// (an op type with a dot, say) may print to text that means something else, but what the
/// parser makes of that text must print back to itself.
pub fn print_target(data: &[u8]) {
    let Some((&selector, bytes)) = data.split_first() else {
        return;
    };
    // Bytes hold one message: a list's entry point decodes its element.
    let entry = match from_selector(selector) {
        Entry::Functions => Entry::Function,
        Entry::Nodes | Entry::NodeList => Entry::Node,
        entry => entry,
    };
    let Ok(message) = entry.decode(bytes) else {
        return;
    };
    let _ = print(&message, Style::Reference);
    let printed = print(&message, Style::Lossless);
    if let Ok(parsed) = parse(entry, &printed) {
        assert_round_trip(entry, &printed, &parsed);
    }
}

/// Target `infer`: shape inference on any model, protobuf bytes or (selector odd) text, gives
/// types and errors without panicking, and never a negative dim; `infer_shapes` agrees with it.
pub fn infer_target(data: &[u8]) {
    let Some((&selector, bytes)) = data.split_first() else {
        return;
    };
    let model = if selector % 2 == 0 {
        ModelProto::decode(bytes).ok()
    } else {
        std::str::from_utf8(bytes)
            .ok()
            .and_then(|text| onnx_text::parse_model(text).ok())
    };
    let Some(model) = model else {
        return;
    };
    let inferred = onnx_text::Inference::of_model(&model);
    for (name, ty) in inferred.iter() {
        if let Some(dims) = ty.dims() {
            assert!(
                dims.iter().all(|d| d.known().is_none_or(|n| n >= 0)),
                "`{name}` has a negative dim: {ty}"
            );
        }
    }
    let clean = inferred.errors.is_empty() && inferred.mismatches.is_empty();
    assert_eq!(onnx_text::infer_shapes(model).is_ok(), clean);
}

/// `parsed`, which the parser made of `text`, prints (losslessly) to text that parses back to
/// the same bytes.
fn assert_round_trip(entry: Entry, text: &str, parsed: &Proto) {
    let _ = print(parsed, Style::Reference);
    let printed = print(parsed, Style::Lossless);
    let again = match parse(entry, &printed) {
        Ok(again) => again,
        Err(err) => panic!(
            "the printed text does not parse: {err}\n--- input\n{text}\n--- printed\n{printed}"
        ),
    };
    assert!(
        encode(parsed) == encode(&again),
        "the printed text parses to other bytes\n--- input\n{text}\n--- printed\n{printed}\n--- first\n{parsed:?}\n--- second\n{again:?}"
    );
}

/// Target `check_model`: any bytes, as an untrusted `.onnx` file, are checked as a binary
/// model (`check_binary_model`): a model, or problems that render, each with a place; never a
/// panic, and nothing decoded past the limits (a tight memory limit is tried as well).
pub fn check_model_target(data: &[u8]) {
    use onnx_text::{DecodeLimits, ModelCheck};
    for check in [
        ModelCheck::default(),
        ModelCheck::default().limits(DecodeLimits::default().max_memory(1 << 16).max_depth(4)),
    ] {
        match check.check_bytes(data) {
            Ok(model) => assert!(model.graph.is_some(), "a valid model has a graph"),
            Err(problems) => {
                assert!(!problems.is_empty());
                let rendered = problems.with_origin("fuzz.onnx").to_string();
                assert!(rendered.starts_with("error"), "{rendered}");
            }
        }
    }
}

/// Every target on `data`, with each selector in turn in place of its first byte: what the
/// regression test runs on each stored input.
pub fn every_target(data: &[u8]) {
    check_model_target(data);
    eval_target(data);
    let mut data = data.to_vec();
    if data.is_empty() {
        data.push(0);
    }
    for selector in 0..2 * Entry::ALL.len() as u8 {
        data[0] = selector;
        parse_target(&data);
        check_target(&data);
        roundtrip_target(&data);
        format_target(&data);
        print_target(&data);
        infer_target(&data);
        inline_target(&data);
    }
}

/// The most nodes an inlining under the fuzzer may make: enough for any real seed, small
/// enough that calls which multiply stop quickly.
const INLINE_MAX_NODES: usize = 20_000;

/// Target `inline`: a model text that parses is inlined; the selector's bits pick how (see
/// [`inline_model`]).
pub fn inline_target(data: &[u8]) {
    let Some((selector, text)) = selected_text(data) else {
        return;
    };
    if let Ok(model) = onnx_text::parse_model(text) {
        let _ = inline_model(model, selector);
    }
}

/// Inlines `model` and asserts what must hold, never panicking, whatever the model (recursion,
/// self-calls, arity overflow, missing bodies, cyclic libraries). Selector bits: 1, the local
/// functions are moved into a library given to the inliner; 2, that library is attached first
/// (so they come back as local functions); 4, every standard operator with a body is
/// expanded.
///
/// - On error, the model is unchanged and the error renders.
/// - On success, no function is left (every one is selected, so every call was inlined and
///   nothing calls them), no node calls a function of the library or an expanded operator,
///   and the model prints.
///
/// Returns the number of calls inlined, or `None` for an error.
pub fn inline_model(mut model: ModelProto, selector: u8) -> Option<usize> {
    use onnx_text::{FunctionKey, FunctionLibrary, Inliner, STANDARD_FUNCTION_OPERATORS};

    let mut library = FunctionLibrary::new();
    if selector & 1 != 0 {
        match FunctionLibrary::from_functions(std::mem::take(&mut model.functions)) {
            Ok(functions) => library = functions,
            Err(e) => {
                assert!(!e.to_string().is_empty());
                return None;
            }
        }
        if selector & 2 != 0 {
            let before = model.clone();
            if let Err(e) = onnx_text::attach(&mut model, &library) {
                assert!(!e.to_string().is_empty());
                assert!(model == before, "a failed attach changed the model");
                return None;
            }
        }
    }
    let local = FunctionLibrary::from_model(&model).ok();
    let mut inliner = Inliner::new().library(&library).max_nodes(INLINE_MAX_NODES);
    if selector & 4 != 0 {
        for operator in STANDARD_FUNCTION_OPERATORS {
            inliner = inliner.expand(operator);
        }
    }
    let before = model.clone();
    match inliner.model(&mut model) {
        Err(e) => {
            assert!(!e.to_string().is_empty());
            assert!(model == before, "a failed inlining changed the model");
            None
        }
        Ok(report) => {
            let _ = report.to_string();
            assert!(
                local.is_some(),
                "inlined a model with two functions of one key"
            );
            assert!(
                model.functions.is_empty(),
                "functions left after inlining all"
            );
            let mut nodes = Vec::new();
            if let Some(graph) = &model.graph {
                collect_nodes(&graph.node, &mut nodes);
            }
            for node in nodes {
                let key = FunctionKey::of_node(node);
                assert!(
                    library.get(&key).is_none()
                        && local.as_ref().is_none_or(|l| l.get(&key).is_none()),
                    "a call of `{key}` is left"
                );
                let expanded = selector & 4 != 0
                    && key.domain().is_empty()
                    && key.overload().is_empty()
                    && STANDARD_FUNCTION_OPERATORS.contains(&key.name());
                assert!(!expanded, "`{key}` is left unexpanded");
            }
            let _ = onnx_text::to_text(&model);
            Some(report.total())
        }
    }
}

/// Every node of `nodes` and of their subgraphs, at any depth.
fn collect_nodes<'a>(nodes: &'a [NodeProto], out: &mut Vec<&'a NodeProto>) {
    for node in nodes {
        out.push(node);
        for attribute in &node.attribute {
            for graph in attribute.g.iter().map(|g| &**g).chain(&attribute.graphs) {
                collect_nodes(&graph.node, out);
            }
        }
    }
}

/// The limits the evaluator runs under in the fuzzer: small, so that a model that asks for much
/// is stopped quickly, by the limits and not by a time-out.
const EVAL_LIMITS: onnx_eval::Limits = onnx_eval::Limits {
    max_elements: 1 << 16,
    max_loop_iterations: 1 << 10,
};

/// Target `eval`: a model text that parses is resolved and run on inputs of its declared types
/// (zeros; a symbolic or unknown dim is 1), under small limits. Errors render; nothing panics.
pub fn eval_target(data: &[u8]) {
    let Some((_, text)) = selected_text(data) else {
        return;
    };
    let Ok(model) = onnx_text::parse_model(text) else {
        return;
    };
    let evaluator = match onnx_eval::Evaluator::with_limits(&model, EVAL_LIMITS) {
        Ok(evaluator) => evaluator,
        Err(error) => {
            let _ = error.to_string();
            return;
        }
    };
    let inputs: Option<Vec<onnx_eval::Value>> = model
        .graph
        .iter()
        .flat_map(|g| &g.input)
        .map(zeros_of)
        .collect();
    let Some(inputs) = inputs else {
        return;
    };
    match evaluator.run(&inputs) {
        Ok(outputs) => assert_eq!(outputs.len(), model.graph.map_or(0, |g| g.output.len())),
        Err(error) => {
            let _ = error.to_string();
        }
    }
}

/// A tensor of zeros of a graph input's declared type, if it is a tensor type of at most
/// `EVAL_LIMITS.max_elements` elements.
fn zeros_of(input: &onnx_text::ValueInfoProto) -> Option<onnx_eval::Value> {
    use onnx_text::tensor_shape_proto::dimension::Value as Dim;
    use onnx_text::type_proto::Value as Type;
    use onnx_value::elements::{Elements, encode};
    let Some(Type::TensorType(tensor)) = input.r#type.as_ref()?.value.as_ref() else {
        return None;
    };
    let data_type = onnx_text::tensor_proto::DataType::try_from(tensor.elem_type?).ok()?;
    let dims: Vec<i64> = tensor.shape.as_ref().map_or(Vec::new(), |shape| {
        shape
            .dim
            .iter()
            .map(|d| match d.value {
                Some(Dim::DimValue(v)) => v,
                _ => 1,
            })
            .collect()
    });
    let count = dims
        .iter()
        .try_fold(1u64, |n, &d| n.checked_mul(u64::try_from(d).ok()?))?;
    if count > EVAL_LIMITS.max_elements {
        return None;
    }
    let count = count as usize;
    let name = data_type.as_str_name();
    let elements = if name == "STRING" {
        Elements::String(vec![Vec::new(); count])
    } else if name == "BOOL" {
        Elements::Bool(vec![false; count])
    } else if name.starts_with("COMPLEX") {
        Elements::Complex(vec![(0.0, 0.0); count])
    } else if name.starts_with("INT") || name.starts_with("UINT") {
        Elements::Int(vec![0; count])
    } else {
        Elements::Float(vec![0.0; count])
    };
    encode(data_type, &dims, &elements, false)
        .ok()
        .map(onnx_eval::Value::Tensor)
}
