//! The rules of binary models (`onnx-validate`): for each, a model that breaks it
//! and a valid neighbour that passes. Each verdict was checked against
//! `onnx.checker.check_model(full_check=True)` of onnx 1.23.2 on the same model built with
//! `onnx.helper` (`python3 scripts/validate_rule_probes.py` prints onnx's verdict on each),
//! except where a comment says we are stricter (docs/divergences.md).

use std::path::{Path, PathBuf};

use onnx_check::{Check, CheckOptions, DiagnosticKind};
use onnx_runtime_types::prost::Message;
use onnx_runtime_types::{
    AttributeProto, FunctionProto, ModelProto, NodeProto, OperatorSetIdProto, SparseTensorProto,
    StringStringEntryProto, TensorProto, attribute_proto::AttributeType,
};
use onnx_validate::{DecodeLimits, ModelCheck};

const BASE: &str = r#"<ir_version: 10, opset_import: ["" : 21]>
g (float[2] x) => (float[2] y) { y = Relu(x) }"#;

fn base() -> ModelProto {
    onnx_syntax::parse_model(BASE).unwrap()
}

/// Every check that fired on `model` (rules and text checks), in order, with no model folder.
fn fired(model: &ModelProto) -> Vec<Check> {
    fired_in(model, None)
}

fn fired_in(model: &ModelProto, dir: Option<&Path>) -> Vec<Check> {
    let mut check = ModelCheck::default();
    if let Some(dir) = dir {
        check = check.model_dir(dir);
    }
    // Through bytes, as an untrusted model comes.
    match check.check_bytes(&model.encode_to_vec()) {
        Ok(_) => Vec::new(),
        Err(found) => {
            // The rules' problems, placed in the messages, come before the syntax checks',
            // which are positioned in the printed text and are never syntax errors.
            let placed = found.iter().take_while(|d| d.place().is_some());
            let mut checks: Vec<Check> = placed.filter_map(|d| d.check()).collect();
            let text = found.iter().skip_while(|d| d.place().is_some());
            checks.extend(text.map(|d| d.check().expect("text checks, never a syntax error")));
            checks
        }
    }
}

/// The first rule problem's message.
fn message(model: &ModelProto) -> String {
    let err = ModelCheck::default().check(model).unwrap_err();
    err[0].message().to_owned()
}

fn graph(model: &mut ModelProto) -> &mut onnx_runtime_types::GraphProto {
    model.graph.as_mut().unwrap()
}

fn tensor(name: &str, data_type: i32, dims: &[i64]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        data_type: Some(data_type),
        dims: dims.to_vec(),
        ..Default::default()
    }
}

/// The base model with `t` as an initializer (IR 10: it need not be an input).
fn with_initializer(t: TensorProto) -> ModelProto {
    let mut model = base();
    graph(&mut model).initializer.push(t);
    model
}

#[test]
fn the_base_model_is_valid() {
    assert_eq!(fired(&base()), []);
}

#[test]
fn ir_version_present_and_known() {
    let mut model = base();
    model.ir_version = None;
    assert_eq!(fired(&model), [Check::IrVersion]);
    assert_eq!(message(&model), "the model has no ir_version");
    model.ir_version = Some(15);
    assert_eq!(fired(&model), [Check::IrVersion]);
    model.ir_version = Some(14);
    assert_eq!(fired(&model), []);
}

#[test]
fn opset_import_required_from_ir_3_and_one_version_per_domain() {
    let mut model = base();
    model.opset_import.clear();
    assert!(fired(&model).starts_with(&[Check::OpsetImport]));
    let import = |domain: &str, version| OperatorSetIdProto {
        domain: Some(domain.into()),
        version: Some(version),
    };
    // Stricter than onnx, which keeps the last: the IR says a domain is unique among the sets.
    let mut model = base();
    model.opset_import.push(import("", 20));
    assert_eq!(fired(&model), [Check::OpsetImport]);
    let mut model = base();
    model.opset_import.push(import("ai.onnx", 21));
    assert_eq!(fired(&model), [Check::OpsetImport]);
    let mut model = base();
    model.opset_import[0].version = Some(1 << 40);
    assert!(fired(&model).starts_with(&[Check::OpsetImport]));
    // Before IR 3 there is no opset_import.
    let mut model = base();
    model.ir_version = Some(2);
    assert!(fired(&model).starts_with(&[Check::OpsetImport]));
    // A second, distinct domain is fine.
    let mut model = base();
    model.opset_import.push(import("com.example", 1));
    assert_eq!(fired(&model), []);
}

