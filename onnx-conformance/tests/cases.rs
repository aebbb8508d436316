//! The kit's data against its own API: every case reads, every model is checked, every expected
//! output passes its check and fails it once perturbed.

mod common;

use common::PARAMETER_OPERATORS;
use onnx_conformance::{Value, cases};
use onnx_text::TensorProto;
use onnx_text::prost::Message;
use onnx_text::tensor_proto::DataType;
use std::collections::BTreeMap;

#[test]
fn there_are_onnx_1_23_2s_1884_node_cases_with_unique_names() {
    let names: std::collections::BTreeSet<&str> = cases().iter().map(|c| c.name()).collect();
    assert_eq!((cases().len(), names.len()), (1884, 1884));
}

/// The catalog's `include_onnx!` literals are checked at compile time; the same checks at
/// runtime accept every text too, and give the model the catalog holds.
#[test]
fn every_model_passes_every_check_and_is_its_text() {
    let mut rejected = Vec::new();
    for case in cases() {
        match onnx_text::check_model(case.text()) {
            // Bytes, not values: some attributes hold NaN, which `==` never equals.
            Ok(model) => assert!(
                model.encode_to_vec() == case.model().encode_to_vec(),
                "{}",
                case.name()
            ),
            Err(diagnostics) => rejected.push(format!("{}: {diagnostics}", case.name())),
        }
    }
    assert!(
        rejected.is_empty(),
        "{} models fail the checks:\n{}",
        rejected.len(),
        rejected.join("\n")
    );
}

#[test]
fn every_case_reads_and_its_expected_outputs_pass_their_check() {
    for case in cases() {
        let graph = case.model().graph.unwrap();
        assert_eq!(case.inputs().len(), graph.input.len(), "{}", case.name());
        let outputs = case.outputs();
        assert_eq!(outputs.len(), graph.output.len(), "{}", case.name());
        if let Err(mismatch) = case.check(&outputs) {
            panic!("{mismatch}");
        }
    }
}

#[test]
fn constant_inputs_are_the_tensor_inputs_after_the_first() {
    let mut hinted = 0;
    for case in cases() {
        let first = usize::from(!PARAMETER_OPERATORS.contains(&case.op_type()));
        let expected: Vec<usize> = case
            .inputs()
            .iter()
            .enumerate()
            .skip(first)
            .filter(|(_, v)| matches!(v, Value::Tensor(_)))
            .map(|(i, _)| i)
            .collect();
        assert_eq!(case.constant_inputs(), expected, "{}", case.name());
        hinted += usize::from(!expected.is_empty());
    }
    assert!(hinted > 1000, "{hinted}");
}

/// An operator that takes no data has every input hinted, the first too: a window's size,
/// MelWeightMatrix's five scalars, ConstantOfShape's shape, Range's bounds (tract takes the
/// first two only as constants).
#[test]
fn an_operator_of_parameters_only_has_every_input_hinted() {
    let hint = |name: &str| {
        cases()
            .iter()
            .find(|c| c.name() == name)
            .unwrap()
            .constant_inputs()
    };
    assert_eq!(hint("test_hannwindow"), [0]);
    assert_eq!(hint("test_blackmanwindow_symmetric_expanded"), [0]);
    assert_eq!(hint("test_melweightmatrix"), [0, 1, 2, 3, 4]);
    assert_eq!(hint("test_constantofshape_int_zeros"), [0]);
    assert_eq!(hint("test_range_float_type_positive_delta"), [0, 1, 2]);
    // Data first, parameters after: the first stays fed.
    assert_eq!(hint("test_reshape_reordered_all_dims"), [1]);
}

