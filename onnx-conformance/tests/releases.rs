//! onnx's releases (`releases()`, `release(v)`) against what scripts/gen_releases.py read in
//! their wheels: every case is there, every model is its text and passes every check (or fails
//! exactly the checks the kit allows it by name), every file reads, and equal files are one.
//! The kit's tests build with `all-releases` (its dev-dependency on itself); the published
//! package, which cargo strips of that dependency, has these tests only with the feature.
#![cfg(feature = "all-releases")]

mod common;

use common::PARAMETER_OPERATORS;
use onnx_conformance::{Case, CaseKind, cases, release, releases};
use onnx_text::prost::Message;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// (release, node cases, model cases) as gen_releases.py counted them in the wheels; 1.23.2's
/// node cases are gen_conformance.py's.
const COUNTS: [(&str, usize, usize); 20] = [
    ("1.4.1", 381, 122),
    ("1.5.0", 421, 128),
    ("1.6.0", 557, 135),
    ("1.7.0", 748, 138),
    ("1.8.1", 775, 138),
    ("1.9.0", 809, 140),
    ("1.10.2", 847, 140),
    ("1.11.0", 864, 140),
    ("1.12.0", 932, 140),
    ("1.13.0", 1097, 140),
    ("1.14.1", 1168, 140),
    ("1.15.0", 1252, 140),
    ("1.16.2", 1282, 140),
    ("1.17.0", 1288, 140),
    ("1.18.0", 1450, 140),
    ("1.19.1", 1615, 140),
    ("1.20.1", 1653, 140),
    ("1.21.0", 1678, 140),
    ("1.22.0", 1765, 140),
    ("1.23.2", 1884, 140),
];

/// The models that break a rule of the checks, by case name, with the check they fail
/// (gen_releases.py's ALLOWED; docs/divergences.md says why).
const ALLOWED: [(&str, &str); 11] = [
    ("test_dynamic_slice", "unknown_operator"),
    ("test_dynamic_slice_default_axes", "unknown_operator"),
    ("test_dynamic_slice_end_out_of_bounds", "unknown_operator"),
    ("test_dynamic_slice_neg", "unknown_operator"),
    ("test_dynamic_slice_start_out_of_bounds", "unknown_operator"),
    ("test_thresholdedrelu", "unknown_operator"),
    ("test_thresholdedrelu_default", "unknown_operator"),
    ("test_thresholdedrelu_example", "unknown_operator"),
    ("test_group_normalization_epsilon", "unknown_operator"),
    ("test_group_normalization_example", "unknown_operator"),
    (
        "test_maxpool_2d_ceil_output_size_reduce_by_one",
        "shape_mismatch",
    ),
];

fn all() -> impl Iterator<Item = (&'static str, &'static Case)> {
    releases()
        .iter()
        .flat_map(|&v| release(v).unwrap().iter().map(move |case| (v, case)))
}

#[test]
fn every_release_since_1_4_1_is_there_with_every_case_of_its_wheel() {
    let versions: Vec<&str> = COUNTS.iter().map(|c| c.0).collect();
    assert_eq!(releases(), versions);
    let mut total = 0;
    for (version, node, model) in COUNTS {
        let cases = release(version).unwrap();
        let nodes = cases.iter().filter(|c| c.kind() == CaseKind::Node).count();
        assert_eq!((nodes, cases.len() - nodes), (node, model), "{version}");
        // Node tests first, each kind sorted by name; names are unique in a release.
        let kinds: Vec<CaseKind> = cases.iter().map(|c| c.kind()).collect();
        assert!(
            kinds[..node].iter().all(|&k| k == CaseKind::Node),
            "{version}"
        );
        assert!(
            kinds[node..].iter().all(|&k| k == CaseKind::Model),
            "{version}"
        );
        assert!(
            cases[..node].windows(2).all(|w| w[0].name() < w[1].name()),
            "{version}"
        );
        let names: BTreeSet<&str> = cases.iter().map(|c| c.name()).collect();
        assert_eq!(names.len(), cases.len(), "{version}");
        let suites: BTreeMap<&str, usize> = cases.iter().fold(BTreeMap::new(), |mut m, c| {
            *m.entry(c.suite()).or_default() += 1;
            m
        });
        let expected_models = if version == "1.4.1" {
            [
                ("pytorch-converted", 80),
                ("pytorch-operator", 35),
                ("simple", 7),
            ]
        } else {
            [
                ("pytorch-converted", suites["pytorch-converted"]),
                ("pytorch-operator", 35),
                ("simple", suites["simple"]),
            ]
        };
        for (suite, count) in expected_models {
            assert_eq!(suites[suite], count, "{version} {suite}");
        }
        total += cases.len();
    }
    assert_eq!(total, 20_582 + 1_884 + 2_761);
    assert!(release("1.3.0").is_none());
}