#[test]
fn initializers_are_inputs_before_ir_4() {
    let w = || {
        let mut w = tensor("w", 1, &[2]);
        w.float_data = vec![1.0, 2.0];
        w
    };
    let mut model = with_initializer(w());
    model.ir_version = Some(3);
    assert_eq!(fired(&model), [Check::InitializerNotInput]);
    model.ir_version = Some(4);
    assert_eq!(fired(&model), []);
    model.ir_version = Some(3);
    let mut input = graph(&mut model).input[0].clone();
    input.name = Some("w".into());
    graph(&mut model).input.push(input);
    assert_eq!(fired(&model), []);
}

#[test]
fn main_graph_inputs_and_outputs_have_a_type_with_a_shape() {
    let mut model = base();
    if let Some(onnx_runtime_types::type_proto::Value::TensorType(t)) =
        &mut graph(&mut model).output[0].r#type.as_mut().unwrap().value
    {
        t.shape = None;
    }
    assert_eq!(fired(&model), [Check::MissingType]);
    assert!(
        message(&model).contains("has no shape"),
        "{}",
        message(&model)
    );
    let mut model = base();
    graph(&mut model).input[0].r#type = None;
    assert_eq!(fired(&model), [Check::MissingType]);
    // A scalar has a shape (of rank 0); subgraph outputs may leave the type out.
    let scalar = onnx_syntax::parse_model(
        r#"<ir_version: 10, opset_import: ["" : 21]>
        g (float x, bool c) => (float y) {
            y = If (c) <then_branch = t () => (z) { z = Identity(x) },
                        else_branch = e () => (z) { z = Neg(x) }>
        }"#,
    )
    .unwrap();
    assert_eq!(fired(&scalar), []);
}

#[test]
fn tensors_have_exactly_one_value_field() {
    let mut t = tensor("w", 1, &[1]);
    t.float_data = vec![1.0];
    assert_eq!(fired(&with_initializer(t.clone())), []);
    t.int32_data = vec![1];
    assert_eq!(fired(&with_initializer(t.clone())), [Check::TensorData]);
    let t = tensor("w", 1, &[1]);
    assert_eq!(fired(&with_initializer(t)), [Check::TensorData]); // no data at all
    let t = tensor("w", 1, &[0]);
    assert_eq!(fired(&with_initializer(t)), []); // no elements, no data
}

#[test]
fn tensor_data_in_the_field_of_its_type() {
    let mut t = tensor("w", 3, &[1]); // int8 in int32_data
    t.int32_data = vec![1];
    assert_eq!(fired(&with_initializer(t)), []);
    let mut t = tensor("w", 1, &[1]); // float in int32_data
    t.int32_data = vec![1];
    assert_eq!(fired(&with_initializer(t)), [Check::TensorData]);
}

#[test]
fn strings_never_in_raw_data() {
    // The issue's case: a parse error of our own printed text before.
    let mut t = tensor("w", 8, &[1]);
    t.raw_data = Some(b"abc".to_vec());
    let model = with_initializer(t);
    assert_eq!(fired(&model), [Check::TensorData]);
    assert_eq!(
        message(&model),
        "string tensor `w` has its data in raw_data: strings go in string_data"
    );
    let mut t = tensor("w", 8, &[1]);
    t.string_data = vec![b"abc".to_vec()];
    assert_eq!(fired(&with_initializer(t)), []);
}

#[test]
fn the_checks_of_the_syntax_read_the_model_even_where_its_text_cannot_be_read_back() {
    // Printed, this model has `...` for its string data, and a node that reads `q` with a
    // quote and a NUL in its name: no text the syntax reads. The checks still see the node.
    let mut t = tensor("w", 8, &[1]);
    t.raw_data = Some(b"abc".to_vec());
    let mut model = with_initializer(t);
    graph(&mut model).node[0].input[0] = "q\"\u{0}".to_owned();
    assert_eq!(fired(&model), [Check::TensorData, Check::UndefinedValue]);
    let err = ModelCheck::default().check(&model).unwrap_err();
    // The rule's problem (tensor_data) first, placed; then the text's.
    assert!(err[0].place().is_some() && err[1].place().is_none());
    let text = &err[1];
    assert_eq!(text.message(), "value `q\"\u{0}` is used but never defined");
    // Positioned on the name where `onnx-text print` shows it.
    let printed = onnx_print::to_text(&model);
    let at = printed.find("\"q\\\"\u{0}\"").unwrap();
    let position = onnx_syntax::LineColumn::of(&printed, at);
    let found = err.line_column(1).unwrap();
    assert_eq!((found.line, found.column), (position.line, position.column));
    // An operator name that is no identifier is still looked up, and reported as written.
    let mut model = base();
    graph(&mut model).node[0].op_type = Some("Re lu".to_owned());
    let err = ModelCheck::default().check(&model).unwrap_err();
    assert_eq!(err[0].check(), Some(Check::UnknownOperator));
    assert!(err[0].place().is_none(), "positioned in the printed text");
    assert_eq!(
        err[0].message(),
        "`Re lu` is not an operator of ai.onnx; did you mean `Relu`?"
    );
}

