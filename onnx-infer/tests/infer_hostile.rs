//! Shape inference on hostile shapes: dims near `i64::MAX`, negative dims, element counts
//! that overflow, huge reshapes and deep nesting give errors or unknown dims, never a panic,
//! an overflow or a huge allocation.

use onnx_infer::{Dim, Inference};
use onnx_runtime_types::tensor_shape_proto::dimension::Value;

fn infer(text: &str) -> Inference {
    let model = onnx_syntax::parse_model(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    Inference::of_model(&model)
}

/// A model with these inputs and nodes; a trailing `<...>` of `body` holds initializers.
fn model(inputs: &str, body: &str) -> String {
    let (nodes, initializers) = match body.rfind(" <") {
        Some(at) if body.ends_with('>') && body[at..].contains(" = {") => body.split_at(at),
        _ => (body, ""),
    };
    format!(
        "<ir_version: 10, opset_import: [\"\" : 21]> g ({inputs}) => (y){initializers} {{ {nodes} }}"
    )
}

const MAX: i64 = i64::MAX;

#[test]
fn dims_near_the_limits_give_unknown_dims_or_errors() {
    let cases = [
        (
            format!("float[{MAX}, {MAX}] x"),
            "y = Flatten <axis = 1> (x)",
        ),
        (format!("float[{MAX}, 2] x"), "y = Flatten <axis = 2> (x)"),
        (format!("float[{MAX}, 2] x"), "y = Size (x)"),
        (
            format!("float[1, 1, {MAX}] x, float[1, 1, 3] w"),
            "y = Conv <pads = [9223372036854775807, 9223372036854775807]> (x, w)",
        ),
        (
            format!("float[1, 1, {MAX}] x"),
            "y = MaxPool <kernel_shape = [9223372036854775807], dilations = [9223372036854775807], ceil_mode = 1> (x)",
        ),
        (
            format!("float[1, 1, {MAX}] x, float[1, 1, {MAX}] w"),
            "y = ConvTranspose <strides = [9223372036854775807]> (x, w)",
        ),
        (
            format!("float[1, 1, {MAX}] x, float[1, 1, {MAX}] w"),
            "y = ConvTranspose <strides = [9223372036854775807], dilations = [9223372036854775807], output_padding = [9223372036854775807]> (x, w)",
        ),
        // A window larger than the input: the negative size is compared, not kept.
        (
            "float[1, 1, 2] x".to_owned(),
            "y = MaxPool <kernel_shape = [5]> (x)",
        ),
        (
            format!("float[1, 1, {MAX}] x"),
            "y = AveragePool <kernel_shape = [9223372036854775807], strides = [9223372036854775807], auto_pad = \"SAME_LOWER\", ceil_mode = 1> (x)",
        ),
        (
            format!("float[{MAX}] x"),
            "y = Pad (x, p) <int64[2] p = {9223372036854775807, 9223372036854775807}>",
        ),
        (
            format!("float[{MAX}] x"),
            "y = Tile (x, r) <int64[1] r = {9223372036854775807}>",
        ),
        (format!("float[{MAX}] x"), "y = Split <num_outputs = 3> (x)"),
        (
            format!("float[{MAX}] x"),
            "y = Slice (x, s, e, a, t) <int64[1] s = {-9223372036854775807}, int64[1] e = {9223372036854775807}, int64[1] a = {0}, int64[1] t = {-9223372036854775807}>",
        ),
        (
            format!("float[1, {MAX}, 2, 2] x"),
            "y = SpaceToDepth <blocksize = 9223372036854775807> (x)",
        ),
        (
            "float[N] x".into(),
            "y = Range (a, b, c) <int64 a = {-9223372036854775807}, int64 b = {9223372036854775807}, int64 c = {1}>",
        ),
        (
            "float[N] x".into(),
            "s = Shape (x) t = Mul (s, k) y = Add (t, k) <int64[1] k = {9223372036854775807}>",
        ),
        (
            "float[-5, -1] x".into(),
            "y = Reshape (x, s) <int64[2] s = {-1, 5}>",
        ),
        (
            "float[2] x".into(),
            "y = Reshape (x, s) <int64[3] s = {1000000, 1000000, 1000}>",
        ),
        (
            "float[2] x".into(),
            "y = ConstantOfShape (s) <int64[3] s = {1000000, 1000000, 1000}>",
        ),
        (
            "float[2] x".into(),
            "y = ConstantOfShape (s) <int64[1] s = {-3}>",
        ),
        ("int64[1000000000000] s".into(), "y = ConstantOfShape (s)"),
        (
            "float[2] x, int64[1000000000000] s".into(),
            "y = Reshape (x, s)",
        ),
        (
            "float[2] x, int64[1000000000000] s".into(),
            "y = Expand (x, s)",
        ),
        (
            "float[2, 3] x".into(),
            "y = Transpose <perm = [0, 9223372036854775807]> (x)",
        ),
        (
            "float[2, 3] x".into(),
            "y = Unsqueeze (x, a) <int64[2] a = {-9223372036854775807, 9223372036854775807}>",
        ),
        (
            "float[2, 3] x".into(),
            "y = Gather <axis = -9223372036854775807> (x, i) <int64[1] i = {0}>",
        ),
    ];
    for (inputs, body) in &cases {
        let text = model(inputs, body);
        let inferred = infer(&text);
        if let Some(dims) = inferred.ty("y").and_then(|t| t.dims()) {
            assert!(
                dims.iter().all(|d| d.known().is_none_or(|n| n >= 0)),
                "{text}: negative dim in {dims:?}"
            );
        }
    }
}

#[test]
fn huge_reshapes_and_constants_are_not_materialised() {
    let text = model(
        "float[2] x",
        "y = ConstantOfShape (s) <int64[3] s = {1000000, 1000000, 1000}>",
    );
    let inferred = infer(&text);
    assert_eq!(
        inferred.show("y").as_deref(),
        Some("float[1000000, 1000000, 1000]")
    );
    let text = model(
        "float[2] x",
        "y = Reshape (x, s) <int64[3] s = {1000000, 1000000, 1000}>",
    );
    let inferred = infer(&text);
    assert_eq!(inferred.errors.len(), 1, "{:?}", inferred.errors);
    assert!(
        inferred.errors[0].message.contains("cannot reshape [2]"),
        "{:?}",
        inferred.errors
    );
}

#[test]
fn deep_loop_nesting_stops_without_overflowing_the_stack() {
    // The parser stops at 32 levels, so the model is built as a message, 500 levels deep.
    let text =
        "<ir_version: 10, opset_import: [\"\" : 21]> g (float[2] x, int64 m, bool c) => (y) {
        y = Loop (m, c, x) <body = g (int64 i, bool ci, float[2] x) => (bool co, float[2] y) {
            co = Identity (ci)
            y = Identity (x)
        }>
    }";
    let mut model = onnx_syntax::parse_model(text).unwrap();
    let outer = model.graph.clone().unwrap();
    let mut body = outer.node[0].attribute[0].g.clone().unwrap();
    for _ in 0..500 {
        let mut wrapper = outer.node[0].attribute[0].g.clone().unwrap();
        let mut node = outer.node[0].clone();
        node.attribute[0].g = Some(body);
        wrapper.node[1] = node;
        body = wrapper;
    }
    model.graph.as_mut().unwrap().node[0].attribute[0].g = Some(body);
    let inferred = Inference::of_model(&model);
    assert!(inferred.errors.is_empty());
    assert!(inferred.ty("y").is_some());
}