#[test]
fn the_newest_release_is_the_generated_node_cases_then_its_wheels_model_tests() {
    let newest = release("1.23.2").unwrap();
    assert_eq!(newest.len(), cases().len() + 140);
    for (a, b) in newest.iter().zip(cases()) {
        assert_eq!((a.name(), a.text()), (b.name(), b.text()));
        assert!(a.model().encode_to_vec() == b.model().encode_to_vec());
    }
    let models = &newest[cases().len()..];
    assert!(models.iter().all(|c| c.kind() == CaseKind::Model));
    let simple: Vec<&str> = models
        .iter()
        .filter(|c| c.suite() == "simple")
        .map(|c| c.name())
        .collect();
    assert_eq!(simple.len(), 23);
    assert!(simple.contains(&"test_sign_model"), "{simple:?}");
}

/// The catalog's `include_onnx!` literals are checked at compile time; the same checks at
/// runtime accept every text but the allowed ones, which fail exactly their allowed check,
/// and every model is its text.
#[test]
fn every_model_is_its_text_and_passes_every_check_but_those_allowed_by_name() {
    let allowed: HashMap<&str, &str> = ALLOWED.into_iter().collect();
    let mut seen = BTreeSet::new();
    let mut rejected = BTreeSet::new();
    let mut problems = Vec::new();
    for (version, case) in all() {
        if !seen.insert(case.text()) {
            continue;
        }
        let model = case.model().encode_to_vec();
        match (
            onnx_text::check_model(case.text()),
            allowed.get(case.name()),
        ) {
            // Bytes, not values: some attributes hold NaN, which `==` never equals.
            (Ok(checked), _) => {
                if checked.encode_to_vec() != model {
                    problems.push(format!("{version} {}: not its text", case.name()));
                }
            }
            (Err(diagnostics), Some(check)) => {
                let names: BTreeSet<String> = diagnostics
                    .iter()
                    .map(|d| d.check().map_or("syntax".into(), |c| c.to_string()))
                    .collect();
                if names != BTreeSet::from([check.to_string()]) {
                    problems.push(format!("{version} {}: {diagnostics}", case.name()));
                }
                let parsed = onnx_text::parse_model(case.text()).unwrap();
                assert!(parsed.encode_to_vec() == model, "{}", case.name());
                rejected.insert(case.name());
            }
            (Err(diagnostics), None) => {
                problems.push(format!("{version} {}: {diagnostics}", case.name()))
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // Every allowance is needed.
    assert_eq!(rejected, allowed.keys().copied().collect());
    // The distinct texts of the older releases' data crates and the 1.23.2 cases'.
    assert!(seen.len() > 4_316, "{}", seen.len());
}

#[test]
fn every_case_reads_and_its_expected_outputs_pass_their_check() {
    let mut seen = std::collections::HashSet::new();
    let mut failing = Vec::new();
    for (version, case) in all() {
        // A case shared by several releases is one constant: read it once.
        if !seen.insert((case.text().as_ptr(), case.name())) {
            continue;
        }
        let graph = case.model().graph.unwrap();
        let inputs = case.inputs();
        match case.kind() {
            CaseKind::Node => {
                assert_eq!(inputs.len(), graph.input.len(), "{version} {}", case.name())
            }
            // Before IR 4 a model's initializers are graph inputs too, after the fed ones.
            CaseKind::Model => {
                let fed = graph.input.len() - inputs.len();
                assert!(fed <= graph.initializer.len(), "{version} {}", case.name());
                assert!(
                    (case.op_type(), case.domain()) == ("", ""),
                    "{}",
                    case.name()
                );
            }
        }
        assert_eq!(
            case.outputs().len(),
            graph.output.len(),
            "{version} {}",
            case.name()
        );
        assert_eq!(case.tolerance(), (1e-3, 1e-7));
        if let Err(mismatch) = case.check(&case.outputs()) {
            let first = mismatch.to_string().lines().next().unwrap().to_string();
            failing.push(format!("{version}: {first}"));
        }
    }
    // onnx 1.4.1 shipped this expected output broken: 3 strings (memory addresses written by a
    // bug of its generator) for dims [3, 4]; 1.5.0 fixed it. The kit keeps the file as shipped.
    assert_eq!(
        failing,
        [
            "1.4.1: test_cast_FLOAT_to_STRING: output 0 (`output`): cannot read the tensor: the \
             expected one: 3 elements where dims [3, 4] give 12"
        ],
        "{}",
        failing.join("\n")
    );
}

/// Identical files are stored once: cases that hold equal bytes (a file of several releases,
/// or of several cases) point at the same bytes.
#[test]
fn equal_files_and_texts_are_stored_once() {
    let mut files: HashMap<&[u8], *const u8> = HashMap::new();
    let mut texts: HashMap<&str, *const u8> = HashMap::new();
    let mut shared = 0;
    // 1.23.2's node cases are gen_conformance.py's files, apart.
    for (_, case) in all().filter(|(v, c)| *v != "1.23.2" || c.kind() == CaseKind::Model) {
        for bytes in case.input_files().iter().chain(case.output_files()) {
            let at = *files.entry(bytes).or_insert(bytes.as_ptr());
            assert_eq!(at, bytes.as_ptr(), "{}", case.name());
            shared += 1;
        }
        let at = *texts.entry(case.text()).or_insert(case.text().as_ptr());
        assert_eq!(at, case.text().as_ptr(), "{}", case.name());
    }
    // 3,044 distinct files (2,777 in the node tests' crate, 267 more of the model tests) for many
    // more uses.
    assert_eq!(files.len(), 3_044);
    assert!(shared > 50_000, "{shared}");
}

#[test]
fn an_old_operator_version_is_there() {
    // Upsample, removed in opset 10, and Slice before its inputs became tensors (opset 10).
    let upsample = release("1.4.1")
        .unwrap()
        .iter()
        .find(|c| c.name() == "test_upsample_nearest")
        .unwrap();
    assert_eq!(
        (upsample.op_type(), upsample.opset_version()),
        ("Upsample", 9)
    );
    let slice = release("1.4.1")
        .unwrap()
        .iter()
        .find(|c| c.name() == "test_slice")
        .unwrap();
    assert_eq!(slice.opset_version(), 9);
    assert_eq!(slice.inputs().len(), 1);
}

/// Every release's hints follow 1.23.2's rule (scripts/gen_releases.py takes it from
/// gen_conformance.py), and a model test's are the rule lifted to its graph: an input after the
/// first that the nodes read only after their own first input, as Expand's shape in
/// test_expand_shape_model1; the first input never.
#[test]
fn every_release_hints_constant_inputs_as_the_newest_does() {
    let mut models = BTreeMap::new();
    for (version, case) in all() {
        let inputs = case.inputs();
        let tensor = |i: &usize| matches!(inputs[*i], onnx_conformance::Value::Tensor(_));
        match case.kind() {
            CaseKind::Node => {
                let first = usize::from(!PARAMETER_OPERATORS.contains(&case.op_type()));
                let expected: Vec<usize> = (first..inputs.len()).filter(tensor).collect();
                assert_eq!(
                    case.constant_inputs(),
                    expected,
                    "{version} {}",
                    case.name()
                );
            }
            CaseKind::Model => {
                assert!(
                    case.constant_inputs().iter().all(|i| *i > 0 && tensor(i)),
                    "{version} {}",
                    case.name()
                );
                models.insert(case.name(), case.constant_inputs());
            }
        }
    }
    let window = release("1.12.0")
        .unwrap()
        .iter()
        .find(|c| c.name() == "test_hannwindow");
    assert_eq!(window.unwrap().constant_inputs(), [0]);
    assert_eq!(models["test_expand_shape_model1"], [1]);
    assert_eq!(models["test_operator_addmm"], [1, 2]);
    // Gather(weight, indices): the indices are the model's first input, and stay fed.
    assert_eq!(models["test_Embedding"], [] as [usize; 0]);
    // "1" is Neg's operand, "2" only Sum's third.
    assert_eq!(models["test_operator_symbolic_override_nested"], [2]);
    assert_eq!(models["test_single_relu_model"], [] as [usize; 0]);
}