#[test]
fn data_types_that_exist() {
    let mut t = tensor("w", 0, &[1]);
    t.float_data = vec![1.0];
    assert_eq!(fired(&with_initializer(t)), [Check::DataType]);
    // onnx accepts type 99 in raw_data (it rejects it in a typed field): stricter.
    let mut t = tensor("w", 99, &[1]);
    t.raw_data = Some(vec![0]);
    assert_eq!(fired(&with_initializer(t)), [Check::DataType]);
    let mut t = tensor("w", 28, &[1]); // float6e3m2, the newest
    t.raw_data = Some(vec![0]);
    assert_eq!(fired(&with_initializer(t)), []);
    let mut t = tensor("w", 1, &[1]);
    t.float_data = vec![1.0];
    t.data_type = None;
    assert_eq!(fired(&with_initializer(t)), [Check::DataType]);
}

#[test]
fn raw_data_length_matches_dims_and_type() {
    let raw = |data_type, dims: &[i64], len| {
        let mut t = tensor("w", data_type, dims);
        t.raw_data = Some(vec![0; len]);
        fired(&with_initializer(t))
    };
    assert_eq!(raw(1, &[2], 8), []);
    assert_eq!(raw(1, &[2], 4), [Check::ElementCountMismatch]);
    assert_eq!(raw(1, &[2], 12), [Check::ElementCountMismatch]); // onnx: only too short; stricter
    // 4-bit types: two per byte; 2-bit: four per byte; 6-bit: a bit stream.
    assert_eq!(raw(22, &[3], 2), []);
    assert_eq!(raw(22, &[3], 1), [Check::ElementCountMismatch]);
    assert_eq!(raw(25, &[5], 2), []);
    assert_eq!(raw(25, &[5], 1), [Check::ElementCountMismatch]);
    assert_eq!(raw(27, &[5], 4), []);
    assert_eq!(raw(15, &[1], 16), []); // complex128
}

#[test]
fn typed_data_length_matches_dims_and_type() {
    let mut t = tensor("w", 1, &[2]);
    t.float_data = vec![1.0];
    assert_eq!(fired(&with_initializer(t)), [Check::ElementCountMismatch]);
    let mut t = tensor("w", 14, &[1]); // complex64: two floats per element
    t.float_data = vec![1.0];
    assert_eq!(
        fired(&with_initializer(t.clone())),
        [Check::ElementCountMismatch]
    );
    t.float_data = vec![1.0, 2.0];
    assert_eq!(fired(&with_initializer(t)), []);
    let mut t = tensor("w", 22, &[3]); // int4: two per int32_data value
    t.int32_data = vec![1, 2];
    assert_eq!(fired(&with_initializer(t)), []);
    let mut t = tensor("w", 1, &[0]);
    t.float_data = vec![1.0];
    assert_eq!(fired(&with_initializer(t)), [Check::ElementCountMismatch]);
    let mut t = tensor("w", 1, &[-1]);
    t.float_data = vec![1.0];
    assert_eq!(fired(&with_initializer(t)), [Check::ElementCountMismatch]);
    // A product of dims far beyond memory is compared, never allocated.
    let mut t = tensor("w", 1, &[1 << 40, 1 << 20]);
    t.float_data = vec![1.0];
    assert_eq!(fired(&with_initializer(t)), [Check::ElementCountMismatch]);
}

fn sparse(values: &[f32], indices: Option<(&[i64], &[i64])>, dims: &[i64]) -> ModelProto {
    let mut v = tensor("s", 1, &[values.len() as i64]);
    v.float_data = values.to_vec();
    let indices = indices.map(|(data, shape)| {
        let mut i = tensor("si", 7, shape);
        i.int64_data = data.to_vec();
        i
    });
    let mut model = base();
    graph(&mut model)
        .sparse_initializer
        .push(SparseTensorProto {
            values: Some(v),
            indices,
            dims: dims.to_vec(),
        });
    model
}