/// Flips one bit of the first element's code: the top exponent bit of a float (of an
/// integer, a high bit; of a bool, its bit), which moves it far beyond any tolerance, or
/// between a number and NaN or infinity.
fn perturb(tensor: &mut TensorProto) {
    let ty = DataType::try_from(tensor.data_type()).unwrap();
    // (bytes per element in raw_data, the bit to flip in the element's last byte)
    let (width, bit) = match ty {
        DataType::Bool => (1, 0),
        DataType::Float8e8m0 => (1, 7),
        DataType::Uint4 | DataType::Int4 | DataType::Float4e2m1 => (1, 2),
        DataType::Uint2 | DataType::Int2 => (1, 0),
        DataType::Float6e2m3 | DataType::Float6e3m2 => (1, 4),
        DataType::Int8 | DataType::Uint8 => (1, 6),
        DataType::Float8e4m3fn
        | DataType::Float8e4m3fnuz
        | DataType::Float8e5m2
        | DataType::Float8e5m2fnuz => (1, 6),
        DataType::Int16 | DataType::Uint16 | DataType::Float16 | DataType::Bfloat16 => (2, 6),
        DataType::Float | DataType::Int32 | DataType::Uint32 | DataType::Complex64 => (4, 6),
        DataType::Double | DataType::Int64 | DataType::Uint64 | DataType::Complex128 => (8, 6),
        DataType::String => {
            tensor.string_data[0].push(b'!');
            return;
        }
        DataType::Undefined => unreachable!(),
    };
    if let Some(raw) = tensor.raw_data.as_mut() {
        raw[width - 1] ^= 1 << bit;
    } else if let Some(v) = tensor.float_data.first_mut() {
        *v = f32::from_bits(v.to_bits() ^ 1 << 30);
    } else if let Some(v) = tensor.double_data.first_mut() {
        *v = f64::from_bits(v.to_bits() ^ 1 << 62);
    } else if let Some(v) = tensor.int64_data.first_mut() {
        *v ^= 1 << 6;
    } else if let Some(v) = tensor.uint64_data.first_mut() {
        *v ^= 1 << 6;
    } else {
        tensor.int32_data[0] ^= 1 << (8 * (width - 1) + bit);
    }
}

/// The first tensor in a value, depth first.
fn first_tensor(value: &mut Value) -> Option<&mut TensorProto> {
    match value {
        Value::Tensor(t) => Some(t),
        Value::Sequence(items) => items.iter_mut().find_map(first_tensor),
        Value::Optional(inner) => inner.as_deref_mut().and_then(first_tensor),
        Value::Map(map) => map.entries.iter_mut().find_map(|(_, v)| first_tensor(v)),
    }
}

#[test]
fn a_perturbed_output_fails_its_check_for_every_element_type_and_way_of_storing() {
    // (element type, raw or typed) → how many outputs were perturbed, and the first case.
    let mut seen: BTreeMap<(String, bool), (usize, &str)> = BTreeMap::new();
    for case in cases() {
        for i in 0..case.outputs().len() {
            let mut outputs = case.outputs();
            let Some(tensor) = first_tensor(&mut outputs[i]) else {
                continue;
            };
            if tensor.dims.contains(&0) {
                continue;
            }
            let key = (
                DataType::try_from(tensor.data_type())
                    .unwrap()
                    .as_str_name()
                    .to_string(),
                tensor.raw_data.is_some(),
            );
            perturb(tensor);
            let mismatch = case.check(&outputs).expect_err(&format!(
                "{} output {i}: perturbed, still passes",
                case.name()
            ));
            let text = mismatch.to_string();
            assert!(
                text.contains(&format!("output {i} (`")) && text.contains(": element 0 (at ["),
                "{text}"
            );
            seen.entry(key).or_insert((0, case.name())).0 += 1;
        }
    }
    let types: std::collections::BTreeSet<&str> = seen.keys().map(|(t, _)| t.as_str()).collect();
    // Every element type but the two complex ones (1 to 13, 16 to 26): no case outputs
    // complex numbers or float6 (27, 28).
    let all: Vec<&str> = (1..=26)
        .filter(|t| ![14, 15].contains(t))
        .map(|t| DataType::try_from(t).unwrap().as_str_name())
        .collect();
    let missing: Vec<&&str> = all.iter().filter(|t| !types.contains(**t)).collect();
    assert!(
        missing.is_empty(),
        "no output of element type {missing:?}; perturbed: {seen:?}"
    );
}