/// Every backend model with each input dim replaced by a hostile size: inference finishes,
/// and no inferred dim is negative.
#[test]
fn corpus_models_with_hostile_input_dims_never_panic() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/backend");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".model.onnxtxt"))
        .collect();
    paths.sort();
    let hostile = [0, -1, -7, MAX, i64::MIN, 1 << 40, 1];
    let mut runs = 0;
    for (k, path) in paths.iter().enumerate() {
        let text = std::fs::read_to_string(path).unwrap();
        let Ok(mut model) = onnx_syntax::parse_model(&text) else {
            continue;
        };
        let graph = model.graph.as_mut().unwrap();
        for (i, input) in graph.input.iter_mut().enumerate() {
            let shape = input.r#type.as_mut().and_then(|t| match t.value.as_mut()? {
                onnx_runtime_types::type_proto::Value::TensorType(t) => t.shape.as_mut(),
                _ => None,
            });
            for (j, dim) in shape.into_iter().flat_map(|s| s.dim.iter_mut()).enumerate() {
                dim.value = Some(Value::DimValue(hostile[(k + i + j) % hostile.len()]));
            }
        }
        let inferred = Inference::of_model(&model);
        runs += 1;
        for (name, ty) in inferred.iter() {
            if let Some(dims) = ty.dims() {
                assert!(
                    dims.iter().all(|d| !matches!(d, Dim::Known(n) if *n < 0)),
                    "{}: {name} {dims:?}",
                    path.display()
                );
            }
        }
    }
    assert!(runs > 1500, "{runs}");
}