#[test]
fn sparse_indices_in_range_and_sorted() {
    let ok: &[Check] = &[];
    let bad: &[Check] = &[Check::SparseTensor];
    for (values, indices, dims, expected) in [
        (&[1.0, 2.0][..], Some((&[0, 3][..], &[2][..])), &[4][..], ok),
        (&[1.0, 2.0], Some((&[0, 4], &[2])), &[4], bad),
        (&[1.0, 2.0], Some((&[3, 0], &[2])), &[4], bad),
        (&[1.0, 2.0], Some((&[3, 3], &[2])), &[4], bad),
        (&[1.0, 2.0], Some((&[0, 1, 1, 0], &[2, 2])), &[2, 2], ok),
        (&[1.0, 2.0], Some((&[0, 2, 1, 0], &[2, 2])), &[2, 2], bad),
        (&[1.0, 2.0], Some((&[1, 0, 0, 1], &[2, 2])), &[2, 2], bad),
        (&[1.0, 2.0], Some((&[0], &[1])), &[4], bad),
        (&[1.0, 2.0], None, &[4], bad),
        (&[1.0, 2.0], Some((&[0, 1], &[2])), &[], bad),
        (&[1.0, 2.0], Some((&[0, 1], &[2])), &[4, 0], bad),
    ] {
        let model = sparse(values, indices, dims);
        assert_eq!(fired(&model), expected, "{indices:?} in {dims:?}");
    }
    // Indices in raw_data are read as little-endian int64.
    let mut model = sparse(&[1.0, 2.0], Some((&[0, 1], &[2])), &[4]);
    let s = &mut graph(&mut model).sparse_initializer[0];
    let indices = s.indices.as_mut().unwrap();
    indices.int64_data.clear();
    indices.raw_data = Some([0i64, 5].iter().flat_map(|i| i.to_le_bytes()).collect());
    assert_eq!(fired(&model), [Check::SparseTensor]);
    // With the element counts allowed, indices that claim more than they hold are still
    // reported, and never read past their data (nor looped over 2^40 times).
    let mut model = sparse(&[1.0, 2.0], Some((&[0, 1], &[2])), &[4]);
    let s = &mut graph(&mut model).sparse_initializer[0];
    s.values.as_mut().unwrap().dims = vec![1 << 40];
    s.indices.as_mut().unwrap().dims = vec![1 << 40];
    let options = CheckOptions::default().allow(Check::ElementCountMismatch);
    let err = ModelCheck::new(options).check(&model).unwrap_err();
    let checks: Vec<_> = err.iter().map(|p| p.check()).collect();
    assert_eq!(checks, [Some(Check::SparseTensor)]);
    // Indices must be int64; values of rank 1.
    let mut model = sparse(&[1.0, 2.0], Some((&[0, 1], &[2])), &[4]);
    let s = &mut graph(&mut model).sparse_initializer[0];
    let indices = s.indices.as_mut().unwrap();
    indices.data_type = Some(6);
    indices.int64_data.clear();
    indices.int32_data = vec![0, 1];
    assert_eq!(fired(&model), [Check::SparseTensor]);
    let mut model = sparse(&[1.0, 2.0], Some((&[0, 1], &[2])), &[4]);
    graph(&mut model).sparse_initializer[0]
        .values
        .as_mut()
        .unwrap()
        .dims = vec![1, 2];
    assert_eq!(fired(&model), [Check::SparseTensor]);
}

fn leaky(alpha: AttributeProto) -> ModelProto {
    let mut model = onnx_syntax::parse_model(
        r#"<ir_version: 10, opset_import: ["" : 21]>
        g (float[2] x) => (float[2] y) { y = LeakyRelu <alpha = 0.5> (x) }"#,
    )
    .unwrap();
    graph(&mut model).node[0].attribute = vec![alpha];
    model
}

fn alpha() -> AttributeProto {
    AttributeProto {
        name: Some("alpha".into()),
        r#type: Some(AttributeType::Float as i32),
        f: Some(0.5),
        ..Default::default()
    }
}

#[test]
fn attributes_hold_the_field_their_type_names() {
    assert_eq!(fired(&leaky(alpha())), []);
    let mut a = alpha();
    a.r#type = Some(AttributeType::Int as i32);
    assert!(fired(&leaky(a)).starts_with(&[Check::AttributeFields]));
    let mut a = alpha();
    a.i = Some(3);
    assert!(fired(&leaky(a)).starts_with(&[Check::AttributeFields]));
    let mut a = alpha();
    a.r#type = None;
    assert!(fired(&leaky(a)).starts_with(&[Check::AttributeFields]));
    // The issue's case: a FLOAT attribute that holds an int.
    let mut a = alpha();
    a.f = None;
    a.i = Some(1);
    let model = leaky(a);
    assert!(fired(&model).starts_with(&[Check::AttributeFields]));
    assert_eq!(
        message(&model),
        "the attribute's type is FLOAT but it holds `i`"
    );
    let mut a = alpha();
    a.name = Some(String::new());
    assert!(fired(&leaky(a)).starts_with(&[Check::MissingField]));
}

#[test]
fn attribute_references_only_in_function_bodies_and_without_a_value() {
    // In the main graph (onnx accepts it there): the text check `invalid_attribute_ref`.
    let mut a = alpha();
    a.f = None;
    a.ref_attr_name = Some("q".into());
    assert_eq!(fired(&leaky(a)), [Check::InvalidAttributeRef]);
    // In a function body, a reference with a value as well: onnx rejects that only in
    // subgraphs of the main graph; the IR says such an attribute holds no data (stricter).
    let text = r#"<ir_version: 10, opset_import: ["" : 21, "local" : 1]>
        g (float[2] x) => (float[2] y) { y = local.F <b = 0.5> (x) }
        <domain: "local", opset_import: ["" : 21]>
        F <b> (x) => (y) { y = LeakyRelu <alpha: float = @b> (x) }"#;
    let model = onnx_syntax::parse_model(text).unwrap();
    assert_eq!(fired(&model), []);
    let mut model = model;
    model.functions[0].node[0].attribute[0].f = Some(1.0);
    assert_eq!(fired(&model), [Check::AttributeFields]);
}