#[test]
fn shapes_element_types_and_kinds_must_match() {
    let case = cases().iter().find(|c| c.name() == "test_abs").unwrap();
    let Value::Tensor(y) = &case.outputs()[0] else {
        unreachable!()
    };

    let mut reshaped = y.clone();
    reshaped.dims = vec![60];
    let text = case
        .check(&[Value::Tensor(reshaped)])
        .unwrap_err()
        .to_string();
    assert!(
        text.starts_with("test_abs: output 0 (`y`): expected shape [3, 4, 5], got [60]\n"),
        "{text}"
    );

    let mut retyped = y.clone();
    retyped.data_type = Some(DataType::Int32 as i32);
    let text = case
        .check(&[Value::Tensor(retyped)])
        .unwrap_err()
        .to_string();
    assert!(
        text.starts_with("test_abs: output 0 (`y`): expected element type FLOAT, got INT32\n"),
        "{text}"
    );

    let text = case
        .check(&[Value::Sequence(vec![Value::Tensor(y.clone())])])
        .unwrap_err()
        .to_string();
    assert!(
        text.starts_with("test_abs: output 0 (`y`): expected a tensor, got a sequence\n"),
        "{text}"
    );

    // The same values in float_data instead of raw_data pass.
    let mut typed = y.clone();
    let raw = typed.raw_data.take().unwrap();
    typed.float_data = raw
        .chunks(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert!(case.check(&[Value::Tensor(typed.clone())]).is_ok());
    // Within tolerance passes; beyond fails.
    typed.float_data[3] *= 1.0 + 5e-4;
    assert!(case.check(&[Value::Tensor(typed.clone())]).is_ok());
    typed.float_data[3] *= 1.0 + 2e-3;
    let text = case.check(&[Value::Tensor(typed)]).unwrap_err().to_string();
    assert!(
        text.contains(": element 3 (at [0, 0, 3]): expected "),
        "{text}"
    );
}

#[test]
fn nan_equals_nan_and_infinities_only_themselves() {
    // ReduceMax of an empty set is -inf.
    let case = cases()
        .iter()
        .find(|c| c.name() == "test_reduce_max_empty_set")
        .unwrap();
    let Value::Tensor(y) = &case.outputs()[0] else {
        unreachable!()
    };
    let raw = y.raw_data.as_ref().unwrap();
    assert!(
        raw.chunks(4)
            .all(|b| f32::from_le_bytes(b.try_into().unwrap()) == f32::NEG_INFINITY)
    );
    let with = |v: f32| {
        let mut t = y.clone();
        t.raw_data.as_mut().unwrap()[..4].copy_from_slice(&v.to_le_bytes());
        case.check(&[Value::Tensor(t)])
    };
    assert!(with(f32::NEG_INFINITY).is_ok());
    for wrong in [f32::INFINITY, f32::MIN, f32::NAN] {
        assert!(with(wrong).is_err(), "{wrong}");
    }
    // An expected NaN passes only as NaN.
    let (case, i, at) = cases()
        .iter()
        .find_map(|case| {
            case.outputs()
                .iter()
                .enumerate()
                .find_map(|(i, v)| match v {
                    Value::Tensor(t) if t.data_type() == DataType::Float as i32 => t
                        .raw_data
                        .as_ref()?
                        .chunks(4)
                        .position(|b| f32::from_le_bytes(b.try_into().unwrap()).is_nan())
                        .map(|at| (case, i, at)),
                    _ => None,
                })
        })
        .expect("a case expects a NaN");
    let with = |v: f32| {
        let mut outputs = case.outputs();
        let Value::Tensor(t) = &mut outputs[i] else {
            unreachable!()
        };
        t.raw_data.as_mut().unwrap()[4 * at..4 * at + 4].copy_from_slice(&v.to_le_bytes());
        case.check(&outputs)
    };
    assert!(with(-f32::NAN).is_ok(), "{}", case.name());
    for wrong in [0.0, f32::INFINITY] {
        let text = with(wrong).unwrap_err().to_string();
        assert!(
            text.contains(&format!("element {at} (at ")) && text.contains("expected NaN, got "),
            "{text}"
        );
    }
}