#[test]
fn nodes_have_an_op_type_and_operands() {
    let mut model = base();
    graph(&mut model).node[0].op_type = Some(String::new());
    assert!(fired(&model).starts_with(&[Check::EmptyOpType]));
    let mut model = base();
    model.opset_import.push(OperatorSetIdProto {
        domain: Some("com.example".into()),
        version: Some(1),
    });
    graph(&mut model).node.push(NodeProto {
        op_type: Some("Log".into()),
        domain: Some("com.example".into()),
        ..Default::default()
    });
    assert_eq!(fired(&model), [Check::EmptyNode]);
    graph(&mut model).node[1].input = vec!["x".into()];
    assert_eq!(fired(&model), []);
}

fn with_functions(functions: Vec<FunctionProto>, model_opset: i64) -> ModelProto {
    let text = format!(
        r#"<ir_version: 10, opset_import: ["" : {model_opset}, "local" : 1]>
        g (float[2] x) => (float[2] y) {{ y = local.F (x) }}"#
    );
    let mut model = onnx_syntax::parse_model(&text).unwrap();
    model.functions = functions;
    model
}

fn function(overload: Option<&str>, opset: i64) -> FunctionProto {
    let text = format!(
        r#"<domain: "local", opset_import: ["" : {opset}]> F (x) => (y) {{ y = Relu(x) }}"#
    );
    let mut f = onnx_syntax::parse_function(&text).unwrap();
    f.overload = overload.map(Into::into);
    f
}

#[test]
fn functions_are_unique_by_domain_name_and_overload() {
    assert_eq!(fired(&with_functions(vec![function(None, 21)], 21)), []);
    let twice = with_functions(vec![function(None, 21), function(None, 21)], 21);
    assert!(fired(&twice).contains(&Check::DuplicateFunction));
    let overloads = with_functions(vec![function(None, 21), function(Some("a"), 21)], 21);
    assert_eq!(fired(&overloads), []);
    let mut nameless = function(None, 21);
    nameless.domain = None;
    assert!(fired(&with_functions(vec![nameless], 21)).contains(&Check::MissingField));
}

#[test]
fn function_imports_compatible_with_the_model() {
    // Relu is the same operator (since 14) at 20 and 21: compatible.
    assert_eq!(fired(&with_functions(vec![function(None, 20)], 21)), []);
    // Relu-13 against Relu-14: not.
    let model = with_functions(vec![function(None, 13)], 14);
    assert_eq!(fired(&model), [Check::FunctionOpset]);
    // A function that imports nothing for its nodes' domain.
    let mut f = function(None, 21);
    f.opset_import.clear();
    assert!(fired(&with_functions(vec![f], 21)).contains(&Check::FunctionOpset));
}

#[test]
fn metadata_keys_are_unique() {
    let entry = |key: &str| StringStringEntryProto {
        key: Some(key.into()),
        value: Some("v".into()),
    };
    let mut model = base();
    model.metadata_props = vec![entry("a"), entry("b")];
    assert_eq!(fired(&model), []);
    model.metadata_props.push(entry("a"));
    assert_eq!(fired(&model), [Check::DuplicateMetadata]);
}

#[test]
fn declared_types_have_real_element_types_and_dims() {
    let mut model = base();
    if let Some(onnx_runtime_types::type_proto::Value::TensorType(t)) =
        &mut graph(&mut model).input[0].r#type.as_mut().unwrap().value
    {
        t.elem_type = Some(0);
    }
    assert!(fired(&model).contains(&Check::DataType));
    let mut model = base();
    if let Some(onnx_runtime_types::type_proto::Value::TensorType(t)) =
        &mut graph(&mut model).input[0].r#type.as_mut().unwrap().value
    {
        let dim = &mut t.shape.as_mut().unwrap().dim[0];
        dim.value = Some(onnx_runtime_types::tensor_shape_proto::dimension::Value::DimValue(-1));
    }
    assert!(fired(&model).contains(&Check::NegativeDim));
}

#[test]
fn sequences_optionals_and_maps_hold_their_element_types() {
    use onnx_runtime_types::{TypeProto, ValueInfoProto, type_proto};
    use type_proto::Value;
    let tensor = || TypeProto {
        value: Some(Value::TensorType(type_proto::Tensor {
            elem_type: Some(1),
            shape: Some(Default::default()),
        })),
        ..Default::default()
    };
    let sequence = |elem: Option<TypeProto>| TypeProto {
        value: Some(Value::SequenceType(Box::new(type_proto::Sequence {
            elem_type: elem.map(Box::new),
        }))),
        ..Default::default()
    };
    let optional = |elem: TypeProto| TypeProto {
        value: Some(Value::OptionalType(Box::new(type_proto::Optional {
            elem_type: Some(Box::new(elem)),
        }))),
        ..Default::default()
    };
    let map = |key: Option<i32>, value: Option<TypeProto>| TypeProto {
        value: Some(Value::MapType(Box::new(type_proto::Map {
            key_type: key,
            value_type: value.map(Box::new),
        }))),
        ..Default::default()
    };
    let info = |ty: TypeProto| ValueInfoProto {
        name: Some("s".into()),
        r#type: Some(ty),
        ..Default::default()
    };
    let as_input = |ty: TypeProto| {
        let mut model = base();
        graph(&mut model).input.push(info(ty));
        fired(&model)
    };
    let as_value_info = |ty: TypeProto| {
        let mut model = base();
        graph(&mut model).value_info.push(info(ty));
        fired(&model)
    };
    let missing = [
        sequence(None),
        optional(sequence(None)),
        map(None, Some(tensor())),
        map(Some(7), None),
    ];
    for ty in missing {
        // onnx rejects these parts missing from a main-graph input (`Field 'elem_type' of
        // 'type' is required but missing`), except inside an optional, and accepts them in a
        // value info: stricter there, as onnx.proto says each MUST be present.
        assert_eq!(as_input(ty.clone()), [Check::MissingType]);
        assert_eq!(as_value_info(ty), [Check::MissingType]);
    }
    assert_eq!(as_input(sequence(Some(tensor()))), []);
    assert_eq!(as_value_info(map(Some(7), Some(tensor()))), []);
    let mut model = base();
    graph(&mut model).input.push(info(sequence(None)));
    assert_eq!(
        message(&model),
        "the type of `s` has a sequence without its element type"
    );
}

#[test]
fn type_attributes_name_a_type_and_constants_hold_a_value() {
    let cast = |to: i64| {
        let mut model = onnx_syntax::parse_model(
            r#"<ir_version: 10, opset_import: ["" : 21]>
            g (float[2] x) => (double[2] y) { y = Cast <to = 11> (x) }"#,
        )
        .unwrap();
        graph(&mut model).node[0].attribute[0].i = Some(to);
        model
    };
    assert_eq!(fired(&cast(11)), []);
    assert!(fired(&cast(0)).contains(&Check::AttributeFields));
    assert!(fired(&cast(1 << 40)).contains(&Check::AttributeFields));
    let mut model = cast(11);
    graph(&mut model).node[0].attribute[0].i = None; // reads as 0
    assert!(fired(&model).contains(&Check::AttributeFields));
    let mut model = onnx_syntax::parse_model(
        r#"<ir_version: 10, opset_import: ["" : 21]>
        g () => (float[1] y) { y = Constant <value = float[1] {1.0}> () }"#,
    )
    .unwrap();
    assert_eq!(fired(&model), []);
    graph(&mut model).node[0].attribute.clear();
    assert_eq!(fired(&model), [Check::MissingAttribute]);
    // A scalar without its number: onnx's inference of `Constant` rejects it, while the same
    // attribute of another operator reads as the default.
    let mut model = onnx_syntax::parse_model(
        r#"<ir_version: 10, opset_import: ["" : 21]>
        g () => (float y) { y = Constant <value_float = 1.0> () }"#,
    )
    .unwrap();
    assert_eq!(fired(&model), []);
    graph(&mut model).node[0].attribute[0].f = None;
    assert_eq!(fired(&model), [Check::AttributeFields]);
    let mut neighbour = leaky(alpha());
    graph(&mut neighbour).node[0].attribute[0].f = None;
    assert_eq!(fired(&neighbour), []);
}

#[test]
fn places_name_the_graph_node_attribute_and_tensor() {
    let mut t = tensor("w", 8, &[1]);
    t.raw_data = Some(b"abc".to_vec());
    let err = ModelCheck::default()
        .check(&with_initializer(t))
        .unwrap_err();
    assert_eq!(
        err[0].place().unwrap().to_string(),
        "graph `g`, initializer `w`"
    );
    let mut a = alpha();
    a.i = Some(1);
    let err = ModelCheck::default().check(&leaky(a)).unwrap_err();
    assert_eq!(
        err[0].place().unwrap().to_string(),
        "graph `g`, node 0 (output `y`), attribute `alpha`"
    );
    let rendered = err.with_origin("m.onnx").to_string();
    assert!(
        rendered.starts_with("error[attribute_fields]: the attribute's type is FLOAT but it holds `i`\n --> m.onnx: graph `g`, node 0 (output `y`), attribute `alpha`\n"),
        "{rendered}"
    );
}

#[test]
fn every_rule_can_be_allowed() {
    let mut model = base();
    model.ir_version = None;
    model.metadata_props = vec![StringStringEntryProto::default(); 2];
    let options = CheckOptions::default()
        .allow(Check::IrVersion)
        .allow(Check::DuplicateMetadata);
    assert!(ModelCheck::new(options).check(&model).is_ok());
    assert!(ModelCheck::default().check(&model).is_err());
    let binary_only: Vec<&str> = Check::ALL
        .iter()
        .filter(|c| c.is_binary_only())
        .map(|c| c.name())
        .collect();
    // The rules of binary models, but `missing_type` and `negative_dim`, which text and
    // literals can break too.
    assert_eq!(binary_only.len(), 14);
    assert!(!Check::MissingType.is_binary_only());
    assert!(!Check::NegativeDim.is_binary_only());
    assert!(binary_only.iter().all(|name| name.parse::<Check>().is_ok()));
}

// --- external data ------------------------------------------------------------------------

/// A fresh folder under the system's temporary folder, with `model/` (holding `w.bin`, eight
/// bytes) and `outside.bin` beside it.
struct Folder(PathBuf);

impl Folder {
    fn new(name: &str) -> Folder {
        let root =
            std::env::temp_dir().join(format!("onnx-model-check-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("model/sub")).unwrap();
        std::fs::write(root.join("model/w.bin"), [0u8; 8]).unwrap();
        std::fs::write(root.join("outside.bin"), [0u8; 8]).unwrap();
        Folder(root)
    }

    fn model(&self) -> PathBuf {
        self.0.join("model")
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn external(location: &str, extra: &[(&str, &str)]) -> ModelProto {
    let mut t = tensor("w", 1, &[2]);
    t.data_location = Some(1);
    let entry = |k: &str, v: &str| StringStringEntryProto {
        key: Some(k.into()),
        value: Some(v.into()),
    };
    t.external_data.push(entry("location", location));
    t.external_data
        .extend(extra.iter().map(|(k, v)| entry(k, v)));
    with_initializer(t)
}

#[test]
fn external_data_stays_inside_the_model_folder() {
    let folder = Folder::new("inside");
    let dir = folder.model();
    let at = |location: &str| fired_in(&external(location, &[]), Some(&dir));
    assert_eq!(at("w.bin"), []);
    assert_eq!(at("./sub/../w.bin"), []);
    for location in [
        "../outside.bin",
        "/etc/passwd",
        "sub/../../outside.bin",
        "",
        "missing.bin",
        "sub",
    ] {
        assert_eq!(at(location), [Check::ExternalData], "{location}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::symlink;
        symlink("../outside.bin", dir.join("link.bin")).unwrap();
        symlink("w.bin", dir.join("inlink.bin")).unwrap();
        std::fs::create_dir(folder.0.join("real")).unwrap();
        std::fs::write(folder.0.join("real/w.bin"), [0u8; 8]).unwrap();
        symlink("../real", dir.join("outdir")).unwrap();
        symlink("sub", dir.join("subdir")).unwrap();
        std::fs::write(dir.join("sub/w.bin"), [0u8; 8]).unwrap();
        std::fs::hard_link(dir.join("w.bin"), dir.join("hard.bin")).unwrap();
        assert_eq!(at("link.bin"), [Check::ExternalData]);
        assert_eq!(at("inlink.bin"), [Check::ExternalData]); // as onnx: the file is a link
        assert_eq!(at("outdir/w.bin"), [Check::ExternalData]);
        assert_eq!(at("subdir/w.bin"), []);
        assert_eq!(at("hard.bin"), [Check::ExternalData]);
    }
    let message = ModelCheck::default()
        .model_dir(&dir)
        .check(&external("../outside.bin", &[]))
        .unwrap_err()[0]
        .message()
        .to_owned();
    assert_eq!(
        message,
        "tensor `w` has its data at `../outside.bin`: a path that leaves the model's folder"
    );
}

#[test]
fn external_data_covers_offset_and_length() {
    let folder = Folder::new("length");
    let dir = folder.model();
    let at = |extra: &[(&str, &str)]| fired_in(&external("w.bin", extra), Some(&dir));
    assert_eq!(at(&[("offset", "0"), ("length", "8")]), []);
    // onnx does not look at offset and length: stricter.
    assert_eq!(at(&[("offset", "4")]), [Check::ExternalData]);
    assert_eq!(at(&[("length", "100")]), [Check::ExternalData]);
    assert_eq!(at(&[("offset", "abc")]), [Check::ExternalData]);
    // Without a model folder, nothing is looked for: an error.
    assert_eq!(fired(&external("w.bin", &[])), [Check::ExternalData]);
    // Data beside an external location, and no location.
    let mut model = external("w.bin", &[]);
    graph(&mut model).initializer[0].float_data = vec![1.0, 2.0];
    assert_eq!(fired_in(&model, Some(&dir)), [Check::TensorData]);
    let mut model = external("w.bin", &[]);
    graph(&mut model).initializer[0].external_data.clear();
    assert_eq!(fired_in(&model, Some(&dir)), [Check::ExternalData]);
}

// --- untrusted bytes ----------------------------------------------------------------------

#[test]
fn bytes_that_are_no_model_are_an_error_not_a_panic() {
    let bytes = base().encode_to_vec();
    for end in 0..bytes.len() {
        let _ = ModelCheck::default().check_bytes(&bytes[..end]);
    }
    let mut flipped = bytes.clone();
    for i in 0..flipped.len() {
        for bit in [0x01, 0x80] {
            flipped[i] ^= bit;
            let _ = ModelCheck::default().check_bytes(&flipped);
            flipped[i] ^= bit;
        }
    }
    let err = ModelCheck::default()
        .check_bytes(&[0x3a, 0x05, 0x0a])
        .unwrap_err();
    assert_eq!(err[0].check(), None);
    // Not a model at all: a diagnostic of its own kind, placed at the model, titled without a check.
    assert_eq!(err[0].kind(), DiagnosticKind::Decode);
    assert_eq!(
        err[0].place().map(ToString::to_string).as_deref(),
        Some("the model")
    );
    assert!(err.to_string().starts_with("error: "), "{err}");
    let tight = ModelCheck::default().limits(DecodeLimits::default().max_memory(1000));
    let err = tight.check_bytes(&bytes).unwrap_err();
    let limit = 1000 + 2 * bytes.len(); // beyond twice the input
    let expected = format!("decoding would take more than {limit} bytes of memory");
    assert_eq!(err[0].message(), expected);
}

/// The element type of a tensor inside an input's sequence or optional type, set to `elem`.
fn with_inner_elem(text: &str, elem: Option<i32>) -> ModelProto {
    use onnx_runtime_types::type_proto::Value;
    let mut model = onnx_syntax::parse_model(text).unwrap();
    let mut ty = graph(&mut model).input[0].r#type.as_mut().unwrap();
    loop {
        match ty.value.as_mut().unwrap() {
            Value::SequenceType(s) => ty = s.elem_type.as_deref_mut().unwrap(),
            Value::OptionalType(o) => ty = o.elem_type.as_deref_mut().unwrap(),
            Value::TensorType(t) => {
                t.elem_type = elem;
                return model;
            }
            _ => unreachable!(),
        }
    }
}

#[test]
fn inputs_of_sequences_or_optionals_name_their_tensors_element_type() {
    // onnx: "Invalid tensor data type 0." for both, once a node reads the input, whether the
    // element type is 0 or missing.
    let sequence = r#"<ir_version: 10, opset_import: ["" : 21]>
        g (seq(float[2]) xs) => (int64 n) { n = SequenceLength (xs) }"#;
    let optional = r#"<ir_version: 10, opset_import: ["" : 21]>
        g (optional(float[2]) x) => (bool has) { has = OptionalHasElement (x) }"#;
    for text in [sequence, optional] {
        assert_eq!(fired(&with_inner_elem(text, Some(1))), []);
        assert_eq!(fired(&with_inner_elem(text, Some(0))), [Check::DataType]);
        assert_eq!(fired(&with_inner_elem(text, None)), [Check::DataType]);
    }
}

#[test]
fn attributes_holding_a_type_that_cannot_be_printed_are_still_checked() {
    use onnx_runtime_types::{TypeProto, type_proto};
    // onnx: "Mismatched attribute type ... Expected: 'INT', actual: 'TYPE_PROTO'" and "No Op
    // registered for Foo": neither looks at the type the attribute holds.
    let empty = TypeProto::default();
    let undefined = TypeProto {
        value: Some(type_proto::Value::TensorType(type_proto::Tensor {
            elem_type: Some(0),
            shape: None,
        })),
        ..TypeProto::default()
    };
    for (op, attribute, check) in [
        ("Cast", "to", Check::AttributeType),
        ("Foo", "d", Check::UnknownOperator),
    ] {
        for ty in [&empty, &undefined] {
            let mut model = base();
            let node = &mut graph(&mut model).node[0];
            node.op_type = Some(op.into());
            node.attribute = vec![AttributeProto {
                name: Some(attribute.into()),
                r#type: Some(AttributeType::TypeProto as i32),
                tp: Some(Box::new(ty.clone())),
                ..Default::default()
            }];
            assert_eq!(fired(&model), [check], "{op} with {ty:?}");
        }
    }
}
